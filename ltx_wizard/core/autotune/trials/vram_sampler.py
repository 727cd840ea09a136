"""Sample GPU memory while a trial runs, because the trainer's own peak figure is not enough.

The trainer reads whole-GPU memory three times per run; autotune needs the trial's real peak. A
background thread samples every `period_s` and keeps, per GPU, the current and peak device use,
the pre-trial baseline and the trial's own use (NVML per-process figures for the trial's process
group and descendants). The best figure wins: per-process when NVML attributes memory to our pids
(it cannot in a container whose pid namespace differs from the driver's), else device minus
baseline. Any sampling failure is an N/A sample, never an exception in the thread.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Literal, Protocol, Sequence, cast

from ltx_wizard.core.proc.table import has_proc, proc_rows
from ltx_wizard.core.gpu.devices import GpuInfo

MIB = 1024 * 1024
Method = Literal["per-process", "device-minus-baseline", "simulated", "n/a"]

# NVML return codes (nvml.h) that mean "this driver will never give per-process figures".
_NVML_NOT_SUPPORTED, _NVML_NO_PERMISSION, _NVML_FUNCTION_NOT_FOUND = 3, 4, 13


class ProcessesUnsupported(Exception):
    """The backend cannot attribute memory to processes on this GPU (for the rest of the run)."""


@dataclass(frozen=True)
class VramReading:
    peak_gb: float | None  # GiB (MiB / 1024), the highest per-GPU peak; None when nothing was read
    method: Method
    per_gpu_peak_mib: list[int | None]
    samples: int  # sampling rounds that read at least one GPU


@dataclass(frozen=True)
class VramSnapshot:
    current_mib: list[int | None]
    peak_mib: list[int | None]  # whole-device peak
    baseline_mib: list[int | None]
    process_peak_mib: list[int | None]  # the trial's own peak, where NVML attributed it
    reading: VramReading


class VramBackend(Protocol):
    kind: str  # "nvml" | "simulated" | "none"
    gpu_count: int

    def open(self) -> None: ...
    def close(self) -> None: ...
    def device_used_mib(self, slot: int) -> int | None: ...
    def process_used_mib(self, slot: int, pids: set[int]) -> int | None: ...


class NullBackend:
    """No way to read memory here (plan made from a CSV): every sample is N/A."""

    kind = "none"

    def __init__(self, gpu_count: int) -> None:
        self.gpu_count = gpu_count

    def open(self) -> None: ...
    def close(self) -> None: ...

    def device_used_mib(self, slot: int) -> int | None:
        return None

    def process_used_mib(self, slot: int, pids: set[int]) -> int | None:
        raise ProcessesUnsupported


def _as_gpu(device: int | GpuInfo) -> GpuInfo:
    """A bare index stands for a whole GPU known only by its NVML index."""
    if isinstance(device, GpuInfo):
        return device
    return GpuInfo(index=int(device), name=f"GPU {device}", memory_total_bytes=None)


class NvmlBackend:
    """NVML through nvidia-ml-py, imported lazily; init once in open(), shutdown in close().

    Devices are the probe's GpuInfo (or bare NVML indices): a MIG instance is opened by its UUID,
    never through its parent GPU's index (nvml_source.open_device_handle).
    """

    kind = "nvml"

    def __init__(self, devices: Sequence[int | GpuInfo]) -> None:
        self.devices = [_as_gpu(d) for d in devices]
        self.gpu_count = len(self.devices)
        self._nvml = None
        self._handles: list[object | None] = [None] * self.gpu_count

    def open(self) -> None:
        try:
            import pynvml

            pynvml.nvmlInit()
        except Exception:  # no library, no driver: the sampler reports N/A
            return
        from ltx_wizard.core.gpu.nvml_source import open_device_handle

        self._nvml = pynvml
        for slot, gpu in enumerate(self.devices):
            try:
                self._handles[slot] = open_device_handle(pynvml, gpu)
            except pynvml.NVMLError:
                self._handles[slot] = None

    def close(self) -> None:
        if self._nvml is not None:
            try:
                self._nvml.nvmlShutdown()
            except Exception:
                pass
            self._nvml = None

    def device_used_mib(self, slot: int) -> int | None:
        nvml, handle = self._nvml, self._handles[slot]
        if nvml is None or handle is None:
            return None
        try:
            return int(nvml.nvmlDeviceGetMemoryInfo(handle).used) // MIB
        except nvml.NVMLError:
            return None

    def process_used_mib(self, slot: int, pids: set[int]) -> int | None:
        nvml, handle = self._nvml, self._handles[slot]
        if nvml is None or handle is None:
            return None
        try:
            procs = nvml.nvmlDeviceGetComputeRunningProcesses(handle)
        except nvml.NVMLError as exc:
            permanent = (_NVML_NOT_SUPPORTED, _NVML_NO_PERMISSION, _NVML_FUNCTION_NOT_FOUND)
            if getattr(exc, "value", None) in permanent:
                raise ProcessesUnsupported from None
            return None
        # usedGpuMemory is None where the driver withholds it (e.g. Windows WDDM).
        mine = [p.usedGpuMemory for p in procs if p.pid in pids and p.usedGpuMemory is not None]
        return sum(int(b) for b in mine) // MIB if mine else None


def make_backend(probe_source: str, gpu_indices: Sequence[int | GpuInfo]) -> VramBackend:
    """The backend that matches how the GPUs were probed (devices: the probe's GpuInfo). A
    stand-in for the trainer brings its own (base/stand_in.py memory_reader)."""
    if probe_source in ("nvml", "nvidia-smi"):
        return NvmlBackend(gpu_indices)  # nvidia-smi works through NVML, so NVML is worth a try
    return NullBackend(len(gpu_indices))  # "csv": the GPUs are on another machine


def trial_pids(pgid: int) -> set[int]:
    """Pids in process group `pgid` plus every descendant of its leader (which may have moved)."""
    table = [(row.pid, row.ppid, row.pgrp) for row in proc_rows()] if has_proc() else []
    found = {pgid} | {pid for pid, _, pgrp in table if pgrp == pgid}
    while True:  # walk down the tree until no new child appears
        more = {pid for pid, ppid, _ in table if ppid in found} - found
        if not more:
            return found
        found |= more


def _peak(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else max(a, b)


class VramSampler:
    """`start()` (takes the baseline), `track(pgid)` once the trial runs, `stop()` -> reading.

    start() blocks briefly (NVML init, one sample): from asyncio call it via asyncio.to_thread.
    """

    def __init__(self, backend: VramBackend, period_s: float = 0.25) -> None:
        self.backend = backend
        self.period_s = period_s
        n = backend.gpu_count
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._pgid: int | None = None
        self._current: list[int | None] = [None] * n
        self._peak: list[int | None] = [None] * n
        self._baseline: list[int | None] = [None] * n
        self._proc_peak: list[int | None] = [None] * n
        self._proc_ok = [True] * n  # False once the driver says per-process is unsupported
        self._samples = 0

    def start(self, pgid: int | None = None) -> None:
        if self._thread is not None:
            raise RuntimeError("a VramSampler starts only once")
        try:
            self.backend.open()
        except Exception:
            pass  # every sample will be N/A; the trial must not fail over a memory figure
        self._pgid = pgid
        self._sample()  # pre-trial baseline
        self._thread = threading.Thread(target=self._run, name="vram-sampler", daemon=True)
        self._thread.start()

    def track(self, pgid: int) -> None:
        """Attribute per-process memory to this process group (the trial) from now on."""
        with self._lock:
            self._pgid = pgid

    def stop(self, timeout_s: float = 10.0) -> VramReading:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout_s)
        try:
            self.backend.close()
        except Exception:
            pass
        return self.reading()

    def latest(self) -> list[int | None]:
        with self._lock:
            return list(self._current)

    def snapshot(self) -> VramSnapshot:
        with self._lock:
            return VramSnapshot(
                current_mib=list(self._current),
                peak_mib=list(self._peak),
                baseline_mib=list(self._baseline),
                process_peak_mib=list(self._proc_peak),
                reading=self._reading_locked(),
            )

    def reading(self) -> VramReading:
        with self._lock:
            return self._reading_locked()

    def _reading_locked(self) -> VramReading:
        if self.backend.kind not in ("nvml", "none"):  # a stand-in's reader: its own figure
            method = cast(Method, self.backend.kind)  # a stand-in names its own ("simulated")
            per_gpu = list(self._peak)
        elif any(v is not None for v in self._proc_peak):
            method, per_gpu = "per-process", list(self._proc_peak)
        else:
            per_gpu = [
                None if p is None or b is None else max(p - b, 0) for p, b in zip(self._peak, self._baseline)
            ]
            method = "device-minus-baseline"
        known = [v for v in per_gpu if v is not None]
        if not known:
            return VramReading(None, "n/a", per_gpu, self._samples)
        return VramReading(round(max(known) / 1024, 2), method, per_gpu, self._samples)

    def _run(self) -> None:
        while not self._stop.wait(self.period_s):
            try:
                self._sample()
            except Exception:  # a bug in a backend costs one sample, not the sampler
                with self._lock:
                    self._current = [None] * self.backend.gpu_count

    def _sample(self) -> None:
        pgid = self._pgid
        pids = trial_pids(pgid) if pgid is not None else set()
        current = [self.backend.device_used_mib(i) for i in range(self.backend.gpu_count)]
        owned: list[int | None] = [None] * self.backend.gpu_count
        for i in range(self.backend.gpu_count):
            if not pids or not self._proc_ok[i]:
                continue
            try:
                owned[i] = self.backend.process_used_mib(i, pids)
            except ProcessesUnsupported:
                self._proc_ok[i] = False
        with self._lock:
            self._current = current
            for i, used in enumerate(current):
                if used is not None and self._baseline[i] is None:
                    self._baseline[i] = used  # first reading this GPU gave: before the trial
                self._peak[i] = _peak(self._peak[i], used)
                self._proc_peak[i] = _peak(self._proc_peak[i], owned[i])
            if any(v is not None for v in current):
                self._samples += 1
