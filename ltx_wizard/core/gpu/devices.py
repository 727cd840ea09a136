"""What a probe found: the GPUs training would see, and where the answer came from."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, field_validator

from ltx_wizard.core.base.text_safety import clean_text

MIB = 1024 * 1024
Source = Literal["nvml", "nvidia-smi", "csv", "simulated"]


class GpuInfo(BaseModel):
    """One device as CUDA would enumerate it (a whole GPU or a MIG instance)."""

    model_config = ConfigDict(frozen=True)

    index: int
    name: str
    memory_total_bytes: int | None  # None when the driver does not report it
    uuid: str | None = None
    driver_version: str | None = None
    mig_parent_index: int | None = None  # set for a MIG instance

    @field_validator("name", "uuid", "driver_version")
    @classmethod
    def _display_safe(cls, value: str | None) -> str | None:
        # The driver, a CSV or a fake device can name a GPU anything: it reaches the terminal.
        return None if value is None else clean_text(value)[:200]

    @property
    def memory_total_mib(self) -> int | None:
        if self.memory_total_bytes is None:
            return None
        return self.memory_total_bytes // MIB

    def contract_dict(self) -> dict:
        """The `gpus[]` entry of `probe --json` (a fixed key set other tools rely on)."""
        return {
            "index": self.index,
            "name": self.name,
            "memory_total_mib": self.memory_total_mib,
            "uuid": self.uuid,
        }


class ProbeResult(BaseModel):
    """GPUs visible to training, plus notes worth telling the user."""

    model_config = ConfigDict(frozen=True)

    source: Source
    gpus: tuple[GpuInfo, ...]
    notes: tuple[str, ...] = ()
    cuda_visible_devices: str | None = None  # the value that narrowed the set, if it did
