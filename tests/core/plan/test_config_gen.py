"""config.yaml generation: patched keys, batch arithmetic, full-FT rules, self-checks."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from ltx_wizard.core.plan import config_gen
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.demo.lookalike_checkout import LOW_VRAM_TEXT, STANDARD_TEXT
from ltx_wizard.demo.lookalike_models import make_data_root
from ltx_wizard.core.gpu.tiers import Tier
from ltx_wizard.core.io.yaml_patch import get_dotted, load_yaml


@pytest.mark.parametrize(
    ("wanted", "batch", "gpus", "accumulation", "achieved"),
    [
        (1, 1, 1, 1, 1),
        (4, 1, 1, 4, 4),
        (4, 1, 2, 2, 4),
        (8, 2, 2, 2, 8),
        (16, 1, 8, 2, 16),
        (1, 1, 2, 1, 2),
        (6, 1, 4, 1, 4),
        (3, 2, 1, 1, 2),
    ],
)
def test_batch_arithmetic(wanted, batch, gpus, accumulation, achieved):
    plan = config_gen.plan_batch(wanted, batch, gpus)
    assert (plan.accumulation, plan.achieved) == (accumulation, achieved)
    assert plan.kept == (achieved == wanted)
    assert (plan.message is None) == plan.kept
    if not plan.kept:
        assert f"effective batch {wanted} cannot be kept" in plan.message


def test_batch_of_zero_is_refused():
    with pytest.raises(UsageError):
        config_gen.plan_batch(0, 1, 1)


def test_full_finetune_rules():
    assert config_gen.check_full_finetune(2, Tier.T80, force_full=False) == []
    for gpus, tier in ((1, Tier.T80), (2, Tier.T40_60), (4, Tier.T32), (1, Tier.T32)):
        with pytest.raises(UsageError, match="--training-mode lora"):
            config_gen.check_full_finetune(gpus, tier, force_full=False)
        warned = config_gen.check_full_finetune(gpus, tier, force_full=True)
        assert len(warned) == 1 and "at your own risk" in warned[0]


def _paths(tmp_path: Path) -> dict:
    return dict(
        model_path=tmp_path / "ck.safetensors",
        text_encoder_path=tmp_path / "gemma",
        data_root=tmp_path / "data",
        output_dir=tmp_path / "run" / "outputs",
    )


def test_path_changes_are_absolute(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    got = config_gen.compute_changes(
        STANDARD_TEXT,
        model_path=Path("ck.safetensors"),
        text_encoder_path=Path("gemma"),
        data_root=Path("data"),
        output_dir=Path("run/outputs"),
    )
    assert got.changes == {
        "model.model_path": str(tmp_path / "ck.safetensors"),
        "model.text_encoder_path": str(tmp_path / "gemma"),
        "data.preprocessed_data_root": str(tmp_path / "data"),
        "output_dir": str(tmp_path / "run" / "outputs"),
    }
    assert got.warnings == [] and got.batch.achieved == 1


def test_full_keys_join_only_when_they_change_something(tmp_path):
    low = config_gen.compute_changes(
        LOW_VRAM_TEXT, training_mode="full", num_gpus=2, effective_batch=2, **_paths(tmp_path)
    )
    assert low.changes["model.training_mode"] == "full"
    assert low.changes["acceleration.quantization"] is None
    assert "acceleration.offload_optimizer_during_validation" not in low.changes  # already true
    std = config_gen.compute_changes(
        STANDARD_TEXT, training_mode="full", num_gpus=2, effective_batch=2, **_paths(tmp_path)
    )
    assert "acceleration.quantization" not in std.changes  # already null
    assert std.changes["acceleration.offload_optimizer_during_validation"] is True
    text = config_gen.build_config(STANDARD_TEXT, std.changes)
    data = load_yaml(text)
    assert get_dotted(data, "model.training_mode") == "full"
    assert get_dotted(data, "acceleration.offload_optimizer_during_validation") is True


def test_effective_batch_lowers_accumulation_and_says_when_it_cannot(tmp_path):
    kept = config_gen.compute_changes(STANDARD_TEXT, num_gpus=2, effective_batch=8, **_paths(tmp_path))
    assert kept.changes["optimization.gradient_accumulation_steps"] == 4 and kept.warnings == []
    lost = config_gen.compute_changes(STANDARD_TEXT, num_gpus=4, **_paths(tmp_path))
    assert "optimization.gradient_accumulation_steps" not in lost.changes
    assert lost.batch.achieved == 4
    assert lost.warnings == [lost.batch.message] and "becomes 4" in lost.warnings[0]


@pytest.mark.parametrize("base", [STANDARD_TEXT, LOW_VRAM_TEXT])
def test_written_config_differs_only_on_patched_lines(tmp_path, base):
    got = config_gen.compute_changes(
        base,
        training_mode="full",
        num_gpus=2,
        effective_batch=4,
        video_vae_path=tmp_path / "v.safetensors",
        audio_vae_path=tmp_path / "a.safetensors",
        **_paths(tmp_path),
    )
    text = config_gen.build_config(base, got.changes)
    diff = config_gen.config_diff(base, text)
    removed = [ln for ln in diff.splitlines() if ln.startswith("-") and not ln.startswith("---")]
    added = [ln for ln in diff.splitlines() if ln.startswith("+") and not ln.startswith("+++")]
    patched_names = {k.rsplit(".", 1)[-1] for k in got.changes}
    assert {ln[1:].split(":")[0].strip() for ln in added} == patched_names
    assert len(added) == len(got.changes) and len(removed) == len(got.changes) - 2  # 2 inserted


def _good_config(tmp_path: Path, dims: str = "[576, 576, 89]", audio: bool = True) -> str:
    (tmp_path / "ck.safetensors").write_bytes(b"x")
    (tmp_path / "gemma").mkdir(exist_ok=True)
    make_data_root(tmp_path / "data", 1, audio=audio)
    text = STANDARD_TEXT.replace("[576, 576, 89]", dims)
    changes = config_gen.compute_changes(text, **_paths(tmp_path)).changes
    if not audio:
        changes["training_strategy.audio"] = None
    return config_gen.build_config(text, changes)


def test_self_check_passes_a_good_config(tmp_path):
    assert config_gen.self_check(_good_config(tmp_path)) == []


@pytest.mark.parametrize(
    ("dims", "words"),
    [
        ("[500, 576, 89]", "divide by 32"),
        ("[576, 577, 89]", "divide by 32"),
        ("[576, 576, 90]", "(frames - 1) must divide by 8"),
        ("[576, 576]", "[width, height, frames]"),
    ],
)
def test_self_check_video_dims(tmp_path, dims, words):
    problems = config_gen.self_check(_good_config(tmp_path, dims))
    assert len(problems) == 1 and words in problems[0]


def test_self_check_missing_paths_and_folders(tmp_path):
    text = _good_config(tmp_path)
    os.remove(tmp_path / "ck.safetensors")
    shutil.rmtree(tmp_path / "data" / "conditions")
    problems = config_gen.self_check(text)
    assert any("model.model_path" in p for p in problems)
    assert any("no conditions/ folder" in p for p in problems)
    with pytest.raises(UsageError, match=r"would fail in the trainer: .* \(and 1 more\)"):
        config_gen.require_self_check(text)


def test_self_check_wants_audio_latents_for_audio_runs(tmp_path):
    text = _good_config(tmp_path)
    assert config_gen.self_check(text) == []
    shutil.rmtree(tmp_path / "data" / "audio_latents")
    assert ["audio_latents/" in p for p in config_gen.self_check(text)] == [True]


def test_self_check_of_a_video_only_config_wants_no_audio_latents(tmp_path):
    text = _good_config(tmp_path, audio=False)
    assert "  audio: null\n" in text
    assert config_gen.self_check(text) == []


def _fake_uv(tmp_path: Path, body: str) -> str:
    script = tmp_path / "fake-uv"
    script.write_text("#!/bin/sh\ncat > /dev/null\n" + body)
    script.chmod(0o755)
    return str(script)


def test_trainer_schema_error_is_shown_verbatim(tmp_path):
    uv = _fake_uv(tmp_path, "echo '1 validation error for LtxTrainerConfig'\necho '  lora.rank  x'\nexit 1\n")
    got = config_gen.validate_with_trainer(tmp_path, "a: 1\n", uv=uv)
    assert not got.ok
    assert got.output == "1 validation error for LtxTrainerConfig\n  lora.rank  x"
    ok = config_gen.validate_with_trainer(tmp_path, "a: 1\n", uv=_fake_uv(tmp_path, "echo ok\n"))
    assert ok.ok and ok.output == "ok"


def test_trainer_schema_check_without_uv(tmp_path):
    got = config_gen.validate_with_trainer(tmp_path, "a: 1\n", uv=str(tmp_path / "no-uv"))
    assert not got.ok and "not found" in got.output


def test_a_wrongly_typed_shipped_key_is_refused_naming_the_file_and_the_key(tmp_path):
    base = STANDARD_TEXT.replace("batch_size: 1", "batch_size: one", 1)
    assert base != STANDARD_TEXT
    with pytest.raises(UsageError, match=r"^configs/t2v_lora.yaml: optimization.batch_size is 'one'"):
        config_gen.compute_changes(base, **_paths(tmp_path), base_name="configs/t2v_lora.yaml")


@pytest.mark.parametrize(
    ("old", "new", "words"),
    [
        ("[576, 576, 89]", "[576, wide, 89]", "validation.video_dims[1] is 'wide'"),
        ("[576, 576, 89]", "576x576", "validation.video_dims is '576x576', expected a list"),
    ],
)
def test_self_check_refuses_a_wrong_type_with_the_file_and_the_key(tmp_path, old, new, words):
    text = _good_config(tmp_path).replace(old, new, 1)
    with pytest.raises(UsageError, match="^" + re.escape(f"RUN/config.yaml: {words}")):
        config_gen.require_self_check(text, "RUN/config.yaml")
