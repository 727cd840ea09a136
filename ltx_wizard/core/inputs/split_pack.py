"""Which component files an LTX 2.5 split pack needs for a given config.

A split pack's transformer file holds no VAE, so every component the trainer loads must be passed
as its own file (docs/configuration-reference.md, "Choosing your checkpoint layout"). Each one is
demanded only where the trainer actually loads it:

* video VAE: always. `LtxvTrainer.__init__` reads the video scale factors from it
  (ltx_trainer/trainer.py, via model_loader.py `resolve_video_vae_path`), and the validation runner
  resolves it eagerly.
* audio VAE (which also holds the vocoder): only when validation generates audio or encodes audio
  conditioning (ltx_trainer/validation_runner.py `ValidationRunner._load_decoder_components` and
  `_encode_conditioning_media`, resolved lazily through `_audio_vae_path`). Training on audio
  latents does not load it: the latents are precomputed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from ltx_wizard.core.inputs.checkpoint import CheckpointInfo, inspect_vae
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.io.trainer_config import trainer_config

# mirrors validation_runner.py _cond_needs_audio_encoder: condition types that carry audio
_AUDIO_CARRYING = ("prefix", "suffix", "mask", "reference")


def _samples(config: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return list(trainer_config(config).validation.samples or [])


def audio_vae_reason(config: Mapping[str, Any]) -> str | None:
    """Why the trainer would load the audio VAE with this config, or None when it never does."""
    # ValidationConfig.generate_audio defaults to True (ltx_trainer/config.py)
    if trainer_config(config).validation.generate_audio is not False:
        return "validation.generate_audio is on, so validation decodes audio with it"
    for sample in _samples(config):
        for cond in sample.get("conditions") or []:
            if not isinstance(cond, Mapping):
                continue
            kind = cond.get("type")
            if kind == "audio_to_video":
                return "a validation sample is conditioned on audio (audio_to_video)"
            if kind in _AUDIO_CARRYING and cond.get("audio") is not None:
                return f"a validation sample's {kind} condition carries audio"
    return None


def component_files(
    ckpt: CheckpointInfo, video_vae: Path | None, audio_vae: Path | None, config: Mapping[str, Any]
) -> tuple[Path | None, Path | None, list[str], list[str]]:
    """The VAE files a plan writes for `ckpt`: (video, audio, assumptions, warnings).

    Raises UsageError naming the missing flag (and why the audio VAE is needed) for a split pack.
    """
    if not ckpt.is_split_pack:
        ignored = ["the checkpoint is unified (it holds its VAEs): --video-vae/--audio-vae ignored"]
        return None, None, [], ignored if (video_vae or audio_vae) else []
    audio_why = audio_vae_reason(config)
    if video_vae is None or (audio_vae is None and audio_why):
        flags = "--video-vae FILE" + (" and --audio-vae FILE" if audio_why else "")
        why = f" (the audio VAE because {audio_why})" if audio_why else ""
        raise UsageError(f"checkpoint {ckpt.path} is a split pack: pass its VAE files with {flags}{why}")
    video = inspect_vae(video_vae, "video").path
    if audio_vae is not None:
        return video, inspect_vae(audio_vae, "audio").path, [], []
    return video, None, ["No audio VAE: this config never loads it (no audio in validation)."], []
