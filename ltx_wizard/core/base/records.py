"""`record`: a frozen, keyword-only dataclass that converts its inputs as the pydantic models it
replaces did (a str given for a Path field becomes a Path, a list for a tuple field a tuple).

`plan` builds these on its import path; pydantic (about 50 ms to import and as much again to
build the models' schemas) is kept for what really validates foreign input (trainer events,
autotune records). Only the two lax conversions the wizard's own callers rely on are done here:
argparse and the TUI hand strings for paths, and callers pass lists for tuples. Anything read
from disk is checked by the run folder's codec (core/io/run_codec.py), never by this.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, fields, is_dataclass
from pathlib import Path
from typing import Any, Callable, TypeVar

if sys.version_info >= (3, 11):
    from typing import dataclass_transform
else:  # pydantic depends on typing_extensions
    from typing_extensions import dataclass_transform

T = TypeVar("T")


def _as_path(value: Any) -> Any:
    return Path(value) if isinstance(value, str) else value


def _as_tuple(item: Callable[[Any], Any] | None) -> Callable[[Any], Any]:
    def convert(value: Any) -> Any:
        if isinstance(value, (list, tuple)):
            return tuple(value) if item is None else tuple(item(v) for v in value)
        return value

    return convert


def _converter(annotation: str) -> Callable[[Any], Any] | None:
    """From the field's annotation text (this package uses `from __future__ import annotations`)."""
    text = annotation.replace(" ", "")
    if text in ("Path", "Path|None"):
        return _as_path
    if text.startswith("tuple[") and text.endswith(",...]"):
        inner = text[len("tuple[") : -len(",...]")]
        if inner == "Path":
            return _as_tuple(_as_path)
        if inner.startswith("tuple["):
            return _as_tuple(_as_tuple(None))
        return _as_tuple(None)
    return None


@dataclass_transform(frozen_default=True, kw_only_default=True)  # type checkers see the dataclass
def record(cls: type[T]) -> type[T]:
    """@dataclass(frozen=True, kw_only=True, slots=True), plus the conversions above."""
    own = cls.__dict__.get("__post_init__")
    plan = [
        (name, conv)
        for name, ann in cls.__dict__.get("__annotations__", {}).items()
        if isinstance(ann, str) and (conv := _converter(ann)) is not None
    ]
    if plan or own is not None:

        def __post_init__(self: Any) -> None:
            for name, conv in plan:
                value = getattr(self, name)
                new = conv(value)
                if new is not value:
                    object.__setattr__(self, name, new)
            if own is not None:
                own(self)

        cls.__post_init__ = __post_init__  # type: ignore[attr-defined]  # before dataclass() reads it
    return dataclass(frozen=True, kw_only=True, slots=True)(cls)


def plain(value: Any) -> Any:
    """A record's JSON form (pydantic's model_dump(mode="json")): fields in order, paths as text."""
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value
