"""The evaluation job: the validate-only trainer runs (with the LoRA, then without it), then the
production renders, one process at a time, each file laid out as soon as it is made.

How a process is run, stopped early once its step-0 renders are in, and retried once smaller after
running out of memory is trainer_pass.py's (shared with the tournament); the sizes each render
ran at are in prompts.json. A stop request ends the running process and leaves what is done laid
out.
"""

from __future__ import annotations

import threading
from functools import partial
from pathlib import Path
from typing import IO, Callable

from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.evaluation import eval_config, layout
from ltx_wizard.core.evaluation import render_conditioning as conditioning
from ltx_wizard.core.evaluation.command_run import Outcome
from ltx_wizard.core.evaluation.job import EvalJob, EvalState, write_state
from ltx_wizard.core.evaluation.layout import PIPELINES, TRAINER, Manifest, Render
from ltx_wizard.core.evaluation.production import fit_dims, render_argv
from ltx_wizard.core.evaluation.trainer_command import LOG_ENV
from ltx_wizard.core.evaluation.trainer_pass import Failed, PassRequest, Stopped, TrainerPass
from ltx_wizard.core.io.safe_fs import check_inside

__all__ = ["EvalRunner", "Failed", "Stopped", "quantization_label"]


def quantization_label(quantization: str | None, offload: str | None = None) -> str:
    text = quantization or "bf16, not quantized"
    return text + (f", offload {offload}" if offload else "")


class EvalRunner:
    def __init__(
        self,
        run_dir: Path,
        job: EvalJob,
        log: IO[str],
        *,
        stop: threading.Event | None = None,
        poll_s: float = 0.2,
        say: Callable[[str], None] | None = None,
    ) -> None:
        self.run_dir, self.job, self.log = Path(run_dir), job, log
        self.stop = stop or threading.Event()
        self.poll_s = poll_s
        self.say = say or (lambda text: None)
        self.dims: tuple[int, int, int] = job.dims
        self.stems = layout.stems(job.prompts)
        self.manifest = Manifest(job.checkpoint_note, notes=list(job.notes))
        self.inputs: dict[int, tuple[list[str], str]] = {}  # a prompt's production inputs
        self.stages = self._stages()
        self.done = 0
        self.passes = TrainerPass(
            self.run_dir,
            log,
            self.note,
            stop=self.stop,
            poll_s=poll_s,
            on_child=self._child_started,
        )

    def _child_started(self, pid: int) -> None:
        self._state("running", self.stages[self.done][0], child=pid)

    def _stages(self) -> list[tuple[str, Callable[[], None]]]:
        stages = [("trainer validation with the LoRA", lambda: self._trainer(True))]
        if self.job.like_for_like:
            stages.append(("trainer validation without the LoRA (base model)", lambda: self._trainer(False)))
        if self.job.production is not None:
            for index, stem in enumerate(self.stems):
                for lora in (True, False) if self.job.like_for_like else (True,):
                    name = f"ltx-pipelines: {stem} {'with' if lora else 'without'} the LoRA"
                    stages.append((name, partial(self._production, index, lora)))
        return stages

    # -- the whole job ------------------------------------------------------------------------

    def run(self) -> EvalState:
        for made_by in (TRAINER, PIPELINES):
            layout.clear_category_files(self.run_dir, made_by)
        layout.clear_inputs(self.run_dir)
        layout.remove_cruft(self.run_dir)
        layout.write_manifest(self.run_dir, self.manifest)
        try:
            for name, stage in self.stages:
                self._state("running", name)
                self.note(f"{name} ({self.done + 1} of {len(self.stages)})")
                stage()
                self.done += 1
        except Stopped:
            return self._end("stopped", "stopped by the user", None)
        except WizardError as exc:
            return self._end("failed", "failed", exc.message)
        finally:
            layout.remove_cruft(self.run_dir)
            layout.write_manifest(self.run_dir, self.manifest)
        return self._end("done", "done", None)

    def _end(self, state: str, stage: str, error: str | None) -> EvalState:
        self.note(f"evaluation {state}" + (f": {error}" if error else ""))
        return self._state(state, stage, error=error)

    def _state(
        self, state: str, stage: str, *, error: str | None = None, child: int | None = None
    ) -> EvalState:
        found = EvalState(state, stage, self.done, len(self.stages), error, child)
        write_state(self.run_dir, found)
        return found

    def note(self, text: str) -> None:
        self.log.write(f"=== eval: {text}\n")
        self.log.flush()
        self.say(text)

    # -- one process ----------------------------------------------------------------------------

    def _child(self, argv: list[str], cwd: str, env: dict[str, str]) -> Outcome:
        return self.passes.child(argv, cwd, env)

    def _failed_run(self, outcome: Outcome, attempt: int, what: str) -> None:
        """Retry once, smaller, after an out-of-memory render; raise otherwise."""
        self.dims = self.passes.retry_dims(outcome, attempt, what, self.dims)

    # -- the trainer's validation -------------------------------------------------------------

    def _trainer(self, lora: bool) -> None:
        name = eval_config.EVAL_CONFIG if lora else eval_config.BASE_CONFIG
        checkpoint = Path(self.job.checkpoint) if lora else None
        request = PassRequest(name, checkpoint, tuple(self.job.prompts))
        _found, self.dims = self.passes.render(self.job.trainer, request, self.dims, self.job.dims)
        self._lay_out_trainer(lora)

    def _lay_out_trainer(self, lora: bool) -> None:
        found = layout.trainer_samples(self.run_dir)
        for index, (prompt, stem) in enumerate(zip(self.job.prompts, self.stems)):
            source = found[index]
            name = layout.file_name(stem, TRAINER, lora, source.suffix.lstrip("."))
            dims, asked = layout.file_dims(layout.move_render(self.run_dir, source, name), self.dims)
            self.manifest.renders[name] = Render(
                name,
                prompt.category,
                prompt.text,
                prompt.seed,
                lora,
                TRAINER,
                quantization_label(self.job.quantization) + " (training stack)",
                dims,
                prompt.source,
                conditioning=conditioning.described(self.job.conditions, prompt),
                asked_dims=asked,
            )
        layout.remove_cruft(self.run_dir)
        layout.write_manifest(self.run_dir, self.manifest)

    # -- production inference -----------------------------------------------------------------

    def _production(self, index: int, lora: bool) -> None:
        prod = self.job.production
        assert prod is not None
        prompt, stem = self.job.prompts[index], self.stems[index]
        if index not in self.inputs:  # once per prompt: the same for both renders
            self.inputs[index] = conditioning.inputs(self.run_dir, prod.conditions, prompt, stem)
        inputs, fed = self.inputs[index]
        name = layout.file_name(stem, PIPELINES, lora, prod.ext)
        out = check_inside(self.run_dir, layout.eval_dir(self.run_dir) / name)
        env = {**self.job.trainer.env, **prod.prefix.env, **LOG_ENV}  # the run's GPUs
        for attempt in (1, 2):
            dims = fit_dims(self.dims, prod.multiple)
            argv = render_argv(
                prod, prompt.text, prompt.seed, out, dims, Path(self.job.checkpoint) if lora else None, inputs
            )
            outcome = self._child(argv, prod.prefix.cwd, env)
            if outcome.code == 0 and out.is_file():
                break
            out.unlink(missing_ok=True)
            self._failed_run(outcome, attempt, f"ltx-pipelines ({prod.module})")
        made, asked = layout.file_dims(out, dims)
        self.manifest.renders[name] = Render(
            name,
            prompt.category,
            prompt.text,
            prompt.seed,
            lora,
            PIPELINES,
            quantization_label(prod.quantization, prod.offload),
            made,
            prompt.source,
            pipeline=prod.module,
            conditioning=fed,
            asked_dims=asked,
        )
        layout.write_manifest(self.run_dir, self.manifest)
