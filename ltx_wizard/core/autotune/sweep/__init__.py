"""The sweep: the engine (engine.py) and its collaborators, one step each: the trial data linked
(trial_subset.py), the planned config read (planned_config.py), one trial step (trial_steps.py), the
winner's confirmation (confirmation.py), a setup failure that stops it (setup_stop.py), and the
finish (finishing.py, best_so_far.py)."""
