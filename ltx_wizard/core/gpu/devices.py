"""What a probe found: the GPUs training would see, and where the answer came from.

Frozen dataclasses, not pydantic models: the probe screen's GPU table and tier are drawn from
these, and pydantic (about 100 ms to import and build schemas) would delay that first useful
screen. Every source builds them from values it has already checked (nvml_source, smi_source,
presets); sequences are kept as tuples, as pydantic's tuple fields kept them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from ltx_wizard.core.base.text_safety import clean_text

MIB = 1024 * 1024
Source = Literal["nvml", "nvidia-smi", "csv", "simulated"]


@dataclass(frozen=True, kw_only=True)
class GpuInfo:
    """One device as CUDA would enumerate it (a whole GPU or a MIG instance)."""

    index: int
    name: str
    memory_total_bytes: int | None  # None when the driver does not report it
    uuid: str | None = None
    driver_version: str | None = None
    mig_parent_index: int | None = None  # set for a MIG instance

    def __post_init__(self) -> None:
        # The driver, a CSV or a fake device can name a GPU anything: it reaches the terminal.
        for name in ("name", "uuid", "driver_version"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, clean_text(value)[:200])

    @property
    def memory_total_mib(self) -> int | None:
        if self.memory_total_bytes is None:
            return None
        return self.memory_total_bytes // MIB

    def contract_dict(self) -> dict[str, Any]:
        """The `gpus[]` entry of `probe --json` (a fixed key set other tools rely on)."""
        return {
            "index": self.index,
            "name": self.name,
            "memory_total_mib": self.memory_total_mib,
            "uuid": self.uuid,
        }


@dataclass(frozen=True, kw_only=True)
class ProbeResult:
    """GPUs visible to training, plus notes worth telling the user."""

    source: Source
    gpus: tuple[GpuInfo, ...]
    notes: tuple[str, ...] = ()
    cuda_visible_devices: str | None = None  # the value that narrowed the set, if it did

    def __post_init__(self) -> None:
        object.__setattr__(self, "gpus", tuple(self.gpus))
        object.__setattr__(self, "notes", tuple(self.notes))
