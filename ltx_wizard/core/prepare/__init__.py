"""From raw clips to the dataset file the trainer's preprocessing reads (the skill's Phase 5):
the source staged under `<run>/dataset/` as links, the clip audit, scene split, captions with a
spot check, conditioning inputs checked, and a held-out split.

The trainer's own scripts do the work (scripts/split_scenes.py, caption_videos.py,
serve_captioner.py, compute_reference.py), run in the user's checkout; the wizard decides,
checks and records. The user's files are never moved or changed.

The flow is values: the request from one adapter (request.build_prepare_request) for the command
line and the screen, a frozen context (context.py) and a frozen dataset value with typed rows
(dataset_value.py) that each stage takes and returns, the session (prepare_session.py) only sequencing
them, and the result handed to the plan as the plan request's fields (request.PlanInputs).
"""
