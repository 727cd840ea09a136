"""Whether the evaluation also renders through ltx-pipelines, and how, for `ltx-wizard eval` and the
Results screen alike: the command that starts it (the stand-in's where the GPUs are simulated), the
GPU memory and host RAM it is checked against, the memory option picked, and the lines that say so.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Sequence

from ltx_wizard.core.base.errors import UsageError, WizardError
from ltx_wizard.core.base.units import GIB
from ltx_wizard.core.evaluation import memory
from ltx_wizard.core.evaluation.job import Command, Production
from ltx_wizard.core.evaluation.job_planning import Setup, memory_options, production_for
from ltx_wizard.core.evaluation.production import uv_prefix

ProductionMode = Literal["auto", "yes", "no"]  # `eval --production`; the Results screen asks auto


@dataclass(frozen=True)
class ProductionChoice:
    """What was decided (None: no production renders) and the lines that say why."""

    production: Production | None
    lines: list[str]


def pipelines_prefix(s: Setup) -> Command:
    """How ltx-pipelines starts here: `uv run` in the checkout's package, or the stand-in."""
    assert s.checkout is not None and s.offer.mode is not None
    module = s.offer.mode.module
    if s.stand_in is not None:
        argv, env = s.stand_in.pipelines(module)
        return Command(argv, str(s.checkout), env)
    uv = s.trainer.argv[0] if Path(s.trainer.argv[0]).name == "uv" else "uv"
    return uv_prefix(s.checkout, module, uv)


def gpu_total_gb(s: Setup) -> float | None:
    """The smallest of the run's GPUs (its CUDA_VISIBLE_DEVICES), in GiB; None when unknown. On
    simulated GPUs: the stand-in's preset's."""
    try:
        if s.stand_in is not None:
            from ltx_wizard.core.gpu.presets import preset_gpus

            gpus = tuple(preset_gpus(s.stand_in.preset))
        else:
            from ltx_wizard.core.gpu.probe import probe_gpus

            gpus = tuple(probe_gpus({**os.environ, **s.trainer.env}).gpus)
    except WizardError:
        return None
    totals = [g.memory_total_bytes for g in gpus if g.memory_total_bytes]
    return min(totals) / GIB if totals else None


def host_ram_gb() -> float | None:
    try:
        import psutil

        return float(psutil.virtual_memory().total) / GIB
    except (ImportError, OSError):
        return None


def pick(
    options: Sequence[memory.Option], quantization: str | None, offload: str | None
) -> memory.Option | None:
    """The user's own choice when given (even one that may not fit: theirs to try), else the
    first that fits."""
    if quantization or offload:
        return next(o for o in options if (o.quantization, o.offload) == (quantization, offload))
    return memory.first_fit(list(options))


def _offer_lines(s: Setup) -> list[str]:
    lines = [f"Production inference: {s.offer.reason}"]
    lines += [f"  with {path}" for path in s.offer.extras.values()]
    if s.offer.mode is not None and s.offer.mode.feeds:
        lines.append(f"  each render fed {s.offer.mode.feeds}")
    if s.offer.mode is not None and s.offer.mode.multiple != 32:
        lines.append(f"  sizes in steps of {s.offer.mode.multiple} (its two stages)")
    return lines


def production_choice(
    s: Setup,
    mode: ProductionMode = "auto",
    quantization: str | None = None,
    offload: str | None = None,
    *,
    host_gb: float | None = None,
) -> ProductionChoice:
    """UsageError where `mode` is "yes" and it cannot run. `host_gb`: the host's RAM (read here
    when not given)."""
    if mode == "no":
        return ProductionChoice(None, ["Production inference (ltx-pipelines): not asked for"])
    if not s.offer.available:
        if mode == "yes":
            raise UsageError(f"--production yes: {s.offer.reason}")
        return ProductionChoice(None, [f"Production inference (ltx-pipelines): not run: {s.offer.reason}"])
    total, ram = gpu_total_gb(s), host_gb if host_gb is not None else host_ram_gb()
    options = memory_options(s, total, ram)
    chosen = pick(options, quantization, offload)
    lines = _offer_lines(s) + ["  memory per GPU:"]
    lines += [f"  {'->' if o is chosen else '  '} {memory.fit_line(o, total, ram)}" for o in options]
    if chosen is None:
        if mode == "yes":
            raise UsageError("--production yes: ltx-pipelines fits in none of the ways above")
        return ProductionChoice(None, lines + ["  not run: it fits in none of these ways"])
    return ProductionChoice(production_for(s, pipelines_prefix(s), chosen), lines)
