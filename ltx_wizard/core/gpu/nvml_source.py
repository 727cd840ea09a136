"""Read the GPUs through NVML (nvidia-ml-py), turning every NVML failure into one clear line.

`pynvml` is imported lazily: the wizard must start (and plan from a CSV) on machines without it.
Errors are matched by NVML's numeric return codes rather than exception classes, so that the same
code path handles the real bindings and the fakes the tests install.
"""

from __future__ import annotations

from typing import Any, Callable

from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.gpu.devices import GpuInfo

# NVML return codes (nvml.h)
NOT_SUPPORTED = 3
NO_PERMISSION = 4
DRIVER_NOT_LOADED = 9
LIBRARY_NOT_FOUND = 12
FUNCTION_NOT_FOUND = 13
GPU_IS_LOST = 15
LIB_RM_VERSION_MISMATCH = 18

_DIAGNOSES = {
    LIBRARY_NOT_FOUND: "the NVIDIA driver library (libnvidia-ml.so.1) was not found: install the "
    "NVIDIA driver, or plan for another machine with --from-csv FILE or --simulate PRESET",
    DRIVER_NOT_LOADED: "the NVIDIA kernel driver is not loaded: check `lsmod | grep nvidia`, reboot "
    "after a driver install, or in a container start it with --gpus all",
    LIB_RM_VERSION_MISMATCH: "the NVIDIA driver library and kernel module versions differ (typical "
    "after a driver upgrade without a reboot): reboot the machine",
    NO_PERMISSION: "no permission to talk to the GPU (/dev/nvidia*): run as a user in the video "
    "group, or give the container access to the GPUs",
    GPU_IS_LOST: "a GPU fell off the bus (NVML says GPU is lost): check `dmesg` for Xid errors; "
    "the machine likely needs a reset",
    FUNCTION_NOT_FOUND: "the NVIDIA driver is too old for this nvidia-ml-py: upgrade the driver",
}


class NvmlUnavailable(WizardError):
    """NVML could not answer; `code` is NVML's return code when there was one."""

    def __init__(self, message: str, code: int | None = None) -> None:
        super().__init__(message)
        self.code = code


def diagnose(exc: BaseException) -> NvmlUnavailable:
    code = getattr(exc, "value", None)
    message = _DIAGNOSES.get(code) if isinstance(code, int) else None
    if message is None:
        message = f"NVML failed ({exc}): try `nvidia-smi` to see what the driver says"
    return NvmlUnavailable(message, code if isinstance(code, int) else None)


def _text(value: object) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


# `nvml` is the pynvml module or a test's fake of it; handles are NVML's opaque objects.
def _memory_bytes(nvml: Any, handle: object) -> int | None:
    """Total memory, or None when the device does not report it (GB10, some MIG setups)."""
    try:
        info = nvml.nvmlDeviceGetMemoryInfo(handle)
    except nvml.NVMLError as exc:
        if getattr(exc, "value", None) in (NOT_SUPPORTED, NO_PERMISSION):
            return None
        raise
    total = getattr(info, "total", None)
    return int(total) if total else None


def _optional(call: Callable[..., Any], *args: object) -> Any:
    try:
        return call(*args)
    except Exception:  # any NVML query that fails only costs us an optional field
        return None


def _mig_instances(
    nvml: Any, parent: object, parent_index: int, parent_name: str, driver: str | None
) -> list[GpuInfo]:
    """MIG instances of `parent` (empty when MIG is off or unsupported), each with its own memory."""
    mode = _optional(nvml.nvmlDeviceGetMigMode, parent)
    if not mode or not mode[0]:
        return []
    count = _optional(nvml.nvmlDeviceGetMaxMigDeviceCount, parent) or 0
    found = []
    for slot in range(count):
        handle = _optional(nvml.nvmlDeviceGetMigDeviceHandleByIndex, parent, slot)
        if handle is None:
            continue
        uuid = _optional(nvml.nvmlDeviceGetUUID, handle)
        found.append(
            GpuInfo(
                index=parent_index,
                name=f"{parent_name} MIG instance {slot}",
                memory_total_bytes=_memory_bytes(nvml, handle),
                uuid=_text(uuid) if uuid else None,
                driver_version=driver,
                mig_parent_index=parent_index,
            )
        )
    return found


def open_device_handle(nvml: Any, gpu: GpuInfo) -> Any:
    """NVML's handle for one device as training sees it, or None.

    By UUID when the probe read one: a MIG instance's own handle reports that instance's memory,
    while the parent's index (which the instance shares) would report the whole GPU, every other
    instance's use included. A MIG instance is never read through its parent; a whole GPU whose
    UUID lookup fails falls back to its index. NVML errors other than the lookup's propagate.
    """
    if gpu.uuid:
        try:
            return nvml.nvmlDeviceGetHandleByUUID(gpu.uuid)
        except nvml.NVMLError:
            if gpu.mig_parent_index is not None:
                return None
    if gpu.mig_parent_index is not None:
        return None
    return nvml.nvmlDeviceGetHandleByIndex(gpu.index)


def probe_nvml() -> list[GpuInfo]:
    """All devices NVML sees, MIG instances in place of their parents. Raises NvmlUnavailable."""
    try:
        import pynvml as nvml
    except ImportError:
        raise NvmlUnavailable(
            "nvidia-ml-py is not installed: `pip install nvidia-ml-py`", LIBRARY_NOT_FOUND
        ) from None
    try:
        nvml.nvmlInit()
    except nvml.NVMLError as exc:
        raise diagnose(exc) from None
    try:
        driver = _optional(nvml.nvmlSystemGetDriverVersion)
        driver = _text(driver) if driver else None
        gpus: list[GpuInfo] = []
        for index in range(nvml.nvmlDeviceGetCount()):
            handle = nvml.nvmlDeviceGetHandleByIndex(index)
            name = _text(nvml.nvmlDeviceGetName(handle))
            migs = _mig_instances(nvml, handle, index, name, driver)
            if migs:
                gpus.extend(migs)
                continue
            uuid = _optional(nvml.nvmlDeviceGetUUID, handle)
            gpus.append(
                GpuInfo(
                    index=index,
                    name=name,
                    memory_total_bytes=_memory_bytes(nvml, handle),
                    uuid=_text(uuid) if uuid else None,
                    driver_version=driver,
                )
            )
        return gpus
    except nvml.NVMLError as exc:
        raise diagnose(exc) from None
    finally:
        _optional(nvml.nvmlShutdown)
