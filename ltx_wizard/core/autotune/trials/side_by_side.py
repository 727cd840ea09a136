"""Single-GPU trials side by side on a multi-GPU box, with the decision order kept.

Each trial depends on the outcome of the one before (it is the best so far plus one change), so
running them side by side means guessing: the pool runs the next trials the tuner would ask for
if every one were kept (Tuner.likely_path), one per free GPU. The tuner still decides strictly in
order, one result at a time. A guess that leaves the path (running or finished) is dropped: its
run is cancelled (a cancel before its process starts holds, trial_runner.py) and awaited until
its process is reaped and its log closed, then what it left is set aside, all before any run
takes its trial number again. A trial number's files are then only the trial's own.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Awaitable, Callable

from ltx_wizard.core.tuning.results import TrialResult
from ltx_wizard.core.tuning.schedule import Candidate, Tuner
from ltx_wizard.core.autotune.trials.trial_runner import NOT_STARTED, TrialRunner
from ltx_wizard.core.plan.host_limits import read_meminfo

# (runner, candidate, ahead_of): ahead_of is the trial a guess assumes kept (None: not a guess)
StartTrial = Callable[[TrialRunner, Candidate, "int | None"], Awaitable[TrialResult]]
Dropped = Callable[[Candidate, "int | None"], None]  # a dropped run has ended: set its files aside

# Host RAM one trial needs: the transformer is built on CPU in bf16 first (trainer.py
# LtxvTrainer._load_models, device="cpu"), 2 bytes per parameter, plus ~8 GB for the process and
# its dataloader workers (estimate).
TRIAL_HOST_OVERHEAD_GB = 8.0


def host_available_gb() -> float | None:
    """MemAvailable from /proc/meminfo (Linux); None elsewhere."""
    available = read_meminfo().get("MemAvailable")  # bounded, one reader (core/plan/host_limits.py)
    return available / 1024**3 if available is not None else None


def trial_slots(
    gpu_count: int, num_gpus: int, training_mode: str, params: float | None, host_ram_gb: float | None
) -> list[int]:
    """GPUs for single-GPU trials side by side ([]: the plan's own launch, one trial at a time).

    A LoRA only (a full fine-tune needs FSDP over every GPU); as many as host RAM holds, each trial
    building its own bf16 transformer on CPU first. Unknown RAM: one per GPU."""
    if gpu_count < 2 or num_gpus < 2 or training_mode != "lora":
        return []
    per_trial = (params or 22e9) * 2 / 1024**3 + TRIAL_HOST_OVERHEAD_GB
    fits = gpu_count if host_ram_gb is None else int(host_ram_gb // per_trial)
    return list(range(max(1, min(gpu_count, fits))))


def config_key(cand: Candidate) -> str:
    """Two candidates with the same changes against the plan run the same config."""
    return json.dumps(cand.config_changes, sort_keys=True, default=str)


def trial_key(cand: Candidate) -> tuple[int, str]:
    """A run is reused only for the same trial number and config: its files carry the number."""
    return cand.index, config_key(cand)


@dataclass
class _Run:
    task: asyncio.Task[TrialResult]
    runner: TrialRunner
    cand: Candidate
    ahead_of: int | None  # the trial it guesses is kept; None: the tuner asked for it


class TrialPool:
    def __init__(self, runners: list[TrialRunner], start: StartTrial, dropped: Dropped | None = None) -> None:
        self.runners = runners
        self.start = start
        self.dropped = dropped or (lambda cand, ahead_of: None)
        self._runs: dict[tuple[int, str], _Run] = {}  # started, result not yet taken

    def _free(self) -> list[TrialRunner]:
        busy = {id(run.runner) for run in self._runs.values() if not run.task.done()}
        return [r for r in self.runners if id(r) not in busy]

    def _begin(self, runner: TrialRunner, cand: Candidate, ahead_of: int | None) -> None:
        task = asyncio.ensure_future(self.start(runner, cand, ahead_of))
        self._runs[trial_key(cand)] = _Run(task, runner, cand, ahead_of)

    async def result(self, tuner: Tuner, cand: Candidate) -> TrialResult:
        """The result of `cand` (the tuner's pending trial), guessing ahead on free GPUs."""
        key = trial_key(cand)
        path = tuner.likely_path(len(self.runners))
        wanted = {trial_key(c) for c in path} | {key}
        await self._drop([k for k in self._runs if k not in wanted])
        before: Candidate | None = None
        for guess in path:
            if trial_key(guess) not in self._runs and (free := self._free()):
                ahead_of = None if trial_key(guess) == key or before is None else before.index
                self._begin(free[0], guess, ahead_of)
            before = guess
        while key not in self._runs:  # every GPU runs a guess on the path: the first to end
            free = self._free()
            if free:
                self._begin(free[0], cand, None)
                break
            busy = [run.task for run in self._runs.values() if not run.task.done()]
            await asyncio.wait(busy, return_when=asyncio.FIRST_COMPLETED)
        result = await self._runs.pop(key).task
        return result.model_copy(update={"index": cand.index, "change": cand.change, "changes": cand.changes})

    async def _drop(self, keys: list[tuple[int, str]]) -> None:
        """Cancel these guesses, wait until each has ended, then set aside what each left."""
        runs = [self._runs.pop(key) for key in keys]
        for run in runs:
            if not run.task.done():
                run.runner.request_cancel()
        # a dropped guess's own failure (even a setup stop) is not the tuner's business
        ended = await asyncio.gather(*(run.task for run in runs), return_exceptions=True)
        for run, result in zip(runs, ended):
            if not (isinstance(result, TrialResult) and result.reason == NOT_STARTED):
                self.dropped(run.cand, run.ahead_of)  # a refused run left nothing to set aside

    async def close(self) -> None:
        """Drop whatever nobody asked for (guesses past the last trial), once each has ended."""
        await self._drop(list(self._runs))

    async def cancel(self) -> None:
        for runner in self.runners:
            await runner.cancel()
