"""Where a preprocessing step may write, checked before it starts, and what its failure says.

The full step writes into the data root the plan chose (`.precomputed` beside the dataset file,
or --precomputed-dir); the one-sample step into `<run>/overfit/.precomputed`. Neither folder,
nor an output folder the script writes inside it, may be a symlink: a link planted there (after
the plan, or by someone else) would send every latent somewhere the plan never named, so it is
refused as launch.sh refuses a linked `logs/`. A step that failed for lack of disk says so, from
the end of its own log.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
from pathlib import Path

from ltx_wizard.core.base.errors import UsageError, WizardError
from ltx_wizard.core.dataset.rows import FOLDER_ROLE
from ltx_wizard.core.io.bounded import read_tail
from ltx_wizard.core.proc.table import pid_alive
from ltx_wizard.core.io.safe_fs import check_inside

# process_dataset.py writes these under its output folder (its module docstring's table)
OUTPUT_FOLDERS = tuple(FOLDER_ROLE)
_NO_SPACE = (b"No space left on device", b"Disk quota exceeded", b"[Errno 28]")
# process_videos.py / process_captions.py _atomic_save: `<name>.pt.tmp.<pid>`, then a rename; a
# script that dies mid-write leaves the temp file (its skip logic ignores it)
_ORPHAN = re.compile(r"\.pt\.tmp\.([0-9]{1,7})$")
ORPHAN_WALK_MAX = 500_000  # entries looked at when cleaning up: far above a real data root


def _link_or_not_folder(path: Path) -> str | None:
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"cannot be checked ({exc.strerror})"
    if stat.S_ISLNK(st.st_mode):
        return f"is a symlink (to {os.readlink(path)})"
    return None if stat.S_ISDIR(st.st_mode) else "is not a folder"


def require_output_root(run_dir: Path, output: Path, *, one_sample: bool) -> None:
    """Refuse a step whose output folder (or one the script writes in it) is a link or a file."""
    if one_sample:  # inside the run folder: every component real, made if missing
        check_inside(run_dir, output / ".keep")
    for path in (output, *(output / name for name in OUTPUT_FOLDERS)):
        problem = _link_or_not_folder(path)
        if problem:
            fix = (
                "remove it (the run's own scratch is made again)"
                if one_sample
                else "remove it, or plan again with --precomputed-dir naming the real folder"
            )
            raise UsageError(
                f"{path} {problem}: preprocessing writes only into the folder the plan chose; {fix}"
            )


def failure(title: str, code: int, log: Path, output: Path) -> WizardError:
    """The step's failure in one line: a full disk named (from its log's end), else the code."""
    try:
        tail = read_tail(log, what="preprocess log")
    except WizardError:
        tail = b""
    if any(word in tail for word in _NO_SPACE):
        return WizardError(
            f"the {title} failed: the disk is full (its output in {log} says No "
            f"space left on device): free space for {output} and run it again "
            "(what was written is kept and skipped)"
        )
    return WizardError(f"the {title} failed (exit {code}); its output is in {log}")


def remove_orphans(output: Path) -> int:
    """After a step that failed or was stopped: the half-written `.pt.tmp.<pid>` files its
    script left (their writer is gone), so nothing half-written stays on a disk that is likely
    full. Only the output folders the script writes are walked, and a bounded number of entries."""
    removed = seen = 0
    for folder in (output / name for name in OUTPUT_FOLDERS):
        if _link_or_not_folder(folder) is not None or not folder.is_dir():
            continue
        for dirpath, dirs, files in os.walk(folder, followlinks=False):
            seen += len(files) + len(dirs)
            if seen > ORPHAN_WALK_MAX:
                return removed
            for name in files:
                match = _ORPHAN.search(name)
                if match and not pid_alive(int(match.group(1))):
                    with contextlib.suppress(OSError):
                        os.unlink(os.path.join(dirpath, name))
                        removed += 1
    return removed
