"""Programs the wizard runs inside the trainer's environment (torch there, never imported here)."""
