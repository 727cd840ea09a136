"""run-summary.md's "Render with it": the run's mode through its own ltx-pipelines entry point, with
the inputs that mode takes, as a command that runs from the user's LTX-2 checkout.

The same decisions as the evaluation's production renders (pipeline_modes.mode_for, the model
files of production.py and pipeline_files.py, the conditioning flags of render_conditioning.py), for one
prompt: the first in-distribution prompt of the evaluation's job when it ran (its first frame, its
reference, its sound), else the first training caption of the clips the trainer trains on, with
that row's own inputs, else the run's own validation sample. An image-to-video render takes a
still: a clip's frame 0 is written as a PNG under outputs/eval/inputs, as the evaluation writes it.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any, Mapping

from ltx_wizard.core.io.run_folder import CONFIG
from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.evaluation import pipeline_files
from ltx_wizard.core.evaluation import render_conditioning as conditioning
from ltx_wizard.core.evaluation.eval_config import run_conditions
from ltx_wizard.core.evaluation.job import read_job
from ltx_wizard.core.evaluation.layout import stems
from ltx_wizard.core.evaluation.pipeline_modes import PipelineMode, mode_for
from ltx_wizard.core.evaluation.production import LORA_STRENGTH, model_args
from ltx_wizard.core.evaluation.prompts import IN_DIST, EvalPrompt, collect, find_sources
from ltx_wizard.core.io.trainer_config import trainer_config

# packages/ltx-pipelines/README.md "Running Pipelines": after `uv sync` at the repository root,
# `python -m ltx_pipelines.<module>`; `uv run` runs it in that environment from the root
PREFIX = ("uv", "run", "python", "-m")


def _validation_prompt(config: Mapping[str, Any]) -> EvalPrompt:
    samples = trainer_config(config).validation.sample_list()
    text = samples[0].get("prompt") if samples else None
    return EvalPrompt(IN_DIST, str(text or "<your prompt>"), CONFIG.name)


def render_prompt(run_dir: Path, config: Mapping[str, Any]) -> EvalPrompt:
    """The prompt the line renders, with its row's inputs: the evaluation's first in-distribution
    prompt, else the first training caption the evaluation would draw, else the config's own."""
    try:
        return next(p for p in read_job(run_dir).prompts if p.category == IN_DIST)
    except (WizardError, StopIteration):
        pass
    try:
        return collect(find_sources(Path(run_dir))).of(IN_DIST)[0]
    except (WizardError, IndexError, KeyError):
        return _validation_prompt(config)


def _inputs(run_dir: Path, config: Mapping[str, Any], prompt: EvalPrompt) -> tuple[list[str], str]:
    stem = stems([prompt])[0]
    try:
        return conditioning.inputs(run_dir, run_conditions(config), prompt, stem)
    except WizardError as exc:  # no PyAV, an unreadable clip: say so beside the line
        return [], f"its inputs could not be made here: {exc.message}"


def render_lines(
    run_dir: Path, config: Mapping[str, Any], checkpoint: Path, *, chosen: str | None = None
) -> list[str]:
    """The section's body: which checkpoint and why (`chosen`, the caller's words), where to run
    it, the command, what it is fed."""
    mode = mode_for(config)
    if not isinstance(mode, PipelineMode):
        return [f"No ltx-pipelines entry point renders this run's mode: {mode}."]
    extras, missing = pipeline_files.extras(config, mode)
    prompt = render_prompt(Path(run_dir), config)
    inputs, fed = _inputs(Path(run_dir), config, prompt)
    # flags as the entry points' parsers name them (ltx_pipelines/utils/args.py basic_arg_parser:
    # --lora PATH STRENGTH, --prompt, --output-path; the mode's own: ic_lora.py main()
    # --video-conditioning, a2vid_two_stage.py build_a2vid_arg_parser --audio-path, --image)
    argv = [
        *PREFIX,
        mode.module,
        *model_args(config, mode, extras, placeholders=True),
        "--lora",
        str(checkpoint),
        LORA_STRENGTH,
        "--prompt",
        prompt.text,
        *inputs,
        "--output-path",
        str(Path(checkpoint).parent.parent / f"render.{mode.ext}"),
    ]
    lines = [f"It uses {chosen}: `{checkpoint}`.", ""] if chosen else []
    lines += [f"From your LTX-2 checkout, {mode.title} through `{mode.module}` (ltx-pipelines):", ""]
    lines += ["```bash", shlex.join(argv), "```", ""]
    if fed:
        lines += [f"Fed {fed} ({prompt.source}).", ""]
    if missing:
        lines += [f"Not found here: {missing}.", ""]
    return lines
