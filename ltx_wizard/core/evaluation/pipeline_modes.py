"""Which ltx-pipelines entry point renders a run's mode, with the conditioning the trainer's
validation samples give it; or why none does.

The trainer's docs name the production pipelines per training mode
(packages/ltx-trainer/docs/training-modes.md, "Using Trained Models for Inference"); the flags
are those of each entry point's own parser (ltx_pipelines/utils/args.py and each module's main()):
- text-to-video: `ti2vid_one_stage`;
- image-to-video (a `first_frame` condition): `ti2vid_one_stage --image PATH 0 1.0` (the trainer
  conditions latent frame 0 at strength 1.0: validation_runner.py _apply_video_conditionings);
- IC-LoRA with a reference video: `ic_lora --video-conditioning PATH 1.0`, on the distilled
  checkpoint with the spatial upsampler (ICLoraPipeline runs the distilled model only);
- audio-to-video (an `audio_to_video` condition): `a2vid_two_stage --audio-path PATH`, with the
  distilled LoRA and the spatial upsampler of the two-stage pipelines;
- text-to-audio (audio generated, no video): `t2a_one_stage`, which writes a .wav.
Two-stage entry points take sizes in steps of 64 (utils/helpers.py assert_resolution), the
one-stage ones in steps of 32. No entry point takes a video and generates its sound, an audio
reference, a prefix or suffix to extend, a mask to inpaint or a crop to outpaint: those modes
keep their trainer renders only, and say so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from ltx_wizard.core.evaluation.eval_config import run_conditions
from ltx_wizard.core.evaluation.strategy_conditions import strategy_kinds
from ltx_wizard.core.io.trainer_config import trainer_config

SPATIAL_UPSAMPLER, DISTILLED_LORA, DISTILLED_CHECKPOINT = (
    "spatial_upsampler",
    "distilled_lora",
    "distilled_checkpoint",
)


@dataclass(frozen=True)
class PipelineMode:
    kind: str  # t2v, i2v, ic_lora, a2v, t2a
    module: str  # python -m <module>
    title: str  # the mode, in words
    distilled: bool = False  # --distilled-checkpoint-path; no steps or guidance flags
    needs: tuple[str, ...] = ()  # model files beyond the run's own
    multiple: int = 32  # --width/--height divisible by this
    ext: str = "mp4"
    video: bool = True  # takes --width/--height
    feeds: str = ""  # what each render is given besides the prompt, in words


T2V = PipelineMode("t2v", "ltx_pipelines.ti2vid_one_stage", "text-to-video")
I2V = PipelineMode(
    "i2v",
    "ltx_pipelines.ti2vid_one_stage",
    "image-to-video",
    feeds="the first frame of its trainer sample (--image; a clip's frame 0 "
    "saved as a PNG under outputs/eval/inputs)",
)
IC_LORA = PipelineMode(
    "ic_lora",
    "ltx_pipelines.ic_lora",
    "IC-LoRA (video-to-video)",
    distilled=True,
    needs=(DISTILLED_CHECKPOINT, SPATIAL_UPSAMPLER),
    multiple=64,
    feeds="the reference video of its trainer sample (--video-conditioning)",
)
A2V = PipelineMode(
    "a2v",
    "ltx_pipelines.a2vid_two_stage",
    "audio-to-video",
    needs=(DISTILLED_LORA, SPATIAL_UPSAMPLER),
    multiple=64,
    feeds="the audio of its trainer sample (--audio-path)",
)
T2A = PipelineMode("t2a", "ltx_pipelines.t2a_one_stage", "text-to-audio", ext="wav", video=False)
MODES = (T2V, I2V, IC_LORA, A2V, T2A)

# Conditions no entry point's command line can take, in words.
_NO_PIPELINE = {
    "prefix": "a prefix to extend (video or audio extension)",
    "suffix": "a suffix to extend (video or audio extension)",
    "mask": "a mask to inpaint",
    "spatial_crop": "a crop to outpaint",
    "video_to_audio": "a video to generate the sound of (video-to-audio)",
    "reference_audio": "an audio reference (an audio IC-LoRA)",
}


def _kinds(conditions: list[dict[str, Any]]) -> set[str]:
    kinds = set()
    for cond in conditions:
        kind = str(cond.get("type", ""))
        kinds.add("reference_audio" if kind == "reference" and cond.get("audio") else kind)
    return kinds


def _generates_video(strategy: Mapping[str, Any]) -> bool:
    name = strategy.get("name", "text_to_video")
    if name != "flexible":
        return True  # the legacy strategies generate video (ltx_trainer/training_strategies)
    video = strategy.get("video")
    return isinstance(video, Mapping) and bool(video.get("is_generated"))


def mode_for(config: Mapping[str, Any]) -> PipelineMode | str:
    """The run's production pipeline, or why there is none (one line)."""
    strategy = trainer_config(config).training_strategy or {}
    # the run's own validation conditions, else what its strategy trains with (a config planned
    # without validation media still trains its mode: strategy_conditions.py)
    kinds = _kinds(run_conditions(config)) | strategy_kinds(config)
    blocked = [words for kind, words in _NO_PIPELINE.items() if kind in kinds]
    if blocked:
        return (
            f"the run validates with {blocked[0]}, which no ltx-pipelines entry point takes "
            "on its command line"
        )
    if not _generates_video(strategy):
        return T2A
    if "reference" in kinds:
        return IC_LORA
    if "audio_to_video" in kinds:
        return A2V
    return I2V if "first_frame" in kinds else T2V
