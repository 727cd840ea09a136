"""From raw clips to the dataset file the trainer's preprocessing reads (the skill's Phase 5):
the source staged under `<run>/dataset/` as links, the clip audit, scene split, captions with a
spot check, conditioning inputs checked, and a held-out split.

The trainer's own scripts do the work (scripts/split_scenes.py, caption_videos.py,
serve_captioner.py, compute_reference.py), run in the user's checkout; the wizard decides,
checks and records. The user's files are never moved or changed.
"""
