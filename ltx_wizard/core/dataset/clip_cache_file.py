"""The clip-check cache's file, read and written as a foreign file: never through a link, regular
files only, lines bounded, the read bounded to the newest MAX_READ_BYTES, and every write made
under one flock() beside it so that two wizards at once neither lose nor tear a line.

A write appends whole lines with one O_APPEND write under the lock; a prune rewrites the file
(temp file, then rename) under the same lock after reading it again, so a line another process
appended since this one loaded is kept. A link planted at the cache path, the lock path or the
temp path is refused (O_NOFOLLOW, O_EXCL): the wizard never writes through it.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path
from typing import Iterator

LINE_MAX_BYTES = 64 * 1024  # a real line is ~450 bytes; a longer one is skipped unread
_CHUNK = 1 << 20
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def _open_regular(path: Path, flags: int, mode: int = 0o600) -> int | None:
    """A descriptor of `path` if it is a regular file (not a link, FIFO or device), else None."""
    try:
        fd = os.open(path, flags | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0), mode)
    except OSError:  # absent, a link (ELOOP), a socket, no permission: no cache
        return None
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            return fd
    except OSError:
        pass
    os.close(fd)
    return None


def read_lines(path: Path, max_bytes: int) -> tuple[list[bytes], int]:
    """(the file's whole lines among its last `max_bytes`, oldest first; its size). A line over
    LINE_MAX_BYTES is skipped; the first line of a tail read is dropped (it may be cut)."""
    fd = _open_regular(path, os.O_RDONLY)
    if fd is None:
        return [], 0
    try:
        size = os.fstat(fd).st_size
        start = max(0, size - max_bytes)
        os.lseek(fd, start, os.SEEK_SET)
        lines = _split(fd, size - start, cut=start > 0)
    except OSError:
        return [], 0
    finally:
        os.close(fd)
    return lines, size


def _split(fd: int, budget: int, *, cut: bool) -> list[bytes]:
    """Whole lines from `fd`, at most `budget` bytes read (a file that grows meanwhile is not
    followed); bytes past LINE_MAX_BYTES without a newline are dropped up to the next one."""
    lines: list[bytes] = []
    rest, skipping = b"", cut
    while budget > 0:
        chunk = os.read(fd, min(_CHUNK, budget))
        if not chunk:
            break
        budget -= len(chunk)
        parts = (rest + chunk).split(b"\n")
        rest = parts.pop()
        for part in parts:
            if not skipping and len(part) <= LINE_MAX_BYTES:
                lines.append(part)
            skipping = False
        if len(rest) > LINE_MAX_BYTES:
            rest, skipping = b"", True
    return lines  # `rest`: a torn last line, skipped


@contextlib.contextmanager
def locked(folder: Path, name: str) -> Iterator[bool]:
    """Holds the cache's flock (`name`.lock in `folder`) while the block runs; yields False when
    the lock cannot be had (a read-only folder, a planted link): the caller then writes nothing."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield False
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        yield False
        return
    fd = _open_regular(folder / f"{name}.lock", os.O_RDWR | os.O_CREAT)
    if fd is None:
        yield False
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield True
    except OSError:
        yield False
    finally:
        os.close(fd)  # releases the flock


def append(path: Path, text: str) -> int:
    """Appends `text` (whole lines) in one write; the file's size after, or -1 when it could not
    be written (a link or a FIFO there, a full disk). Call under `locked`."""
    fd = _open_regular(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    if fd is None:
        return -1
    try:
        data = memoryview(text.encode("utf-8"))
        while data:
            data = data[os.write(fd, data) :]
        return os.fstat(fd).st_size
    except OSError:
        return -1
    finally:
        os.close(fd)


def replace_with(path: Path, lines: list[bytes]) -> bool:
    """Rewrites `path` with `lines` (temp file made new, then rename). Call under `locked`."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
    try:
        fd = os.open(tmp, flags | _NOFOLLOW, 0o600)
    except FileExistsError:  # a leftover of a killed run of this pid, or a planted link
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        return False
    except OSError:
        return False
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(b"".join(lines))
        os.replace(tmp, path)
        return True
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        return False
