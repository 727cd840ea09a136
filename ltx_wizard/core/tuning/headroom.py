"""Will the next trial fit? A memory model from the checkpoint header and the best measured peak.

Per GPU, counting what the trainer allocates (ltx_trainer/trainer.py):

* weights: the transformer is built in bf16, and stays bf16 for LoRA (`_load_models`): 2 bytes
  per parameter, or int8/fp8 1, int4 0.5, int2 0.25 when quantized. A full fine-tune casts it to
  fp32 (4 bytes); so does FSDP with LoRA (`_prepare_models_for_training`: uniform dtype).
* trainable parameters: LoRA adds rank x (in + out) per targeted linear layer (`_setup_lora`:
  peft LoraConfig with the config's `lora.target_modules`), counted from the header's actual
  tensor shapes (about 6.7 M per unit of rank on LTX-2 19B with the default targets). PEFT keeps
  them in fp32 (4 bytes), plus fp32 gradients (4) and the optimizer's state: AdamW two fp32
  moments (8), 8-bit AdamW (bitsandbytes AdamW8bit, blockwise) two 1-byte moments (2). A full
  fine-tune trains every transformer parameter: fp32 gradients + optimizer state on top of its
  fp32 weights. So LoRA costs 16 bytes per trainable parameter with AdamW, 10 with AdamW 8-bit.
* DDP (LoRA on several GPUs) keeps a second copy of the gradients in its reducer buckets
  (torch's default gradient_as_bucket_view=False): 4 more bytes per trainable parameter.
* FSDP (full fine-tune on several GPUs, fsdp.yaml FULL_SHARD) shards weights, gradients and
  optimizer state across the N GPUs: each holds 1/N.
* text connectors: the embeddings processor stays on the GPU beside the transformer (bf16).
* overhead: 2.5 GB of CUDA context and allocator slack.
* activations: what the best trial's measured peak leaves after the above. They scale with the
  batch size; gradient checkpointing off keeps every block's activations, counted as 5x.

Two figures come out. The *extrapolation* is the measured peak plus the change's extra memory. It
is an upper estimate: a peak read through NVML includes what PyTorch's caching allocator keeps
reserved, tens of GB on a big card, so it overstates what the config needs. The *floor* is what
the proposed config needs at the very least: the items above, exact from the header, plus the
activations it provably adds (none are provable from outside the process). A trial is skipped only
when its floor exceeds 97 % of the smallest GPU (the 3 % margin covers allocator fragmentation):
it cannot fit. When only the extrapolation exceeds it, the trial runs and the reason says it is
tight; an OOM then costs seconds, because the engine stops the trial at the OOM line.

Public API (used by schedule.py and the engine; easy to call from elsewhere):

* `model_size(checkpoint_info, target_modules)` -> ModelSize, once per run from the header that
  inspect_checkpoint already read (no file access);
* `floor(settings, model, num_gpus)` -> Floor, the per-GPU breakdown (`.total_gb`, `.describe()`);
* `predict(current, proposed, best_peak_gb, gpu_total_gb, transformer_params, model=, num_gpus=)`
  -> Fit, the skip/run verdict with its reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable, Sequence

from ltx_wizard.core.gpu.tiers import launch_style
from ltx_wizard.core.base.units import GIB, gib

if TYPE_CHECKING:
    from ltx_wizard.core.inputs.checkpoint import CheckpointInfo

GB = GIB  # every size here is GiB (units.py), as the trainer's allocator counts
DEFAULT_TRANSFORMER_PARAMS = 22e9
BYTES_PER_WEIGHT = {
    None: 2.0,
    "int8-quanto": 1.0,
    "fp8-quanto": 1.0,
    "fp8uz-quanto": 1.0,
    "int4-quanto": 0.5,
    "int2-quanto": 0.25,
}
FP32 = 4.0
OPTIMIZER_BYTES = {"adamw": 8.0, "adamw8bit": 2.0}
# Used only when the header has no linear layers to count: LTX-2 19B, default targets
# (48 blocks x six attention modules x four projections).
LORA_PARAMS_PER_RANK_19B = 6.7e6
DEFAULT_TARGET_MODULES = ("to_k", "to_q", "to_v", "to_out.0")  # LoraConfig.target_modules default
OVERHEAD_GB = 2.5
CHECKPOINTING_OFF_FACTOR = 5.0
FIT_FRACTION = 0.97


def targets(name: str, target_modules: Iterable[str]) -> bool:
    """mirrors peft tuners_utils check_target_module_exists for a list of names: the module's
    full name equals an entry or ends with "." + the entry."""
    return any(name == t or name.endswith("." + t) for t in target_modules)


def lora_params_per_rank(linears: Iterable[tuple[str, int, int]], target_modules: Iterable[str]) -> int:
    """LoRA parameters per unit of rank: A (rank x in) + B (out x rank) per targeted linear."""
    wanted = tuple(target_modules)
    return sum(out_f + in_f for name, out_f, in_f in linears if targets(name, wanted))


@dataclass(frozen=True)
class ModelSize:
    """What the memory model needs from the checkpoint header."""

    transformer_params: float
    lora_params_per_rank: float
    embeddings_params: float = 0.0  # text connectors, on the GPU beside the transformer

    @classmethod
    def estimate(cls, transformer_params: float | None = None) -> "ModelSize":
        """Without a header: scale the 19B figures."""
        params = transformer_params or DEFAULT_TRANSFORMER_PARAMS
        return cls(params, LORA_PARAMS_PER_RANK_19B * params / 19e9)


def model_size(ckpt: CheckpointInfo, target_modules: Sequence[str] | None = None) -> ModelSize:
    """From an inspected checkpoint (checkpoint.CheckpointInfo) and the config's target_modules."""
    wanted = DEFAULT_TARGET_MODULES if target_modules is None else tuple(target_modules)
    linears = getattr(ckpt, "linears", ())
    params = float(ckpt.transformer_param_count) or DEFAULT_TRANSFORMER_PARAMS
    if not linears:
        return ModelSize.estimate(params)
    return ModelSize(
        params,
        float(lora_params_per_rank(linears, wanted)),
        float(getattr(ckpt, "embeddings_param_count", 0)),
    )


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


@dataclass(frozen=True)
class Floor:
    """Per-GPU memory that does not grow with the batch, in GB (GiB), by item."""

    weights_gb: float
    trainable_gb: float  # LoRA weights (full FT: none; its weights are the weights above)
    grads_gb: float
    optimizer_gb: float
    ddp_buckets_gb: float
    embeddings_gb: float
    overhead_gb: float
    shards: int

    @property
    def total_gb(self) -> float:
        return (
            self.weights_gb
            + self.trainable_gb
            + self.grads_gb
            + self.optimizer_gb
            + self.ddp_buckets_gb
            + self.embeddings_gb
            + self.overhead_gb
        )

    def describe(self) -> str:
        parts = [f"weights {self.weights_gb:.1f}"]
        if self.trainable_gb:
            parts.append(f"LoRA fp32 {self.trainable_gb:.1f}")
        parts += [f"grads {self.grads_gb:.1f}", f"optimizer states {self.optimizer_gb:.1f}"]
        if self.ddp_buckets_gb:
            parts.append(f"DDP buckets {self.ddp_buckets_gb:.1f}")
        if self.embeddings_gb:
            parts.append(f"text connectors {self.embeddings_gb:.1f}")
        parts.append(f"overhead {self.overhead_gb:.1f}")
        shard = f", sharded over {self.shards} GPUs" if self.shards > 1 else ""
        return " + ".join(parts) + shard


def trainable_params(settings: TrainSettings, model: ModelSize) -> float:
    if settings.training_mode == "full":
        return model.transformer_params
    return settings.lora_rank * model.lora_params_per_rank


def floor(settings: TrainSettings, model: ModelSize, num_gpus: int = 1) -> Floor:
    style = launch_style(num_gpus, settings.training_mode)
    shards = max(num_gpus, 1) if style == "fsdp" else 1
    params = model.transformer_params
    trained = trainable_params(settings, model)
    full = settings.training_mode == "full"
    if full or style == "fsdp":
        weights = params * FP32  # full FT casts to fp32; FSDP+LoRA casts the base to fp32 too
    else:
        weights = params * BYTES_PER_WEIGHT.get(settings.quantization, 1.0)
    lora = 0.0 if full else trained * FP32
    grads = trained * FP32
    states = trained * OPTIMIZER_BYTES.get(settings.optimizer_type, 8.0)
    buckets = trained * FP32 if style == "ddp" else 0.0
    return Floor(
        weights / shards / GB,
        lora / shards / GB,
        grads / shards / GB,
        states / shards / GB,
        buckets / GB,
        model.embeddings_params * 2.0 / GB,
        OVERHEAD_GB,
        shards,
    )


def _model(transformer_params: float | None, model: ModelSize | None) -> ModelSize:
    return model if model is not None else ModelSize.estimate(transformer_params)


def static_gb(
    settings: TrainSettings,
    transformer_params: float | None = None,
    *,
    model: ModelSize | None = None,
    num_gpus: int = 1,
) -> float:
    """The floor's total: memory that does not grow with the batch."""
    return floor(settings, _model(transformer_params, model), num_gpus).total_gb


def activations_gb(settings: TrainSettings, peak_gb: float, model: ModelSize, num_gpus: int = 1) -> float:
    return max(peak_gb - floor(settings, model, num_gpus).total_gb, 0.2 * peak_gb)


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
    transformer_params: float | None = None,
    *,
    model: ModelSize | None = None,
    num_gpus: int = 1,
) -> Fit:
    """Can `proposed` fit on each of `num_gpus` GPUs, given the measured peak of `current`?"""
    if gpu_total_gb is None:
        return Fit(True, None, None, None, "GPU memory unknown; trying it")
    size = _model(transformer_params, model)
    limit = gpu_total_gb * FIT_FRACTION
    need = floor(proposed, size, num_gpus)
    where = f"{gib(limit)} ({FIT_FRACTION:.0%} of {gib(gpu_total_gb)})"
    if need.total_gb > limit:
        return Fit(
            False,
            None,
            need.total_gb,
            None,
            f"needs at least {gib(need.total_gb)} ({need.describe()}) > {where}",
        )
    if best_peak_gb is None:
        return Fit(
            True,
            None,
            need.total_gb,
            None,
            f"needs at least {gib(need.total_gb)} of {where}; no measured peak to extrapolate from",
        )
    act = activations_gb(current, best_peak_gb, size, num_gpus)
    act_new = act * proposed.batch_size / max(current.batch_size, 1)
    if current.gradient_checkpointing and not proposed.gradient_checkpointing:
        act_new *= CHECKPOINTING_OFF_FACTOR
    extra = need.total_gb - floor(current, size, num_gpus).total_gb + act_new - act
    predicted = best_peak_gb + extra
    verdict = (
        "fits" if predicted <= limit else "tight: the measured peak includes allocator cache, so trying it"
    )
    return Fit(
        True,
        predicted,
        need.total_gb,
        extra,
        f"floor {gib(need.total_gb)}, extrapolated {gib(predicted)} (measured "
        f"{best_peak_gb:.1f} {extra:+.1f}) of {where}: {verdict}",
    )


def fewest_gpus(settings: TrainSettings, model: ModelSize, gpu_total_gb: float, most: int = 64) -> int | None:
    """The fewest GPUs on which the floor fits (only a full fine-tune shards: FSDP)."""
    for n in range(1, most + 1):
        if floor(settings, model, n).total_gb <= gpu_total_gb * FIT_FRACTION:
            return n
        if settings.training_mode != "full" and n >= 2:
            return None  # DDP copies everything to every GPU: more GPUs never help
    return None


def plan_floor(
    settings: TrainSettings, model: ModelSize, num_gpus: int, gpu_total_gb: float | None
) -> tuple[str, str | None]:
    """plan.md's line for the planned config's floor, and a warning when it cannot fit."""
    need = floor(settings, model, num_gpus)
    line = (
        f"GPU memory floor of the planned config: {gib(need.total_gb)} per GPU "
        f"({need.describe()}), before activations"
    )
    if gpu_total_gb is None:
        return line + "; GPU memory unknown.", None
    line += f"; each GPU has {gib(gpu_total_gb)}."
    if need.total_gb <= gpu_total_gb * FIT_FRACTION:
        return line, None
    warning = (
        f"the planned config needs at least {gib(need.total_gb)} per GPU "
        f"({need.describe()}) but each GPU has {gib(gpu_total_gb)}: it will run out of memory"
    )
    fewest = fewest_gpus(settings, model, gpu_total_gb)
    if settings.training_mode == "full" and fewest is not None:
        warning += f"; a full fine-tune of this checkpoint needs at least {fewest} such GPUs"
    elif settings.training_mode == "full":
        warning += "; train a LoRA instead"
    return line, warning
