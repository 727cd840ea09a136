"""Safetensors headers read once per file version and handed on.

The paths form re-validates on every pause in typing, and the plan and autotune read the same
checkpoint again; a real LTX-2 header holds thousands of tensors (about 1 MB of JSON). A header is
kept per (path, device, inode, size, mtime): a file replaced or rewritten in place is read again.
Failures are not kept (the next look reads the file again and says what is wrong now).
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Callable, TypeVar

from ltx_wizard.core.safetensors_header import SafetensorsHeader, read_header

T = TypeVar("T")
MAX_ENTRIES = 32  # checkpoint, VAEs and a few candidates: a handful of files at a time

_lock = threading.Lock()  # the TUI checks paths from worker threads
_cache: OrderedDict[tuple, object] = OrderedDict()
reads = 0  # headers actually read from disk (tests and benchmarks look)


def _key(kind: str, path: Path, st: os.stat_result) -> tuple:
    return (kind, str(path), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def cached(kind: str, path: Path, st: os.stat_result, build: Callable[[], T]) -> T:
    """`build()`'s result for this version of `path`, built at most once while it is kept."""
    key = _key(kind, path, st)
    with _lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]  # type: ignore[return-value]
    value = build()  # outside the lock: a slow disk must not hold up other files
    with _lock:
        _cache[key] = value
        while len(_cache) > MAX_ENTRIES:
            _cache.popitem(last=False)
    return value


def header_for(path: Path, st: os.stat_result) -> SafetensorsHeader:
    """The header of the regular file `path` whose stat is `st` (read once per version)."""

    def read() -> SafetensorsHeader:
        global reads
        reads += 1
        return read_header(path, st.st_size)

    return cached("header", path, st, read)


def clear() -> None:
    with _lock:
        _cache.clear()
