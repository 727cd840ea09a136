"""What the evaluation says, rendered from its records: before it starts (the checkpoint, the
renders, each prompt with where it came from and what it is fed, the production path, the time)
and at the end (where the files are, per category). `ltx-wizard eval` prints these lines.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ltx_wizard.core.base.text_safety import clean_text
from ltx_wizard.core.io.run_folder import EVAL_MANIFEST
from ltx_wizard.core.evaluation.render_conditioning import described
from ltx_wizard.core.evaluation.job import EvalJob, EvalState
from ltx_wizard.core.evaluation.layout import Manifest, eval_dir
from ltx_wizard.core.evaluation.job_planning import Setup, time_estimate
from ltx_wizard.core.evaluation.prompts import CATEGORIES, HELD_OUT, TITLES, PromptSet
from ltx_wizard.core.evaluation.job_runner import quantization_label


def prompt_lines(prompts: PromptSet, conditions: list[dict[str, Any]]) -> list[str]:
    """Each prompt with where it came from and, for a conditioned mode, what it is fed (the
    job's conditions filled from its own row, as the renders will be)."""
    lines = []
    for category in CATEGORIES:
        found = prompts.of(category)
        if not found and category == HELD_OUT:
            continue
        lines.append(f"{TITLES[category]} ({len(found)}):")
        for n, p in enumerate(found, start=1):
            lines.append(f"  {n}. {p.text!r}  [{p.source}]")
            fed = described(conditions, p)
            lines += [f"     fed {fed}"] if fed else []
    return lines


def describe(s: Setup, job_: EvalJob, production_lines: list[str]) -> list[str]:
    size = "x".join(map(str, job_.dims))
    base = "; each also without the LoRA (same seed and settings)" if job_.like_for_like else ""
    lines = [
        f"Checkpoint: {s.choice.note}",
        f"Renders: the trainer's validation, {quantization_label(job_.quantization)} "
        f"(the training stack), {size}, seed 42{base}",
        *prompt_lines(PromptSet(tuple(job_.prompts)), job_.conditions),
        *production_lines,
        time_estimate(s.run_dir, job_),
    ]
    return lines + [f"Note: {n}" for n in job_.notes]


_HEADS = {"done": "Evaluation done.", "stopped": "Evaluation stopped."}


def closing_block(run_dir: Path, manifest: Manifest, state: EvalState) -> list[str]:
    """Where the files are, per category; the failure's reason when there is one."""
    head = _HEADS.get(state.state, f"Evaluation failed: {state.error}")
    lines = [head, ""]
    for category in CATEGORIES:
        renders = manifest.of(category)
        skipped = [n for n in manifest.notes if category == HELD_OUT and n.startswith("Held-out")]
        if renders:
            lines += [f"{TITLES[category]}: {len(renders)} files in {eval_dir(run_dir) / category}/"]
        elif skipped:
            lines.append(skipped[0])
    lines += [
        "",
        f"prompts.json: {EVAL_MANIFEST.path(run_dir)} (each file's prompt, seed, "
        "LoRA on or off, path and quantization); run-summary.md lists them once written.",
    ]
    return lines


def state_line(state: EvalState, lost: bool = False) -> str:
    """The evaluation's state in one line, as the Results screen heads it. `lost`: the state says
    running but its process is gone."""
    if lost and state.state == "running":
        return "The evaluation process is gone (killed?): its log is logs/eval.log"
    return {
        "running": f"Running: {clean_text(state.stage)} ({state.done + 1} of {state.total})",
        "done": "Done: the renders below",
        "stopped": "Stopped by you",
        "failed": f"Failed: {clean_text(state.error)}",
    }.get(state.state, state.state)
