"""Will the next trial fit? A memory model from the checkpoint header and the best measured peak.

Per GPU (every DDP rank holds the whole model and batch):

* weights: transformer parameters (from the checkpoint header) x bytes per weight (bf16 2,
  int8/fp8 1, int4 0.5, int2 0.25); dropping int8 quantization adds one byte per parameter.
* optimizer states for the trainable parameters: AdamW keeps two fp32 moments (8 bytes per
  parameter), 8-bit AdamW about 2. LoRA trains about `rank x 3.5e6` parameters per 22e9 transformer
  parameters (all attention projections of every block); a full fine-tune trains all of them.
* overhead: 2.5 GB of CUDA context, allocator slack and LoRA weights.
* activations: what the best trial's measured peak leaves after the three above. They scale with
  the batch size; gradient checkpointing off keeps every block's activations, counted as 5x.

Two figures come out. The *extrapolation* is the measured peak plus the change's extra memory. It
is an upper estimate: a peak read through NVML includes what PyTorch's caching allocator keeps
reserved, tens of GB on a big card, so it overstates what the config needs. The *floor* is what
the proposed config needs at the very least: its weights, optimizer states and overhead, exact
from the header, plus the activations it provably adds (none are provable from outside the
process). A trial is skipped only when its floor exceeds 97 % of the smallest GPU (the 3 % margin
covers allocator fragmentation): it cannot fit. When only the extrapolation exceeds it, the trial
runs and the reason says it is tight; an OOM then costs seconds, because the engine stops the
trial at the OOM line.
"""

from __future__ import annotations

from dataclasses import dataclass

GB = 1024**3
DEFAULT_TRANSFORMER_PARAMS = 22e9
BYTES_PER_WEIGHT = {
    None: 2.0,
    "int8-quanto": 1.0,
    "fp8-quanto": 1.0,
    "fp8uz-quanto": 1.0,
    "int4-quanto": 0.5,
    "int2-quanto": 0.25,
}
OPTIMIZER_BYTES = {"adamw": 8.0, "adamw8bit": 2.0}
LORA_PARAMS_PER_RANK_22B = 3.5e6
OVERHEAD_GB = 2.5
CHECKPOINTING_OFF_FACTOR = 5.0
FIT_FRACTION = 0.97


@dataclass(frozen=True)
class TrainSettings:
    """The config values the autotune levers touch."""

    quantization: str | None
    optimizer_type: str
    batch_size: int
    gradient_accumulation_steps: int
    gradient_checkpointing: bool
    training_mode: str = "lora"
    lora_rank: int = 16

    def with_changes(self, changes: dict[str, object]) -> "TrainSettings":
        fields = dict(self.__dict__)
        mapping = {
            "acceleration.quantization": "quantization",
            "optimization.optimizer_type": "optimizer_type",
            "optimization.batch_size": "batch_size",
            "optimization.gradient_accumulation_steps": "gradient_accumulation_steps",
            "optimization.enable_gradient_checkpointing": "gradient_checkpointing",
        }
        for key, value in changes.items():
            if key in mapping:
                fields[mapping[key]] = value
        return TrainSettings(**fields)


def trainable_params(settings: TrainSettings, transformer_params: float) -> float:
    if settings.training_mode == "full":
        return transformer_params
    scale = transformer_params / DEFAULT_TRANSFORMER_PARAMS
    return settings.lora_rank * LORA_PARAMS_PER_RANK_22B * scale


def static_gb(settings: TrainSettings, transformer_params: float) -> float:
    """Weights + optimizer states + overhead: memory that does not grow with the batch."""
    weights = transformer_params * BYTES_PER_WEIGHT.get(settings.quantization, 1.0)
    states = trainable_params(settings, transformer_params) * OPTIMIZER_BYTES.get(
        settings.optimizer_type, 8.0
    )
    return (weights + states) / GB + OVERHEAD_GB


def activations_gb(settings: TrainSettings, peak_gb: float, transformer_params: float) -> float:
    return max(peak_gb - static_gb(settings, transformer_params), 0.2 * peak_gb)


@dataclass(frozen=True)
class Fit:
    fits: bool
    predicted_gb: float | None  # extrapolated from the measured peak (an upper estimate)
    floor_gb: float | None  # the least the proposed config needs
    extra_gb: float | None
    reason: str


def predict(
    current: TrainSettings,
    proposed: TrainSettings,
    best_peak_gb: float | None,
    gpu_total_gb: float | None,
    transformer_params: float | None,
) -> Fit:
    """Can `proposed` fit, given the measured peak of `current`?"""
    if gpu_total_gb is None:
        return Fit(True, None, None, None, "GPU memory unknown; trying it")
    params = transformer_params or DEFAULT_TRANSFORMER_PARAMS
    limit = gpu_total_gb * FIT_FRACTION
    floor = static_gb(proposed, params)
    weights = params * BYTES_PER_WEIGHT.get(proposed.quantization, 1.0) / GB
    states = trainable_params(proposed, params) * OPTIMIZER_BYTES.get(proposed.optimizer_type, 8.0) / GB
    where = f"{limit:.1f} GB ({FIT_FRACTION:.0%} of {gpu_total_gb:.1f} GB)"
    if floor > limit:
        return Fit(False, None, floor, None,
                   f"needs at least {floor:.1f} GB (weights {weights:.1f} + optimizer states "
                   f"{states:.1f} + overhead {OVERHEAD_GB:.1f}) > {where}")
    if best_peak_gb is None:
        return Fit(True, None, floor, None,
                   f"needs at least {floor:.1f} GB of {where}; no measured peak to extrapolate from")
    act = activations_gb(current, best_peak_gb, params)
    act_new = act * proposed.batch_size / max(current.batch_size, 1)
    if current.gradient_checkpointing and not proposed.gradient_checkpointing:
        act_new *= CHECKPOINTING_OFF_FACTOR
    extra = static_gb(proposed, params) - static_gb(current, params) + act_new - act
    predicted = best_peak_gb + extra
    verdict = "fits" if predicted <= limit else "tight: the measured peak includes allocator cache, so trying it"
    return Fit(True, predicted, floor, extra,
               f"floor {floor:.1f} GB, extrapolated {predicted:.1f} GB (measured {best_peak_gb:.1f} "
               f"{extra:+.1f}) of {where}: {verdict}")
