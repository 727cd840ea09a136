"""Clip facts kept per (resolved path, size, mtime_ns): a clip is read again only once it changed.

In memory for the process (the Paths screen re-checks on every edit of any field) and on disk, one
JSON line per clip appended to `clip-facts-v1.jsonl` in the wizard's cache folder
($LTX_WIZARD_CACHE_DIR, else $XDG_CACHE_HOME/ltx-wizard, else ~/.cache/ltx-wizard), so `check`,
`plan` and the screens share what any of them read. The file is only a cache: a line that does
not parse is skipped, a folder that cannot be written is not used, and past MAX_FILE_BYTES it is
rewritten with each clip's latest facts (temp file, then rename).
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import replace
from pathlib import Path
from typing import Iterable, Mapping

from ltx_wizard.core.dataset.clip_facts import ClipFacts

CACHE_ENV = "LTX_WIZARD_CACHE_DIR"
FILE_NAME = "clip-facts-v1.jsonl"
MAX_FILE_BYTES = 64 * 2**20  # ~200k clips; past it the file is compacted on the next load
Key = tuple[int, int]  # (size, mtime_ns) of the resolved path


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
                lines.append(
                    json.dumps({"path": stat[0], "key": list(stat[1]), "facts": item.as_json()}) + "\n"
                )
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
                size = os.stat(file).st_size
                with open(file, encoding="utf-8", errors="replace") as handle:
                    for line in handle:
                        self._read_line(line)
            except OSError:
                return
            if size > MAX_FILE_BYTES:
                self._compact(file)

    def _read_line(self, line: str) -> None:
        try:
            entry = json.loads(line)
            key = (int(entry["key"][0]), int(entry["key"][1]))
            self._facts[str(entry["path"])] = (key, ClipFacts.from_json(entry["facts"]))
        except (ValueError, KeyError, TypeError, IndexError):
            pass  # a torn or foreign line: that clip is read again

    def _compact(self, file: Path) -> None:
        tmp = file.with_name(f"{FILE_NAME}.{os.getpid()}.tmp")
        try:
            with open(tmp, "w", encoding="utf-8") as out:
                for path, (key, item) in self._facts.items():
                    out.write(json.dumps({"path": path, "key": list(key), "facts": item.as_json()}) + "\n")
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
