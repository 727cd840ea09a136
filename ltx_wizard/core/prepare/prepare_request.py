"""What `prepare` is asked to do, whom it asks, and what it hands on.

The same flow serves the command line and the Prepare screen: questions go through an `Asker`
(a terminal prompt, or a dialog awaited on the screen), progress and lines through its `say` and
`progress`, which may be called from a worker thread.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, Mapping, Protocol

from ltx_wizard.core.base.arguments import check_path, check_text, count_or_path
from ltx_wizard.core.base.errors import UsageError, UserStop
from ltx_wizard.core.base.records import record
from ltx_wizard.core.dataset.buckets import parse_buckets
from ltx_wizard.core.inputs.recipes import DEFAULT_RECIPE
from ltx_wizard.core.io.workspace import validate_run_name
from ltx_wizard.core.prepare.captioner import CLI_KNOBS, Knobs, check_server_url
from ltx_wizard.core.prepare.holdout import MAX_HOLDOUT, parse_holdout


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

    @property
    def plan(self) -> PlanInputs:
        """What the plan takes from this dataset, as the plan request's fields."""
        return PlanInputs(
            data_root=self.dataset_file,
            workspace=self.run_dir.parent,
            run_name=self.run_dir.name,
            recipe=self.recipe,
            resolution_buckets=self.bucket,
            lora_trigger=self.lora_trigger,
            video_only=self.all_silent,
            trainer_root=self.trainer_root,
        )


@record
class PlanInputs:
    """What prepare hands the plan, named as core/plan/plan_request.py PlanRequest names its fields (a
    test holds them to it): the Prepare screen puts them into its draft request, and the CLI's
    printed `ltx-wizard plan` line is rendered from them (next_step.py), never the other way."""

    data_root: Path  # the dataset file
    workspace: Path
    run_name: str
    recipe: str
    resolution_buckets: str
    lora_trigger: str | None = None
    video_only: bool = False  # no clip has sound: train video only
    trainer_root: Path | None = None  # the checkout whose recipe and scripts were used

    @property
    def run_dir(self) -> Path:
        return self.workspace / self.run_name


# The adapter's raw inputs: what each becomes; `recipe` falls back to the default.
_PATHS = ("source", "workspace", "trainer_root", "captions_file")  # "" is not given; kept as typed
_TEXTS = ("run_name", "captioner", "vllm_url", "holdout", "lora_trigger", "buckets", "instruction")
_FLAGS = ("split_scenes", "recaption", "canny")
SOURCE_NEEDED = "the source is required: a folder of clips or images, one video, or a dataset file"


def build_prepare_request(
    raw: Mapping[str, Any], *, knobs: Knobs = CLI_KNOBS, names: Mapping[str, str] | None = None
) -> PrepareRequest:
    """The one adapter, as core/plan/plan_request.py build_request is the plan's: argparse's values or
    the Prepare screen's fields -> a request. Texts are stripped and "" is not given, the
    captioner "auto" is None; every check that needs nothing of the box is made here, so a bad
    input gets the same words on both (`knobs`: how they name a setting; `names`: how a refused
    value's field is named, else its name). Unknown keys are a bug."""
    unknown = set(raw) - (set(PrepareRequest.__dataclass_fields__) - {"knobs"})
    if unknown:
        raise TypeError(f"not fields of PrepareRequest: {', '.join(sorted(unknown))}")
    values: dict[str, Any] = {}
    for name, value in raw.items():
        if name in _FLAGS:
            values[name] = value in (True, "yes", "true", "1")
        elif name in _PATHS:
            values[name] = None if value is None or str(value) == "" else str(value)
        elif name in _TEXTS or name == "recipe":
            values[name] = None if value is None else (str(value).strip() or None)
    _typed(values, names or {})
    if values.get("captioner") == "auto":
        values["captioner"] = None
    if not values.get("source"):
        raise UsageError(SOURCE_NEEDED)
    values["recipe"] = values.get("recipe") or DEFAULT_RECIPE
    request = PrepareRequest(**values, knobs=knobs)
    return replace(request, vllm_url=_checked(request))


def _typed(values: Mapping[str, Any], names: Mapping[str, str]) -> None:
    """Each typed value checked as the command line's options are (core/base/arguments.py; argparse
    ran the same checks there): a path the system can open for its length, UTF-8 text, a held-out
    count in ASCII digits under its bound. A refusal names the field (`names`) it was typed in."""
    for name, value in values.items():
        if not isinstance(value, str):
            continue
        said = names.get(name, name.replace("_", " "))
        if name == "holdout":
            count_or_path(value, said, most=MAX_HOLDOUT)
        elif name in _PATHS:
            check_path(value, said)
        else:
            check_text(value, said)


def _checked(request: PrepareRequest) -> str | None:
    """The checks of what was typed; returns the server URL as the captioner takes it."""
    if request.run_name is not None:
        validate_run_name(request.run_name)
    if request.buckets is not None:
        parse_buckets(request.buckets)
    parse_holdout(request.holdout)
    trigger = (request.lora_trigger or "").strip()
    if trigger and request.instruction and trigger.lower() in request.instruction.lower():
        raise UsageError(
            f"--instruction names the trigger word {trigger!r}: it is prepended "
            "at preprocessing (--lora-trigger); keep it out of the captions"
        )
    return None if request.vllm_url is None else check_server_url(request.vllm_url, knobs=request.knobs)
