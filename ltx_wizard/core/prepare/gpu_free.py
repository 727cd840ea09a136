"""Free memory of each GPU the probe found, for the captioner choice (the local Qwen3-Omni
server needs 40 GiB free, not 40 GiB in the card: another job's memory is not ours to take).

Read through NVML by the device's UUID (core/gpu/nvml_source.py open_device_handle), so a MIG
instance reports its own memory. A simulated GPU is idle (free = total); a GPU whose reading
fails, or one from a CSV, says so (free None, the total beside it).
"""

from __future__ import annotations

import contextlib

from ltx_wizard.core.gpu.devices import ProbeResult
from ltx_wizard.core.gpu.nvml_source import open_device_handle
from ltx_wizard.core.prepare.captioner import GpuFree

GIB = 2**30


def free_memory(probe: ProbeResult) -> list[GpuFree]:
    totals = [
        GpuFree(
            index=g.index,
            name=g.name,
            free_gib=None,
            total_gib=None if g.memory_total_bytes is None else g.memory_total_bytes / GIB,
        )
        for g in probe.gpus
    ]
    if probe.source == "simulated":
        return [
            GpuFree(index=g.index, name=g.name, free_gib=g.total_gib, total_gib=g.total_gib) for g in totals
        ]
    if probe.source not in ("nvml", "nvidia-smi"):
        return totals
    try:
        import pynvml as nvml

        nvml.nvmlInit()
    except Exception:  # no driver here: the totals stand in, said so by the caller
        return totals
    try:
        out = []
        for gpu, row in zip(probe.gpus, totals):
            free = None
            with contextlib.suppress(Exception):
                handle = open_device_handle(nvml, gpu)
                if handle is not None:
                    free = int(nvml.nvmlDeviceGetMemoryInfo(handle).free) / GIB
            out.append(GpuFree(index=row.index, name=row.name, free_gib=free, total_gib=row.total_gib))
        return out
    finally:
        with contextlib.suppress(Exception):
            nvml.nvmlShutdown()
