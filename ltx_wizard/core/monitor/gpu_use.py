"""Memory and utilisation of the GPUs the run trains on, through NVML.

The devices are those the launch exports in CUDA_VISIBLE_DEVICES (applied as CUDA does:
core/gpu/visible_devices.py), read by UUID so a MIG instance reports its own memory
(nvml_source.open_device_handle). Any NVML failure gives no readings and one line saying why.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ltx_wizard.core.gpu.nvml_source import NvmlUnavailable, open_device_handle, probe_nvml
from ltx_wizard.core.base.units import MIB_PER_GIB, gib
from ltx_wizard.core.gpu.visible_devices import apply_cuda_visible_devices

MIB = 1024 * 1024


@dataclass(frozen=True)
class GpuUse:
    index: int
    name: str
    used_mib: int | None
    total_mib: int | None
    util_pct: int | None

    def line(self) -> str:
        mem = (
            f"{self.used_mib / MIB_PER_GIB:.1f} / {gib(self.total_mib / MIB_PER_GIB)}"
            if self.used_mib is not None and self.total_mib
            else "memory n/a"
        )
        util = f"{self.util_pct}% util" if self.util_pct is not None else "util n/a"
        return f"GPU {self.index} {self.name}: {util}, {mem}"


def _read(nvml: Any, handle: object) -> tuple[int | None, int | None, int | None]:
    used = total = util = None
    try:
        info = nvml.nvmlDeviceGetMemoryInfo(handle)
        used, total = int(info.used) // MIB, int(info.total) // MIB
    except Exception:  # an optional reading: the others still show
        pass
    try:
        util = int(nvml.nvmlDeviceGetUtilizationRates(handle).gpu)
    except Exception:
        pass
    return used, total, util


def read_gpu_use(visible: str | None) -> tuple[list[GpuUse], str | None]:
    """(readings of the run's devices, a note when there are none or fewer than asked)."""
    try:
        gpus, note = apply_cuda_visible_devices(probe_nvml(), visible)
        import pynvml as nvml

        nvml.nvmlInit()
    except NvmlUnavailable as exc:
        return [], f"GPU use unavailable: {exc.message}"
    except Exception as exc:  # a driver oddity costs the readings, never the monitor
        return [], f"GPU use unavailable: {exc}"
    try:
        found = []
        for gpu in gpus:
            handle = open_device_handle(nvml, gpu)
            used, total, util = _read(nvml, handle) if handle is not None else (None, None, None)
            found.append(GpuUse(gpu.index, gpu.name, used, total, util))
        return found, note
    except Exception as exc:
        return [], f"GPU use unavailable: {exc}"
    finally:
        try:
            nvml.nvmlShutdown()
        except Exception:
            pass
