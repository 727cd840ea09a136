"""A trial as processes and what they leave: the trainer as a process group (process.py) with
every rank it starts (ranks.py) and a reaper for orphans (orphans.py), GPU memory sampled
(vram_sampler.py), its phase read from its lines (phase.py), its whole output in logs/
(log_file.py), one runner per GPU slot turning a run into a TrialResult (runner.py), trials side
by side on several GPUs (side_by_side.py), and its checkpoints pruned or a dropped guess set aside
(leftovers.py). The command is checked runnable before any trial (preflight.py)."""
