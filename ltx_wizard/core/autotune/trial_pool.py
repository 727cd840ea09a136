"""Single-GPU trials side by side on a multi-GPU box, with the decision order kept.

Each trial depends on the outcome of the one before (it is the best so far plus one change), so
running them side by side means guessing: the pool runs the next trials the tuner would ask for
if every one were kept (Tuner.likely_path), one per free GPU. The tuner still decides strictly in
order, one result at a time; a running guess that leaves the path is stopped, a finished one
that is not asked for is dropped, and a trial is never run twice for the same config.
"""

from __future__ import annotations

import asyncio
import json
from typing import Awaitable, Callable

from ltx_wizard.core.tuning.events import TrialResult
from ltx_wizard.core.tuning.schedule import Candidate, Tuner
from ltx_wizard.core.autotune.trial_runner import TrialRunner
from ltx_wizard.core.plan.host_limits import read_meminfo

StartTrial = Callable[[TrialRunner, Candidate], Awaitable[TrialResult]]

# Host RAM one trial needs: the transformer is built on CPU in bf16 first (trainer.py
# LtxvTrainer._load_models, device="cpu"), 2 bytes per parameter, plus ~8 GB for the process and
# its dataloader workers (estimate).
TRIAL_HOST_OVERHEAD_GB = 8.0


def host_available_gb() -> float | None:
    """MemAvailable from /proc/meminfo (Linux); None elsewhere."""
    available = read_meminfo().get("MemAvailable")  # bounded, one reader (core/plan/host_limits.py)
    return available / 1024**3 if available is not None else None


def trial_slots(gpu_count: int, num_gpus: int, training_mode: str, params: float | None,
                host_ram_gb: float | None) -> list[int]:
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


class TrialPool:
    def __init__(self, runners: list[TrialRunner], start: StartTrial) -> None:
        self.runners = runners
        self.start = start
        self._tasks: dict[str, tuple[asyncio.Task, TrialRunner]] = {}
        self._stopped: set[str] = set()  # stopped guesses: their "cancelled" result means nothing

    def _free(self) -> list[TrialRunner]:
        busy = {id(r) for task, r in self._tasks.values() if not task.done()}
        return [r for r in self.runners if id(r) not in busy]

    async def result(self, tuner: Tuner, cand: Candidate) -> TrialResult:
        """The result of `cand` (the tuner's pending trial), guessing ahead on free GPUs."""
        path = tuner.likely_path(len(self.runners))
        wanted = [config_key(c) for c in path] or [config_key(cand)]
        for key, (task, runner) in list(self._tasks.items()):
            if key not in wanted and not task.done():
                self._stopped.add(key)
                await runner.cancel()  # a guess that left the path: free its GPU at once
        for guess in path:
            key = config_key(guess)
            if key in self._tasks and key not in self._stopped:
                continue
            free = self._free()
            if not free:
                break
            self._stopped.discard(key)
            self._tasks[key] = (asyncio.ensure_future(self.start(free[0], guess)), free[0])
        key = config_key(cand)
        while key not in self._tasks or key in self._stopped:  # a stopped guess still ending
            free = self._free()
            if free:
                self._stopped.discard(key)
                self._tasks[key] = (asyncio.ensure_future(self.start(free[0], cand)), free[0])
                break
            busy = [task for task, _ in self._tasks.values() if not task.done()]
            await asyncio.wait(busy, return_when=asyncio.FIRST_COMPLETED)
        result = await self._tasks[key][0]
        return result.model_copy(update={"index": cand.index, "change": cand.change,
                                         "changes": cand.changes})

    async def close(self) -> None:
        """Stop whatever still runs (guesses nobody asked for), and wait for it to end."""
        for key, (task, runner) in self._tasks.items():
            if not task.done():
                self._stopped.add(key)
                await runner.cancel()
        pending = [task for task, _ in self._tasks.values() if not task.done()]
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)

    async def cancel(self) -> None:
        for runner in self.runners:
            await runner.cancel()
