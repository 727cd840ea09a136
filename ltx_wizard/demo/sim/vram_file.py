"""The simulated used-memory figure (LTX_WIZARD_SIM_VRAM_FILE) another process reads as if from
NVML: one integer of MiB, replaced atomically."""

from __future__ import annotations

import os
from pathlib import Path

VRAM_FILE_ENV = "LTX_WIZARD_SIM_VRAM_FILE"


class VramFile:
    """The simulated used-memory figure another process reads as if from NVML."""

    def __init__(self, path: str | None) -> None:
        self.path = Path(path) if path else None

    def set(self, gb: float) -> None:
        if self.path is None:
            return
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        tmp.write_text(f"{max(0, int(gb * 1024))}\n", encoding="utf-8")
        os.replace(tmp, self.path)


class VramFileReader:
    """Reads that figure back for the wizard's memory sampler (a core vram_sampler backend)."""

    kind = "simulated"

    def __init__(self, path: str | os.PathLike[str], gpu_count: int = 1) -> None:
        self.path = Path(path)
        self.gpu_count = gpu_count
        self._last = 0

    def open(self) -> None: ...
    def close(self) -> None: ...

    def device_used_mib(self, slot: int) -> int | None:
        try:
            text = self.path.read_text(encoding="ascii", errors="replace").strip()
        except FileNotFoundError:
            return 0  # the simulated trainer has not started, or has cleaned up
        except OSError:
            return self._last
        if text.isdigit():  # empty or half-written: keep the last full value
            self._last = int(text)
        return self._last

    def process_used_mib(self, slot: int, pids: set[int]) -> int | None:
        from ltx_wizard.core.autotune.trials.vram_sampler import ProcessesUnsupported

        raise ProcessesUnsupported
