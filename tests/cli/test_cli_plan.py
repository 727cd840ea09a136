"""`ltx-wizard plan` end to end against look-alike checkouts, models and data."""

from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path

import pytest

from ltx_wizard.cli import main
from ltx_wizard.core.launch import accelerate_config
from ltx_wizard.core.gpu.assessment import assess
from ltx_wizard.core.gpu.devices import ProbeResult
from ltx_wizard.core.gpu.presets import preset_gpus
from ltx_wizard.demo.lookalike_checkout import LOW_VRAM_TEXT
from ltx_wizard.demo.lookalike_models import (
    make_checkpoint,
    make_packed_gemma,
    make_vae,
)
from ltx_wizard.core.plan.run_plan import PlanRequest, prepare_plan, write_plan
from ltx_wizard.core.io.workspace import LOCK_NAME
from ltx_wizard.core.io.yaml_patch import get_dotted, load_yaml

CONFIGS = "packages/ltx-trainer/configs"


@pytest.fixture(autouse=True)
def _no_accelerate(monkeypatch):
    # Deterministic whether or not the accelerate extra is installed (test_launch covers it).
    monkeypatch.setattr(accelerate_config, "accelerate_available", lambda: False)


@pytest.fixture
def box(model_tree):
    return model_tree()


def run_json(capsys, argv) -> dict:
    assert main([*argv, "--json"]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def changed(before: str, after: str) -> list[str]:
    a, b = before.splitlines(), after.splitlines()
    extra = b[len(a) :] if len(b) > len(a) else []
    return [y for x, y in zip(a, b) if x != y] + extra


def test_single_gpu_writes_the_run_folder(box, capsys):
    shipped = box.shipped("t2v_lora.yaml").read_bytes()
    assert main(box.args()) == 0
    out, err = capsys.readouterr()
    run = box.ws / "run"
    assert out == f"{run}\n"  # stdout: only the path
    assert "80GB+ tier" in err and "uv run python scripts/train.py" in err
    assert (
        f"in the trainer team's order:\n  ltx-wizard autotune {run} --simulate h100\n  bash {run}/launch.sh\n"
    ) in err
    assert f"Come back to the run with: ltx-wizard --simulate h100 --run-dir {run}" in err
    assert sorted(p.name for p in run.iterdir()) == [
        "config.yaml",
        "dataset",
        "launch.sh",
        "logs",
        "outputs",
        "overfit",
        "plan.json",
        "plan.md",
        "run.json",
    ]
    assert box.shipped("t2v_lora.yaml").read_bytes() == shipped  # never modified
    config = (run / "config.yaml").read_text()
    assert changed(shipped.decode(), config) == [
        f'  model_path: "{box.ckpt}"',
        f'  text_encoder_path: "{box.gemma}"',
        f'  preprocessed_data_root: "{box.data}"',
        f'output_dir: "{run / "outputs"}"',
    ]
    assert "5 preprocessed samples" in (run / "plan.md").read_text()
    # plan.md is the plan's record rendered: the record alone gives it again, byte for byte
    from ltx_wizard.core.plan.plan_md import render_plan
    from ltx_wizard.core.plan.record import read_record

    record = read_record(run)
    assert record.data.samples == 5 and record.config_text == config
    assert record.request.checkpoint == box.ckpt and record.checkpoint.path == box.ckpt
    assert render_plan(record) == (run / "plan.md").read_text()


def test_json_contract(box, capsys):
    data = run_json(capsys, box.args())
    run = box.ws / "run"
    assert set(data) == {
        "run_dir",
        "config",
        "plan",
        "tier",
        "base_config",
        "launch_command",
        "launch_cwd",
        "launch_script",
        "warnings",
        "recipe",
        "applied",
    }
    assert data["recipe"] == "t2v_lora" and data["applied"] == []  # #15: the recipe and its keys
    assert data["launch_script"] == str(run / "launch.sh")
    assert data["run_dir"] == str(run) and data["config"] == str(run / "config.yaml")
    assert data["tier"] == "80GB+" and data["base_config"] == "t2v_lora.yaml"
    assert data["launch_command"] == [
        "uv",
        "run",
        "python",
        "scripts/train.py",
        str(run / "config.yaml"),
        "--disable-progress-bars",
    ]
    assert data["launch_cwd"] == str(box.checkout / "packages/ltx-trainer")


@pytest.mark.parametrize(("sim", "tier"), [("rtx5090", "32GB"), ("a6000", "40-60GB")])
def test_low_vram_tiers_start_from_the_low_vram_file_unchanged(box, capsys, sim, tier):
    data = run_json(capsys, box.args(sim=sim))
    assert (data["tier"], data["base_config"]) == (tier, "t2v_lora_low_vram.yaml")
    config = Path(data["config"]).read_text()
    assert len(changed(LOW_VRAM_TEXT, config)) == 4
    assert get_dotted(load_yaml(config), "acceleration.quantization") == "int8-quanto"


def test_gate_stops_with_exit_3_and_writes_nothing(box, capsys):
    assert main(box.args(sim="rtx4090")) == 3
    err = capsys.readouterr().err
    assert "requires a minimum of 32GB" in err and "at your own risk" in err
    assert "--accept-risk" in err  # the error names the option that goes past the gate
    assert not box.ws.exists()


def test_accept_risk_uses_low_vram_and_records_the_risk(box, capsys):
    data = run_json(capsys, box.args("--accept-risk", sim="rtx4090"))
    assert data["base_config"] == "t2v_lora_low_vram.yaml"
    plan = Path(data["plan"]).read_text()
    assert "At your own risk" in plan and "--accept-risk" in plan
    assert any("below the trainer's 32 GB minimum" in w for w in data["warnings"])


def test_ddp_keeps_the_effective_batch(box, capsys):
    data = run_json(capsys, box.args("--effective-batch", "8", sim="4xh100"))
    argv = data["launch_command"]
    assert argv[:4] == ["uv", "run", "accelerate", "launch"]
    assert argv[argv.index("--num_processes") + 1] == "4"
    ddp = str(box.checkout / CONFIGS / "accelerate" / "ddp.yaml")  # as the trainer docs launch DDP
    assert argv[argv.index("--config_file") + 1] == ddp
    assert f"--config_file {ddp} --num_processes 4 scripts/train.py" in Path(data["plan"]).read_text()
    config = load_yaml(Path(data["config"]).read_text())
    assert get_dotted(config, "optimization.gradient_accumulation_steps") == 2
    assert "| Effective batch | 8 (batch x accumulation x 4 GPUs) |" in Path(data["plan"]).read_text()
    assert data["warnings"] == [w for w in data["warnings"] if "cannot be kept" not in w]


def test_effective_batch_that_cannot_be_kept_is_said_plainly(box, capsys):
    data = run_json(capsys, box.args(sim="2xh100"))  # shipped batch 1 x 1, but 2 GPUs
    assert any("effective batch 1 cannot be kept" in w and "becomes 2" in w for w in data["warnings"])


def test_full_finetune_on_two_80gb_gpus_uses_fsdp(box, capsys):
    data = run_json(capsys, box.args("--training-mode", "full", sim="2xh100"))
    argv = data["launch_command"]
    fsdp = str(box.checkout / CONFIGS / "accelerate" / "fsdp.yaml")
    assert argv[argv.index("--config_file") + 1] == fsdp
    config = load_yaml(Path(data["config"]).read_text())
    assert get_dotted(config, "model.training_mode") == "full"
    assert get_dotted(config, "acceleration.quantization") is None
    assert get_dotted(config, "acceleration.offload_optimizer_during_validation") is True


@pytest.mark.parametrize("sim", ["h100", "2xa6000", "2xrtx5090"])
def test_full_finetune_elsewhere_is_refused_with_lora_proposed(box, capsys, sim):
    assert main(box.args("--training-mode", "full", sim=sim)) == 2
    assert "--training-mode lora" in capsys.readouterr().err
    assert not box.ws.exists()


def test_force_full_goes_on_at_your_own_risk(box, capsys):
    data = run_json(capsys, box.args("--training-mode", "full", "--force-full", sim="2xrtx5090"))
    assert any("at your own risk" in w for w in data["warnings"])
    config = load_yaml(Path(data["config"]).read_text())
    assert get_dotted(config, "acceleration.quantization") is None  # int8-quanto removed


def test_existing_plan_is_not_overwritten_without_force(box, capsys):
    assert main(box.args()) == 0
    plan = box.ws / "run" / "plan.md"
    plan.write_text("my edits\n")
    capsys.readouterr()
    assert main(box.args()) == 2
    assert "--force" in capsys.readouterr().err and plan.read_text() == "my edits\n"
    assert main(box.args("--force")) == 0
    assert plan.read_text().startswith("# Plan: run")


def test_a_live_lock_refuses(box, capsys):
    (box.ws / "run").mkdir(parents=True)
    (box.ws / "run" / LOCK_NAME).write_text(f"{os.getppid()}\n")
    assert main(box.args()) == 1
    assert f"pid {os.getppid()}" in capsys.readouterr().err
    assert not (box.ws / "run" / "config.yaml").exists()


@pytest.mark.parametrize("name", ["../escape", "a/b", "bad\x01name"])
def test_bad_run_names_exit_2(box, capsys, name):
    argv = box.args()
    argv[argv.index("run")] = name
    assert main(argv) == 2
    assert "run name" in capsys.readouterr().err and not box.ws.exists()


def test_bad_inputs_exit_2_and_write_nothing(box, capsys, tmp_path):
    argv = box.args()
    argv[argv.index(str(box.data))] = str(tmp_path / "nowhere")
    assert main(argv) == 2
    assert "nowhere" in capsys.readouterr().err and not box.ws.exists()


def test_shipped_config_the_trainer_would_reject_is_caught(box, capsys):
    path = box.shipped("t2v_lora.yaml")
    path.write_text(path.read_text().replace("[576, 576, 89]", "[576, 570, 88]"))
    assert main(box.args()) == 2
    err = capsys.readouterr().err
    assert "would fail in the trainer" in err and "divide by 32" in err and "1 more" in err
    assert not box.ws.exists()


def test_split_pack_needs_and_gets_its_vaes(box, capsys, tmp_path):
    ckpt = make_checkpoint(tmp_path / "split" / "transformer.safetensors", split=True)
    gemma = make_packed_gemma(tmp_path / "split" / "gemma.safetensors")
    argv = box.args()
    argv[argv.index(str(box.ckpt))] = str(ckpt)
    argv[argv.index(str(box.gemma))] = str(gemma)
    assert main(argv) == 2 and "--video-vae" in capsys.readouterr().err
    vv = make_vae(tmp_path / "split" / "video_vae.safetensors", "video")
    av = make_vae(tmp_path / "split" / "audio_vae.safetensors", "audio")
    data = run_json(capsys, [*argv, "--video-vae", str(vv), "--audio-vae", str(av)])
    config = Path(data["config"]).read_text()
    lines = config.splitlines()
    assert lines[lines.index("  load_checkpoint: null") + 1] == f'  video_vae_path: "{vv}"'
    assert lines[lines.index("  load_checkpoint: null") + 2] == f'  audio_vae_path: "{av}"'
    assert get_dotted(load_yaml(config), "model.text_encoder_path") == str(gemma)


def test_crlf_shipped_file_stays_crlf_and_byte_identical_elsewhere(box, capsys):
    path = box.shipped("t2v_lora.yaml")
    crlf = path.read_text().replace("\n", "\r\n").replace("# Text-to-video", "# \t\u00e9 Text")
    path.write_bytes(crlf.encode())
    data = run_json(capsys, box.args())
    written = Path(data["config"]).read_bytes().decode()
    assert written.count("\r\n") == crlf.count("\r\n") and "\n" not in written.replace("\r\n", "")
    assert len(changed(crlf, written)) == 4


def test_top_level_workspace_before_the_command_is_honoured(box, capsys):
    argv = box.args()
    i = argv.index("--workspace")
    del argv[i : i + 2]
    assert main(["--workspace", str(box.ws), *argv]) == 0
    assert (box.ws / "run" / "plan.md").is_file()


def test_effective_batch_must_be_positive(box, capsys):
    with pytest.raises(SystemExit) as exc:
        main(box.args("--effective-batch", "0"))
    assert exc.value.code == 2


def test_narrowed_gpus_are_carried_into_the_launch(box):
    probe = ProbeResult(source="nvml", gpus=preset_gpus("2xh100"), cuda_visible_devices="2,3")
    request = PlanRequest(
        trainer_root=box.checkout,
        checkpoint=box.ckpt,
        text_encoder=box.gemma,
        data_root=box.data,
        workspace=box.ws,
    )
    draft = prepare_plan(request, assess(probe), now=datetime(2025, 1, 2, 3, 4), env={})
    assert draft.run_name == "t2v-cats-20250102-0304"
    assert draft.launch.env == {"CUDA_VISIBLE_DEVICES": "2,3"}
    assert "CUDA_VISIBLE_DEVICES=2,3 uv run accelerate launch" in draft.plan_text
    assert not box.ws.exists()  # prepare writes nothing
    folder = write_plan(draft)
    assert folder.config.read_text() == draft.config_text
    assert not folder.lock_file.exists()


def test_mixed_gpus_warn_and_take_the_smallest_tier(box, capsys):
    probe = ProbeResult(source="nvml", gpus=preset_gpus("2xa6000") + preset_gpus("h100")[:1])
    request = PlanRequest(
        trainer_root=box.checkout,
        checkpoint=box.ckpt,
        text_encoder=box.gemma,
        data_root=box.data,
        workspace=box.ws,
        run_name="mixed",
    )
    draft = prepare_plan(request, assess(probe), env={})
    assert draft.base_config == "t2v_lora_low_vram.yaml"
    assert any("mixed GPU models" in w for w in draft.warnings)


def _uv_on_path(tmp_path, monkeypatch, body: str) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "uv").write_text("#!/bin/sh\ncat > /dev/null\n" + body)
    (bin_dir / "uv").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")


def test_trainer_schema_rejection_is_shown_verbatim_and_nothing_written(box, capsys, tmp_path, monkeypatch):
    _uv_on_path(tmp_path, monkeypatch, "echo 'lora.rank\n  Input should be >= 2'\nexit 1\n")
    assert main(box.args("--validate-with-trainer")) == 1
    err = capsys.readouterr().err
    assert "lora.rank\n  Input should be >= 2" in err and "nothing was written" in err
    assert not box.ws.exists()


def test_trainer_schema_ok_goes_on(box, capsys, tmp_path, monkeypatch):
    _uv_on_path(tmp_path, monkeypatch, "echo ok\n")
    assert main(box.args("--validate-with-trainer")) == 0
    assert "trainer schema check: ok" in capsys.readouterr().err


def test_the_plan_says_what_a_checkpoint_keeps_and_full_training_state_sets_it(box, capsys):
    # every shipped config saves a "minimal" state: no optimizer, so a resume restarts AdamW
    assert main(box.args()) == 0
    plan = (box.ws / "run" / "plan.md").read_text()
    assert "Training state: `minimal` (as shipped)" in plan and "restarts AdamW" in plan
    assert main(box.args("--full-training-state", "--force")) == 0
    config = (box.ws / "run" / "config.yaml").read_text()
    assert 'save_training_state: "full"' in config or "save_training_state: full" in config
    assert "Training state: `full`" in (box.ws / "run" / "plan.md").read_text()


def test_run_summary_counts_the_data_as_the_plan_did(box, capsys):
    # run-summary.md reads the plan's record: the same count plan.md gave
    from tests.monitor_runs import sample_log

    assert main(box.args()) == 0
    run = box.ws / "run"
    (run / "logs" / "train.log").write_text(
        "=== 2026-01-02T03:04:00Z launch.sh started, pid 1\n" + sample_log("ok_single_gpu_cols250")
    )
    capsys.readouterr()
    assert main(["status", str(run)]) == 0
    summary = (run / "run-summary.md").read_text()
    assert "(5 preprocessed samples, as planned)" in summary
    assert "5 preprocessed samples" in (run / "plan.md").read_text()
