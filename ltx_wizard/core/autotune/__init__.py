"""Autotune: trial configs, the trial runner, the trainer-output parser and the sweep engine."""
