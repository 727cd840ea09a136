"""Was the preprocessed data encoded for this checkpoint? Read from one sample's `.pt` files
without torch (core/dataset/pt_shapes.py), against what the checkpoint's text path and latent
size need (core/inputs/version_fit.py `checkpoint_needs`).

* conditions/: the text embeddings' last dimension is what the feature extractor of the checkpoint
  that encoded them hands on (ltx-core text_encoders/gemma/feature_extractor.py: FeatureExtractorV1
  gives Gemma's hidden size, 3840, for the 19B; V2 gives the transformer's inner widths,
  4096 and 2048, for the 22B); scripts/process_captions.py saves `video_prompt_embeds` (and
  `audio_prompt_embeds`), the oldest layout `prompt_embeds`.
* latents/: the channels of the video latents are the transformer's `in_channels` (128 by default,
  ltx-core model_configurator.py).
Latents from another model cannot train this one: the fix is the preprocessing with --overwrite.
"""

from __future__ import annotations

from pathlib import Path

from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.dataset.pt_shapes import TensorShape, read_pt
from ltx_wizard.core.inputs.checkpoint import CheckpointInfo
from ltx_wizard.core.inputs.version_fit import Misfit, checkpoint_needs, transformer_config

EMBED_KEYS = ("video_prompt_embeds", "prompt_embeds")


def _first(folder: Path, sample: str) -> dict[str, object] | None:
    try:
        obj = read_pt(folder / sample)
    except (WizardError, OSError):
        return None  # unreadable or look-alike bytes: not checked here (the data check reads it)
    return obj if isinstance(obj, dict) else None


def _width(obj: dict[str, object] | None, keys: tuple[str, ...]) -> int | None:
    for key in keys:
        value = (obj or {}).get(key)
        if isinstance(value, TensorShape) and value.size:
            return value.size[-1]
    return None


def _redo(root: Path, what: str) -> Misfit:
    return Misfit(
        part="data_root",
        fix="overwrite",
        message=(
            f"the preprocessed data in {root} {what}: encode it again for this checkpoint "
            "(scripts/process_dataset.py ... --overwrite, or give the wizard your dataset.json and "
            "a new --precomputed-dir)"
        ),
    )


def data_misfits(
    root: Path, sample: str | None, ckpt: CheckpointInfo, gemma_hidden: int | None = None
) -> list[Misfit]:
    """One sample's files (the first the data check found) against the checkpoint."""
    if sample is None:
        return []
    needs = checkpoint_needs(ckpt, gemma_hidden)
    cond = _first(root / "conditions", sample)
    width = _width(cond, EMBED_KEYS)
    if width is not None and width != needs.video_width:
        kind = "22B (LTX-2.3 or later)" if needs.v2_text_path else "19B (LTX-2)"
        return [
            _redo(
                root,
                f"holds text embeddings {width} wide, but this {kind} checkpoint "
                f"reads {needs.video_width}: they were encoded for another model",
            )
        ]
    latents = _first(root / "latents", sample)
    value = (latents or {}).get("latents")
    channels = transformer_config(ckpt).get("in_channels", 128)
    if isinstance(value, TensorShape) and len(value.size) == 4 and value.size[0] != channels:
        return [
            _redo(
                root,
                f"holds video latents of {value.size[0]} channels, but this checkpoint "
                f"reads {channels}: they were encoded by another VAE",
            )
        ]
    return []
