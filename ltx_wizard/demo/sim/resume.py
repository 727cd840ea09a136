"""The simulated trainer's checkpoints, training state and resume, numbered as the real trainer's.

Mirrors ltx_trainer/trainer.py: `_find_checkpoint` (a .safetensors file, or the highest
`*step_*.safetensors` under a folder; another suffix or a path that is neither raises ValueError;
an empty folder is a warning and step 0), `_resolve_resume_state` / `_load_training_state` (the
step comes from `training_state_step_<digits>.pt` beside the weights unless no_resume, the file is
absent or unreadable, or the optimizer/scheduler/mode/rank fingerprint differs), `_save_config`
(training_config.yaml in output_dir at every start), `_save_checkpoint` /
`_save_training_state` / `_cleanup_checkpoints` (keep_last_n of this process's own saves). The
state file here is JSON, not a torch pickle: only this simulator reads it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

_SAFETENSORS = b'{"__metadata__":{"format":"pt","simulated":"true"}}'


def write_file(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def fingerprint(raw: dict) -> dict:
    opt = raw["optimization"]
    lora = raw.get("lora") or {}
    return {
        "optimizer_type": opt.get("optimizer_type"),
        "scheduler_type": opt.get("scheduler_type"),
        "training_mode": raw["model"].get("training_mode"),
        "lora_rank": lora.get("rank") if raw["model"].get("training_mode") == "lora" else None,
    }


def find_checkpoint(path: Path) -> Path | None:
    if path.is_file():
        if path.suffix != ".safetensors":
            raise ValueError(f"Checkpoint file must have a .safetensors extension: {path}")
        return path
    if path.is_dir():
        found = list(path.rglob("*step_*.safetensors"))

        def step_of(p: Path) -> int:
            try:
                return int(p.stem.split("step_")[1])
            except (IndexError, ValueError):
                return -1

        return max(found, key=step_of) if found else None
    raise ValueError(f"Invalid checkpoint path: {path}. Must be a file or directory.")


def resume_step(raw: dict, log) -> int:
    """The step training starts from; `log(message, line)` prints as the trainer does."""
    wanted = raw["model"].get("load_checkpoint")
    if not wanted:
        return 0
    found = find_checkpoint(Path(wanted))
    if found is None:
        log(f"⚠️ Could not find checkpoint at {wanted}", 492, level="WARNING")
        return 0
    log(f"📥 Loading checkpoint from {found}", 497)
    if raw["model"].get("training_mode") == "lora":  # trainer.py _load_lora_checkpoint
        log("✅ LoRA checkpoint loaded successfully", 525)
    else:  # trainer.py _load_full_checkpoint
        log("✅ Full model checkpoint loaded successfully", 511)
    if raw["checkpoints"].get("no_resume"):
        return 0
    digits = found.name.split("step_")[1].split(".")[0] if "step_" in found.name else None
    state_path = found.parent / f"training_state_step_{digits}.pt"
    if digits is None or not state_path.exists():
        return 0
    try:
        state = json.loads(state_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        log(
            f"⚠️ Failed to load training state from {state_path}: {exc}. Starting from step 0.",
            587,
            level="WARNING",
        )
        return 0
    log(f"📥 Loaded training state from {state_path}", 584)
    saved, now = state.get("fingerprint", {}), fingerprint(raw)
    diffs = [
        f"{k}: {saved.get(k)} → {now[k]}"
        for k in now
        if saved.get(k) != now[k] and not (k == "lora_rank" and saved.get(k) is None)
    ]
    if diffs:
        log(
            f"⚠️ Training state config mismatch ({', '.join(diffs)}). Starting from step 0. "
            "Set checkpoints.no_resume=true to silence this warning.",
            556,
            level="WARNING",
        )
        return 0
    log(f"📌 Resuming from step {state['global_step']}", 565)
    return int(state["global_step"])


class Saver:
    """Checkpoints of this process, with keep_last_n cleanup like the trainer's."""

    def __init__(self, raw: dict, out: Path) -> None:
        self.raw, self.out = raw, out
        self.weights: list[Path] = []
        self.states: list[Path] = []

    def save_config(self) -> None:
        write_file(self.out / "training_config.yaml", json.dumps(self.raw, indent=2, default=str).encode())

    def save(self, step: int) -> str:
        kind = "lora" if self.raw["model"].get("training_mode") == "lora" else "model"
        rel = f"checkpoints/{kind}_weights_step_{step:05d}.safetensors"
        header = _SAFETENSORS + b" " * (-len(_SAFETENSORS) % 8)
        write_file(self.out / rel, len(header).to_bytes(8, "little") + header)
        self.weights.append(self.out / rel)
        if self.raw["checkpoints"].get("save_training_state", "minimal") != "off":
            state = self.out / "checkpoints" / f"training_state_step_{step:05d}.pt"
            write_file(
                state, json.dumps({"global_step": step, "fingerprint": fingerprint(self.raw)}).encode()
            )
            self.states.append(state)
        keep = int(self.raw["checkpoints"].get("keep_last_n", 1))
        for kept in (self.weights, self.states):
            while 0 < keep < len(kept):
                kept.pop(0).unlink(missing_ok=True)
        return f"💾 {kind.capitalize()} weights for step {step} saved in {rel}"
