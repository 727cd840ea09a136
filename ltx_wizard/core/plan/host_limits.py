"""Host RAM and free disk for a planned run: read at plan time, checked before anything heavy.

Host RAM while the trainer loads its models. safetensors maps the files into memory, so a weight
loaded in its stored dtype stays in the page cache (shared by every process, re-read from disk if
evicted: slower, never fatal); what counts per training process, all starting at once, is the
memory the trainer itself allocates on the CPU:

* the transformer is built on the CPU in bf16 (ltx_trainer/trainer.py `LtxvTrainer._load_models`:
  load_transformer(device="cpu")): no copy for a bf16 checkpoint, a 2-byte copy per parameter for
  any other dtype (ltx_core/loader/single_gpu_model_builder.py `_cast_floating_sd`); a full
  fine-tune casts it to fp32 on the CPU (4 bytes per parameter, ~82 GiB for 22 B); quantization
  brings the quantized blocks back to the CPU (quantization.py `quantize_model`). FSDP's
  cpu_ram_efficient_loading does not apply: the trainer builds the model itself, on every rank.
* with `load_text_encoder_in_8bit`, every Gemma Linear is copied to fp16 on the CPU before the
  move to the GPU quantises it (ltx_trainer/gemma_8bit.py `_to_8bit_linear`); the trainer's
  troubleshooting doc budgets ~26 GB for LTX 2.5. This happens while validation prompts are
  encoded (validation_runner.py `_cache_prompt_embeddings`, only when there are prompts), and the
  encoder is dropped before the transformer loads, so the peak is the larger of the two.

Free disk in the run folder: the checkpoints the config keeps (checkpoints.interval,
keep_last_n, precision: trainer.py `_save_checkpoint` / `_cleanup_checkpoints`, plus the final
save), the optimizer state when save_training_state is "full", the validation videos (passes x
prompts, at an allowance of 20 MB a video: their size depends on the content) and 1 GB for logs.
Autotune trials write one checkpoint at a time inside the same folder. Where a dataset file is
still to be preprocessed, its latents are counted on the disk they are written to (latent_disk.py:
per sample at the bucket); on the run folder's own disk they add up with the run's outputs.
A disk shortfall is a warning (the skill: flag it, do not enforce a threshold); RAM that cannot
hold the load is refused.

Verdicts: "refuse" only where it cannot fit (RAM: more than memory + free swap, or the cgroup
limit; disk: more than is free); "tight" where it fits only if other programs give memory back
(more than 90 % of what is available now); else "ok". Readings are injectable for tests.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Literal, Mapping

from ltx_wizard.core.tuning.headroom import BYTES_PER_WEIGHT
from ltx_wizard.core.plan.checkpoint_saves import checkpoint_bytes, kept_saves
from ltx_wizard.core.io.bounded import read_bytes
from ltx_wizard.core.base import units
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.inputs.checkpoint import CheckpointInfo
from ltx_wizard.core.io.trainer_config import trainer_config

if TYPE_CHECKING:  # imported where the plan counts the latents (config_step._latents)
    from ltx_wizard.core.preprocess.latent_disk import LatentDisk

GiB = 1024**3
GEMMA_8BIT_DOC_BYTES = 26e9  # docs/troubleshooting.md, when the Gemma header cannot be read
OUTPUT_ALLOWANCE = 1 * GiB  # logs and the trainer's small files
VIDEO_ALLOWANCE = 20 * 10**6  # one validation video (an allowance: mp4 size depends on content)
TIGHT_FRACTION = 0.9
DTYPE_BYTES = {"F32": 4, "F64": 8, "BF16": 2, "F16": 2, "F8_E4M3": 1, "F8_E5M2": 1}


@dataclass(frozen=True)
class HostReadings:
    mem_total: int | None = None
    mem_available: int | None = None
    swap_free: int | None = None
    cgroup_limit: int | None = None  # memory.max of this process's cgroup, if any
    disk_free: int | None = None
    disk_path: Path | None = None  # the folder statvfs was read on
    disk_device: int | None = None  # st_dev of that folder: latents on the same disk add up


MEMINFO = Path("/proc/meminfo")
CGROUP_ROOT = Path("/sys/fs/cgroup")
# Digits bounded before int(): a 5,000-digit value (or a Unicode digit isdigit() accepts) is no
# reading, and 2**62 bytes is beyond any machine, so gib() never overflows a float.
_COUNT = re.compile(r"[0-9]{1,19}")
_MAX_BYTES = 1 << 62


def _bytes_value(text: str, scale: int = 1) -> int | None:
    if not _COUNT.fullmatch(text):
        return None
    value = int(text) * scale
    return value if value < _MAX_BYTES else None


def parse_meminfo(text: str) -> dict[str, int]:
    """/proc/meminfo lines ("MemTotal:  1234 kB") as bytes; odd values are left out."""
    values: dict[str, int] = {}
    for line in text.splitlines():
        key, _, rest = line.partition(":")
        parts = rest.split()
        if parts:
            scale = 1024 if len(parts) > 1 and parts[1].lower() == "kb" else 1
            value = _bytes_value(parts[0], scale)
            if value is not None:
                values[key.strip()] = value
    return values


def read_meminfo(path: Path | None = None) -> dict[str, int]:
    """/proc/meminfo read as a small regular file ({} when absent or odd): the one reader."""
    try:
        data = read_bytes(path or MEMINFO, what="meminfo", limit=1 << 20)
    except UsageError:
        return {}
    return parse_meminfo(data.decode("ascii", "replace"))


def _cgroup_limit(root: Path) -> int | None:
    for name in ("memory.max", "memory/memory.limit_in_bytes"):  # cgroup v2, then v1
        try:
            text = read_bytes(root / name, what="cgroup", limit=4096).decode("ascii", "replace")
        except UsageError:
            continue
        value = _bytes_value(text.strip())
        if value is not None and value < 1 << 60:  # v1 reports "no limit" as a huge number
            return value
    return None


def existing_ancestor(path: Path) -> Path:
    """The run folder may not exist yet: free space is read on its nearest existing parent."""
    path = Path(os.path.abspath(path))
    while not path.exists() and path.parent != path:
        path = path.parent
    return path


def read_host(
    run_dir: Path,
    *,
    meminfo: Path | None = None,
    cgroup_root: Path | None = None,
    statvfs: Callable[[str], Any] = os.statvfs,
) -> HostReadings:
    info = read_meminfo(meminfo)
    where = existing_ancestor(run_dir)
    try:
        st = statvfs(str(where))
        free: int | None = st.f_bavail * st.f_frsize
        device: int | None = os.stat(where).st_dev
    except OSError:
        free = device = None
    return HostReadings(
        info.get("MemTotal"),
        info.get("MemAvailable"),
        info.get("SwapFree"),
        _cgroup_limit(cgroup_root or CGROUP_ROOT),
        free,
        where,
        device,
    )


@dataclass(frozen=True)
class HostCheck:
    level: Literal["ok", "tight", "refuse", "unknown"]
    ram_need: int
    ram_items: tuple[str, ...]
    disk_need: int
    disk_items: tuple[str, ...]
    readings: HostReadings
    warnings: tuple[str, ...] = ()
    refusal: str | None = None
    lines: tuple[str, ...] = field(default=())  # for plan.md and the Summary screen


def gib(n: float | None) -> str:
    """Bytes as GiB, through the one memory format (units.py)."""
    return units.gib(units.bytes_to_gib(n), missing="unknown")


def _ram(
    config: Mapping[str, Any], ckpt: CheckpointInfo, te_params: int, processes: int
) -> tuple[int, int, list[str]]:
    """(bytes every process allocates at once, bytes read through the shared page cache, items)."""
    keys = trainer_config(config)
    full = keys.model.training_mode == "full"
    params = ckpt.transformer_param_count
    dtypes = getattr(ckpt, "dtype_counts", None) or {"BF16": 1}
    stored = max(dtypes, key=lambda name: dtypes[name])
    file_bytes = params * DTYPE_BYTES.get(stored, 2)
    quant = keys.acceleration.quantization
    if full:
        transformer, how = params * 4, "cast to fp32 on the CPU (full fine-tune)"
    elif quant:
        transformer, how = int(params * BYTES_PER_WEIGHT.get(quant, 1.0)), f"quantised ({quant})"
    elif stored != "BF16":
        transformer, how = params * 2, f"copied from {stored.lower()} to bf16 on the CPU"
    else:
        transformer, how = 0, "mapped from the bf16 file, no copy"
    items = [f"transformer {how}: {gib(transformer)} per process"]
    gemma = 0
    prompts = keys.validation.sample_list()
    if keys.acceleration.load_text_encoder_in_8bit is True and prompts:
        gemma = te_params * 2 if te_params else int(GEMMA_8BIT_DOC_BYTES)
        items.append(f"Gemma copied to fp16 on the CPU before 8-bit quantisation: {gib(gemma)} per process")
    per_rank = max(transformer, gemma)
    if processes > 1:
        items.append(f"{processes} training processes load at once: {processes} x {gib(per_rank)}")
    items.append(f"read through the shared page cache: the {gib(file_bytes)} checkpoint")
    return per_rank * processes, int(file_bytes), items


def _disk(config: Mapping[str, Any], ckpt: CheckpointInfo) -> tuple[int, list[str]]:
    keys = trainer_config(config)
    size = checkpoint_bytes(config, ckpt)
    # every checkpoint the trainer leaves, and the one written before the oldest is deleted
    kept = kept_saves(keys.optimization.steps or 0, keys.checkpoints.interval, keys.checkpoints.keep_last_n)
    items = [f"{kept.peak} checkpoint(s) of {gib(size.weights)}"]
    total = kept.peak * size.weights + OUTPUT_ALLOWANCE
    if size.state:
        total += kept.peak * size.state
        items.append(f"{kept.peak} optimizer state file(s) of {gib(size.state)} (save_training_state: full)")
    videos = validation_videos(config)
    if videos:
        total += videos * VIDEO_ALLOWANCE
        items.append(
            f"{videos} validation videos at an allowance of 20 MB each: {gib(videos * VIDEO_ALLOWANCE)}"
        )
    items.append(f"logs: {gib(OUTPUT_ALLOWANCE)}")
    return total, items


def output_disk_need(config: Mapping[str, Any], ckpt: CheckpointInfo) -> int:
    """The plan's disk budget for the run's outputs (checkpoints, states, videos, logs), in bytes."""
    return _disk(config, ckpt)[0]


def validation_videos(config: Mapping[str, Any]) -> int:
    """Validation passes (every validation.interval steps, and at step 0 unless skipped:
    trainer.py `train`) x the prompts of validation.samples."""
    keys = trainer_config(config)
    samples = keys.validation.sample_list()
    interval = keys.validation.interval
    steps = keys.optimization.steps or 0
    if not samples or interval is None or interval <= 0:
        return 0
    passes = steps // interval + (0 if keys.validation.skip_initial_validation is True else 1)
    return passes * len(samples)


def check_host(
    config: Mapping[str, Any],
    ckpt: CheckpointInfo,
    te_params: int,
    processes: int,
    readings: HostReadings,
    *,
    enforce: bool = True,
    latents: LatentDisk | None = None,
) -> HostCheck:
    """RAM and disk the run needs against what the host has. `enforce=False` (simulated GPUs)
    turns a refusal into a warning. `latents`: core/preprocess/latent_disk.py LatentDisk, the
    preprocessing still to run."""
    ram_need, cached, ram_items = _ram(config, ckpt, te_params, processes)
    disk_need, disk_items = _disk(config, ckpt)
    latent_warnings = _latent_disk(latents, readings, disk_items)
    if latents is not None and latent_warnings is None:  # on the run folder's disk: one need
        disk_need += latents.total
    r = readings
    memory, capacity, available = _memory(r)
    problems: list[str] = []
    warnings: list[str] = []
    if capacity is not None and ram_need > capacity:
        problems.append(
            f"the run needs {gib(ram_need)} of host RAM at load time ({'; '.join(ram_items[:-1])}) but "
            f"this machine has {gib(capacity)} (memory{' limit' if r.cgroup_limit else ''}"
            f"{' + free swap' if r.cgroup_limit is None and r.swap_free else ''}): use fewer GPUs, "
            "LoRA instead of a full fine-tune, or a machine with more RAM"
        )
    elif available is not None and ram_need > TIGHT_FRACTION * available:
        warnings.append(
            f"host RAM is tight: loading needs {gib(ram_need)} and {gib(available)} is available "
            "now; close other programs or expect swapping"
        )
    elif available is not None and ram_need + cached > available:
        warnings.append(
            f"loading reads the {gib(cached)} checkpoint through the page cache beside the "
            f"{gib(ram_need)} it allocates, more than the {gib(available)} available now: it "
            "loads, more slowly (parts are read from disk again)"
        )
    warnings += latent_warnings or []
    warnings += _disk_warnings(disk_need, disk_items, r)
    refusal = None
    if problems and enforce:
        refusal = "; and ".join(problems)
    elif problems:
        warnings += [f"{p} (simulated GPUs: not enforced)" for p in problems]
    level: Literal["ok", "tight", "refuse", "unknown"] = (
        "refuse"
        if refusal
        else "tight"
        if warnings
        else ("unknown" if capacity is None and r.disk_free is None else "ok")
    )
    lines = _host_lines(ram_need, cached, ram_items, disk_need, disk_items, memory, available, r)
    return HostCheck(
        level, ram_need, tuple(ram_items), disk_need, tuple(disk_items), r, tuple(warnings), refusal, lines
    )


def _memory(r: HostReadings) -> tuple[int | None, int | None, int | None]:
    """The host's memory (the cgroup's limit where lower), what can hold the load (swap counts
    only without a limit), and what is available now."""
    memory = (
        min(x for x in (r.mem_total, r.cgroup_limit) if x is not None)
        if (r.mem_total or r.cgroup_limit)
        else None
    )
    capacity = None if memory is None else memory + (r.swap_free or 0) * (r.cgroup_limit is None)
    available = (
        r.mem_available if r.cgroup_limit is None else min(r.mem_available or r.cgroup_limit, r.cgroup_limit)
    )
    return memory, capacity, available


def _disk_warnings(disk_need: int, disk_items: list[str], r: HostReadings) -> list[str]:
    """The run folder's disk against what is free: the skill flags it, never enforces it."""
    if r.disk_free is not None and disk_need > r.disk_free:
        return [
            f"not enough disk: the run folder needs about {gib(disk_need)} "
            f"({'; '.join(disk_items)}) but {r.disk_path} has {gib(r.disk_free)} free: free "
            f"{gib(disk_need - r.disk_free)} there or pick another --workspace"
        ]
    if r.disk_free is not None and disk_need > TIGHT_FRACTION * r.disk_free:
        return [
            f"disk is tight: the run needs about {gib(disk_need)} and {r.disk_path} "
            f"has {gib(r.disk_free)} free"
        ]
    return []


def _latent_disk(latents: LatentDisk | None, r: HostReadings, disk_items: list[str]) -> list[str] | None:
    """The preprocessing's latents: an item of the run's disk (None returned: add them to its
    need) when on the run folder's disk, else their own check (the warnings, maybe none)."""
    if latents is None:
        return []
    item = (
        f"{latents.samples} samples' latents to preprocess into {latents.root}: "
        f"{gib(latents.per_sample)} each, {gib(latents.total)}"
    )
    if latents.device is not None and latents.device == r.disk_device:
        disk_items.append(item)
        return None
    disk_items.append(item + f" (another disk: {gib(latents.free)} free there)")
    if latents.free is not None and latents.total > latents.free:
        return [
            f"not enough disk for the preprocessed data: {gib(latents.total)} into "
            f"{latents.root}, which has {gib(latents.free)} free: free space there or pass "
            "--precomputed-dir on a larger disk"
        ]
    return []


def _host_lines(
    ram_need: int,
    cached: int,
    ram_items: list[str],
    disk_need: int,
    disk_items: list[str],
    memory: int | None,
    available: int | None,
    r: HostReadings,
) -> tuple[str, ...]:
    """plan.md's and the Summary screen's lines: what the run needs, what the host has."""
    return (
        f"Host RAM at load time: needs {gib(ram_need)} (+ {gib(cached)} page cache); this "
        f"machine: {gib(memory)} "
        f"({gib(available)} available now"
        + (f", {gib(r.swap_free)} free swap" if r.swap_free else "")
        + ").",
        *[f"  - {item}" for item in ram_items],
        f"Disk in the run folder: needs about {gib(disk_need)}; {r.disk_path or 'the folder'} has "
        f"{gib(r.disk_free)} free.",
        *[f"  - {item}" for item in disk_items],
    )
