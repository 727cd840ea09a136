"""The header reader: real files built here, every malformed shape refused with its own message."""

from __future__ import annotations

import json
import struct

import pytest

from ltx_wizard.core.inputs import safetensors_header as sh
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.demo.lookalike_models import write_safetensors
from ltx_wizard.core.inputs.safetensors_header import read_header


def _raw(path, header: bytes, data: bytes = b""):
    path.write_bytes(struct.pack("<Q", len(header)) + header + data)
    return path


def test_reads_tensors_metadata_and_counts(tmp_path):
    path = write_safetensors(
        tmp_path / "a.safetensors",
        {"w": ("BF16", [4, 8]), "b": ("F32", [8]), "t": ("U8", [3])},
        {"model_version": "2.0.0"},
    )
    header = read_header(path)
    assert header.param_count == 32 + 8 + 3
    assert header.dtype_counts == {"BF16": 32, "F32": 8, "U8": 3}
    assert header.metadata == {"model_version": "2.0.0"}
    assert header.tensor("b").shape == (8,)
    assert header.file_size == path.stat().st_size


def test_sparse_file_declares_huge_size_but_costs_no_disk(tmp_path):
    path = write_safetensors(tmp_path / "big.safetensors", {"w": ("BF16", [20_000_000, 1000])})
    st = path.stat()
    assert st.st_size > 40e9
    assert st.st_blocks * 512 < 1_000_000  # a hole, not 40 GB of zeros
    assert read_header(path).param_count == 20_000_000_000


def test_non_sparse_write_writes_real_zeros(tmp_path):
    path = write_safetensors(tmp_path / "dense.safetensors", {"w": ("F32", [1000])}, sparse=False)
    data = path.read_bytes()
    assert data.endswith(b"\0" * 4000)
    assert read_header(path).param_count == 1000


def test_never_reads_past_the_header(tmp_path, monkeypatch):
    path = write_safetensors(tmp_path / "big.safetensors", {"w": ("BF16", [20_000_000, 1000])}, {"k": "v"})
    with open(path, "rb") as fh:
        header_len = struct.unpack("<Q", fh.read(8))[0]
    read_sizes = []
    real_open = open

    class Spy:
        def __init__(self, fh):
            self.fh = fh

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.fh.close()

        def read(self, n=-1):
            assert n >= 0, "an unbounded read would pull in the whole checkpoint"
            data = self.fh.read(n)
            read_sizes.append(len(data))
            return data

        def seek(self, *a):
            return self.fh.seek(*a)

    monkeypatch.setattr(sh, "open", lambda p, mode: Spy(real_open(p, mode)), raising=False)
    read_header(path)
    assert sum(read_sizes) <= 8 + header_len + len(sh.LFS_MAGIC)


def test_empty_file(tmp_path):
    path = tmp_path / "e.safetensors"
    path.write_bytes(b"")
    with pytest.raises(UsageError, match="is empty.*download it again"):
        read_header(path)


def test_too_short(tmp_path):
    path = tmp_path / "s.safetensors"
    path.write_bytes(b"\x01\x02")
    with pytest.raises(UsageError, match="too short"):
        read_header(path)


def test_git_lfs_pointer(tmp_path):
    path = tmp_path / "p.safetensors"
    path.write_text(
        "version https://git-lfs.github.com/spec/v1\noid"
        " sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize"
        " 43990000000\n"
    )
    with pytest.raises(UsageError, match="git-lfs pointer.*git lfs pull"):
        read_header(path)


def test_header_length_beyond_file(tmp_path):
    path = tmp_path / "t.safetensors"
    path.write_bytes(struct.pack("<Q", 5000) + b"{}")
    with pytest.raises(UsageError, match="5000-byte header but the file has only 10 bytes"):
        read_header(path)


def test_header_length_above_sane_bound(tmp_path):
    path = tmp_path / "h.safetensors"
    path.write_bytes(struct.pack("<Q", 2**40) + b"{}")
    with pytest.raises(UsageError, match="limit 100 MB"):
        read_header(path)


@pytest.mark.parametrize("header", [b"\xff\xfe\x00garbage", b"{not json", b"[1, 2, 3]"])
def test_header_not_utf8_json_object(tmp_path, header):
    with pytest.raises(UsageError, match="not UTF-8 JSON"):
        read_header(_raw(tmp_path / "j.safetensors", header))


def test_metadata_must_be_strings(tmp_path):
    header = json.dumps({"__metadata__": {"n": 3}}).encode()
    with pytest.raises(UsageError, match="__metadata__ is not a map of strings"):
        read_header(_raw(tmp_path / "m.safetensors", header))


def test_tensor_offsets_outside_the_file(tmp_path):
    path = write_safetensors(tmp_path / "o.safetensors", {"w": ("F32", [1000])}, sparse=False)
    with open(path, "r+b") as fh:
        fh.truncate(path.stat().st_size - 100)  # an interrupted download
    with pytest.raises(UsageError, match="'w' lies at bytes 0..4000 .* truncated"):
        read_header(path)


def test_tensor_span_must_match_dtype_and_shape(tmp_path):
    header = json.dumps({"w": {"dtype": "F32", "shape": [10], "data_offsets": [0, 8]}}).encode()
    header += b" " * (-len(header) % 8)
    with pytest.raises(UsageError, match="does not match its 8-byte span"):
        read_header(_raw(tmp_path / "d.safetensors", header, b"\0" * 8))


def test_malformed_tensor_entry(tmp_path):
    header = json.dumps({"w": {"dtype": "F32", "shape": "ten"}}).encode()
    with pytest.raises(UsageError, match="'w' has a malformed header entry"):
        read_header(_raw(tmp_path / "x.safetensors", header))


def test_nesting_is_refused_where_it_is_read_and_harmless_where_it_is_not(tmp_path):
    # The header is not walked for depth (too slow on 6,000 tensors): a nested shape is refused by
    # the type checks, a deep extra field is ignored, and nesting past the parser's own limit is
    # one clear line, never a RecursionError.
    nested = json.dumps({"w": {"dtype": "F32", "shape": [[[[4]]]], "data_offsets": [0, 16]}})
    with pytest.raises(UsageError, match="'w' has a malformed header entry"):
        read_header(_raw(tmp_path / "n.safetensors", nested.encode(), b"\0" * 16))
    extra = (
        '{"w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16], "x": ' + "[" * 200 + "]" * 200 + "}}"
    )
    assert read_header(_raw(tmp_path / "e.safetensors", extra.encode(), b"\0" * 16)).param_count == 4
    deep = '{"w": {"x": ' + "[" * 100_000 + "]" * 100_000 + "}}"
    with pytest.raises(UsageError, match="nests deeper than"):
        read_header(_raw(tmp_path / "d.safetensors", deep.encode()))
