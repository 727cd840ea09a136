"""Trials measure training only; the confirmation validates the winner; the cost model's phases."""

from __future__ import annotations

import asyncio
from pathlib import Path

from ruamel.yaml import YAML

from ltx_wizard.core.gpu.assessment import assess
from ltx_wizard.core.autotune.sweep import engine as engine_mod
from ltx_wizard.core.autotune.sweep.engine import AutotuneEngine
from ltx_wizard.core.autotune.events import ConfirmationFinished
from ltx_wizard.core.tuning.results import Confirmation, TrialResult
from ltx_wizard.core.tuning.trial_config import (
    CONFIRM_INFERENCE_STEPS,
    CONFIRM_STEPS,
    FUSED_STEPS,
    TRIAL_STEPS,
    confirmation_config_text,
    trial_config_text,
)
from ltx_wizard.core.gpu.presets import simulated_probe
from ltx_wizard.demo.lookalike_checkout import LOW_VRAM_TEXT, STANDARD_TEXT
from ltx_wizard.demo.sim import cost_model as cost
from ltx_wizard.demo.sim.stand_in import SimulatedTrainer
from tests.core.autotune.test_autotune_engine import plan_run
from tests.demo.sim.test_sim_trainer import run_sim, trial_config


def _legacy(text: str) -> str:
    """The same config with the deprecated `prompts:` list in place of `samples:`."""
    start = text.index("  samples:\n")
    end = text.index("  negative_prompt:")
    first = YAML(typ="safe", pure=True).load(text)["validation"]["samples"][0]["prompt"]
    return text[:start] + f"  prompts:  # the deprecated form\n    - {first!r}\n" + text[end:]


LEGACY = _legacy(STANDARD_TEXT)
FIRST = YAML(typ="safe", pure=True).load(LOW_VRAM_TEXT)["validation"]["samples"][0]


def plain(text: str) -> dict:
    return YAML(typ="safe", pure=True).load(text)


def real_trainer_decides(cfg: dict) -> tuple[bool, bool]:
    """(loads the text encoder, validates) as ltx_trainer decides it from the config:
    ValidationConfig.convert_legacy_format fills samples from prompts when samples is empty;
    ValidationRunner._cache_prompt_embeddings loads Gemma only with prompts; LtxvTrainer.train
    validates only with an interval, and _run_validation does nothing without samples."""
    val = cfg.get("validation") or {}
    samples = val.get("samples") or [{"prompt": p} for p in val.get("prompts") or []]
    return bool(samples), bool(samples) and bool(val.get("interval"))


def test_a_trial_config_never_loads_the_text_encoder_nor_validates(tmp_path):
    for planned in (STANDARD_TEXT, LOW_VRAM_TEXT, LEGACY):
        assert real_trainer_decides(plain(planned)) == (True, True)
        cfg = plain(trial_config_text(planned, {"optimization.batch_size": 2}, tmp_path, tmp_path))
        assert real_trainer_decides(cfg) == (False, False)
        assert cfg["optimization"]["steps"] == TRIAL_STEPS == 40  # step lines at 20 and 40
        assert cfg["validation"]["generate_video"] is False  # no VAE decoder built either


def test_the_simulated_trainer_skips_gemma_and_validation_for_a_trial(tmp_path):
    config = trial_config(tmp_path)
    text = trial_config_text(config.read_text(), {}, tmp_path / "data", tmp_path / "out")
    config.write_text(text)
    code, _, out = run_sim(config)
    assert code == 0, out
    assert "Loading text encoder" not in out and "Validation samples" not in out
    assert "Step 40/40" in out and not (tmp_path / "out" / "samples").exists()


def test_confirmation_uses_the_configs_own_validation_with_one_prompt():
    cfg = plain(
        confirmation_config_text(LOW_VRAM_TEXT, {"optimization.batch_size": 2}, Path("/sub"), Path("/out"))
    )
    val = cfg["validation"]
    assert val["samples"] == [dict(FIRST)] and len(plain(LOW_VRAM_TEXT)["validation"]["samples"]) > 1
    assert val["video_dims"] == [576, 576, 89] and val["inference_steps"] == CONFIRM_INFERENCE_STEPS
    assert val["interval"] == cfg["optimization"]["steps"] == CONFIRM_STEPS
    assert (
        cfg["optimization"]["batch_size"] == 2 and cfg["acceleration"]["offload_optimizer_during_validation"]
    )
    fused = plain(confirmation_config_text(LEGACY, {}, Path("/sub"), Path("/out"), fused=True))
    assert fused["validation"]["prompts"] == plain(LEGACY)["validation"]["prompts"][:1]
    assert fused["validation"]["interval"] == fused["optimization"]["steps"] == FUSED_STEPS
    assert FUSED_STEPS > TRIAL_STEPS  # validation comes after the step-40 reading


def test_cost_model_phases_follow_the_config():
    std, trial = plain(STANDARD_TEXT), plain(trial_config_text(STANDARD_TEXT, {}, Path("/s"), Path("/o")))
    assert cost.text_encoder_s(std) > 0 and cost.text_encoder_s(trial) == 0
    low = plain(LOW_VRAM_TEXT)
    assert cost.quantization_s(low) > 0 and cost.quantization_s(std) == 0
    h100 = "NVIDIA H100 80GB HBM3"
    one = cost.validation_video_s(std, h100)
    std["validation"]["video_dims"] = [576, 576, 49]
    assert cost.validation_video_s(std, h100) < one  # fewer latent frames
    std["validation"]["inference_steps"] = 4
    assert cost.validation_video_s(std, h100) < one / 3
    # two samples over 8 ranks: one video each on two ranks, the round takes one video's time
    assert cost.validation_round_s(std, h100, 8) == cost.validation_video_s(std, h100)
    assert cost.validation_round_s(std, h100, 1) == 2 * cost.validation_video_s(std, h100)


def _fake_runs(monkeypatch, confirm_outcome):
    """Trials succeed (batch faster per sample); confirmations answer `confirm_outcome(changes)`."""

    async def run(self, cand, config_path, output_dir, log_path=None, kind="trial", ahead_of=None):
        batch = cand.settings.batch_size if cand.settings else 1
        step = {1: 2.0, 2: 3.0, 4: 5.0}[batch]
        if cand.stage == "checkpointing":
            return TrialResult(index=cand.index, change=cand.change, changes=cand.changes, outcome="oom")
        if kind != "trial":
            outcome = confirm_outcome(cand.config_changes)
            self.last_confirmation = Confirmation(
                trial=cand.index,
                outcome=outcome,
                peak_vram_gb=70.0,
                reason=outcome,
                changes=dict(cand.config_changes),
            )
        return TrialResult(
            index=cand.index,
            change=cand.change,
            changes=cand.changes,
            outcome="ok",
            step_time_s=step,
            peak_vram_gb=50.0 + batch,
        )

    monkeypatch.setattr(engine_mod.TrialRunner, "run", run)


def _autotune(run_dir: Path, preset: str, events: list, **options):
    probe = simulated_probe(preset)
    engine = AutotuneEngine(
        run_dir,
        probe=probe,
        assessment=assess(probe),
        stand_in=SimulatedTrainer(preset),
        on_event=events.append,
        **options,
    )
    return asyncio.run(engine.run())


def test_failed_confirmation_falls_back_to_the_previous_best(tmp_path, monkeypatch):
    run_dir = plan_run(tmp_path, "h100", samples=4)
    _fake_runs(monkeypatch, lambda ch: "oom" if ch.get("optimization.batch_size") == 4 else "ok")
    events: list = []
    summary = _autotune(run_dir, "h100", events, allow_batch_change=True)
    assert [c.outcome for c in summary.confirmations] == ["oom", "ok"]
    assert summary.winner_changes["optimization.batch_size"] == 2
    assert "batch_size: 2" in (run_dir / "config.yaml").read_text()
    assert "fell back to trial" in summary.stop_reason
    plan = (run_dir / "plan.md").read_text()  # accumulation was already 1: steps are halved
    assert "`optimization.steps` 2000 -> 1000 keeps the samples seen" in plan
    assert "steps: 1000" in (run_dir / "config.yaml").read_text()
    assert summary.contract_json()["confirmation"] == {"outcome": "ok", "peak_vram_gb": 70.0, "reason": "ok"}
    assert sum(isinstance(e, ConfirmationFinished) for e in events) == 2
    log = (run_dir / "autotune.log").read_text()
    assert log.count("confirm  trial") >= 2 and '"kind": "confirmation"' in log


def test_resume_reuses_a_logged_confirmation(tmp_path, monkeypatch):
    run_dir = plan_run(tmp_path, "h100", samples=4)
    _fake_runs(monkeypatch, lambda ch: "ok")
    planned = (run_dir / "config.yaml").read_text()
    summary = _autotune(run_dir, "h100", [])
    assert summary.confirmation.outcome == "ok"
    log = run_dir / "autotune.log"
    text = log.read_text()
    # interrupted after the confirmation: no summary yet, config.yaml not yet patched
    log.write_text(text[: text.index("\n== autotune summary ==")] + "\n")
    (run_dir / "config.yaml").write_text(planned)
    calls = []
    _fake_runs(monkeypatch, lambda ch: calls.append(ch) or "ok")
    again = _autotune(run_dir, "h100", [])
    assert calls == [] and again.confirmation.outcome == "ok" and again.winner == summary.winner


def test_parallel_trials_keep_the_decision_order(tmp_path, monkeypatch):
    run_dir = plan_run(tmp_path, "8xh100", samples=32)
    sequential_dir = plan_run(tmp_path / "seq", "h100", samples=4)
    finished: list[int] = []

    async def run(self, cand, config_path, output_dir, log_path=None, kind="trial", ahead_of=None):
        batch = cand.settings.batch_size if cand.settings else 1
        if kind == "trial" and cand.stage == "baseline":
            # the baseline ends last: the guesses ahead of it finish first
            while len(finished) < 2:
                await asyncio.sleep(0)
        finished.append(cand.index)
        if kind != "trial":
            self.last_confirmation = Confirmation(
                trial=cand.index, outcome="ok", peak_vram_gb=60.0, changes=dict(cand.config_changes)
            )
        if cand.stage == "checkpointing":
            return TrialResult(index=cand.index, change=cand.change, changes=cand.changes, outcome="oom")
        return TrialResult(
            index=cand.index,
            change=cand.change,
            changes=cand.changes,
            outcome="ok",
            step_time_s={1: 2.0, 2: 3.0, 4: 5.0}[batch],
            peak_vram_gb=50.0 + batch,
        )

    monkeypatch.setattr(engine_mod.TrialRunner, "run", run)
    parallel = _autotune(run_dir, "8xh100", [], allow_batch_change=True)  # guesses to run ahead
    finished.clear()
    finished.extend([0, 0])  # the sequential run waits for nothing
    sequential = _autotune(sequential_dir, "h100", [], allow_batch_change=True)
    order = [(t.change, t.outcome, t.kept) for t in parallel.trials]
    assert order == [(t.change, t.outcome, t.kept) for t in sequential.trials]
    assert parallel.winner_changes == sequential.winner_changes
    assert parallel.confirmation.gpus == 8 and sequential.confirmation.gpus == 1
    assert "side by side" in (run_dir / "autotune.log").read_text()


def test_folded_prompts_are_replaced_and_the_comment_after_them_stays(tmp_path):
    folded = STANDARD_TEXT.replace("  negative_prompt:", "  # Negative prompt below\n  negative_prompt:", 1)
    start = folded.index("  samples:\n")
    folded = (
        folded[:start] + "  samples:\n    - prompt: >-\n        A long prompt folded\n"
        "        over two lines.\n\n" + folded[folded.index("  # Negative prompt below") :]
    )
    assert plain(folded)["validation"]["samples"] == [{"prompt": "A long prompt folded over two lines."}]
    text = trial_config_text(folded, {}, tmp_path, tmp_path)
    assert "  samples: []\n\n  # Negative prompt below\n" in text
    confirm = plain(confirmation_config_text(folded, {}, tmp_path, tmp_path))
    assert confirm["validation"]["samples"] == [{"prompt": "A long prompt folded over two lines."}]


def test_side_by_side_trials_only_for_a_lora_on_several_gpus_and_as_host_ram_allows():
    from ltx_wizard.core.autotune.trials.side_by_side import trial_slots

    assert trial_slots(8, 8, "lora", 22e9, 2048.0) == list(range(8))
    assert trial_slots(8, 8, "lora", 22e9, 200.0) == [0, 1, 2, 3]  # 49 GB per trial on the host
    assert trial_slots(8, 8, "lora", 22e9, 30.0) == [0]  # one at a time, still on one GPU
    assert trial_slots(8, 8, "full", 22e9, 2048.0) == []  # FSDP over all GPUs: the plan's launch
    assert trial_slots(1, 1, "lora", 22e9, 2048.0) == []
