"""The end of the prepare flow: how many to hold out (asked first, before captioning costs
anything), then dataset.json, Canny references when asked, the conditioning check, the held-out
split into holdout.jsonl, prepare.json and the closing summary.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.prepare import conditioning, outputs
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
from ltx_wizard.core.prepare.flow import PrepareFlow, Row
from ltx_wizard.core.prepare.request import PrepareResult
from ltx_wizard.core.prepare.prepare_record import write_prepare_record
from ltx_wizard.core.prepare.source import read_source
from ltx_wizard.core.prepare.staging import stage


async def holdout_count(session: PrepareFlow) -> HoldoutPlan:
    """A count, or 0 with the user's own held-out rows staged under dataset/holdout/."""
    asked = session.holdout
    if isinstance(asked, str):
        source = read_source(asked)
        staged = stage(source, session.dataset_dir, session.run_dir, prefix="holdout")
        column = session.video_column
        session.supplied = [
            {(column if k == staged.video_column else k): v for k, v in r.items()} for r in staged.rows
        ]
        session.say(f"Held-out set: yours, {len(session.supplied)} sample(s) from {source.path}")
        return HoldoutPlan(count=0, why=f"your own set ({source.path})")
    total = len(session.rows)
    plan = plan_holdout(total, asked)
    if plan is None:
        count = await session.asker.choose_holdout(small_question(total), total)
        plan = HoldoutPlan(
            count=count,
            why="your choice for a small dataset" if count else "skipped: your choice for a small dataset",
        )
    return plan


async def finish(session: PrepareFlow, held: HoldoutPlan) -> PrepareResult:
    video, caption = session.video_column, session.staged.caption_column
    rows = session.rows
    columns = outputs.columns_of(rows, (caption, video))
    dataset = outputs.write_dataset(session.run_dir, session.dataset_dir, rows, columns)
    if session.request.canny:
        rows, columns = await _canny(session, dataset)
    report = await asyncio.to_thread(session.judge)
    ids = [r[video] for r in rows]
    sources = {scene: clip for clip, scenes in session.split_from.items() for scene in scenes}
    picked = set(pick(ids, held.count, sources))
    train = [r for r in rows if r[video] not in picked]
    out = [r for r in rows if r[video] in picked] + session.supplied
    outputs.write_dataset(session.run_dir, session.dataset_dir, train, columns)
    holdout = (
        outputs.write_holdout(
            session.run_dir, session.dataset_dir, out, outputs.columns_of(out, tuple(columns))
        )
        if out
        else None
    )
    sound = {r[video]: session.facts[r[video]] for r in train if r[video] in session.facts}
    all_silent = session.audio_trained and not any(f.has_audio for f in sound.values())
    result = PrepareResult(
        run_dir=session.run_dir,
        dataset_file=dataset,
        samples=len(train),
        recipe=session.recipe.name,
        bucket=session.request.buckets or report.bucket,
        holdout_file=holdout,
        held_out=tuple(r[video] for r in out),
        lora_trigger=(session.request.lora_trigger or "").strip() or None,
        trainer_root=session.trainer_root,
        all_silent=all_silent,
    )
    # a clip without sound under a recipe that trains it: no audio latents, left out by the
    # trainer (datasets.py PrecomputedDataset skips a sample without every data source's file);
    # with none sounding, the plan trains video only (--video-only) and keeps them all
    trains_sound = session.audio_trained and not all_silent
    silent = [c for c, f in sound.items() if trains_sound and f.kind == "video" and not f.has_audio]
    shared = shared_sources(list(result.held_out), [r[video] for r in train], sources)
    record = _record(session, result, held, report, columns, silent, shared)
    result = _with_lines(session, result, record, report)
    for line in result.lines:
        session.say(line)
    return result


async def _canny(session: PrepareFlow, dataset: Path) -> tuple[list[Row], list[str]]:
    """scripts/compute_reference.py adds reference_video in place; a failed clip is named."""
    code = await conditioning.make_canny_references(
        session.runner, session.dataset_dir, dataset, session.log("compute-reference"), session.env
    )
    if code != 0:
        raise WizardError(
            f"scripts/{conditioning.REFERENCE_SCRIPT} failed (exit {code}); its "
            f"output, with each clip it could not process, is in "
            f"{session.log('compute-reference')}"
        )
    rows = [{k: str(v) for k, v in r.items()} for r in outputs.read_rows(dataset)]
    session.say(f"Canny references made for {len(rows)} clip(s) (column reference_video)")
    return rows, outputs.columns_of(rows, ())


def _with_lines(
    session: PrepareFlow, result: PrepareResult, rec: dict[str, Any], report: AuditReport
) -> PrepareResult:
    """The closing summary; its counts, held-out set and trigger-word warning read the record
    (prepare.json) they are written from."""
    lines = [count_line(rec), held_line(rec)]
    lines.append(f"Suggested bucket: {result.bucket} ({report.bucket_why})")
    for clip, copy in session.rotated.items():
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
    check = session.audio_check
    if check is not None and not check.ok:
        lines.append(check.describe())
    if result.all_silent:
        lines.append("No clip has sound: train video only (plan --video-only)")
    return PrepareResult(**{**_fields(result), "lines": tuple(lines)})


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


def _fields(result: PrepareResult) -> dict[str, Any]:
    from dataclasses import fields

    return {f.name: getattr(result, f.name) for f in fields(result)}


def _record(
    session: PrepareFlow,
    result: PrepareResult,
    held: HoldoutPlan,
    report: AuditReport,
    columns: list[str],
    silent: list[str],
    shared: list[dict[str, object]],
) -> dict[str, Any]:
    """prepare.json, written; the closing summary is rendered from what it returns."""
    caption = session.staged.caption_column
    captioned = [(r[session.video_column], r.get(caption, "")) for r in session.rows + session.supplied]
    rec: dict[str, Any] = {
        "source": str(session.source.path),
        "source_kind": session.source.kind,
        "recipe": result.recipe,
        "captioner": session.choice.backend,
        "captioner_why": session.choice.why,
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
        "linked": session.staged.originals,
        "split": session.split_from,
        "rotated": session.rotated,
        "audit": list(report.summary),
        "findings": [{"clip": f.clip, "kind": f.kind, "text": f.text} for f in report.findings],
        "audio_decode": (session.audio_check.describe() if session.audio_check else None),
    }
    write_prepare_record(session.run_dir, rec)
    return rec
