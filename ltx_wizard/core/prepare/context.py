"""What the prepare flow's stages are given and never change: the request, whom to ask, and what
was checked before anything is written (source, checkout, recipe, run folder, captioner,
held-out choice). `open_context` makes the checks; the stages read the context and pass the
dataset value (dataset_value.PrepData) from one to the next.
"""

from __future__ import annotations

import threading
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Mapping

from ltx_wizard.core.io.run_folder import DATASET_DIR, LOGS_DIR, PLAN_MD
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.base.records import record
from ltx_wizard.core.dataset.rows import required_roles
from ltx_wizard.core.dataset.sources import audio_folder
from ltx_wizard.core.inputs.checkout import find_checkout
from ltx_wizard.core.inputs.recipes import Recipe, find_recipe
from ltx_wizard.core.io.safe_fs import check_run_dir
from ltx_wizard.core.io.workspace import choose_root, default_run_name, validate_run_name
from ltx_wizard.core.prepare.audio_env import AudioProbe
from ltx_wizard.core.prepare.audit import AuditReport, audit
from ltx_wizard.core.prepare.captioner import CaptionerChoice, GpuFree, choose_captioner
from ltx_wizard.core.prepare.dataset_value import PrepData
from ltx_wizard.core.prepare.holdout import parse_holdout
from ltx_wizard.core.prepare.prepare_request import Asker, PrepareRequest
from ltx_wizard.core.prepare.scripts import ScriptRunner
from ltx_wizard.core.prepare.source import Source, read_source
from ltx_wizard.core.prepare.staging import Staged


@record
class PrepareContext:
    request: PrepareRequest
    asker: Asker
    env: Mapping[str, str]
    cancel: threading.Event
    audio_probe: AudioProbe | None  # None: torchaudio.load in the checkout
    source: Source
    recipe: Recipe
    runner: ScriptRunner
    trainer_root: Path  # the checkout's root
    run_dir: Path
    holdout: int | str | None  # holdout.parse_holdout's answer
    choice: CaptionerChoice

    @property
    def dataset_dir(self) -> Path:
        return DATASET_DIR.path(self.run_dir)

    @property
    def strategy(self) -> Any:
        return self.recipe.strategy

    def say(self, line: str) -> None:
        self.asker.say(line)

    def log(self, name: str) -> Path:
        return LOGS_DIR.path(self.run_dir) / f"prepare-{name}.log"

    def audio_trained(self, staged: Staged) -> bool:
        """The recipe trains sound and the dataset gives no audio column of its own."""
        return audio_folder(self.strategy) is not None and "audio" not in staged.roles

    def judge(self, data: PrepData) -> AuditReport:
        """The audit of the clips the rows hold now, from the facts read of them."""
        facts = [(c, data.facts[c]) for c in data.clips(self.dataset_dir) if c in data.facts]
        return audit(
            facts,
            buckets=self.request.buckets,
            audio_trained=self.audio_trained(data.staged),
            recipe=self.recipe.name,
        )


def open_context(
    request: PrepareRequest,
    asker: Asker,
    *,
    gpus: Callable[[], list[GpuFree]],
    runner: Callable[[Path, str | None], ScriptRunner],
    env: Mapping[str, str],
    now: datetime | None,
    cancel: threading.Event,
    audio_probe: AudioProbe | None,
) -> PrepareContext:
    """Everything of the box checked before anything is written: source, checkout, recipe, run
    folder, captioner, held-out choice (what was typed is checked by request.build_prepare_request)."""
    source = read_source(request.source)
    checkout = find_checkout(request.trainer_root, env=env)
    recipe = find_recipe(checkout.trainer_dir / "configs", request.recipe)
    required_roles(recipe.strategy)  # an audio-only recipe is refused as plan refuses it
    scripts = runner(checkout.trainer_dir, checkout.uv_path)
    run_dir = _run_dir(request, source, recipe, env, now)
    holdout = parse_holdout(request.holdout)
    choice = choose_captioner(
        request.captioner,
        env,
        gpus(),
        vllm_url=request.vllm_url,
        captions_file=bool(request.captions_file),
        knobs=request.knobs,
    )
    if choice.backend == "none" and not request.captions_file and source.kind != "dataset":
        raise UsageError(choice.why)
    return PrepareContext(
        request=request,
        asker=asker,
        env=env,
        cancel=cancel,
        audio_probe=audio_probe,
        source=source,
        recipe=recipe,
        runner=scripts,
        trainer_root=checkout.root,
        run_dir=run_dir,
        holdout=holdout,
        choice=choice,
    )


def _run_dir(
    request: PrepareRequest, source: Source, recipe: Recipe, env: Mapping[str, str], now: datetime | None
) -> Path:
    root = choose_root(request.workspace, env)
    name = (
        validate_run_name(request.run_name)
        if request.run_name
        else default_run_name(source.path, now=now, mode=recipe.run_mode)
    )
    run_dir = root / name
    check_run_dir(run_dir)
    if PLAN_MD.path(run_dir).exists():
        raise UsageError(
            f"{run_dir} is planned already: prepare into a new run "
            "(another --run-name), or plan again from its dataset file"
        )
    return run_dir
