"""Safetensors headers read once per file version and handed on, as summaries.

Discovery classifies and inspects every file it meets, the paths form re-validates on every
pause in typing, and the plan and autotune read the same checkpoint again; a real LTX-2 header
holds thousands of tensors (about 1 MB of JSON). What is kept is its HeaderSummary (counts,
metadata, a compact linear table; never the tensor table), per (path, device, inode, size,
mtime): a file replaced or rewritten in place is read again. Failures are not kept (the next look
reads the file again and says what is wrong now).
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Callable, TypeVar

from ltx_wizard.core.inputs.header_summary import HeaderSummary, summarize

T = TypeVar("T")
# A discovered models folder, then the checks of the chosen files: a real checkpoint's summary is
# ~70 KB (mostly its linear table), so a few hundred cost less than one tensor table used to.
MAX_ENTRIES = 512

_lock = threading.Lock()  # the TUI checks paths from worker threads
_Key = tuple[str, str, int, int, int, int]  # kind, path, device, inode, size, mtime_ns
_cache: OrderedDict[_Key, object] = OrderedDict()
reads = 0  # headers actually read from disk (tests and benchmarks look)


def _key(kind: str, path: Path, st: os.stat_result) -> _Key:
    return (kind, str(path), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def cached(kind: str, path: Path, st: os.stat_result, build: Callable[[], T]) -> T:
    """`build()`'s result for this version of `path`, built at most once while it is kept."""
    key = _key(kind, path, st)
    with _lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]  # type: ignore[return-value]  # stored by build() for this kind
    value = build()  # outside the lock: a slow disk must not hold up other files
    with _lock:
        _cache[key] = value
        while len(_cache) > MAX_ENTRIES:
            _cache.popitem(last=False)
    return value


def summary_for(path: Path, st: os.stat_result) -> HeaderSummary:
    """The header summary of the regular file `path` whose stat is `st` (read once per version)."""

    def read() -> HeaderSummary:
        global reads
        reads += 1
        return summarize(path, st.st_size)

    return cached("header", path, st, read)


def clear() -> None:
    with _lock:
        _cache.clear()
