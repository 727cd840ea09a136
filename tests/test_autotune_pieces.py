"""Trial data subset, trial configs and the append-only autotune log."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ltx_wizard.core.autotune.events import AutotuneSummary, TrialResult
from ltx_wizard.core.autotune.results_log import ResultsLog
from ltx_wizard.core.autotune.subset import build_subset, subset_size
from ltx_wizard.core.autotune.trial_config import settings_from_config, trial_config_text
from ltx_wizard.demo.lookalike_checkout import LOW_VRAM_TEXT, STANDARD_TEXT
from ltx_wizard.demo.lookalike_models import make_data_root


def tree(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): os.readlink(p) if p.is_symlink() else "file"
        for p in sorted(root.rglob("*")) if not p.is_dir()
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


@pytest.mark.parametrize(("available", "gpus", "k"), [(1, 1, 1), (3, 1, 2), (4, 1, 4), (9, 2, 8),
                                                     (3, 2, 2), (1, 4, 1)])
def test_subset_size(available, gpus, k):
    assert subset_size(available, gpus) == k


def test_trial_config_changes_only_trial_lines(tmp_path):
    planned = LOW_VRAM_TEXT.replace("enabled: false", "enabled: true")  # a user who logs to W&B
    text = trial_config_text(planned, {"acceleration.quantization": None},
                             tmp_path / "sub", tmp_path / "out")
    changed = {b.split(":")[0].strip() for b in set(text.splitlines()) - set(planned.splitlines())}
    audio = {"generate_audio"} if "generate_audio: false" not in planned else set()  # turned off
    assert changed == {"quantization", "preprocessed_data_root", "steps", "interval", "samples",
                       "skip_initial_validation", "enabled", "output_dir", "generate_video"} | audio
    assert "wandb:\n  enabled: false" in text
    assert 'quantization: null   # quantize the transformer weights' in text
    assert "negative_prompt:" in text and "video_dims: [576, 576, 89]  # width" in text
    settings = settings_from_config(text)
    assert settings.quantization is None and settings.optimizer_type == "adamw8bit"


def test_settings_from_the_standard_config():
    s = settings_from_config(STANDARD_TEXT)
    assert (s.quantization, s.optimizer_type, s.batch_size, s.lora_rank) == (None, "adamw", 1, 32)


def test_log_is_append_only_and_resumable(tmp_path):
    log = ResultsLog(tmp_path / "autotune.log")
    log.session_started("new")
    ok = TrialResult(index=1, change="baseline", outcome="ok", step_time_s=4.0, peak_vram_gb=30.1,
                     kept=True)
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


def test_effective_batch_note_only_when_accumulation_cannot_absorb_the_batch(tmp_path):
    from ltx_wizard.core.autotune.headroom import TrainSettings
    from ltx_wizard.core.autotune.plan_note import append_to_plan, effective_batch_note

    kept = effective_batch_note(TrainSettings(None, "adamw", 1, 4, True),
                                TrainSettings(None, "adamw", 4, 1, True), 2)
    assert kept is None  # 1 x 4 x 2 == 4 x 1 x 2: nothing for the reader to know
    grew = effective_batch_note(TrainSettings(None, "adamw", 1, 1, True),
                                TrainSettings(None, "adamw", 4, 1, True), 2)
    plan = tmp_path / "plan.md"
    plan.write_text("# Plan\n", encoding="utf-8")
    append_to_plan(plan, grew)
    append_to_plan(plan, grew)  # a resumed autotune does not add it twice
    text = plan.read_text(encoding="utf-8")
    assert text.count("## Autotune changed the effective batch") == 1
    assert "= 2 samples per optimizer step" in text and "= 8, because" in text and "4x" in text
