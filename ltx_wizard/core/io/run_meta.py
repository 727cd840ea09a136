"""Read `<run>/run.json`, the facts `plan` recorded for later commands (absent in old folders).

Frozen dataclasses checked by hand, not pydantic models: `plan` writes run.json and pydantic
would cost it about 0.1 s. The reader accepts exactly what the pydantic models did in their lax
mode (a whole number as "2" or 2.0, a yes/no as "true" or 1, unknown keys ignored) and reads
anything else as "nothing recorded", as before; the writer gives the same text.
"""

from __future__ import annotations

import math
import re
import uuid
from dataclasses import field
from pathlib import Path
from typing import Any, Callable

from ltx_wizard.core.base.records import json_text, plain, record
from ltx_wizard.core.io.bounded import JSON_MAX_BYTES, loads_json, read_bytes
from ltx_wizard.core.base.errors import UsageError


@record
class LaunchSpec:
    """How the full training run starts: what `<run>/launch.sh` runs (cwd, env, argv) and where
    its output and pid go. Built once by the plan (core/launch/script.py); read back from run.json
    by the Done screen, the background start and `ensure_script`, never from plan.md."""

    argv: list[str]
    cwd: Path
    env: dict[str, str] = field(default_factory=dict)
    simulated: bool = False  # the simulated trainer (--simulate/--demo), not the real one
    log: Path | None = None  # None in run.json written before these were recorded
    pid_file: Path | None = None

    def to_json(self) -> dict[str, Any]:
        """The JSON form, key order as written (pydantic's model_dump(mode="json"))."""
        doc: dict[str, Any] = plain(self)
        return doc


@record
class RunMeta:
    # Which run this folder is, and where the plan put it: launch.sh and slurm.sbatch run only
    # in the folder whose run.json names their id, at that place (config.yaml's paths name it).
    run_id: str | None = None  # 32 lower-case hex digits (new_run_id)
    run_dir: Path | None = None
    trainer_root: Path | None = None
    tier: str | None = None
    num_gpus: int | None = None  # one node's: autotune stays single-node
    nodes: int = 1
    accepted_risk: bool = False
    recipe: str | None = None  # the shipped config's stem (core/inputs/recipes.py)
    base_config: Path | None = None  # the shipped file config.yaml was made from (plan.md's diff)
    launch: LaunchSpec | None = None

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = plain(self)
        return doc

    def json_text(self) -> str:
        """run.json's text: what pydantic's model_dump_json(indent=2) wrote, plus a newline."""
        return json_text(self)


class _Bad(ValueError):
    """A value the pydantic model refused: the whole file reads as nothing recorded."""


# pydantic's lax conversions from JSON values, each refusing what it refused
_RUN_ID = re.compile(r"[0-9a-f]{32}")
_INT_TEXT = re.compile(r"[+-]?[0-9]+(?:_[0-9]+)*(?:\.0+)?")
MAX_COUNT = 65536  # GPUs on a node, nodes in a job: far above any real one
_TRUE = {"1", "on", "t", "true", "y", "yes"}
_FALSE = {"0", "off", "f", "false", "n", "no"}


def _str(value: Any) -> str:
    if not isinstance(value, str):
        raise _Bad(value)
    return value


def _int(value: Any) -> int:
    if isinstance(value, int):  # a bool too: true reads as 1
        return int(value)
    if isinstance(value, float):
        if math.isfinite(value) and value.is_integer() and abs(value) < 2**63:
            return int(value)
        raise _Bad(value)
    if isinstance(value, str):
        text = value.strip()
        if len(text) <= 40 and _INT_TEXT.fullmatch(text):  # bounded before int()
            return int(text.split(".")[0])
    raise _Bad(value)


def _count(value: Any) -> int:
    """A GPU or node count: a whole number a machine can have (a hand-edited -3 or 10**100
    would reach the preprocess batch and autotune's GPU slots); else nothing recorded."""
    number = _int(value)
    if not 1 <= number <= MAX_COUNT:
        raise _Bad(value)
    return number


def _bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.lower() in _TRUE | _FALSE:
        return value.lower() in _TRUE
    raise _Bad(value)


def _path(value: Any) -> Path:
    return Path(_str(value))


def _str_list(value: Any) -> list[str]:
    if not isinstance(value, list):
        raise _Bad(value)
    return [_str(v) for v in value]


def _str_dict(value: Any) -> dict[str, str]:
    if not isinstance(value, dict):
        raise _Bad(value)
    return {k: _str(v) for k, v in value.items()}


def _run_id(value: Any) -> str:
    text = _str(value)
    if not _RUN_ID.fullmatch(text):
        raise _Bad(value)
    return text


def _optional(convert: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda value: None if value is None else convert(value)


def _launch(value: Any) -> LaunchSpec:
    return LaunchSpec(**_read(value, _LAUNCH_FIELDS, required=("argv", "cwd")))


_LAUNCH_FIELDS: dict[str, Callable[[Any], Any]] = {
    "argv": _str_list,
    "cwd": _path,
    "env": _str_dict,
    "simulated": _bool,
    "log": _optional(_path),
    "pid_file": _optional(_path),
}
_META_FIELDS: dict[str, Callable[[Any], Any]] = {
    "run_id": _optional(_run_id),
    "run_dir": _optional(_path),
    "trainer_root": _optional(_path),
    "tier": _optional(_str),
    "num_gpus": _optional(_count),
    "nodes": _count,
    "accepted_risk": _bool,
    "recipe": _optional(_str),
    "base_config": _optional(_path),
    "launch": _optional(_launch),
}


def _read(
    doc: Any, known: dict[str, Callable[[Any], Any]], *, required: tuple[str, ...] = ()
) -> dict[str, Any]:
    if not isinstance(doc, dict) or any(k not in doc for k in required):
        raise _Bad(doc)
    # keys a newer wizard may add are ignored, as the models ignored them
    return {k: convert(doc[k]) for k, convert in known.items() if k in doc}


def run_meta_from_json(doc: Any) -> RunMeta:
    """A RunMeta from run.json's parsed JSON; ValueError for what the file cannot hold."""
    return RunMeta(**_read(doc, _META_FIELDS))


def read_run_meta(run_dir: Path) -> RunMeta:
    """What run.json says; an absent or damaged file reads as 'nothing recorded'."""
    try:  # bounded, regular file only, depth-limited: a planted FIFO or bomb is "nothing"
        doc = loads_json(
            read_bytes(run_dir / "run.json", what="run.json", limit=JSON_MAX_BYTES), what="run.json"
        )
        return run_meta_from_json(doc)
    except (UsageError, ValueError):
        return RunMeta()


def new_run_id() -> str:
    """A fresh run's id: run.json, launch.sh and slurm.sbatch carry the same one."""
    return uuid.uuid4().hex
