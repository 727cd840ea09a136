"""Resume loses nothing: the plan mirrors the trainer's resume rules, and a resumed run (the
simulated trainer, which numbers and saves as the real one) never overwrites a checkpoint."""

from __future__ import annotations

from pathlib import Path

import pytest

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.monitor.resume import apply_resume, plan_resume, writes_step
from tests.monitor_runs import make_run
from tests.demo.sim.test_sim_trainer import run_sim, trial_config


def snapshot(folder: Path) -> dict[str, tuple[int, bytes]]:
    """Every file with its inode and content: an overwrite changes one or the other."""
    return {p.name: (p.stat().st_ino, p.read_bytes()) for p in sorted(folder.iterdir())}


def test_full_resume_patches_only_load_checkpoint(tmp_path):
    run = make_run(tmp_path, "", steps=100, checkpoints=((20, True), (40, True)))
    plan = plan_resume(run)
    assert plan.start_step == 40 and plan.weights_only_reason is None
    assert plan.changes == {
        "model.load_checkpoint": str(run / "outputs/checkpoints/lora_weights_step_00040.safetensors")
    }
    assert "training_state_step_00040.pt" in plan.sentence()
    assert "+  load_checkpoint:" in plan.diff and "-  load_checkpoint: null" in plan.diff


def test_weights_only_resume_gets_a_new_output_dir_instead_of_overwriting(tmp_path):
    run = make_run(tmp_path, "", steps=100, checkpoints=((20, True), (40, False)))
    plan = plan_resume(run)
    assert plan.start_step == 0 and "no training_state_step_00040.pt" in plan.weights_only_reason
    # counting from 0 again, the trainer would write step 20 and 40 over the saved ones
    assert "lora_weights_step_00020.safetensors" in plan.would_overwrite
    assert plan.changes["output_dir"] == str(run / "outputs-resumed-from-40")
    assert "Weights only" in plan.sentence() and "instead" in plan.sentence()


@pytest.mark.parametrize(
    "edit, reason",
    [
        ("checkpoints:\n", "checkpoints:\n  no_resume: true\n"),
        ("optimizer_type: adamw", "optimizer_type: adamw8bit"),
    ],
)
def test_no_resume_or_a_changed_fingerprint_means_weights_only(tmp_path, edit, reason):
    run = make_run(tmp_path, "", steps=100, checkpoints=((40, True),))
    (run / "outputs" / "training_config.yaml").write_text(
        (run / "config.yaml").read_text()
    )  # what the trainer saved when it started
    config = run / "config.yaml"
    config.write_text(config.read_text().replace(edit, reason, 1))
    plan = plan_resume(run)
    assert plan.start_step == 0 and plan.weights_only_reason
    assert "output_dir" in plan.changes  # step 40 would be written again


def test_a_changed_lora_rank_is_refused_the_weights_would_not_load(tmp_path):
    # trainer.py _load_checkpoint puts the saved LoRA into one of the configured rank: it fails
    run = make_run(tmp_path, "", steps=100, checkpoints=((40, True),))
    (run / "outputs" / "training_config.yaml").write_text((run / "config.yaml").read_text())
    config = run / "config.yaml"
    config.write_text(config.read_text().replace("rank: 32", "rank: 16", 1))
    with pytest.raises(UsageError, match="cannot load them into a LoRA of another rank"):
        plan_resume(run)


def test_a_run_at_its_last_step_is_not_resumed(tmp_path):
    run = make_run(tmp_path, "", steps=40, checkpoints=((40, True),))
    with pytest.raises(UsageError, match="raise optimization.steps"):
        plan_resume(run)


def test_no_checkpoint_no_resume(tmp_path):
    with pytest.raises(UsageError, match="no checkpoint"):
        plan_resume(make_run(tmp_path, ""))


def test_apply_keeps_the_old_config_and_refuses_a_changed_one(tmp_path):
    run = make_run(tmp_path, "", steps=100, checkpoints=((40, True),))
    before = (run / "config.yaml").read_text()
    plan = plan_resume(run)
    (run / "config.yaml").write_text(before + "seed: 7\n")  # edited meanwhile
    with pytest.raises(UsageError, match="changed since"):
        apply_resume(run, plan)
    (run / "config.yaml").write_text(before)
    backup, _ = apply_resume(run, plan)
    assert backup == run / "config.before-resume.yaml" and backup.read_text() == before
    assert "lora_weights_step_00040.safetensors" in (run / "config.yaml").read_text()


def test_the_steps_a_resumed_run_saves_mirror_the_trainer(tmp_path):
    # trainer.py train(): a save every checkpoints.interval steps after the start, and at the end
    saved = [s for s in range(0, 100) if writes_step(s, 40, 70, 20)]
    assert saved == [60, 70]
    assert [s for s in range(0, 100) if writes_step(s, 40, 70, None)] == [70]
    assert writes_step(10**30, 0, 10**31, 20)  # arithmetic, whatever the step count


def _sim_run(tmp_path: Path) -> tuple[Path, Path]:
    """A simulated 40-step run with a checkpoint every 20 steps, then 80 steps asked for."""
    config = trial_config(
        tmp_path,
        **{"interval: null\n  keep_last_n": "interval: 20\n  keep_last_n"},
    )
    config.write_text(config.read_text().replace("steps: 50", "steps: 40"))
    code, _, out = run_sim(config)
    assert code == 0, out
    config.write_text(config.read_text().replace("steps: 40", "steps: 80"))
    return tmp_path, tmp_path / "out" / "checkpoints"


def test_resumed_simulated_run_continues_its_step_numbers_and_overwrites_nothing(tmp_path):
    run, checkpoints = _sim_run(tmp_path)
    before = snapshot(checkpoints)
    assert {"lora_weights_step_00020.safetensors", "training_state_step_00040.pt"} <= set(before)
    plan = plan_resume(run)
    assert plan.start_step == 40 and not plan.would_overwrite
    apply_resume(run, plan)
    code, _, out = run_sim(run / "config.yaml")
    assert code == 0, out
    assert "Resuming training from step 40 → 80" in out
    after = snapshot(checkpoints)
    assert all(after[name] == before[name] for name in before)  # nothing rewritten
    assert "lora_weights_step_00080.safetensors" in after


def test_weights_only_simulated_resume_writes_elsewhere_and_overwrites_nothing(tmp_path):
    run, checkpoints = _sim_run(tmp_path)
    (checkpoints / "training_state_step_00040.pt").unlink()
    before = snapshot(checkpoints)
    plan = plan_resume(run)
    assert plan.start_step == 0 and plan.would_overwrite
    apply_resume(run, plan)
    code, _, out = run_sim(run / "config.yaml")
    assert code == 0, out
    assert snapshot(checkpoints) == before  # the old folder is untouched
    fresh = Path(plan.changes["output_dir"]) / "checkpoints"
    assert "lora_weights_step_00020.safetensors" in snapshot(fresh)
