"""Which checkpoint to use: the records of the held-out loss and the LoRA health check (issue 44)."""
