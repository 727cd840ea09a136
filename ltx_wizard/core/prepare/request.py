"""What `prepare` is asked to do, whom it asks, and what it hands on.

The same flow serves the command line and the Prepare screen: questions go through an `Asker`
(a terminal prompt, or a dialog awaited on the screen), progress and lines through its `say` and
`progress`, which may be called from a worker thread.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from ltx_wizard.core.base.errors import UserStop
from ltx_wizard.core.base.records import record
from ltx_wizard.core.inputs.recipes import DEFAULT_RECIPE
from ltx_wizard.core.prepare.captioner import CLI_KNOBS, Knobs


@record
class PrepareRequest:
    source: str
    workspace: str | None = None
    run_name: str | None = None
    trainer_root: str | None = None
    recipe: str = DEFAULT_RECIPE
    captioner: str | None = None  # None: chosen from what the box has
    vllm_url: str | None = None
    captions_file: str | None = None  # captions of your own (no captioner needed)
    split_scenes: bool = False  # split a folder's long videos (one video given: always)
    holdout: str | None = None  # a count (0 skips), or your held-out file or folder
    lora_trigger: str | None = None  # recorded for preprocessing; never put in a caption
    buckets: str | None = None  # judge the clips against these (else the suggested one)
    instruction: str | None = None  # a caption instruction agreed after a spot check
    recaption: bool = False  # caption again clips that have captions
    canny: bool = False  # make Canny edge references (scripts/compute_reference.py)
    knobs: Knobs = CLI_KNOBS  # how advice names the settings: the flags, or the screen's fields


class Asker(Protocol):
    async def confirm(self, question: str, *, topic: str) -> bool:
        """An offer (topic: rotate, scenes, leave-out): True to go ahead."""

    async def approve_captions(self, shown: list[tuple[str, str]]) -> bool | str | None:
        """The spot check, every caption in full: True approves, False stops (the user's no), a
        text is a new instruction to caption the same clips with; None: no one could be asked."""

    async def choose_holdout(self, question: str, total: int) -> int:
        """A small dataset's held-out count: 0 (skip), 1 or 2."""

    def say(self, line: str) -> None:
        """A line of what happened (may be called from a worker thread)."""

    def progress(self, stage: str, done: int, total: int) -> None:
        """How far a long stage is (may be called from a worker thread)."""


class SpotCheckStop(UserStop):
    """The user stopped at the caption spot check (the skill's hard gate): nothing captioned
    beyond the samples. A stop by the user: exit 130 (the README's list), never the VRAM gate's 3."""


@record
class PrepareResult:
    run_dir: Path
    dataset_file: Path
    samples: int
    recipe: str
    bucket: str  # suggested from the clips (the plan's --resolution-buckets)
    holdout_file: Path | None = None
    held_out: tuple[str, ...] = ()
    lora_trigger: str | None = None
    all_silent: bool = False  # no clip has sound: train video only
    trainer_root: Path | None = None  # the checkout whose recipe and scripts were used
    lines: tuple[str, ...] = ()  # the closing summary

    def plan_args(self) -> list[str]:
        """The plan's arguments for this dataset (models and checkout are the plan's own)."""
        args = [
            "--dataset",
            str(self.dataset_file),
            "--workspace",
            str(self.run_dir.parent),
            "--run-name",
            self.run_dir.name,
            "--recipe",
            self.recipe,
            "--resolution-buckets",
            self.bucket,
        ]
        if self.lora_trigger:
            args += ["--lora-trigger", self.lora_trigger]
        if self.all_silent:
            args.append("--video-only")
        return args
