"""`write_plan`: a prepared plan (run_plan.PlanDraft) into its run folder, all or nothing.

Locked (one wizard per folder), refusing to overwrite without --force, every write checked to stay
inside the run folder (no planted symlink followed) and atomic. When a write fails (a full disk),
the files this call created are removed again, so a retry is not blocked by a half-written
config.yaml; a run folder it created is removed too.
"""

from __future__ import annotations

import contextlib
import os
from typing import TYPE_CHECKING, Callable

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.launch.script import script_path, write_script
from ltx_wizard.core.io import run_folder
from ltx_wizard.core.io.safe_fs import remove_quietly
from ltx_wizard.core.io.workspace import SUBFOLDERS, RunFolder, atomic_write_text, run_lock
from ltx_wizard.core.plan.record import record_path, record_text

if TYPE_CHECKING:  # pragma: no cover
    from ltx_wizard.core.plan.draft import PlanDraft


def write_plan(
    draft: PlanDraft, force: bool = False, on_note: Callable[[str], None] | None = None
) -> RunFolder:
    """Write config.yaml, accelerate.yaml (if any), run.json, plan.json and plan.md (last) into the
    locked run folder.

    Every write is checked to stay inside the run folder (no planted symlink followed). When a
    write fails (a full disk), the files this call created are removed again, so a retry is not
    blocked by a half-written config.yaml.
    """
    folder = draft.folder
    _refuse_overwrite(folder, force)
    made_folder = not os.path.lexists(folder.root)
    failed = True
    try:
        _write_locked(folder, draft, force, on_note, made_folder)
        failed = False
    finally:
        if failed and made_folder:  # leave no empty run folder behind
            with contextlib.suppress(OSError):
                os.rmdir(folder.root)
    return folder


def _write_locked(
    folder: RunFolder, draft: PlanDraft, force: bool, on_note: Callable[[str], None] | None, made_folder: bool
) -> None:
    with run_lock(folder.root) as lock:
        if lock.note and on_note:
            on_note(lock.note)
        _refuse_overwrite(folder, force)  # again, now that no one else can write
        files = [(folder.config, draft.config_text)]
        if draft.accelerate_text is not None:
            files.append((folder.accelerate_config, draft.accelerate_text))
        files.append((run_folder.RUN_META.path(folder.root), draft.run_meta()))
        files.append((record_path(folder.root), record_text(draft.record)))
        if draft.preprocess_text is not None:  # planned from a dataset file
            files.append((run_folder.PREPROCESS_STATE.path(folder.root), draft.preprocess_text))
        if draft.multinode is not None and draft.slurm_text is not None:
            files.append((draft.multinode.sbatch_path, draft.slurm_text))
        created = [path for path, _ in files if not os.path.lexists(path)]
        created += [p for p in (script_path(folder.root), folder.plan) if not os.path.lexists(p)]
        try:
            folder.create()
            for path, text in files:
                atomic_write_text(path, text, root=folder.root)
            write_script(folder.root, draft.start, draft.shell_line())
            atomic_write_text(folder.plan, draft.plan_text, root=folder.root)  # last: "planned"
        except BaseException:
            remove_quietly(created)
            if made_folder:
                for name in SUBFOLDERS:
                    with contextlib.suppress(OSError):
                        os.rmdir(folder.root / name)
            raise


def _refuse_overwrite(folder: RunFolder, force: bool) -> None:
    if force:
        return
    for path in (folder.plan, folder.config):
        if path.exists():
            raise UsageError(
                f"{path} already exists: pass --force to overwrite it, or pick another --run-name"
            )
