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
from ltx_wizard.core.prepare.flow import PrepareFlow, Row
from ltx_wizard.core.prepare.request import SpotCheckStop

ANSWER_S = 20.0  # a captioner server given by URL: how long its first answer is waited for


def _known(session: PrepareFlow) -> tuple[dict[str, str], dict[str, str]]:
    req = session.request
    known = {} if req.recaption else read_captions(session.dataset_dir / CAPTIONS_FILE)
    by_name: dict[str, str] = {}
    if req.captions_file:
        mine, by_name = captions_from_file(req.captions_file)
        known.update(mine)
    return known, by_name


def pending_rows(session: PrepareFlow) -> list[Row]:
    """Rows still without a caption; the others get theirs from what is known."""
    column, video = session.staged.caption_column, session.video_column
    known, by_name = _known(session)
    pending = []
    for row in session.rows + session.supplied:  # your held-out clips too
        if str(row.get(column, "")).strip() and not session.request.recaption:
            continue
        real = os.path.realpath(session.dataset_dir / row[video])
        caption = known.get(real) or by_name.get(Path(row[video]).name)
        if caption:
            row[column] = caption
        else:
            pending.append(row)
    return pending


async def caption_rows(session: PrepareFlow) -> list[Row]:
    pending = pending_rows(session)
    if not pending:
        total = len(session.rows) + len(session.supplied)
        session.say(f"Captions: every clip has one ({total}); none made")
        return session.rows
    if session.choice.backend == "none":
        first = pending[0][session.video_column]
        raise UsageError(
            f"{len(pending)} clip(s) have no caption (first: {first}) and no "
            f"captioner runs here: {session.choice.why}"
        )
    server = None
    try:  # the server is stopped however this ends: a failed start, a cancel, a stop
        if session.choice.start_server:
            server = CaptionerServer(
                session.runner, session.log("captioner-server"), session.env, gpu=session.choice.gpu
            )
            session.say(
                f"Starting the Qwen3-Omni server (scripts/serve_captioner.py) on GPU "
                f"{session.choice.gpu}; its output: {server.log}"
            )
            session.choice = replace(
                session.choice,
                vllm_url=await server.start(
                    on_wait=lambda s: session.asker.progress("captioner server", int(s), 0)
                ),
            )
            session.say("Captioner server ready (its address is in the server log named above)")
        elif session.choice.backend == "qwen_omni" and session.choice.vllm_url:
            await _answers(session, session.choice.vllm_url)
        instruction, go_on = await _spot_check(session, pending)
        if go_on:
            await _full_pass(session, pending, instruction)
    finally:
        if server is not None:
            await server.stop()
            session.say("Captioner server stopped (its GPU memory is free for preprocessing)")
    return await _settle_failures(session)


async def _answers(session: PrepareFlow, url: str) -> None:
    """A server given by its URL answers before a clip is sent to it: one that never does is
    named, with its URL, instead of a wait with nothing shown (urlopen's timeout bounds each
    socket wait; a server that answers this but hangs on a caption is the script run's bound)."""
    session.say(f"Asking the captioner server at {url} (GET /models, up to {ANSWER_S:.0f} s)")
    if not await asyncio.to_thread(server_ready, url, ANSWER_S):
        raise WizardError(
            f"the captioner server at {url} did not answer GET {url}/models within {ANSWER_S:.0f} s: "
            "check that it runs and its address (--vllm-url), or caption with --captioner "
            "gemini_flash or --captions FILE"
        )


async def _spot_check(session: PrepareFlow, pending: list[Row]) -> tuple[str | None, bool]:
    """(the instruction agreed, whether the full pass goes on)."""
    video, column = session.video_column, session.staged.caption_column
    chosen = spot_clips([r[video] for r in pending])
    names = queue_names(chosen)
    instruction, override = session.request.instruction, session.request.recaption
    while True:
        run = await run_captions(
            session.runner,
            session.choice,
            {n: session.dataset_dir / rel for n, rel in names.items()},
            session.dataset_dir,
            session.run_dir,
            spot=True,
            log=session.log("captions-spot"),
            env=session.env,
            instruction=instruction,
            override=override,
        )
        captioned = spot_captioned(session, chosen, run)
        if not captioned and len(pending) > len(chosen):  # nothing to approve: never "like this"
            raise WizardError(spot_failed_text(session, chosen, run))
        if not captioned:  # these were all that was left (a rerun): named, left out only if asked
            session.failed = [(rel, _why(rel, run)) for rel in chosen]
            return None, False
        shown = [(rel, _caption_of(session, rel, run)) for rel in chosen]
        verdict = await session.asker.approve_captions(shown)
        if verdict is True:
            break
        if verdict is None:  # no one to ask (no terminal): the command needs --yes
            raise UsageError(
                f"{spot_stop_text(session, chosen, captioned)}; no terminal to ask: review them, "
                "then run again with --yes to go on"
            )
        if verdict is False:
            raise SpotCheckStop(
                f"{spot_stop_text(session, chosen, captioned)}; run again to go on, with "
                "--instruction TEXT to change the prompt"
            )
        instruction, override = _checked_instruction(session, str(verdict)), True
    approved = {
        rel: run.captions[os.path.realpath(session.dataset_dir / rel)]
        for rel in chosen
        if os.path.realpath(session.dataset_dir / rel) in run.captions
    }
    for row in pending:
        if row[video] in approved:
            row[column] = approved[row[video]]
    _remember(session, approved)
    return instruction, True


def spot_captioned(session: PrepareFlow, chosen: list[str], run: CaptionRun) -> list[str]:
    """The spot check's clips its output file holds a caption for (read back from that file)."""
    return [rel for rel in chosen if os.path.realpath(session.dataset_dir / rel) in run.captions]


def spot_stop_text(session: PrepareFlow, chosen: list[str], captioned: list[str]) -> str:
    """Where a stop at the spot check leaves the captions, from what its output file holds."""
    spot = session.dataset_dir / SPOT_FILE
    kept = f"{len(captioned)} of the {len(chosen)} samples captioned, in {spot}"
    return f"stopped at the caption spot check: {kept}; no other clip was captioned"


def spot_failed_text(session: PrepareFlow, chosen: list[str], run: CaptionRun) -> str:
    log = run.log or session.log("captions-spot")
    return (
        f"the captioner captioned none of the {len(chosen)} spot-check clips "
        f"({chosen[0]}: {_why(chosen[0], run)}), so there is nothing to approve and no clip was "
        f"captioned; its output is in {log}: fix the captioner ({session.choice.backend}), "
        "then run prepare again"
    )


def _caption_of(session: PrepareFlow, rel: str, run: CaptionRun) -> str:
    caption = run.captions.get(os.path.realpath(session.dataset_dir / rel))
    return caption or f"(failed: {_why(rel, run)})"


def _why(rel: str, run: CaptionRun) -> str:
    return next((w for n, w in run.failed if n.endswith(Path(rel).name)), "no caption")


def _checked_instruction(session: PrepareFlow, text: str) -> str:
    trigger = (session.request.lora_trigger or "").strip()
    if trigger and trigger.lower() in text.lower():
        raise UsageError(
            f"the instruction names the trigger word {trigger!r}: it is prepended at "
            "preprocessing (--lora-trigger); keep it out of the captions"
        )
    return text


def _remember(session: PrepareFlow, captions: dict[str, str]) -> None:
    """Approved captions into captions.json (caption_videos.py's format), so a rerun keeps them."""
    path = session.dataset_dir / CAPTIONS_FILE
    entries = []
    if path.is_file():
        entries = json.loads(read_text(path, what="captions file", limit=DATASET_MAX_BYTES))
    have = {os.path.realpath(path.parent / e.get("media_path", "")) for e in entries}
    for rel, caption in captions.items():
        if os.path.realpath(session.dataset_dir / rel) not in have:
            entries.append({"caption": caption, "media_path": rel})
    write_text(path, json.dumps(entries, indent=2, ensure_ascii=False), root=session.run_dir)


async def _full_pass(session: PrepareFlow, pending: list[Row], instruction: str | None) -> None:
    video, column = session.video_column, session.staged.caption_column
    rest = [r for r in pending if not str(r.get(column, "")).strip()]
    if not rest:
        return
    names = queue_names([r[video] for r in rest])
    session.say(f"Captioning {len(rest)} clip(s) with {session.choice.backend}...")
    run = await run_captions(
        session.runner,
        session.choice,
        {n: session.dataset_dir / rel for n, rel in names.items()},
        session.dataset_dir,
        session.run_dir,
        spot=False,
        log=session.log("captions"),
        env=session.env,
        instruction=instruction,
        override=session.request.recaption,
        on_count=lambda d, t: session.asker.progress("captions", d, t),
    )
    for row in rest:
        caption = run.captions.get(os.path.realpath(session.dataset_dir / row[video]))
        if caption:
            row[column] = caption
    session.failed = [(names[n], why) for n, why in run.failed if n in names]


async def _settle_failures(session: PrepareFlow) -> list[Row]:
    column, video = session.staged.caption_column, session.video_column

    def has(row: Row) -> bool:
        return bool(str(row.get(column, "")).strip())

    supplied = session.supplied
    missing = [r for r in session.rows + supplied if not has(r)]
    if not missing:
        return session.rows
    why = dict(session.failed)
    for row in missing:
        session.say(f"{row[video]}: no caption ({why.get(row[video], 'not captioned')})")
    question = (
        f"{len(missing)} of {len(session.rows) + len(supplied)} clip(s) have no caption "
        "(named above). Leave them out of the dataset? (No stops here; a rerun captions "
        "only those.)"
    )
    if not await session.asker.confirm(question, topic="leave-out"):
        raise WizardError(
            f"{len(missing)} clip(s) have no caption (first: {missing[0][video]}: "
            f"{why.get(missing[0][video], 'not captioned')}): run prepare again to "
            "retry only those (the others' captions are kept), or answer yes to "
            "leave them out"
        )
    session.say(f"Left out {len(missing)} clip(s) without a caption")
    session.supplied = [r for r in supplied if has(r)]
    return [r for r in session.rows if has(r)]
