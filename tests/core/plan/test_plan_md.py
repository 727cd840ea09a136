"""plan.md: every section of the skill's plan, in order, in plain words."""

from __future__ import annotations

from ltx_wizard.demo.lookalike_checkout import LOW_VRAM_TEXT, STANDARD_TEXT
from ltx_wizard.core.plan.plan_md import render_plan
from ltx_wizard.core.plan.record import DataRecord, PlanRecord, Schedule
from ltx_wizard.core.plan.plan_request import PlanRequest
from ltx_wizard.core.gpu.tiers import Tier

SECTIONS = [
    "## Goal",
    "## Mode",
    "## Dataset",
    "## Training config",
    "## Hardware",
    "## Sanity check and autotune",
    "## Outputs",
    "## Assumptions",
    "## Cost and time",
    "## Config changes vs the shipped file",
]


def content(*, config=STANDARD_TEXT, num_gpus=2, tier=Tier.T80, diff_from=None, **over) -> PlanRecord:
    """A plan record as `plan` writes it; `diff_from`: the shipped text the diff is against."""
    shipped = diff_from if diff_from is not None else config.replace("steps: 2000", "steps: 1999")
    base = dict(
        run_name="t2v-cats-20250101-0000",
        run_dir="/w/t2v-cats-20250101-0000",
        request=PlanRequest(),
        tier=tier.value,
        per_gpu_vram_gb=80,
        gpu_lines=("0: NVIDIA H100 80GB HBM3 (80 GB)", "1: NVIDIA H100 80GB HBM3 (80 GB)"),
        recipe="t2v_lora",
        training_mode="lora",
        base_config="t2v_lora.yaml",
        base_path="/c/configs/t2v_lora.yaml",
        base_text=shipped,
        config_text=config,
        data=DataRecord(
            root="/d/cats/.precomputed", name="cats", folders=("latents", "conditions"), samples=12
        ),
        schedule=Schedule(
            steps=2000, batch_size=1, accumulation=1, effective_batch=num_gpus, num_gpus=num_gpus
        ),
        launch_line="cd /c/packages/ltx-trainer && uv run accelerate launch --num_processes 2 x",
        launch_style="ddp",
        assumptions=("Run name chosen automatically.",),
    )
    base.update(over)
    return PlanRecord(**base)


def test_all_sections_in_order():
    text = render_plan(content())
    positions = [text.index(s) for s in SECTIONS]
    assert positions == sorted(positions)
    assert text.rstrip().endswith(
        "Nothing heavy (sanity check, autotune, training) starts before you approve this plan."
    )


def test_facts_the_user_checks():
    text = render_plan(content())
    assert "`/d/cats/.precomputed`: 12 preprocessed samples." in text
    assert "| LoRA rank | `32` |" in text and "| Quantization | `null` |" in text
    assert "| Validation video (W, H, frames) | `[576, 576, 89]` |" in text
    assert "| Effective batch | 2 (batch x accumulation x 2 GPUs) |" in text
    assert "**80GB+ tier** (80 GB per GPU)" in text and "DDP across 2 GPUs" in text
    assert "uv run accelerate launch --num_processes 2" in text
    assert "Training duration: not measured yet; autotune estimates it" in text
    assert "gradient checkpointing off" in text  # the 80GB+ tier's only real lever
    assert "\n-  steps: 1999\n+  steps: 2000\n" in text and "```diff\n--- t2v_lora.yaml\n" in text
    assert "At your own risk" not in text


def test_low_vram_tier_words_and_risk_banner():
    text = render_plan(
        content(
            tier=Tier.BELOW_MINIMUM,
            per_gpu_vram_gb=24,
            config=LOW_VRAM_TEXT,
            base_config="t2v_lora_low_vram.yaml",
            num_gpus=1,
            launch_style="single",
            risks=("24 GB per GPU is below the trainer's 32 GB minimum.",),
        )
    )
    assert text.splitlines()[2].startswith("> **At your own risk:** 24 GB per GPU")
    assert "- 24 GB per GPU is below" in text.split("## Assumptions")[1]
    assert "| Quantization | `int8-quanto` |" in text
    assert "- Launch (one GPU):" in text and "GPU time: that duration x 1 GPU;" in text
    assert "may run out of memory" in text


def test_40_60_tier_explains_the_low_vram_start():
    text = render_plan(content(tier=Tier.T40_60, per_gpu_vram_gb=48))
    assert "40–60GB tier" in text and "low-VRAM file is the safe start" in text


def test_the_sanity_check_claims_only_what_a_trial_checks():
    text = render_plan(content())
    # the trainer prints the loss when the step is a multiple of 20 (trainer.py), so a 40-step
    # trial shows two losses
    assert "the loss is finite where the trainer prints it (at steps 20 and 40)" in text
    assert "Step time is measured between the arrival of its step lines" in text
    assert "`logs/trial-N.log`" in text and "checkpoints are deleted once it is recorded" in text
    assert "validation and the text encoder off" in text and "one confirmation run" in text
    assert "the loss stays finite" not in text and "on one sample" not in text


def test_the_autotune_section_names_what_the_engine_runs_on_the_tier():
    # plan.md once said gradient checkpointing was the only 80GB+ lever "then batch size", and a
    # keep rule the engine no longer used; its words now come from the engine's rules.
    text = render_plan(content(tier=Tier.T80))
    section = text.split("## Sanity check and autotune")[1].split("## Outputs")[0]
    assert "gradient checkpointing off (speed)" in section and "only real lever" not in section
    assert "only when you allow a batch change" in section
    assert "more than 3% faster per sample" in section and "at most 95% of the card" in section


def _tuned(config: str, confirmations, trials):
    from ltx_wizard.core.tuning.results import AutotuneSummary
    from ltx_wizard.core.tuning.tune_record import TuneRecord

    summary = AutotuneSummary(
        trials=trials, winner=1, config_patched=False, stop_reason="x", confirmations=confirmations
    )
    return TuneRecord(summary=summary, config_text=config)


def test_after_autotune_the_sanity_check_reads_what_ran_from_autotune_json():
    # issue 41: on the 32 GB tier the baseline, the last trial, validated with the text encoder
    # loaded, while plan.md said "with validation and the text encoder off" and named a
    # logs/confirm-N.log that one GPU never writes
    from ltx_wizard.core.tuning.results import Confirmation, TrialResult

    trials = [
        TrialResult(index=1, change="baseline", outcome="ok", step_time_s=2.8, wall_s=60.0, kept=True),
        TrialResult(index=2, change="quantization int8-quanto -> null", outcome="skipped", reason="r"),
    ]
    fused = Confirmation(trial=1, outcome="ok", fused=True, peak_vram_gb=31.5)
    rec = content(num_gpus=1, tier=Tier.T32)
    text = render_plan(rec, _tuned(rec.config_text, [fused], trials))
    section = text.split("## Sanity check and autotune")[1].split("Autotune then")[0]
    assert "validation and the text encoder off" not in section
    assert "went on to validate at step 41 with the text encoder loaded" in section
    assert "trial 1 carried it" in section
    assert "`logs/trial-1.log`" in section and "confirm-" not in section and "trial-2.log" not in section
    # a confirmation run of its own (several GPUs) is named by the file it wrote
    alone = Confirmation(trial=1, outcome="ok", gpus=2, wall_s=30.0)
    text = render_plan(content(), _tuned(content().config_text, [alone], trials[:1]))
    section = text.split("## Sanity check and autotune")[1].split("Autotune then")[0]
    assert "validation and the text encoder off" in section
    assert "`logs/trial-1.log`, `logs/confirm-1.log`" in section


def test_outputs_name_every_file_and_folder_the_plan_writes(model_tree, capsys):
    # issue 41: "What gets written" left out plan.json, preprocess.json, dataset/ and overfit/
    from ltx_wizard.cli import main
    from ltx_wizard.core.plan.record import read_record

    box = model_tree()
    assert main(box.args(sim="2xh100")) == 0, capsys.readouterr().err
    run = box.ws / "run"
    text = (run / "plan.md").read_text()
    outputs = text.split("## Outputs")[1].split("## Assumptions")[0]
    on_disk = sorted(p.name for p in run.iterdir())
    assert "plan.json" in on_disk and "overfit" in on_disk and "dataset" in on_disk
    for name in on_disk:
        assert f"`{run}/{name}`" in outputs or f"`{run}/{name}/`" in outputs, name
    assert sorted(read_record(run).written) == sorted(p.name for p in run.iterdir() if p.is_file())


def test_a_simulated_plan_warns_of_no_uv_it_never_uses(model_tree, capsys, monkeypatch, tmp_path):
    # issue 41: "Warning: uv is not on PATH" in the demo, whose launch.sh runs the simulated
    # trainer; a plan for real GPUs (--from-csv) still says it
    from ltx_wizard.cli import main
    from ltx_wizard.core.inputs import checkout

    monkeypatch.setattr(checkout, "find_uv", lambda env=None: None)
    box = model_tree()
    assert main(box.args(sim="rtx5090")) == 0, capsys.readouterr().err
    err = capsys.readouterr().err
    text = (box.ws / "run" / "plan.md").read_text()
    assert "ltx_wizard.demo.sim" in (box.ws / "run" / "launch.sh").read_text()
    assert "uv is not on PATH" not in text and "uv is not on PATH" not in err
    csv = tmp_path / "gpus.csv"
    csv.write_text("name, memory.total [MiB]\nNVIDIA GeForce RTX 5090, 32607 MiB\n")
    argv = box.args(sim=None)
    argv[argv.index("--workspace") + 1] = str(tmp_path / "real")
    assert main([*argv, "--from-csv", str(csv)]) == 0, capsys.readouterr().err
    assert "Warning: uv is not on PATH" in (tmp_path / "real" / "run" / "plan.md").read_text()
