"""What the wizard keeps of a safetensors header: counts, metadata and the transformer's linear
layers, folded in one pass over the parsed header; the tensor table itself is dropped.

Why: a models folder may hold hundreds of LTX-2 checkpoints of ~6,000 tensors each. Keeping each
table (about 2.2 MiB and 20,000 objects a file) grew memory per checkpoint and made every full
garbage collection slower, which pushed discovery past its time budget. A summary is one small
object: what discovery shows, what the path checks refuse on, and what autotune sizes LoRA from.
"""

from __future__ import annotations

import gc
import math
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from ltx_wizard.core.inputs.safetensors_header import (
    DTYPE_BITS,
    checked_entry,
    metadata_json,
    parse_doc,
    read_raw,
)

COMPONENT_SECTIONS = ("vae", "audio_vae", "vocoder")
# Tensor-name prefixes of the non-transformer components of a unified checkpoint.
NON_TRANSFORMER_PREFIXES = tuple(f"{s}." for s in COMPONENT_SECTIONS) + (
    "text_embedding_projection.",
)
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
        doc, meta = parse_doc(path, raw)
        del raw
        fold = _Fold()
        fold.add(path, doc, file_size - 8 - header_len)
        del doc  # freed here, by reference counting: the collector never saw its ~20,000 objects
    counts = dict(sorted(fold.dtypes.items(), key=lambda kv: (-kv[1], kv[0])))
    return HeaderSummary(
        path=path, file_size=file_size, header_len=header_len, tensor_count=fold.count,
        param_count=sum(counts.values()), dtype_counts=counts, metadata=dict(meta),
        transformer_params=fold.transformer, connector_params=fold.connectors,
        linear_table="".join(fold.linears), components=frozenset(fold.components),
        has_tokenizer_json=fold.tokenizer, auxiliary_params=fold.auxiliary,
    )


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

    def add(self, path: Path, doc: dict, data_len: int) -> None:
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
                odd = (type(dtype) is not str or type(shape) is not list or type(first) is not int
                       or type(end) is not int or not 0 <= first <= end <= data_len
                       or type(numel) is not int or (shape and min(shape) < 0)
                       or (bits is not None and (numel * bits + 7) // 8 != end - first))
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
                component(name[:name.index(".")])
                continue
            else:
                module = name
                if name == "tokenizer_json" or name.startswith(_AUX_PREFIX):
                    auxiliary += numel
                    self.tokenizer = self.tokenizer or name == "tokenizer_json"
            transformer += numel
            # a name holding a tab or newline is no module a LoRA target names: left out
            if len(shape) == 2 and module.endswith(".weight") and "\t" not in module \
                    and "\n" not in module:
                linear(f"{module[:-7]}\t{shape[0]}\t{shape[1]}\n")
        self.count, self.transformer = len(doc), transformer
        self.connectors, self.auxiliary = connectors, auxiliary
