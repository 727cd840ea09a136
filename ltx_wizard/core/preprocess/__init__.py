"""Clips to latents: planning from a dataset file, the trainer's preprocessing command built
from its own script, and its progress.
"""
