"""What `ltx-wizard compare RUN` runs, decided before anything starts (issue 44, Deliver 6): the
kept checkpoints picked (`--checkpoints all|STEP,...`), the programs of trainer_side/ as the
trainer's environment runs them (`uv run python <program>` in the checkout's ltx-trainer folder,
as preprocess runs the trainer's script; a simulated run's stand-in in their place), where their
logs go, and the lines that say so with the honest cost: the transformer forward passes of the
held-out loss, the count of programs and of model loads.

With renders (issue 44, Deliver 8) the held-out loss is no program of its own: the tournament's one
process (tournament_render.py) computes it first on its one model load, with `loss_args`. Its
samples are sized to the loss's budget by the function plan.md prices them with
(core/plan/compare_cost.py loss_samples), from the run's config.yaml and autotune's duration.

The held-out loss runs only where the held-out clips were preprocessed (RUN/holdout/.precomputed,
core/preprocess/held_out.py); otherwise `held_out_note` says why, and only the health check runs.
The checkpoints themselves are listed by the caller (core/evaluation/checkpoints.py's `saved`,
a package this one does not import) and handed in as `Kept` values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.base.stand_in import StandIn
from ltx_wizard.core.compare import health_record
from ltx_wizard.core.compare.grid_record import row_name
from ltx_wizard.core.io import run_folder
from ltx_wizard.core.preprocess.held_out import HeldOut
from ltx_wizard.core.io.run_meta import read_run_meta
from ltx_wizard.core.plan.compare_cost import loss_samples
from ltx_wizard.core.plan.record import read_record
from ltx_wizard.core.preprocess.preprocess_state import read_state
from ltx_wizard.core.tuning.duration import Duration
from ltx_wizard.core.tuning.tune_record import read_tune_record

HELDOUT_SCRIPT = health_record.SCRIPT.with_name("heldout_loss.py")
SAMPLE = 4  # heldout_loss.py --sample at most: held-out clips used, and as many training ones
SIGMAS = (0.1, 0.3, 0.5, 0.7, 0.9)  # heldout_loss.py DEFAULT_SIGMAS, passed so the count is ours
SEED = 42  # heldout_loss.py --seed's default, passed so the record names the one we chose
ALL = "all"
NO_PREPROCESS_NOTE = "no clips were held out (the run was planned on an already preprocessed data root)"


@dataclass(frozen=True)
class Kept:
    """A checkpoint the trainer saved and kept: its step and file."""

    step: int
    path: Path


@dataclass(frozen=True)
class Program:
    """One child: what it is called in the lines, its argv, folder, extra environment and log."""

    name: str
    argv: tuple[str, ...]
    cwd: Path
    env: tuple[tuple[str, str], ...]
    log: Path


@dataclass(frozen=True)
class ComparePlan:
    run_dir: Path
    checkpoints: tuple[Kept, ...]  # oldest step first
    held_out_root: Path | None  # None: no held-out loss (held_out_note says why)
    held_out_note: str | None
    held_out_clips: int  # the clips the loss uses (at most SAMPLE), 0 without a held-out loss
    forward_passes: int
    programs: tuple[Program, ...]  # with renders, the health check alone (the loss rides on them)
    lines: tuple[str, ...]  # what the command prints before it asks
    loss_in_renders: bool = False  # the tournament's process computes the held-out loss

    def loss_args(self, missing: Sequence[Kept | None]) -> list[str]:
        """tournament_render.py's arguments for the held-out loss of the rows `missing` (None: the
        base), heldout_loss.py's own otherwise; none without a loss in the renders."""
        if not self.loss_in_renders or self.held_out_root is None or not missing:
            return []
        args = _loss_options(self.run_dir, self.held_out_root, self.held_out_clips)
        args[args.index("--config")] = "--loss-config"
        args[args.index("--out-dir")] = "--loss-out-dir"
        rows = [row_name(None if k is None else k.step) for k in missing]
        return [*args, "--loss-rows", ",".join(rows)]


def pick(kept: Sequence[Kept], wanted: str) -> tuple[Kept, ...]:
    """`--checkpoints all` or a list of steps ("1,400" is not a step: commas separate them).
    UsageError (exit 2) naming what is wrong: no checkpoint at all, a word that is no step, a
    step the run did not keep."""
    ordered = tuple(sorted(kept, key=lambda k: k.step))
    if not ordered:
        raise UsageError("the run kept no checkpoint to compare: train first (ltx-wizard status RUN)")
    if wanted.strip() == ALL:
        return ordered
    words = [word.strip() for word in wanted.split(",")]
    for word in words:  # every word a step before any is looked up: one refusal names the typo
        if not word.isdigit() or not word.isascii():
            raise UsageError(
                f"--checkpoints {wanted!r}: {word!r} is not a step: give all, or steps like 200,400"
            )
    by_step = {k.step: k for k in ordered}
    chosen: dict[int, Kept] = {}
    for step in map(int, words):
        if step not in by_step:
            steps = ", ".join(str(k.step) for k in ordered)
            raise UsageError(f"--checkpoints: the run kept no checkpoint of step {step} (kept: {steps})")
        chosen[step] = by_step[step]
    return tuple(chosen[s] for s in sorted(chosen))


def held_out_source(held: HeldOut | None, sample: int = SAMPLE) -> tuple[Path | None, str | None, int]:
    """(the held-out latents' folder, or None and why; the clips the loss will use: at most `sample`)."""
    if held is None:
        return None, "no clips were held out (the run was planned before held-out clips existed)", 0
    if held.file is None or held.root is None:
        return None, held.note or "no clips were held out", 0
    if not held.done:
        return None, "the held-out clips are not preprocessed yet: run `ltx-wizard preprocess RUN`", 0
    if not held.encoded:
        return None, f"none of the held-out clips was encoded ({held.note})", 0
    return held.root, None, min(sample, len(held.encoded))


def loss_sample(run: Path, config: Mapping[str, Any], held: HeldOut | None) -> int:
    """heldout_loss.py --sample: the most samples within the loss's budget, as plan.md prices them
    (compare_cost.loss_samples), from config.yaml, autotune.json's duration and the planned GPUs."""
    encoded = len(held.encoded) if held is not None and held.done else 0
    duration, gpus = priced_by(run)
    return max(1, loss_samples(config, duration, encoded, gpus))


def priced_by(run: Path) -> tuple[Duration | None, int]:
    """What plan.md priced the comparison from: autotune.json's duration estimate (None where
    autotune left none) and plan.json's GPUs (1 where there is no plan record)."""
    tuned, planned = read_tune_record(run), read_record(run)
    duration = tuned.duration if tuned is not None else None
    return duration, planned.schedule.num_gpus if planned is not None else 1


def forward_passes(checkpoints: int, clips: int) -> int:
    """heldout_loss.py --base and each checkpoint: held-out and as many training clips per sigma."""
    return (checkpoints + 1) * 2 * clips * len(SIGMAS)


def plan_compare(
    run_dir: Path,
    kept: Sequence[Kept],
    wanted: str,
    *,
    stand_in: StandIn | None,
    uv: str | None,
    config: Mapping[str, Any],
    render_log: Path | None = None,
) -> ComparePlan:
    """Everything `compare` will run, or a UsageError (exit 2) for what must change first.
    `render_log`: the tournament's log, where it renders (and then computes the loss too)."""
    run = Path(run_dir)
    chosen = pick(kept, wanted)
    trainer_dir, simulated, held = _recorded(run)
    if simulated and stand_in is None:
        raise UsageError("this run was planned for simulated GPUs: compare it with --simulate PRESET")
    root, note, clips = held_out_source(held, loss_sample(run, config, held))
    programs = [_program(run, "LoRA health check", health_args(run, chosen), trainer_dir, stand_in, uv)]
    if root is not None and render_log is None:
        args = heldout_args(run, root, clips, chosen)
        programs.append(_program(run, "held-out loss", args, trainer_dir, stand_in, uv))
    lines = _lines(chosen, note, clips, programs, render_log)
    passes = forward_passes(len(chosen), clips)
    return ComparePlan(
        run, chosen, root, note, clips, passes, tuple(programs), tuple(lines), render_log is not None
    )


def _recorded(run: Path) -> tuple[Path, bool, HeldOut | None]:
    """(the trainer's folder, simulated?, the held-out clips' record) as the run folder records
    them: preprocess.json where the wizard preprocesses, else run.json's launch (a run planned on
    an already preprocessed data root has no preprocess.json, and no held-out clips)."""
    state = read_state(run)
    if state is not None:
        return state.trainer_dir, state.simulate, state.held_out
    launch = read_run_meta(run).launch
    if launch is None:
        raise UsageError(
            f"{run}/run.json records no launch: plan the run again (ltx-wizard plan ... --force)"
        )
    return launch.cwd, launch.simulated, HeldOut(note=NO_PREPROCESS_NOTE)


def health_args(run: Path, chosen: Sequence[Kept]) -> list[str]:
    """health_record.health_argv, less the python: the program and its arguments."""
    return health_record.health_argv("", run, tuple(k.path for k in chosen))[1:]


def heldout_args(run: Path, root: Path, sample: int, chosen: Sequence[Kept]) -> list[str]:
    """heldout_loss.py on the base model and every checkpoint, with the sample, sigmas and seed
    named; the training latents are the config's data.preprocessed_data_root (its default)."""
    return [str(HELDOUT_SCRIPT), *_loss_options(run, root, sample), "--base", *(str(k.path) for k in chosen)]


def _loss_options(run: Path, root: Path, sample: int) -> list[str]:
    out = run_folder.HELDOUT_LOSS.path(run).parent
    args = ["--config", str(run_folder.CONFIG.path(run)), "--held-out", str(root), "--out-dir", str(out)]
    return [*args, "--sample", str(sample), "--sigmas", ",".join(map(str, SIGMAS)), "--seed", str(SEED)]


def _program(
    run: Path, name: str, args: list[str], trainer_dir: Path, stand_in: StandIn | None, uv: str | None
) -> Program:
    log = run_folder.LOGS_DIR.path(run) / f"compare-{Path(args[0]).stem.replace('_', '-')}.log"
    if stand_in is not None:
        argv, env = stand_in.compare(Path(args[0]), args[1:])
        return Program(name, tuple(argv), trainer_dir, tuple(sorted(env.items())), log)
    if uv is None:
        raise UsageError(
            "uv is not on PATH, so the trainer's environment cannot run the comparison: install "
            "uv (curl -LsSf https://astral.sh/uv/install.sh | sh)"
        )
    # the trainer's own environment, as preprocess_command.py runs process_dataset.py
    return Program(name, (uv, "run", "python", *args), trainer_dir, (), log)


def _lines(
    chosen: Sequence[Kept], note: str | None, clips: int, programs: Sequence[Program], render_log: Path | None
) -> list[str]:
    steps = ", ".join(f"{k.step:,}" for k in chosen)
    lines = [f"compare {len(chosen)} checkpoint(s), steps {steps}, in the trainer's environment:"]
    lines.append(f"- LoRA health check: {len(chosen)} file(s) read tensor by tensor (no model loaded)")
    if note is None:
        models = len(chosen) + 1
        where = (
            "computed first in the tournament's process, on its one model load"
            if render_log is not None
            else "one model load"
        )
        lines.append(
            f"- held-out loss: the base model and {len(chosen)} checkpoint(s) = {models} x "
            f"({clips} held-out + {clips} training clips) x {len(SIGMAS)} sigmas = "
            f"{forward_passes(len(chosen), clips):,} transformer forward passes ({where})"
        )
    else:
        lines.append(f"- held-out loss: not run: {note}")
    logs = [str(p.log) for p in programs] + ([] if render_log is None else [str(render_log)])
    loads = 0 if note is not None and render_log is None else 1
    lines.append(
        f"{len(logs)} program(s), {loads} transformer load{'s' if loads != 1 else ''}; logs: "
        + ", ".join(logs)
    )
    return lines
