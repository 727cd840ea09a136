"""The end of the prepare flow: how many to hold out (asked first, before captioning costs
anything), then dataset.json, Canny references when asked, the conditioning check, the held-out
split into holdout.jsonl, prepare.json and the closing summary.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path
from typing import Any

from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.prepare import conditioning_inputs as conditioning
from ltx_wizard.core.prepare import dataset_files as outputs
from ltx_wizard.core.prepare.audit import AuditReport
from ltx_wizard.core.prepare.holdout import (
    HoldoutPlan,
    pick,
    plan_holdout,
    shared_note,
    shared_sources,
    skip_note,
    small_question,
)
from ltx_wizard.core.preprocess.trigger_record import captions_with_trigger, trigger_doubled_text
from ltx_wizard.core.prepare.context import PrepareContext
from ltx_wizard.core.prepare.dataset_value import PrepData, row_of
from ltx_wizard.core.prepare.prepare_request import PrepareResult
from ltx_wizard.core.prepare.prepare_record import write_prepare_record
from ltx_wizard.core.prepare.source import read_source
from ltx_wizard.core.prepare.staging import stage


async def holdout_count(ctx: PrepareContext, data: PrepData) -> tuple[PrepData, HoldoutPlan]:
    """A count, or 0 with the user's own held-out rows staged under dataset/holdout/."""
    asked = ctx.holdout
    if isinstance(asked, str):
        source = read_source(asked)
        staged = stage(source, ctx.dataset_dir, ctx.run_dir, prefix="holdout")
        column = data.video_column
        supplied = tuple(
            row_of(
                {(column if k == staged.video_column else k): v for k, v in r.items()},
                column,
                data.caption_column,
            )
            for r in staged.rows
        )
        ctx.say(f"Held-out set: yours, {len(supplied)} sample(s) from {source.path}")
        return replace(data, supplied=supplied), HoldoutPlan(count=0, why=f"your own set ({source.path})")
    total = len(data.rows)
    plan = plan_holdout(total, asked)
    if plan is None:
        count = await ctx.asker.choose_holdout(small_question(total), total)
        plan = HoldoutPlan(
            count=count,
            why="your choice for a small dataset" if count else "skipped: your choice for a small dataset",
        )
    return data, plan


async def finish(ctx: PrepareContext, data: PrepData, held: HoldoutPlan) -> PrepareResult:
    """dataset.json (Canny references when asked), the held-out split, prepare.json, the summary."""
    video, caption = data.video_column, data.caption_column
    columns = outputs.columns_of(data.dicts(data.rows), (caption, video))
    dataset = outputs.write_dataset(ctx.run_dir, ctx.dataset_dir, data.dicts(data.rows), columns)
    captioned = [(r.video, r.caption or "") for r in data.rows + data.supplied]
    if ctx.request.canny:
        data, columns = await _canny(ctx, data, dataset)
    report = await asyncio.to_thread(ctx.judge, data)
    sources = {scene: clip for clip, scenes in data.split_from.items() for scene in scenes}
    picked = set(pick([r.video for r in data.rows], held.count, sources))
    train = [r for r in data.rows if r.video not in picked]
    out = data.dicts([r for r in data.rows if r.video in picked] + list(data.supplied))
    outputs.write_dataset(ctx.run_dir, ctx.dataset_dir, data.dicts(train), columns)
    holdout = (
        outputs.write_holdout(ctx.run_dir, ctx.dataset_dir, out, outputs.columns_of(out, tuple(columns)))
        if out
        else None
    )
    sound = {r.video: data.facts[r.video] for r in train if r.video in data.facts}
    audio_trained = ctx.audio_trained(data.staged)
    all_silent = audio_trained and not any(f.has_audio for f in sound.values())
    result = PrepareResult(
        run_dir=ctx.run_dir,
        dataset_file=dataset,
        samples=len(train),
        recipe=ctx.recipe.name,
        bucket=ctx.request.buckets or report.bucket,
        holdout_file=holdout,
        held_out=tuple(r[video] for r in out),
        lora_trigger=(ctx.request.lora_trigger or "").strip() or None,
        trainer_root=ctx.trainer_root,
        all_silent=all_silent,
    )
    # a clip without sound under a recipe that trains it: no audio latents, left out by the
    # trainer (datasets.py PrecomputedDataset skips a sample without every data source's file);
    # with none sounding, the plan trains video only (--video-only) and keeps them all
    trains_sound = audio_trained and not all_silent
    silent = [c for c, f in sound.items() if trains_sound and f.kind == "video" and not f.has_audio]
    shared = shared_sources(list(result.held_out), [r.video for r in train], sources)
    record = _record(ctx, data, result, held, report, columns, captioned, silent, shared)
    result = _with_lines(ctx, data, result, record, report)
    for line in result.lines:
        ctx.say(line)
    return result


async def _canny(ctx: PrepareContext, data: PrepData, dataset: Path) -> tuple[PrepData, list[str]]:
    """scripts/compute_reference.py adds reference_video in place; a failed clip is named."""
    code = await conditioning.make_canny_references(
        ctx.runner, ctx.dataset_dir, dataset, ctx.log("compute-reference"), ctx.env
    )
    if code != 0:
        raise WizardError(
            f"scripts/{conditioning.REFERENCE_SCRIPT} failed (exit {code}); its "
            f"output, with each clip it could not process, is in "
            f"{ctx.log('compute-reference')}"
        )
    read = [{k: str(v) for k, v in r.items()} for r in outputs.read_rows(dataset)]
    ctx.say(f"Canny references made for {len(read)} clip(s) (column reference_video)")
    rows = tuple(row_of(r, data.video_column, data.caption_column) for r in read)
    return replace(data, rows=rows), outputs.columns_of(read, ())


def _with_lines(
    ctx: PrepareContext, data: PrepData, result: PrepareResult, rec: dict[str, Any], report: AuditReport
) -> PrepareResult:
    """The closing summary; its counts, held-out set and trigger-word warning read the record
    (prepare.json) they are written from."""
    lines = [count_line(rec), held_line(rec)]
    lines.append(f"Suggested bucket: {result.bucket} ({report.bucket_why})")
    for clip, copy in data.rotated.items():
        lines.append(f"{clip}: was stored rotated; fixed by the upright copy {copy}")
    for item in report.of("rotated"):
        lines.append(f"{item.clip}: {item.text} (declined: it trains sideways)")
    for kind in ("no audio", "cropped", "upscaled"):
        found = report.of(kind)
        lines += [f"{item.clip}: {item.text}" for item in found[:5]]
        if len(found) > 5:
            lines.append(f"(+{len(found) - 5} more {kind} finding(s) in prepare.json)")
    trigger = rec["lora_trigger"]
    if trigger:
        lines.append(
            f"Trigger word {trigger!r}: prepended to every caption at preprocessing "
            "(--lora-trigger), never written into the captions"
        )
        if rec["captions_with_trigger"]:
            lines.append(trigger_doubled_text(trigger, rec["captions_with_trigger"], rec["captions"]))
    check = data.audio_check
    if check is not None and not check.ok:
        lines.append(check.describe())
    if result.all_silent:
        lines.append("No clip has sound: train video only (plan --video-only)")
    return replace(result, lines=tuple(lines))


def count_line(rec: dict[str, Any]) -> str:
    """How many samples dataset.json holds and how many of them the trainer trains on."""
    samples, recipe = rec["samples"], rec["recipe"]
    line = f"Prepared {samples} training samples (+ {len(rec['held_out'])} held out) for {recipe}."
    silent = rec["silent_in_training"]
    if silent:
        names = ", ".join(silent[:3]) + (f" (+{len(silent) - 3} more)" if len(silent) > 3 else "")
        line += (
            f" The trainer trains on {rec['trained']} of them: {len(silent)} clip(s) without sound ({names}) "
            f"get no audio latents, and {recipe} trains sound (plan --video-only trains all {samples})."
        )
    saved = rec["dataset"] + (f" (+ {Path(rec['holdout']).name})" if rec["holdout"] else "")
    return line + f" Columns: {', '.join(rec['columns'])}. Saved to {saved}."


def held_line(rec: dict[str, Any]) -> str:
    held = rec["held_out"]
    if not held:
        return skip_note()
    line = (
        f"Held out {len(held)} of {rec['samples'] + len(held)} samples for post-train evaluation "
        f"({rec['holdout_why']}). Held-out IDs: {', '.join(held)}."
    )
    return line + (shared_note(rec["held_out_shared_source"]) if rec["held_out_shared_source"] else "")


def _record(
    ctx: PrepareContext,
    data: PrepData,
    result: PrepareResult,
    held: HoldoutPlan,
    report: AuditReport,
    columns: list[str],
    captioned: list[tuple[str, str]],
    silent: list[str],
    shared: list[dict[str, object]],
) -> dict[str, Any]:
    """prepare.json, written; the closing summary is rendered from what it returns."""
    rec: dict[str, Any] = {
        "source": str(ctx.source.path),
        "source_kind": ctx.source.kind,
        "recipe": result.recipe,
        "captioner": ctx.choice.backend,
        "captioner_why": ctx.choice.why,
        "lora_trigger": result.lora_trigger,
        "captions": len(captioned),
        "captions_with_trigger": captions_with_trigger(captioned, result.lora_trigger),
        "bucket": result.bucket,
        "dataset": str(result.dataset_file),
        "columns": columns,
        "samples": result.samples,
        "trained": result.samples - len(silent),  # what the trainer trains on of them
        "silent_in_training": silent,
        "held_out": list(result.held_out),
        "holdout": str(result.holdout_file) if result.holdout_file else None,
        "holdout_why": held.why,
        "held_out_shared_source": shared,
        "linked": data.staged.originals,
        "split": {clip: list(scenes) for clip, scenes in data.split_from.items()},
        "rotated": dict(data.rotated),
        "audit": list(report.summary),
        "findings": [{"clip": f.clip, "kind": f.kind, "text": f.text} for f in report.findings],
        "audio_decode": (data.audio_check.describe() if data.audio_check else None),
    }
    write_prepare_record(ctx.run_dir, rec)
    return rec
