"""The demo's media, encoded once: its look-alike clips, stills and renders are pure functions of
their arguments, and encoding them (x264, AAC, PNG, the frames computed in Python) is most of what
`--demo` costs before its first screen can go on. Each file is kept in a cache folder under a
name that hashes its arguments and the code that draws it (so a change to either makes a new
entry), and later demos copy it into place.

The folder is `$LTX_WIZARD_DEMO_CACHE`, else `demo-media-v1` in the wizard's cache folder
(core/dataset/clip_cache.py `cache_folder`). An entry is read like any foreign file: a regular
file only (no link followed), of a bounded size; anything else is drawn again. Entries are written
through a temp file and a rename, so that two demos at once (two terminals, test workers) never
see half a file; any failure of the cache only means the file is drawn again.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Callable
from pathlib import Path

from ltx_wizard.core.dataset.clip_cache import cache_folder

CACHE_ENV = "LTX_WIZARD_DEMO_CACHE"
MAX_ENTRY_BYTES = 8 << 20  # the demo's largest file is a few hundred KB
_CHUNK = 1 << 16


def _folder() -> Path | None:
    given = os.environ.get(CACHE_ENV)
    if given:
        return Path(given)
    base = cache_folder()
    return base / "demo-media-v1" if base is not None else None


def _code_digest() -> bytes:
    """The drawing code's own bytes: an entry drawn by other code is never reused."""
    digest = hashlib.sha256()
    here = Path(__file__).parent
    for name in ("tiny_video.py", "lookalike_media.py"):
        digest.update((here / name).read_bytes())
    return digest.digest()


_CODE: bytes | None = None


def _key(parts: tuple[object, ...], suffix: str) -> str:
    global _CODE
    if _CODE is None:
        _CODE = _code_digest()
    return hashlib.sha256(_CODE + repr(parts).encode()).hexdigest()[:40] + suffix


def _copy(source: int, target: Path) -> None:
    """`source` (an open file) to `target`, whole or not at all."""
    tmp = target.with_name(f".{target.name}.{os.getpid()}.copy")
    try:
        with open(tmp, "wb") as out:
            while chunk := os.read(source, _CHUNK):
                out.write(chunk)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def _open_entry(entry: Path) -> int | None:
    try:
        fd = os.open(entry, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    info = os.fstat(fd)
    if stat.S_ISREG(info.st_mode) and 0 < info.st_size <= MAX_ENTRY_BYTES:
        return fd
    os.close(fd)
    return None


def cached(path: Path, parts: tuple[object, ...], draw: Callable[[Path], Path]) -> Path:
    """`path` as `draw(path)` would write it (it returns the path written, whose suffix may
    differ from `path`'s): copied from the cache when drawn before with the same `parts`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    folder = _folder()
    if folder is None:
        return draw(path)
    entry = folder / _key(parts, path.suffix)
    fd = _open_entry(entry)
    if fd is not None:
        try:
            _copy(fd, path)
            return path
        except OSError:
            pass  # drawn again below
        finally:
            os.close(fd)
    written = draw(path)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        source = os.open(written, os.O_RDONLY | os.O_NOFOLLOW)
        try:
            _copy(source, entry)
        finally:
            os.close(source)
    except OSError:
        pass  # a cache that cannot be written: the next demo draws it again
    return written
