"""The prepare flow, in the skill's order: stage -> audit -> scene split -> rotated copies ->
held-out count -> captions (spot check, full pass) -> dataset.json, conditioning check,
holdout.jsonl, prepare.json. One flow for the command line and the Prepare screen; each
question goes through the `Asker`, each long step is cancellable (threads check `cancel`,
scripts are stopped with their process group).
"""

from __future__ import annotations

import asyncio
import os
import threading
from datetime import datetime
from pathlib import Path
from typing import Callable, Mapping

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.dataset.clip_facts import ClipFacts
from ltx_wizard.core.dataset.clip_probe import probe_clip
from ltx_wizard.core.dataset.rows import required_roles
from ltx_wizard.core.dataset.sources import audio_folder
from ltx_wizard.core.inputs.checkout import find_checkout
from ltx_wizard.core.inputs.recipes import find_recipe
from ltx_wizard.core.io.safe_fs import check_inside, check_run_dir
from ltx_wizard.core.io.workspace import choose_root, default_run_name, run_lock, validate_run_name
from ltx_wizard.core.prepare import conditioning, finish
from ltx_wizard.core.prepare.audio_env import AudioDecode, AudioProbe, check_audio_decode
from ltx_wizard.core.prepare.audit import AuditReport, audit, probe_staged
from ltx_wizard.core.prepare.caption_step import caption_rows
from ltx_wizard.core.prepare.captioner import GpuFree, choose_captioner
from ltx_wizard.core.prepare.flow import Row
from ltx_wizard.core.prepare.holdout import parse_holdout
from ltx_wizard.core.prepare.request import Asker, PrepareRequest, PrepareResult
from ltx_wizard.core.prepare.rotate import make_rotated_copy, rotated_name
from ltx_wizard.core.prepare.scenes import accept_split, discard, preview_split
from ltx_wizard.core.prepare.scripts import ScriptRunner
from ltx_wizard.core.prepare.source import read_source
from ltx_wizard.core.prepare.staging import stage, unlink_staged


class PrepareSession:
    def __init__(
        self,
        request: PrepareRequest,
        asker: Asker,
        *,
        gpus: Callable[[], list[GpuFree]],
        runner: Callable[[Path, str | None], ScriptRunner],
        env: Mapping[str, str] | None = None,
        now: datetime | None = None,
        cancel: threading.Event | None = None,
        audio_probe: AudioProbe | None = None,
    ) -> None:
        """`audio_probe`: the check the preprocessing's audio gate will make (a simulated run's
        is the stand-in's, commands/prepare.py); None: torchaudio.load in the checkout."""
        self.request, self.asker = request, asker
        self.audio_probe = audio_probe
        self.env = dict(os.environ if env is None else env)
        self.cancel = cancel or threading.Event()
        # filled in as the flow goes (flow.PrepareFlow says what each is)
        self.supplied: list[Row] = []
        self.failed: list[tuple[str, str]] = []
        self.facts: dict[str, ClipFacts] = {}
        self.rotated: dict[str, str] = {}
        self.split_from: dict[str, list[str]] = {}
        self.audio_check: AudioDecode | None = None
        self._setup(gpus, runner, now)

    def _setup(
        self,
        gpus: Callable[[], list[GpuFree]],
        runner: Callable[[Path, str | None], ScriptRunner],
        now: datetime | None,
    ) -> None:
        """Everything checked before anything is written: source, checkout, recipe, run folder,
        captioner, held-out choice, trigger word."""
        req = self.request
        self.source = read_source(req.source)
        checkout = find_checkout(req.trainer_root, env=self.env)
        self.recipe = find_recipe(checkout.trainer_dir / "configs", req.recipe)
        self.strategy = self.recipe.strategy
        required_roles(self.strategy)  # an audio-only recipe is refused as plan refuses it
        self.runner = runner(checkout.trainer_dir, checkout.uv_path)
        self.trainer_root = checkout.root
        root = choose_root(req.workspace, self.env)
        name = (
            validate_run_name(req.run_name)
            if req.run_name
            else default_run_name(self.source.path, now=now, mode=self.recipe.run_mode)
        )
        self.run_dir = root / name
        check_run_dir(self.run_dir)
        if (self.run_dir / "plan.md").exists():
            raise UsageError(
                f"{self.run_dir} is planned already: prepare into a new run "
                "(another --run-name), or plan again from its dataset file"
            )
        self.dataset_dir = self.run_dir / "dataset"
        self.holdout = parse_holdout(req.holdout)
        self.choice = choose_captioner(
            req.captioner,
            self.env,
            gpus(),
            vllm_url=req.vllm_url,
            captions_file=bool(req.captions_file),
            knobs=req.knobs,
        )
        if self.choice.backend == "none" and not req.captions_file and self.source.kind != "dataset":
            raise UsageError(self.choice.why)
        trigger = (req.lora_trigger or "").strip()
        if trigger and req.instruction and trigger.lower() in req.instruction.lower():
            raise UsageError(
                f"--instruction names the trigger word {trigger!r}: it is prepended "
                "at preprocessing (--lora-trigger); keep it out of the captions"
            )

    def log(self, name: str) -> Path:
        return self.run_dir / "logs" / f"prepare-{name}.log"

    async def run(self) -> PrepareResult:
        with run_lock(self.run_dir):
            check_inside(self.run_dir, self.dataset_dir / ".keep")
            self.say(f"Source: {self.source.describe()}; run folder {self.run_dir}")
            self.say(f"Captioner: {self.choice.backend} ({self.choice.why})")
            self.staged = stage(self.source, self.dataset_dir, self.run_dir)
            self.rows = [dict(r) for r in self.staged.rows]
            gate = conditioning.missing_inputs(self.staged.roles, self.strategy, self.request.canny)
            if gate:
                raise UsageError(f"{self.recipe.name}: {gate[0]}; nothing is preprocessed until it is there")
            report = await self._audit()
            await self._check_pairs()
            await self._split(report)
            await self._rotate()
            held = await finish.holdout_count(self)
            self.rows = await caption_rows(self)
            return await finish.finish(self, held)

    def say(self, line: str) -> None:
        self.asker.say(line)

    @property
    def video_column(self) -> str:
        return self.staged.video_column

    @property
    def audio_trained(self) -> bool:
        return audio_folder(self.strategy) is not None and "audio" not in self.staged.roles

    def clips(self) -> dict[str, Path]:
        return {r[self.video_column]: self.dataset_dir / r[self.video_column] for r in self.rows}

    def judge(self) -> AuditReport:
        facts = [(c, self.facts[c]) for c in self.clips() if c in self.facts]
        return audit(
            facts, buckets=self.request.buckets, audio_trained=self.audio_trained, recipe=self.recipe.name
        )

    async def _audit(self) -> AuditReport:
        self.say("Auditing the clips (read with PyAV, as the trainer reads them)...")
        found = await asyncio.to_thread(
            probe_staged,
            self.clips(),
            cancelled=self.cancel,
            on_progress=lambda d, t: self.asker.progress("audit", d, t),
        )
        self.facts = dict(found)
        report = await asyncio.to_thread(self.judge)  # 10,000 clips: off the loop
        for line in report.summary:
            self.say(line)
        for item in report.findings:
            self.say(f"{item.clip}: {item.text}")
        gone = {c for c, _ in report.dropped}
        self.rows = [r for r in self.rows if r[self.video_column] not in gone]
        if not self.rows:
            raise UsageError(
                f"no clip of {self.source.path} can be trained on: "
                f"{report.dropped[0][0]}: {report.dropped[0][1]}"
            )
        if self.audio_trained and report.with_audio:
            clip = report.with_audio[0]
            probe = self.audio_probe or (
                lambda path, label, log: check_audio_decode(self.runner, path, label, log, self.env)
            )
            self.audio_check = await probe(self.dataset_dir / clip, clip, self.log("audio-check"))
            self.say(self.audio_check.describe())
        return report

    async def _check_pairs(self) -> None:
        roles = self.staged.roles
        if not any(r in roles for r in conditioning.CONDITIONING):
            return
        from ltx_wizard.core.dataset.buckets import min_frames, parse_buckets

        suggested = (await asyncio.to_thread(self.judge)).bucket
        need = min_frames(parse_buckets(self.request.buckets or suggested))
        pairs = await asyncio.to_thread(
            conditioning.check_pairs, self.rows, roles, self.video_column, self.dataset_dir, need, probe_clip
        )
        for pairing in pairs:
            self.say(pairing.describe())
        conditioning.require_pairs(pairs, str(self.source.path))

    async def _split(self, report: AuditReport) -> None:
        wanted = set(report.long) if self.request.split_scenes else set()
        if self.source.kind == "video":
            wanted = {r[self.video_column] for r in self.rows}
        for row in [r for r in self.rows if r[self.video_column] in wanted]:
            clip = row[self.video_column]
            if any(row.get(self.staged.roles.get(k, "")) for k in conditioning.CONDITIONING):
                self.say(f"{clip}: not split (its reference or mask pairs with the whole clip)")
                continue
            await self._split_one(row, clip)

    async def _split_one(self, row: Row, clip: str) -> None:
        preview = await preview_split(
            self.runner,
            self.dataset_dir / clip,
            clip,
            self.dataset_dir,
            self.run_dir,
            self.log("split-scenes"),
            self.env,
            on_line=lambda line: self.asker.progress("scenes", 0, 0),
        )
        self.say(preview.describe())
        if preview.found == 0:
            discard(preview)
            if preview.filtered:
                self.rows.remove(row)
            return
        if not await self.asker.confirm(
            f"{preview.describe()}. Use these {preview.found} scenes in place of {clip}?", topic="scenes"
        ):
            discard(preview)
            self.say(f"{clip}: kept whole")
            return
        scenes = accept_split(preview, self.dataset_dir, self.run_dir)
        unlink_staged(self.run_dir, self.dataset_dir / clip)
        at = self.rows.index(row)
        keep = {k: v for k, v in row.items() if k not in (self.video_column, self.staged.caption_column)}
        self.rows[at : at + 1] = [{**keep, self.video_column: s} for s in scenes]
        self.split_from = {**self.split_from, clip: scenes}
        for rel in scenes:
            self.facts[rel] = await asyncio.to_thread(probe_clip, self.dataset_dir / rel)

    async def _rotate(self) -> None:
        turned = [
            (c, self.facts[c].rotation) for c in self.clips() if c in self.facts and self.facts[c].rotation
        ]
        if not turned:
            return
        names = ", ".join(f"{c} ({deg}°)" for c, deg in turned[:4])
        if not await self.asker.confirm(
            f"{len(turned)} clip(s) are stored rotated and would train sideways: {names}. "
            "Make upright copies in the run folder's dataset/rotated/ (PyAV; your files "
            "are not touched)?",
            topic="rotate",
        ):
            self.say(f"{len(turned)} rotated clip(s) left as they are: they train sideways")
            return
        self.rotated = {}
        for clip, degrees in turned:
            await self._rotate_one(clip, degrees)

    async def _rotate_one(self, clip: str, degrees: int) -> None:
        rel = rotated_name(clip)
        src, dest = self.dataset_dir / clip, self.dataset_dir / rel
        fresh = dest.is_file() and dest.stat().st_mtime >= os.stat(src).st_mtime
        if not fresh:
            await asyncio.to_thread(make_rotated_copy, src, degrees, dest, self.run_dir)
        row = next(r for r in self.rows if r[self.video_column] == clip)
        row[self.video_column] = rel
        if clip in self.staged.originals:  # a link of ours (a scene is a file of the run)
            unlink_staged(self.run_dir, src)
        self.facts[rel] = await asyncio.to_thread(probe_clip, dest)
        self.rotated[clip] = rel
        self.say(f"{clip}: upright copy {rel} ({degrees}° turned; the original is untouched)")
