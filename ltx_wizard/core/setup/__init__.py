"""Phase 0, a bare GPU box made ready: uv, the trainer checkout and its environment offered one
item at a time (each only after a yes, its output logged), the data's preprocessing checked
against the checkpoint, the W&B login read as wandb itself reads it, and the user's intent
mapped to one of the trainer's shipped configs.
"""
