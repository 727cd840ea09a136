"""What the user asked for: one model (`PlanRequest`) for the CLI, the Paths screen and `plan`.

The Paths screen edits a draft request (fields may still be empty) and its live checks run the
plan's own inspect steps on it; the CLI builds the same request. Both go through `build_request`,
the one adapter from raw values (argparse's or the form's strings) to a request.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal, Mapping

from ltx_wizard.core.base.arguments import check_path, check_text
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.base.records import record
from ltx_wizard.core.inputs.model_paths import is_url, resolve_user_path

Validation = Literal["media", "prompts-only", "off"]
# core/inputs/recipe_checks.py DEFAULT_RECIPE (a test pins that they agree): not imported, so the
# TUI can hold a draft request without loading the YAML stack at start-up
DEFAULT_RECIPE = "t2v_lora"


@record
class PlanRequest:
    trainer_root: Path | None = None
    checkpoint: Path | None = None  # required by plan; a draft may lack it
    text_encoder: Path | None = None
    data_root: Path | None = None  # preprocessed data, or a dataset file of clips
    video_vae: Path | None = None
    audio_vae: Path | None = None
    workspace: Path | None = None
    run_name: str | None = None
    training_mode: Literal["lora", "full"] = "lora"
    effective_batch: int | None = None
    accept_risk: bool = False
    force: bool = False
    force_full: bool = False
    video_only: bool = False  # train without audio: training_strategy.audio: null
    recipe: str = DEFAULT_RECIPE  # a shipped config's stem (core/inputs/recipes.py list_recipes)
    nodes: int = 1  # machines like this one (Slurm); the probe gives one node's GPUs
    slurm_time: str | None = None
    slurm_partition: str | None = None
    slurm_cpus: int | None = None
    # core/validation/validation_choice.py: the user's files for the recipe's validation samples, their
    # prompts, and the validation asked for (None: media when given, else prompts only)
    validation_media: tuple[Path, ...] = ()
    validation_prompts: tuple[str, ...] = ()
    validation: Validation | None = None
    # when data_root is a dataset file (core/preprocess/dataset_planning.py): the preprocessing's choices
    resolution_buckets: str | None = None
    lora_trigger: str | None = None
    precomputed_dir: Path | None = None
    # checkpoints.save_training_state: full (optimizer and scheduler kept for an exact resume)
    full_training_state: bool = False
    # a config that enables W&B: the user's answer when the login cannot be read
    # (core/inputs/wandb_login.py)
    wandb: Literal["on", "off"] | None = None


# What each raw value becomes; anything not named here is taken as it is.
_PATHS = (
    "trainer_root",
    "checkpoint",
    "text_encoder",
    "data_root",
    "video_vae",
    "audio_vae",
    "workspace",
    "precomputed_dir",
)
_TEXTS = ("run_name", "slurm_time", "slurm_partition", "resolution_buckets", "lora_trigger")
_FLAGS = ("accept_risk", "force", "force_full", "video_only", "full_training_state")
REQUIRED = {
    "checkpoint": "--checkpoint FILE",
    "text_encoder": "--text-encoder PATH",
    "data_root": "--data-root DIR or --dataset FILE",
}


class InputError(UsageError):
    """A value the request cannot hold (a URL where a local path goes), naming its field."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


def _path(value: Any, field: str = "path") -> Path | None:
    if value is None or value == "":
        return None
    text = os.fspath(value)
    text = text if isinstance(text, str) else os.fsdecode(text)
    try:  # the command line's own checks (argparse ran them there): a form's field gets them here
        check_path(text, field.replace("_", " "))
    except UsageError as exc:
        raise InputError(field, exc.message) from None
    if is_url(text):  # a Path would fold its "//": refuse it here, with the words of the checks
        try:
            resolve_user_path(text, what=field.replace("_", " "))
        except UsageError as exc:
            raise InputError(field, exc.message) from None
    return Path(os.path.expanduser(text))


def _text(value: Any, field: str = "text") -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    try:  # bytes that are not UTF-8 could be neither written to config.yaml nor shown
        check_text(text, field.replace("_", " "))
    except UsageError as exc:
        raise InputError(field, exc.message) from None
    return text or None


def build_request(raw: Mapping[str, Any]) -> PlanRequest:
    """The one adapter: argparse's values or the Paths form's strings -> a (draft) request.

    Empty strings are "not given"; paths get `~` expanded (a form has no shell to do it); flags
    accept booleans or the form's "yes"/""; unknown keys are refused (a typo is a bug here)."""
    known = set(PlanRequest.__dataclass_fields__)
    unknown = set(raw) - known
    if unknown:
        raise TypeError(f"not fields of PlanRequest: {', '.join(sorted(unknown))}")
    values: dict[str, Any] = {}
    for name, value in raw.items():
        if name in _PATHS:
            values[name] = _path(value, name)
        elif name in _TEXTS:
            values[name] = _text(value, name)
        elif name in _FLAGS:
            values[name] = value in (True, "yes", "true", "1")
        elif name == "validation_media":
            found = (_path(v, "validation_media") for v in value or ())
            values[name] = tuple(p for p in found if p is not None)
        elif name == "validation_prompts":
            values[name] = tuple(value or ())
        elif name == "validation":
            values[name] = value or None
        else:
            values[name] = value
    return PlanRequest(**values)


def lenient_request(raw: Mapping[str, Any]) -> tuple[PlanRequest, dict[str, str]]:
    """build_request for a form or `check`: a field the request cannot hold is left out and its
    message returned under its name, so every other field is still checked."""
    raw = dict(raw)
    problems: dict[str, str] = {}
    while True:
        try:
            return build_request(raw), problems
        except InputError as exc:
            problems[exc.field] = exc.message
            raw[exc.field] = () if exc.field == "validation_media" else None


def require_complete(request: PlanRequest) -> None:
    """What `plan` needs before anything is read: the three required inputs."""
    missing = [flag for name, flag in REQUIRED.items() if getattr(request, name) is None]
    if missing:
        raise UsageError(f"missing {', '.join(missing)}")
