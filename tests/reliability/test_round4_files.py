"""Round four: files the wizard did not write, read one way (core/io/bounded.py), and the
dataset file read as the trainer's scripts read it (core/dataset/rows.py).

Each hostile dataset file goes through `check --dataset` and `plan --dataset`: one `ltx-wizard:`
line naming the file, the entry or line, and the fix, exit 2, nothing written. The odd but valid
ones (a 140 KB caption, a CSV with a UTF-8 byte-order mark, a JSONL caption holding U+2028) are
read as the trainer reads them. The validation flags' hostile values end the same way.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.dataset.dataset_media import dataset_offers
from ltx_wizard.core.dataset.rows import read_dataset_file
from ltx_wizard.core.io.yaml_patch import get_dotted, load_yaml
from ltx_wizard.demo.lookalike_media import write_clip

from .conftest import refused

CAPTION = "a cat on a sunny floor"


def _dataset(box, name: str, content: str | bytes, clips: int = 2) -> Path:
    """Clips under box/clips/videos and a dataset file holding `content` beside them."""
    folder = box.root / "clips"
    for i in range(clips):
        write_clip(folder / "videos" / f"clip_{i:02d}.mp4")
    path = folder / name
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return path


def _json(entries) -> str:
    return json.dumps(entries)


GOOD = [
    {"caption": CAPTION, "video": "videos/clip_00.mp4"},
    {"caption": CAPTION, "video": "videos/clip_01.mp4"},
]
DEEP = "[" * 2500 + "]" * 2500


def _check_args(box, dataset: Path) -> list[str]:
    return [
        "check",
        "--checkpoint",
        str(box.ckpt),
        "--text-encoder",
        str(box.gemma),
        "--dataset",
        str(dataset),
    ]


# (id, file name, content, words the message holds)
REFUSED = [
    ("json-nested-2500", "d.json", DEEP, ("d.json", "nests deeper")),
    ("jsonl-nested-2500", "d.jsonl", DEEP + "\n", ("d.jsonl", "line 1", "nests deeper")),
    ("json-utf8-bom", "d.json", b"\xef\xbb\xbf" + _json(GOOD).encode(), ("byte-order mark", "without BOM")),
    (
        "jsonl-utf8-bom",
        "d.jsonl",
        b"\xef\xbb\xbf" + "\n".join(map(json.dumps, GOOD)).encode(),
        ("byte-order mark", "without BOM"),
    ),
    ("json-utf16", "d.json", _json(GOOD).encode("utf-16"), ("UTF-16", "save it as UTF-8")),
    (
        "csv-utf16",
        "d.csv",
        "caption,video\nc,videos/clip_00.mp4\n".encode("utf-16"),
        ("UTF-16", "save it as UTF-8"),
    ),
    (
        "json-not-utf8",
        "d.json",
        b'[{"caption": "\xff", "video": "videos/clip_00.mp4"}]',
        ("byte 0xff at line 1", "UTF-8"),
    ),
    (
        "csv-unclosed-quote",
        "d.csv",
        'caption,video\n"a cat,videos/clip_00.mp4\nb,videos/clip_01.mp4\n',
        ("quote opened on line 2", "never closed"),
    ),
    (
        "csv-empty-video-cell",
        "d.csv",
        "caption,video\na cat,\nb,videos/clip_01.mp4\n",
        ("entry 1 (line 2)", "video cell is empty"),
    ),
    (
        "csv-null-video-cell",
        "d.csv",
        "caption,video\nb,videos/clip_01.mp4\na cat,NULL\n",
        ("entry 2 (line 3)", "missing value to pandas"),
    ),
    (
        "csv-empty-caption-cell",
        "d.csv",
        "caption,video\n,videos/clip_00.mp4\n",
        ("entry 1 (line 2)", "caption cell is empty"),
    ),
    (
        "csv-row-wider-than-header",
        "d.csv",
        "caption,video\na,videos/clip_00.mp4\na, b,videos/clip_01.mp4\n",
        ("line 3 has 3 cells", "header has 2", "quote"),
    ),
    (
        "json-null-video",
        "d.json",
        _json([GOOD[0], {"caption": "c", "video": None}]),
        ("entry 2", "video is null"),
    ),
    (
        "json-number-caption",
        "d.json",
        _json([{"caption": 7, "video": "videos/clip_00.mp4"}]),
        ("entry 1", "caption is a number"),
    ),
    (
        "jsonl-blank-line",
        "d.jsonl",
        json.dumps(GOOD[0]) + "\n\n" + json.dumps(GOOD[1]) + "\n",
        ("line 2 is blank", "remove it"),
    ),
    (
        "json-5000-char-path",
        "d.json",
        _json([{"caption": "c", "video": "v" * 5000 + ".mp4"}]),
        ("entry 1", "too long", "shorten it"),
    ),
]


@pytest.mark.parametrize(("name", "content", "words"), [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED])
@pytest.mark.parametrize("command", ["check", "plan"])
def test_a_hostile_dataset_file_is_one_line_naming_where(box, command, name, content, words):
    dataset = _dataset(box, name, content)
    outside_unchanged = box.freeze()
    if command == "check":
        result = box.cli(*_check_args(box, dataset))
        refused(result, 2, "checks failed")
        fail = next(line for line in result.out.splitlines() if line.startswith("FAIL"))
        assert "internal error" not in fail and str(dataset) in fail, fail
        assert all(word in fail for word in words), (words, fail)
        assert len(fail) < 600  # a 5,000-character value is never echoed whole
    else:
        result = box.cli(*box.plan_args(data_root=str(dataset)))
        refused(result, 2, str(dataset), *words)
        assert len(result.err) < 600
        assert not box.run.exists()  # nothing written
    outside_unchanged()


def test_a_caption_over_128_kb_is_read_as_pandas_reads_it(box):
    big = "x" * 140_000
    dataset = _dataset(box, "d.csv", f'caption,video\n"{big}",videos/clip_00.mp4\n')
    ds = read_dataset_file(dataset)
    assert ds.rows[0]["caption"] == big and ds.media(ds.rows[0], "video").name == "clip_00.mp4"


def test_a_csv_with_a_utf8_bom_is_read_as_pandas_reads_it(box):
    # pandas.read_csv skips the mark: the header's first column is `caption`, not '\ufeffcaption'
    dataset = _dataset(box, "d.csv", b"\xef\xbb\xbfcaption,video\nc,videos/clip_00.mp4\n")
    ds = read_dataset_file(dataset)
    assert ds.columns == ("caption", "video") and ds.roles == {"caption": "caption", "video": "video"}


@pytest.mark.parametrize("sep", ["\u2028", "\x85", "\u2029"])
def test_a_jsonl_caption_holding_a_unicode_line_break_stays_one_line(box, sep):
    # the trainer iterates the file's lines (\n, \r\n, \r only): U+2028 or NEL in a caption is
    # part of its line, where str.splitlines() would cut it in two
    lines = [
        json.dumps({"caption": f"a{sep}cat", "video": "videos/clip_00.mp4"}, ensure_ascii=False),
        json.dumps(GOOD[1]),
    ]
    dataset = _dataset(box, "d.jsonl", "\r\n".join(lines) + "\r\n")
    ds = read_dataset_file(dataset)
    assert [r["caption"] for r in ds.rows] == [f"a{sep}cat", CAPTION]


def test_a_dataset_file_that_is_a_fifo_is_named_and_refused_without_blocking(box):
    folder = box.root / "clips"
    folder.mkdir()
    os.mkfifo(folder / "d.json")
    refused(box.cli(*box.plan_args(data_root=str(folder / "d.json"))), 2, "FIFO")


@pytest.mark.parametrize(
    "content", [DEEP, DEEP + "\n", 'caption,video\n"open,x\n'], ids=["json", "jsonl", "csv-open-quote"]
)
def test_the_paths_screens_media_offers_skip_a_hostile_dataset_file(box, content):
    suffix = "csv" if content.startswith("caption") else ("jsonl" if content.endswith("\n") else "json")
    _dataset(box, f"hostile.{suffix}", content)
    good = _dataset(box, "good.json", _json(GOOD))
    offers = dataset_offers(box.root / "clips" / ".precomputed")  # the data root beside them
    assert {o.source for o in offers} == {good}
    assert sorted(o.path.name for o in offers) == ["clip_00.mp4", "clip_01.mp4"]


def test_a_5000_character_path_in_a_dataset_file_offers_nothing_and_raises_nothing(box):
    _dataset(box, "long.json", _json([{"caption": "c", "video": "/" + "v" * 5000}]))
    assert dataset_offers(box.root / "clips") == []


# -- the one reader's bounds ------------------------------------------------------------------


def test_numbers_are_bounded_before_int():
    from ltx_wizard.core.io.bounded import bounded_int

    assert bounded_int(" 42 ", what="steps", lo=0, hi=100) == 42
    for text in ("9" * 5000, "²", "1_0", "0x10", "", "-"):
        with pytest.raises(UsageError, match="not a whole number"):
            bounded_int(text, what="steps", lo=0, hi=10**30)
    with pytest.raises(UsageError, match="out of range"):
        bounded_int("101", what="steps", lo=0, hi=100)


def test_csv_fields_are_capped_by_the_file_not_by_csv_module_default(tmp_path):
    from ltx_wizard.core.io.bounded import csv_records

    records = csv_records('a,b\n"' + "y" * 300_000 + '",z\n', what="x", field_cap=1 << 20)
    assert records[1][0] == 2 and len(records[1][1][0]) == 300_000


def test_a_read_that_stalls_past_its_clock_cap_is_a_machine_failure(tmp_path, monkeypatch):
    from ltx_wizard.core.base.errors import WizardError
    from ltx_wizard.core.io import bounded
    from ltx_wizard.core.io.bounded import read_bytes

    path = tmp_path / "slow.json"
    path.write_bytes(b"x" * (3 << 20))
    clock = iter(range(0, 1000, 40))  # each look at the reader's clock: 40 s later (a stall)
    monkeypatch.setattr(bounded, "time", SimpleNamespace(monotonic=lambda: next(clock)))
    with pytest.raises(WizardError, match="took over 60 s") as err:
        read_bytes(path, what="dataset file", limit=4 << 20)
    assert err.value.exit_code == 1


# -- validation flags ---------------------------------------------------------------------------


def test_a_non_utf8_byte_in_a_validation_prompt_is_one_line(box):
    outside_unchanged = box.freeze()
    result = box.cli(*box.plan_args("--validation-prompt", os.fsdecode(b"a \xff cat")))
    refused(result, 2, "--validation-prompt 1", "not UTF-8", "0xff")
    assert not box.run.exists()
    outside_unchanged()


@pytest.mark.parametrize("odd", ["\x85", "\u2028", "\x9b", "\ufeff"], ids=["NEL", "LS", "CSI", "BOM"])
def test_a_unicode_line_break_or_c1_control_in_a_prompt_reaches_config_intact(box, odd):
    prompt = f"a cat{odd}on a sofa"
    result = box.cli(*box.plan_args("--validation-prompt", prompt))
    assert result.code == 0, result.err
    config = load_yaml((box.run / "config.yaml").read_text(encoding="utf-8"))
    assert get_dotted(config, "validation.samples")[0]["prompt"] == prompt
    assert odd not in (box.run / "config.yaml").read_text(encoding="utf-8")  # escaped, not raw


def test_a_url_as_validation_media_is_refused_as_typed(box):
    url = "https://example.com/first-frame.png"
    result = box.cli(*box.plan_args("--validation-media", url, recipe="i2v_lora"))
    refused(result, 2, repr(url), "is a URL", "download it first")
    assert not box.run.exists()


def test_a_5000_character_validation_media_path_is_one_short_line(box):
    result = box.cli(*box.plan_args("--validation-media", "/" + "m" * 5000 + ".png", recipe="i2v_lora"))
    refused(result, 2, "5005 bytes long", "shorten it")
    assert len(result.err) < 300


def test_a_dataset_file_that_is_a_socket_is_named(box):
    import socket

    folder = box.root / "clips"
    folder.mkdir()
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(folder / "d.json"))
        refused(box.cli(*box.plan_args(data_root=str(folder / "d.json"))), 2, "is a socket")
    finally:
        server.close()
