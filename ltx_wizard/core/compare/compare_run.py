"""`compare`'s run (issue 44, Deliver 6): the plan's programs one after the other, each a child of
core/proc streamed into its log under RUN/logs (its own session, tagged, registered: a signal to
the wizard stops it by the one stop rule), and then the results read back from the records they
wrote (core/compare/loss_record.py, health_record.py), judged by health_verdict.py, as the
`CheckpointResult`s recommend.py takes.

A program that fails is one WizardError (exit 1) naming its log and quoting its last lines; the
records of an earlier run are removed first, so nothing stale is ever read as this run's. With
renders the held-out loss is computed by the tournament's process (compare_plan.py): `missing_loss`
names the records it has still to write (its out-of-memory retry computes no record twice), and
`check_loss` reports its failure, after that process, as a failed program's.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.compare.compare_plan import ComparePlan, Kept, Program
from ltx_wizard.core.compare.health_record import read_health
from ltx_wizard.core.compare.health_verdict import Trained, verdict
from ltx_wizard.core.compare.loss_record import LossRecord, loss_file, read_loss_record
from ltx_wizard.core.compare.recommend import CheckpointResult
from ltx_wizard.core.io.bounded import read_tail
from ltx_wizard.core.io.child_log import run_to_log
from ltx_wizard.core.io.run_folder import HELDOUT_LOSS, LORA_HEALTH
from ltx_wizard.core.proc.stop import Graces

GRACES = Graces(interrupt_s=5.0, term_s=5.0)  # the programs hold no state worth a longer wait
TAIL_LINES = 5  # of a failed program's log, in the error


def clear_records(plan: ComparePlan) -> None:
    """The records this run will write, removed first: a failed run leaves none of the last one's."""
    paths = [LORA_HEALTH.path(plan.run_dir), loss_file(plan.run_dir, None)]
    paths += [loss_file(plan.run_dir, k.path) for k in plan.checkpoints]
    for path in paths:
        path.unlink(missing_ok=True)
    HELDOUT_LOSS.path(plan.run_dir).parent.mkdir(parents=True, exist_ok=True)


async def run_programs(plan: ComparePlan, say: Callable[[str], None] = lambda text: None) -> None:
    """Each program in turn; a WizardError (exit 1) for the first that fails."""
    clear_records(plan)
    for program in plan.programs:
        say(f"{program.name}: running (log {program.log})")
        code = await run_to_log(
            program.argv,
            cwd=program.cwd,
            env={**os.environ, **dict(program.env)},
            log=program.log,
            graces=GRACES,
            root=plan.run_dir,
        )
        if code != 0:
            raise WizardError(_failure(program, code))
        say(f"{program.name}: done")


def _failure(program: Program, code: int) -> str:
    return f"the {program.name} failed (exit {code}); the last lines of {program.log}: {_last_lines(program.log)}"


def _last_lines(log: Path) -> str:
    tail = read_tail(log, what="compare log", size=8 * 1024).decode("utf-8", "replace")
    last = [line for line in tail.splitlines() if line.strip()][-TAIL_LINES:]
    return " | ".join(last) if last else "(the log is empty)"


def missing_loss(plan: ComparePlan) -> list[Kept | None]:
    """The held-out loss records not written yet (None: the base model's), base first."""
    if plan.held_out_root is None:
        return []
    wanted: list[Kept | None] = [None, *plan.checkpoints]
    return [k for k in wanted if not loss_file(plan.run_dir, None if k is None else k.path).is_file()]


def check_loss(plan: ComparePlan, log: Path) -> None:
    """After the tournament's process: a WizardError (exit 1) naming its log where it left a held-out
    loss record unwritten (the loss failed there; the renders' own failures are the grid's)."""
    missing = missing_loss(plan) if plan.loss_in_renders else []
    if missing:
        names = ", ".join("the base model" if k is None else k.path.name for k in missing)
        raise WizardError(
            f"the held-out loss failed (no record for {names}); the last lines of {log}: {_last_lines(log)}"
        )


def results(plan: ComparePlan, config: Mapping[str, Any]) -> tuple[CheckpointResult, ...]:
    """One result per compared checkpoint, oldest first: its held-out and training loss and
    effect (None without a held-out loss) and the health verdict on it."""
    health = read_health(plan.run_dir)
    if health is None:
        raise WizardError(f"the LoRA health check wrote no record at {LORA_HEALTH.path(plan.run_dir)}")
    facts = {str(Path(f.path).resolve()): f for f in health.checkpoints}
    trained = Trained.from_config(config)
    found = []
    for kept in plan.checkpoints:
        fact = facts.get(str(kept.path.resolve()))
        if fact is None:
            raise WizardError(f"the LoRA health record has no entry for {kept.path}")
        judged = verdict(fact, trained)
        loss = _loss(plan, kept)
        found.append(
            CheckpointResult(
                step=kept.step,
                path=str(kept.path),
                held_out_loss=None if loss is None else loss.held_out.loss,
                train_loss=None if loss is None else loss.train.loss,
                effect=None if loss is None else loss.effect,
                health_ok=judged.ok,
                problems=judged.problems,
            )
        )
    return tuple(found)


def _loss(plan: ComparePlan, kept: Kept) -> LossRecord | None:
    if plan.held_out_root is None:
        return None
    record = read_loss_record(loss_file(plan.run_dir, kept.path))
    if record is None:
        raise WizardError(f"the held-out loss wrote no record for {kept.path.name}")
    return record


def base_loss(plan: ComparePlan) -> LossRecord | None:
    """The base model's record (the held-out loss without a LoRA), None without a held-out loss."""
    return None if plan.held_out_root is None else read_loss_record(loss_file(plan.run_dir, None))


def loss_records(plan: ComparePlan) -> list[LossRecord]:
    """The held-out loss records this comparison wrote: the base model's, then each checkpoint's."""
    if plan.held_out_root is None:
        return []
    paths = [loss_file(plan.run_dir, None), *(loss_file(plan.run_dir, k.path) for k in plan.checkpoints)]
    return [r for r in map(read_loss_record, paths) if r is not None]
