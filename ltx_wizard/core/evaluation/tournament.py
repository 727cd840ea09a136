"""The tournament's renders (issue 44, Deliver 4): the base model and each compared checkpoint at
the same seed and prompts, laid out as RUN/outputs/compare/renders/<row>/prompt-NN.<ext> with their
keyframes beside them as PNGs (keyframes.py's pixels, core/base/png.py's encoder).

Sized to be cheap (issue 44, Deliver 8):
- one process for every row (tournament_program.py: trainer_side/tournament_render.py in the
  trainer's environment): the model is loaded once, each checkpoint's LoRA swapped in place, and
  the trainer's own validation renders every prompt of every row. ltx-pipelines' entry points take
  one `--prompt` each (ltx_pipelines/utils/args.py basic_arg_parser), a model load per render, so
  the tournament stays on the trainer's path;
- one prompt per category of eval's three (prompts.py: the first of each), not all of them;
- short clips: TOURNAMENT_FRAMES frames ((F - 1) % 8 == 0, ltx_trainer/validation_runner.py
  _validate_sample_geometry) at half the run's width and height (eval_config.smaller_dims,
  divisible by 32), at most TOURNAMENT_STEPS inference steps (validation.inference_steps,
  ltx_trainer/config.py ValidationConfig).
A row that fails leaves its cells missing with the program's reason, and the others still render;
out of memory with a row unrendered, every row renders again once at half the size (the skill's
one retry). A stop request ends the running process and the tournament.

`compare` hands the same process the held-out loss's arguments (`loss_args`, asked again before
each attempt, so a retry computes only the records still missing): it computes the loss first, on
its one model load, then renders (trainer_side/tournament_render.py --loss-config).
"""

from __future__ import annotations

import os
import shutil
import stat
import threading
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Any, Callable, Mapping, Sequence

from ltx_wizard.core.base.png import Image, encode
from ltx_wizard.core.base.stand_in import StandIn
from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.evaluation import eval_config, layout
from ltx_wizard.core.evaluation.eval_config import smaller_dims, video_dims
from ltx_wizard.core.evaluation.job import Command
from ltx_wizard.core.evaluation.keyframes import decode, video_size
from ltx_wizard.core.evaluation.prompts import CATEGORIES, SEED, EvalPrompt, PromptSet
from ltx_wizard.core.evaluation.tournament_program import program_argv, program_command, row_failures
from ltx_wizard.core.evaluation.trainer_pass import TrainerPass
from ltx_wizard.core.io.bounded import read_text
from ltx_wizard.core.io.run_folder import CONFIG, LOGS_DIR
from ltx_wizard.core.io.safe_fs import check_inside, write_bytes, write_text
from ltx_wizard.core.io.trainer_config import trainer_config
from ltx_wizard.core.tuning.duration import DEFAULT_INFERENCE_STEPS

TOURNAMENT_FRAMES = 17  # ~0.7 s at 25 fps: enough to see motion, 3 latent frames
TOURNAMENT_STEPS = 15  # inference steps at most (the run's own where it asks fewer)
KEYFRAMES = 3  # per render: first, middle, last
KEYFRAME_WIDTH = 128  # pixels at most: a contact sheet cell, not a preview
CONFIG_NAME = "compare-config.yaml"  # the validate-only config, beside eval-config.yaml


@dataclass(frozen=True)
class Settings:
    """How every cell renders, and the run's own settings it is cut down from."""

    dims: tuple[int, int, int]
    inference_steps: int
    run_dims: tuple[int, int, int]
    run_steps: int

    def words(self) -> str:
        width, height, frames = self.dims
        return (
            f"{frames} frames at {width}x{height}, {self.inference_steps} inference steps, seed {SEED}, "
            "through the trainer's validation (one model load for every row)"
        )


def tournament_settings(config: Mapping[str, Any]) -> Settings:
    run = video_dims(config)
    steps = trainer_config(config).validation.inference_steps or DEFAULT_INFERENCE_STEPS
    width, height, _ = smaller_dims(run)
    frames = min(run[2], TOURNAMENT_FRAMES)
    return Settings((width, height, frames), min(steps, TOURNAMENT_STEPS), run, steps)


def tournament_prompts(prompts: PromptSet) -> tuple[EvalPrompt, ...]:
    """The first prompt of each of eval's categories the run has, in the categories' order."""
    return tuple(found[0] for category in CATEGORIES if (found := prompts.of(category)))


@dataclass(frozen=True)
class Contender:
    """A row: its name (its renders' folder), its step and the LoRA it renders with (None, None:
    the base model)."""

    name: str
    step: int | None
    checkpoint: Path | None


@dataclass(frozen=True)
class Cell:
    render: Path | None
    keyframes: tuple[Path, ...]
    missing: str | None  # why there is no render


@dataclass(frozen=True)
class RowRenders:
    contender: Contender
    cells: tuple[Cell, ...]  # one per prompt, in order


def clear_renders(run_dir: Path, renders_dir: Path) -> None:
    """An earlier tournament's renders go first, so nothing stale is shown as this one's (a link
    in the folder's place is removed, never followed)."""
    check_inside(Path(run_dir), renders_dir / "x")
    try:
        mode = os.lstat(renders_dir).st_mode
    except FileNotFoundError:
        return
    if stat.S_ISDIR(mode):
        shutil.rmtree(renders_dir)
    else:
        os.unlink(renders_dir)


def write_keyframes(run_dir: Path, render: Path) -> tuple[Path, ...]:
    """The render's keyframes as PNGs beside it (prompt-NN-key1.png, ...); none where PyAV cannot
    read a picture from it (an audio-only render, no PyAV)."""
    size = min(KEYFRAME_WIDTH, _width(render))
    found = decode(render, count=KEYFRAMES, width=size)
    out = []
    for number, frame in enumerate(found.frames, start=1):
        path = render.with_name(f"{render.stem}-key{number}.png")
        write_bytes(path, encode(Image(frame.width, frame.height, frame.rgb)), root=run_dir)
        out.append(path)
    return tuple(out)


def _width(render: Path) -> int:
    size = video_size(render)
    return size[0] if size else KEYFRAME_WIDTH


def _lay_out(run_dir: Path, out_dir: Path, found: dict[int, Path], count: int) -> tuple[Cell, ...]:
    cells = []
    for index in range(count):
        source = found.get(index)
        if source is None:
            cells.append(Cell(None, (), "the trainer wrote no render for this prompt"))
            continue
        target = check_inside(run_dir, out_dir / f"prompt-{index:02d}{source.suffix}")
        os.replace(source, target)
        cells.append(Cell(target, write_keyframes(run_dir, target), None))
    layout.remove_cruft(run_dir, out_dir)
    return tuple(cells)


def render_tournament(
    run_dir: Path,
    program: Command,
    contenders: Sequence[Contender],
    prompts: Sequence[EvalPrompt],
    settings: Settings,
    renders_dir: Path,
    log: IO[str],
    *,
    log_rel: str,
    stop: threading.Event,
    note: Callable[[str], None],
    loss_args: Callable[[], Sequence[str]] = lambda: (),
) -> list[RowRenders]:
    """Every row in one process (tournament_program.py), its output going to `log` (`log_rel` in
    the run folder); Stopped (trainer_pass.py) when the user stops it. `loss_args`: the held-out
    loss that process computes first (none: no loss)."""
    run = Path(run_dir)
    clear_renders(run, renders_dir)
    for contender in contenders:
        check_inside(run, renders_dir / contender.name / "x")
    passes = TrainerPass(run, log, note, stop=stop, log_rel=log_rel)
    names = ", ".join(c.name for c in contenders)
    dims = settings.dims
    for attempt in (1, 2):
        loss = list(loss_args())
        first = ", the held-out loss first" if loss else ""
        note(f"renders of {names}: {len(contenders)} rows, one model load{first}")
        argv = _argv(run, program, contenders, prompts, settings, dims, renders_dir, loss)
        outcome = passes.child(argv, program.cwd, program.env)
        found = {c.name: layout.trainer_samples(run, out_dir=renders_dir / c.name) for c in contenders}
        if attempt == 2 or not outcome.oom or all(len(f) >= len(prompts) for f in found.values()):
            break
        dims = passes.retry_dims(outcome, attempt, "the tournament's renders", dims)
    why = row_failures(_since_last_note(run / log_rel))
    fallback = outcome.failure or f"exit status {outcome.code}"
    rows = []
    for contender in contenders:
        out_dir = renders_dir / contender.name
        if not found[contender.name]:
            layout.remove_cruft(run, out_dir)
            reason = why.get(contender.name) or f"the render program ended without its renders: {fallback}"
            missing = f"{reason} ({log_rel} has its output)"
            rows.append(RowRenders(contender, tuple(Cell(None, (), missing) for _ in prompts)))
            continue
        rows.append(RowRenders(contender, _lay_out(run, out_dir, found[contender.name], len(prompts))))
    return rows


def _argv(
    run: Path,
    program: Command,
    contenders: Sequence[Contender],
    prompts: Sequence[EvalPrompt],
    settings: Settings,
    dims: tuple[int, int, int],
    renders_dir: Path,
    loss: Sequence[str],
) -> list[str]:
    """compare-config.yaml written (the run's config cut down to the tournament's prompts, size and
    steps, as the per-row validate-only runs had it), each row's folder cleared, the argv."""
    text = eval_config.render(
        read_text(CONFIG.path(run), what="config"),
        run,
        None,
        prompts,
        dims if dims != settings.run_dims else None,
        out_rel=renders_dir.relative_to(run),
        inference_steps=settings.inference_steps,
    )
    path = run / CONFIG_NAME
    write_text(path, text, root=run)
    for contender in contenders:
        layout.remove_cruft(run, renders_dir / contender.name)
    return program_argv(program, path, renders_dir, [(c.name, c.checkpoint) for c in contenders], loss)


def _since_last_note(log: Path) -> str:
    """The log from this attempt's note on: the program's words about this run, not an earlier's."""
    try:
        text = read_text(log, what="log")
    except WizardError:
        return ""
    return text[text.rfind("=== compare: renders of ") :]


@dataclass(frozen=True)
class TournamentPlan:
    prompts: tuple[EvalPrompt, ...]
    settings: Settings
    program: Command  # tournament_program.py: up to the program's arguments
    log: Path
    lines: tuple[str, ...]  # what compare prints before it asks


def tournament_log(run_dir: Path) -> Path:
    return LOGS_DIR.path(Path(run_dir)) / "compare-renders.log"


def plan_tournament(
    run_dir: Path,
    config: Mapping[str, Any],
    checkpoints: int,
    stand_in: StandIn | None,
    *,
    loss: bool = False,
) -> TournamentPlan:
    """What the tournament renders for the base and `checkpoints` checkpoints (`loss`: its process
    computes the held-out loss first); UsageError (exit 2) where the run has no training caption to
    draw its prompts from."""
    from ltx_wizard.core.evaluation.job_planning import audio_run
    from ltx_wizard.core.evaluation.prompts import collect, find_sources
    from ltx_wizard.core.evaluation.eval_config import from_rows_only

    run = Path(run_dir)
    sources = find_sources(run)
    if sources.holdout is None:  # the held-out rows preprocess encoded for the held-out loss
        sources = replace(sources, holdout=_held_out_rows(run))
    found = collect(sources, audio=audio_run(config), rows_for_ood=from_rows_only(config))
    prompts = tournament_prompts(found)
    program = program_command(run, stand_in)
    settings = tournament_settings(config)
    log = tournament_log(run)
    lines = _lines(prompts, settings, checkpoints, log, loss)
    return TournamentPlan(prompts, settings, program, log, tuple(lines))


def _held_out_rows(run: Path) -> Path | None:
    """preprocess.json's held-out file (beside the dataset file), where prepare's copy in the run
    folder is absent: the clips the held-out loss reads are the held-out column's prompts."""
    from ltx_wizard.core.preprocess.preprocess_state import read_state

    state = read_state(run)
    held = state.held_out if state is not None else None
    return held.file if held is not None and held.file is not None and held.file.is_file() else None


def _lines(
    prompts: Sequence[EvalPrompt], settings: Settings, checkpoints: int, log: Path, loss: bool
) -> list[str]:
    categories = ", ".join(p.category for p in prompts)
    width, height, frames = settings.dims
    run_w, run_h, run_f = settings.run_dims
    lines = [
        f"- tournament renders: the base and {checkpoints} checkpoint(s) x {len(prompts)} prompt(s) "
        f"(the first of each category: {categories}) at seed {SEED} = "
        f"{(checkpoints + 1) * len(prompts)} short clips of {frames} frames at {width}x{height}, "
        f"{settings.inference_steps} inference steps (the run validates {run_f} frames at "
        f"{run_w}x{run_h}, {settings.run_steps} steps): one process in the trainer's environment, "
        "one model load for every row"
        + (" and, before them, the held-out loss" if loss else "")
        + ", each checkpoint's LoRA swapped in place, rendered by the "
        f"trainer's own validation; log: {log}"
    ]
    if len(prompts) < len(CATEGORIES):
        lines.append("  (no held-out clips: the held-out column is left out)")
    return lines
