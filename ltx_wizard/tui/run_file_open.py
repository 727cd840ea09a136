"""Opening one of the run folder's own files (plan.md, config.yaml, run-summary.md): in $VISUAL or
$EDITOR with the App suspended, else in a read-only view. The command palette's "Open ..." commands
and key o (tui/dialogs/run_files.py) both come here; apart from the palette and the screens so that
neither imports the other."""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import TYPE_CHECKING

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.base.text_safety import clean_text
from ltx_wizard.core.io import run_folder as rf

if TYPE_CHECKING:
    from textual.app import App

# The run files the palette and key o open, in their order.
RUN_FILES = (rf.PLAN_MD, rf.CONFIG, rf.RUN_SUMMARY)


def ask_run_file(app: App, run_dir: Path | None) -> None:
    """Key o: which of the run folder's files to open, then open it as the palette does."""
    from ltx_wizard.tui.dialogs.run_files import RunFilesDialog

    found = [f.path(run_dir) for f in RUN_FILES if run_dir is not None and f.path(run_dir).is_file()]
    if not found:
        app.notify("The run folder has no plan.md, config.yaml or run-summary.md yet", severity="warning")
        return
    app.push_screen(RunFilesDialog(found), lambda path: None if path is None else open_run_file(app, path))


def editor_command(path: Path, env: dict[str, str] | None = None) -> list[str] | None:
    """$VISUAL, else $EDITOR (both may carry options: `code --wait`), with the file; None: unset."""
    env = dict(os.environ) if env is None else env
    editor = (env.get("VISUAL") or env.get("EDITOR") or "").strip()
    return [*shlex.split(editor), str(path)] if editor else None


def open_run_file(app: App, path: Path) -> None:
    """In $EDITOR with the App suspended (the editor has the terminal; the wizard comes back
    after), else read-only in the view."""
    command = editor_command(path)
    note = ""
    if command is not None:
        import subprocess

        from textual.app import SuspendNotSupported

        try:
            with app.suspend():
                # A plain foreground child: an editor is interactive and core/proc starts children
                # in sessions of their own, without the terminal (as the Results screen's player).
                subprocess.run(command, check=False)
            app.refresh()
            return
        except (SuspendNotSupported, OSError) as exc:
            note = f"$EDITOR could not start here ({type(exc).__name__}); shown read-only instead"
    _view(app, path, note)


def _view(app: App, path: Path, note: str) -> None:
    from ltx_wizard.core.io.bounded import read_text
    from ltx_wizard.tui.dialogs.file_view import FileViewDialog

    try:
        text = read_text(path, what=path.name)
    except UsageError as exc:  # gone since the palette listed it, too big, not UTF-8
        app.notify(clean_text(exc.message), severity="error")
        return
    app.push_screen(FileViewDialog(path, text, note))
