"""Read and check a safetensors header without touching the tensor data.

Layout: 8-byte little-endian header length N, N bytes of UTF-8 JSON (tensor name -> dtype, shape,
data_offsets, plus an optional `__metadata__` of strings), then the raw data. Checkpoints are tens
of GB, so only the first 8 + N bytes are ever read, and N is bounded before it is trusted.
The caller must already have checked that the path is a regular, readable file (see model_paths):
this module opens it, and opening a FIFO would block.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, NamedTuple

from ltx_wizard.core.io.bounded import loads_json
from ltx_wizard.core.base.errors import UsageError

MAX_HEADER_BYTES = 100 * 1024 * 1024  # real headers are a few MB at most
LFS_MAGIC = b"version https://git-lfs.github.com/spec/v1"

# Bits per element; an unknown dtype is tolerated (newer formats) but its byte size is not checked.
DTYPE_BITS = {
    "BOOL": 8,
    "U8": 8,
    "I8": 8,
    "F8_E4M3": 8,
    "F8_E5M2": 8,
    "F8_E8M0": 8,
    "U16": 16,
    "I16": 16,
    "F16": 16,
    "BF16": 16,
    "U32": 32,
    "I32": 32,
    "F32": 32,
    "U64": 64,
    "I64": 64,
    "F64": 64,
    "F4": 4,
    "F6_E2M3": 6,
    "F6_E3M2": 6,
}


class TensorEntry(NamedTuple):
    """One tensor's header entry. A tuple: a real checkpoint has thousands, built per read."""

    name: str
    dtype: str
    shape: tuple[int, ...]
    start: int
    end: int
    numel: int  # elements, math.prod(shape)


@dataclass(frozen=True)
class SafetensorsHeader:
    path: Path
    file_size: int
    header_len: int
    tensors: tuple[TensorEntry, ...]
    metadata: dict[str, str] = field(default_factory=dict)

    # Computed once per header: a kept header is looked at again on every path check.
    @cached_property
    def param_count(self) -> int:
        return sum(t.numel for t in self.tensors)

    @cached_property
    def dtype_counts(self) -> dict[str, int]:
        """Parameters per dtype, largest first."""
        counts: dict[str, int] = {}
        for t in self.tensors:
            counts[t.dtype] = counts.get(t.dtype, 0) + t.numel
        return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))

    def tensor(self, name: str) -> TensorEntry | None:
        return next((t for t in self.tensors if t.name == name), None)

    def metadata_json(self, key: str) -> object | None:
        return metadata_json(self.metadata, key)


def metadata_json(metadata: dict[str, str], key: str) -> object | None:
    """A metadata value that holds JSON, parsed; None when absent or not JSON."""
    raw = metadata.get(key)
    if raw is None:
        return None
    try:
        return loads_json(raw, what=key)
    except UsageError:
        return None


def _bad(path: Path, what: str) -> UsageError:
    return UsageError(f"{path}: {what}")


def read_header(path: Path, file_size: int | None = None) -> SafetensorsHeader:
    """Parse the header of the regular file `path`; raise UsageError naming the problem."""
    raw, file_size, header_len = read_raw(path, file_size)
    return _parse(path, raw, file_size, header_len)


def read_raw(path: Path, file_size: int | None = None) -> tuple[bytes, int, int]:
    """The header's JSON bytes, the file size and the header length (nothing past the header)."""
    try:
        with open(path, "rb") as fh:
            if file_size is None:
                file_size = fh.seek(0, 2)
                fh.seek(0)
            if file_size == 0:
                raise _bad(path, "is empty (0 bytes): the download did not finish; download it again")
            head = fh.read(8)
            if head.startswith(LFS_MAGIC[:8]) and (head + fh.read(len(LFS_MAGIC) - 8)) == LFS_MAGIC:
                raise _bad(
                    path,
                    "is a git-lfs pointer stub, not the weights: run `git lfs pull` in its "
                    "repository, or download the file itself",
                )
            if len(head) < 8:
                raise _bad(path, f"is only {file_size} bytes: too short to be a safetensors file")
            (header_len,) = struct.unpack("<Q", head)
            if header_len > MAX_HEADER_BYTES:
                raise _bad(
                    path,
                    f"declares a {header_len}-byte header (limit {MAX_HEADER_BYTES // 2**20} MB): "
                    "not a safetensors file, or a corrupted one; download it again",
                )
            if 8 + header_len > file_size:
                raise _bad(
                    path,
                    f"declares a {header_len}-byte header but the file has only {file_size} bytes: "
                    "it is truncated or not safetensors; download it again",
                )
            raw = fh.read(header_len)
    except PermissionError:
        raise _bad(path, "cannot be read (permission denied): fix its permissions (chmod a+r)") from None
    except IsADirectoryError:
        raise _bad(path, "is a directory, not a safetensors file") from None
    except OSError as exc:
        raise _bad(path, f"cannot be read ({exc.strerror or exc}): check the disk or mount") from None
    return raw, file_size, header_len


def parse_doc(path: Path, raw: bytes) -> tuple[dict[str, Any], dict[str, str]]:
    """The header JSON as (tensor name -> spec, metadata): the full parse, and the checks' one
    source of messages (header_summary.scan_compact reads the compact layout without it, and
    hands anything else here)."""
    not_json = "header is not UTF-8 JSON: not a safetensors file, or a corrupted one; download it again"
    # NaN/Infinity refused. No depth walk (it took longer than the parse on a 6,000-tensor
    # header): entries() type-checks every value it keeps (dtype a str, shape and offsets
    # ints, metadata strings) and never descends into anything else, so depth cannot hurt us.
    try:
        doc = loads_json(
            raw.decode("utf-8"), what=f"{path} header", max_depth=None, invalid=f"{path}: {not_json}"
        )
    except UnicodeDecodeError:
        raise _bad(path, not_json) from None
    if not isinstance(doc, dict):
        raise _bad(path, not_json)
    meta = doc.pop("__metadata__", None) or {}
    if not isinstance(meta, dict) or not all(isinstance(v, str) for v in meta.values()):
        raise _bad(path, "header __metadata__ is not a map of strings: corrupted file; download it again")
    return doc, meta


def _parse(path: Path, raw: bytes, file_size: int, header_len: int) -> SafetensorsHeader:
    doc, meta = parse_doc(path, raw)
    # Entry by entry through the checker: the wizard itself reads headers as summaries
    # (header_summary, with its fast path); the full table is for tests and tools.
    data_len = file_size - 8 - header_len
    tensors = tuple(checked_entry(path, name, spec, data_len) for name, spec in doc.items())
    return SafetensorsHeader(path, file_size, header_len, tensors, dict(meta))


def checked_entry(path: Path, name: str, spec: object, data_len: int) -> TensorEntry:
    """One tensor's entry, every field checked; raise UsageError saying what is wrong."""
    try:
        dtype = spec["dtype"]  # type: ignore[index]  # not a dict: TypeError, refused below
        shape = tuple(int(d) for d in spec["shape"])  # type: ignore[index]  # likewise
        start, end = (int(o) for o in spec["data_offsets"])  # type: ignore[index]  # likewise
        if not isinstance(dtype, str) or any(d < 0 for d in shape):
            raise ValueError
    except (TypeError, KeyError, ValueError, OverflowError):
        raise _bad(path, f"tensor {name!r} has a malformed header entry: corrupted file") from None
    if not 0 <= start <= end <= data_len:
        raise _bad(
            path,
            f"tensor {name!r} lies at bytes {start}..{end} but the data section has only "
            f"{data_len} bytes: the file is truncated; download it again",
        )
    bits = DTYPE_BITS.get(dtype)
    if bits is not None and (math.prod(shape) * bits + 7) // 8 != end - start:
        raise _bad(
            path,
            f"tensor {name!r} ({dtype} {list(shape)}) does not match its {end - start}-byte "
            "span: corrupted header; download it again",
        )
    return TensorEntry(name, dtype, shape, start, end, math.prod(shape))
