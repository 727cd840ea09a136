"""plan.md's Memory and disk section: the planned config's GPU floor, host RAM and free disk.

The GPU floor is headroom.py's (what autotune's baseline needs per GPU, FSDP shards counted over
every GPU of every node); host RAM and disk are host_limits.py's, for the processes of one node.
A run that cannot fit the host is refused here (exit 2); one that cannot fit its GPUs is warned
about, since the trainer, not the wizard, has the last word on GPU memory.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from ltx_wizard.core.gpu.assessment import Assessment
from ltx_wizard.core.tuning.headroom import model_size, plan_floor
from ltx_wizard.core.tuning.trial_config import settings_from_config
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.plan.host_limits import HostCheck, HostReadings, check_host, read_host
from ltx_wizard.core.inputs.checkpoint import CheckpointInfo
from ltx_wizard.core.inputs.text_encoder import TextEncoderInfo
from ltx_wizard.core.io.trainer_config import trainer_config
from ltx_wizard.core.io.yaml_patch import load_yaml

if TYPE_CHECKING:  # imported where the plan counts the latents (config_step._latents)
    from ltx_wizard.core.preprocess.latent_disk import LatentDisk

HostSource = HostReadings | Callable[[Path], HostReadings] | None


@dataclass(frozen=True)
class PlanMemory:
    lines: tuple[str, ...]  # for plan.md and the Summary screen
    warnings: tuple[str, ...]
    host: HostCheck


def host_readings(host: HostSource, run_root: Path) -> HostReadings:
    """The host as read once for the plan (`read_host` is looked up here at call time, so tests
    can replace it on this module)."""
    return host if isinstance(host, HostReadings) else (host or read_host)(run_root)


def plan_memory(
    config_text: str,
    ckpt: CheckpointInfo,
    te: TextEncoderInfo,
    gpus_per_node: int,
    total_gpus: int,
    run_root: Path,
    assessment: Assessment,
    host: HostSource = None,
    latents: LatentDisk | None = None,
) -> PlanMemory:
    config = load_yaml(config_text)
    readings = host_readings(host, run_root)
    checked = check_host(
        config,
        ckpt,
        te.param_count,
        gpus_per_node,
        readings,
        enforce=assessment.probe.source != "simulated",
        latents=latents,
    )
    if checked.refusal:
        raise UsageError(checked.refusal)
    size = model_size(ckpt, trainer_config(config).lora.target_modules)
    known = [g.memory_total_bytes for g in assessment.probe.gpus if g.memory_total_bytes]
    gpu_gb = (
        min(known) / 1024**3
        if known
        else float(assessment.per_gpu_vram_gb)
        if assessment.per_gpu_vram_gb
        else None
    )
    floor_line, floor_warning = plan_floor(settings_from_config(config_text), size, total_gpus, gpu_gb)
    warnings = checked.warnings + ((floor_warning,) if floor_warning else ())
    return PlanMemory((floor_line, *checked.lines), warnings, checked)
