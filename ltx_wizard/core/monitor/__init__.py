"""The training run after launch: its log read incrementally, its status, resume and summary."""
