"""Why the run failed, the trainer team's advice for that kind of failure, and one proposed fix.

The cause comes from the failure classifier (trainer_output/failure_cause.py), fed by the
monitor's log reader. The advice and the order of the fixes follow the train-model skill's
references/troubleshooting.md (cheapest first: OOM in a training step, OOM while generating
validation samples, NaN loss, config validation error, missing files); the proposed change is the
first one in that order the config does not already have. Nothing here writes: the screen applies
a change only after the user confirms it, and never restarts the run by itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Literal

from ltx_wizard.core.io.trainer_config import TrainerConfig
from ltx_wizard.core.monitor.run_config import config_view
from ltx_wizard.core.monitor.run_log import Attempt

Kind = Literal[
    "oom",
    "oom_validation",
    "nan",
    "config",
    "missing_file",
    "data",
    "no_cuda",
    "crash",
    "not_encoded",
    "launch",
]

ADVICE: dict[str, list[str]] = {  # the OOM kinds: OOM_REMEDIES, VALIDATION_REMEDIES
    "nan": [
        "mixed_precision_mode bf16 (not fp16)",
        "check the latents with scripts/decode_latents.py",
        "learning_rate 5x lower",
        "max_grad_norm 1.0",
        "quantization off",
    ],
    "config": [
        "the error names the field and its path: fix that key in config.yaml (a typo "
        "fails loudly: the schema forbids unknown keys)"
    ],
    "missing_file": [
        "check the path the error names: model_path, text_encoder_path (the Gemma "
        "folder itself), preprocessed_data_root and its latents folders, validation "
        "media"
    ],
    "data": ["the dataset holds fewer samples than batch_size x GPUs: lower the batch size or add samples"],
    "no_cuda": [
        "the trainer saw no CUDA GPU: check that `nvidia-smi` lists the GPUs and that "
        "CUDA_VISIBLE_DEVICES is not empty",
        "check that the trainer's environment has a "
        "CUDA build of torch: `uv run python -c 'import torch; "
        "print(torch.cuda.is_available())'` in packages/ltx-trainer",
    ],
    "launch": [
        "launch.sh stopped before the trainer's first line: fix what its line names (a command "
        "not on PATH: install it, uv with `ltx-wizard setup`; a folder that is gone: plan the "
        "run again), then run launch.sh again"
    ],
    "crash": [
        "read the traceback in the log tail; the trainer's docs/troubleshooting.md covers the common ones"
    ],
}


# A trainer that finds no CUDA device stops with one of these. gemma_8bit.py
# quantize_gemma_to_8bit: "8-bit Gemma quantization requires a CUDA device, got cpu" (recorded:
# tests/data/trainer_logs/real_gemma_8bit_on_cpu_cols250.txt); the others are torch's own.
NO_CUDA = (
    "requires a CUDA device",
    "Torch not compiled with CUDA enabled",
    "No CUDA GPUs are available",
    "Found no NVIDIA driver",
)


@dataclass
class Diagnosis:
    kind: Kind
    cause: str
    advice: list[str]
    changes: dict[str, object] = field(default_factory=dict)  # the proposed config fix

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "cause": self.cause, "advice": self.advice, "changes": self.changes}


# What a run planned from clips but never preprocessed fails with, whatever the trainer named
# (its schema's data root check, a missing latents folder, no valid sample, an empty loader):
# the run's state says why, so the advice is the step left, not the key the error names.
NOT_ENCODED_KINDS = ("config", "missing_file", "data", "crash")


def not_encoded(diagnosis: Diagnosis | None, pending: str | None) -> Diagnosis | None:
    """`pending`: the preprocess command the run still needs (its preprocess.json says the
    data root was never written), else None."""
    if diagnosis is None or pending is None or diagnosis.kind not in NOT_ENCODED_KINDS:
        return diagnosis
    return Diagnosis(
        "not_encoded",
        diagnosis.cause,
        [
            f"the clips were never preprocessed into the data root this config reads: run "
            f"`{pending}`, then start training again (config.yaml needs no change)"
        ],
    )


def launch_cause(line: str) -> str:
    """bash's line, said as what it means for the run."""
    m = re.fullmatch(r"exec: (.{1,300}): not found", line)
    if m:
        return f"launch.sh could not start the trainer: `{m.group(1)}` is not on its PATH ({line})"
    return f"launch.sh stopped before the trainer started: {line}"


def diagnose(attempt: Attempt, config: dict[str, Any], *, exited: bool) -> Diagnosis | None:
    """The failure of this attempt (NaN also while it still runs: the trainer does not stop)."""
    cause = attempt.cause
    kind: Kind | None = None
    text = ""
    if exited and attempt.launch_error is not None and attempt.last_step < 0:
        kind, text = "launch", launch_cause(attempt.launch_error)
    elif cause.config:
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
        kind = (
            "missing_file"
            if "FileNotFoundError" in text or "No such file" in text
            else "no_cuda"
            if any(m in text for m in NO_CUDA)
            else "crash"
        )
    if kind is None:
        return None
    advice, changes = advice_and_changes(kind, config)
    return Diagnosis(kind, text, advice, changes)


# The OOM-in-a-training-step remedies of the skill's troubleshooting.md, cheapest first: what
# each looks like once in config.yaml, and the change that applies it (None: not a config edit).
# The advice names the ones config.yaml has already, then the ones left; the proposed change is
# the first one left that is a config edit.
Remedy = tuple[
    Callable[[TrainerConfig], str],
    Callable[[TrainerConfig], bool],
    Callable[[TrainerConfig], "dict[str, object] | None"],
]


def _batch(config: TrainerConfig) -> int:
    return config.optimization.batch_size or 1


def _rank(config: TrainerConfig) -> int | None:
    """lora.rank of a LoRA run (None for a full fine-tune or an unreadable rank)."""
    if (config.model.training_mode or "lora") != "lora":
        return None
    return config.lora.rank


def _rank_at_floor(config: TrainerConfig) -> bool:
    rank = _rank(config)
    return rank is None or rank <= MIN_RANK


def _smaller_rank(config: TrainerConfig) -> dict[str, object] | None:
    rank = _rank(config)
    if rank is None or rank <= MIN_RANK:
        return None
    new = max(MIN_RANK, rank // 2)
    alpha = config.lora.alpha
    change: dict[str, object] = {"lora.rank": new}
    if alpha is not None:  # "alpha follows rank": the same ratio
        change["lora.alpha"] = max(1, alpha * new // rank)
    return change


MIN_RANK = 8  # troubleshooting.md: "Reduce lora.rank (32 → 16 → 8)"


def _rank_label(config: TrainerConfig) -> str:
    change = _smaller_rank(config)
    if not change:
        return f"a smaller lora.rank (32 → 16 → {MIN_RANK}; alpha follows)"
    alpha = f", lora.alpha {config.lora.alpha} → {change['lora.alpha']}" if "lora.alpha" in change else ""
    return f"lora.rank {_rank(config)} → {change['lora.rank']}{alpha}"


OOM_REMEDIES: list[Remedy] = [
    (
        lambda c: "gradient checkpointing on",
        lambda c: c.optimization.enable_gradient_checkpointing is True,
        lambda c: {"optimization.enable_gradient_checkpointing": True},
    ),
    (
        lambda c: "batch_size 1 (more accumulation keeps the effective batch)",
        lambda c: _batch(c) <= 1,
        lambda c: {
            "optimization.batch_size": 1,
            "optimization.gradient_accumulation_steps": (c.optimization.gradient_accumulation_steps or 1)
            * _batch(c),
        },
    ),
    (
        lambda c: "optimizer adamw8bit",
        lambda c: c.optimization.optimizer_type == "adamw8bit",
        lambda c: {"optimization.optimizer_type": "adamw8bit"},
    ),
    (
        lambda c: "quantization int8-quanto",
        lambda c: bool(c.acceleration.quantization),
        lambda c: {"acceleration.quantization": "int8-quanto"},
    ),
    (_rank_label, _rank_at_floor, _smaller_rank),
    (
        lambda c: (
            "a lower resolution: the data is encoded at its bucket, so plan a new run with a "
            "smaller --resolution-buckets (the dataset is encoded again: the costly one)"
        ),
        lambda c: False,
        lambda c: None,
    ),
]


def _from_state(remedies: list[Remedy], config: TrainerConfig) -> tuple[list[str], dict[str, object]]:
    """(advice: what is left, cheapest first, then what config.yaml has already; the first
    config edit left)."""
    have = [label(config) for label, done, _ in remedies if done(config)]
    left = [(label(config), change) for label, done, change in remedies if not done(config)]
    advice = [label for label, _ in left]
    if have:
        advice.append(f"config.yaml has these already: {', '.join(have)}")
    for _, change in left:
        found = change(config)
        if found:
            return advice, found
    return advice, {}


def _smaller_dims(dims: object) -> list[int] | None:
    """validation.video_dims with width and height halved (kept multiples of 32, frames kept)."""
    if not isinstance(dims, (list, tuple)) or len(dims) != 3:
        return None
    if not all(type(x) is int and 0 < x < 10**6 for x in dims):
        return None
    width, height, frames = dims
    half = [max(32, (width // 2) // 32 * 32), max(32, (height // 2) // 32 * 32), frames]
    return half if half[:2] != [width, height] else None


VALIDATION_REMEDIES: list[Remedy] = [
    (
        lambda c: "acceleration.load_text_encoder_in_8bit",
        lambda c: c.acceleration.load_text_encoder_in_8bit is True,
        lambda c: {"acceleration.load_text_encoder_in_8bit": True},
    ),
    (
        lambda c: "acceleration.offload_optimizer_during_validation",
        lambda c: c.acceleration.offload_optimizer_during_validation is True,
        lambda c: {"acceleration.offload_optimizer_during_validation": True},
    ),
    (
        lambda c: "smaller validation.video_dims",
        lambda c: False,
        lambda c: {"validation.video_dims": d} if (d := _smaller_dims(c.validation.video_dims)) else None,
    ),
    (lambda c: "fewer validation.inference_steps", lambda c: False, lambda c: None),
    (lambda c: "a longer validation.interval", lambda c: False, lambda c: None),
]


def _nan(config: TrainerConfig) -> dict[str, object]:
    if config.acceleration.mixed_precision_mode == "fp16":
        return {"acceleration.mixed_precision_mode": "bf16"}
    lr = config.optimization.learning_rate
    if lr is None or not 0 < lr < 1e6:
        return {}
    return {"optimization.learning_rate": float(f"{lr / 5:.3g}")}


def advice_and_changes(kind: str, config: dict[str, Any]) -> tuple[list[str], dict[str, object]]:
    """The advice for `kind` given what config.yaml holds (a value of the wrong type read as
    unknown), and the one change proposed."""
    keys = config_view(config).keys
    if kind == "oom":
        return _from_state(OOM_REMEDIES, keys)
    if kind == "oom_validation":
        return _from_state(VALIDATION_REMEDIES, keys)
    if kind == "nan":
        return ADVICE[kind], _nan(keys)
    return ADVICE[kind], {}


def proposed_changes(kind: str, config: dict[str, Any]) -> dict[str, object]:
    return advice_and_changes(kind, config)[1]
