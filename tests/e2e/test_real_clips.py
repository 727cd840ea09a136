"""A folder of real clips (made with PyAV) on simulated GPUs, as a new user runs it: `check`, plan.md
and the plan's record count what the trainer will train on, the same number everywhere, and the
run goes from the dataset file to an autotune winner on `--simulate rtx5090` (the simulated
preprocessor reads the real clips)."""

from __future__ import annotations

import json

import pytest

from ltx_wizard.cli import main
from ltx_wizard.core.launch import accelerate_config
from ltx_wizard.core.plan.plan_words import data_words
from ltx_wizard.core.plan.record import read_record
from ltx_wizard.demo.lookalike_checkout import make_checkout
from ltx_wizard.demo.lookalike_media import make_clip_dataset
from ltx_wizard.demo.lookalike_models import make_checkpoint, make_gemma_dir


@pytest.fixture(autouse=True)
def _quiet(monkeypatch):
    monkeypatch.setattr(accelerate_config, "accelerate_available", lambda: False)
    monkeypatch.setenv("LTX_WIZARD_SIM_SPEED", "0")


def test_five_real_clips_one_short_one_silent_count_alike_and_reach_a_winner(tmp_path, capsys):
    make_checkout(tmp_path / "LTX-2")
    ckpt = make_checkpoint(tmp_path / "models" / "ltx-2-19b.safetensors", params_b=22)
    gemma = make_gemma_dir(tmp_path / "models" / "gemma")
    dataset = make_clip_dataset(tmp_path / "cats", [{}, {"frames": 40}, {}, {"audio": False}, {}])
    common = [
        "--trainer-root",
        str(tmp_path / "LTX-2"),
        "--checkpoint",
        str(ckpt),
        "--text-encoder",
        str(gemma),
        "--dataset",
        str(dataset),
    ]

    assert main(["check", *common]) == 0
    out = capsys.readouterr().out
    data_line = next(line for line in out.splitlines() if "data_root" in line)
    assert "3 of 5 clips usable" in data_line  # one too short (dropped), one silent (left out)

    run = tmp_path / "ws" / "run"
    assert (
        main(
            [
                "plan",
                *common,
                "--workspace",
                str(tmp_path / "ws"),
                "--run-name",
                "run",
                "--simulate",
                "rtx5090",
            ]
        )
        == 0
    )
    capsys.readouterr()
    record = read_record(run)
    assert record.data.listed == 5 and record.data.samples == 3
    assert data_words(record.data).startswith("5 clips listed, 3 to train on")  # the Plan screen
    dataset_md = (run / "plan.md").read_text().split("## Dataset")[1].split("\n## ")[0]
    assert "5 clips listed; the trainer will train on 3 of them" in dataset_md
    assert "clip_01.mp4" in dataset_md and "clip_03.mp4" in dataset_md  # each named, with its fate

    assert main(["preprocess", str(run), "--one-sample", "--simulate", "rtx5090"]) == 0
    capsys.readouterr()
    assert main(["autotune", str(run), "--simulate", "rtx5090", "--json"]) == 0
    tuned = json.loads(capsys.readouterr().out)
    assert tuned["winner"] is not None and tuned["confirmation"]["outcome"] == "ok"
    assert "## Autotune results" in (run / "plan.md").read_text()
