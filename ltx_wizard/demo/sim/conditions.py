"""The conditions of the simulated schema: training conditions of a `flexible` modality and the
conditions of a validation sample, with the trainer's field names and discriminators."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator


class Strict(BaseModel):
    # mirrors ltx_trainer/config.py ConfigBaseModel (extra="forbid")
    model_config = ConfigDict(extra="forbid")


# The training conditions of a modality: mirrors ltx_trainer/training_strategies/flexible.py
# (FirstFrameConditionConfig ... ReferenceConditionConfig, discriminated by `type`).
class _TrainCondition(Strict):
    probability: float = Field(1.0, ge=0.0, le=1.0)


class FirstFrameCondition(_TrainCondition):
    type: Literal["first_frame"] = "first_frame"


class PrefixCondition(_TrainCondition):
    type: Literal["prefix"] = "prefix"
    temporal_boundary: int = Field(..., ge=1)


class SuffixCondition(_TrainCondition):
    type: Literal["suffix"] = "suffix"
    temporal_boundary: int = Field(..., ge=1)


class SpatialCropCondition(_TrainCondition):
    type: Literal["spatial_crop"] = "spatial_crop"
    spatial_region: tuple[int, int, int, int]


class MaskCondition(_TrainCondition):
    type: Literal["mask"] = "mask"
    mask_dir: str


class ReferenceCondition(Strict):  # not intrinsic: its own field order, as in flexible.py
    type: Literal["reference"] = "reference"
    latents_dir: str
    probability: float = Field(1.0, ge=0.0, le=1.0)


TrainCondition = Annotated[
    FirstFrameCondition
    | PrefixCondition
    | SuffixCondition
    | SpatialCropCondition
    | MaskCondition
    | ReferenceCondition,
    Field(discriminator="type"),
]


# Validation conditions: mirrors ltx_trainer/config.py (the ValidationCondition union); media
# paths are read when the trainer starts (core/validation/validation_media.py slot_problems).
class _OneModality(Strict):
    # mirrors the trainer's validate_exactly_one_modality (prefix, suffix, mask, reference)
    if TYPE_CHECKING:  # each condition declares its own fields
        video: str | None
        audio: str | None
        type: str

    @model_validator(mode="after")
    def _exactly_one(self) -> "_OneModality":
        video, audio = self.video, self.audio
        if (video is None) == (audio is None):
            raise ValueError(f"Exactly one of 'video' or 'audio' must be set for {self.type} condition")
        return self


class ValFirstFrame(Strict):
    type: Literal["first_frame"] = "first_frame"
    image_or_video: str


class ValPrefix(_OneModality):
    type: Literal["prefix"] = "prefix"
    video: str | None = None
    audio: str | None = None
    num_frames: int | None = Field(None, ge=1)
    duration: float | None = Field(None, gt=0)


class ValSuffix(_OneModality):
    type: Literal["suffix"] = "suffix"
    video: str | None = None
    audio: str | None = None
    num_frames: int | None = Field(None, ge=1)
    duration: float | None = Field(None, gt=0)


class ValSpatialCrop(Strict):
    type: Literal["spatial_crop"] = "spatial_crop"
    video: str
    spatial_region: tuple[int, int, int, int]


class ValMask(_OneModality):
    type: Literal["mask"] = "mask"
    video: str | None = None
    audio: str | None = None
    mask: str


class ValReference(_OneModality):
    type: Literal["reference"] = "reference"
    video: str | None = None
    audio: str | None = None
    downscale_factor: int = Field(1, ge=1)
    temporal_scale_factor: int = Field(1, ge=1)
    include_in_output: bool = False


class ValVideoToAudio(Strict):
    type: Literal["video_to_audio"] = "video_to_audio"
    video: str


class ValAudioToVideo(Strict):
    type: Literal["audio_to_video"] = "audio_to_video"
    audio: str


ValidationCondition = Annotated[
    ValFirstFrame
    | ValPrefix
    | ValSuffix
    | ValSpatialCrop
    | ValMask
    | ValReference
    | ValVideoToAudio
    | ValAudioToVideo,
    Field(discriminator="type"),
]


# Field names per condition type, read off the models above (tests/core/tuning/test_schema_keys.py pins them).
SECTIONS: dict[str, type[BaseModel]] = {
    "condition[first_frame]": FirstFrameCondition,
    "condition[prefix]": PrefixCondition,
    "condition[suffix]": SuffixCondition,
    "condition[spatial_crop]": SpatialCropCondition,
    "condition[mask]": MaskCondition,
    "condition[reference]": ReferenceCondition,
    "validation.condition[first_frame]": ValFirstFrame,
    "validation.condition[prefix]": ValPrefix,
    "validation.condition[suffix]": ValSuffix,
    "validation.condition[spatial_crop]": ValSpatialCrop,
    "validation.condition[mask]": ValMask,
    "validation.condition[reference]": ValReference,
    "validation.condition[video_to_audio]": ValVideoToAudio,
    "validation.condition[audio_to_video]": ValAudioToVideo,
}
