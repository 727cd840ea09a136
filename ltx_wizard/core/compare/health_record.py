"""The LoRA health record: what trainer_side/lora_health.py measured in each checkpoint, read back
through the run folder's codec (one declaration, versioned, unknown fields refused naming the
file). It holds facts only, one entry per LoRA module; health_verdict.py groups and judges them.

The program runs with the trainer environment's python (torch there) and is passed as a file
path, never imported: `health_argv` builds its command line, `read_health` reads what it wrote.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from ltx_wizard.core.io import run_folder
from ltx_wizard.core.io.run_codec import declare

VERSION = 1  # the `VERSION` lora_health.py writes
# ~220 bytes a module: 1,152 modules of a rank-32 LoRA on LTX-2's default targets are ~250 KB a
# checkpoint; the cap leaves room for every kept checkpoint of a long run with all targets.
HEALTH_MAX_BYTES = 64 * 2**20
SCRIPT = Path(__file__).resolve().parents[2] / "trainer_side" / "lora_health.py"


class ModuleFacts(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One LoRA module (its A and B matrices). `name` as in the file, `diffusion_model.` prefix
    included; a norm is None where it is not finite (the counts say why)."""

    name: str
    rank: int
    nan: int  # NaN values in A and B together
    inf: int
    b_zero: bool  # B is all zero: the module learned nothing (PEFT starts B at zero)
    a_norm: float | None
    b_norm: float | None
    delta_norm: float | None  # ||B @ A||_F, the weight update before alpha / rank


class OtherTensor(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A tensor of the file that is not half of an A/B pair: its NaN and Inf still count."""

    name: str
    nan: int
    inf: int
    norm: float | None


class CheckpointFacts(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    path: str
    file_bytes: int
    dtypes: tuple[str, ...]
    seconds: float  # the time its read took, for the plan's cost estimate
    modules: tuple[ModuleFacts, ...]
    others: tuple[OtherTensor, ...]


class HealthRecord(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    version: int
    torch: str  # the torch that measured it (the trainer environment's)
    checkpoints: tuple[CheckpointFacts, ...]


HEALTH_FILE = declare(run_folder.LORA_HEALTH, HealthRecord, version=VERSION)


def health_path(run_dir: str | Path) -> Path:
    return run_folder.LORA_HEALTH.path(run_dir)


def health_argv(python: str | Path, run_dir: str | Path, checkpoints: tuple[Path, ...]) -> list[str]:
    """The program's command line: run as a file by the trainer environment's python."""
    return [str(python), str(SCRIPT), "--out", str(health_path(run_dir)), *map(str, checkpoints)]


def read_health(run_dir: str | Path) -> HealthRecord | None:
    """The record, None when the check has not run; a UsageError naming the file for a damaged one."""
    return HEALTH_FILE.read_path(health_path(run_dir), limit=HEALTH_MAX_BYTES)
