"""plan.md: every section of the skill's plan, in order, in plain words."""

from __future__ import annotations

from ltx_wizard.demo.lookalike_checkout import LOW_VRAM_TEXT, STANDARD_TEXT
from ltx_wizard.core.plan.plan_md import PlanContent, render_plan
from ltx_wizard.core.gpu.tiers import Tier
from ltx_wizard.core.io.yaml_patch import load_yaml

SECTIONS = [
    "## Goal", "## Mode", "## Dataset", "## Training config", "## Hardware",
    "## Sanity check and autotune", "## Outputs", "## Assumptions", "## Cost and time",
    "## Config changes vs the shipped file",
]


def content(**over) -> PlanContent:
    base = dict(
        run_name="t2v-cats-20250101-0000",
        run_dir="/w/t2v-cats-20250101-0000",
        training_mode="lora",
        dataset_path="/d/cats/.precomputed",
        dataset_name="cats",
        sample_count=12,
        config=load_yaml(STANDARD_TEXT),
        base_config="t2v_lora.yaml",
        effective_batch=2,
        num_gpus=2,
        gpu_lines=("0: NVIDIA H100 80GB HBM3 (80 GB)", "1: NVIDIA H100 80GB HBM3 (80 GB)"),
        tier=Tier.T80,
        per_gpu_vram_gb=80,
        launch_line="cd /c/packages/ltx-trainer && uv run accelerate launch --num_processes 2 x",
        launch_style="ddp",
        assumptions=("Run name chosen automatically.",),
        diff="--- a\n+++ b\n-  steps: 1\n+  steps: 2\n",
    )
    base.update(over)
    return PlanContent(**base)


def test_all_sections_in_order():
    text = render_plan(content())
    positions = [text.index(s) for s in SECTIONS]
    assert positions == sorted(positions)
    assert text.rstrip().endswith("Nothing heavy (sanity check, autotune, training) starts before "
                                  "you approve this plan.")


def test_facts_the_user_checks():
    text = render_plan(content())
    assert "`/d/cats/.precomputed`: 12 preprocessed samples." in text
    assert "| LoRA rank | `32` |" in text and "| Quantization | `null` |" in text
    assert "| Validation video (W, H, frames) | `[576, 576, 89]` |" in text
    assert "| Effective batch | 2 (batch x accumulation x 2 GPUs) |" in text
    assert "**80GB+ tier** (80 GB per GPU)" in text and "DDP across 2 GPUs" in text
    assert "uv run accelerate launch --num_processes 2" in text
    assert "Training duration: measured after the sanity check" in text
    assert "gradient checkpointing off" in text  # the 80GB+ tier's only real lever
    assert "```diff\n--- a\n+++ b\n-  steps: 1\n+  steps: 2\n```" in text
    assert "At your own risk" not in text


def test_low_vram_tier_words_and_risk_banner():
    text = render_plan(content(
        tier=Tier.BELOW_MINIMUM, per_gpu_vram_gb=24, config=load_yaml(LOW_VRAM_TEXT),
        base_config="t2v_lora_low_vram.yaml", num_gpus=1, effective_batch=1, launch_style="single",
        risks=("24 GB per GPU is below the trainer's 32 GB minimum.",),
    ))
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
    # the trainer prints the loss every 20 steps (trainer.py), so a 50-step trial shows two losses
    assert "the loss is finite where the trainer prints it (every 20 steps: at steps 20 and 40 only)" in text
    assert "Step time is measured between the step 20 and step 40 lines" in text
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
