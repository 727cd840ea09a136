"""Captions through the trainer's scripts/caption_videos.py, with the skill's spot check first.

The script takes one file or one folder and writes `{caption, media_path}` entries with paths
relative to its output file (caption_videos.py caption_media / _save_captions), skipping media
its output already captions (compared by the resolved file). The wizard hands it a queue folder
of links to exactly the clips still lacking a caption (never a reference, a mask or a long video
that was split), so nothing else is captioned, and reads its output back by the file each
entry resolves to. A clip it fails on is printed ("Error captioning NAME: ...") and left out of
its output ("Captioned X/Y"): here each is named, never passed on silently.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any, Callable, Mapping

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.base.records import record
from ltx_wizard.core.dataset.rows import DATASET_MAX_BYTES, read_dataset_file
from ltx_wizard.core.io.bounded import read_text
from ltx_wizard.core.io.safe_fs import check_inside
from ltx_wizard.core.prepare.captioner import CaptionerChoice
from ltx_wizard.core.prepare.scripts import ScriptRunner, flags_of, require_options, run_script
from ltx_wizard.core.prepare.staging import link

SCRIPT = "caption_videos.py"
SPOT_COUNT = 3  # the skill's spot check
SPOT_FILE = "preview-captions.json"  # the skill's name for the spot check's output
CAPTIONS_FILE = "captions.json"  # the full pass's output (dataset.json is the wizard's own)
SPOT_QUEUE, QUEUE = ".caption-spot", ".caption-queue"
GEMINI_WORKERS = 5  # the skill's --num-workers for gemini_flash (qwen_omni takes 1 only)
_ERROR = re.compile(r"Error captioning (.+?): (.*)$")
_COUNT = re.compile(r"Captioning.*?(\d+)/(\d+)")


@record
class CaptionRun:
    captions: dict[str, str]  # resolved media file -> caption
    failed: tuple[tuple[str, str], ...] = ()  # (clip as queued, the script's error)
    code: int = 0
    log: Path | None = None


def spot_clips(pending: list[str], count: int = SPOT_COUNT) -> list[str]:
    """Three clips spread over the set (first, middle, last), so one odd corner shows."""
    if len(pending) <= count:
        return list(pending)
    return [pending[round(i * (len(pending) - 1) / (count - 1))] for i in range(count)]


def caption_args(
    queue: Path,
    output: Path,
    choice: CaptionerChoice,
    *,
    instruction: str | None = None,
    override: bool = False,
) -> list[str]:
    args = [str(queue), "--output", str(output), "--captioner-type", choice.backend]
    if choice.backend == "qwen_omni" and choice.vllm_url:
        args += ["--vllm-url", choice.vllm_url]
    if choice.backend == "gemini_flash":
        args += ["--num-workers", str(GEMINI_WORKERS)]
    if instruction:  # only one the user asked for after a spot check: never a trigger word
        args += ["--instruction", instruction]
    if override:
        args.append("--override")
    return args


async def run_captions(
    runner: ScriptRunner,
    choice: CaptionerChoice,
    clips: dict[str, Path],
    dataset_dir: Path,
    run_dir: Path,
    *,
    spot: bool,
    log: Path,
    env: Mapping[str, str],
    instruction: str | None = None,
    override: bool = False,
    on_count: Callable[[int, int], None] = lambda d, t: None,
) -> CaptionRun:
    """Caption `clips` (name in the queue -> staged file under dataset/) into the spot check's
    or the full pass's output; returns every caption that output now holds."""
    queue = dataset_dir / (SPOT_QUEUE if spot else QUEUE)
    output = dataset_dir / (SPOT_FILE if spot else CAPTIONS_FILE)
    _fill_queue(queue, clips, run_dir)
    args = caption_args(queue, output, choice, instruction=instruction, override=override)
    require_options(runner, SCRIPT, flags_of(args))
    errors: list[tuple[str, str]] = []

    def read(line: str) -> None:
        text = line.strip()
        if m := _ERROR.search(text):
            errors.append((m.group(1), m.group(2)[:300]))
        elif m := _COUNT.search(text):
            on_count(int(m.group(1)), int(m.group(2)))

    code = await run_script(
        runner.argv(SCRIPT, args), cwd=runner.trainer_dir, env={**env, **runner.env}, log=log, on_line=read
    )
    captions = read_captions(output)
    got = {name for name, path in clips.items() if os.path.realpath(path) in captions}
    failed = [(n, why) for n, why in errors if n in clips and n not in got]
    named = {n for n, _ in failed}
    failed += [
        (n, f"no caption (scripts/{SCRIPT} exit {code}; see {log})")
        for n in clips
        if n not in got and n not in named
    ]
    return CaptionRun(captions=captions, failed=tuple(failed), code=code, log=log)


def _fill_queue(queue: Path, clips: dict[str, Path], run_dir: Path) -> None:
    shutil.rmtree(queue, ignore_errors=True)
    check_inside(run_dir, queue / ".keep")
    for name, path in clips.items():
        link(run_dir, queue / name, Path(os.path.realpath(path)))


def queue_names(rels: list[str]) -> dict[str, str]:
    """A flat, unique name in the queue for each staged path (its number keeps names apart)."""
    width = len(str(len(rels)))
    return {f"{i:0{width}d}-{Path(rel).name}": rel for i, rel in enumerate(rels, start=1)}


def read_captions(path: Path) -> dict[str, str]:
    """caption_videos.py's JSON output as resolved media file -> caption ({} when absent)."""
    if not path.is_file():
        return {}
    try:
        data = json.loads(read_text(path, what="captions file", limit=DATASET_MAX_BYTES))
    except ValueError:
        raise UsageError(
            f"{path} is not valid JSON (an interrupted write?): remove it and run again"
        ) from None
    out = {}
    for entry in data if isinstance(data, list) else []:
        if isinstance(entry, dict) and entry.get("caption") and entry.get("media_path"):
            out[os.path.realpath(path.parent / str(entry["media_path"]))] = str(entry["caption"])
    return out


def captions_from_file(path: str | os.PathLike[str]) -> tuple[dict[str, str], dict[str, str]]:
    """A file of your own captions (CSV/JSON/JSONL with a caption and a video or media_path
    column): (resolved media file -> caption, file name -> caption for names met once)."""
    ds = read_dataset_file(path)
    if "caption" not in ds.roles or "video" not in ds.roles:
        raise UsageError(
            f"captions file {ds.path} needs a caption column and a video (or "
            f"media_path) column naming each clip (its columns: "
            f"{', '.join(ds.columns) or 'none'})"
        )
    by_file: dict[Any, Any] = {}
    by_name: dict[Any, Any] = {}
    seen: dict[Any, Any] = {}
    for row in ds.rows:
        caption = row[ds.roles["caption"]].strip()
        if not caption:
            continue
        media = ds.media(row, "video")
        by_file[os.path.realpath(media)] = caption
        seen[media.name] = seen.get(media.name, 0) + 1
        by_name[media.name] = caption
    return by_file, {n: c for n, c in by_name.items() if seen[n] == 1}
