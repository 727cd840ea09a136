"""ltx-wizard: from a fresh GPU box to a tuned LTX-2 training run."""

__version__ = "0.1.0"
