"""What the Monitor, `status` and run-summary.md say after launch is what the trainer did (#30.8):
a NaN loss reads as NaN and the last finite checkpoint is the one offered; a resume says what the
found training state restores; the resume step's earlier samples are kept; a finished run's
"raise the steps, then resume" works; pace and ETA come from the trainer's own projection when
every printed step is a checkpoint step; OOM advice starts from what config.yaml already has."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ltx_wizard.cli import main
from ltx_wizard.core.monitor.report import block, pace_line
from ltx_wizard.core.monitor.resume import apply_resume, plan_resume
from ltx_wizard.core.monitor.status import RunMonitor
from ltx_wizard.core.monitor.summary import ensure_summary, render_summary
from tests.monitor_runs import end, make_run, sample_log, start_live
from tests.core.monitor.test_monitor_log import record, step_line
from tests.demo.sim.test_sim_trainer import run_sim, trial_config

LOW_VRAM = {  # what t2v_lora_low_vram.yaml ships (seeds/vram-tiers.md, the 32GB tier)
    "  optimizer_type: adamw\n": "  optimizer_type: adamw8bit\n",
    "  mixed_precision_mode: bf16\n": "  mixed_precision_mode: bf16\n  quantization: int8-quanto\n",
    "rank: 32": "rank: 16\n  alpha: 16",
}


def no_gpus(_visible):
    return [], None


def edit(path: Path, changes: dict[str, str]) -> None:
    text = path.read_text()
    for old, new in changes.items():
        assert old in text, old
        text = text.replace(old, new, 1)
    path.write_text(text)


def status_of(run: Path):
    return RunMonitor(run, gpu_reader=no_gpus).status()


# -- NaN ---------------------------------------------------------------------------------------


def test_a_nan_run_reads_as_nan_and_offers_the_last_finite_checkpoint(tmp_path, capsys):
    # nan_loss.txt: finite at step 20, NaN at step 40, the trainer goes on and saves step 50
    run = make_run(tmp_path, sample_log("nan_loss"), checkpoints=((20, True), (50, True)))
    status = status_of(run)
    assert status.state == "finished" and status.nan_step == 40
    text = "\n".join(block(status))
    assert "loss ~NaN" in text and "NaN since step 40 (last finite: 0.2437 at step 20)" in text
    assert "lora_weights_step_00020.safetensors (step 20)" in text.split("Last one saved while")[1]
    assert "Resume from the last finite checkpoint (step 20), after the fix" in text
    assert "Train longer" not in text
    summary = render_summary(status)
    assert "0.2437 at step 20 → NaN from step 40 to the end" in summary
    assert "0.2437 at the end" not in summary  # the old report: the last finite loss as the end
    assert "saved after the loss turned NaN" in summary and "do not use it" in summary
    finite = str(run / "outputs/checkpoints/lora_weights_step_00020.safetensors")
    continue_part = summary.split("## How to continue training")[1]
    assert f"load_checkpoint: {finite}" in continue_part
    assert "00050" not in continue_part  # the all-NaN checkpoint is offered nowhere
    assert f"--lora {finite}" in summary.split("## Render with it")[1]
    assert main(["status", "--json", str(run)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["recent_losses"][-1] is None and doc["loss_nan_since_step"] == 40
    assert doc["usable_checkpoint"] == finite


def test_a_nan_run_resumes_from_the_last_finite_checkpoint(tmp_path):
    run = make_run(
        tmp_path, sample_log("nan_loss"), steps=100, checkpoints=((20, True), (40, True), (50, True))
    )
    status = status_of(run)
    assert status.resumable and status.usable_checkpoint.step == 20
    plan = plan_resume(run, upto_step=status.usable_checkpoint.step)
    assert plan.checkpoint.step == 20 and plan.start_step == 20
    # counting on from 20 the trainer saves 40 again: the resumed run goes elsewhere
    assert "lora_weights_step_00040.safetensors" in plan.would_overwrite
    assert plan.changes["output_dir"].endswith("outputs-resumed-from-20")


def test_no_finite_checkpoint_means_no_resume_and_no_render_line(tmp_path):
    run = make_run(tmp_path, sample_log("nan_loss"), checkpoints=((50, True),))
    status = status_of(run)
    assert not status.resumable and status.usable_checkpoint is None
    summary = render_summary(status)
    assert "No checkpoint was saved while the loss was finite" in summary
    assert "## Render with it" not in summary and "## How to continue" not in summary


# -- what a resume restores ------------------------------------------------------------------


def _saved_config(run: Path, extra: str = "") -> None:
    """<output_dir>/training_config.yaml as trainer.py _save_config writes it at each start."""
    (run / "outputs" / "training_config.yaml").write_text((run / "config.yaml").read_text() + extra)


def test_a_minimal_state_is_said_to_leave_the_optimizer_out(tmp_path):
    run = make_run(tmp_path, "", steps=100, checkpoints=((40, True),))
    _saved_config(run)  # no save_training_state: the trainer's default, "minimal"
    sentence = plan_resume(run).sentence()
    assert "optimizer, scheduler, step" not in sentence  # the old, untrue claim
    assert "not the optimizer state (checkpoints.save_training_state is minimal)" in sentence
    assert "learning rate starts again from optimization.learning_rate" in sentence
    assert "LinearLR" in sentence and "save_training_state: full" in sentence


def test_a_full_state_is_said_to_restore_the_optimizer(tmp_path):
    run = make_run(tmp_path, "", steps=100, checkpoints=((40, True),))
    _saved_config(run)
    edit(
        run / "outputs" / "training_config.yaml",
        {"checkpoints:\n": "checkpoints:\n  save_training_state: full\n"},
    )
    sentence = plan_resume(run).sentence()
    assert "and the optimizer state (AdamW's moments)" in sentence
    assert "not the optimizer" not in sentence


def test_fsdp_saves_a_minimal_state_whatever_the_setting(tmp_path):
    run = make_run(tmp_path, "", steps=100, checkpoints=((40, True),))
    edit(
        run / "config.yaml",
        {
            "training_mode: lora": "training_mode: full",
            "checkpoints:\n": "checkpoints:\n  save_training_state: full\n",
        },
    )
    _saved_config(run)
    (run / "run.json").write_text('{"num_gpus": 4, "nodes": 1}')
    sentence = plan_resume(run).sentence()
    assert "not the optimizer state (FSDP saves it so whatever the setting)" in sentence
    assert "the random state" not in sentence  # 4 processes: the trainer skips the RNG restore


# -- the resume step's samples ----------------------------------------------------------------


def test_the_earlier_samples_of_the_resume_step_are_moved_aside_not_overwritten(tmp_path):
    run = make_run(tmp_path, "", steps=100, val_interval=20, checkpoints=((40, True),), samples=(20, 40))
    plan = plan_resume(run)
    samples = run / "outputs" / "samples"
    assert [p.name for p in plan.samples_aside] == ["step_000040_1.mp4"]
    assert (
        "validates again at step 40 first, writing over the earlier run's sample of that step "
        "(step_000040_1.mp4): it is moved to samples/kept-before-resume/ first"
    ) in plan.sentence()
    _, aside = apply_resume(run, plan)
    assert aside == samples / "kept-before-resume"
    assert (aside / "step_000040_1.mp4").read_bytes() == b"mp4"
    assert sorted(p.name for p in samples.iterdir()) == ["kept-before-resume", "step_000020_1.mp4"]


def test_no_initial_validation_moves_nothing(tmp_path):
    run = make_run(tmp_path, "", steps=100, val_interval=20, checkpoints=((40, True),), samples=(40,))
    edit(run / "config.yaml", {"validation:\n": "validation:\n  skip_initial_validation: true\n"})
    assert plan_resume(run).samples_aside == []


def test_a_resumed_simulated_run_keeps_the_earlier_samples_of_its_first_step(tmp_path):
    config = trial_config(
        tmp_path,
        **{
            "interval: null\n  keep_last_n": "interval: 20\n  keep_last_n",
            "interval: 50\n  video_cfg_scale": "interval: 20\n  video_cfg_scale",
        },
    )
    config.write_text(config.read_text().replace("steps: 50", "steps: 40"))
    code, _, out = run_sim(config)
    assert code == 0, out
    samples = tmp_path / "out" / "samples"
    earlier = {p.name: p.stat().st_ino for p in samples.iterdir() if p.name.startswith("step_000040_")}
    assert earlier, out
    config.write_text(config.read_text().replace("steps: 40", "steps: 80"))
    plan = plan_resume(tmp_path)
    _, aside = apply_resume(tmp_path, plan)
    code, _, out = run_sim(tmp_path / "config.yaml")
    assert code == 0, out
    assert "Validation samples for step 40 saved" in out  # the resumed run's first validation
    assert {p.name: p.stat().st_ino for p in aside.iterdir()} == earlier  # the same files
    assert all((samples / name).exists() for name in earlier)  # and the new ones beside


# -- a finished run trains longer -------------------------------------------------------------


def test_a_finished_runs_advice_to_raise_the_steps_and_resume_works(tmp_path):
    run = make_run(tmp_path, sample_log("ok_single_gpu_cols250"), checkpoints=((50, True),))
    status = status_of(run)
    assert status.state == "finished" and status.resumable
    summary = render_summary(status)
    assert "Raise `optimization.steps` in config.yaml, then resume" in summary
    assert "Train longer: raise optimization.steps in config.yaml (now 50)" in "\n".join(block(status))
    edit(run / "config.yaml", {"steps: 50": "steps: 80"})
    plan = plan_resume(run)
    assert (plan.start_step, plan.total_steps) == (50, 80)


# -- pace and ETA -----------------------------------------------------------------------------


def test_pace_and_eta_come_from_the_trainers_projection_when_every_step_line_is_busy(tmp_path):
    # checkpoints.interval 20: every printed step saved a checkpoint just before its line
    lines = []
    for step in range(20, 201, 20):
        lines.append(
            record(
                f"💾 Lora weights for step {step} saved in "
                f"checkpoints/lora_weights_step_{step:05d}.safetensors",
                "trainer.py:981",
            )
        )
        lines.append(step_line(step, total=2000, secs=3.0, projection="1h 40m"))
    run = make_run(tmp_path, "".join(lines), steps=2000, ck_interval=20)
    proc = start_live(run)
    try:
        status = status_of(run)
    finally:
        end(proc)
    assert status.s_per_step == pytest.approx(6030 / 2000)  # 1h 40m, taken mid-minute
    assert status.eta_s == pytest.approx(6030 * (2000 - 200) / 2000)
    line = pace_line(status)
    assert line.startswith("ETA: ~1h 30m (the trainer's own projection)")
    assert "the trainer's average over this launch" in line


def test_a_resumed_launch_projects_only_its_own_steps(tmp_path):
    log = (
        record("🚀 Resuming training from step 1000 → 2000", "trainer.py:189")
        + step_line(1020, total=2000, secs=3.0, projection="0h 50m")
        + step_line(1040, total=2000, secs=3.0, projection="0h 50m")
    )
    run = make_run(tmp_path, log, steps=2000, ck_interval=20)
    proc = start_live(run)
    try:
        status = status_of(run)
    finally:
        end(proc)
    # 50 minutes (+30 s) for the 1000 steps this launch runs; 960 left
    assert status.eta_s == pytest.approx(3030 * 960 / 1000)


# -- OOM advice from config.yaml's state ------------------------------------------------------


def test_oom_advice_on_the_low_vram_tier_starts_from_what_the_config_has(tmp_path):
    run = make_run(tmp_path, sample_log("oom_cols80"))
    edit(run / "config.yaml", LOW_VRAM)
    d = status_of(run).diagnosis
    assert d.kind == "oom"
    assert d.advice == [
        "lora.rank 16 → 8, lora.alpha 16 → 8",
        "a lower resolution: the data is encoded at its bucket, so plan a new run with a smaller "
        "--resolution-buckets (the dataset is encoded again: the costly one)",
        "config.yaml has these already: gradient checkpointing on, batch_size 1 (more accumulation "
        "keeps the effective batch), optimizer adamw8bit, quantization int8-quanto",
    ]
    assert d.changes == {"lora.rank": 8, "lora.alpha": 8}


def test_a_rank_fix_keeps_the_earlier_checkpoints_and_clears_the_load(tmp_path):
    from ltx_wizard.core.monitor.fix import apply_fix, plan_fix

    run = make_run(tmp_path, sample_log("oom_cols80"), checkpoints=((20, True),))
    edit(run / "config.yaml", {**LOW_VRAM, "load_checkpoint: null": "load_checkpoint: /x/a.safetensors"})
    d = status_of(run).diagnosis
    plan = plan_fix(run, d.changes)
    assert plan.changes["model.load_checkpoint"] is None
    assert plan.changes["output_dir"] == str(run / "outputs-rank-8")
    assert "cannot load the checkpoints trained at rank 16" in " ".join(plan.notes)
    backup = apply_fix(run, plan)
    assert backup.name == "config.before-fix.yaml"
    text = (run / "config.yaml").read_text()
    assert "rank: 8" in text and "outputs-rank-8" in text
    assert (run / "outputs/checkpoints/lora_weights_step_00020.safetensors").exists()


def test_at_rank_8_only_the_resolution_is_left_and_no_diff_pretends_otherwise(tmp_path):
    run = make_run(tmp_path, sample_log("oom_cols80"))
    edit(run / "config.yaml", {**LOW_VRAM, "rank: 16\n  alpha: 16": "rank: 8"})
    d = status_of(run).diagnosis
    assert d.changes == {} and d.advice[0].startswith("a lower resolution")
    assert "lora.rank" not in d.advice[0] and "a smaller lora.rank" in d.advice[1]


def test_the_summary_is_written_once_the_run_finished(tmp_path):
    run = make_run(tmp_path, sample_log("nan_loss"), checkpoints=((20, True), (50, True)))
    written = ensure_summary(status_of(run))
    assert written == run / "run-summary.md" and "NaN" in written.read_text()


def test_run_summary_duration_says_which_launches_its_minutes_come_from(tmp_path):
    # issue 41: "165.4 minutes of training over 2 launches" was the second launch alone: the
    # first was stopped before the trainer printed its statistics
    from tests.monitor_runs import MARKER

    finished = sample_log("ok_single_gpu_cols250")
    stopped = finished.split("INFO     🎥 Validation samples for step 50")[0]
    run = make_run(tmp_path, None, checkpoints=((50, True),))
    log = MARKER.format(pid=1) + stopped + MARKER.format(pid=2) + finished
    (run / "logs" / "train.log").write_text(log, encoding="utf-8")
    status = RunMonitor(run).status(gpus=False)
    assert status.earlier_minutes == (None,) and status.train_minutes == 1.9
    text = render_summary(status)
    duration = next(line for line in text.splitlines() if line.startswith("**Duration:**"))
    assert duration == (
        "**Duration:** 1.9 minutes of training in the last of 2 launches (the trainer's figure); "
        "1 launch stopped before printing its time, not counted"
    )
