"""The few facts of a run's config.yaml the monitor needs (read bounded; a bad file reads empty)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, overload

from ltx_wizard.core.base.errors import UsageError, WizardError
from ltx_wizard.core.base.text_safety import clip
from ltx_wizard.core.io.bounded import read_text
from ltx_wizard.core.io.run_meta import read_run_meta
from ltx_wizard.core.io.yaml_patch import get_dotted, load_yaml


def read_config(path: Path) -> dict[str, Any]:
    """config.yaml as plain data; {} when absent or unreadable."""
    try:
        doc = load_yaml(read_text(path, what="config"))
    except (WizardError, ValueError, RecursionError):  # a 5,000-digit number: ruamel's int()
        return {}
    return dict(doc) if isinstance(doc, dict) else {}


def value(config: dict[str, Any], dotted: str, default: Any = None) -> Any:
    found = get_dotted(config, dotted, default)
    return default if found is None else found


def output_dir(run_dir: Path, config: dict[str, Any]) -> Path:
    """Where the trainer writes checkpoints and samples. ltx_trainer/config.py
    LtxTrainerConfig.expand_output_path resolves it against the trainer's working directory
    (launch.sh cds to the recorded cwd); the default is `outputs`."""
    raw = Path(str(value(config, "output_dir", "outputs"))).expanduser()
    if raw.is_absolute():
        return raw
    spec = read_run_meta(run_dir).launch
    return (spec.cwd if spec is not None else run_dir) / raw


# pydantic's lax int from a string: sign, digits with single underscores, an all-zero fraction;
# bounded (40 digits) before int()
_WHOLE = re.compile(r"[+-]?\d{1,40}(?:_\d{1,40}){0,10}(?:\.0{1,40})?")


@overload
def whole(config: dict[str, Any], dotted: str, default: int) -> int: ...
@overload
def whole(config: dict[str, Any], dotted: str, default: None = None) -> int | None: ...


def whole(config: dict[str, Any], dotted: str, default: int | None = None) -> int | None:
    """A whole-number setting as pydantic's lax int reads it (an int, a bool, an integral float, a
    string of digits), digits bounded before int(); `default` when unset. Raises UsageError naming
    the key for anything else ("abc", [1, 2], 5.5, a 5,000-digit number)."""
    raw = get_dotted(config, dotted, None)
    if raw is None:
        return default
    if type(raw) in (int, bool) and abs(raw) < 10**40:
        return int(raw)
    if type(raw) is float and raw.is_integer() and abs(raw) < 1e40:
        return int(raw)
    text = raw.strip() if type(raw) is str else ""
    if _WHOLE.fullmatch(text) and len(text.replace("_", "")) <= 80:
        return int(text.split(".")[0].replace("_", ""))
    shown = clip(repr(raw), 40)
    raise UsageError(
        f"config.yaml: {dotted} is {shown}, not a whole number the trainer accepts: fix it in config.yaml"
    )


def whole_or(config: dict[str, Any], dotted: str, default: int | None = None) -> int | None:
    """`whole`, with `default` for a value it refuses (where a bad value only means unknown)."""
    try:
        return whole(config, dotted, default)
    except UsageError:
        return default
