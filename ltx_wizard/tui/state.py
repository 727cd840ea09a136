"""What the wizard has learned so far, shared by every screen (plain data, no widgets)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # core models (the plan and autotune ones pydantic): imported where used
    from ltx_wizard.core.gpu.assessment import Assessment
    from ltx_wizard.core.tuning.events import AutotuneSummary
    from ltx_wizard.core.gpu.devices import ProbeResult
    from ltx_wizard.core.plan.run_plan import PlanDraft


@dataclass
class PathChoices:
    checkpoint: str = ""
    text_encoder: str = ""
    video_vae: str = ""
    audio_vae: str = ""
    data_root: str = ""
    trainer_root: str = ""
    training_mode: str = "lora"
    video_only: bool = False  # training_strategy.audio: null (data without audio_latents/)
    recipe: str = "t2v_lora"  # a shipped config of the checkout (core/inputs/recipes.py)
    # what the recipe's validation samples read (core/validation/plan.py): files, prompts, mode
    validation_media: tuple[str, ...] = ()
    validation_prompts: tuple[str, ...] = ()
    validation: str | None = None  # media, prompts-only or off; None: plan's default
    # when data_root is a dataset file (clips): the preprocessing's bucket and trigger word
    resolution_buckets: str = ""
    lora_trigger: str = ""
    precomputed_dir: str = ""  # where the full preprocess writes ("": beside the dataset file)
    wandb: str | None = None  # "on"/"off": asked when the config enables W&B and the login is unknown


@dataclass
class WizardState:
    probe: ProbeResult | None = None
    assessment: Assessment | None = None
    accept_risk: bool = False
    paths: PathChoices = field(default_factory=PathChoices)
    split_pack: bool = False
    draft: PlanDraft | None = None  # once prepared and approved
    run_dir: Path | None = None
    summary: AutotuneSummary | None = None
    autotune_error: str | None = None
    autotune_running: bool = False
    allow_batch_change: bool = False  # the Summary screen's checkbox (autotune/batch_rule.py)
