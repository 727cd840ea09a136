"""The one codec for the run folder's JSON files: each file is declared once (`declare(RUN_FILE,
Model)` beside its owner) and read and written only through that declaration.

Why msgspec: it decodes strictly into the declared types (a "2" is not a 2, a string is not a
yes), refuses unknown fields, builds frozen values, and imports in a few milliseconds, so `plan`'s
import path stays free of pydantic (~100 ms; core/base/records.py); and one model system serves
every file, whether its model is a msgspec Struct or one of the core's frozen records (msgspec
decodes dataclasses too: unknown keys there are refused by the walk in `_unknown`).

Every file carries a version: a model with a `version` field keeps it, any other is written in an
envelope whose first key is "version". A file without one (written before this codec) reads as
version 1 when its shape is today's, and anything else is refused. The readers go through the
bounded reader (size cap, no FIFO hang); every write is atomic (temp file, then rename) and checked
to stay inside the run folder. A refusal is one UsageError line naming the file and its fix.
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import Any, Callable, Generic, TypeVar

import msgspec
import msgspec.inspect as mi

from ltx_wizard.core.base.errors import UsageError, WizardError
from ltx_wizard.core.io.bounded import JSON_MAX_BYTES, read_bytes
from ltx_wizard.core.io.run_folder import RunFile
from ltx_wizard.core.io.safe_fs import write_text

T = TypeVar("T")
Upgrade = Callable[[dict[str, Any]], dict[str, Any]]
VERSION_KEY = "version"
DECLARED: dict[str, FileModel[Any]] = {}  # RunFile.rel -> its one declaration


def _dec_hook(kind: type, value: Any) -> Any:
    """Paths are text in the files; a pydantic model inside a file (autotune's summary, which
    the live events carry too) is checked by its own schema, strictly."""
    if kind is Path and isinstance(value, str):
        return Path(value)
    validate = getattr(kind, "model_validate", None)
    if validate is not None and isinstance(value, dict):
        try:
            return validate(value, strict=True)
        except ValueError as exc:  # pydantic's ValidationError: its first error, on one line
            errors = getattr(exc, "errors", None)
            first = errors()[0] if callable(errors) else {"msg": str(exc)[:80], "loc": ()}
            raise ValueError(f"{first['msg']} at `{'.'.join(map(str, first['loc']))}`") from None
    raise TypeError(f"Expected `{getattr(kind, '__name__', kind)}`, got `{type(value).__name__}`")


def _enc_hook(value: Any) -> Any:
    if isinstance(value, Path):
        return str(value)
    dump = getattr(value, "model_dump", None)
    if dump is not None:
        return dump(mode="json")
    raise NotImplementedError(f"{type(value).__name__} cannot be written")


_FIELDS: dict[int, tuple[mi.Type, dict[str, mi.Type] | None]] = {}  # id -> (the type kept alive, its keys)


def _fields(info: mi.Type) -> dict[str, mi.Type] | None:
    """The keys a record's JSON object may have, with their types; None for other types. A
    pydantic model's come from its own field annotations. Worked out once per type."""
    known = _FIELDS.get(id(info))
    if known is not None:
        return known[1]
    fields: dict[str, mi.Type] | None = None
    if isinstance(info, (mi.DataclassType, mi.StructType)):
        fields = {f.encode_name: f.type for f in info.fields}
    model_fields = getattr(info, "cls", None) and getattr(info.cls, "model_fields", None)  # type: ignore[attr-defined]
    if isinstance(info, mi.CustomType) and isinstance(model_fields, dict):
        fields = {name: mi.type_info(field.annotation) for name, field in model_fields.items()}
    _FIELDS[id(info)] = (info, fields)
    return fields


def _strict(info: mi.Type) -> bool:
    """msgspec itself refuses every unknown key of `info`: Structs declared with
    forbid_unknown_fields all the way down, no dataclass or pydantic model inside."""
    if isinstance(info, mi.StructType):
        return info.forbid_unknown_fields and all(_strict(f.type) for f in info.fields)
    if isinstance(info, mi.DataclassType):
        return False
    if isinstance(info, mi.CustomType):
        return not hasattr(info.cls, "model_fields")
    if isinstance(info, (mi.ListType, mi.VarTupleType, mi.SetType, mi.FrozenSetType)):
        return _strict(info.item_type)
    if isinstance(info, mi.TupleType):
        return all(_strict(t) for t in info.item_types)
    if isinstance(info, mi.DictType):
        return _strict(info.value_type)
    if isinstance(info, mi.UnionType):
        return all(_strict(t) for t in info.types)
    return True


def _unknown(doc: Any, info: mi.Type, where: str) -> str | None:
    """The first key of `doc` that its declared type does not have, as `$.a.b`; msgspec refuses
    them itself in Structs declared with forbid_unknown_fields, and skips them in dataclasses."""
    fields = _fields(info)
    if fields is not None and isinstance(doc, dict):
        for key, value in doc.items():
            if key not in fields:
                return f"{where}.{key}"
            if (found := _unknown(value, fields[key], f"{where}.{key}")) is not None:
                return found
    elif isinstance(info, (mi.ListType, mi.VarTupleType, mi.SetType, mi.FrozenSetType)):
        if isinstance(doc, list):
            for i, item in enumerate(doc):
                if (found := _unknown(item, info.item_type, f"{where}[{i}]")) is not None:
                    return found
    elif isinstance(info, mi.TupleType) and isinstance(doc, list):
        for i, (item, kind) in enumerate(zip(doc, info.item_types)):
            if (found := _unknown(item, kind, f"{where}[{i}]")) is not None:
                return found
    elif isinstance(info, mi.DictType) and isinstance(doc, dict):
        for key, value in doc.items():
            if (found := _unknown(value, info.value_type, f"{where}.{key}")) is not None:
                return found
    elif isinstance(info, mi.UnionType):
        for kind in info.types:  # Optional[Record]: the record's keys
            if _fields(kind) is not None:
                return _unknown(doc, kind, where)
    return None


class FileModel(Generic[T]):
    """A run-folder file's one declaration: where it lies (its RunFile), its model, its version."""

    def __init__(self, file: RunFile, model: type[T], version: int, upgrade: Upgrade | None) -> None:
        self.file, self.model, self.version = file, model, version
        self.upgrade = upgrade  # fills in what a file of today's version written earlier left out

    @cached_property
    def _info(self) -> mi.Type:
        return mi.type_info(self.model)

    @cached_property
    def _versioned(self) -> bool:
        """The model has its own version field (else the file is an envelope around it)."""
        info = self._info
        fields = info.fields if isinstance(info, (mi.DataclassType, mi.StructType)) else ()
        return any(f.encode_name == VERSION_KEY for f in fields)

    @cached_property
    def _decoder(self) -> msgspec.json.Decoder[T] | None:
        """The typed decoder, where it alone refuses all a file may not hold (a Struct model with
        its own version, no upgrade): the whole read in C."""
        if self._versioned and self.upgrade is None and _strict(self._info):
            return msgspec.json.Decoder(self.model, strict=True, dec_hook=_dec_hook)
        return None

    def refusal(self, path: Path, why: str) -> UsageError:
        return UsageError(f"{self.file.what} {path} {why}: {self.file.fix}")

    def decode(self, data: bytes, path: Path) -> T:
        """The model from the file's bytes; a UsageError naming `path` for anything else."""
        if self._decoder is not None:
            try:
                value = self._decoder.decode(data)
                if getattr(value, VERSION_KEY) == self.version:
                    return value
            except (msgspec.DecodeError, RecursionError):
                pass  # read again below, to name what is wrong as every file's refusal does
        try:
            doc = msgspec.json.decode(data)
        except (msgspec.DecodeError, RecursionError) as exc:
            raise self.refusal(path, f"is not valid JSON ({str(exc)[:80]})") from None
        if not isinstance(doc, dict):
            raise self.refusal(path, "is damaged (not a JSON object)")
        self._check_version(doc, path)
        if not self._versioned:
            doc.pop(VERSION_KEY, None)
        if self.upgrade is not None:
            doc = self.upgrade(doc)
        if (key := _unknown(doc, self._info, "$")) is not None:
            raise self.refusal(path, f"is damaged (unknown field `{key}`)")
        try:
            return msgspec.convert(doc, self.model, strict=True, dec_hook=_dec_hook)
        except msgspec.ValidationError as exc:
            raise self.refusal(path, f"is damaged ({exc})") from None
        except (TypeError, ValueError) as exc:  # a record's own check (__post_init__)
            raise self.refusal(path, f"is damaged ({str(exc)[:120]})") from None

    def _check_version(self, doc: dict[str, Any], path: Path) -> None:
        found = doc.get(VERSION_KEY, 1)  # written before files carried one: today's shape
        if type(found) is not int:
            raise self.refusal(path, f"is damaged (its version is {str(found)[:20]!r})")
        if found > self.version:
            raise self.refusal(
                path, f"is of version {found}, written by a newer ltx-wizard; this one reads {self.version}"
            )
        if found != self.version:
            raise self.refusal(path, f"is of version {found}, this ltx-wizard reads version {self.version}")

    def encode(self, value: T, *, indent: bool = True) -> str:
        """The file's text: the model's fields in order, in an envelope when it has no version."""
        doc = msgspec.to_builtins(value, enc_hook=_enc_hook)
        if not self._versioned:
            doc = {VERSION_KEY: self.version, **doc}
        data = msgspec.json.encode(doc)
        return (msgspec.json.format(data, indent=2) + b"\n").decode() if indent else data.decode()

    def read_path(self, path: Path, *, limit: int = JSON_MAX_BYTES) -> T | None:
        """The file at `path` (a cursor beside another log), None when there is none."""
        if not path.exists() and not path.is_symlink():
            return None
        return self.decode(read_bytes(path, what=self.file.what, limit=limit), path)

    def read(self, run_dir: str | Path) -> T | None:
        return self.read_path(self.file.path(run_dir))

    def quietly(self, run_dir: str | Path) -> T | None:
        """For a file whose loss costs only time (a cache, a cursor, a progress note): None for
        one that is absent or refused."""
        try:
            return self.read(run_dir)
        except WizardError:
            return None

    def write_path(self, path: Path, value: T, *, root: Path, indent: bool = True) -> Path:
        return write_text(path, self.encode(value, indent=indent), root=root)

    def write(self, run_dir: str | Path, value: T) -> Path:
        return self.write_path(self.file.path(run_dir), value, root=Path(run_dir))


def declare(
    file: RunFile, model: type[T], *, version: int = 1, upgrade: Upgrade | None = None
) -> FileModel[T]:
    """The one declaration of `file`'s model; a second one for the same file is a bug."""
    if file.rel in DECLARED:
        raise RuntimeError(f"{file.rel} is declared twice")
    declared = FileModel(file, model, version, upgrade)
    DECLARED[file.rel] = declared
    return declared
