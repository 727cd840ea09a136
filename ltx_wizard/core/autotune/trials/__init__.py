"""A trial as processes and what they leave: the trainer as a child of core/proc (its group,
ranks, stop rule and watchdog), the session's guards (session_record.py), GPU memory sampled
(vram_sampler.py), its phase read from its lines (phase.py), its whole output in logs/
(log_file.py), one runner per GPU slot turning a run into a TrialResult (trial_runner.py), trials side
by side on several GPUs (side_by_side.py), and its checkpoints pruned or a dropped guess set aside
(leftovers.py). The command is checked runnable before any trial (preflight.py)."""
