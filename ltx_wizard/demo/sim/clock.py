"""The simulated trainer's clock: simulated seconds, slept compressed, the GPU-seconds ledger, and
the environment numbers that set it up.

The clock counts uncompressed seconds (what a real run would take, per cost_model) and sleeps them
divided by the speed. A process stopped by a signal in the middle of a wait has spent only the
part it slept; `elapsed` says so. The ledger (LTX_WIZARD_SIM_LEDGER) gets one JSON line per
process at its end, which the autotune benchmark sums into GPU-seconds.
"""

from __future__ import annotations

import json
import os
import time


class SimClock:
    def __init__(self, speed: float) -> None:
        self.speed = speed  # 0: no sleeping at all
        self.now = 0.0  # uncompressed simulated seconds since start
        self._from = (0.0, time.monotonic())
        self._ledger_written = False

    def wait(self, seconds: float, already_real_s: float = 0.0) -> None:
        """Spend `seconds` of simulated time; `already_real_s` of it has passed for real."""
        self._from = (self.now, time.monotonic() - already_real_s)
        self.now += seconds
        if self.speed:
            time.sleep(max(0.0, seconds / self.speed - already_real_s))

    def elapsed(self) -> float:
        start, real = self._from
        if not self.speed:
            return self.now
        return min(self.now, start + (time.monotonic() - real) * self.speed)

    def write_ledger(self, config: str, gpus: int) -> None:
        path = os.environ.get("LTX_WIZARD_SIM_LEDGER")
        if not path or self._ledger_written:
            return
        self._ledger_written = True
        record = {"config": config, "gpus": gpus, "sim_s": round(self.elapsed(), 3)}
        with open(path, "a", encoding="utf-8") as handle:  # one short line: an atomic append
            handle.write(json.dumps(record) + "\n")


def process_age_s() -> float:
    """Seconds since this process started (Linux /proc); 0 where unknown."""
    try:
        with open("/proc/self/stat", encoding="ascii") as handle:
            start_ticks = int(handle.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/uptime", encoding="ascii") as handle:
            uptime = float(handle.read().split()[0])
        return max(0.0, uptime - start_ticks / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return 0.0


def int_env(name: str, default: int) -> int:
    raw = os.environ.get(name, "")
    return int(raw) if raw.strip().isdigit() else default


def float_env(name: str, default: float) -> float:
    try:
        return float(os.environ.get(name) or default)
    except ValueError:
        return default
