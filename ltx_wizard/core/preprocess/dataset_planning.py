"""Planning from a dataset file: the checks, where the data root will be, what to preprocess.

The data root is the preprocessing script's own default, `.precomputed` beside the dataset file
(process_dataset.py: output_dir or Path(dataset_file).parent / ".precomputed"), unless another is
given. An existing one is verified (core/dataset/precomputed_check.py): reused when it matches, resumed
when it is partly written with the right shapes, refused when it does not match, and only
overwritten when the user said so for that folder.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from ltx_wizard.core.dataset.buckets import DEFAULT_BUCKETS, parse_buckets
from ltx_wizard.core.dataset.sources import audio_folder, primary_folder, required_folders
from ltx_wizard.core.dataset.data_root import DataRootInfo
from ltx_wizard.core.dataset.checks import DatasetReport, Progress, check_dataset
from ltx_wizard.core.dataset.clip_probe import CancelFlag
from ltx_wizard.core.dataset.rows import DatasetFile, read_dataset_file
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.inputs.model_paths import resolve_user_path
from ltx_wizard.core.dataset.precomputed_check import Verification, verify_precomputed
from ltx_wizard.core.preprocess.preprocess_command import PreprocessSpec
from ltx_wizard.core.preprocess.trigger_record import (
    captions_with_trigger,
    trigger_change,
    trigger_doubled_text,
)


@dataclass(frozen=True)
class DatasetPlan:
    report: DatasetReport
    data_root: Path
    spec: PreprocessSpec
    verification: Verification
    reencode: str = ""  # why every sample is encoded again (the trigger word changed)
    trigger_in_captions: tuple[str, ...] = ()  # clips whose caption holds the trigger word already
    captions: int = 0  # rows of the dataset file (the count that warning is out of)

    @property
    def reused(self) -> bool:
        return self.verification.reusable and not self.reencode


def plan_dataset(
    dataset: str | os.PathLike[str],
    strategy: Mapping[str, Any] | None,
    *,
    buckets: str | None,
    models: dict[str, Path | None],
    lora_trigger: str | None,
    load_text_encoder_in_8bit: bool,
    precomputed_dir: str | os.PathLike[str] | None = None,
    on_progress: Progress | None = None,
    cancelled: CancelFlag = None,
) -> DatasetPlan:
    """Check the dataset file for `strategy` and decide the preprocessing; writes nothing.
    `on_progress` / `cancelled`: as core/dataset/checks.py check_dataset takes them."""
    ds = read_dataset_file(dataset)
    parsed = parse_buckets(buckets or DEFAULT_BUCKETS)
    # clips read in-process (dataset/clip_probe.py)
    report = check_dataset(ds, strategy, parsed, on_progress=on_progress, cancelled=cancelled)
    root = (
        resolve_user_path(precomputed_dir, what="preprocessed output folder")
        if precomputed_dir
        else ds.folder / ".precomputed"
    )
    verification = verify_precomputed(root, strategy, report.kept, parsed, silent=report.silent_samples)
    if verification.mismatch:
        raise UsageError(
            f"{verification.describe()}: it is never overwritten unasked; preprocess into a new "
            "folder (--precomputed-dir DIR, or the output folder field), or move that one away"
        )
    spec = PreprocessSpec(
        # None only in a draft's live check (plan/model_checks.py), which shows the plan, never runs it
        buckets=report.buckets,
        model_path=models["checkpoint"],  # type: ignore[arg-type]
        text_encoder_path=models["text_encoder"],  # type: ignore[arg-type]
        video_vae_path=models.get("video_vae"),
        audio_vae_path=models.get("audio_vae"),
        lora_trigger=(lora_trigger or "").strip() or None,
        skip_audio=audio_folder(strategy) is None,
        load_text_encoder_in_8bit=load_text_encoder_in_8bit,
    )
    return DatasetPlan(
        report=report,
        data_root=root,
        spec=spec,
        verification=verification,
        reencode=trigger_change(root, spec.lora_trigger) or "",
        trigger_in_captions=tuple(_trigger_in_captions(ds, spec.lora_trigger)),
        captions=len(ds.rows),
    )


def _trigger_in_captions(ds: DatasetFile, word: str | None) -> list[str]:
    caption, video = ds.roles.get("caption"), ds.roles.get("video") or ds.roles.get("audio")
    if caption is None or video is None:
        return []
    return captions_with_trigger(((str(r[video]), str(r[caption])) for r in ds.rows), word)


def planned_root_info(plan: DatasetPlan, strategy: Mapping[str, Any] | None) -> DataRootInfo:
    """The data root as it will be after the full preprocess (what plan.md and the config use)."""
    folders = tuple(required_folders(strategy))
    usable = plan.report.usable  # what the trainer trains on (dataset/dataset_facts.py)
    return DataRootInfo(
        path=plan.data_root,
        folders=folders,
        primary=primary_folder(required_folders(strategy)),
        sample_count=len(usable),
        samples=usable,
        orphans=(),
    )


def plan_notes(plan: DatasetPlan, given_buckets: str | None) -> tuple[list[str], list[str]]:
    """(assumptions, warnings) for plan.md."""
    # the clips and what the trainer keeps of them are plan.md's Dataset section (one count)
    assumptions: list[str] = []
    if not given_buckets:
        assumptions.append(
            f"Resolution bucket {DEFAULT_BUCKETS} (the trainer docs' default; "
            "--resolution-buckets to change it)."
        )
    assumptions.append(
        "Preprocessing in the skill's order: one sample into <run>/overfit/.precomputed, "
        f"autotune on it, then every clip into {plan.data_root}, then training."
    )
    if plan.spec.lora_trigger:
        assumptions.append(f"Trigger word {plan.spec.lora_trigger!r} prepended to every caption.")
    warnings = list(plan.report.warnings)
    if plan.verification.exists:
        warnings.append(plan.verification.describe())
    if plan.reencode:
        warnings.append(f"{plan.data_root}: {plan.reencode}")
    if plan.trigger_in_captions and plan.spec.lora_trigger:  # prepare said it too (same words)
        warnings.append(
            trigger_doubled_text(plan.spec.lora_trigger, list(plan.trigger_in_captions), plan.captions)
        )
    return assumptions, warnings
