"""How discovered model files rank: complete unified sets first, then complete split packs,
incomplete ones, then unusable files; each with the reason it ranks where it does, and each
checkpoint with the Gemma (and, for a split pack, the VAEs) found nearest to it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Literal, Sequence

from pydantic import BaseModel, ConfigDict

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.base.text_safety import clip
from ltx_wizard.core.inputs.checkpoint import CheckpointInfo, VaeInfo
from ltx_wizard.core.inputs.text_encoder import TextEncoderInfo, check_compatibility

Kind = Literal["checkpoint", "text_encoder", "video_vae", "audio_vae"]
# What discovery made of a file: its inspection, or why it cannot be used (one line)
Inspection = CheckpointInfo | TextEncoderInfo | VaeInfo | str
Found = tuple[Kind, Path, Inspection]


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


# (score, the version's parts negated, the path): the best candidate sorts first
_SortKey = tuple[int, tuple[int, ...], str]


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


def _score_checkpoint(info: CheckpointInfo, found: list[Found]) -> tuple[_SortKey, Candidate]:
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
            extra[kind] = _nearest([p for k, p, i in found if k == kind and not isinstance(i, str)], path)
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


def rank(found: list[Found]) -> list[Candidate]:
    """Order: complete unified sets, complete split packs, incomplete ones, then unusable files."""
    scored: list[tuple[_SortKey, Candidate]] = []
    for kind, path, info in found:
        if isinstance(info, str):
            key = (9 if kind == "checkpoint" else 19, (), str(path))
            reason = "cannot be used: see the error"
            scored.append((key, Candidate(kind=kind, path=path, usable=False, summary=info, reason=reason)))
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
        summary = info.describe()
        scored.append((key, Candidate(kind=kind, path=path, usable=True, summary=summary, reason=reason)))
    scored.sort(key=lambda kv: kv[0])
    return [c.model_copy(update={"rank": i}) for i, (_, c) in enumerate(scored, 1)]
