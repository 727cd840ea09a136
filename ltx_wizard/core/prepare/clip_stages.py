"""The prepare flow's clip stages, each from one dataset value to the next: the audit (clips the
trainer cannot use dropped, the sound check), the conditioning pairs, the scene split and the
upright copies. Each takes the context and a PrepData and returns a new PrepData.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import replace

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.dataset.clip_probe import probe_clip
from ltx_wizard.core.prepare import conditioning_inputs as conditioning
from ltx_wizard.core.prepare.audio_env import check_audio_decode
from ltx_wizard.core.prepare.audit import AuditReport, probe_staged
from ltx_wizard.core.prepare.context import PrepareContext
from ltx_wizard.core.prepare.dataset_value import PrepData, Row
from ltx_wizard.core.prepare.rotate import make_rotated_copy, rotated_name
from ltx_wizard.core.prepare.scenes import accept_split, discard, preview_split
from ltx_wizard.core.prepare.staging import unlink_staged


async def audited(ctx: PrepareContext, data: PrepData) -> tuple[PrepData, AuditReport]:
    """Every clip read; those the trainer cannot use dropped; the audit's report with it."""
    ctx.say("Auditing the clips (read with PyAV, as the trainer reads them)...")
    found = await asyncio.to_thread(
        probe_staged,
        data.clips(ctx.dataset_dir),
        cancelled=ctx.cancel,
        on_progress=lambda d, t: ctx.asker.progress("audit", d, t),
    )
    data = replace(data, facts=dict(found))
    report = await asyncio.to_thread(ctx.judge, data)  # 10,000 clips: off the loop
    for line in report.summary:
        ctx.say(line)
    for item in report.findings:
        ctx.say(f"{item.clip}: {item.text}")
    gone = {c for c, _ in report.dropped}
    data = replace(data, rows=tuple(r for r in data.rows if r.video not in gone))
    if not data.rows:
        raise UsageError(
            f"no clip of {ctx.source.path} can be trained on: {report.dropped[0][0]}: {report.dropped[0][1]}"
        )
    if ctx.audio_trained(data.staged) and report.with_audio:
        clip = report.with_audio[0]
        probe = ctx.audio_probe or (
            lambda path, label, log: check_audio_decode(ctx.runner, path, label, log, ctx.env)
        )
        check = await probe(ctx.dataset_dir / clip, clip, ctx.log("audio-check"))
        ctx.say(check.describe())
        data = replace(data, audio_check=check)
    return data, report


async def check_pairs(ctx: PrepareContext, data: PrepData) -> PrepData:
    """References and masks checked against their clips; a bad pair stops here (a gate: the
    value goes on as it came)."""
    roles = data.staged.roles
    if not any(r in roles for r in conditioning.CONDITIONING):
        return data
    from ltx_wizard.core.dataset.buckets import min_frames, parse_buckets

    suggested = (await asyncio.to_thread(ctx.judge, data)).bucket
    need = min_frames(parse_buckets(ctx.request.buckets or suggested))
    rows = data.dicts(data.rows)
    pairs = await asyncio.to_thread(
        conditioning.check_pairs, rows, roles, data.video_column, ctx.dataset_dir, need, probe_clip
    )
    for pairing in pairs:
        ctx.say(pairing.describe())
    conditioning.require_pairs(pairs, str(ctx.source.path))
    return data


async def split(ctx: PrepareContext, data: PrepData, long: tuple[str, ...]) -> PrepData:
    """Long videos (`long`, when asked; one video given: always) offered as their scenes."""
    wanted = set(long) if ctx.request.split_scenes else set()
    if ctx.source.kind == "video":
        wanted = {r.video for r in data.rows}
    roles = data.staged.roles
    for row in [r for r in data.rows if r.video in wanted]:
        if any(row.get(roles.get(k, "")) for k in conditioning.CONDITIONING):
            ctx.say(f"{row.video}: not split (its reference or mask pairs with the whole clip)")
            continue
        data = await _split_one(ctx, data, row)
    return data


async def _split_one(ctx: PrepareContext, data: PrepData, row: Row) -> PrepData:
    clip = row.video
    preview = await preview_split(
        ctx.runner,
        ctx.dataset_dir / clip,
        clip,
        ctx.dataset_dir,
        ctx.run_dir,
        ctx.log("split-scenes"),
        ctx.env,
        on_line=lambda line: ctx.asker.progress("scenes", 0, 0),
    )
    ctx.say(preview.describe())
    if preview.found == 0:
        discard(preview)
        if preview.filtered:
            return replace(data, rows=tuple(r for r in data.rows if r is not row))
        return data
    if not await ctx.asker.confirm(
        f"{preview.describe()}. Use these {preview.found} scenes in place of {clip}?", topic="scenes"
    ):
        discard(preview)
        ctx.say(f"{clip}: kept whole")
        return data
    scenes = accept_split(preview, ctx.dataset_dir, ctx.run_dir)
    unlink_staged(ctx.run_dir, ctx.dataset_dir / clip)
    at = data.rows.index(row)
    parts = tuple(Row(video=s, others=row.others) for s in scenes)  # a scene has no caption yet
    facts = dict(data.facts)
    for rel in scenes:
        facts[rel] = await asyncio.to_thread(probe_clip, ctx.dataset_dir / rel)
    return replace(
        data,
        rows=data.rows[:at] + parts + data.rows[at + 1 :],
        split_from={**data.split_from, clip: tuple(scenes)},
        facts=facts,
    )


async def upright(ctx: PrepareContext, data: PrepData) -> PrepData:
    """Clips stored rotated replaced by upright copies in the run folder, when the user agrees."""
    turned = [
        (c, data.facts[c].rotation)
        for c in data.clips(ctx.dataset_dir)
        if c in data.facts and data.facts[c].rotation
    ]
    if not turned:
        return data
    names = ", ".join(f"{c} ({deg}°)" for c, deg in turned[:4])
    if not await ctx.asker.confirm(
        f"{len(turned)} clip(s) are stored rotated and would train sideways: {names}. "
        "Make upright copies in the run folder's dataset/rotated/ (PyAV; your files "
        "are not touched)?",
        topic="rotate",
    ):
        ctx.say(f"{len(turned)} rotated clip(s) left as they are: they train sideways")
        return data
    data = replace(data, rotated={})
    for clip, degrees in turned:
        data = await _rotate_one(ctx, data, clip, degrees)
    return data


async def _rotate_one(ctx: PrepareContext, data: PrepData, clip: str, degrees: int) -> PrepData:
    rel = rotated_name(clip)
    src, dest = ctx.dataset_dir / clip, ctx.dataset_dir / rel
    fresh = dest.is_file() and dest.stat().st_mtime >= os.stat(src).st_mtime
    if not fresh:
        await asyncio.to_thread(make_rotated_copy, src, degrees, dest, ctx.run_dir)
    if clip in data.staged.originals:  # a link of ours (a scene is a file of the run)
        unlink_staged(ctx.run_dir, src)
    fact = await asyncio.to_thread(probe_clip, dest)
    ctx.say(f"{clip}: upright copy {rel} ({degrees}° turned; the original is untouched)")
    at = next(i for i, r in enumerate(data.rows) if r.video == clip)
    return replace(
        data,
        rows=data.rows[:at] + (replace(data.rows[at], video=rel),) + data.rows[at + 1 :],
        facts={**data.facts, rel: fact},
        rotated={**data.rotated, clip: rel},
    )
