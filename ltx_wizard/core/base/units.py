"""One unit for every memory reading the wizard shows: GiB (2^30 bytes), with its name.

NVML and nvidia-smi report MiB, torch's allocator and its out-of-memory message GiB, and the
trainer's own "Peak GPU memory: X GB" is nvidia-smi's MiB divided by 1024 (GiB under another
name; see trainer_output/grammar.py). Dividing by 1e9 in one place and 1024 in another made one
reading show as two numbers (64.8 vs 68.78), so every figure is formatted here. Tier names
("32GB tier", "80 GB card") are the marketed sizes the trainer's docs use: names, not readings.
"""

from __future__ import annotations

GIB = 1024**3
MIB_PER_GIB = 1024
UNIT = "GiB"


def gib(value: float | None, digits: int = 1, missing: str = "—") -> str:
    """`78.4 GiB` for a reading in GiB; `missing` when there is none."""
    return missing if value is None else f"{value:.{digits}f} {UNIT}"


def mib_to_gib(mib: float | None) -> float | None:
    return None if mib is None else mib / MIB_PER_GIB


def bytes_to_gib(n: float | None) -> float | None:
    return None if n is None else n / GIB
