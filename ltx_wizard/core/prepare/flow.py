"""What the prepare flow's steps (caption_step.py, finish.py) read and change of the session.

session.PrepareSession is the one implementation; this protocol lets the steps' modules name
its type without importing session.py, which imports them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from ltx_wizard.core.dataset.clip_facts import ClipFacts
from ltx_wizard.core.inputs.recipes import Recipe
from ltx_wizard.core.prepare.audio_env import AudioDecode
from ltx_wizard.core.prepare.audit import AuditReport
from ltx_wizard.core.prepare.captioner import CaptionerChoice
from ltx_wizard.core.prepare.request import Asker, PrepareRequest
from ltx_wizard.core.prepare.scripts import ScriptRunner
from ltx_wizard.core.prepare.source import Source
from ltx_wizard.core.prepare.staging import Staged

Row = dict[str, str]  # a dataset row: column -> value (media paths relative to dataset/)


class PrepareFlow(Protocol):
    request: PrepareRequest
    asker: Asker
    env: dict[str, str]
    source: Source
    recipe: Recipe
    run_dir: Path
    trainer_root: Path  # the checkout's root
    dataset_dir: Path
    holdout: int | str | None  # holdout.parse_holdout's answer
    choice: CaptionerChoice
    runner: ScriptRunner
    staged: Staged
    rows: list[Row]
    supplied: list[Row]  # your own held-out rows (--holdout FILE), staged under dataset/holdout/
    failed: list[tuple[str, str]]  # (clip, why) of the clips the captioner failed on
    facts: dict[str, ClipFacts]
    rotated: dict[str, str]  # clip -> its upright copy
    split_from: dict[str, list[str]]  # clip -> the scenes it was split into
    audio_check: AudioDecode | None

    @property
    def video_column(self) -> str: ...

    @property
    def audio_trained(self) -> bool: ...

    def say(self, line: str) -> None: ...

    def log(self, name: str) -> Path: ...

    def judge(self) -> AuditReport: ...
