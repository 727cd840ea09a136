"""What the user asks of an evaluation (`EvalRequest`, from `eval`'s options; the Results screen
asks the defaults), and everything decided from it before the job is written: the stand-in for
the run, the setup, the production path and the lines that say so. `ltx-wizard eval` and the
Results screen both call these, and only show what they decided.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ltx_wizard.core.base.stand_in import StandIn, StandIns
from ltx_wizard.core.evaluation.eval_lines import describe
from ltx_wizard.core.evaluation.job import EvalJob
from ltx_wizard.core.evaluation.job_planning import Setup, job, setup
from ltx_wizard.core.evaluation.production_choice import ProductionChoice, ProductionMode, production_choice
from ltx_wizard.core.io.run_meta import read_run_meta


@dataclass(frozen=True)
class EvalRequest:
    checkpoint: Path | None = None  # a saved checkpoint instead of the final one
    prompts: tuple[str, ...] = ()  # the user's own out-of-distribution prompts
    dataset: Path | None = None  # the training dataset file, when the run folder does not record it
    trigger: str | None = None  # the LoRA's trigger word, when not recorded
    like_for_like: bool = True  # each prompt also without the LoRA
    production: ProductionMode = "auto"
    quantization: str | None = None  # ltx-pipelines' --quantization, the user's own
    offload: str | None = None  # ltx-pipelines' --offload, the user's own


@dataclass(frozen=True)
class EvalPreview:
    """What the evaluation would do: its setup (checkpoint, prompts, trainer command) and the
    production path's choice. The Results screen shows this before it starts."""

    setup: Setup
    production: ProductionChoice


@dataclass(frozen=True)
class EvalPlan:
    preview: EvalPreview
    job: EvalJob
    lines: list[str]  # what `eval` prints before it asks to start


def stand_in_for_run(run_dir: Path, stand_ins: StandIns) -> StandIn | None:
    """The stand-in where the GPUs are simulated: the one chosen at start-up (`--simulate`,
    `--demo`), else for a run planned on simulated GPUs (run.json's launch runs the simulated
    trainer) the simulator its launch recorded."""
    if stand_ins.chosen is not None:
        return stand_ins.chosen
    spec = read_run_meta(Path(run_dir)).launch
    if spec is not None and spec.simulated:
        return stand_ins.for_simulated_run(spec.env)
    return None


def preview(run_dir: Path, stand_ins: StandIns, request: EvalRequest = EvalRequest()) -> EvalPreview:
    """Raises UsageError (exit 2) for what the user must change first."""
    found = setup(
        run_dir,
        checkpoint=request.checkpoint,
        user_prompts=request.prompts,
        dataset=request.dataset,
        trigger=request.trigger,
        stand_in=stand_in_for_run(run_dir, stand_ins),
    )
    return EvalPreview(
        found, production_choice(found, request.production, request.quantization, request.offload)
    )


def plan_evaluation(run_dir: Path, stand_ins: StandIns, request: EvalRequest) -> EvalPlan:
    """The job `eval` writes and runs, and the lines it prints first."""
    seen = preview(run_dir, stand_ins, request)
    s = seen.setup
    built = job(s, s.prompts, like_for_like=request.like_for_like, production_path=seen.production.production)
    return EvalPlan(seen, built, describe(s, built, seen.production.lines))
