"""Clip facts kept per (resolved path, size, mtime_ns): a clip is read again only once it changed.

In memory for the process (the Paths screen re-checks on every edit of any field) and on disk, one
JSON line per clip appended to `clip-facts-v1.jsonl` in the wizard's cache folder
($LTX_WIZARD_CACHE_DIR, else $XDG_CACHE_HOME/ltx-wizard, else ~/.cache/ltx-wizard), so `check`,
`plan` and the screens share what any of them read. The file is only a cache: a line that does
not parse is skipped, a folder that cannot be written is not used, and past MAX_FILE_BYTES it is
rewritten with each clip's latest facts (temp file, then rename). Each line is declared once in the
run folder's codec (core/io/run_codec.py): a line of another shape or version is skipped, as a
torn one is; the file is opened as a regular file only (a planted FIFO must not hang a check).
"""

from __future__ import annotations

import os
import threading
from dataclasses import replace
from pathlib import Path
from typing import Iterable, Mapping

import msgspec

from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.dataset.clip_facts import ClipFacts
from ltx_wizard.core.io import run_folder
from ltx_wizard.core.io.bounded import open_regular
from ltx_wizard.core.io.run_codec import declare

CACHE_ENV = "LTX_WIZARD_CACHE_DIR"
FILE_NAME = run_folder.CLIP_CACHE.rel
MAX_FILE_BYTES = 64 * 2**20  # ~200k clips; past it the file is compacted on the next load
Key = tuple[int, int]  # (size, mtime_ns) of the resolved path


class CacheLine(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One line: a clip's resolved path, its (size, mtime_ns), and what was read from it."""

    path: str
    key: Key
    facts: ClipFacts
    version: int = 1


LINE = declare(run_folder.CLIP_CACHE, CacheLine)


def _line(path: str, key: Key, item: ClipFacts) -> str:
    return LINE.encode(CacheLine(path, key, item), indent=False) + "\n"


def cache_folder(env: Mapping[str, str] | None = None) -> Path | None:
    env = os.environ if env is None else env
    if env.get(CACHE_ENV):
        return Path(env[CACHE_ENV])
    base = env.get("XDG_CACHE_HOME") or (str(Path(env["HOME"]) / ".cache") if env.get("HOME") else None)
    return Path(base) / "ltx-wizard" if base else None


def _stat_key(path: Path) -> tuple[str, Key] | None:
    try:
        resolved = os.path.realpath(path)
        st = os.stat(resolved)
    except (OSError, ValueError):
        return None
    return resolved, (st.st_size, st.st_mtime_ns)


class FactsCache:
    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self._lock = threading.Lock()
        self._facts: dict[str, tuple[Key, ClipFacts]] = {}
        self._loaded = folder is None

    @property
    def file(self) -> Path | None:
        return None if self.folder is None else self.folder / FILE_NAME

    def lookup(self, paths: Iterable[Path]) -> tuple[dict[Path, ClipFacts], list[Path]]:
        """(facts of the paths known unchanged, the paths to read)."""
        self._load()
        found: dict[Path, ClipFacts] = {}
        todo: list[Path] = []
        with self._lock:
            for path in paths:
                stat = _stat_key(path)
                known = self._facts.get(stat[0]) if stat else None
                if stat is not None and known is not None and known[0] == stat[1]:
                    found[path] = replace(known[1], path=path)
                else:
                    todo.append(path)
        return found, todo

    def store(self, facts: Iterable[ClipFacts]) -> None:
        lines = []
        with self._lock:
            for item in facts:
                stat = _stat_key(item.path)
                if stat is None or item.via == "none":  # gone, or nothing read: nothing to keep
                    continue
                self._facts[stat[0]] = (stat[1], item)
                lines.append(_line(stat[0], stat[1], item))
        folder = self.folder
        if lines and folder is not None:
            try:
                folder.mkdir(parents=True, exist_ok=True)
                with open(folder / FILE_NAME, "a", encoding="utf-8") as out:
                    out.write("".join(lines))
            except OSError:
                pass  # a read-only or full cache folder: the facts stay in memory only

    def _load(self) -> None:
        with self._lock:
            if self._loaded:
                return
            self._loaded = True
            file = self.file
            if file is None:  # not reached: a cache without a folder starts loaded
                return
            try:
                handle = open_regular(file, what=run_folder.CLIP_CACHE.what)
                if handle is None:
                    return
                with handle:
                    size = os.fstat(handle.fileno()).st_size
                    for line in handle:
                        self._read_line(file, line)
            except (OSError, WizardError):
                return
            if size > MAX_FILE_BYTES:
                self._compact(file)

    def _read_line(self, file: Path, line: bytes) -> None:
        try:
            entry = LINE.decode(line, file)
        except WizardError:
            return  # a torn or foreign line: that clip is read again
        self._facts[entry.path] = (entry.key, entry.facts)

    def _compact(self, file: Path) -> None:
        tmp = file.with_name(f"{FILE_NAME}.{os.getpid()}.tmp")
        try:
            with open(tmp, "w", encoding="utf-8") as out:
                for path, (key, item) in self._facts.items():
                    out.write(_line(path, key, item))
            os.replace(tmp, file)
        except OSError:
            try:
                os.unlink(tmp)
            except OSError:
                pass


_SHARED: dict[Path | None, FactsCache] = {}
_SHARED_LOCK = threading.Lock()


def shared_cache(env: Mapping[str, str] | None = None) -> FactsCache:
    """The process's cache for the current cache folder."""
    folder = cache_folder(env)
    with _SHARED_LOCK:
        if folder not in _SHARED:
            _SHARED[folder] = FactsCache(folder)
        return _SHARED[folder]
