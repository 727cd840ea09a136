"""What the wizard keeps of a safetensors header: counts, metadata and the transformer's linear
layers, folded from the header's one parse; the tensor table itself is dropped. A header in the
compact layout every writer produces is scanned in bulk (scan_compact) instead of being built as
~20,000 JSON objects; any other header goes through the full parse and its checks.

Why: a models folder may hold hundreds of LTX-2 checkpoints of ~6,000 tensors each. Keeping each
table (about 2.2 MiB and 20,000 objects a file) grew memory per checkpoint and made every full
garbage collection slower, which pushed discovery past its time budget. A summary is one small
object: what discovery shows, what the path checks refuse on, and what autotune sizes LoRA from.
"""

from __future__ import annotations

import gc
import json
import math
import re
from bisect import bisect_left
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import accumulate, compress, repeat
from operator import getitem, gt
from pathlib import Path
from typing import Any, Iterator, TypeVar

from ltx_wizard.core.inputs.safetensors_header import (
    DTYPE_BITS,
    checked_entry,
    metadata_json,
    parse_doc,
    read_raw,
)

K = TypeVar("K")
V = TypeVar("V")

COMPONENT_SECTIONS = ("vae", "audio_vae", "vocoder")
# Tensor-name prefixes of the non-transformer components of a unified checkpoint.
NON_TRANSFORMER_PREFIXES = tuple(f"{s}." for s in COMPONENT_SECTIONS) + ("text_embedding_projection.",)
# The text connectors sit under the transformer's prefix but are built into the embeddings
# processor, not the transformer (ltx_core/text_encoders/gemma EMBEDDINGS_PROCESSOR_KEY_OPS).
CONNECTOR_PREFIXES = tuple(
    f"model.diffusion_model.{c}embeddings_connector." for c in ("video_", "audio_", "")
)
# mirrors ltx_core/model/transformer/model_configurator.py LTXV_MODEL_COMFY_RENAMING_MAP
TRANSFORMER_PREFIX = "model.diffusion_model."
_AUX_PREFIX = "hf_asset__"  # a packed Gemma's bundled assets: not weights

# (module name as the trainer's transformer names it, out_features, in_features)
Linear = tuple[str, int, int]


@dataclass(frozen=True)
class HeaderSummary:
    path: Path
    file_size: int
    header_len: int
    tensor_count: int
    param_count: int
    dtype_counts: dict[str, int]  # parameters per dtype, largest first
    metadata: dict[str, str]
    transformer_params: int  # outside the components and the text connectors
    connector_params: int
    # "name\tout\tin\n" per 2-D `.weight` of the transformer (what a LoRA target can wrap): one
    # str instead of ~1,300 tuples a checkpoint, decoded only when a LoRA is sized (linears()).
    linear_table: str
    components: frozenset[str]  # first name part of component tensors: vae, audio_vae, ...
    has_tokenizer_json: bool
    auxiliary_params: int  # tokenizer_json and hf_asset__* (a packed Gemma's non-weights)

    def metadata_json(self, key: str) -> object | None:
        """A metadata value that holds JSON, parsed; None when absent or not JSON."""
        return metadata_json(self.metadata, key)


def linears(table: str) -> tuple[Linear, ...]:
    """The linear layers of a summary's `linear_table`."""
    rows = (line.split("\t") for line in table.split("\n") if line)
    return tuple((name, int(out_f), int(in_f)) for name, out_f, in_f in rows)


def summarize(path: Path, file_size: int | None = None) -> HeaderSummary:
    """Read and parse the header of the regular file `path` once; raise UsageError naming the
    problem (the same messages as read_header)."""
    raw, file_size, header_len = read_raw(path, file_size)
    with _collector_paused():
        fold, meta = fold_header(path, raw, file_size - 8 - header_len)
        del raw  # the parsed header is freed here, by reference counting (see _collector_paused)
    counts = dict(sorted(fold.dtypes.items(), key=lambda kv: (-kv[1], kv[0])))
    return HeaderSummary(
        path=path,
        file_size=file_size,
        header_len=header_len,
        tensor_count=fold.count,
        param_count=sum(counts.values()),
        dtype_counts=counts,
        metadata=dict(meta),
        transformer_params=fold.transformer,
        connector_params=fold.connectors,
        linear_table="".join(fold.linears),
        components=frozenset(fold.components),
        has_tokenizer_json=fold.tokenizer,
        auxiliary_params=fold.auxiliary,
    )


def fold_header(path: Path, raw: bytes, data_len: int) -> tuple[_Fold, dict[str, str]]:
    """The one parse of a header's JSON bytes: the compact scan when the header is in the layout
    every safetensors writer produces, else the full JSON parse, which also says what is wrong."""
    scanned = scan_compact(raw, data_len)
    if scanned is not None:
        return scanned
    doc, meta = parse_doc(path, raw)
    fold = _Fold()
    fold.add(path, doc, data_len)
    return fold, meta


@contextmanager
def _collector_paused() -> Iterator[None]:
    """No garbage collection while one header is parsed and folded (milliseconds).

    Why: the parsed header is ~20,000 containers; allocating them triggers collections that
    promote them, and every full collection then walks the whole heap again: on a folder of
    checkpoints that doubled discovery's time. The parse builds no cycles and everything is freed
    by reference counting before the collector runs again. The collector is turned back on only
    where it was on (another thread parsing at once at worst leaves one parse collected)."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


class _Fold:
    """The running totals of one pass over a header's tensors."""

    def __init__(self) -> None:
        self.count = self.transformer = self.connectors = self.auxiliary = 0
        self.dtypes: dict[str, int] = {}
        self.linears: list[str] = []
        self.components: set[str] = set()
        self.tokenizer = False

    def add(self, path: Path, doc: dict[str, Any], data_len: int) -> None:
        """Check and count every tensor. The fast path takes what a well-formed entry holds
        (one Python loop over ~6,000 tensors: no object per tensor); anything else goes
        through checked_entry, which says what is wrong or gives the entry."""
        dtypes, linear, start = self.dtypes, self.linears.append, len(TRANSFORMER_PREFIX)
        component, bits_of, prod = self.components.add, DTYPE_BITS.get, math.prod
        transformer = connectors = auxiliary = 0
        for name, spec in doc.items():
            try:
                dtype, shape, (first, end) = spec["dtype"], spec["shape"], spec["data_offsets"]
                numel = prod(shape)
                bits = bits_of(dtype)
                odd = (
                    type(dtype) is not str
                    or type(shape) is not list
                    or type(first) is not int
                    or type(end) is not int
                    or not 0 <= first <= end <= data_len
                    or type(numel) is not int
                    or (shape and min(shape) < 0)
                    or (bits is not None and (numel * bits + 7) // 8 != end - first)
                )
            except (TypeError, KeyError, ValueError):
                odd = True
            if odd:
                _, dtype, shape, _, _, numel = checked_entry(path, name, spec, data_len)
            dtypes[dtype] = dtypes.get(dtype, 0) + numel
            if name.startswith(TRANSFORMER_PREFIX):
                if name.startswith(CONNECTOR_PREFIXES):
                    connectors += numel
                    continue
                module = name[start:]
            elif name.startswith(NON_TRANSFORMER_PREFIXES):
                component(name[: name.index(".")])
                continue
            else:
                module = name
                if name == "tokenizer_json" or name.startswith(_AUX_PREFIX):
                    auxiliary += numel
                    self.tokenizer = self.tokenizer or name == "tokenizer_json"
            transformer += numel
            # a name holding a tab or newline is no module a LoRA target names: left out
            if len(shape) == 2 and module.endswith(".weight") and "\t" not in module and "\n" not in module:
                linear(f"{module[:-7]}\t{shape[0]}\t{shape[1]}\n")
        self.count, self.transformer = len(doc), transformer
        self.connectors, self.auxiliary = connectors, auxiliary


# The layout the safetensors writers produce (compact JSON, tensors in offset order):
#   {"__metadata__":{..},"NAME":{"dtype":"BF16","shape":[4096,4096],"data_offsets":[0,33554432]},..}
# Split on '"', each tensor is 10 pieces: NAME, :{, dtype, :, BF16, ",", shape, :[4096,4096],,
# data_offsets, :[0,33554432]}, (the last tensor's closes the map: `]}`). Bytes, not str: no
# decoded copy of the header, and bytes pieces are cheaper to make.
_LITERALS = ((2, b":{"), (3, b"dtype"), (4, b":"), (6, b","), (7, b"shape"), (9, b"data_offsets"))
_SHAPE = re.compile(rb":\[((?:0|[1-9][0-9]{0,18})(?:,(?:0|[1-9][0-9]{0,18}))*)?\],")
_BITS = {dtype.encode(): bits for dtype, bits in DTYPE_BITS.items()}
_CONTROL = tuple(bytes([c]) for c in range(32))
_METADATA_OPEN = b'{"__metadata__":'
_DECODER = json.JSONDecoder()
_TP, _SKIP = (
    TRANSFORMER_PREFIX.encode(),
    tuple(p.encode() for p in CONNECTOR_PREFIXES + NON_TRANSFORMER_PREFIXES),
)


def scan_compact(raw: bytes, data_len: int) -> tuple[_Fold, dict[str, str]] | None:
    """The fold of a header in the compact layout, without building its ~20,000 JSON objects;
    None for any other header (the full parse then reads it, and says what is wrong).

    Why: json.loads of an 840 KB header and a Python loop over its 6,000 tensors took ~12 ms, and
    discovery meets hundreds. Accepted only when the text is exactly the compact JSON of what was
    read (every piece checked where it must be, names unique and free of escapes and control
    characters, ints written as JSON writes them, offsets contiguous from 0, each span its dtype
    and shape's size), so json.loads would give the same tensors and the full checks would pass.
    Anything else (whitespace, escapes, gaps, an unknown dtype, ...) falls back: slower, never
    wrong."""
    located = _locate(raw)
    if located is None:
        return None
    meta, first, stop = located  # the first name's quote; the map's closing brace
    parts = raw.split(b'"')
    skip = raw.count(b'"', 0, first)  # the pieces of the metadata
    n = (len(parts) - skip - 1) // 10
    if (
        n < 1
        or len(parts) != skip + 10 * n + 1
        or any(parts[skip + i :: 10].count(piece) != n for i, piece in _LITERALS)
    ):
        return None
    names, dtypes = parts[skip + 1 :: 10], parts[skip + 5 :: 10]
    shapes, offsets = parts[skip + 8 :: 10], parts[skip + 10 :: 10]
    offsets[-1] = raw[raw.rindex(b'"', 0, stop) + 1 : stop]  # without the map's brace and padding
    del parts
    joined = b'"'.join(names)
    if any(c in joined for c in _CONTROL):
        return None  # a raw control character is no JSON
    bits_of = _all_known({dtype: _BITS.get(dtype) for dtype in set(dtypes)})
    dims_of = _all_known({shape: _dims(shape) for shape in set(shapes)})  # a few dozen
    if bits_of is None or dims_of is None:
        return None  # an unknown dtype too: its span cannot be derived from its shape
    numel_of = {shape: math.prod(dims) for shape, dims in dims_of.items()}
    span_of = {
        dtype: {shape: (numel * bits + 7) // 8 for shape, numel in numel_of.items()}
        for dtype, bits in bits_of.items()
    }
    ends = list(accumulate(map(getitem, map(span_of.__getitem__, dtypes), shapes)))
    if ends[-1] > data_len or b"\0".join(offsets) != _offsets_text(ends):
        return None
    numels = list(map(numel_of.__getitem__, shapes))
    fold = _fold_sorted(names, numels)
    if fold is None:
        return None
    fold.count = n
    kinds = list(bits_of)
    counts = {dtype: sum(compress(numels, map(dtype.__eq__, dtypes))) for dtype in kinds[1:]}
    counts[kinds[0]] = sum(numels) - sum(counts.values())
    fold.dtypes = {dtype.decode(): count for dtype, count in counts.items()}
    fold.linears = [_linears(names, shapes, dims_of).decode("utf-8")]
    return fold, meta


def _locate(raw: bytes) -> tuple[dict[str, str], int, int] | None:
    """(metadata, where the first tensor's name opens, where the map closes), when the header is
    UTF-8 (json requires it), holds no escape outside its metadata and ends `]}}` + padding."""
    if not raw.isascii():
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            return None
    stop = len(raw) - len(raw[-64:]) + len(raw[-64:].rstrip(b" \t\n\r")) - 1
    if raw[stop - 2 : stop + 1] != b"]}}":
        return None
    meta: object = {}
    first, before = 1, b"{"
    if raw.startswith(_METADATA_OPEN):
        size = 1 << 16  # the metadata is a few KB: decode no more of the header than it needs
        while True:
            text = raw[:size].decode("utf-8", "ignore")  # a character cut at the end, at most
            try:
                meta, end = _DECODER.raw_decode(text, len(_METADATA_OPEN))
                break
            except (ValueError, RecursionError):
                if size >= len(raw):
                    return None
                size *= 16
        if type(meta) is not dict or not all(type(v) is str for v in meta.values()):
            return None
        first, before = len(text[:end].encode("utf-8")) + 1, b","
    if (
        raw[first - 1 : first + 1] != before + b'"'
        or raw.find(b"\\", first) != -1
        or raw.find(b'":{"dtype":"', first, first + 4096) == -1
    ):
        return None  # an escape in a name, or not compact at all: the full parse reads it
    return meta, first, stop  # type: ignore[return-value]  # meta: checked str -> str above


def _all_known(found: dict[K, V | None]) -> dict[K, V] | None:
    """`found` when none of its values is None, else None."""
    known = {key: value for key, value in found.items() if value is not None}
    return known if len(known) == len(found) else None


def _dims(shape: bytes) -> tuple[int, ...] | None:
    """The dims of a shape piece `:[4096,4096],` when written as JSON writes ints, else None."""
    match = _SHAPE.fullmatch(shape)
    if match is None:
        return None
    return tuple(map(int, match[1].split(b","))) if match[1] else ()


def _offsets_text(ends: list[int]) -> bytes:
    """The offset pieces of a layout contiguous from 0, NUL-separated (no piece holds a NUL, so
    the separators pin each piece to its tensor): `:[0,E1]},` `:[E1,E2]},` ... `:[..,En]}`, in
    one format call."""
    pairs = [0] * (2 * len(ends))
    pairs[1::2] = ends
    pairs[2::2] = ends[:-1]
    return (b":[%d,%d]},\0" * len(ends))[:-2] % tuple(pairs)


def _fold_sorted(names: list[bytes], numels: list[int]) -> _Fold | None:
    """_Fold.add's totals by name prefix, from the names sorted once (UTF-8 sorts as the
    characters do): each prefix is a run of them, its parameters a difference of running sums.
    None when a name repeats (json would keep the last), is `__metadata__`, or is the
    transformer's prefix + `weight` (the one name _linears' cuts would get wrong)."""
    numel_of = dict(zip(names, numels))
    if len(numel_of) != len(names) or b"__metadata__" in numel_of or _TP + b"weight" in numel_of:
        return None
    ordered = sorted(numel_of)
    sums = [0, *accumulate(map(numel_of.__getitem__, ordered))]

    def run(prefix: str) -> tuple[int, int]:
        """(parameters, tensors) of the names starting with `prefix`."""
        key = prefix.encode()
        lo = bisect_left(ordered, key)
        hi = bisect_left(ordered, key[:-1] + bytes([key[-1] + 1]), lo)
        return sums[hi] - sums[lo], hi - lo

    fold = _Fold()
    fold.connectors = sum(run(prefix)[0] for prefix in CONNECTOR_PREFIXES)
    outside = 0
    for prefix in NON_TRANSFORMER_PREFIXES:
        params, count = run(prefix)
        outside += params
        if count:
            fold.components.add(prefix[:-1])
    tokenizer = numel_of.get(b"tokenizer_json")
    fold.tokenizer = tokenizer is not None
    fold.auxiliary = (tokenizer or 0) + run(_AUX_PREFIX)[0]
    fold.transformer = sums[-1] - fold.connectors - outside
    return fold


def _linears(names: list[bytes], shapes: list[bytes], dims_of: dict[bytes, tuple[int, ...]]) -> bytes:
    """_Fold.add's linear rows, in order: each 2-D `.weight` outside the connectors and
    components, `module<TAB>out<TAB>in<NL>` (no name here holds a tab or newline), built in
    C-level passes over the 2-D tensors."""
    suffix = {shape: b"\t%d\t%d\n" % dims for shape, dims in dims_of.items() if len(dims) == 2}
    flat = list(map(suffix.__contains__, shapes))
    names, shapes = list(compress(names, flat)), list(compress(shapes, flat))
    keep = map(bytes.endswith, names, repeat(b".weight"))
    if any(map(bytes.startswith, names, repeat(_SKIP))):
        keep = map(gt, keep, map(bytes.startswith, names, repeat(_SKIP)))  # True > False only
    kept = list(keep)
    names, shapes = list(compress(names, kept)), list(compress(shapes, kept))
    cuts = map(_CUTS.__getitem__, map(bytes.startswith, names, repeat(_TP)))
    modules = map(getitem, names, cuts)
    # bytes[slice] is bytes; typeshed's overloads of getitem defeat map's inference
    return b"".join(map(bytes.__add__, modules, map(suffix.__getitem__, shapes)))  # type: ignore[arg-type]


# A transformer name loses its prefix and `.weight`; any other name, `.weight` only.
_CUTS = (slice(0, -7), slice(len(TRANSFORMER_PREFIX), -7))
