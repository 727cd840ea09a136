"""The simulated used-memory figure (LTX_WIZARD_SIM_VRAM_FILE) another process reads as if from
NVML: one integer of MiB, replaced atomically."""

from __future__ import annotations

import os
from pathlib import Path


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
