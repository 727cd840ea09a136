"""The held-out clips prepare reserved (dataset/holdout.jsonl) preprocessed into their own
`.precomputed` by the full step, with the same model, buckets and trigger word, never into the
training data (issue 44, Deliver 1)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from ltx_wizard.cli import main
from ltx_wizard.core.dataset.pt_shapes import latent_size
from ltx_wizard.core.io.yaml_patch import get_dotted, load_yaml
from ltx_wizard.core.launch import accelerate_config
from ltx_wizard.core.prepare.holdout import HOLDOUT_FILE
from ltx_wizard.core.preprocess import held_out
from ltx_wizard.core.preprocess.preprocess_state import read_state
from ltx_wizard.demo.lookalike_checkout import make_checkout
from ltx_wizard.demo.lookalike_media import make_clip_dataset
from ltx_wizard.demo.lookalike_models import make_checkpoint, make_gemma_dir

SIM = ("--simulate", "a6000")


@pytest.fixture(autouse=True)
def _box_env(monkeypatch):
    monkeypatch.setattr(accelerate_config, "accelerate_available", lambda: False)
    monkeypatch.setenv("LTX_WIZARD_SIM_SPEED", "0")


@pytest.fixture
def box(tmp_path):
    make_checkout(tmp_path / "LTX-2")
    make_checkpoint(tmp_path / "models" / "ltx-2-19b.safetensors", params_b=22)
    make_gemma_dir(tmp_path / "models" / "gemma")
    return tmp_path


def _dataset(box: Path, held: int) -> Path:
    """Real tiny clips; the last `held` rows moved to holdout.jsonl as prepare does (same
    columns, one JSON object a line, taken out of dataset.json)."""
    dataset = make_clip_dataset(box / "cats", [{}, {}, {}, {}][: 3 + held])
    rows = json.loads(dataset.read_text("utf-8"))
    dataset.write_text(json.dumps(rows[: len(rows) - held], indent=2) + "\n", "utf-8")
    if held:
        text = "".join(json.dumps(r) + "\n" for r in rows[len(rows) - held :])
        (dataset.parent / HOLDOUT_FILE).write_text(text, "utf-8")
    return dataset


def _plan(box: Path, dataset: Path, *extra: str) -> Path:
    argv = [
        "plan",
        "--trainer-root",
        str(box / "LTX-2"),
        "--checkpoint",
        str(box / "models" / "ltx-2-19b.safetensors"),
    ]
    argv += ["--text-encoder", str(box / "models" / "gemma"), "--dataset", str(dataset)]
    argv += ["--workspace", str(box / "ws"), "--run-name", "run", *SIM, *extra]
    assert main(argv) == 0
    return box / "ws" / "run"


def test_the_full_step_encodes_the_held_out_clips_apart_from_the_training_data(box, capsys):
    dataset = _dataset(box, held=1)
    run = _plan(box, dataset, "--lora-trigger", "CATZ")
    data_root = dataset.parent / ".precomputed"
    root = run / "holdout" / ".precomputed"
    config = load_yaml((run / "config.yaml").read_text("utf-8"))
    assert get_dotted(config, "data.preprocessed_data_root") == str(data_root)  # never the held-out
    planned = read_state(run)
    assert planned is not None and planned.held_out is not None
    assert (planned.held_out.file, planned.held_out.root) == (dataset.parent / HOLDOUT_FILE, root)
    assert planned.held_out.samples == ("videos/clip_03.pt",) and not planned.held_out.done
    assert f"Held-out clips: 1 in `{dataset.parent / HOLDOUT_FILE}`" in (run / "plan.md").read_text("utf-8")
    assert main(["preprocess", str(run), "--one-sample", *SIM]) == 0
    assert not root.exists()  # the one sample is autotune's: the held-out clips wait for the full step
    capsys.readouterr()

    assert main(["preprocess", str(run), "--skip-autotune", *SIM, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["held_out"]["done"] and out["held_out"]["encoded"] == ["videos/clip_03.pt"]
    # the training data holds only the training clips; the held-out clip only its own folder
    assert sorted(p.name for p in (data_root / "latents" / "videos").iterdir()) == [
        "clip_00.pt",
        "clip_01.pt",
        "clip_02.pt",
    ]
    assert sorted(p.name for p in (root / "latents" / "videos").iterdir()) == ["clip_03.pt"]
    assert sorted(p.name for p in root.iterdir()) == ["audio_latents", "conditions", "latents"]
    assert latent_size(root / "latents" / "videos" / "clip_03.pt") == latent_size(
        data_root / "latents" / "videos" / "clip_00.pt"
    )  # the same bucket
    # the same model, buckets and trigger word: the two commands differ only in input and output
    full = _argv(run / "logs" / "preprocess.log", dataset)
    held = _argv(run / "logs" / "preprocess-held-out.log", dataset.parent / HOLDOUT_FILE)
    assert held == [str(root) if a == str(data_root) else a for a in full] + ["--overwrite"]
    assert "--lora-trigger" in held and held[held.index("--lora-trigger") + 1] == "CATZ"
    after = read_state(run)
    assert after is not None and after.held_out is not None and after.held_out.done
    assert "Held-out clips: 1 of 1 preprocessed into" in (run / "plan.md").read_text("utf-8")

    assert main(["preprocess", str(run), *SIM]) == 0  # done, both: nothing runs again
    assert capsys.readouterr().out.startswith("full preprocess: already done\n")


def _argv(log: Path, dataset: Path) -> list[str]:
    """The script's arguments after the dataset file, as the step's log records its command."""
    line = next(x for x in log.read_text("utf-8").splitlines() if x.startswith("$ "))
    words = shlex.split(line[2:])
    return words[words.index(str(dataset)) + 1 :]


def test_no_held_out_clips_nothing_is_done_and_the_record_says_so(box, capsys):
    dataset = _dataset(box, held=0)
    run = _plan(box, dataset)
    state = read_state(run)
    assert state is not None and state.held_out is not None and state.held_out.file is None
    assert state.held_out.note == f"no clips were held out (no {HOLDOUT_FILE} beside dataset.json)"
    assert main(["preprocess", str(run), "--one-sample", *SIM]) == 0
    capsys.readouterr()
    assert main(["preprocess", str(run), "--skip-autotune", *SIM, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["held_out"]["file"] is None and not out["held_out"]["done"]
    assert not (run / "holdout").exists() and not (run / "logs" / "preprocess-held-out.log").exists()
    assert "Held-out clips: none to preprocess: no clips were held out" in (run / "plan.md").read_text(
        "utf-8"
    )


def test_a_data_root_over_the_held_out_folder_is_refused_at_plan_time(box, capsys):
    dataset = _dataset(box, held=1)
    inside = box / "ws" / "run" / "holdout" / ".precomputed"
    argv = [
        "plan",
        "--trainer-root",
        str(box / "LTX-2"),
        "--checkpoint",
        str(box / "models" / "ltx-2-19b.safetensors"),
    ]
    argv += [
        "--text-encoder",
        str(box / "models" / "gemma"),
        "--dataset",
        str(dataset),
        "--precomputed-dir",
        str(inside),
    ]
    argv += ["--workspace", str(box / "ws"), "--run-name", "run", *SIM]
    assert main(argv) == 2
    assert "held-out clips must never be trained on" in capsys.readouterr().err


def test_the_file_name_is_prepares():
    assert held_out.HOLDOUT_FILE == HOLDOUT_FILE


def test_a_held_out_clip_the_script_skips_is_said_and_training_goes_on(box, capsys):
    dataset = make_clip_dataset(box / "cats", [{}, {}, {}, {"frames": 20}])  # too short for any bucket
    rows = json.loads(dataset.read_text("utf-8"))
    dataset.write_text(json.dumps(rows[:3], indent=2) + "\n", "utf-8")
    (dataset.parent / HOLDOUT_FILE).write_text(json.dumps(rows[3]) + "\n", "utf-8")
    run = _plan(box, dataset)
    assert main(["preprocess", str(run), "--one-sample", *SIM]) == 0
    capsys.readouterr()
    assert main(["preprocess", str(run), "--skip-autotune", *SIM]) == 0
    out, err = capsys.readouterr()
    assert "full preprocess: done, verified: 3 sample(s)" in out
    assert "warning: held-out clips: 1 of 1 held-out clip(s) not encoded (videos/clip_03.pt)" in err
    state = read_state(run)
    assert state is not None and state.full_done and state.held_out is not None
    assert state.held_out.done and state.held_out.encoded == ()
    assert "Held-out clips: 0 of 1 preprocessed into" in (run / "plan.md").read_text("utf-8")
