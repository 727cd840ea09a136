"""Trial data subset, trial configs and the append-only autotune log."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ltx_wizard.core.tuning.results import AutotuneSummary, TrialResult
from ltx_wizard.core.autotune.outputs.results_log import ResultsLog
from ltx_wizard.core.autotune.sweep.trial_subset import build_subset, subset_size
from ltx_wizard.core.tuning.trial_config import settings_from_config, trial_config_text
from ltx_wizard.demo.lookalike_checkout import LOW_VRAM_TEXT, STANDARD_TEXT
from ltx_wizard.demo.lookalike_models import make_data_root


def tree(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): os.readlink(p) if p.is_symlink() else "file"
        for p in sorted(root.rglob("*"))
        if not p.is_dir()
    }


def test_subset_links_single_files_and_never_touches_the_data(tmp_path):
    data = make_data_root(tmp_path / "data", n_samples=5)
    before = tree(data)
    target = tmp_path / "run" / "overfit" / ".precomputed"
    k = build_subset(data, target, num_gpus=1)
    assert k == 4  # what a batch-4 trial needs on one GPU
    links = tree(target)
    assert all(Path(dest).is_absolute() and dest.startswith(str(data)) for dest in links.values())
    assert all(not p.is_dir() or not p.is_symlink() for p in target.rglob("*"))  # no folder links
    assert {Path(rel).parts[0] for rel in links} >= {"latents", "conditions"}
    assert len([r for r in links if r.startswith("latents")]) == 4
    assert tree(data) == before


def test_subset_is_rebuilt_not_merged(tmp_path):
    data = make_data_root(tmp_path / "data", n_samples=2)
    target = tmp_path / "run" / "overfit" / ".precomputed"
    assert build_subset(data, target) == 2
    (target / "latents" / "stray.pt").symlink_to(data / "latents" / sorted(os.listdir(data / "latents"))[0])
    build_subset(data, target)
    assert not (target / "latents" / "stray.pt").exists()
    assert sorted(os.listdir(target.parent)) == [".precomputed"]  # no staging folder left


@pytest.mark.parametrize(
    ("available", "gpus", "k"), [(1, 1, 1), (3, 1, 2), (4, 1, 4), (9, 2, 8), (3, 2, 2), (1, 4, 1)]
)
def test_subset_size(available, gpus, k):
    assert subset_size(available, gpus) == k


def test_trial_config_changes_only_trial_lines(tmp_path):
    planned = LOW_VRAM_TEXT.replace("enabled: false", "enabled: true")  # a user who logs to W&B
    text = trial_config_text(planned, {"acceleration.quantization": None}, tmp_path / "sub", tmp_path / "out")
    changed = {b.split(":")[0].strip() for b in set(text.splitlines()) - set(planned.splitlines())}
    audio = {"generate_audio"} if "generate_audio: false" not in planned else set()  # turned off
    assert (
        changed
        == {
            "quantization",
            "preprocessed_data_root",
            "steps",
            "interval",
            "samples",
            "skip_initial_validation",
            "enabled",
            "output_dir",
            "generate_video",
        }
        | audio
    )
    assert "wandb:\n  enabled: false" in text
    assert "quantization: null   # quantize the transformer weights" in text
    assert "negative_prompt:" in text and "video_dims: [576, 576, 89]  # width" in text
    settings = settings_from_config(text)
    assert settings.quantization is None and settings.optimizer_type == "adamw8bit"


def test_settings_from_the_standard_config():
    s = settings_from_config(STANDARD_TEXT)
    assert (s.quantization, s.optimizer_type, s.batch_size, s.lora_rank) == (None, "adamw", 1, 32)


def test_log_is_append_only_and_resumable(tmp_path):
    log = ResultsLog(tmp_path / "autotune.log")
    log.session_started("new")
    ok = TrialResult(index=1, change="baseline", outcome="ok", step_time_s=4.0, peak_vram_gb=30.1, kept=True)
    cancelled = TrialResult(index=2, change="optimizer adamw8bit -> adamw", outcome="cancelled")
    log.trial(ok)
    log.trial(cancelled)
    first = (tmp_path / "autotune.log").read_text()
    trials, summary = log.load()
    assert list(trials) == [1] and summary is None  # the cancelled trial will run again
    log.summary(AutotuneSummary(trials=[ok], winner=1, config_patched=False, launch_line="x"))
    text = (tmp_path / "autotune.log").read_text()
    assert text.startswith(first)
    assert "trial 1  baseline" in text and "winner: trial 1" in text
    json_lines = [json.loads(line) for line in text.splitlines() if line.startswith("{")]
    assert [j["kind"] for j in json_lines] == ["trial", "trial", "summary"]
    assert log.load()[1].winner == 1


def test_a_torn_json_line_is_ignored(tmp_path):
    path = tmp_path / "autotune.log"
    path.write_text('{"kind": "trial", "index": 1, "chan\n')
    assert ResultsLog(path).load() == ({}, None)


def test_tuned_config_keeps_steps_unless_the_effective_batch_moved_and_marks_each_change():
    from ltx_wizard.core.tuning.headroom import TrainSettings
    from ltx_wizard.core.autotune.outputs.tuned_config import tuned_config

    planned = "optimization:\n  steps: 2000  # how long\n  batch_size: 1\n  gradient_accumulation_steps: 4\n"
    kept = tuned_config(
        planned,
        {"optimization.batch_size": 4, "optimization.gradient_accumulation_steps": 1},
        TrainSettings(None, "adamw", 1, 4, True),
        TrainSettings(None, "adamw", 4, 1, True),
    )
    assert kept.steps is None and "steps: 2000  # how long\n" in kept.text
    assert "batch_size: 4  # ltx-wizard: autotune (was 1)" in kept.text
    assert "gradient_accumulation_steps: 1  # ltx-wizard: autotune (was 4)" in kept.text
    grew = tuned_config(
        planned.replace("accumulation_steps: 4", "accumulation_steps: 1"),
        {"optimization.batch_size": 2, "optimization.gradient_accumulation_steps": 1},
        TrainSettings(None, "adamw", 1, 1, True),
        TrainSettings(None, "adamw", 2, 1, True),
    )
    assert grew.steps == (2000, 1000)  # 1000 steps x 2 samples = the planned 2000 samples
    assert "steps: 1000  # how long  # ltx-wizard: autotune" in grew.text and "(was 2000)" in grew.text
    assert "gradient_accumulation_steps: 1\n" in grew.text  # unchanged: no mark


def test_a_wrongly_typed_planned_key_is_refused_with_the_file_and_the_key(tmp_path):
    from ltx_wizard.core.autotune.sweep.planned_config import read_planned
    from ltx_wizard.core.base.errors import UsageError

    path = tmp_path / "config.yaml"
    path.write_text(STANDARD_TEXT.replace("interval: 250", "interval: soon", 1))
    assert "interval: soon" in path.read_text()
    with pytest.raises(UsageError) as err:
        read_planned(path)
    assert err.value.message.startswith(f"{path}: validation.interval is 'soon', expected a whole number")
    assert err.value.message.endswith("run `ltx-wizard plan --force` again")


def test_tuned_config_refuses_wrongly_typed_steps_and_rescales_only_the_intervals_it_sets():
    from ltx_wizard.core.base.errors import UsageError
    from ltx_wizard.core.tuning.headroom import TrainSettings
    from ltx_wizard.core.autotune.outputs.tuned_config import tuned_config

    before, after = TrainSettings(None, "adamw", 1, 1, True), TrainSettings(None, "adamw", 2, 1, True)
    planned = "optimization:\n  steps: 2000\n  batch_size: 1\ncheckpoints:\n  interval: 500\n"
    tuned = tuned_config(planned, {"optimization.batch_size": 2}, before, after)
    # validation.interval is absent (the trainer's 100): left absent, not written as 50
    assert tuned.changes == {
        "optimization.batch_size": 2,
        "optimization.steps": 1000,
        "checkpoints.interval": 250,
    }
    with pytest.raises(
        UsageError, match=r"^config.yaml: optimization.steps is 'many', expected a whole number"
    ):
        tuned_config(planned.replace("2000", "many"), {"optimization.batch_size": 2}, before, after)
