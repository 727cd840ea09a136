"""The Monitor's offer to compare the kept checkpoints (issue 44, Deliver 6): once training is over
and two checkpoints are kept (core/compare/compare_process.py decides), c asks, then starts
`ltx-wizard compare RUN --yes` in the background through core/proc, as the Results screen starts
the evaluation; its record, compare.json, then shows in the Monitor's files and on the Results screen.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.compare.compare_process import compare_pid, offered, start_compare, why_not
from ltx_wizard.core.io.run_folder import COMPARE_LOG
from ltx_wizard.tui.widgets.formatting import safe_markup

if TYPE_CHECKING:  # for types only: the Monitor screen imports this module
    from ltx_wizard.tui.screens.monitor import MonitorScreen


def compare_offered(screen: MonitorScreen) -> bool:
    status = screen.status
    return status is not None and offered(status.state, len(status.checkpoints))


def running_line(screen: MonitorScreen) -> str | None:
    """'Compare: running (pid N), log ...' while the comparison this run folder recorded runs."""
    pid = compare_pid(screen.run_dir)
    return None if pid is None else f"Compare: running (pid {pid}), log {COMPARE_LOG.path(screen.run_dir)}"


def ask_compare(screen: MonitorScreen) -> None:
    from ltx_wizard.tui.dialogs.confirm import ConfirmDialog

    status = screen.status
    if status is None:
        return
    if not compare_offered(screen):
        screen.notify(safe_markup(why_not(status.state, len(status.checkpoints))), severity="warning")
        return
    count = len(status.checkpoints)
    question = (
        f"Compare the {count} kept checkpoints? `ltx-wizard compare {screen.run_dir} --yes` runs in the "
        "background (in the trainer's environment: the LoRA health check and the held-out loss of each, "
        "and the tournament's renders of the base model and each at the same seed and prompts); "
        f"its log is {COMPARE_LOG.path(screen.run_dir)}, its result outputs/compare/compare.json."
    )

    def answered(yes: bool | None) -> None:
        if not yes:
            return
        argv = [sys.executable, "-m", "ltx_wizard", "compare", str(screen.run_dir), "--yes"]
        try:
            pid, _log = start_compare(screen.run_dir, argv)
        except WizardError as exc:
            screen.notify(safe_markup(exc.message), severity="error", timeout=10)
            return
        screen.notify(f"Compare runs in the background: pid {pid}")
        screen.refresh_status()

    screen.app.push_screen(
        ConfirmDialog(safe_markup(question), yes="Compare", no="Not now", title="Compare checkpoints"),
        answered,
    )
