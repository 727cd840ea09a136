"""Find LTX-2 checkpoints, Gemma text encoders and split-pack VAEs in the usual model folders
and in the Hugging Face cache (every downloaded snapshot).

Bounded by work, not by the clock, so the same folders give the same answer at any load: at most
MAX_FOLDERS folders walked, MAX_ENTRIES entries listed and MAX_HEADERS headers read (far above any
real models folder). The clock only guards against a machine that cannot do that work: the walk
runs in a daemon thread (a hung network mount blocks inside one syscall, where no in-loop check
could interrupt it), and the caller gives up when the walk has made no progress for STALL_S (a
folder that does not answer) or at the long safety cap (the box is too busy), saying which.
Directories are keyed by (device, inode) so symlinked folders are followed once and loops end;
depth is bounded. Only headers are read.
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections import deque
from pathlib import Path
from typing import Callable, Mapping, Sequence

from pydantic import BaseModel, ConfigDict

from ltx_wizard.core.io.bounded import JSON_MAX_BYTES, loads_json, read_bytes
from ltx_wizard.core.inputs.checkpoint import config_sections, inspect_checkpoint, inspect_vae

# Candidate and rank live in discovery_rank.py; imported from here by the screens and tests
from ltx_wizard.core.inputs.discovery_rank import Candidate, Found, Inspection, Kind, rank
from ltx_wizard.core.inputs.discovery_roots import SYSTEM_ROOTS, hf_hub_cache, search_roots
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.inputs.header_cache import summary_for
from ltx_wizard.core.inputs.text_encoder import inspect_text_encoder

__all__ = ["Candidate", "DiscoveryResult", "discover", "rank"]

# Work bounds: a models folder holds tens of files; these stop a tree that is not one (a home
# folder with a million files, a link to /) with the same answer at any load.
MAX_FOLDERS = 20_000
MAX_ENTRIES = 1_000_000
MAX_HEADERS = 2_000  # each a safetensors header or a Gemma folder's config (840 KB at most)
SAFETY_CAP_S = 120.0  # 200 real-sized headers take ~1 s idle, a few s at load 10
STALL_S = 30.0  # no folder listed and no header read for this long: a mount that does not answer
_POLL_S = 0.1
_LTX_NAME = re.compile(r"ltx.*2", re.IGNORECASE)
_SKIP_DIRS = {".git", "__pycache__", ".Trash", "lost+found"}


class DiscoveryResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    roots: tuple[Path, ...]
    missing_roots: tuple[Path, ...]
    candidates: tuple[Candidate, ...]
    timed_out: bool  # stopped by the clock: a folder that did not answer, or the safety cap
    depth_limited: bool
    dirs_scanned: int
    unreadable_dirs: int
    elapsed_s: float
    failed: str | None = None  # the walk itself broke: results are partial (exit non-zero)
    # On a timeout: the folder being walked when time ran out, then those still queued (partial)
    unsearched: tuple[Path, ...] = ()
    hf_cache: Path | None = None  # the Hugging Face hub cache; its snapshots are among `roots`
    # why the search stopped early: "stalled" (a folder did not answer), "busy" (the safety cap),
    # or the work bound it reached ("folders", "entries", "headers"); None when it finished
    stopped: str | None = None
    headers_read: int = 0
    cap_s: float = SAFETY_CAP_S

    @property
    def partial(self) -> bool:
        return self.timed_out or self.stopped is not None

    def of_kind(self, kind: Kind) -> list[Candidate]:
        return [c for c in self.candidates if c.kind == kind]

    def partial_note(
        self, shown: int = 3, advice: str = "type the path, or narrow the folders searched"
    ) -> str | None:
        """One plain sentence when the search was cut short, naming why and where it did not
        look."""
        if not self.partial:
            return None
        where = ", ".join(str(p) for p in self.unsearched[:shown])
        more = len(self.unsearched) - len(self.unsearched[:shown])
        if where:
            where = f"; not searched: {where}" + (f" and {more} more folder(s)" if more else "")
        elif more:
            where = f"; {more} folder(s) not searched"
        return f"{self.why_stopped()}: the list is partial{where}; {advice}"

    def why_stopped(self) -> str:
        if self.stopped == "stalled":
            stuck = self.unsearched[0] if self.unsearched else "a folder"
            return (
                f"model search stopped: {stuck} has not answered for {STALL_S:.0f} s (a hung network mount?)"
            )
        if self.stopped == "busy":
            return (
                f"model search stopped at its {self.cap_s:g} s safety cap, after "
                f"{self.dirs_scanned} folders and {self.headers_read} headers: the box is too "
                "busy (or a disk too slow) to finish it"
            )
        if self.stopped in _BOUNDS:
            what, limit = _BOUNDS[self.stopped]
            return f"model search stopped at its bound of {limit:,} {what}"
        return f"model search cut short after {self.elapsed_s:.1f} s"

    @property
    def best(self) -> Candidate | None:
        """The top checkpoint when it comes with everything it needs."""
        top = next(iter(self.of_kind("checkpoint")), None)
        return top if top is not None and top.usable and top.text_encoder is not None else None


_BOUNDS = {
    "folders": ("folders walked", MAX_FOLDERS),
    "entries": ("entries listed", MAX_ENTRIES),
    "headers": ("headers read", MAX_HEADERS),
}


class _Walk:
    """State shared with the walker thread; lists are only appended to (safe to snapshot)."""

    def __init__(self, roots: list[Path], max_depth: int) -> None:
        self.roots, self.max_depth = roots, max_depth
        self.stop = False
        self.found: list[Found] = []
        self.dirs = self.unreadable = self.entries = self.headers = 0
        self.bound: str | None = None  # the work bound reached, if one was
        self.depth_limited = False
        self.failed: str | None = None
        self.queue: deque[tuple[Path, int]] = deque((r, 0) for r in roots)
        self.current: Path | None = None
        self.lock = threading.Lock()  # the queue is read by the caller when time runs out

    def unsearched(self) -> tuple[Path, ...]:
        """The folders not (wholly) searched: where the walk was, then what it had queued."""
        with self.lock:
            queued = [folder for folder, _ in self.queue]
            current = self.current
        return tuple(([current] if current is not None else []) + queued)

    @property
    def progress(self) -> int:
        """Grows with every folder listed and header read: the caller's sign of life."""
        return self.dirs + self.unreadable + self.headers

    def _over(self) -> bool:
        """A work bound reached: the walk stops there, the same at any load."""
        for name, value in (("folders", self.dirs), ("entries", self.entries), ("headers", self.headers)):
            if value >= _BOUNDS[name][1]:
                self.bound = name
                return True
        return False

    def run(self) -> None:
        try:
            self._run()
        except Exception as exc:  # never a thread traceback: discover reports it and fails
            self.failed = f"{type(exc).__name__}: {str(exc)[:120]}"

    def _run(self) -> None:
        queue = self.queue
        seen: set[tuple[int, int]] = set()
        while queue and not self.stop:
            if self._over():  # the queue is what was not searched
                with self.lock:
                    self.current = None
                return
            with self.lock:
                folder, depth = queue.popleft()
                self.current = folder
            try:
                st = os.stat(folder)
                if (st.st_dev, st.st_ino) in seen:
                    continue
                seen.add((st.st_dev, st.st_ino))
                with os.scandir(folder) as it:
                    entries = list(it)
            except OSError:
                self.unreadable += 1
                continue
            self.dirs += 1
            self.entries += len(entries)
            if self._gemma_dir_safely(folder, entries):
                continue  # its shards are part of it, not candidates of their own
            for entry in entries:
                if self.stop:
                    return
                try:
                    if entry.is_dir():
                        if entry.name in _SKIP_DIRS or entry.name.startswith("."):
                            continue
                        if depth < self.max_depth:
                            with self.lock:
                                queue.append((Path(entry.path), depth + 1))
                        else:
                            self.depth_limited = True
                    elif entry.name.lower().endswith(".safetensors") and entry.is_file():
                        if self._over():
                            with self.lock:  # this folder is only partly searched
                                queue.appendleft((folder, depth))
                                self.current = None
                            return
                        self._classify_safely(Path(entry.path))
                except OSError:
                    continue  # a symlink loop or a vanished entry: not a candidate
        with self.lock:
            self.current = None

    def _classify_safely(self, path: Path) -> None:
        """One hostile file is one unusable candidate, never the end of the walk."""
        self.headers += 1
        try:
            self._classify(path)
        except Exception as exc:
            self.found.append(
                (
                    "checkpoint",
                    path,
                    f"{path}: cannot be inspected ({type(exc).__name__}): not a usable model file",
                )
            )

    def _gemma_dir_safely(self, folder: Path, entries: list[os.DirEntry[str]]) -> bool:
        try:
            return self._gemma_dir(folder, entries)
        except Exception as exc:
            self.found.append(
                (
                    "text_encoder",
                    folder,
                    f"{folder}: cannot be inspected ({type(exc).__name__}): not a usable Gemma folder",
                )
            )
            return True

    def _gemma_dir(self, folder: Path, entries: list[os.DirEntry[str]]) -> bool:
        names = {e.name for e in entries}
        if "config.json" not in names or not any(
            n.startswith("model") and n.endswith(".safetensors") for n in names
        ):
            return False
        try:
            config = loads_json(
                read_bytes(folder / "config.json", what="config.json", limit=JSON_MAX_BYTES),
                what="config.json",
            )
        except UsageError:
            return False
        model_type = str(config.get("model_type", "")) if isinstance(config, dict) else ""
        if not model_type.lower().startswith("gemma"):
            return False
        self.headers += 1
        try:
            self.found.append(("text_encoder", folder, inspect_text_encoder(folder)))
        except UsageError as exc:
            self.found.append(("text_encoder", folder, exc.message))
        return True

    def _classify(self, path: Path) -> None:
        named = bool(_LTX_NAME.search(path.name))
        try:  # read and parsed once: the inspection below finds this summary in the cache
            header = summary_for(path, os.stat(path))
        except UsageError as exc:
            if named:
                self.found.append(("checkpoint", path, exc.message))
            return
        sections = config_sections(header) or ()
        kind: Kind
        inspect: Callable[[Path], Inspection]
        if header.metadata.get("gemma_config") is not None:
            kind, inspect = "text_encoder", inspect_text_encoder
        elif "transformer" in sections or (named and not sections):
            kind, inspect = "checkpoint", inspect_checkpoint
        elif "vae" in sections:
            kind, inspect = "video_vae", lambda p: inspect_vae(p, "video")
        elif "audio_vae" in sections:
            kind, inspect = "audio_vae", lambda p: inspect_vae(p, "audio")
        else:
            return  # some other model (a LoRA, an upscaler): not a candidate
        try:
            self.found.append((kind, path, inspect(path)))
        except UsageError as exc:
            self.found.append((kind, path, exc.message))


def discover(
    extra_dirs: Sequence[str | os.PathLike[str]] = (),
    *,
    env: Mapping[str, str] | None = None,
    max_depth: int = 4,
    time_budget_s: float = SAFETY_CAP_S,
    system_roots: Sequence[str] = SYSTEM_ROOTS,
) -> DiscoveryResult:
    """`time_budget_s` is the safety cap only: the search ends by its work bounds long before it
    on any box that can do the work (module docstring)."""
    roots = search_roots(extra_dirs, env=env, system_roots=system_roots)
    present = [r for r in roots if os.path.isdir(r)]
    walk = _Walk(present, max_depth)
    started = time.monotonic()
    thread = threading.Thread(target=walk.run, name="ltx-discovery", daemon=True)
    thread.start()
    clock = _supervise(thread, walk, started, time_budget_s)
    walk.stop = True  # the thread may stay blocked in a syscall; it is a daemon and holds nothing
    hub = hf_hub_cache(os.environ if env is None else env)
    partial = clock is not None or walk.bound is not None
    return DiscoveryResult(
        hf_cache=hub,
        roots=tuple(present),
        missing_roots=tuple(r for r in roots if r not in present),
        candidates=tuple(rank(list(walk.found))),
        timed_out=clock is not None,
        depth_limited=walk.depth_limited,
        dirs_scanned=walk.dirs,
        unreadable_dirs=walk.unreadable,
        elapsed_s=time.monotonic() - started,
        failed=walk.failed,
        unsearched=walk.unsearched() if partial else (),
        stopped=clock or walk.bound,
        headers_read=walk.headers,
        cap_s=time_budget_s,
    )


def _supervise(thread: threading.Thread, walk: _Walk, started: float, cap_s: float) -> str | None:
    """Wait for the walk; None when it ended by itself, else why the clock ended it: "stalled"
    (no progress for STALL_S: a folder that does not answer) or "busy" (the safety cap)."""
    seen, last = -1, started
    while thread.is_alive():
        now = time.monotonic()
        if walk.progress != seen:
            seen, last = walk.progress, now
        if now - started >= cap_s:
            return "busy"
        if now - last >= STALL_S:
            return "stalled"
        thread.join(min(_POLL_S, max(cap_s - (now - started), 0.0)))
    return None
