"""The caption stage of the prepare flow: captions already there are kept (the rows' own, a
file of yours, an earlier run's captions.json) unless a recaption was asked; the rest go
through caption_videos.py, three first for the spot check (shown in full, approved before the
full pass: the skill's hard gate), then the others. The local Qwen3-Omni server, when the wizard
started it, is stopped however the stage ends. A clip left without a caption is named, and only
left out when the user says so.
"""

from __future__ import annotations

import asyncio
import json
import os
from dataclasses import replace
from pathlib import Path

from ltx_wizard.core.base.errors import UsageError, WizardError
from ltx_wizard.core.dataset.rows import DATASET_MAX_BYTES
from ltx_wizard.core.io.bounded import read_text
from ltx_wizard.core.io.safe_fs import write_text
from ltx_wizard.core.prepare.captioner import CaptionerServer, server_ready
from ltx_wizard.core.prepare.captions import (
    CAPTIONS_FILE,
    SPOT_FILE,
    CaptionRun,
    captions_from_file,
    queue_names,
    read_captions,
    run_captions,
    spot_clips,
)
from ltx_wizard.core.prepare.context import PrepareContext
from ltx_wizard.core.prepare.dataset_value import PrepData, Row
from ltx_wizard.core.prepare.prepare_request import SpotCheckStop

ANSWER_S = 20.0  # a captioner server given by URL: how long its first answer is waited for


def _known(ctx: PrepareContext) -> tuple[dict[str, str], dict[str, str]]:
    req = ctx.request
    known = {} if req.recaption else read_captions(ctx.dataset_dir / CAPTIONS_FILE)
    by_name: dict[str, str] = {}
    if req.captions_file:
        mine, by_name = captions_from_file(req.captions_file)
        known.update(mine)
    return known, by_name


def pending_rows(ctx: PrepareContext, data: PrepData) -> tuple[PrepData, list[str]]:
    """The clips still without a caption; the others get theirs from what is known."""
    known, by_name = _known(ctx)
    found: dict[str, str] = {}
    pending = []
    for row in data.rows + data.supplied:  # your held-out clips too
        if row.captioned and not ctx.request.recaption:
            continue
        real = os.path.realpath(ctx.dataset_dir / row.video)
        caption = known.get(real) or by_name.get(Path(row.video).name)
        if caption:
            found[row.video] = caption
        else:
            pending.append(row.video)
    return data.with_captions(found), pending


async def caption_rows(ctx: PrepareContext, data: PrepData) -> PrepData:
    data, pending = pending_rows(ctx, data)
    if not pending:
        ctx.say(f"Captions: every clip has one ({len(data.rows) + len(data.supplied)}); none made")
        return data
    if ctx.choice.backend == "none":
        raise UsageError(
            f"{len(pending)} clip(s) have no caption (first: {pending[0]}) and no "
            f"captioner runs here: {ctx.choice.why}"
        )
    server = None
    try:  # the server is stopped however this ends: a failed start, a cancel, a stop
        if ctx.choice.start_server:
            server = CaptionerServer(ctx.runner, ctx.log("captioner-server"), ctx.env, gpu=ctx.choice.gpu)
            ctx.say(
                f"Starting the Qwen3-Omni server (scripts/serve_captioner.py) on GPU "
                f"{ctx.choice.gpu}; its output: {server.log}"
            )
            url = await server.start(on_wait=lambda s: ctx.asker.progress("captioner server", int(s), 0))
            ctx = replace(ctx, choice=replace(ctx.choice, vllm_url=url))  # this stage's own view
            ctx.say("Captioner server ready (its address is in the server log named above)")
        elif ctx.choice.backend == "qwen_omni" and ctx.choice.vllm_url:
            await _answers(ctx, ctx.choice.vllm_url)
        data, instruction, go_on = await _spot_check(ctx, data, pending)
        if go_on:
            data = await _full_pass(ctx, data, pending, instruction)
    finally:
        if server is not None:
            await server.stop()
            ctx.say("Captioner server stopped (its GPU memory is free for preprocessing)")
    return await _settle_failures(ctx, data)


async def _answers(ctx: PrepareContext, url: str) -> None:
    """A server given by its URL answers before a clip is sent to it: one that never does is
    named, with its URL, instead of a wait with nothing shown (urlopen's timeout bounds each
    socket wait; a server that answers this but hangs on a caption is the script run's bound)."""
    ctx.say(f"Asking the captioner server at {url} (GET /models, up to {ANSWER_S:.0f} s)")
    if not await asyncio.to_thread(server_ready, url, ANSWER_S):
        raise WizardError(
            f"the captioner server at {url} did not answer GET {url}/models within {ANSWER_S:.0f} s: "
            "check that it runs and its address (--vllm-url), or caption with --captioner "
            "gemini_flash or --captions FILE"
        )


async def _spot_check(
    ctx: PrepareContext, data: PrepData, pending: list[str]
) -> tuple[PrepData, str | None, bool]:
    """(the value with the approved captions, the instruction agreed, whether the full pass goes on)."""
    chosen = spot_clips(pending)
    names = queue_names(chosen)
    instruction, override = ctx.request.instruction, ctx.request.recaption
    while True:
        run = await run_captions(
            ctx.runner,
            ctx.choice,
            {n: ctx.dataset_dir / rel for n, rel in names.items()},
            ctx.dataset_dir,
            ctx.run_dir,
            spot=True,
            log=ctx.log("captions-spot"),
            env=ctx.env,
            instruction=instruction,
            override=override,
        )
        captioned = spot_captioned(ctx, chosen, run)
        if not captioned and len(pending) > len(chosen):  # nothing to approve: never "like this"
            raise WizardError(spot_failed_text(ctx, chosen, run))
        if not captioned:  # these were all that was left (a rerun): named, left out only if asked
            return replace(data, failed=tuple((rel, _why(rel, run)) for rel in chosen)), None, False
        shown = [(rel, _caption_of(ctx, rel, run)) for rel in chosen]
        verdict = await ctx.asker.approve_captions(shown)
        if verdict is True:
            break
        if verdict is None:  # no one to ask (no terminal): the command needs --yes
            raise UsageError(
                f"{spot_stop_text(ctx, chosen, captioned)}; no terminal to ask: review them, "
                "then run again with --yes to go on"
            )
        if verdict is False:
            raise SpotCheckStop(
                f"{spot_stop_text(ctx, chosen, captioned)}; run again to go on, with "
                "--instruction TEXT to change the prompt"
            )
        instruction, override = _checked_instruction(ctx, str(verdict)), True
    approved = {
        rel: run.captions[os.path.realpath(ctx.dataset_dir / rel)]
        for rel in chosen
        if os.path.realpath(ctx.dataset_dir / rel) in run.captions
    }
    _remember(ctx, approved)
    return data.with_captions(approved), instruction, True


def spot_captioned(ctx: PrepareContext, chosen: list[str], run: CaptionRun) -> list[str]:
    """The spot check's clips its output file holds a caption for (read back from that file)."""
    return [rel for rel in chosen if os.path.realpath(ctx.dataset_dir / rel) in run.captions]


def spot_stop_text(ctx: PrepareContext, chosen: list[str], captioned: list[str]) -> str:
    """Where a stop at the spot check leaves the captions, from what its output file holds."""
    spot = ctx.dataset_dir / SPOT_FILE
    kept = f"{len(captioned)} of the {len(chosen)} samples captioned, in {spot}"
    return f"stopped at the caption spot check: {kept}; no other clip was captioned"


def spot_failed_text(ctx: PrepareContext, chosen: list[str], run: CaptionRun) -> str:
    log = run.log or ctx.log("captions-spot")
    return (
        f"the captioner captioned none of the {len(chosen)} spot-check clips "
        f"({chosen[0]}: {_why(chosen[0], run)}), so there is nothing to approve and no clip was "
        f"captioned; its output is in {log}: fix the captioner ({ctx.choice.backend}), "
        "then run prepare again"
    )


def _caption_of(ctx: PrepareContext, rel: str, run: CaptionRun) -> str:
    caption = run.captions.get(os.path.realpath(ctx.dataset_dir / rel))
    return caption or f"(failed: {_why(rel, run)})"


def _why(rel: str, run: CaptionRun) -> str:
    return next((w for n, w in run.failed if n.endswith(Path(rel).name)), "no caption")


def _checked_instruction(ctx: PrepareContext, text: str) -> str:
    trigger = (ctx.request.lora_trigger or "").strip()
    if trigger and trigger.lower() in text.lower():
        raise UsageError(
            f"the instruction names the trigger word {trigger!r}: it is prepended at "
            "preprocessing (--lora-trigger); keep it out of the captions"
        )
    return text


def _remember(ctx: PrepareContext, captions: dict[str, str]) -> None:
    """Approved captions into captions.json (caption_videos.py's format), so a rerun keeps them."""
    path = ctx.dataset_dir / CAPTIONS_FILE
    entries = []
    if path.is_file():
        entries = json.loads(read_text(path, what="captions file", limit=DATASET_MAX_BYTES))
    have = {os.path.realpath(path.parent / e.get("media_path", "")) for e in entries}
    for rel, caption in captions.items():
        if os.path.realpath(ctx.dataset_dir / rel) not in have:
            entries.append({"caption": caption, "media_path": rel})
    write_text(path, json.dumps(entries, indent=2, ensure_ascii=False), root=ctx.run_dir)


async def _full_pass(
    ctx: PrepareContext, data: PrepData, pending: list[str], instruction: str | None
) -> PrepData:
    now = {r.video: r for r in data.rows + data.supplied}
    rest = [v for v in pending if not now[v].captioned]
    if not rest:
        return data
    names = queue_names(rest)
    ctx.say(f"Captioning {len(rest)} clip(s) with {ctx.choice.backend}...")
    run = await run_captions(
        ctx.runner,
        ctx.choice,
        {n: ctx.dataset_dir / rel for n, rel in names.items()},
        ctx.dataset_dir,
        ctx.run_dir,
        spot=False,
        log=ctx.log("captions"),
        env=ctx.env,
        instruction=instruction,
        override=ctx.request.recaption,
        on_count=lambda d, t: ctx.asker.progress("captions", d, t),
    )
    got = {v: run.captions.get(os.path.realpath(ctx.dataset_dir / v)) for v in rest}
    data = data.with_captions({v: c for v, c in got.items() if c})
    return replace(data, failed=tuple((names[n], why) for n, why in run.failed if n in names))


async def _settle_failures(ctx: PrepareContext, data: PrepData) -> PrepData:
    """A clip left without a caption is named, and only left out when the user says so."""
    missing: list[Row] = [r for r in data.rows + data.supplied if not r.captioned]
    if not missing:
        return data
    why = dict(data.failed)
    for row in missing:
        ctx.say(f"{row.video}: no caption ({why.get(row.video, 'not captioned')})")
    question = (
        f"{len(missing)} of {len(data.rows) + len(data.supplied)} clip(s) have no caption "
        "(named above). Leave them out of the dataset? (No stops here; a rerun captions "
        "only those.)"
    )
    if not await ctx.asker.confirm(question, topic="leave-out"):
        raise WizardError(
            f"{len(missing)} clip(s) have no caption (first: {missing[0].video}: "
            f"{why.get(missing[0].video, 'not captioned')}): run prepare again to "
            "retry only those (the others' captions are kept), or answer yes to "
            "leave them out"
        )
    ctx.say(f"Left out {len(missing)} clip(s) without a caption")
    return replace(
        data,
        rows=tuple(r for r in data.rows if r.captioned),
        supplied=tuple(r for r in data.supplied if r.captioned),
    )
