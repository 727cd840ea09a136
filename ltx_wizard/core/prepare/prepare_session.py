"""The prepare flow, in the skill's order: stage -> audit -> scene split -> rotated copies ->
held-out count -> captions (spot check, full pass) -> dataset.json, conditioning check,
holdout.jsonl, prepare.json. One flow for the command line and the Prepare screen; each
question goes through the `Asker`, each long step is cancellable (threads check `cancel`,
scripts are stopped with their process group).

The session only sequences the stages: what they are given is one frozen context
(context.PrepareContext), what they pass on is one frozen dataset value (dataset_value.PrepData),
each stage taking a value and returning a new one.
"""

from __future__ import annotations

import os
import threading
from datetime import datetime
from pathlib import Path
from typing import Callable, Mapping

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.io.safe_fs import check_inside
from ltx_wizard.core.io.workspace import run_lock
from ltx_wizard.core.prepare import clip_stages, finish
from ltx_wizard.core.prepare import conditioning_inputs as conditioning
from ltx_wizard.core.prepare.audio_env import AudioProbe
from ltx_wizard.core.prepare.caption_step import caption_rows
from ltx_wizard.core.prepare.captioner import GpuFree
from ltx_wizard.core.prepare.context import PrepareContext, open_context
from ltx_wizard.core.prepare.dataset_value import initial
from ltx_wizard.core.prepare.prepare_request import Asker, PrepareRequest, PrepareResult
from ltx_wizard.core.prepare.scripts import ScriptRunner
from ltx_wizard.core.prepare.staging import stage


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
        """Everything is checked here, before anything is written (context.open_context).
        `audio_probe`: the check the preprocessing's audio gate will make (a simulated run's
        is the stand-in's, handed in by the CLI and the screen); None: torchaudio.load in the checkout."""
        self.context: PrepareContext = open_context(
            request,
            asker,
            gpus=gpus,
            runner=runner,
            env=dict(os.environ if env is None else env),
            now=now,
            cancel=cancel or threading.Event(),
            audio_probe=audio_probe,
        )

    @property
    def run_dir(self) -> Path:
        return self.context.run_dir

    async def run(self) -> PrepareResult:
        ctx = self.context
        with run_lock(ctx.run_dir):
            check_inside(ctx.run_dir, ctx.dataset_dir / ".keep")
            ctx.say(f"Source: {ctx.source.describe()}; run folder {ctx.run_dir}")
            ctx.say(f"Captioner: {ctx.choice.backend} ({ctx.choice.why})")
            data = initial(stage(ctx.source, ctx.dataset_dir, ctx.run_dir))
            gate = conditioning.missing_inputs(data.staged.roles, ctx.strategy, ctx.request.canny)
            if gate:
                raise UsageError(f"{ctx.recipe.name}: {gate[0]}; nothing is preprocessed until it is there")
            data, report = await clip_stages.audited(ctx, data)
            data = await clip_stages.check_pairs(ctx, data)
            data = await clip_stages.split(ctx, data, report.long)
            data = await clip_stages.upright(ctx, data)
            data, held = await finish.holdout_count(ctx, data)
            data = await caption_rows(ctx, data)
            return await finish.finish(ctx, data, held)
