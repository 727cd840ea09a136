"""A run's status as one block of text (the CLI, the screen's header lines) and as JSON.

The block follows the train-model skill's status report (phases/launch-and-monitor.md): step and
loss, ETA and GPU use, latest checkpoint and validation samples, W&B URL, plus the process, the
attention backend and the failure with its advice.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from ltx_wizard.core.compare.compare_view import pick_text, read_shown, status_object
from ltx_wizard.core.monitor.pace import ESTIMATE, STEADY, TRAINER
from ltx_wizard.core.monitor.status import RunStatus, eta_text
from ltx_wizard.core.base.text_safety import clean_text

# Everything `json.dumps(ensure_ascii=False)` leaves raw that a terminal or a JSON-in-JS reader
# would act on: DEL and C1 controls, the line and paragraph separators, the bidi embeddings,
# overrides and isolates (and the marks). C0 is escaped by json itself.
_UNSAFE = re.compile(r"[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def dumps(doc: object, *, indent: int | None = None) -> str:
    """JSON text with every control and bidi character escaped as \\uXXXX (they can only stand
    inside strings, so the text stays the same JSON)."""
    text = json.dumps(doc, ensure_ascii=False, indent=indent)
    return _UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def show_change(key: str, value: object) -> str:
    """`key: value` as YAML writes it (true, null), for a proposed config change."""
    shown = json.dumps(value) if isinstance(value, bool) or value is None else value
    return f"{key}: {shown}"


def _loss(value: float) -> str:
    return "NaN" if math.isnan(value) else f"{value:.4f}"


def process_line(status: RunStatus) -> str:
    proc = status.process
    if proc is None and status.diagnosis is not None and status.diagnosis.kind == "launch":
        return "failed (launch.sh stopped before the trainer started)"
    if proc is None:
        return {
            "finished": "finished",
            "failed": "failed (the trainer has exited)",
            "stopped": "stopped (no trainer process)",
            "not started": "not started",
        }[status.state]
    since = f", started {proc.started:%Y-%m-%d %H:%M:%S} UTC" if proc.started else ""
    return f"live: pid {proc.pid}{since}"


def step_line(status: RunStatus) -> str:
    if status.step is None:
        total = f" of {status.total}" if status.total else ""
        return f"Step -{total} (no step line yet: the trainer logs one every 20 steps)"
    text = f"Step {status.step} / {status.total or '?'}"
    if status.percent is not None:
        text += f" ({status.percent:.0f}%)"
    if status.recent_losses:
        text += f" - loss ~{_loss(status.recent_losses[-1])} (last {len(status.recent_losses)}: "
        text += ", ".join(_loss(v) for v in status.recent_losses) + ")"
    if status.nan:
        text += f"; NaN since step {status.nan_step}" + (
            f" (last finite: {status.last_finite[1]:.4f} at step {status.last_finite[0]})"
            if status.last_finite
            else ""
        )
    return text


def _per_step(status: RunStatus) -> str:
    if status.s_per_step is None:
        return eta_text(None)
    if status.s_per_step_kind == STEADY:
        return f"{status.s_per_step:.2f} s/step (steady)"
    return (
        f"~{status.s_per_step:.2f} s/step (the trainer's average over this launch, "
        "validation and checkpoint saves included)"
    )


def pace_line(status: RunStatus) -> str:
    pace = _per_step(status)
    if status.state != "live":
        return f"Pace: {pace}"
    eta = eta_text(status.eta_s)
    if status.eta_kind == TRAINER:
        eta += " (the trainer's own projection)"
    elif status.eta_kind == STEADY:
        eta += " (steady pace; validation and checkpoint pauses not counted)"
    elif status.eta_kind == ESTIMATE:
        eta += " (autotune's estimate, as in plan.md: load, steps, validation passes, checkpoint saves)"
    return f"ETA: {eta}  |  {pace}"


def estimate_line(status: RunStatus) -> str | None:
    """plan.md's duration estimate (autotune.json), beside the ETA, each saying what it counts."""
    from ltx_wizard.core.base.errors import WizardError
    from ltx_wizard.core.tuning.duration import clock
    from ltx_wizard.core.tuning.tune_record import read_tune_record

    try:
        tuned = read_tune_record(status.run_dir)
    except (WizardError, OSError):
        return None
    if tuned is None or tuned.duration is None:
        return None
    d = tuned.duration
    return (
        f"Estimate in plan.md: about {clock(d.total_s)} for the whole run (load, {d.steps} steps, "
        f"{d.passes} validation pass{'es' if d.passes != 1 else ''}, {d.saves} checkpoint "
        f"save{'s' if d.saves != 1 else ''}, from autotune's trials); the ETA counts what is left "
        "of this launch"
    )


def checkpoint_line(status: RunStatus) -> str:
    if not status.checkpoints:
        return f"Latest checkpoint: none yet in {status.output_dir / 'checkpoints'}"
    ck = status.checkpoints[0]
    state = "with its training state" if ck.state else "weights only (no training state)"
    text = f"Latest checkpoint: {ck.path} (step {ck.step}, {state})"
    good = status.usable_checkpoint
    if status.nan and good is not ck:
        text += "; saved after the loss turned NaN: NaN throughout. " + (
            f"Last one saved while the loss was finite: {good.path} (step {good.step})"
            if good is not None
            else "None was saved while the loss was finite"
        )
    return text


def block(status: RunStatus) -> list[str]:
    """The status report, one fact per line (outside text cleaned of control characters)."""
    lines = [
        f"Run: {status.run_dir}",
        f"Training: {process_line(status)}",
        step_line(status),
        pace_line(status),
    ]
    estimate = estimate_line(status) if status.state == "live" else None
    if estimate:
        lines.append(estimate)
    if status.gpus:
        lines += [f"  {gpu.line()}" for gpu in status.gpus]
    elif status.gpu_note:
        lines.append(f"  {status.gpu_note}")
    lines.append(checkpoint_line(status))
    if status.samples:
        lines.append(f"Latest validation: {status.samples[0]}")
    if status.attention:
        lines.append(f"Attention: {status.attention}")
    if status.wandb_url:
        lines.append(f"W&B: {status.wandb_url}")
    if status.diagnosis is not None:
        d = status.diagnosis
        lines.append(f"Failure ({d.kind}): {d.cause}")
        lines.append("Advice: " + "; ".join(d.advice))
        if d.changes:
            lines.append("Proposed fix: " + ", ".join(show_change(k, v) for k, v in d.changes.items()))
    usable = status.usable_checkpoint  # not None where resumable
    if status.resumable and status.nan and usable is not None:
        lines.append(
            f"Resume from the last finite checkpoint (step {usable.step}"
            f"), after the fix: ltx-wizard --run-dir {status.run_dir} (Monitor, f then r)"
        )
    elif status.resumable and status.state == "finished":
        lines.append(
            f"Train longer: raise optimization.steps in config.yaml (now "
            f"{status.total or '?'}), then resume: ltx-wizard --run-dir "
            f"{status.run_dir} (Monitor, r)"
        )
    elif status.resumable:
        lines.append(f"Resume: ltx-wizard --run-dir {status.run_dir} (Monitor, r)")
    compared = read_shown(status.run_dir)
    if isinstance(compared, str):  # a damaged record: its refusal, the rest of the status still shown
        lines.append(f"Compare: {compared}")
    elif compared is not None:  # compare.json's recommendation and the pick (compare_view.py)
        lines.append(f"Compare: {compared.record.recommended.reason}")
        lines.append(f"Picked: {pick_text(compared.pick)}")
    lines.append(f"Log: {status.log}")
    return [clean_text(line) for line in lines]


def as_json(status: RunStatus) -> dict[str, Any]:
    proc = status.process
    return {
        "run_dir": str(status.run_dir),
        "log": str(status.log),
        "state": status.state,
        "pid": proc.pid if proc else None,
        "pid_started": proc.started.isoformat() if proc and proc.started else None,
        "step": status.step,
        "total_steps": status.total,
        "percent": status.percent,
        "recent_losses": [None if math.isnan(v) else v for v in status.recent_losses],
        "first_loss": list(status.first_loss) if status.first_loss else None,
        "loss_nan_since_step": status.nan_step,
        "last_finite_loss": list(status.last_finite) if status.last_finite else None,
        "usable_checkpoint": str(status.usable_checkpoint.path) if status.usable_checkpoint else None,
        "s_per_step": status.s_per_step,
        "s_per_step_kind": status.s_per_step_kind,
        "eta_s": status.eta_s,
        "eta_kind": status.eta_kind,
        "checkpoints": [
            {"path": str(c.path), "step": c.step, "training_state": str(c.state) if c.state else None}
            for c in status.checkpoints
        ],
        "samples": [str(p) for p in status.samples],
        "attention": status.attention,
        "wandb_url": status.wandb_url,
        "gpus": [
            {
                "index": g.index,
                "name": g.name,
                "used_mib": g.used_mib,
                "total_mib": g.total_mib,
                "util_pct": g.util_pct,
            }
            for g in status.gpus
        ],
        "gpu_note": status.gpu_note,
        "diagnosis": status.diagnosis.as_dict() if status.diagnosis else None,
        "resumable": status.resumable,
        "output_dir": str(status.output_dir),
        # the recommendation of compare.json, the user's pick, the record's path; null before compare
        "compare": status_object(read_shown(status.run_dir)),
    }
