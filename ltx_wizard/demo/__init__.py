"""What the wizard shows and tests without a GPU or a real LTX-2 checkout: look-alike checkouts
and model files, the `--demo` folder builder and the simulated trainer.

Never imported by `ltx_wizard.core` (an import-linter contract in pyproject.toml): the look-alikes
take the trainer's layout from the core's real-checkout code, never the reverse.
"""

DEMO_PRESET = "a6000"  # the 40–60GB tier: autotune has several real trials to show
