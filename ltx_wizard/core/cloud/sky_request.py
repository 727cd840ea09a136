"""What a SkyPilot task is built from, read from the run folder, and the plan's checks made before
anything is rented: the effective batch as planned, one trainer commit for every node, a shared
outputs folder where several nodes need one, the data and the model files at hand.

A refusal is a UsageError (exit 2) naming the fix; what only needs knowing is a warning line.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, Mapping

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.cloud import sky_layout as at
from ltx_wizard.core.cloud.git_head import head_commit
from ltx_wizard.core.cloud.sky_layout import ModelSource, accelerator_name, model_source
from ltx_wizard.core.inputs.checkout import TRAINER_REPO
from ltx_wizard.core.io.bounded import read_text
from ltx_wizard.core.io.run_folder import ACCELERATE, CONFIG, require_config
from ltx_wizard.core.io.trainer_config import trainer_config
from ltx_wizard.core.io.yaml_patch import load_yaml
from ltx_wizard.core.plan.host_limits import output_disk_need
from ltx_wizard.core.plan.next_steps import pending_preprocess
from ltx_wizard.core.plan.record import PlanRecord, read_record

GB = 10**9
ENV_ALLOWANCE_GB = 60  # the image, uv's cache and the trainer's environment (torch, CUDA libraries)
MIN_DISK_GB = 100
SMOKE_STEPS = 20
HF_TOKEN = "HF_TOKEN"  # handed to the nodes with `sky jobs launch --secret HF_TOKEN`
_NAME = re.compile(r"[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")  # a bucket name every store accepts
_MODEL_KEYS = ("model.model_path", "model.text_encoder_path", "model.video_vae_path", "model.audio_vae_path")


@dataclass(frozen=True)
class SkyOptions:
    spot: bool = False
    bucket: str | None = None  # outputs/ on a bucket (MOUNT_CACHED)
    volume: str | None = None  # outputs/ on a SkyPilot volume
    accelerator: str | None = None  # instead of the plan's GPU's name


@dataclass(frozen=True)
class SkyRequest:
    run_dir: Path
    run_name: str
    accelerator: str
    gpus_per_node: int
    nodes: int
    style: str  # single, ddp or fsdp: the plan's launch style
    training_mode: str
    effective_batch: int
    disk_gb: int
    commit: str
    repo: str
    models: tuple[ModelSource, ...]
    data_local: Path
    data_remote: PurePosixPath
    data_uploaded: bool  # False: it lies inside the run folder, which is uploaded anyway
    media: tuple[tuple[Path, PurePosixPath], ...]
    config_text: str
    run_accelerate: bool  # the run folder has its own accelerate.yaml (one node, several GPUs)
    options: SkyOptions
    warnings: tuple[str, ...]

    @property
    def token_needed(self) -> bool:
        """A model file is downloaded from the Hub (the LTX-2 files are gated: a token is needed)."""
        return any(m.download for m in self.models)

    @property
    def task_name(self) -> str:
        slug = re.sub(r"[^a-z0-9-]+", "-", self.run_name.lower()).strip("-")[:40] or "run"
        return f"ltx-{slug}"


_ACCELERATOR = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}")


def check_accelerator(value: str) -> str:
    if not _ACCELERATOR.fullmatch(value):
        raise UsageError(
            f"--accelerator {value!r} is not a GPU name: give one `sky show-gpus` lists (H100, A100-80GB, L40S)"
        )
    return value


def check_name(value: str, flag: str) -> str:
    if not _NAME.fullmatch(value):
        raise UsageError(
            f"{flag} {value!r} is not a name every store accepts: 3 to 63 characters, lower-case "
            "letters, digits, '.' and '-', starting and ending with a letter or digit"
        )
    return value


def _plan(run_dir: Path) -> PlanRecord:
    rec = read_record(run_dir)
    if rec is None:
        raise UsageError(f"{run_dir} has no plan.json (planned by an older wizard): plan the run again")
    return rec


def _effective_batch(rec: PlanRecord, config: Any) -> int:
    """batch x accumulation x every GPU, from config.yaml as it is now (autotune may have patched
    it), against the plan's: a rented machine must train what was planned."""
    keys = trainer_config(config).optimization
    batch, accum = keys.batch_size or 1, keys.gradient_accumulation_steps or 1
    now = batch * accum * rec.schedule.num_gpus
    if now != rec.schedule.effective_batch:
        raise UsageError(
            f"config.yaml trains an effective batch of {now} (batch {batch} x accumulation {accum} x "
            f"{rec.schedule.num_gpus} GPUs), the plan {rec.schedule.effective_batch}: plan the run again"
        )
    return now


def _validation_on(config: Any) -> bool:
    keys = trainer_config(config).validation
    return bool(keys.sample_list()) and keys.interval is not None and keys.interval > 0


def _outputs_checks(nodes: int, options: SkyOptions, validates: bool) -> list[str]:
    """Several nodes need one outputs folder they all see; one node needs it to survive itself.
    Mirrors ltx_trainer/trainer.py LtxvTrainer._run_distributed_validation: each rank saves its share
    of the samples under output_dir/samples (validation_runner.py ValidationRunner.run) and only their
    paths are gathered (gather_object) for the main process's W&B log and Hub push."""
    if options.bucket or options.volume:
        if nodes > 1 and options.volume:
            return [
                f"--volume {options.volume}: all {nodes} nodes mount it at once, so it must allow "
                "many writers (a Kubernetes PVC with ReadWriteMany, a network volume); else use --bucket"
            ]
        return []
    if nodes > 1 and validates:
        raise UsageError(
            f"{nodes} nodes need one outputs folder they all see (every rank renders its share of the "
            "validation videos there, and a recovered job finds its checkpoints there): pass "
            "--bucket NAME or --volume NAME"
        )
    return [
        "outputs/ is on the node's own disk: checkpoints end with the node, and a job recovered "
        "after a preemption starts again from step 0; pass --bucket NAME or --volume NAME to keep them"
    ]


def _media(config: Any) -> tuple[tuple[Path, PurePosixPath], ...]:
    """Validation media named by absolute path: uploaded, one remote name each."""
    found: list[tuple[Path, PurePosixPath]] = []
    for i, sample in enumerate(trainer_config(config).validation.sample_list()):
        for key, value in sorted(sample.items()):
            if isinstance(value, str) and value.startswith("/") and Path(value).exists():
                found.append((Path(value), at.MEDIA / f"{i}-{key}-{Path(value).name}"))
    return tuple(found)


def _size(path: Path, limit: int = 200_000) -> int:
    if path.is_file():
        return path.stat().st_size
    total = 0
    for n, item in enumerate(path.rglob("*")):
        if n >= limit:
            break
        if item.is_file() and not item.is_symlink():
            total += item.stat().st_size
    return total


def _disk_gb(rec: PlanRecord, config: Any, models: tuple[ModelSource, ...], data: Path) -> int:
    """The plan's disk budget for its outputs, plus what the node holds besides: models, data, env."""
    need = sum(_size(m.local) for m in models) + _size(data)
    if rec.checkpoint is not None:
        need += output_disk_need(config, rec.checkpoint)
    gb = math.ceil(need / GB) + ENV_ALLOWANCE_GB
    return max(MIN_DISK_GB, math.ceil(gb / 10) * 10)


def _models(config: Any) -> tuple[ModelSource, ...]:
    model = trainer_config(config).model
    paths = (model.model_path, model.text_encoder_path, model.video_vae_path, model.audio_vae_path)
    found = []
    for key, value in zip(_MODEL_KEYS, paths):
        if value:
            local = Path(str(value))
            if not local.exists():
                raise UsageError(f"{key} {local} is not here: the task downloads or uploads it from here")
            found.append(model_source(key, local))
    return tuple(found)


def build_request(run_dir: Path, options: SkyOptions, env: Mapping[str, str] | None = None) -> SkyRequest:
    """The task's inputs, every check made; UsageError on the first refusal."""
    run_dir = Path(run_dir).absolute()
    config_path = require_config(run_dir)
    rec = _plan(run_dir)
    text = read_text(config_path, what=CONFIG.name)
    config = load_yaml(text)
    effective = _effective_batch(rec, config)
    nodes = rec.schedule.nodes
    warnings = _outputs_checks(nodes, options, _validation_on(config))
    data = Path(rec.data.root)
    pending = pending_preprocess(run_dir)
    if pending is not None or not data.is_dir():
        raise UsageError(
            f"the data root {data} is not written yet: the nodes train on the preprocessed latents, "
            f"so preprocess here first ({pending or f'ltx-wizard preprocess {run_dir}'})"
        )
    inside = data.resolve().is_relative_to(run_dir.resolve())
    remote = at.RUN / data.resolve().relative_to(run_dir.resolve()).as_posix() if inside else at.DATA
    trainer_root = rec.request.trainer_root
    if trainer_root is None:
        raise UsageError(f"{run_dir}/plan.json names no trainer checkout: plan the run again")
    models = _models(config)
    if any(m.download for m in models) and HF_TOKEN not in (os.environ if env is None else env):
        warnings.append(
            f"export {HF_TOKEN}=<your Hugging Face token> before the sky commands: `--secret {HF_TOKEN}` "
            "reads it from your environment, and the nodes download gated model files with it"
        )
    return SkyRequest(
        run_dir=run_dir,
        run_name=rec.run_name,
        accelerator=options.accelerator or accelerator_name(rec.gpu_lines),
        gpus_per_node=rec.schedule.num_gpus // max(1, nodes),
        nodes=nodes,
        style=rec.launch_style,
        training_mode=rec.training_mode,
        effective_batch=effective,
        disk_gb=_disk_gb(rec, config, models, data),
        commit=head_commit(Path(trainer_root)),
        repo=TRAINER_REPO,
        models=models,
        data_local=data,
        data_remote=PurePosixPath(remote),
        data_uploaded=not inside,
        media=_media(config),
        config_text=text,
        run_accelerate=ACCELERATE.path(run_dir).is_file() and nodes == 1,
        options=options,
        warnings=tuple(warnings),
    )
