"""VramSampler: the trial's peak memory, by the best method the driver allows, never a crash."""

from __future__ import annotations

import os
import sys
import threading
import types
from dataclasses import dataclass

import pytest

from ltx_wizard.core.autotune.trials.vram_sampler import (
    NullBackend,
    NvmlBackend,
    VramSampler,
    make_backend,
    trial_pids,
)
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.demo.sim.stand_in import SimulatedTrainer
from ltx_wizard.demo.sim.vram_file import VRAM_FILE_ENV as SIM_FILE_ENV
from ltx_wizard.demo.sim.vram_file import VramFileReader as SimulatedBackend

MIB = 1024 * 1024
BOUND_S = 60


class NVMLError(Exception):
    def __init__(self, value: int) -> None:
        super().__init__(value)
        self.value = value


class NVMLError_NotSupported(NVMLError):
    def __init__(self) -> None:
        super().__init__(3)


class NVMLError_GpuIsLost(NVMLError):
    def __init__(self) -> None:
        super().__init__(15)


@dataclass
class Proc:
    pid: int
    usedGpuMemory: int | None


class FakeGpu:
    """A GPU whose memory the test scripts as a list of (device MiB, {pid: MiB}) samples."""

    def __init__(self, script, processes_supported=True, lost_after=None):
        self.script = list(script)
        self.processes_supported = processes_supported
        self.lost_after = lost_after  # number of memory reads before the GPU falls off the bus
        self.reads = 0
        self.failures = 0

    def finished(self) -> bool:
        # A lost GPU is done once it has failed twice: proof that sampling went on after the loss.
        return self.failures >= 2 if self.lost_after is not None else self.reads >= len(self.script)

    def _step(self):
        if self.lost_after is not None and self.reads >= self.lost_after:
            self.failures += 1
            raise NVMLError_GpuIsLost()
        entry = self.script[min(self.reads, len(self.script) - 1)]
        self.reads += 1
        return entry


class FakeNvml(types.ModuleType):
    """Stands in for nvidia-ml-py; `done` is set once every GPU has played its whole script."""

    NVMLError = NVMLError
    NVMLError_NotSupported = NVMLError_NotSupported
    NVMLError_GpuIsLost = NVMLError_GpuIsLost

    def __init__(self, gpus):
        super().__init__("pynvml")
        self.gpus = gpus
        self.initialised = 0
        self.shut_down = 0
        self.done = threading.Event()
        self._procs = {}

    def nvmlInit(self):
        self.initialised += 1

    def nvmlShutdown(self):
        self.shut_down += 1

    def nvmlDeviceGetHandleByIndex(self, index):
        return self.gpus[index]

    def nvmlDeviceGetMemoryInfo(self, gpu):
        try:
            used, procs = gpu._step()
        finally:
            if all(g.finished() for g in self.gpus.values()):
                self.done.set()
        self._procs[id(gpu)] = procs
        return types.SimpleNamespace(used=used * MIB, total=80_000 * MIB, free=0)

    def nvmlDeviceGetComputeRunningProcesses(self, gpu):
        if not gpu.processes_supported:
            raise NVMLError_NotSupported()
        if gpu.lost_after is not None and gpu.reads >= gpu.lost_after:
            raise NVMLError_GpuIsLost()
        procs = self._procs.get(id(gpu), {})
        return [Proc(pid, None if mib is None else mib * MIB) for pid, mib in procs.items()]


@pytest.fixture
def fake_nvml(monkeypatch):
    def install(gpus):
        fake = FakeNvml(gpus)
        monkeypatch.setitem(sys.modules, "pynvml", fake)
        return fake

    return install


def _run(sampler: VramSampler, done: threading.Event, pgid: int | None = None):
    sampler.start()
    if pgid is not None:
        sampler.track(pgid)
    assert done.wait(BOUND_S)
    return sampler.stop()


def test_per_process_figure_counts_only_the_trial_group(fake_nvml):
    me = os.getpgrp()  # the test process's own group stands in for the trial's
    stranger = 999_999_999  # someone else's job on the same GPU: not ours
    gpu = FakeGpu(
        [
            (1_000, {stranger: 900}),  # baseline before the trial
            (9_000, {stranger: 900, os.getpid(): 6_000}),
            (30_000, {stranger: 900, os.getpid(): 25_000}),
            (12_000, {stranger: 900, os.getpid(): 10_000}),
        ]
    )
    fake = fake_nvml({0: gpu})
    sampler = VramSampler(NvmlBackend([0]), period_s=0.01)

    reading = _run(sampler, fake.done, pgid=me)

    assert reading.method == "per-process"
    assert reading.per_gpu_peak_mib == [25_000]
    assert reading.peak_gb == pytest.approx(25_000 / 1024, abs=0.01)
    assert reading.samples >= 4
    snap = sampler.snapshot()
    assert snap.baseline_mib == [1_000] and snap.peak_mib == [30_000]
    assert fake.initialised == 1 and fake.shut_down == 1


def test_processes_not_supported_falls_back_to_device_minus_baseline(fake_nvml):
    gpus = {
        0: FakeGpu([(2_000, {}), (20_000, {}), (26_000, {}), (5_000, {})], processes_supported=False),
        1: FakeGpu([(1_000, {}), (30_000, {}), (3_000, {})], processes_supported=False),
    }
    fake = fake_nvml(gpus)
    sampler = VramSampler(NvmlBackend([0, 1]), period_s=0.01)

    reading = _run(sampler, fake.done, pgid=os.getpgrp())

    assert reading.method == "device-minus-baseline"
    assert reading.per_gpu_peak_mib == [24_000, 29_000]
    assert reading.peak_gb == pytest.approx(29_000 / 1024, abs=0.01)


def test_pids_the_driver_cannot_match_fall_back_to_baseline(fake_nvml):
    # In a container NVML reports host pids: none is ours, so per-process says nothing.
    gpu = FakeGpu([(500, {}), (8_500, {123_456_789: 8_000})])
    fake = fake_nvml({0: gpu})
    reading = _run(VramSampler(NvmlBackend([0]), period_s=0.01), fake.done, pgid=os.getpgrp())
    assert reading.method == "device-minus-baseline" and reading.per_gpu_peak_mib == [8_000]


def test_gpu_lost_mid_run_gives_na_samples_not_a_crash(fake_nvml):
    lost = FakeGpu([(1_000, {}), (7_000, {})], lost_after=2)
    fake = fake_nvml({0: lost})
    sampler = VramSampler(NvmlBackend([0]), period_s=0.01)

    reading = _run(sampler, fake.done, pgid=os.getpgrp())  # done: two failed reads after loss

    assert sampler.latest() == [None]
    assert reading.method == "device-minus-baseline" and reading.per_gpu_peak_mib == [6_000]
    assert reading.samples == 2


def test_no_nvml_library_reads_as_na(monkeypatch):
    monkeypatch.setitem(sys.modules, "pynvml", None)  # `import pynvml` raises ImportError
    sampler = VramSampler(NvmlBackend([0]), period_s=0.01)
    sampler.start()
    reading = sampler.stop()
    assert reading.peak_gb is None and reading.method == "n/a" and reading.samples == 0


def test_simulated_file_backend_reads_last_full_value(tmp_path, monkeypatch):
    sim = tmp_path / "vram"
    backend = SimulatedBackend(sim)
    assert backend.device_used_mib(0) == 0  # not written yet
    sim.write_text("12000\n")
    assert backend.device_used_mib(0) == 12_000
    sim.write_text("")  # caught mid-write
    assert backend.device_used_mib(0) == 12_000
    sim.write_text("31")  # half of "31500"
    assert backend.device_used_mib(0) == 31

    monkeypatch.setenv(SIM_FILE_ENV, str(sim))
    sim.write_text("20480")
    sampler = VramSampler(SimulatedTrainer("h100").memory_reader({}, 1), period_s=0.01)
    sampler.start()
    reading = sampler.stop()
    assert reading.method == "simulated" and reading.peak_gb == 20.0
    assert sampler.latest() == [20_480]


def test_make_backend_matches_the_probe_source(tmp_path):
    assert isinstance(make_backend("nvml", [0, 1]), NvmlBackend)
    assert isinstance(make_backend("nvidia-smi", [0]), NvmlBackend)
    assert isinstance(make_backend("csv", [0]), NullBackend)
    assert isinstance(make_backend("simulated", [0]), NullBackend)  # no stand-in: nothing to read
    stand_in = SimulatedTrainer("h100")
    env = stand_in.memory_env(tmp_path, None)
    assert isinstance(stand_in.memory_reader(env, 1), SimulatedBackend)
    with pytest.raises(UsageError, match=SIM_FILE_ENV):
        stand_in.memory_reader({}, 1)


def test_trial_pids_include_the_group_and_descendants():
    pids = trial_pids(os.getpgrp())
    assert os.getpid() in pids
    assert 1 not in pids or os.getpgrp() == 1


def test_a_mig_instance_is_sampled_through_its_own_handle_not_its_parent(monkeypatch):
    from ltx_wizard.core.gpu.nvml_source import probe_nvml
    from tests.fake_nvml import FakeDevice, make_module

    mine = FakeDevice("mig", 40192, "MIG-mine", used_mib=5_000)
    other = FakeDevice("mig", 40192, "MIG-other", used_mib=30_000)
    parent = FakeDevice(
        "NVIDIA A100-SXM4-80GB", 81920, "GPU-p", mig=[mine, other], used_mib=35_000
    )  # the whole GPU: both instances' use
    monkeypatch.setitem(sys.modules, "pynvml", make_module([parent]))
    gpus = [g for g in probe_nvml() if g.uuid == "MIG-mine"]  # as CUDA_VISIBLE_DEVICES picks it
    assert gpus and gpus[0].index == 0  # the instance shares its parent's index

    backend = make_backend("nvml", gpus)
    backend.open()
    try:
        assert backend.device_used_mib(0) == 5_000  # not 35_000 (parent) nor 30_000 (neighbour)
    finally:
        backend.close()


def test_a_mig_instance_whose_uuid_is_gone_reads_na_never_the_parent(monkeypatch):
    from ltx_wizard.core.gpu.devices import GpuInfo
    from tests.fake_nvml import FakeDevice, make_module

    parent = FakeDevice(
        "NVIDIA A100-SXM4-80GB",
        81920,
        "GPU-p",
        mig=[FakeDevice("mig", 40192, "MIG-a", used_mib=1)],
        used_mib=35_000,
    )
    monkeypatch.setitem(sys.modules, "pynvml", make_module([parent]))
    vanished = GpuInfo(index=0, name="mig", memory_total_bytes=None, uuid="MIG-gone", mig_parent_index=0)
    backend = NvmlBackend([vanished])
    backend.open()
    assert backend.device_used_mib(0) is None
