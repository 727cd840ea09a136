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

from typing import Any, Mapping

from ltx_wizard.core.yaml_patch import get_dotted

# mirrors validation_runner.py _cond_needs_audio_encoder: condition types that carry audio
_AUDIO_CARRYING = ("prefix", "suffix", "mask", "reference")


def _samples(config: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    samples = get_dotted(config, "validation.samples", None)
    return [s for s in samples if isinstance(s, Mapping)] if isinstance(samples, list) else []


def audio_vae_reason(config: Mapping[str, Any]) -> str | None:
    """Why the trainer would load the audio VAE with this config, or None when it never does."""
    # ValidationConfig.generate_audio defaults to True (ltx_trainer/config.py)
    if get_dotted(config, "validation.generate_audio", True) is not False:
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
