"""What each folder of a preprocessed sample must hold for the trainer to train on it.

Every folder the strategy reads has a kind (the strategy block says which: core/dataset/sources.py
names the folders), and each kind its tensors, as process_videos.py / process_captions.py write
them and the training strategies read them:
- video latents: `latents` [C, F', H', W'], (F', H', W') one of the buckets' (compute_latents);
- reference video latents: `latents` of the target's size or an integer fraction of it, the same
  fraction in every sample (flexible.py _infer_scale_factor / _infer_temporal_scale_factor: the
  trainer infers it from one pair and applies it to all);
- audio latents (and reference audio): `latents` [8, T, 16] (process_videos.py AUDIO_LATENT_CHANNELS,
  AUDIO_FREQUENCY_BINS);
- video masks: `mask` of F' x H' x W' elements, the target's (flexible.py reshapes it to the
  target's token count); audio masks: `mask` of T elements, the audio latents';
- conditions: `prompt_attention_mask` and `video_prompt_embeds` (or the legacy `prompt_embeds`)
  (trainer.py _training_step).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.dataset.buckets import Bucket
from ltx_wizard.core.dataset.pt_shapes import TensorShape, read_pt
from ltx_wizard.core.dataset.sources import expected_file, required_folders

AUDIO_CHANNELS, AUDIO_BINS = 8, 16


def folder_kinds(strategy: Mapping[str, Any] | None) -> dict[str, str]:
    """Folder -> "video", "reference", "audio", "reference audio", "mask", "audio mask" or
    "conditions", for every folder `required_folders` names."""
    sources = required_folders(strategy)
    kinds = {folder: _kind(loads) for folder, loads in sources.items()}
    for label in ("video", "audio"):
        block = (strategy or {}).get(label)
        conditions = block.get("conditions") if isinstance(block, Mapping) else None
        for cond in conditions if isinstance(conditions, list) else []:
            if not isinstance(cond, Mapping):
                continue
            prefix = "" if label == "video" else "audio "
            if cond.get("type") == "reference" and cond.get("latents_dir") in kinds:
                kinds[cond["latents_dir"]] = "reference" if label == "video" else "reference audio"
            elif cond.get("type") == "mask" and cond.get("mask_dir") in kinds:
                kinds[cond["mask_dir"]] = f"{prefix}mask"
    return kinds


def _kind(loads: str) -> str:
    # what required_folders says the trainer loads from the folder
    return {
        "latents": "video",
        "video_latents": "video",
        "conditions": "conditions",
        "audio_latents": "audio",
        "ref_latents": "reference",
    }.get(loads, "other")


def _tensor(obj: Any, key: str) -> TensorShape | None:
    value = obj.get(key) if isinstance(obj, dict) else None
    return value if isinstance(value, TensorShape) else None


def _numel(shape: TensorShape) -> int:
    out = 1
    for n in shape.size:
        out *= n
    return out


class SampleShapes:
    """One sample's files read once, checked folder by folder against the buckets and each
    other; `fraction`: the reference's (spatial, temporal) factors seen so far."""

    def __init__(
        self,
        root: Path,
        sample: str,
        kinds: dict[str, str],
        buckets: tuple[Bucket, ...],
        fraction: dict[str, tuple[int, int]],
    ) -> None:
        self.root, self.sample, self.kinds, self.buckets = root, sample, kinds, buckets
        self.fraction = fraction
        self.video = next((f for f, k in kinds.items() if k == "video"), None)
        self.audio = next((f for f, k in kinds.items() if k == "audio"), None)

    def file(self, folder: str) -> Path:
        return self.root / folder / expected_file(folder, self.sample)

    def read(self, folder: str) -> Any | None:
        path = self.file(folder)
        return read_pt(path) if path.is_file() else None

    def mismatch(self) -> str:
        """Why the first mismatching file cannot be trained on; "" when all match."""
        order = ("video", "reference", "audio", "reference audio", "mask", "audio mask")
        ranked = sorted(self.kinds.items(), key=lambda fk: order.index(fk[1]) if fk[1] in order else 9)
        for folder, kind in ranked:
            try:
                obj = self.read(folder)
                why = "" if obj is None else self._check(kind, folder, obj)
            except UsageError as exc:
                return exc.message
            if why:
                return f"{folder}/{expected_file(folder, self.sample)} {why}"
        return ""

    def _check(self, kind: str, folder: str, obj: Any) -> str:
        if kind == "conditions":
            ok = _tensor(obj, "prompt_attention_mask") and (
                _tensor(obj, "video_prompt_embeds") or _tensor(obj, "prompt_embeds")
            )
            return "" if ok else "has no prompt_attention_mask and video_prompt_embeds tensors"
        key = "mask" if kind.endswith("mask") else "latents"
        shape = _tensor(obj, key)
        if shape is None:
            return f"has no {key!r} tensor"
        return {
            "video": self._video,
            "reference": self._reference,
            "audio": self._audio,
            "reference audio": self._audio,
            "mask": self._mask,
            "audio mask": self._audio_mask,
        }.get(kind, lambda s, f: "")(shape, folder)

    def _video(self, shape: TensorShape, folder: str) -> str:
        wanted = {b.latent_shape(): b for b in self.buckets}
        if len(shape.size) == 4 and tuple(shape.size[1:]) in wanted:
            return ""
        made = "x".join(map(str, shape.size[1:]))
        want = " or ".join("x".join(map(str, s)) for s in wanted)
        return (
            f"has latents of {made} (frames x height x width), the bucket(s) "
            f"{';'.join(b.text() for b in self.buckets)} make {want}"
        )

    def _target(self) -> tuple[int, ...] | None:
        obj = self.read(self.video) if self.video else None
        shape = _tensor(obj, "latents") if obj is not None else None
        return tuple(shape.size[1:]) if shape is not None and len(shape.size) == 4 else None

    def _reference(self, shape: TensorShape, folder: str) -> str:
        target = self._target()
        if target is None or len(shape.size) != 4:
            return "" if target is None else "is not a [C, F, H, W] latents tensor"
        (f, h, w), (rf, rh, rw) = target, tuple(shape.size[1:])
        spatial = (h // rh if rh else 0, w // rw if rw else 0)
        groups_ok = rf == f or (rf > 1 and (f - 1) % (rf - 1) == 0)
        if spatial[0] != spatial[1] or not spatial[0] or not groups_ok:
            return (
                f"has reference latents of {rf}x{rh}x{rw}, no even fraction of the target's "
                f"{f}x{h}x{w} (frames x height x width)"
            )
        factors = (spatial[0], 1 if rf == f else (f - 1) // (rf - 1))
        first = self.fraction.setdefault(folder, factors)
        if first != factors:
            return (
                f"is {factors[0]}x smaller (1/{factors[1]} of the frames) than its target, "
                f"other samples {first[0]}x (1/{first[1]}): the trainer applies the first "
                "sample's fraction to every one"
            )
        return ""

    def _audio(self, shape: TensorShape, folder: str) -> str:
        size = shape.size
        if len(size) == 3 and size[0] == AUDIO_CHANNELS and size[2] == AUDIO_BINS and size[1] > 0:
            return ""
        return f"has audio latents of {'x'.join(map(str, size))}, not {AUDIO_CHANNELS} x time x {AUDIO_BINS}"

    def _mask(self, shape: TensorShape, folder: str) -> str:
        target = self._target()
        if target is None or _numel(shape) == target[0] * target[1] * target[2]:
            return ""
        return (
            f"is a mask of {'x'.join(map(str, shape.size))}, the target latents are "
            f"{'x'.join(map(str, target))}"
        )

    def _audio_mask(self, shape: TensorShape, folder: str) -> str:
        obj = self.read(self.audio) if self.audio else None
        audio = _tensor(obj, "latents") if obj is not None else None
        if audio is None or len(audio.size) != 3 or _numel(shape) == audio.size[1]:
            return ""
        return f"is a mask of {_numel(shape)} steps, the audio latents have {audio.size[1]}"
