"""The compact header scan (header_summary.scan_compact) against the full JSON parse it stands in
for: wherever the scan accepts a header, the full parse accepts it too and folds the same
summary; everything else goes to the full parse, whose checks and messages stay the only ones."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

from ltx_wizard.core.inputs import header_summary as hs
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.inputs.safetensors_header import DTYPE_BITS, parse_doc
from ltx_wizard.demo.lookalike_models import make_checkpoint

PATH = Path("/models/x.safetensors")  # named in messages only: nothing here reads a file


def _full(raw: bytes, data_len: int):
    """The full parse's outcome: the folded summary, or the error it says."""
    try:
        doc, meta = parse_doc(PATH, raw)
        fold = hs._Fold()
        fold.add(PATH, doc, data_len)
    except UsageError as exc:
        return "error", exc.message
    return _facts(fold, meta)


def _facts(fold, meta) -> tuple:
    return (
        fold.count,
        fold.transformer,
        fold.connectors,
        fold.auxiliary,
        fold.dtypes,
        "".join(fold.linears),
        frozenset(fold.components),
        fold.tokenizer,
        meta,
    )


def _scan(raw: bytes, data_len: int):
    scanned = hs.scan_compact(raw, data_len)
    return None if scanned is None else _facts(*scanned)


def _header(tensors: dict, metadata: dict | None = None, **dumps) -> tuple[bytes, int]:
    """(header JSON bytes, data length) laid out as write_safetensors lays them out."""
    doc: dict = {"__metadata__": metadata} if metadata is not None else {}
    offset = 0
    for name, (dtype, shape) in tensors.items():
        numel = 1
        for d in shape:
            numel *= d
        size = (numel * DTYPE_BITS.get(dtype, 8) + 7) // 8
        doc[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + size]}
        offset += size
    raw = json.dumps(doc, **({"separators": (",", ":"), "ensure_ascii": False} | dumps))
    raw = raw.encode()
    return raw + b" " * (-len(raw) % 8), offset


MIXED = {
    "model.diffusion_model.transformer_blocks.0.attn1.to_q.weight": ("BF16", [64, 32]),
    "model.diffusion_model.transformer_blocks.0.attn1.to_q.bias": ("BF16", [64]),
    "model.diffusion_model.video_embeddings_connector.proj.weight": ("BF16", [16, 8]),
    "model.diffusion_model.embeddings_connector.norm.weight": ("F32", [8]),
    "model.diffusion_model.scale_shift_table": ("F32", [6, 32]),
    "vae.decoder.conv_in.weight": ("BF16", [8, 4, 3, 3, 3]),
    "audio_vae.decoder.conv1.weight": ("F16", [4, 4, 3]),
    "vocoder.conv_pre.weight": ("F32", [4, 2, 7]),
    "text_embedding_projection.linear.weight": ("BF16", [32, 16]),
    "tokenizer_json": ("U8", [1234]),
    "hf_asset__tokenizer_model": ("U8", [77]),
    "lm_head.weight": ("F4", [9, 5]),
    "scalar": ("F64", []),
    "empty.weight": ("I64", [0, 12]),
    "ünïcode.weight": ("BF16", [3, 2]),
    "": ("BOOL", [3]),
}
META = {
    "config": json.dumps({"transformer": {}, "vae": {}}),
    "model_version": "2.0.0",
    "note": 'quotes " and \\ and ünïcode }],"',
}


# Past the first 64 KB the scan decodes more of the header; a 2-byte character lies on the cut.
BIG = {**META, "blob": "é" * 40_000}


@pytest.mark.parametrize("metadata", [META, None, {}, BIG], ids=["metadata", "none", "empty", "big"])
def test_the_compact_layout_is_scanned_and_folds_what_the_full_parse_folds(metadata):
    raw, data_len = _header(MIXED, metadata)
    assert _scan(raw, data_len) is not None  # the fast path really ran
    assert _scan(raw, data_len) == _full(raw, data_len)
    assert _scan(raw, data_len + 4096) == _full(raw, data_len + 4096)  # data past the last


def test_a_real_sized_checkpoint_is_scanned(tmp_path):
    path = make_checkpoint(tmp_path / "ltx-2.safetensors", params_b=19, blocks=48)
    with open(path, "rb") as fh:  # the header only: the data is a 38 GB hole
        (header_len,) = struct.unpack("<Q", fh.read(8))
        raw = fh.read(header_len)
    data_len = path.stat().st_size - 8 - header_len
    scanned = _scan(raw, data_len)
    assert scanned is not None and scanned == _full(raw, data_len)
    summary = hs.summarize(path)
    assert summary.linear_table == scanned[5] and summary.tensor_count == scanned[0]


@pytest.mark.parametrize(
    "case",
    [
        "spaced",
        "escaped name",
        "repeated name",
        "metadata twice",
        "metadata not first",
        "gap",
        "not from 0",
        "unknown dtype",
        "prefix + weight",
        "float dim",
        "ascii escapes",
    ],
)
def test_other_layouts_go_to_the_full_parse_and_come_out_the_same(case):
    tensors = dict(list(MIXED.items())[:6])
    raw, data_len = _header(tensors, META)
    if case == "spaced":
        raw, data_len = _header(tensors, META, separators=(", ", ": "))
    elif case == "escaped name":
        raw, data_len = _header({**tensors, 'a"b\\c\n': ("U8", [1])}, META)
    elif case == "repeated name":  # json keeps the last one
        first = raw.index(b'"model.')
        entry = b'"dup":{"dtype":"U8","shape":[0],"data_offsets":[0,0]},'
        raw = raw[:first] + entry + entry + raw[first:]
    elif case == "metadata twice":
        raw = raw.replace(b'"model.', b'"__metadata__":{"k":"v"},"model.', 1)
    elif case == "metadata not first":
        raw, data_len = _header(tensors)
        raw = raw.rstrip()[:-1] + b',"__metadata__":{"k":"v"}}'
    elif case == "gap":
        raw = raw.replace(b"[0,", b"[2,", 1).replace(b",4096]", b",4098]", 1)
        data_len += 2
    elif case == "not from 0":
        raw = raw.replace(b'"data_offsets":[0,4096]', b'"data_offsets":[8,4104]', 1)
        data_len += 8
    elif case == "unknown dtype":
        raw, data_len = _header({**tensors, "fp8.weight": ("F8_E4M3FNUZ", [4, 4])}, META)
    elif case == "float dim":  # json gives 32.0, which the checks take as 32
        raw = raw.replace(b"[64,32]", b"[64,32.0]")
    elif case == "ascii escapes":
        raw, data_len = _header({**tensors, "ü": ("U8", [1])}, META, ensure_ascii=True)
    elif case == "prefix + weight":
        raw, data_len = _header({**tensors, "model.diffusion_model.weight": ("BF16", [2, 2])})
    assert _scan(raw, data_len) is None
    full = _full(raw, data_len)
    assert full[0] != "error", full
    assert _facts(*hs.fold_header(PATH, raw, data_len)) == full


@pytest.mark.parametrize(
    "corrupt, message",
    [
        (lambda r: r.replace(b"[64,32]", b"[64,31]"), "does not match its"),
        (lambda r: r.replace(b"[64,32]", b"[64,032]"), "not UTF-8 JSON"),
        (lambda r: r.replace(b"[64,32]", b"[64,-32]"), "malformed header entry"),
        (lambda r: r.replace(b'"BF16"', b'"BF16\x01"', 1), "not UTF-8 JSON"),
        (lambda r: r.replace(b'"model_version":"2.0.0"', b'"model_version":2'), "map of strings"),
        (lambda r: r.replace(b'"model_version":"2.0.0"', b'"model_version":NaN'), "not UTF-8 JSON"),
        (lambda r: r.replace(b".to_q", b".\xff", 1), "not UTF-8 JSON"),
        (lambda r: r.replace(b"transformer_blocks", b"trans\x00former", 1), "not UTF-8 JSON"),
        (lambda r: r.rstrip() + b"x", "not UTF-8 JSON"),
        (lambda r: r.rstrip()[:-1], "not UTF-8 JSON"),
    ],
)
def test_corrupted_headers_are_refused_with_the_full_parse_s_message(corrupt, message):
    raw, data_len = _header(MIXED, META)
    bad = corrupt(raw)
    assert bad != raw
    assert _scan(bad, data_len) is None
    with pytest.raises(UsageError, match=message) as fast:
        hs.fold_header(PATH, bad, data_len)
    assert ("error", fast.value.message) == _full(bad, data_len)


def test_a_truncated_data_section_is_refused_with_the_full_parse_s_message():
    raw, data_len = _header(MIXED, META)
    assert _scan(raw, data_len - 1) is None
    with pytest.raises(UsageError, match="the file is truncated") as fast:
        hs.fold_header(PATH, raw, data_len - 1)
    assert ("error", fast.value.message) == _full(raw, data_len - 1)


def test_no_single_byte_change_makes_the_scan_accept_what_the_full_parse_would_not():
    tensors = {k: MIXED[k] for k in list(MIXED)[:4] + ["tokenizer_json", "scalar", ""]}
    raw, data_len = _header(tensors, {"k": 'v"}'})
    raw = raw.rstrip()
    swaps = b'"\\,:{}[]0 9x\x00-'
    cases = [raw[:i] + raw[i + 1 :] for i in range(len(raw))]
    cases += [raw[:i] + bytes([c]) + raw[i + 1 :] for i in range(len(raw)) for c in swaps if c != raw[i]]
    accepted = 0
    for bad in cases:
        for length in (data_len, data_len + 1):
            scanned = _scan(bad, length)
            if scanned is not None:
                accepted += 1
                assert scanned == _full(bad, length), bad
    assert accepted  # some changes keep it valid (a digit in a name, say): those were compared
