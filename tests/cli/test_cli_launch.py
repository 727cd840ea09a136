"""`ltx-wizard launch RUN --target skypilot` as a user runs it, and `status` on a local copy of a
SkyPilot run's outputs."""

from __future__ import annotations

import os
import shlex

from ltx_wizard.cli import main
from ltx_wizard.core.cloud.sky_python import check_with_skypilot
from ltx_wizard.core.io import run_folder
from ltx_wizard.core.io.yaml_patch import patch_yaml_text
from tests.monitor_runs import make_run, sample_log
from tests.sky_kit import planned_run, sky_python


def _no_skypilot(monkeypatch, tmp_path):
    monkeypatch.delenv("LTX_WIZARD_SKY_PYTHON", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))


def test_without_skypilot_it_says_how_to_install_it(tmp_path, capsys, monkeypatch):
    run = planned_run(tmp_path)
    capsys.readouterr()
    _no_skypilot(monkeypatch, tmp_path)
    assert main(["launch", str(run), "--target", "skypilot"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "uv tool install skypilot" in err and "pipx install skypilot" in err
    assert "click<8.2" in err  # why its own environment
    assert not run_folder.SKY_DIR.path(run).exists()


def test_two_nodes_without_a_shared_outputs_folder_are_refused(tmp_path, capsys):
    run = planned_run(tmp_path, nodes=2, sim="2xh100")
    capsys.readouterr()
    assert main(["launch", str(run), "--target", "skypilot"]) == 2
    err = capsys.readouterr().err
    assert "2 nodes need one outputs folder they all see" in err and "--bucket NAME or --volume NAME" in err
    assert not run_folder.SKY_DIR.path(run).exists()


def test_an_effective_batch_other_than_planned_is_refused(tmp_path, capsys):
    run = planned_run(tmp_path, nodes=2, sim="2xh100")
    config = run_folder.CONFIG.path(run)
    config.write_text(patch_yaml_text(config.read_text(), {"optimization.batch_size": 3}))
    capsys.readouterr()
    assert main(["launch", str(run), "--target", "skypilot", "--bucket", "ltx-out"]) == 2
    err = capsys.readouterr().err
    assert "effective batch of 12 (batch 3 x accumulation 1 x 4 GPUs), the plan 4" in err


def test_a_bad_bucket_name_is_refused(tmp_path, capsys):
    run = planned_run(tmp_path)
    capsys.readouterr()
    assert main(["launch", str(run), "--target", "skypilot", "--bucket", "My_Bucket"]) == 2
    assert "--bucket 'My_Bucket' is not a name" in capsys.readouterr().err
    assert main(["launch", str(run), "--target", "skypilot", "--accelerator", "H100:8"]) == 2
    assert "--accelerator 'H100:8' is not a GPU name" in capsys.readouterr().err


def test_it_prints_the_readmes_commands_and_skypilot_accepts_them(tmp_path, capsys, monkeypatch):
    python = sky_python()
    monkeypatch.setenv("LTX_WIZARD_SKY_PYTHON", python)
    run = planned_run(tmp_path, nodes=2, sim="2xh100")
    capsys.readouterr()
    assert main(["launch", str(run), "--target", "skypilot", "--smoke", "--spot", "--bucket", "ltx-out"]) == 0
    out, err = capsys.readouterr()
    printed = out.splitlines()
    assert printed[0].startswith("sky jobs launch -n ltx-run-smoke ") and printed[0].endswith(
        "sky/smoke.yaml"
    )
    assert printed[1].endswith("sky/task.yaml") and printed[2] == "sky jobs logs -n ltx-run"
    readme = run_folder.SKY_README.path(run).read_text()
    shown = [line.strip() for line in readme.splitlines() if line.strip().startswith("sky ")]
    assert shown[:3] == printed and "sky storage delete ltx-out" in shown
    # every command of the README, as written there, through SkyPilot's own command parser
    assert check_with_skypilot(python, [], [shlex.split(line) for line in shown]) == []
    assert f"wrote {run_folder.SKY_TASK.path(run)}" in err


def test_status_reads_a_skypilot_runs_log_from_a_copy_of_its_outputs(tmp_path, capsys):
    run = make_run(tmp_path, None, checkpoints=((50, True),))
    sky = run_folder.SKY_TASK.path(run)
    sky.parent.mkdir()
    sky.write_text("name: ltx-run\n")
    copied = run_folder.SKY_LOG.path(run)  # what the node wrote into the mounted outputs
    copied.parent.mkdir(parents=True)
    copied.write_text(sample_log("ok_single_gpu_cols250"))
    assert main(["status", str(run)]) == 0
    out = capsys.readouterr().out
    assert "Training: finished" in out and "Step 50 / 50 (100%)" in out
    assert "lora_weights_step_00050.safetensors" in out
    assert os.path.exists(run / "run-summary.md")


def test_a_run_planned_from_clips_is_preprocessed_here_first(tmp_path, capsys):
    from ltx_wizard.demo.lookalike_media import make_clip_dataset
    from tests.sky_kit import COMMIT
    from tests.model_tree import ModelTree

    tree = ModelTree(tmp_path, sim="h100")
    (tree.checkout / ".git").mkdir()
    (tree.checkout / ".git" / "HEAD").write_text(COMMIT + "\n")
    dataset = make_clip_dataset(tmp_path / "clips", [{}, {}])
    args = tree.args()
    args[args.index("--data-root") : args.index("--data-root") + 2] = ["--dataset", str(dataset)]
    assert main(args) == 0
    capsys.readouterr()
    assert main(["launch", str(tree.run), "--target", "skypilot"]) == 2
    err = capsys.readouterr().err
    assert "is not written yet" in err and f"ltx-wizard preprocess {tree.run}" in err
    assert not run_folder.SKY_DIR.path(tree.run).exists()
