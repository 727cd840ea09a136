"""Do the checkout, the checkpoint and the text encoder fit together? Checked from headers and
the checkout's files, before anything heavy runs; each misfit is one line naming what does not fit
and the fix.

What the checkpoint needs, from its header: the 22B text path when its transformer config has
`caption_proj_before_connector` (ltx-core model_configurator.py `_build_caption_projections`), the
LTX-2.5 Gemma rule when it declares a Gemma other than 3 or a model_version of 2.4.0 or more
(encoder_configurator.py `_check_gemma_version`). What the checkout gives: checkout_caps.py.
The Gemma pairing itself (which Gemma goes with which checkpoint) is gemma_compat.py's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.base.records import record
from ltx_wizard.core.inputs.checkout_caps import CheckoutCaps
from ltx_wizard.core.inputs.checkpoint import CheckpointInfo
from ltx_wizard.core.inputs.gemma_compat import REQUIRED_SINCE, loader_value, parse_model_version
from ltx_wizard.core.inputs.header_cache import summary_for
from ltx_wizard.core.inputs.text_encoder import TextEncoderInfo
from ltx_wizard.core.inputs.version_spec import release, satisfies

# ltx-core 1.2.0's pyproject: transformers 5.15 cannot build the Gemma 4 encoder.
GEMMA4_TRANSFORMERS_NOTE = "5.15 cannot build the Gemma 4 encoder"
Part = Literal["trainer_root", "text_encoder", "data_root"]


@record
class Misfit:
    part: Part  # the input whose field shows it (the checkout's fix is on the checkout)
    message: str  # one line: what does not fit, and the fix
    fix: Literal["pull", "sync", "gemma", "overwrite"]


@record
class CheckpointNeeds:
    model_version: str | None
    v2_text_path: bool  # 22B: the text projection sits before the connector
    gemma_source_rule: bool
    video_width: int  # what the text path hands the video stream (conditions' last dimension)
    audio_width: int


def transformer_config(ckpt: CheckpointInfo) -> dict[str, Any]:
    """The `transformer` section of the checkpoint's `config` metadata ({} when unreadable)."""
    try:
        header = summary_for(ckpt.path, Path(ckpt.path).stat())
    except (OSError, WizardError):  # a file gone since it was read: the defaults stay
        return {}
    config = header.metadata_json("config")
    block = config.get("transformer") if isinstance(config, dict) else None
    return block if isinstance(block, dict) else {}


def checkpoint_needs(ckpt: CheckpointInfo, gemma_hidden: int | None = None) -> CheckpointNeeds:
    cfg = transformer_config(ckpt)
    v2 = cfg.get("caption_proj_before_connector", False) is True
    version = ckpt.model_version
    parsed = parse_model_version(loader_value(version) if version else None) or ()
    # ltx-core's defaults (model_configurator.py): 32 heads of 128 (video), 32 of 64 (audio)
    video = int(cfg.get("num_attention_heads", 32)) * int(cfg.get("attention_head_dim", 128))
    audio = int(cfg.get("audio_num_attention_heads", 32)) * int(cfg.get("audio_attention_head_dim", 64))
    if not v2:  # 19B: FeatureExtractorV1 hands on Gemma's hidden size to both streams
        video = audio = gemma_hidden or 3840
    return CheckpointNeeds(
        model_version=version,
        v2_text_path=v2,
        # 2.4.0 on, or a Gemma other than 3 declared: what only the LTX-2.5 rule loads (a Gemma 3
        # declared by an older checkpoint is read past by the releases before it)
        gemma_source_rule=parsed >= REQUIRED_SINCE or ckpt.gemma_version not in (None, "3"),
        video_width=video,
        audio_width=audio,
    )


def _update(caps: CheckoutCaps, why: str) -> Misfit:
    core = f"ltx-core {caps.core_version}" if caps.core_version else "its ltx-core"
    return Misfit(
        part="trainer_root",
        fix="pull",
        message=(
            f"{why}, but the checkout {caps.root} ({core}) cannot load it: update it with "
            f"`git -C {caps.root} pull && uv sync` (or `ltx-wizard setup`)"
        ),
    )


def model_misfits(caps: CheckoutCaps, ckpt: CheckpointInfo, te: TextEncoderInfo | None) -> list[Misfit]:
    """What the checkout's ltx-core cannot load of this checkpoint and text encoder."""
    if not caps.source_read:
        return []
    needs = checkpoint_needs(ckpt)
    name = f"checkpoint {ckpt.path}"
    version = f" (model_version {needs.model_version})" if needs.model_version else ""
    out: list[Misfit] = []
    if needs.v2_text_path and not caps.v2_text_path:
        out.append(
            _update(
                caps,
                f"{name}{version} has the 22B text path of LTX-2.3 and later "
                '(the trainer would stop with "size mismatch for '
                'audio_embeddings_connector")',
            )
        )
    elif needs.gemma_source_rule and not caps.gemma_source_rule:
        out.append(_update(caps, f"{name}{version} is an LTX-2.5-era checkpoint that declares its Gemma"))
    if te is not None and te.model_type and te.model_type not in caps.gemma_types and not out:
        kinds = ", ".join(caps.gemma_types) or "none"
        out.append(
            _update(
                caps, f"text encoder {te.path} is model_type {te.model_type} (ltx-core there builds {kinds})"
            )
        )
    return out


def transformers_misfits(caps: CheckoutCaps, te: TextEncoderInfo | None) -> list[Misfit]:
    """The transformers the checkout's .venv holds, against ltx-core's pin and uv.lock."""
    have, root = caps.transformers_installed, caps.root
    if have is None:
        return []  # not synced: the checkout item says so, and setup offers `uv sync`
    sync = f"run `uv sync` in {root} (or `ltx-wizard setup`)"
    fits = satisfies(have, caps.transformers_spec) if caps.transformers_spec else None
    if fits is False:
        note = (
            f" ({GEMMA4_TRANSFORMERS_NOTE})"
            if te is not None
            and (te.model_type or "").startswith("gemma4")
            and (release(have) or ()) >= (5, 15)
            else ""
        )
        return [
            Misfit(
                part="trainer_root",
                fix="sync",
                message=(
                    f"the checkout's environment holds transformers {have} but its ltx-core "
                    f"{caps.core_version or ''} needs transformers{caps.transformers_spec}{note}: {sync}"
                ),
            )
        ]
    if caps.rope_local_only and (release(have) or (0,)) >= (5,):
        return [
            Misfit(
                part="trainer_root",
                fix="sync",
                message=(
                    f"the checkout's environment holds transformers {have}, but its ltx-core reads the "
                    "Gemma rope the transformers 4 way (it would stop with \"'Gemma3TextConfig' object "
                    f"has no attribute 'rope_local_base_freq'\"): {sync}"
                ),
            )
        ]
    if caps.transformers_locked and release(caps.transformers_locked) != release(have):
        return [
            Misfit(
                part="trainer_root",
                fix="sync",
                message=(
                    f"the checkout's environment holds transformers {have} but its uv.lock pins "
                    f"{caps.transformers_locked}: {sync}"
                ),
            )
        ]
    return []


def gemma_hidden_size(te: TextEncoderInfo | None) -> int | None:
    """text_config.hidden_size of a Gemma folder's config.json (None when unreadable)."""
    if te is None or te.config_path is None:
        return None
    try:
        config = json.loads(Path(te.config_path).read_text(encoding="utf-8")[: 4 * 2**20])
        value = (config.get("text_config") or {}).get("hidden_size", config.get("hidden_size"))
    except (OSError, ValueError, AttributeError):
        return None
    return value if isinstance(value, int) and value > 0 else None


def check_fit(caps: CheckoutCaps, ckpt: CheckpointInfo, te: TextEncoderInfo | None) -> list[Misfit]:
    return model_misfits(caps, ckpt, te) + transformers_misfits(caps, te)
