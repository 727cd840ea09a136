"""Phase 6, after launch: the training run's log read incrementally, its status, resume and summary."""
