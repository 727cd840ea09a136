"""Find the GPUs training will see: NVML first, nvidia-smi as fallback, or a CSV / preset.

Every failure ends as one WizardError line that says what to do next.
"""

from __future__ import annotations

import os
from typing import Mapping

from ltx_wizard.core.base.errors import UsageError, WizardError
from ltx_wizard.core.gpu.devices import GpuInfo, ProbeResult
from ltx_wizard.core.gpu.presets import simulated_probe
from ltx_wizard.core.gpu.nvml_source import LIBRARY_NOT_FOUND, NvmlUnavailable, probe_nvml
from ltx_wizard.core.gpu.smi_source import SmiUnavailable, probe_nvidia_smi, read_csv_file
from ltx_wizard.core.gpu.visible_devices import apply_cuda_visible_devices

NO_GPU = (
    "no NVIDIA GPU found: training LTX-2 needs an NVIDIA CUDA GPU; on a GPU machine check the "
    "driver with `nvidia-smi` (in a container: start it with --gpus all), or plan for another "
    "machine with --from-csv FILE or --simulate PRESET"
)


def _live_gpus(smi_timeout_s: float) -> tuple[list[GpuInfo], str, list[str]]:
    notes: list[str] = []
    try:
        return probe_nvml(), "nvml", notes
    except NvmlUnavailable as nvml_error:
        try:
            gpus = probe_nvidia_smi(smi_timeout_s)
        except SmiUnavailable as smi_error:
            if nvml_error.code == LIBRARY_NOT_FOUND and "not on PATH" in smi_error.message:
                raise WizardError(NO_GPU) from None
            raise WizardError(f"{nvml_error.message} (nvidia-smi: {smi_error.message})") from None
        notes.append(f"NVML unavailable ({nvml_error.message}); read nvidia-smi instead")
        return gpus, "nvidia-smi", notes


def probe_gpus(env: Mapping[str, str] | None = None, *, smi_timeout_s: float = 10.0) -> ProbeResult:
    """Probe this machine's GPUs, narrowed by CUDA_VISIBLE_DEVICES. Raises WizardError."""
    env = os.environ if env is None else env
    gpus, source, notes = _live_gpus(smi_timeout_s)
    if not gpus:
        raise WizardError(NO_GPU)
    cvd = env.get("CUDA_VISIBLE_DEVICES")
    visible, note = apply_cuda_visible_devices(gpus, cvd)
    if note:
        notes.append(note)
    if not visible:
        raise WizardError(f"{note}; unset it or list the GPUs to train on (e.g. CUDA_VISIBLE_DEVICES=0,1)")
    return ProbeResult(
        source=source,  # type: ignore[arg-type]  # one of the Literal's values, by the branches above
        gpus=tuple(visible),
        notes=tuple(notes),
        cuda_visible_devices=cvd if note else None,
    )


def resolve_probe(
    from_csv: str | None = None,
    simulate: str | None = None,
    env: Mapping[str, str] | None = None,
) -> ProbeResult:
    """The probe the user asked for: a saved CSV, a simulated preset, or this machine."""
    if from_csv and simulate:
        raise UsageError("--from-csv and --simulate exclude each other: pick one")
    if simulate:
        return simulated_probe(simulate)
    if from_csv:
        gpus = read_csv_file(from_csv)
        return ProbeResult(source="csv", gpus=tuple(gpus), notes=(f"GPUs read from {from_csv}",))
    return probe_gpus(env)
