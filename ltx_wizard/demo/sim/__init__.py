"""Simulated LTX-2 trainer: a real subprocess that prints, writes and fails like the real one."""
