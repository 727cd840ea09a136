"""plan.md rendered again from the run's records, after a later phase wrote its own: autotune
(autotune.json) or the preprocessing (preprocess.json). Nothing here reads plan.md."""

from __future__ import annotations

from pathlib import Path

from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.io.workspace import RunFolder, atomic_write_text
from ltx_wizard.core.plan.plan_md import render_plan
from ltx_wizard.core.plan.record import read_record


def render_run(run_dir: Path) -> str | None:
    """plan.md as the records now say; None for a run folder planned before plan.json existed."""
    from ltx_wizard.core.preprocess.preprocess_state import read_state
    from ltx_wizard.core.tuning.tune_record import read_tune_record

    rec = read_record(run_dir)
    if rec is None:
        return None
    return render_plan(rec, read_tune_record(run_dir), read_state(run_dir))


def refresh_plan_md(run_dir: Path) -> str | None:
    """Write plan.md from the records; returns why it could not be, in one line, or None."""
    folder = RunFolder(Path(run_dir))
    try:
        page = render_run(folder.root)
        if page is None:
            return (
                f"plan.md not rendered again: {folder.root} has no plan.json (planned by an "
                "older ltx-wizard); plan the run again to get one"
            )
        atomic_write_text(folder.plan, page, root=folder.root)
    except (WizardError, OSError, ValueError) as exc:
        return f"plan.md not rendered again: {getattr(exc, 'message', None) or exc}"
    return None
