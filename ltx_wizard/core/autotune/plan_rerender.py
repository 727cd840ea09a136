"""plan.md after autotune: what config.yaml now says, not what the plan said before the trials.

The sections autotune changes the truth of are rendered again, from the tuned config.yaml: the
goal's step count, the settings table, an "Autotune results" section (every trial: change,
outcome, s/step, peak, reason; the confirmation; the schedule), the duration estimate and the full
diff against the trainer's shipped file. Every other section stays as the plan wrote it. A second
rendering replaces the first (resume, a new tuning).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from ltx_wizard.core.autotune.duration import Duration
from ltx_wizard.core.tuning.events import AutotuneSummary
from ltx_wizard.core.autotune.presenter import confirmation_line, outcome_label, peak_text, step_text
from ltx_wizard.core.autotune.tuned_config import TunedConfig
from ltx_wizard.core.plan.plan_md import config_table
from ltx_wizard.core.base.text_safety import clean_text
from ltx_wizard.core.io.yaml_patch import get_dotted, unified_diff

RESULTS = "## Autotune results"
AFTER = "## Sanity check and autotune"
COST = "## Cost and time"
DIFF = "## Config changes vs the shipped file"
TRAINING = "## Training config"
GOAL = "## Goal"
ASSUMPTIONS = "## Assumptions"


@dataclass(frozen=True)
class TunedPlan:
    """What the re-rendering needs besides plan.md's own text."""

    config: Mapping[str, Any]  # the tuned config.yaml, loaded
    tuned: TunedConfig
    summary: AutotuneSummary
    duration: Duration | None
    shipped_text: str | None  # the trainer's shipped file, None when it cannot be read
    shipped_name: str
    config_name: str
    num_gpus: int  # in all, over every node


def rerender(plan: str, t: TunedPlan) -> str:
    sections = _split(plan)
    heads = [h for h, _ in sections]
    out: list[tuple[str, list[str]]] = []
    for head, body in sections:
        if head == RESULTS:
            continue  # an earlier rendering: written again below
        if head == GOAL and t.tuned.steps:
            old, new = t.tuned.steps
            body = [line.replace(f"for {old} steps", f"for {new} steps") for line in body]
        elif head == ASSUMPTIONS and t.tuned.steps:
            body = [_retuned(line, t) for line in body]
        elif head == TRAINING:
            body = _training(body, t)
        elif head == COST:
            body = _cost(t)
        elif head == DIFF:
            body = _diff(body, t)
        out.append((head, body))
        if head == AFTER or (head == heads[-1] and AFTER not in heads):
            out.append((RESULTS, _results(t)))
    return "\n".join(line for head, body in out for line in ([head] if head else []) + body)


def _retuned(line: str, t: TunedPlan) -> str:
    """The planned effective batch, and what an allowed batch change made of it."""
    if not line.startswith("- Effective batch ") or t.tuned.steps is None:
        return line
    line = line.split(" After autotune:")[0]  # an earlier rendering's addition
    (old, new), (before, after) = t.tuned.steps, t.tuned.effective
    return (f"{line} After autotune: batch x accumulation {before} -> {after} per GPU (an "
            f"allowed batch change), so optimization.steps {old} -> {new}.")


def _split(text: str) -> list[tuple[str, list[str]]]:
    sections: list[tuple[str, list[str]]] = [("", [])]
    for line in text.split("\n"):
        if line.startswith("## "):
            sections.append((line, []))
        else:
            sections[-1][1].append(line)
    return sections


def _training(body: list[str], t: TunedPlan) -> list[str]:
    batch = get_dotted(t.config, "optimization.batch_size", 1) or 1
    accum = get_dotted(t.config, "optimization.gradient_accumulation_steps", 1) or 1
    table = config_table(t.config, int(batch) * int(accum) * t.num_gpus, t.num_gpus)
    out: list[str] = []
    placed = False
    for line in body:
        if line.startswith("`config.yaml` is the shipped"):
            line = (f"`config.yaml` is the shipped `{t.shipped_name}` with the lines in the diff "
                    "below changed: the plan's (paths and tier rules) and autotune's winner, each "
                    "of autotune's marked `# ltx-wizard: autotune` at the end of its line. The "
                    "table shows the settings after autotune." if t.tuned.changes else
                    f"`config.yaml` is the shipped `{t.shipped_name}` with the plan's lines in "
                    "the diff below changed (paths and tier rules); autotune kept the planned "
                    "settings, as the table shows.")
        if line.startswith("|"):
            if not placed:
                out += table
                placed = True
            continue
        out.append(line)
    return out


def _cell(text: str) -> str:
    return clean_text(text).replace("|", "\\|")


def _results(t: TunedPlan) -> list[str]:
    s = t.summary
    rows = ["", "| # | Change | Outcome | s/step | Peak | Reason |", "|---|---|---|---|---|---|"]
    for r in s.trials:
        kept = " (kept)" if r.kept else ""
        rows.append(f"| {r.index} | {_cell(r.change)} | {outcome_label(r.outcome)}{kept} | "
                    f"{step_text(r)} | {peak_text(r)} | {_cell(r.reason) or '—'} |")
    rows += ["", *[f"- {_cell(confirmation_line(c))}" for c in s.confirmations]]
    rows.append(f"- Stopped: {_cell(s.stop_reason)}")
    win = next((r for r in s.trials if r.index == s.winner), None)
    rows.append(f"- Winner: trial {win.index} ({_cell(win.change)}), patched into config.yaml"
                if win and s.config_patched else "- No change was patched into config.yaml.")
    if t.tuned.steps:
        old, new = t.tuned.steps
        before, after = t.tuned.effective
        rows.append(f"- Batch change allowed: batch x accumulation {before} -> {after} samples "
                    f"per step per GPU, so `optimization.steps` {old} -> {new} keeps the samples "
                    f"seen ({old * before} per GPU) as planned.")
    return rows + [""]


def _cost(t: TunedPlan) -> list[str]:
    d = t.duration
    lines = d.lines() if d else ["Estimated duration: not measured (no trial step time)."]
    gpus = f"{t.num_gpus} GPU{'s' if t.num_gpus != 1 else ''}"
    return ["", *lines, f"- GPU time: that duration x {gpus}.", ""]


def _diff(body: list[str], t: TunedPlan) -> list[str]:
    tail = [line for line in body if line.startswith("Nothing heavy")]
    if t.shipped_text is None:
        text = "(the shipped file could not be read; config.yaml is marked where autotune changed it)"
    else:
        text = unified_diff(t.shipped_text, t.tuned.text, t.shipped_name, t.config_name).rstrip("\n")
    return ["", "```diff", text or "(none)", "```", "", *tail, ""]
