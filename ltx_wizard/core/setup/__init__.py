"""Phase 0, a bare GPU box made ready: uv, the trainer checkout and its environment offered one
item at a time (each only after a yes, its output logged), and the user's intent mapped to one of
the trainer's shipped configs. The plan's checks are not here: the version-fit
gate in core/plan/fit_gate.py, the latents' fit in core/dataset/data_fit.py, their disk in
core/preprocess/latent_disk.py, the W&B login in core/inputs/wandb_login.py.
"""
