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
from ltx_wizard.core.prepare.holdout import HoldoutPlan, pick, plan_holdout, skip_note, small_question
from ltx_wizard.core.prepare.flow import PrepareFlow, Row
from ltx_wizard.core.prepare.request import PrepareResult
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
    picked = set(pick(ids, held.count))
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
        all_silent=session.audio_trained
        and not any(session.facts[r[video]].has_audio for r in train if r[video] in session.facts),
    )
    result = _with_lines(session, result, held, columns, report)
    _record(session, result, held, report)
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
    session: PrepareFlow, result: PrepareResult, held: HoldoutPlan, columns: list[str], report: AuditReport
) -> PrepareResult:
    lines = [
        f"Prepared {result.samples} training samples (+ {len(result.held_out)} held out) "
        f"for {result.recipe}. Columns: {', '.join(columns)}. Saved to "
        f"{result.dataset_file}" + (f" (+ {result.holdout_file.name})" if result.holdout_file else "") + "."
    ]
    if result.held_out:
        lines.append(
            f"Held out {len(result.held_out)} of {result.samples + len(result.held_out)}"
            f" samples for post-train evaluation ({held.why}). Held-out IDs: "
            f"{', '.join(result.held_out)}."
        )
    else:
        lines.append(skip_note())
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
    trigger = result.lora_trigger
    if trigger:
        lines.append(
            f"Trigger word {trigger!r}: prepended to every caption at preprocessing "
            "(--lora-trigger), never written into the captions"
        )
        doubled = [
            r
            for r in session.rows
            if str(r.get(session.staged.caption_column, "")).lower().startswith(trigger.lower())
        ]
        if doubled:
            lines.append(
                f"{len(doubled)} caption(s) already start with {trigger!r}: with "
                "--lora-trigger it would be doubled; edit those captions"
            )
    check = session.audio_check
    if check is not None and not check.ok:
        lines.append(check.describe())
    if result.all_silent:
        lines.append("No clip has sound: train video only (plan --video-only)")
    return PrepareResult(**{**_fields(result), "lines": tuple(lines)})


def _fields(result: PrepareResult) -> dict[str, Any]:
    from dataclasses import fields

    return {f.name: getattr(result, f.name) for f in fields(result)}


def _record(session: PrepareFlow, result: PrepareResult, held: HoldoutPlan, report: AuditReport) -> None:
    outputs.write_record(
        session.run_dir,
        session.dataset_dir,
        {
            "source": str(session.source.path),
            "source_kind": session.source.kind,
            "recipe": result.recipe,
            "captioner": session.choice.backend,
            "captioner_why": session.choice.why,
            "lora_trigger": result.lora_trigger,
            "bucket": result.bucket,
            "samples": result.samples,
            "held_out": list(result.held_out),
            "holdout_why": held.why,
            "linked": session.staged.originals,
            "split": session.split_from,
            "rotated": session.rotated,
            "audit": list(report.summary),
            "findings": [{"clip": f.clip, "kind": f.kind, "text": f.text} for f in report.findings],
            "audio_decode": (session.audio_check.describe() if session.audio_check else None),
        },
    )
