"""The LoRA health check's reader: run with the trainer environment's python, never imported by the
wizard (it needs torch, which the wizard never loads).

    python lora_health.py --out OUT.json CHECKPOINT [CHECKPOINT ...]

For each LoRA checkpoint the trainer saved, it checks the safetensors header against the file's
size, then reads the tensors one by one with pread (a LoRA file can be GBs: at most one A/B pair
is in memory at once, and the file is never mapped whole) and writes one JSON record of facts per module:
its rank, its NaN and Inf counts, whether its B matrix is all zero, and the Frobenius norms of A,
B and of the weight update B @ A. It decides nothing: the wizard's core reads the record back
(core/compare/health_record.py) and groups, matches against the config's targets and judges
(core/compare/health_verdict.py), so every rule is typed and tested there.

The file layout mirrored: ltx_trainer/trainer.py `LtxvTrainer._save_checkpoint` saves PEFT's
`get_peft_model_state_dict` with "base_model.model." removed and "diffusion_model." added, so a
module's two tensors are `diffusion_model.<module>.lora_A.weight` (rank x in) and
`...lora_B.weight` (out x rank), in checkpoints.precision (bfloat16 by default). Any other tensor
is recorded on its own (NaN and Inf still count).

Exit 0 with the record written atomically (a temporary file beside it, then a rename); exit 2 with
one line naming the file for a path that is not a regular file (a FIFO is refused before any read,
never waited on), not a safetensors file, or truncated; no record is written then.
"""

from __future__ import annotations

import argparse
import json
import math
import importlib.util
import os
import stat
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    import torch

VERSION = 1  # core/compare/health_record.py reads this version
PREFIX = "diffusion_model."  # trainer.py _save_checkpoint: the ComfyUI-compatible prefix
A_SUFFIX, B_SUFFIX = ".lora_A.weight", ".lora_B.weight"  # PEFT's names, adapter name removed
HEADER_MAX_BYTES = 100_000_000  # safetensors' own limit on the JSON header
ITEM_BYTES = {"F64": 8, "F32": 4, "F16": 2, "BF16": 2, "I64": 8, "I32": 4, "I16": 2, "I8": 1, "U8": 1}
ITEM_BYTES |= {"BOOL": 1, "F8_E4M3": 1, "F8_E5M2": 1}


class Unreadable(Exception):
    """A checkpoint that cannot be read as the trainer's safetensors file: one line, naming it."""


def _kind(mode: int) -> str | None:
    """What a path that is not a regular file is, in words; None for a regular file."""
    for test, words in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a device")):
        if test(mode):
            return words
    return None if stat.S_ISREG(mode) else "not a regular file"


def read_header(path: Path) -> tuple[dict[str, Any], int, int]:
    """The tensors' entries, the file's size and where its data starts, checked against the bytes present (a truncated
    file is named here, before a tensor is read). O_NONBLOCK: a FIFO must not block the open."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise Unreadable(f"cannot be opened ({exc.strerror})") from None
    try:
        info = os.fstat(fd)
        kind = _kind(info.st_mode)
        if kind is not None:
            raise Unreadable(f"is {kind}, not a checkpoint file")
        size = info.st_size
        head = os.pread(fd, 8, 0)
        length = int.from_bytes(head, "little") if len(head) == 8 else -1
        if length < 2 or length > HEADER_MAX_BYTES or 8 + length > size:
            raise Unreadable(f"is not a safetensors file (its {size} bytes hold no header)")
        raw = os.pread(fd, length, 8)
    finally:
        os.close(fd)
    try:
        header = json.loads(raw)
    except (UnicodeDecodeError, ValueError):
        raise Unreadable("is not a safetensors file (its header is not JSON)") from None
    if not isinstance(header, dict):
        raise Unreadable("is not a safetensors file (its header is not a table of tensors)")
    header.pop("__metadata__", None)
    _check_extents(header, size - 8 - length)
    return header, size, 8 + length


def _check_extents(header: dict[str, Any], data_bytes: int) -> None:
    end = 0
    for name, entry in header.items():
        try:
            start, stop = entry["data_offsets"]
            shape = entry["shape"]
            want = math.prod(shape) * ITEM_BYTES[entry["dtype"]]
        except (TypeError, KeyError, ValueError):
            raise Unreadable(f"is not a safetensors file (tensor {name[:80]} is described wrongly)") from None
        if not all(type(n) is int and n >= 0 for n in (start, stop, *shape)):
            raise Unreadable(f"is not a safetensors file (tensor {name[:80]} is described wrongly)")
        if stop - start != want:
            raise Unreadable(
                f"is damaged (tensor {name[:80]} has {stop - start} bytes, its shape needs {want})"
            )
        end = max(end, stop)
    if end > data_bytes:
        raise Unreadable(f"is truncated: its tensors need {end} bytes of data, it holds {data_bytes}")


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def _counts(tensor: torch.Tensor) -> tuple[int, int]:
    """NaN and Inf values: one pass for the usual all-finite tensor, two more only when not."""
    import torch

    bad = tensor.numel() - int(torch.isfinite(tensor).sum())
    nan = int(torch.isnan(tensor).sum()) if bad else 0
    return nan, bad - nan


def module_facts(name: str, a: torch.Tensor, b: torch.Tensor) -> dict[str, object]:
    """One module's facts, in float32 (the trainer keeps LoRA weights in float32 while training).
    ||B @ A||_F from the two rank x rank Gram matrices (trace((B'B)(AA'))), never the out x in
    product itself: 32 x 32 instead of 16384 x 4096 for a feed-forward module."""
    import torch

    a32, b32 = a.to(torch.float32), b.to(torch.float32)
    a_nan, a_inf = _counts(a32)
    b_nan, b_inf = _counts(b32)
    delta_sq = float(((b32.T @ b32).double() * (a32 @ a32.T).double()).sum())
    return {
        "name": name,
        "rank": int(a.shape[0]),
        "nan": a_nan + b_nan,
        "inf": a_inf + b_inf,
        "b_zero": not bool(b32.any()),
        "a_norm": _finite(float(torch.linalg.vector_norm(a32))),
        "b_norm": _finite(float(torch.linalg.vector_norm(b32))),
        "delta_norm": _finite(math.sqrt(max(delta_sq, 0.0))) if math.isfinite(delta_sq) else None,
    }


def other_facts(name: str, tensor: torch.Tensor) -> dict[str, object]:
    import torch

    t32 = tensor.to(torch.float32)
    nan, inf = _counts(t32)
    return {"name": name, "nan": nan, "inf": inf, "norm": _finite(float(torch.linalg.vector_norm(t32)))}


def _reader(fd: int, header: dict[str, Any], base: int) -> Callable[[str], torch.Tensor]:
    """Reads one tensor with pread into its own buffer: memory holds the tensors in use, never a
    map of the whole file (a mapped file's pages count in the process's resident memory)."""
    import torch

    kinds = {"F64": torch.float64, "F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}

    def read(name: str) -> torch.Tensor:
        entry = header[name]
        start, stop = entry["data_offsets"]
        kind = kinds.get(entry["dtype"])
        if kind is None:
            raise Unreadable(f"holds tensor {name[:80]} of type {entry['dtype']}, not a LoRA weight's")
        buffer = bytearray(stop - start)
        if stop > start and os.preadv(fd, [buffer], base + start) != stop - start:
            raise Unreadable(f"is truncated: tensor {name[:80]} ends past the end of the file")
        if not buffer:
            return torch.zeros(entry["shape"], dtype=kind)
        return torch.frombuffer(buffer, dtype=kind).reshape(entry["shape"])

    return read


def check(path: Path, header: dict[str, Any], size: int, base: int) -> dict[str, object]:
    """One checkpoint's facts, reading one A/B pair at a time."""
    started = time.perf_counter()
    pairs = {k[: -len(A_SUFFIX)] for k in header if k.endswith(A_SUFFIX)}
    pairs &= {k[: -len(B_SUFFIX)] for k in header if k.endswith(B_SUFFIX)}
    for module in pairs:  # A is rank x in, B is out x rank (PEFT's Linear LoRA)
        a, b = header[module + A_SUFFIX]["shape"], header[module + B_SUFFIX]["shape"]
        if len(a) != 2 or len(b) != 2 or a[0] != b[1]:
            raise Unreadable(f"is damaged (module {module[:80]}: A is {a}, B is {b}, not a LoRA pair)")
    paired = {m + s for m in pairs for s in (A_SUFFIX, B_SUFFIX)}
    dtypes = sorted({str(e.get("dtype")) for e in header.values()})
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        if _kind(os.fstat(fd).st_mode) is not None:  # replaced since its header was read
            raise Unreadable("is no longer a regular file")
        read = _reader(fd, header, base)
        modules = [module_facts(m, read(m + A_SUFFIX), read(m + B_SUFFIX)) for m in sorted(pairs)]
        others = [other_facts(k, read(k)) for k in sorted(header) if k not in paired]
    finally:
        os.close(fd)
    return {
        "path": str(path),
        "file_bytes": size,
        "dtypes": dtypes,
        "seconds": round(time.perf_counter() - started, 3),
        "modules": modules,
        "others": others,
    }


def write_atomically(out: Path, record: dict[str, object]) -> None:
    """A temporary file in the same folder, then a rename: a reader sees the old record or the new
    one, never half of one. allow_nan=False: every non-finite norm is already None."""
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(record, handle, indent=1, allow_nan=False)
            handle.write("\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Facts of LoRA checkpoints for the wizard's health check")
    parser.add_argument("--out", type=Path, required=True, help="the JSON record to write")
    parser.add_argument("checkpoints", type=Path, nargs="+", help="LoRA .safetensors files the trainer saved")
    args = parser.parse_args(argv)
    headers = []
    for path in args.checkpoints:  # every file checked before torch is loaded (seconds): a bad one fails fast
        try:
            headers.append(read_header(path))
        except Unreadable as exc:
            print(f"lora_health: {path} {exc}", file=sys.stderr)
            return 2
    if importlib.util.find_spec("torch") is None:  # the trainer's environment has it; the wizard's need not
        print(
            "lora_health: torch cannot be imported here: run it inside the LTX-2 trainer's environment, as "
            "`ltx-wizard compare RUN` does (uv run python ... in the checkout's packages/ltx-trainer)",
            file=sys.stderr,
        )
        return 2
    import torch

    # One thread: the tensors are small (a rank-32 A is 32 x 4096), and torch's worker threads
    # spinning between them cost 10x the CPU on a busy box (25 s against 2.6 s for a 428 MB LoRA).
    torch.set_num_threads(1)
    facts = []
    for path, (header, size, base) in zip(args.checkpoints, headers):
        try:
            facts.append(check(path, header, size, base))
        except Unreadable as exc:
            print(f"lora_health: {path} {exc}", file=sys.stderr)
            return 2
    write_atomically(args.out, {"version": VERSION, "torch": torch.__version__, "checkpoints": facts})
    return 0


if __name__ == "__main__":
    sys.exit(main())
