"""Find LTX-2 checkpoints, Gemma text encoders and split-pack VAEs in the usual model folders
and in the Hugging Face cache (every downloaded snapshot).

The walk runs in a daemon thread joined with a timeout: a hung network mount blocks inside one
syscall, where no in-loop clock check could interrupt it. Directories are keyed by (device, inode)
so symlinked folders are followed once and loops end; depth is bounded. Only headers are read.
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections import deque
from pathlib import Path
from typing import Literal, Mapping, Sequence

from pydantic import BaseModel, ConfigDict

from ltx_wizard.core.io.bounded import JSON_MAX_BYTES, loads_json, read_bytes
from ltx_wizard.core.inputs.checkpoint import (
    CheckpointInfo,
    config_sections,
    inspect_checkpoint,
    inspect_vae,
)
from ltx_wizard.core.inputs.discovery_roots import SYSTEM_ROOTS, hf_hub_cache, search_roots
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.inputs.header_cache import summary_for
from ltx_wizard.core.inputs.text_encoder import TextEncoderInfo, check_compatibility, inspect_text_encoder
from ltx_wizard.core.base.text_safety import clip

Kind = Literal["checkpoint", "text_encoder", "video_vae", "audio_vae"]
_LTX_NAME = re.compile(r"ltx.*2", re.IGNORECASE)
_SKIP_DIRS = {".git", "__pycache__", ".Trash", "lost+found"}


class Candidate(BaseModel):
    model_config = ConfigDict(frozen=True)

    kind: Kind
    path: Path
    usable: bool
    summary: str  # what it is, or why it cannot be used
    rank: int = 0  # 1 = best, over all candidates
    reason: str = ""  # why it ranks where it does
    text_encoder: Path | None = None  # for a checkpoint: the matching Gemma found
    video_vae: Path | None = None
    audio_vae: Path | None = None


class DiscoveryResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    roots: tuple[Path, ...]
    missing_roots: tuple[Path, ...]
    candidates: tuple[Candidate, ...]
    timed_out: bool
    depth_limited: bool
    dirs_scanned: int
    unreadable_dirs: int
    elapsed_s: float
    failed: str | None = None  # the walk itself broke: results are partial (exit non-zero)
    # On a timeout: the folder being walked when time ran out, then those still queued (partial)
    unsearched: tuple[Path, ...] = ()
    hf_cache: Path | None = None  # the Hugging Face hub cache; its snapshots are among `roots`

    def of_kind(self, kind: Kind) -> list[Candidate]:
        return [c for c in self.candidates if c.kind == kind]

    def partial_note(self, shown: int = 3,
                     advice: str = "type the path, or narrow the folders searched") -> str | None:
        """One plain sentence when the search was cut short, naming where it did not look."""
        if not self.timed_out:
            return None
        where = ", ".join(str(p) for p in self.unsearched[:shown])
        more = len(self.unsearched) - len(self.unsearched[:shown])
        if where:
            where = f"; not searched: {where}" + (f" and {more} more folder(s)" if more else "")
        elif more:
            where = f"; {more} folder(s) not searched"
        return f"model search cut short after {self.elapsed_s:.1f} s: the list is partial{where}; {advice}"

    @property
    def best(self) -> Candidate | None:
        """The top checkpoint when it comes with everything it needs."""
        top = next(iter(self.of_kind("checkpoint")), None)
        return top if top is not None and top.usable and top.text_encoder is not None else None


class _Walk:
    """State shared with the walker thread; lists are only appended to (safe to snapshot)."""

    def __init__(self, roots: list[Path], max_depth: int) -> None:
        self.roots, self.max_depth = roots, max_depth
        self.stop = False
        self.found: list[tuple[Kind, Path, object]] = []  # info object or error string
        self.dirs = self.unreadable = 0
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

    def run(self) -> None:
        try:
            self._run()
        except Exception as exc:  # never a thread traceback: discover reports it and fails
            self.failed = f"{type(exc).__name__}: {str(exc)[:120]}"

    def _run(self) -> None:
        queue = self.queue
        seen: set[tuple[int, int]] = set()
        while queue and not self.stop:
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
                        self._classify_safely(Path(entry.path))
                except OSError:
                    continue  # a symlink loop or a vanished entry: not a candidate
        with self.lock:
            self.current = None

    def _classify_safely(self, path: Path) -> None:
        """One hostile file is one unusable candidate, never the end of the walk."""
        try:
            self._classify(path)
        except Exception as exc:
            self.found.append(("checkpoint", path, f"{path}: cannot be inspected "
                               f"({type(exc).__name__}): not a usable model file"))

    def _gemma_dir_safely(self, folder: Path, entries: list[os.DirEntry]) -> bool:
        try:
            return self._gemma_dir(folder, entries)
        except Exception as exc:
            self.found.append(("text_encoder", folder, f"{folder}: cannot be inspected "
                               f"({type(exc).__name__}): not a usable Gemma folder"))
            return True

    def _gemma_dir(self, folder: Path, entries: list[os.DirEntry]) -> bool:
        names = {e.name for e in entries}
        if "config.json" not in names or not any(
            n.startswith("model") and n.endswith(".safetensors") for n in names
        ):
            return False
        try:
            config = loads_json(read_bytes(folder / "config.json", what="config.json",
                                           limit=JSON_MAX_BYTES), what="config.json")
            model_type = str(config.get("model_type", ""))  # type: ignore[union-attr]
        except (UsageError, AttributeError):
            return False
        if not model_type.lower().startswith("gemma"):
            return False
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
    extra_dirs: Sequence[str | os.PathLike] = (),
    *,
    env: Mapping[str, str] | None = None,
    max_depth: int = 4,
    time_budget_s: float = 3.0,
    system_roots: Sequence[str] = SYSTEM_ROOTS,
) -> DiscoveryResult:
    roots = search_roots(extra_dirs, env=env, system_roots=system_roots)
    present = [r for r in roots if os.path.isdir(r)]
    walk = _Walk(present, max_depth)
    started = time.monotonic()
    thread = threading.Thread(target=walk.run, name="ltx-discovery", daemon=True)
    thread.start()
    thread.join(time_budget_s)
    timed_out = thread.is_alive()
    walk.stop = True  # the thread may stay blocked in a syscall; it is a daemon and holds nothing
    hub = hf_hub_cache(os.environ if env is None else env)
    return DiscoveryResult(
        hf_cache=hub,
        roots=tuple(present),
        missing_roots=tuple(r for r in roots if r not in present),
        candidates=tuple(rank(list(walk.found))),
        timed_out=timed_out,
        depth_limited=walk.depth_limited,
        dirs_scanned=walk.dirs,
        unreadable_dirs=walk.unreadable,
        elapsed_s=time.monotonic() - started,
        failed=walk.failed,
        unsearched=walk.unsearched() if timed_out else (),
    )


def _version_key(v: str | None) -> tuple[int, ...]:
    # ASCII digits, 18 at most each: a 5,000-digit version sorts, it does not raise
    return tuple(int(p[:18]) for p in re.findall(r"[0-9]+", v or ""))


def _closeness(a: Path, b: Path) -> int:
    return len(os.path.commonpath([a, b]).split(os.sep))


def _matches(ckpt: CheckpointInfo, te: TextEncoderInfo) -> bool:
    try:
        check_compatibility(ckpt, te)
    except UsageError:
        return False
    return True


def _unmatched_reason(te: object) -> str:
    if isinstance(te, TextEncoderInfo) and te.gemma_version is None and te.model_type != "gemma3":
        return (
            f"no checkpoint found that it fits; it declares no gemma_version ({te.model_type}: "
            "Google's vanilla release?), while LTX checkpoints want the LTX fine-tuned Gemma root"
        )
    return "no checkpoint found that this Gemma fits"


def _nearest(paths: Sequence[Path], to: Path) -> Path | None:
    """The candidate sharing the longest folder prefix with `to` (same pack folder first)."""
    return max(paths, key=lambda p: (_closeness(p, to), str(p)), default=None)


def _score_checkpoint(info: CheckpointInfo, found: list[tuple[Kind, Path, object]]) -> tuple:
    path = info.path
    tes = [p for k, p, i in found if isinstance(i, TextEncoderInfo) and _matches(info, i)]
    te = _nearest(tes, path)
    need = f"gemma_version {clip(info.gemma_version)}" if info.gemma_version else "Gemma 3"
    extra: dict[str, Path | None] = {}
    if not info.is_split_pack:
        score, reason = (0, f"unified checkpoint with a matching Gemma ({need}) at {te}")
        if te is None:
            score, reason = (
                2,
                f"unified checkpoint, but no matching Gemma text encoder found (needs {need})",
            )
    else:
        for kind in ("video_vae", "audio_vae"):
            extra[kind] = _nearest(
                [p for k, p, i in found if k == kind and not isinstance(i, str)], path
            )
        parts = (
            ("packed Gemma", te),
            ("video VAE", extra["video_vae"]),
            ("audio VAE", extra["audio_vae"]),
        )
        lacking = [name for name, p in parts if p is None]
        score, reason = (
            1,
            "split pack with its packed Gemma and both VAEs (unified needs fewer files)",
        )
        if lacking:
            score, reason = 3, f"split pack missing its {', '.join(lacking)}"
    key = (score, tuple(-x for x in _version_key(info.model_version)), str(path))
    cand = Candidate(
        kind="checkpoint",
        path=path,
        usable=True,
        summary=info.summary(),
        reason=reason,
        text_encoder=te,
        **extra,
    )
    return key, cand


def rank(found: list[tuple[Kind, Path, object]]) -> list[Candidate]:
    """Order: complete unified sets, complete split packs, incomplete ones, then unusable files."""
    scored: list[tuple[tuple, Candidate]] = []
    for kind, path, info in found:
        if isinstance(info, str):
            key = (9 if kind == "checkpoint" else 19, (), str(path))
            reason = "cannot be used: see the error"
            scored.append(
                (key, Candidate(kind=kind, path=path, usable=False, summary=info, reason=reason))
            )
        elif isinstance(info, CheckpointInfo):
            scored.append(_score_checkpoint(info, found))
    scored.sort(key=lambda kv: kv[0])
    owners: dict[Path, Path] = {}  # text encoder -> best-ranked checkpoint it serves
    for _, cand in scored:
        if cand.text_encoder is not None:
            owners.setdefault(cand.text_encoder, cand.path)
    for kind, path, info in found:
        if isinstance(info, (str, CheckpointInfo)):
            continue
        key, reason = (14, (), str(path)), "VAE file of a split pack"
        if kind == "text_encoder":
            owner = owners.get(path)
            key = (10 if owner else 12, (), str(path))
            reason = f"matches checkpoint {owner}" if owner else _unmatched_reason(info)
        summary = info.describe()  # type: ignore[attr-defined]
        scored.append(
            (key, Candidate(kind=kind, path=path, usable=True, summary=summary, reason=reason))
        )
    scored.sort(key=lambda kv: kv[0])
    return [c.model_copy(update={"rank": i}) for i, (_, c) in enumerate(scored, 1)]
