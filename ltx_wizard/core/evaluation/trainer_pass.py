"""One validate-only trainer run that renders a list of prompts at step 0: the render machinery the
evaluation (job_runner.py) and the tournament (tournament.py) share, so there is one owner of how
a render is made, watched, stopped early and retried.

The trainer renders every sample at step 0, then would train one step, render them all again at
step 1 and save a checkpoint: once all step-0 renders are written (and it has said so) the run is
stopped, its ranks with it, as the rest would only be thrown away. An out-of-memory run is retried
once at half the width and height (the skill's rule). A stop request ends the running process.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Callable

from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.evaluation import eval_config, layout
from ltx_wizard.core.evaluation.command_run import Child, Outcome
from ltx_wizard.core.evaluation.job import Command
from ltx_wizard.core.evaluation.prompts import EvalPrompt
from ltx_wizard.core.evaluation.trainer_command import with_config
from ltx_wizard.core.io.bounded import read_text
from ltx_wizard.core.io.run_folder import CONFIG, EVAL_LOG
from ltx_wizard.core.io.safe_fs import write_text

Dims = tuple[int, int, int]


class Stopped(Exception):
    """The user asked the evaluation to stop."""


class Failed(WizardError):
    """A render could not be made; the message says why, in the process's own words."""


@dataclass(frozen=True)
class PassRequest:
    """What one validate-only run renders: its config's file name in the run folder, the LoRA
    (None: the base model), the prompts, their size, and the inference steps where they differ
    from the run's; `out_rel` is the run's output_dir (its samples/ and cruft land there)."""

    config_name: str
    checkpoint: Path | None
    prompts: tuple[EvalPrompt, ...]
    out_rel: Path = eval_config.EVAL_OUTPUT_REL
    inference_steps: int | None = None


class TrainerPass:
    """Runs children one at a time for a runner: `on_child(pid)` is told each child's pid (the
    evaluation records it in its state), `note` writes a line to the runner's log, `log_rel`."""

    def __init__(
        self,
        run_dir: Path,
        log: IO[str],
        note: Callable[[str], None],
        *,
        stop: threading.Event,
        poll_s: float = 0.2,
        on_child: Callable[[int], None] = lambda pid: None,
        log_rel: str = EVAL_LOG.rel,
    ) -> None:
        self.run_dir, self.log, self.note = Path(run_dir), log, note
        self.log_rel = log_rel  # the log's path in the run folder, for a failure's words
        self.stop, self.poll_s, self.on_child = stop, poll_s, on_child

    def child(
        self, argv: list[str], cwd: str, env: dict[str, str], ready: Callable[[], bool] | None = None
    ) -> Outcome:
        """Run one process to its end; `ready` (the step-0 renders all written) stops a trainer
        run early."""
        child = Child(argv, cwd, env, self.log)
        self.on_child(child.pid)
        while child.poll() is None:
            if self.stop.is_set():
                child.stop()
                raise Stopped()
            if ready is not None and child.outcome.step0_saved and ready():
                self.note(
                    "the step-0 renders are in: the validate-only run is stopped here "
                    "(its training step and second round of renders would be discarded)"
                )
                child.stop()
                child.outcome.code = 0
                break
            self.stop.wait(self.poll_s)
        if self.stop.is_set():  # a signal's handler stopped the child (core/proc), then asked us
            raise Stopped()
        return child.outcome

    def retry_dims(self, outcome: Outcome, attempt: int, what: str, dims: Dims) -> Dims:
        """The size to retry at once after an out-of-memory render; Failed otherwise."""
        size = "x".join(map(str, dims))
        if outcome.oom and attempt == 1:
            smaller = eval_config.smaller_dims(dims)
            self.note(
                f"out of memory at {size}: retrying once at "
                f"{'x'.join(map(str, smaller))} (the skill's one retry)"
            )
            return smaller
        if outcome.oom:
            raise Failed(
                f"{what} ran out of GPU memory at {size}, also after the retry at a "
                "smaller size: render by hand through packages/ltx-pipelines "
                "(--offload cpu)"
            )
        why = outcome.failure or f"exit status {outcome.code}"
        raise Failed(f"{what} ended without its renders: {why} ({self.log_rel} has its output)")

    def render(
        self, trainer: Command, request: PassRequest, dims: Dims, asked: Dims
    ) -> tuple[dict[int, Path], Dims]:
        """The step-0 renders by sample index, and the size they were made at. `asked`: the
        run's own size (a `dims` equal to it leaves validation.video_dims as config.yaml has it)."""
        out_dir = self.run_dir / request.out_rel
        path = self.run_dir / request.config_name
        base_text = read_text(CONFIG.path(self.run_dir), what="config")
        wanted = len(request.prompts)
        for attempt in (1, 2):
            text = eval_config.render(
                base_text,
                self.run_dir,
                request.checkpoint,
                request.prompts,
                dims if dims != tuple(asked) else None,
                out_rel=request.out_rel,
                inference_steps=request.inference_steps,
            )
            write_text(path, text, root=self.run_dir)
            layout.remove_cruft(self.run_dir, out_dir)
            outcome = self.child(
                with_config(trainer, path),
                trainer.cwd,
                trainer.env,
                ready=lambda: len(layout.trainer_samples(self.run_dir, out_dir=out_dir)) >= wanted,
            )
            found = layout.trainer_samples(self.run_dir, out_dir=out_dir)
            if len(found) >= wanted:
                return found, dims
            dims = self.retry_dims(outcome, attempt, f"the trainer ({request.config_name})", dims)
        raise AssertionError("unreachable: the second attempt returns or raises")
