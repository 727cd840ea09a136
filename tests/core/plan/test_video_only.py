"""Video-only data under the shipped audio configs: refused plainly, or trained with --video-only.

The shipped t2v configs train audio too (`training_strategy.audio`), so the trainer demands
`audio_latents/`; `--video-only` writes `training_strategy.audio: null` and nothing else.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ltx_wizard.cli import main
from ltx_wizard.core.launch import accelerate_config
from ltx_wizard.core.autotune.sweep.trial_subset import build_subset
from ltx_wizard.demo.lookalike_models import make_data_root
from ltx_wizard.core.io.yaml_patch import get_dotted, load_yaml

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(autouse=True)
def _no_accelerate(monkeypatch):
    monkeypatch.setattr(accelerate_config, "accelerate_available", lambda: False)


@pytest.fixture
def box(model_tree):
    return model_tree(data="clips", samples=4, audio=False)


def _sim(config: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LTX_")}
    env.update(PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1", LTX_WIZARD_SIM_SPEED="0")
    return subprocess.run(
        [sys.executable, "-m", "ltx_wizard.demo.sim.trainer", str(config), "--disable-progress-bars"],
        cwd=config.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_plan_refuses_video_only_data_naming_the_folder_and_the_option(box, capsys):
    assert main(box.args()) == 2
    err = capsys.readouterr().err
    (line,) = err.strip().splitlines()
    assert line.startswith("ltx-wizard: data root") and "has no audio_latents/" in line
    assert "--video-only" in line and "training_strategy.audio: null" in line
    assert not box.ws.exists()  # nothing written


def test_video_only_changes_one_more_line_and_plan_md_says_why(box, capsys):
    assert main([*box.args("--video-only"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    run = Path(data["run_dir"])
    config = (run / "config.yaml").read_text()
    assert get_dotted(load_yaml(config), "training_strategy.audio") is None
    assert get_dotted(load_yaml(config), "training_strategy.video.latents_dir") == "latents"
    plan = (run / "plan.md").read_text()
    diff = plan.split("```diff", 1)[1].split("```", 1)[0]
    added = [ln[1:] for ln in diff.splitlines() if ln.startswith("+") and not ln.startswith("+++")]
    assert len(added) == 5  # the four paths of every plan, and this one
    assert "  audio: null" in added
    assert "`training_strategy.audio: null`" in plan and "4 preprocessed samples" in plan
    assert "docs/configuration-reference.md" in plan and "`attn1.*`, `attn2.*`" in plan


def test_video_only_config_runs_in_the_simulated_trainer_and_the_audio_one_fails(box, capsys):
    assert main(box.args("--video-only")) == 0
    run = Path(capsys.readouterr().out.strip())
    proc = _sim(run / "config.yaml")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Loaded dataset with 4 samples" in proc.stdout
    # The same config with the shipped audio block back: the trainer's own rejection, on stdout.
    audio = run / "audio.yaml"
    audio.write_text(
        (run / "config.yaml")
        .read_text()
        .replace("  audio: null", '  audio:\n    is_generated: true\n    latents_dir: "audio_latents"')
    )
    proc = _sim(audio)
    assert proc.returncode == 1 and proc.stderr == ""
    lines = proc.stdout.splitlines()
    assert lines[0] == "Error: Invalid configuration data: 1 validation error for LtxTrainerConfig"
    assert lines[1].startswith(
        f"  Value error, Required data directory 'audio_latents' does not exist under "
        f"preprocessed_data_root: {box.data / 'audio_latents'} [type=value_error, input_value="
    )


def test_check_accepts_the_same_flag(box, capsys):
    base = [
        "check",
        "--checkpoint",
        str(box.ckpt),
        "--text-encoder",
        str(box.gemma),
        "--data-root",
        str(box.data),
        "--trainer-root",
        str(box.checkout),
    ]
    assert main(base) == 2
    assert main([*base, "--video-only"]) == 0


def test_the_trial_subset_links_only_usable_samples_of_the_strategy(tmp_path):
    root = make_data_root(tmp_path / "data", 6)
    for i in (0, 2):  # partial audio: these clips have none
        (root / "audio_latents" / f"sample_{i:04d}.pt").unlink()
    target = tmp_path / "run" / "overfit" / ".precomputed"
    assert build_subset(root, target, num_gpus=1) == 4
    for folder in ("conditions", "latents", "audio_latents"):
        names = sorted(p.name for p in (target / folder).iterdir())
        assert names == ["sample_0001.pt", "sample_0003.pt", "sample_0004.pt", "sample_0005.pt"]
        assert all((target / folder / n).is_symlink() for n in names)
    video_only = {
        "name": "flexible",
        "audio": None,
        "video": {"is_generated": True, "latents_dir": "latents"},
    }
    assert build_subset(root, target, num_gpus=1, strategy=video_only) == 4
    assert sorted(p.name for p in target.iterdir()) == ["conditions", "latents"]
    assert (target / "latents" / "sample_0000.pt").is_symlink()  # audio no longer needed


def test_autotune_of_a_video_only_plan_runs_its_trials_on_video_only_data(box, capsys):
    assert main(box.args("--video-only")) == 0
    run = Path(capsys.readouterr().out.strip())
    code = main(["autotune", str(run), "--simulate", "h100", "--json", "--max-trials", "1"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["trials"][0]["change"] == "baseline"
    assert data["trials"][0]["outcome"] == "ok", data["trials"][0]
    subset = run / "overfit" / ".precomputed"
    assert sorted(p.name for p in subset.iterdir()) == ["conditions", "latents"]


def test_video_only_on_data_with_audio_says_the_audio_goes_unused(box, capsys, tmp_path):
    box.data = make_data_root(tmp_path / "av", 2)
    assert main([*box.args("--video-only"), "--json"]) == 0
    warnings = json.loads(capsys.readouterr().out)["warnings"]
    assert any("holds audio latents, which this run does not train on" in w for w in warnings)
