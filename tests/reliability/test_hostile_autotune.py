"""Hostile run folders and options for autotune: refused before any trial, the data untouched.

The data-loss case from the red-team run is here: a data root that is the run folder's own
trial-data folder must be refused, with the user's .pt files left exactly as they were.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from ltx_wizard.demo.lookalike_models import make_data_root

from .conftest import refused
from .test_hostile_inputs import LAUGHS

AUTOTUNE = ("--simulate", "h100", "--max-trials", "1")


def _edit(run: Path, old: str, new: str) -> None:
    config = run / "config.yaml"
    text = config.read_text()
    assert old in text, old
    config.write_text(text.replace(old, new, 1))


def _set(key: str, value: str):
    """Replace `key: <anything>` (first occurrence) in config.yaml with `key: value`."""

    def edit(box, run: Path) -> list[str]:
        config = run / "config.yaml"
        lines = config.read_text().splitlines(keepends=True)
        for i, line in enumerate(lines):
            if line.strip().startswith(f"{key}:"):
                indent = line[: len(line) - len(line.lstrip())]
                lines[i] = f"{indent}{key}: {value}\n"
                break
        else:
            raise AssertionError(key)
        config.write_text("".join(lines))
        return []

    return edit


def _replace_config(data: bytes | str):
    def edit(box, run: Path) -> list[str]:
        (run / "config.yaml").write_bytes(data.encode() if isinstance(data, str) else data)
        return []

    return edit


def _config_fifo(box, run: Path) -> list[str]:
    (run / "config.yaml").unlink()
    os.mkfifo(run / "config.yaml")
    return []


def _data_is_trial_data(box, run: Path) -> list[str]:
    """The red-team case: the data root is overfit/.precomputed of this very run."""
    own = make_data_root(run / "overfit" / ".precomputed", 4)
    _set("preprocessed_data_root", f'"{own}"')(box, run)
    return []


def _data_in_run(box, run: Path) -> list[str]:
    own = make_data_root(run / "dataset" / ".precomputed", 4)
    _set("preprocessed_data_root", f'"{own}"')(box, run)
    return []


def _data_folder_links_into_run(box, run: Path) -> list[str]:
    data = box.root / "sneaky"
    make_data_root(run / "overfit" / ".precomputed", 4)
    data.mkdir()
    os.symlink(run / "overfit" / ".precomputed" / "latents", data / "latents")
    os.symlink(run / "overfit" / ".precomputed" / "conditions", data / "conditions")
    os.symlink(run / "overfit" / ".precomputed" / "audio_latents", data / "audio_latents")
    _set("preprocessed_data_root", f'"{data}"')(box, run)
    return []


def _latents_dir_escapes(box, run: Path) -> list[str]:
    """A folder name with '..' that exists: the links must not be made outside the subset."""
    elsewhere = box.data.parent / "latents-elsewhere"
    elsewhere.mkdir()
    for pt in (box.data / "latents").glob("*.pt"):
        (elsewhere / pt.name).write_bytes(pt.read_bytes())
    _set("latents_dir", '"../latents-elsewhere"')(box, run)
    return []


def _real_file_in_subset(box, run: Path) -> list[str]:
    subset = run / "overfit" / ".precomputed" / "latents"
    subset.mkdir(parents=True)
    (subset / "mine.pt").write_bytes(b"precious")
    return []


def _subset_is_link(box, run: Path) -> list[str]:
    outside = make_data_root(box.root / "other" / ".precomputed", 2)
    os.symlink(outside, run / "overfit" / ".precomputed")
    return []


def _overfit_is_link(box, run: Path) -> list[str]:
    outside = box.root / "elsewhere"
    outside.mkdir()
    (outside / "keep.txt").write_text("keep\n")
    (run / "overfit").rmdir()
    os.symlink(outside, run / "overfit")
    return []


def _log_is_link(box, run: Path) -> list[str]:
    outside = box.root / "bashrc"
    outside.write_text("# mine\n")
    os.symlink(outside, run / "autotune.log")
    return []


def _trainer(box, run: Path, *, mode: int, body: str = "#!/bin/sh\nexit 0\n") -> str:
    script = box.root / "bin" / "trainer.sh"
    script.parent.mkdir(exist_ok=True)
    script.write_text(body)
    script.chmod(mode)
    return str(script)


# (id, edit(box, run[, monkeypatch]) -> extra argv, exit code, words)
CASES = [
    ("config-laughs", _replace_config(LAUGHS), 2, "anchor or alias"),
    (
        "config-laughs-in-real-config",
        lambda b, r: _edit(r, "seed: 42", "seed: 42\n" + LAUGHS) or [],
        2,
        "anchor or alias",
    ),
    ("config-3mb", _replace_config("a: 1\n" + "#" * (3 << 20)), 2, "limit"),
    ("config-fifo", _config_fifo, 2, "no config.yaml"),
    ("config-not-utf8", _replace_config(b"data:\n  preprocessed_data_root: \xff\xfe\n"), 2, "UTF-8"),
    ("config-deep", _replace_config("a: " + "[" * 20000 + "]" * 20000 + "\n"), 2, "too deeply"),
    ("config-not-yaml", _replace_config("a: [1\n"), 2, "not valid YAML"),
    ("config-a-list", _replace_config("- 1\n- 2\n"), 2, "not a mapping"),
    ("batch-word", _set("batch_size", "lots"), 2, "batch_size"),
    ("batch-inf", _set("batch_size", ".inf"), 2, "batch_size"),
    ("batch-nan", _set("batch_size", ".nan"), 2, "batch_size"),
    ("batch-huge", _set("batch_size", "1000000000000"), 2, "1 to 1024"),
    ("batch-zero", _set("batch_size", "0"), 2, "1 to 1024"),
    ("batch-list", _set("batch_size", "[1, 2]"), 2, "whole number"),
    ("accumulation-negative", _set("gradient_accumulation_steps", "-4"), 2, "gradient_accumulation"),
    ("rank-float", _set("rank", "3.5"), 2, "lora.rank"),
    ("data-root-list", _set("preprocessed_data_root", "[1, 2]"), 2, "a string"),
    ("data-root-map", _set("preprocessed_data_root", "{a: 1}"), 2, "a string"),
    ("latents-dir-list", _set("latents_dir", "[1, 2]"), 2, "not a folder name"),
    ("latents-dir-escapes", _latents_dir_escapes, 2, "leaves the data root"),
    ("strategy-name-bogus", _set("name", '"bogus"'), 2, "training_strategy.name"),
    ("quantization-number", _set("quantization", "8"), 2, "string or null"),
    ("data-is-trial-data", _data_is_trial_data, 2, "inside the run folder"),
    ("data-inside-run", _data_in_run, 2, "inside the run folder"),
    ("data-links-into-run", _data_folder_links_into_run, 2, "inside the run folder"),
    ("real-file-in-subset", _real_file_in_subset, 2, "real file"),
    ("subset-is-a-link", _subset_is_link, 2, "symlink"),
    ("overfit-is-a-link", _overfit_is_link, 2, "symlink"),
    ("log-is-a-link", _log_is_link, 2, "symlink"),
    ("trainer-missing", lambda b, r: ["--trainer-cmd", str(b.root / "nope" / "train")], 2, "does not exist"),
    (
        "trainer-not-executable",
        lambda b, r: ["--trainer-cmd", _trainer(b, r, mode=0o644)],
        2,
        "not executable",
    ),
    ("trainer-is-directory", lambda b, r: ["--trainer-cmd", str(b.root)], 2, "not a file"),
    ("trainer-not-on-path", lambda b, r: ["--trainer-cmd", "no-such-trainer-xyz"], 2, "not on PATH"),
    ("trainer-cmd-unclosed-quote", lambda b, r: ["--trainer-cmd", "'python"], 2, "cannot be split"),
    ("idle-timeout-nan", lambda b, r: ["--idle-timeout", "nan"], 2, "86400"),
    ("idle-timeout-inf", lambda b, r: ["--idle-timeout", "inf"], 2, "86400"),
    ("max-trials-huge", lambda b, r: ["--max-trials", "1000000000"], 2, "at most 50"),
    (
        "run-dir-is-file",
        lambda b, r: (r / "plan.md").unlink() or ["__RUN__", str(r / "config.yaml")],
        2,
        "does not exist",
    ),
]


@pytest.mark.parametrize(("edit", "code", "words"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_hostile_run_folder_is_refused_before_any_trial(box, edit, code, words):
    run = box.planned()
    extra = edit(box, run) or []
    run_arg = str(run)
    if extra[:1] == ["__RUN__"]:
        run_arg, extra = extra[1], extra[2:]
    data_before = {p: p.read_bytes() for p in run.rglob("*.pt") if p.is_file() and not p.is_symlink()}
    unchanged = box.freeze(skip=run)  # links are not followed: their targets are checked
    result = box.cli("autotune", run_arg, *AUTOTUNE, *extra)
    refused(result, code, words)
    unchanged()
    assert not any(run.glob("overfit/trial-*")), "a trial ran"
    for path, data in data_before.items():  # the user's .pt files: same place, same bytes
        assert stat.S_ISREG(os.lstat(path).st_mode) and path.read_bytes() == data


def test_uv_missing_names_uv_on_the_real_path(box, monkeypatch):
    run = box.planned()
    empty = box.root / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    csv = _csv_h100(box)
    unchanged = box.freeze(skip=run)
    # The real trainer (no --simulate trainer): the plan's `uv run ...` launch.
    result = box.cli(
        "autotune",
        str(run),
        "--vram-gb",
        "80",
        "--from-csv",
        csv,
        "--trainer-root",
        str(box.checkout),
        "--max-trials",
        "1",
    )
    refused(result, 2, "uv is not on PATH", "install uv")
    unchanged()


def _csv_h100(box) -> str:
    path = box.root / "gpus.csv"
    path.write_text("name, memory.total [MiB]\nNVIDIA H100 80GB HBM3, 81559 MiB\n")
    return str(path)


def test_a_good_run_after_the_refusals_still_works(box):
    """The refusals are not over-eager: the planned folder tunes with the simulated trainer."""
    run = box.planned()
    unchanged = box.freeze(skip=run)
    result = box.cli("autotune", str(run), *AUTOTUNE)
    assert result.code == 0, result.err
    assert "internal error" not in result.err
    links = [p for p in (run / "overfit" / ".precomputed").rglob("*.pt")]
    assert links and all(p.is_symlink() for p in links)
    unchanged()


def _plant_fifo(rel: str):
    def plant(run: Path) -> None:
        path = run / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists():
            path.unlink()
        os.mkfifo(path)

    return plant


def _plant_text(rel: str, text: str):
    def plant(run: Path) -> None:
        with open(run / rel, "a") as fh:
            fh.write(text)

    return plant


# Files inside the run folder that later runs read back: a FIFO or a bomb there must not hang
# autotune or crash it; those it can do without are ignored, the log is refused.
PLANTED = [
    ("lock-is-fifo", _plant_fifo(".ltx-wizard.lock"), 0, ""),
    ("run-json-is-fifo", _plant_fifo("run.json"), 0, ""),
    ("trial-record-is-fifo", _plant_fifo("overfit/.trial-session.json"), 0, ""),
    ("run-json-deep", _plant_text("run.json", "[" * 100000), 0, ""),
    ("log-line-deep", _plant_text("autotune.log", "{" + '"a":[' * 100000 + "\n"), 0, ""),
    ("log-line-nan", _plant_text("autotune.log", '{"kind": "trial", "index": NaN}\n'), 0, ""),
    ("log-is-fifo", _plant_fifo("autotune.log"), 2, "FIFO"),
]


@pytest.mark.parametrize(("plant", "code", "words"), [c[1:] for c in PLANTED], ids=[c[0] for c in PLANTED])
def test_planted_special_files_in_the_run_folder_never_hang(box, plant, code, words):
    run = box.planned()
    plant(run)
    unchanged = box.freeze(skip=run)
    result = box.cli("autotune", str(run), *AUTOTUNE)
    if code:
        refused(result, code, words)
    else:
        assert result.code == 0 and "internal error" not in result.err, result.err
    unchanged()
