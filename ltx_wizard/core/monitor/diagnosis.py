"""Why the run failed, the trainer team's advice for that kind of failure, and one proposed fix.

The cause comes from the trial classifier (autotune/failure_cause.py) fed by the monitor's log
reader. The advice and the order of the fixes follow the train-model skill's
references/troubleshooting.md (cheapest first: OOM in a training step, OOM while generating
validation samples, NaN loss, config validation error, missing files); the proposed change is the
first one in that order the config does not already have. Nothing here writes: the screen applies
a change only after the user confirms it, and never restarts the run by itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from ltx_wizard.core.monitor.run_config import value
from ltx_wizard.core.monitor.run_log import Attempt

Kind = Literal["oom", "oom_validation", "nan", "config", "missing_file", "data", "no_cuda",
               "crash"]

ADVICE: dict[str, list[str]] = {
    "oom": ["enable_gradient_checkpointing", "batch_size 1 with more gradient_accumulation_steps",
            "optimizer adamw8bit", "quantization int8-quanto", "a smaller lora.rank",
            "a lower resolution (re-preprocess the dataset)"],
    "oom_validation": ["acceleration.load_text_encoder_in_8bit", "acceleration."
                       "offload_optimizer_during_validation", "smaller validation.video_dims",
                       "fewer validation.inference_steps", "a longer validation.interval"],
    "nan": ["mixed_precision_mode bf16 (not fp16)", "check the latents with "
            "scripts/decode_latents.py", "learning_rate 5x lower", "max_grad_norm 1.0",
            "quantization off"],
    "config": ["the error names the field and its path: fix that key in config.yaml (a typo "
               "fails loudly: the schema forbids unknown keys)"],
    "missing_file": ["check the path the error names: model_path, text_encoder_path (the Gemma "
                     "folder itself), preprocessed_data_root and its latents folders, validation "
                     "media"],
    "data": ["the dataset holds fewer samples than batch_size x GPUs: lower the batch size or add "
             "samples"],
    "no_cuda": ["the trainer saw no CUDA GPU: check that `nvidia-smi` lists the GPUs and that "
                "CUDA_VISIBLE_DEVICES is not empty", "check that the trainer's environment has a "
                "CUDA build of torch: `uv run python -c 'import torch; "
                "print(torch.cuda.is_available())'` in packages/ltx-trainer"],
    "crash": ["read the traceback in the log tail; the trainer's docs/troubleshooting.md covers "
              "the common ones"],
}


# A trainer that finds no CUDA device stops with one of these. gemma_8bit.py
# quantize_gemma_to_8bit: "8-bit Gemma quantization requires a CUDA device, got cpu" (recorded:
# tests/data/trainer_logs/real_gemma_8bit_on_cpu_cols250.txt); the others are torch's own.
NO_CUDA = ("requires a CUDA device", "Torch not compiled with CUDA enabled",
           "No CUDA GPUs are available", "Found no NVIDIA driver")


@dataclass
class Diagnosis:
    kind: Kind
    cause: str
    advice: list[str]
    changes: dict[str, object] = field(default_factory=dict)  # the proposed config fix

    def as_dict(self) -> dict:
        return {"kind": self.kind, "cause": self.cause, "advice": self.advice,
                "changes": self.changes}


def diagnose(attempt: Attempt, config: dict, *, exited: bool) -> Diagnosis | None:
    """The failure of this attempt (NaN also while it still runs: the trainer does not stop)."""
    cause = attempt.cause
    kind: Kind | None = None
    text = ""
    if cause.config:
        kind, text = "config", cause.config
    elif cause.missing_config:
        kind, text = "missing_file", cause.missing_config
    elif cause.ooms:
        kind = "oom_validation" if attempt.oom_in_validation else "oom"
        text = cause.oom()
    elif cause.stop_iteration:
        kind, text = "data", cause.stop_iteration
    elif attempt.nan_step is not None:
        kind, text = "nan", f"the loss is NaN from step {attempt.nan_step}"
    elif exited and cause.crash():
        text = cause.crash() or ""
        kind = ("missing_file" if "FileNotFoundError" in text or "No such file" in text
                else "no_cuda" if any(m in text for m in NO_CUDA) else "crash")
    if kind is None:
        return None
    return Diagnosis(kind, text, ADVICE[kind], proposed_changes(kind, config))


def _oom_train(config: dict) -> dict[str, object]:
    if not value(config, "optimization.enable_gradient_checkpointing", False):
        return {"optimization.enable_gradient_checkpointing": True}
    batch = int(value(config, "optimization.batch_size", 1) or 1)
    if batch > 1:
        accumulation = int(value(config, "optimization.gradient_accumulation_steps", 1) or 1)
        return {"optimization.batch_size": 1,
                "optimization.gradient_accumulation_steps": accumulation * batch}
    if value(config, "optimization.optimizer_type", "adamw") != "adamw8bit":
        return {"optimization.optimizer_type": "adamw8bit"}
    if not value(config, "acceleration.quantization"):
        return {"acceleration.quantization": "int8-quanto"}
    return {}


def _smaller_dims(dims: object) -> list[int] | None:
    """validation.video_dims with width and height halved (kept multiples of 32, frames kept)."""
    if not isinstance(dims, (list, tuple)) or len(dims) != 3:
        return None
    width, height, frames = (int(x) for x in dims)
    half = [max(32, (width // 2) // 32 * 32), max(32, (height // 2) // 32 * 32), frames]
    return half if half[:2] != [width, height] else None


def _oom_validation(config: dict) -> dict[str, object]:
    if not value(config, "acceleration.load_text_encoder_in_8bit", False):
        return {"acceleration.load_text_encoder_in_8bit": True}
    if not value(config, "acceleration.offload_optimizer_during_validation", False):
        return {"acceleration.offload_optimizer_during_validation": True}
    dims = _smaller_dims(value(config, "validation.video_dims"))
    return {"validation.video_dims": dims} if dims else {}


def _nan(config: dict) -> dict[str, object]:
    if value(config, "acceleration.mixed_precision_mode") == "fp16":
        return {"acceleration.mixed_precision_mode": "bf16"}
    lr = value(config, "optimization.learning_rate")
    return {"optimization.learning_rate": float(f"{float(lr) / 5:.3g}")} if lr else {}


def proposed_changes(kind: str, config: dict) -> dict[str, object]:
    if kind == "oom":
        return _oom_train(config)
    if kind == "oom_validation":
        return _oom_validation(config)
    if kind == "nan":
        return _nan(config)
    return {}
