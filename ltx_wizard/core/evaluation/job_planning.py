"""Everything the evaluation decides before it starts, for the CLI and the Results screen alike:
the run's config, the checkpoint, the prompts, the trainer command, whether the production path
is on offer here and what memory it needs, and at the end the job that is written and run.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from ltx_wizard.core.io.run_folder import require_config
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.base.stand_in import StandIn
from ltx_wizard.core.dataset.sources import audio_folder
from ltx_wizard.core.evaluation import memory, production
from ltx_wizard.core.evaluation.checkpoints import Choice, choose
from ltx_wizard.core.evaluation.eval_config import from_rows_only, run_conditions, video_dims
from ltx_wizard.core.evaluation.pipeline_modes import PipelineMode, mode_for
from ltx_wizard.core.evaluation.strategy_conditions import strategy_conditions
from ltx_wizard.core.evaluation.job import Command, EvalJob, Production
from ltx_wizard.core.evaluation.prompts import PromptSet, collect, find_sources
from ltx_wizard.core.evaluation.trainer_command import trainer_command
from ltx_wizard.core.io.bounded import read_text
from ltx_wizard.core.io.run_meta import read_run_meta
from ltx_wizard.core.io.trainer_config import TrainerConfig, trainer_config
from ltx_wizard.core.io.yaml_patch import load_yaml


@dataclass(frozen=True)
class Setup:
    run_dir: Path
    config: Mapping[str, Any]
    choice: Choice
    prompts: PromptSet
    trainer: Command
    simulated: bool
    checkout: Path | None
    offer: production.Offer
    stand_in: StandIn | None = None

    @property
    def keys(self) -> TrainerConfig:
        return trainer_config(self.config)

    @property
    def quantization(self) -> str | None:
        return self.keys.acceleration.quantization or None


def _check_weights(path: Path) -> None:
    """The LoRA file's header, read and checked before any render (issue 43): a truncated or
    foreign file is refused here with its problem named, not by the trainer minutes later."""
    from ltx_wizard.core.inputs.safetensors_header import read_header

    read_header(path)  # UsageError naming the file and what is wrong with it


def read_run_config(run_dir: Path) -> dict[str, Any]:
    return dict(load_yaml(read_text(require_config(run_dir), what="config")))


def audio_run(config: Mapping[str, Any]) -> bool:
    """The renders carry generated sound: the strategy trains audio and validation makes it."""
    keys = trainer_config(config)
    trains = audio_folder(keys.training_strategy) is not None
    return trains and keys.validation.generate_audio is not False


def setup(
    run_dir: Path,
    *,
    checkpoint: Path | None = None,
    user_prompts: Sequence[str] = (),
    dataset: Path | None = None,
    trigger: str | None = None,
    stand_in: StandIn | None = None,
) -> Setup:
    """Raises UsageError (exit 2) for what the user must change first."""
    run = Path(run_dir).resolve()
    config = read_run_config(run)
    choice = choose(run, config, checkpoint)
    _check_weights(choice.path)
    trainer, simulated = trainer_command(run, stand_in)
    prompts = collect(
        find_sources(run, dataset, trigger),
        user_prompts,
        audio=audio_run(config),
        rows_for_ood=from_rows_only(config),
    )
    note = rows_note(config)  # said wherever the prompts' notes are: eval's lines, the Results screen
    prompts = PromptSet(prompts.prompts, prompts.notes + ((note,) if note else ()))
    checkout = read_run_meta(run).trainer_root
    return Setup(
        run,
        config,
        choice,
        prompts,
        trainer,
        simulated,
        checkout,
        production.offer(checkout, config),
        stand_in,
    )


def memory_options(
    setup_: Setup, gpu_total_gb: float | None, host_ram_gb: float | None = None
) -> list[memory.Option]:
    """The production path's memory options, from the checkpoint's header (no weights read)."""
    from ltx_wizard.core.inputs.checkpoint import inspect_checkpoint
    from ltx_wizard.core.tuning.headroom import ModelSize, model_size

    model = setup_.keys.model
    try:
        size = model_size(inspect_checkpoint(str(model.model_path)))
    except (UsageError, TypeError):
        size = ModelSize.estimate()  # a split pack's transformer file: the 22 B figure
    encoder = memory.text_encoder_bytes(model.text_encoder_path)
    dims = video_dims(setup_.config)  # the renders' size: the activations grow with it
    return memory.options(size, encoder, gpu_total_gb, host_ram_gb, dims)


def production_for(setup_: Setup, prefix: Command, option: memory.Option) -> Production:
    assert setup_.checkout is not None
    return production.production(
        setup_.checkout, setup_.config, prefix, option.quantization, option.offload, setup_.offer
    )


def job(
    setup_: Setup,
    prompts: PromptSet,
    *,
    like_for_like: bool = True,
    production_path: Production | None = None,
) -> EvalJob:
    if not prompts.prompts:
        raise UsageError("no prompt to render: every category is empty")
    return EvalJob(
        str(setup_.choice.path),
        setup_.choice.note,
        list(prompts.prompts),
        list(prompts.notes),
        video_dims(setup_.config),
        setup_.quantization,
        setup_.trainer,
        like_for_like,
        production_path,
        run_conditions(setup_.config),
    )


_FED = {
    "first_frame": "first frame (frame 0 of its clip)",
    "reference": "reference video",
    "audio_to_video": "sound (its audio file, else its clip's own)",
    "video_to_audio": "clip",
}


def rows_note(config: Mapping[str, Any]) -> str | None:
    """What eval says when config.yaml validates without media but the mode is conditioned: each
    render gets its own row's input, through the mode's own entry point."""
    if not from_rows_only(config):
        return None
    fed = " and ".join(_FED[str(c["type"])] for c in strategy_conditions(config))
    mode = mode_for(config)
    through = f"; ltx-pipelines renders go through {mode.module}" if isinstance(mode, PipelineMode) else ""
    return (
        "config.yaml validates without conditioning media (planned without --validation-media), "
        f"but the run trains {mode.title if isinstance(mode, PipelineMode) else 'a conditioned mode'}: "
        f"each prompt is fed its own dataset row's {fed}, as the trainer trained on them{through}."
    )


def time_estimate(run_dir: Path, job_: EvalJob) -> str:
    """The trainer's renders, timed by the run's duration estimate (core/tuning/duration.py, the
    one plan.md states): each validate-only run is a load and one pass of the prompts."""
    from ltx_wizard.core.tuning.duration import clock
    from ltx_wizard.core.tuning.tune_record import read_tune_record

    try:
        tuned = read_tune_record(run_dir)
    except (UsageError, OSError):
        tuned = None
    duration = tuned.duration if tuned is not None else None
    runs = 2 if job_.like_for_like else 1
    seconds = duration.validate_only_s(len(job_.prompts), runs) if duration is not None else None
    if duration is None or seconds is None:
        return "Time: not estimated (autotune measured no validation video for this run)"
    each = "a load" + (" each (with and without the LoRA)" if runs == 2 else "")
    production = "; the production renders come on top" if job_.production is not None else ""
    return (
        f"Time: about {clock(seconds)} for the trainer's renders ({runs} run{'s' if runs != 1 else ''}, "
        f"{each}, {len(job_.prompts)} video(s) x ~{duration.config_video_s:.0f} s at "
        f"{duration.inference_steps} inference steps; autotune's estimate){production}"
    )
