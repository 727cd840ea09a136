"""Writes that stay inside the run folder: no symlink followed, nothing half-written.

The wizard creates no symlinks of its own on the write path (the trial subset's links are only
ever removed by core/autotune/sweep/trial_subset.py, never written through), so any link met between the run folder and a
file it writes was planted by someone else: writing through it could land anywhere (as root,
in /etc). Every write therefore checks each component below the run folder with lstat(), opens
the final component with O_NOFOLLOW, checks realpath() stays under the run folder, and goes
through a temp file renamed over the target (rename replaces a link, never follows it).
A full disk or a failed write removes the temp file and raises a one-line WizardError.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import BinaryIO, Literal, TextIO, overload

from ltx_wizard.core.base.errors import UsageError, WizardError


def os_failure(path: Path, exc: OSError) -> WizardError:
    """The one-line error for a failed write: a full disk is a runtime failure (exit 1)."""
    if exc.errno == errno.ENOSPC or exc.errno == errno.EDQUOT:
        return WizardError(
            f"the disk is full writing {path}: free some space and retry (nothing half-written was kept)"
        )
    if exc.errno == errno.ENAMETOOLONG:
        return UsageError(
            f"path too long to write: {str(path)[:80]}...: pick a shorter --workspace or --run-name"
        )
    if exc.errno == errno.ENOTDIR:
        return UsageError(
            f"cannot write {path}: a folder on its path is a file: pick another --workspace or run name"
        )
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return UsageError(f"cannot write {path} ({exc.strerror}): pick a --workspace you can write to")
    return WizardError(f"cannot write {path} ({exc.strerror or exc}): check the disk and retry")


def _refuse_link(path: Path) -> UsageError:
    return UsageError(
        f"{path} is a symlink the wizard did not create: refusing to write "
        "through it; remove the link, or use its real path or another run name"
    )


def create_run_dir(root: Path) -> bool:
    """mkdir the run folder itself with O_EXCL semantics; True when this call created it.

    An existing real folder of ours is reused (plan --force, a TUI retry); a planted symlink,
    a file, or someone else's folder is refused. The workspace above it may be a link (the user
    chose that path); the run folder below it may not.
    """
    root = Path(root)
    made: list[Path] = []  # workspace folders made on the way: removed again if we fail
    try:
        missing = [p for p in reversed(root.parents) if not os.path.lexists(p)]
        for parent in missing:
            os.mkdir(parent, 0o755)
            made.append(parent)
        os.mkdir(root, 0o755)
        return True
    except FileExistsError:
        pass
    except OSError as exc:
        for parent in reversed(made):
            with contextlib.suppress(OSError):
                os.rmdir(parent)
        raise os_failure(root, exc) from None
    check_run_dir(root)
    return False


def check_run_dir(root: Path) -> None:
    """An existing run folder must be a real folder of ours (absent is fine)."""
    try:
        st = os.lstat(root)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise os_failure(root, exc) from None
    if stat.S_ISLNK(st.st_mode):
        raise _refuse_link(root)
    if not stat.S_ISDIR(st.st_mode):
        raise UsageError(f"{root} exists and is not a folder: pick another run name or folder")
    if hasattr(os, "geteuid") and st.st_uid != os.geteuid():
        raise UsageError(
            f"run folder {root} belongs to another user (uid {st.st_uid}): pick another run name or folder"
        )


def check_inside(root: Path, path: Path, *, create_dirs: bool = True) -> Path:
    """Every component from `root` down to `path`'s folder is a real folder (made if missing and
    `create_dirs`); the final component is not a link; realpath stays under root's realpath."""
    root, path = Path(root), Path(path)
    try:
        rel = path.relative_to(root)
    except ValueError:
        raise UsageError(f"{path} is outside the run folder {root}: refusing to write it") from None
    if ".." in rel.parts:
        raise UsageError(f"{path} leaves the run folder {root}: refusing to write it")
    st = _lstat(root)
    if st is None or stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
        raise (
            _refuse_link(root)
            if st is not None and stat.S_ISLNK(st.st_mode)
            else UsageError(f"run folder {root} is missing or not a folder: run `ltx-wizard plan` again")
        )
    current = root
    for part in rel.parts[:-1]:
        current = current / part
        st = _lstat(current)
        if st is None and create_dirs:
            try:
                os.mkdir(current, 0o755)
            except FileExistsError:
                pass
            except OSError as exc:
                raise os_failure(current, exc) from None
            st = _lstat(current)
        if st is None:
            raise UsageError(f"{current} is missing: run `ltx-wizard plan` again")
        if stat.S_ISLNK(st.st_mode):
            raise _refuse_link(current)
        if not stat.S_ISDIR(st.st_mode):
            raise UsageError(f"{current} is not a folder: remove it and retry")
    if rel.parts:
        st = _lstat(path)
        if st is not None and stat.S_ISLNK(st.st_mode):
            raise _refuse_link(path)
    real_root = os.path.realpath(root)
    real_parent = os.path.realpath(path.parent)
    if os.path.commonpath([real_root, real_parent]) != real_root:
        raise UsageError(f"{path} resolves outside the run folder {root}: refusing to write it")
    return path


def _lstat(path: Path) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise os_failure(path, exc) from None


def write_text(path: Path, text: str, *, root: Path | None = None) -> Path:
    """Atomic write (temp in the same folder, fsync, rename), checked under `root` when given.

    The text's own line endings are kept (a CRLF config stays CRLF).
    """
    return write_bytes(path, text.encode("utf-8"), root=root)


def write_bytes(path: Path, data: bytes, *, root: Path | None = None) -> Path:
    """write_text's atomic write of bytes (an image): temp in the same folder, fsync, rename."""
    path = Path(path)
    if root is not None:
        check_inside(Path(root), path)
    else:
        st = _lstat(path)
        if st is not None and stat.S_ISLNK(st.st_mode):
            raise _refuse_link(path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise os_failure(path.parent, exc) from None
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name[:100]}.", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
        tmp = None
    except OSError as exc:
        raise os_failure(path, exc) from None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    return path


@overload
def open_append(path: Path, *, root: Path | None = None, binary: Literal[False] = False) -> TextIO: ...
@overload
def open_append(path: Path, *, root: Path | None = None, binary: Literal[True]) -> BinaryIO: ...


def open_append(path: Path, *, root: Path | None = None, binary: bool = False) -> TextIO | BinaryIO:
    """A handle appending to `path` (text, or bytes with `binary`); the final component is
    opened with O_NOFOLLOW."""
    path = Path(path)
    if root is not None:
        check_inside(Path(root), path)
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags, 0o644)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _refuse_link(path) from None
        raise os_failure(path, exc) from None
    return os.fdopen(fd, "ab") if binary else os.fdopen(fd, "a", encoding="utf-8")


def write_all(fd: int, data: bytes, path: Path) -> None:
    """Every byte of `data` to `fd` (os.write may write part of it); a failure (a full disk) is
    the one-line error naming `path`."""
    view = memoryview(data)
    try:
        while view:
            view = view[os.write(fd, view) :]
    except OSError as exc:
        raise os_failure(Path(path), exc) from None


def remove_quietly(paths: Iterable[str | os.PathLike[str]]) -> None:
    """Best-effort removal of files this call wrote (cleanup after a failure)."""
    for path in paths:
        with contextlib.suppress(OSError):
            os.unlink(path)
