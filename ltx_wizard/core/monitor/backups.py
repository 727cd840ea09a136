"""Copies and folders that never replace anything: a backup of config.yaml before the Monitor
patches it, a folder the earlier run's samples are moved into.

Each name is taken only if nothing of that name exists in any form (a file, a folder, a link, a
dangling link): `config.before-resume.yaml`, then `config.before-resume.2.yaml`, ... The copy is
written to a temp file and linked to its name (link() fails on an existing name, so two writers
cannot both take one name); the newest is the highest number, named in the message.
"""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from pathlib import Path

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.io.safe_fs import check_inside, os_failure

MAX_NUMBER = 1000


def numbered(folder: Path, stem: str, suffix: str) -> list[Path]:
    """`stem+suffix`, then `stem.2+suffix`, ... up to MAX_NUMBER."""
    return [folder / f"{stem}{'' if n == 1 else f'.{n}'}{suffix}" for n in range(1, MAX_NUMBER + 1)]


def keep_copy(root: Path, stem: str, text: str, suffix: str = ".yaml") -> Path:
    """Write `text` under the first free numbered name in `root`; returns it. Never replaces."""
    root = Path(root)
    check_inside(root, root / f".{stem}.new")  # the folder is the run folder, no link in it
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{stem}.", suffix=".tmp", dir=root)
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
        for path in numbered(root, stem, suffix):
            try:
                os.link(tmp, path)
            except FileExistsError:
                continue
            return path
    except OSError as exc:
        raise os_failure(root / f"{stem}{suffix}", exc) from None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    raise UsageError(
        f"{MAX_NUMBER} copies named {stem}*{suffix} in {root} already: remove old ones, then try again"
    )


def new_folder(parent: Path, stem: str) -> Path:
    """Make and return the first free numbered folder `stem`, `stem-2`, ... in `parent`."""
    for n in range(1, MAX_NUMBER + 1):
        path = Path(parent) / (stem if n == 1 else f"{stem}-{n}")
        try:
            os.mkdir(path, 0o755)
        except FileExistsError:
            continue
        except OSError as exc:
            if exc.errno == errno.EEXIST:
                continue
            raise os_failure(path, exc) from None
        return path
    raise UsageError(f"{MAX_NUMBER} folders named {stem}* in {parent} already: remove old ones")
