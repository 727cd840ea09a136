"""The TUI's first steps for the signal tests: `ltx-wizard --demo` in a pty at 80x24 (children.py's
Wizard), walked by keys from the Probe screen through the intent question, each key followed by a
wait for the screen it leads to."""

from __future__ import annotations

from pathlib import Path

from .children import Wizard, wait_for, wizard_env

CTRL_N = "\x0e"


def tui(tmp_path: Path, demo_data: str, **env: str) -> Wizard:
    """`ltx-wizard --demo --demo-data DATA` in a pty at 80x24, its demo folder (tempfile) inside
    the test's own, so that nothing is left in /tmp."""
    argv = ["--demo", "--demo-data", demo_data]
    return Wizard(argv, env=wizard_env(TMPDIR=str(tmp_path), **env), cwd=tmp_path, tty=True)


def walk_to_the_recipe(wizard: Wizard, tmp_path: Path) -> None:
    """Probe, then the intent question answered with its first choice, up to its follow-up
    question (the caller's Continue confirms it): what a new user presses before the data screens."""
    wizard.wait_shown("^n Continue ^r Re-probe")  # the Probe screen, its probe done
    # Continue waits for the demo's files (a worker writes them, the clips last); the screen does
    # not say when it is enabled, so a press it ignored is pressed again after a while
    wait_for(lambda: list(tmp_path.glob("ltx-wizard-demo-*/clips/demo-cats/*.json")), 60, "the demo's files")
    wizard.key_until(CTRL_N, "What do you want the model to learn")
    wizard.key_to("\r", "Will you generate from text alone")
