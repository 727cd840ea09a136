"""A small stand-in for nvidia-ml-py, so probe scenarios run on machines without a GPU."""

from __future__ import annotations

import types
from dataclasses import dataclass, field

NOT_SUPPORTED, NO_PERMISSION, NOT_FOUND, DRIVER_NOT_LOADED, LIBRARY_NOT_FOUND = 3, 4, 6, 9, 12
GPU_IS_LOST, LIB_RM_VERSION_MISMATCH = 15, 18


class NVMLError(Exception):
    def __init__(self, value: int) -> None:
        super().__init__(f"NVML error {value}")
        self.value = value


@dataclass
class FakeDevice:
    name: str
    mib: int | None  # None -> memory query answers NOT_SUPPORTED
    uuid: str
    mig: list["FakeDevice"] = field(default_factory=list)
    used_mib: int = 0  # what a memory query says is in use on this device (or MIG instance)


@dataclass
class _Memory:
    total: int
    used: int = 0
    free: int = 0


def make_module(
    devices: list[FakeDevice], *, init_error: int | None = None, driver: str = "580.65.06"
) -> types.ModuleType:
    """A module object with the pynvml calls the probe uses."""
    nvml = types.ModuleType("pynvml")
    nvml.NVMLError = NVMLError
    state = {"init": 0, "shutdown": 0}
    nvml.state = state

    def nvmlInit():
        if init_error is not None:
            raise NVMLError(init_error)
        state["init"] += 1

    def nvmlShutdown():
        state["shutdown"] += 1

    def memory(handle):
        if handle.mib is None:
            raise NVMLError(NOT_SUPPORTED)
        return _Memory(total=handle.mib * 1024 * 1024, used=handle.used_mib * 1024 * 1024)

    def by_uuid(uuid):
        for device in devices:
            for candidate in (device, *device.mig):
                if candidate.uuid == uuid:
                    return candidate
        raise NVMLError(NOT_FOUND)

    def mig_mode(handle):
        return (1, 1) if handle.mig else (0, 0)

    nvml.nvmlInit = nvmlInit
    nvml.nvmlShutdown = nvmlShutdown
    nvml.nvmlSystemGetDriverVersion = lambda: driver
    nvml.nvmlDeviceGetCount = lambda: len(devices)
    nvml.nvmlDeviceGetHandleByIndex = lambda i: devices[i]
    nvml.nvmlDeviceGetHandleByUUID = by_uuid
    nvml.nvmlDeviceGetComputeRunningProcesses = lambda h: []
    nvml.nvmlDeviceGetName = lambda h: h.name.encode()  # old bindings return bytes
    nvml.nvmlDeviceGetUUID = lambda h: h.uuid
    nvml.nvmlDeviceGetMemoryInfo = memory
    nvml.nvmlDeviceGetMigMode = mig_mode
    nvml.nvmlDeviceGetMaxMigDeviceCount = lambda h: len(h.mig)
    nvml.nvmlDeviceGetMigDeviceHandleByIndex = lambda h, i: h.mig[i]
    return nvml
