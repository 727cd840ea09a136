"""What `ltx-wizard eval` decides and says before it starts, and the block it prints at the end.

Also used by the Results screen: the production path's command (the simulator's where the run is
simulated), the GPU memory it is checked against, and the option picked.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any, Sequence

from ltx_wizard.core.base.errors import UsageError, WizardError
from ltx_wizard.core.evaluation import memory
from ltx_wizard.core.evaluation.conditioning import described
from ltx_wizard.core.evaluation.job import Command, EvalJob, EvalState, Production
from ltx_wizard.core.evaluation.layout import Manifest, eval_dir
from ltx_wizard.core.io.run_folder import EVAL_MANIFEST
from ltx_wizard.core.evaluation.planning import (
    Setup,
    job,
    memory_options,
    production_for,
    setup,
    time_estimate,
)
from ltx_wizard.core.evaluation.production import uv_prefix
from ltx_wizard.core.evaluation.prompts import CATEGORIES, HELD_OUT, TITLES, PromptSet
from ltx_wizard.core.evaluation.runner import quantization_label


def stand_in(run_dir: Path, simulate: str | None):
    """The simulator where GPUs are simulated: `--simulate PRESET`, or a run planned on
    simulated GPUs (run.json's launch runs the simulated trainer)."""
    from ltx_wizard.core.io.run_meta import read_run_meta
    from ltx_wizard.demo.sim.stand_in import GPU_ENV, SimulatedTrainer

    if simulate:
        return SimulatedTrainer(simulate)
    spec = read_run_meta(Path(run_dir)).launch
    if spec is not None and spec.simulated:
        return SimulatedTrainer(spec.env.get(GPU_ENV) or "h100")
    return None


def pipelines_prefix(s: Setup) -> Command:
    """How ltx-pipelines starts here: `uv run` in the checkout's package, or the simulator."""
    assert s.checkout is not None and s.offer.mode is not None
    module = s.offer.mode.module
    if s.stand_in is not None:
        argv, env = s.stand_in.pipelines(module)
        return Command(argv, str(s.checkout), env)
    uv = s.trainer.argv[0] if Path(s.trainer.argv[0]).name == "uv" else "uv"
    return uv_prefix(s.checkout, module, uv)


def gpu_total_gb(s: Setup) -> float | None:
    """The smallest of the run's GPUs (its CUDA_VISIBLE_DEVICES), in GiB; None when unknown."""
    from ltx_wizard.core.base.units import GIB

    try:
        if s.stand_in is not None:
            from ltx_wizard.core.gpu.presets import preset_gpus

            gpus = preset_gpus(getattr(s.stand_in, "preset", None) or "h100")
        else:
            from ltx_wizard.core.gpu.probe import probe_gpus

            gpus = tuple(probe_gpus({**os.environ, **s.trainer.env}).gpus)
    except WizardError:
        return None
    totals = [g.memory_total_bytes for g in gpus if g.memory_total_bytes]
    return min(totals) / GIB if totals else None


def host_ram_gb() -> float | None:
    try:
        import psutil

        return psutil.virtual_memory().total / 1024**3
    except (ImportError, OSError):
        return None


def pick(
    options: Sequence[memory.Option], quantization: str | None, offload: str | None
) -> memory.Option | None:
    """The user's own choice when given (even one that may not fit: theirs to try), else the
    first that fits."""
    if quantization or offload:
        return next(o for o in options if (o.quantization, o.offload) == (quantization, offload))
    return memory.first_fit(list(options))


def production_choice(
    s: Setup, mode: str, quantization: str | None, offload: str | None
) -> tuple[Production | None, list[str]]:
    if mode == "no":
        return None, ["Production inference (ltx-pipelines): not asked for"]
    if not s.offer.available:
        if mode == "yes":
            raise UsageError(f"--production yes: {s.offer.reason}")
        return None, [f"Production inference (ltx-pipelines): not run: {s.offer.reason}"]
    total, ram = gpu_total_gb(s), host_ram_gb()
    options = memory_options(s, total, ram)
    chosen = pick(options, quantization, offload)
    lines = [f"Production inference: {s.offer.reason}"]
    lines += [f"  with {path}" for path in s.offer.extras.values()]
    if s.offer.mode is not None and s.offer.mode.feeds:
        lines.append(f"  each render fed {s.offer.mode.feeds}")
    if s.offer.mode is not None and s.offer.mode.multiple != 32:
        lines.append(f"  sizes in steps of {s.offer.mode.multiple} (its two stages)")
    lines.append("  memory per GPU:")
    lines += [f"  {'->' if o is chosen else '  '} {memory.fit_line(o, total, ram)}" for o in options]
    if chosen is None:
        if mode == "yes":
            raise UsageError("--production yes: ltx-pipelines fits in none of the ways above")
        return None, lines + ["  not run: it fits in none of these ways"]
    return production_for(s, pipelines_prefix(s), chosen), lines


def _prompt_lines(prompts: PromptSet, conditions: list[dict[str, Any]]) -> list[str]:
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
        *_prompt_lines(PromptSet(tuple(job_.prompts)), job_.conditions),
        *production_lines,
        time_estimate(s.run_dir, job_),
    ]
    return lines + [f"Note: {n}" for n in job_.notes]


def build_job(run_dir: Path, args: argparse.Namespace) -> tuple[EvalJob, list[str]]:
    s = setup(
        run_dir,
        checkpoint=Path(args.checkpoint) if args.checkpoint else None,
        user_prompts=args.prompt,
        dataset=Path(args.dataset) if args.dataset else None,
        trigger=args.trigger,
        stand_in=stand_in(run_dir, getattr(args, "simulate", None)),
    )
    production, lines = production_choice(s, args.production, args.quantization, args.offload)
    built = job(s, s.prompts, like_for_like=not args.no_base, production_path=production)
    return built, describe(s, built, lines)


def closing_block(run_dir: Path, manifest: Manifest, state: EvalState) -> list[str]:
    """Where the files are, per category; the failure's reason when there is one."""
    head = {
        "done": "Evaluation done.",
        "stopped": "Evaluation stopped.",
        "failed": f"Evaluation failed: {state.error}",
    }[state.state]
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
