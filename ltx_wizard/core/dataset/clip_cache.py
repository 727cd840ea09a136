"""Clip facts kept per (resolved path; inode, size, mtime_ns, ctime_ns): a clip is read again only
once it changed, a clip rewritten in place with its size and mtime put back included (its ctime
moves whatever a writer does to mtime).

In memory for the process (the Paths screen re-checks on every edit of any field) and on disk, one
JSON line per clip appended to `clip-facts-v1.jsonl` in the wizard's cache folder
($LTX_WIZARD_CACHE_DIR, else $XDG_CACHE_HOME/ltx-wizard, else ~/.cache/ltx-wizard), so `check`,
`plan` and the screens share what any of them read. The file is only a cache and is read as a
foreign file (core/dataset/clip_cache_file.py): never through a link, regular files only, lines
bounded, only its newest MAX_FILE_BYTES read; a line that does not parse (torn, nested too deep, of
another shape or version: the run folder's codec, core/io/run_codec.py, declares it) is skipped.
It is pruned, oldest first, to MAX_ENTRIES clips and MAX_FILE_BYTES, so a check costs the same
whatever ran before; every write is made under the file's lock, so two wizards lose nothing.
"""

from __future__ import annotations

import os
import threading
from dataclasses import replace
from pathlib import Path
from typing import Iterable, Mapping

import msgspec

from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.dataset import clip_cache_file
from ltx_wizard.core.dataset.clip_facts import ClipFacts
from ltx_wizard.core.io import run_folder
from ltx_wizard.core.io.run_codec import declare

CACHE_ENV = "LTX_WIZARD_CACHE_DIR"
FILE_NAME = run_folder.CLIP_CACHE.rel
# 5x the clips a check reads in full (checks.READ_ALL_MAX); ~450 bytes a line. Loading the capped
# file takes under half a second (benchmarks/bench_clip_cache.py); a prune keeps PRUNE_TO of each cap so
# that the next few runs append without rewriting it.
MAX_ENTRIES = 50_000
MAX_FILE_BYTES = 32 * 2**20
PRUNE_TO = 0.75
# (inode, size, mtime_ns, ctime_ns) of the resolved path; a line written before ctime was kept holds
# two numbers and never matches: that clip is read once again.
Key = tuple[int, ...]


class CacheLine(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One line: a clip's resolved path, its stat key, and what was read from it."""

    path: str
    key: Key
    facts: ClipFacts
    version: int = 1


LINE = declare(run_folder.CLIP_CACHE, CacheLine)


def _path_hook(kind: type, value: object) -> object:
    if kind is Path and isinstance(value, str):
        return Path(value)
    raise TypeError(f"Expected `{getattr(kind, '__name__', kind)}`")


# The whole line typed in C (ClipFacts is a dataclass, so the codec's own decode walks each line
# in Python for unknown fields: 140 us a line, 5 s at the cap). A line this refuses goes to the
# codec, which refuses it or reads it; an unknown field inside the facts is only ignored here.
_FAST = msgspec.json.Decoder(CacheLine, strict=True, dec_hook=_path_hook)


def _decode(line: bytes, file: Path) -> CacheLine:
    try:
        entry = _FAST.decode(line)
        if entry.version == 1:
            return entry
    except (msgspec.DecodeError, RecursionError):
        pass
    return LINE.decode(line, file)


Entries = dict[str, tuple[Key, ClipFacts]]


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
    return resolved, (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _parse(file: Path, lines: list[bytes]) -> tuple[Entries, dict[str, bytes]]:
    """The entries of the newest MAX_ENTRIES `lines`, oldest first (a clip seen again moves to the
    end), and each one's line as read (a prune writes it back as is); a line that does not decode
    is skipped."""
    entries: Entries = {}
    raw: dict[str, bytes] = {}
    for line in lines[-MAX_ENTRIES:]:
        try:
            entry = _decode(line, file)
        except WizardError:
            continue  # a torn, foreign or too deeply nested line: that clip is read again
        entries.pop(entry.path, None)
        entries[entry.path] = (entry.key, entry.facts)
        raw[entry.path] = line
    return entries, raw


def _newest(entries: Entries, raw: dict[str, bytes]) -> list[bytes]:
    """The lines of the newest entries that fit PRUNE_TO of both caps, oldest first."""
    kept: list[bytes] = []
    room = int(MAX_FILE_BYTES * PRUNE_TO)
    for path in reversed(entries):
        room -= len(raw[path]) + 1
        if room < 0 or len(kept) >= int(MAX_ENTRIES * PRUNE_TO):
            break
        kept.append(raw[path] + b"\n")
    kept.reverse()
    return kept


class FactsCache:
    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self._lock = threading.Lock()
        self._facts: Entries = {}
        self._lines = 0  # lines in the file as far as this process knows (a prune's trigger)
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
                self._facts.pop(stat[0], None)
                self._facts[stat[0]] = (stat[1], item)
                lines.append(_line(stat[0], stat[1], item))
            if len(self._facts) > MAX_ENTRIES:  # memory bounded too: the oldest go first
                for path in list(self._facts)[: len(self._facts) - MAX_ENTRIES]:
                    del self._facts[path]
        folder, file = self.folder, self.file
        if not lines or folder is None or file is None:
            return
        with clip_cache_file.locked(folder, FILE_NAME) as held:
            if not held:
                return  # a read-only or foreign cache folder: the facts stay in memory only
            size = clip_cache_file.append(file, "".join(lines))
            self._lines += len(lines)
            if size > MAX_FILE_BYTES or self._lines > MAX_ENTRIES:
                self._prune(file)

    def _load(self) -> None:
        with self._lock:
            if self._loaded:
                return
            self._loaded = True
            file, folder = self.file, self.folder
            if file is None or folder is None:  # not reached: a cache without a folder starts loaded
                return
            lines, size = clip_cache_file.read_lines(file, MAX_FILE_BYTES)
            if size > MAX_FILE_BYTES or len(lines) > MAX_ENTRIES:
                with clip_cache_file.locked(folder, FILE_NAME) as held:
                    if held:  # read again under the lock, then pruned from that one read
                        self._facts = self._prune(file)
                        return
            self._facts, self._lines = _parse(file, lines)[0], len(lines)

    def _prune(self, file: Path) -> Entries:
        """Rewrites the file with its newest entries; returns the entries it read. Under the
        file's lock: it is read again first, so what another process appended since this one
        loaded is kept."""
        lines, _ = clip_cache_file.read_lines(file, MAX_FILE_BYTES)
        entries, raw = _parse(file, lines)
        kept = _newest(entries, raw)
        if clip_cache_file.replace_with(file, kept):
            self._lines = len(kept)
        return entries


_SHARED: dict[Path | None, FactsCache] = {}
_SHARED_LOCK = threading.Lock()


def shared_cache(env: Mapping[str, str] | None = None) -> FactsCache:
    """The process's cache for the current cache folder."""
    folder = cache_folder(env)
    with _SHARED_LOCK:
        if folder not in _SHARED:
            _SHARED[folder] = FactsCache(folder)
        return _SHARED[folder]
