"""Hostile inputs to probe, check, discover and plan: each is one line and an exit code.

Each case builds its hostile thing inside the sandbox and returns the command line; the test
then asserts the refusal (or the clean acceptance), the untouched world outside the run folder
and that no process is left (the `box` fixture).
"""

from __future__ import annotations

import json
import os
import struct
from pathlib import Path

import pytest

from ltx_wizard.core.dataset import data_root as dataset
from ltx_wizard.demo.lookalike_models import make_packed_gemma, write_safetensors

from .conftest import refused

CSV = "name, memory.total [MiB]\nNVIDIA H100 80GB HBM3, 81559 MiB\n"


def _csv(box, data: bytes | str, name: str = "gpus.csv") -> str:
    path = box.root / name
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return str(path)


def _fifo(box, name: str) -> str:
    path = box.root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    return str(path)


def _raw_safetensors(path: Path, header: bytes, data_len: int = 64) -> Path:
    header += b" " * (-len(header) % 8)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as fh:
        fh.write(struct.pack("<Q", len(header)) + header)
        fh.truncate(8 + len(header) + data_len)
    return path


def _check(box, **override) -> list[str]:
    args = {"checkpoint": str(box.ckpt), "text_encoder": str(box.gemma)} | override
    argv = ["check"]
    for key, value in args.items():
        argv += [f"--{key.replace('_', '-')}", value]
    return argv


def _bad_ckpt(box, header: bytes) -> list[str]:
    return _check(box, checkpoint=str(_raw_safetensors(box.root / "bad" / "ltx-2.safetensors", header)))


def _gemma_config(box, data: bytes) -> list[str]:
    (box.gemma / "config.json").unlink()
    (box.gemma / "config.json").write_bytes(data)
    return _check(box)


def _gemma_config_fifo(box) -> list[str]:
    (box.gemma / "config.json").unlink()
    os.mkfifo(box.gemma / "config.json")
    return _check(box)


def _packed_deep(box) -> list[str]:
    path = make_packed_gemma(box.root / "pack" / "gemma.safetensors")
    deep = "[" * 5000 + "]" * 5000
    write_safetensors(path, {"tokenizer_json": ("U8", [8])}, {"gemma_config": deep})
    return _check(box, text_encoder=str(path))


def _shipped(box, text: str | bytes) -> list[str]:
    path = box.shipped()
    path.unlink()
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return box.plan_args()


def _shipped_fifo(box) -> list[str]:
    box.shipped().unlink()
    os.mkfifo(box.shipped())
    return box.plan_args()


LAUGHS = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{c}: &{c} [{', '.join(['*' + p] * 9)}]\n" for p, c in zip("abcdefgh", "bcdefghi")
)


def _planted_link(box) -> list[str]:
    victim = box.root / "victim"
    victim.mkdir()
    (victim / "passwd").write_text("root:x:0:0\n")
    os.symlink(victim, box.ws / "run")
    return box.plan_args()


def _planted_dangling(box) -> list[str]:
    os.symlink(box.root / "nowhere", box.ws / "run")
    return box.plan_args()


def _run_is_file(box) -> list[str]:
    (box.ws / "run").write_text("my notes\n")
    return box.plan_args()


def _subfolder_link(box) -> list[str]:
    """An existing run folder whose outputs/ is a link out: plan --force must not follow it."""
    assert box.cli(*box.plan_args()).code == 0
    target = box.root / "elsewhere"
    target.mkdir()
    (box.run / "outputs").rmdir()
    os.symlink(target, box.run / "outputs")
    return box.plan_args("--force")


def _config_link(box) -> list[str]:
    assert box.cli(*box.plan_args()).code == 0
    outside = box.root / "precious.yaml"
    outside.write_text("mine: 1\n")
    (box.run / "config.yaml").unlink()
    os.symlink(outside, box.run / "config.yaml")
    return box.plan_args("--force")


def _data_root_to_slash(box, monkeypatch) -> list[str]:
    monkeypatch.setattr(dataset, "WALK_MAX_ENTRIES", 3000)
    data = box.root / "slash-data"
    data.mkdir()
    os.symlink("/usr", data / "latents")
    os.symlink("/usr", data / "conditions")
    os.symlink("/usr", data / "audio_latents")
    return box.plan_args(data_root=str(data))


def _deep_data(box) -> list[str]:
    data = box.root / "deep-data"
    deep = data / "latents" / Path(*["d"] * 40)
    deep.mkdir(parents=True)
    (deep / "x.pt").write_bytes(b"x")
    (data / "conditions").mkdir()
    (data / "audio_latents").mkdir()
    return box.plan_args(data_root=str(data))


def _data_loop(box) -> list[str]:
    os.symlink(box.data / "latents", box.data / "latents" / "loop")
    return box.plan_args()


def _escape_name(box) -> list[str]:
    return [
        "probe",
        "--from-csv",
        _csv(box, "name, memory.total [MiB]\n[bold red]H100\x1b]0;pwned\x07\x1b[2J, 81559 MiB\n"),
    ]


# (id, build(box, monkeypatch) -> argv, exit code, words in the last line)
REFUSED = [
    ("csv-fifo", lambda b, m: ["probe", "--from-csv", _fifo(b, "gpus.fifo")], 2, "FIFO"),
    ("csv-char-device", lambda b, m: ["probe", "--from-csv", "/dev/zero"], 2, "character device"),
    ("csv-directory", lambda b, m: ["probe", "--from-csv", str(b.root)], 2, "directory"),
    ("csv-missing", lambda b, m: ["probe", "--from-csv", str(b.root / "no.csv")], 2, "no such"),
    ("csv-3mb", lambda b, m: ["probe", "--from-csv", _csv(b, CSV + "#" * (3 << 20))], 2, "limit"),
    ("csv-latin1", lambda b, m: ["probe", "--from-csv", _csv(b, CSV.encode() + b"\xe9\xff\n")], 2, "UTF-8"),
    (
        "csv-huge-memory",
        lambda b, m: ["probe", "--from-csv", _csv(b, "name, memory.total\nX, " + "9" * 400 + " MiB\n")],
        2,
        "out of range",
    ),
    ("csv-empty", lambda b, m: ["probe", "--from-csv", _csv(b, "")], 2, "no GPU rows"),
    (
        "csv-garbage",
        lambda b, m: ["probe", "--from-csv", _csv(b, "\x00\x01,\x02,\x03,\x04,\x05")],
        2,
        "expected the columns",
    ),
    ("vram-nan", lambda b, m: ["probe", "--simulate", "h100", "--vram-gb", "nan"], 2, "1..4096"),
    ("vram-inf", lambda b, m: ["probe", "--simulate", "h100", "--vram-gb", "inf"], 2, "1..4096"),
    ("vram-1e309", lambda b, m: ["probe", "--simulate", "h100", "--vram-gb", "1e309"], 2, "4096"),
    ("vram-word", lambda b, m: ["probe", "--simulate", "h100", "--vram-gb", "lots"], 2, "number"),
    ("ckpt-deep-json", lambda b, m: _bad_ckpt(b, b"[" * 100000 + b"]" * 100000), 2, ""),
    (
        "ckpt-nan-shape",
        lambda b, m: _bad_ckpt(b, b'{"w":{"dtype":"F32","shape":[NaN],"data_offsets":[0,4]}}'),
        2,
        "not UTF-8 JSON",
    ),
    (
        "ckpt-inf-offset",
        lambda b, m: _bad_ckpt(b, b'{"w":{"dtype":"F32","shape":[1],"data_offsets":[0,1e999]}}'),
        2,
        "UTF-8 JSON",
    ),
    (
        "ckpt-huge-int",
        lambda b, m: _bad_ckpt(
            b, b'{"w":{"dtype":"F32","shape":[' + b"9" * 5000 + b'],"data_offsets":[0,4]}}'
        ),
        2,
        "",
    ),
    ("ckpt-fifo", lambda b, m: _check(b, checkpoint=_fifo(b, "m/x.safetensors")), 2, "FIFO"),
    ("ckpt-dev-zero", lambda b, m: _check(b, checkpoint="/dev/zero"), 2, "character device"),
    ("gemma-deep-json", lambda b, m: _gemma_config(b, b"[" * 100000 + b"]" * 100000), 2, "deeper"),
    ("gemma-nan", lambda b, m: _gemma_config(b, b'{"model_type": NaN}'), 2, "not JSON"),
    ("gemma-infinity", lambda b, m: _gemma_config(b, b'{"x": -Infinity}'), 2, "not JSON"),
    ("gemma-5mb", lambda b, m: _gemma_config(b, b'{"a": "' + b"x" * (5 << 20) + b'"}'), 2, "limit"),
    ("gemma-config-fifo", lambda b, m: _gemma_config_fifo(b), 2, ""),
    ("packed-gemma-deep", lambda b, m: _packed_deep(b), 2, "gemma_config"),
    ("shipped-laughs", lambda b, m: _shipped(b, LAUGHS), 2, "anchor or alias"),
    ("shipped-3mb", lambda b, m: _shipped(b, "a: 1\n" + "#" * (3 << 20) + "\n"), 2, "limit"),
    ("shipped-fifo", lambda b, m: _shipped_fifo(b), 2, "not an LTX-2 checkout"),
    ("shipped-not-utf8", lambda b, m: _shipped(b, b"model:\n  x: \xff\xfe\xfa\n"), 2, "UTF-8"),
    ("shipped-deep", lambda b, m: _shipped(b, "a: " + "[" * 20000 + "]" * 20000 + "\n"), 2, "too deeply"),
    ("run-planted-symlink", lambda b, m: _planted_link(b), 2, "symlink"),
    ("run-dangling-symlink", lambda b, m: _planted_dangling(b), 2, "symlink"),
    ("run-is-a-file", lambda b, m: _run_is_file(b), 2, "not a folder"),
    ("run-subfolder-link", lambda b, m: _subfolder_link(b), 2, "symlink"),
    ("run-config-link", lambda b, m: _config_link(b), 2, "symlink"),
    ("run-name-newline", lambda b, m: b.plan_args(run_name="a\nb"), 2, "control character"),
    ("run-name-escape", lambda b, m: b.plan_args(run_name="a\x1b[2Jb"), 2, "control character"),
    ("run-name-dotdot", lambda b, m: b.plan_args(run_name="../up"), 2, "slash"),
    ("run-name-300", lambda b, m: b.plan_args(run_name="r" * 300), 2, "200 bytes"),
    (
        "workspace-too-long",
        lambda b, m: b.plan_args(workspace=str(b.root / ("w" * 250) / ("w" * 250) / ("x" * 300))),
        2,
        "long",
    ),
    ("workspace-is-file", lambda b, m: b.plan_args(workspace=_csv(b, "x", "ws-file")), 2, ""),
    ("effective-batch-huge", lambda b, m: b.plan_args("--effective-batch", "9" * 30), 2, "65536"),
    ("effective-batch-negative", lambda b, m: b.plan_args("--effective-batch", "-3"), 2, "65536"),
    ("trainer-root-file", lambda b, m: b.plan_args(trainer_root=str(b.ckpt)), 2, ""),
    ("data-root-to-usr", _data_root_to_slash, 2, "too much"),
    ("discover-budget-inf", lambda b, m: ["discover", "--time-budget", "inf"], 2, "3600"),
    ("discover-budget-nan", lambda b, m: ["discover", "--time-budget", "nan"], 2, "3600"),
    ("discover-depth-huge", lambda b, m: ["discover", "--max-depth", "1000000"], 2, "64"),
    ("csv-path-too-long", lambda b, m: ["probe", "--from-csv", "/" + "c" * 5000], 2, "too long"),
    (
        "ckpt-path-too-long",
        lambda b, m: _check(b, checkpoint="/" + "k" * 5000 + ".safetensors"),
        2,
        "too long",
    ),
    ("data-path-too-long", lambda b, m: b.plan_args(data_root="/" + "d" * 5000), 2, "too long"),
    ("ckpt-is-url", lambda b, m: _check(b, checkpoint="https://x/ltx-2.safetensors"), 2, "URL"),
    ("discover-dir-is-fifo", lambda b, m: ["discover", "--models-dir", _fifo(b, "mfifo")], 2, ""),
]


@pytest.mark.parametrize(("build", "code", "words"), [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED])
def test_hostile_input_is_one_line(box, monkeypatch, build, code, words):
    argv = build(box, monkeypatch)
    outside_unchanged = box.freeze()
    result = box.cli(*argv)
    if argv[0] == "check":  # a FAIL line per item on stdout, then one summary line
        refused(result, code, "checks failed")
        assert words in result.out and "\x1b" not in result.out
    else:
        refused(result, code, words)
    outside_unchanged()
    if argv[0] == "plan" and not os.path.islink(box.run) and "--force" not in argv:
        assert not (box.run / "config.yaml").exists()  # nothing half-written


ACCEPTED = [
    ("csv-utf16", lambda b, m: ["probe", "--from-csv", _csv(b, CSV.encode("utf-16"))]),
    ("csv-utf8-bom", lambda b, m: ["probe", "--from-csv", _csv(b, "\ufeff" + CSV)]),
    ("csv-crlf", lambda b, m: ["probe", "--from-csv", _csv(b, CSV.replace("\n", "\r\n"))]),
    ("gpu-name-escapes", lambda b, m: _escape_name(b)),
    ("data-symlink-loop", lambda b, m: _data_loop(b)),
    ("data-too-deep", lambda b, m: _deep_data(b)),
]


@pytest.mark.parametrize("build", [c[1] for c in ACCEPTED], ids=[c[0] for c in ACCEPTED])
def test_odd_but_valid_input_is_accepted_cleanly(box, monkeypatch, build):
    argv = build(box, monkeypatch)
    outside_unchanged = box.freeze()
    result = box.cli(*argv)
    assert "internal error" not in result.err and "Traceback" not in result.err
    if argv[0] == "plan" and result.code != 0:  # the too-deep sample is not counted: a refusal
        refused(result, 2, "no complete sample")
    else:
        assert result.code == 0, result.err
        assert "NVIDIA H100" in result.out or "H100" in result.out or argv[0] == "plan"
    assert "\x1b" not in result.out + result.err and "\x07" not in result.out
    outside_unchanged()


def test_discover_survives_hostile_files_and_keeps_the_rest(box):
    models = box.root / "models"
    _raw_safetensors(models / "a-ltx-2-deep.safetensors", b"[" * 100000 + b"]" * 100000)
    _raw_safetensors(
        models / "b-ltx-2-nan.safetensors", b'{"w":{"dtype":"F32","shape":[1e999],"data_offsets":[0,4]}}'
    )
    os.mkfifo(models / "c-ltx-2.safetensors")
    outside_unchanged = box.freeze()
    result = box.cli("discover", "--models-dir", str(models), "--json")
    assert result.code == 0, result.err
    assert "Traceback" not in result.err and "internal error" not in result.err
    found = {Path(c["path"]).name: c["usable"] for c in json.loads(result.out)["candidates"]}
    assert found["ltx-2.safetensors"] is True  # the good file after the hostile ones
    assert found["a-ltx-2-deep.safetensors"] is False and found["b-ltx-2-nan.safetensors"] is False
    outside_unchanged()


def test_discover_exits_non_zero_when_the_walk_breaks(box, monkeypatch):
    outside_unchanged = box.freeze()
    from ltx_wizard.core.inputs import discovery

    def boom(self, folder, entries):
        raise MemoryError("simulated")

    monkeypatch.setattr(discovery._Walk, "_gemma_dir_safely", boom)
    result = box.cli("discover", "--models-dir", str(box.root / "models"))
    refused(result, 1, "stopped early", one_line=False)
    outside_unchanged()
