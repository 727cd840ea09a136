"""The Gemma text encoder: its two forms, and whether it belongs with a given checkpoint.

Directory form (unified checkpoints): config.json, tokenizer.json, tokenizer_config.json,
processor_config.json and model*.safetensors. Packed form (split packs): one .safetensors whose
metadata holds `gemma_config` and which has a `tokenizer_json` tensor. The trainer compares the
checkpoint's gemma_source_checkpoint.gemma_version with the Gemma config's gemma_version; wrong
pairings are the most common mistake (LTX-2 issue #214), so they are caught here with both
versions named.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from ltx_wizard.core.checkpoint import CheckpointInfo
from ltx_wizard.core.errors import UsageError
from ltx_wizard.core.model_paths import require_regular_file, resolve_user_path, stat_path
from ltx_wizard.core.bounded_io import loads_json, read_bytes
from ltx_wizard.core.safetensors_header import read_header

DIRECTORY_FILES = (
    "config.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "processor_config.json",
)
_MAX_CONFIG_BYTES = 4 * 1024 * 1024


class TextEncoderInfo(BaseModel):
    model_config = ConfigDict(frozen=True)

    path: Path
    form: Literal["directory", "packed"]
    gemma_version: str | None  # as declared in the config; None for Google's vanilla releases
    model_type: str | None

    def describe(self) -> str:
        version = (
            f"gemma_version {self.gemma_version}" if self.gemma_version else "no gemma_version"
        )
        return f"Gemma text encoder ({self.form}), model_type {self.model_type or '?'}, {version}"


def _family(model_type: str | None) -> str | None:
    """'gemma3' -> '3', 'gemma3_text' -> '3': the generation a vanilla config implies."""
    if model_type and model_type.lower().startswith("gemma"):
        digits = "".join(ch for ch in model_type[5:] if ch.isdigit() or ch == ".").split(".")[0]
        return digits or None
    return None


def _version_of(config: dict) -> str | None:
    value = config.get("gemma_version")
    return None if value is None else str(value)


def _read_config(path: Path, where: str) -> dict:
    # Regular file, size-capped, depth-limited, finite: a hostile config.json is one refusal.
    try:
        doc = loads_json(read_bytes(path, what="config.json", limit=_MAX_CONFIG_BYTES),
                         what="config.json", invalid="config.json is unreadable or not JSON: "
                         "download the text encoder again")
    except UsageError as exc:
        raise UsageError(f"{where}: {exc.message}") from None
    if not isinstance(doc, dict):
        raise UsageError(
            f"{where}: config.json is not a JSON object: download the text encoder again"
        )
    return doc


def _inspect_directory(path: Path) -> TextEncoderInfo:
    where = f"text encoder {path}"
    names = set(os.listdir(path))
    missing = [n for n in DIRECTORY_FILES if not (path / n).is_file()]
    if not any(n.startswith("model") and n.endswith(".safetensors") for n in names):
        missing.append("model*.safetensors")
    if missing:
        if not (path / "config.json").exists() and any(
            (path / n / "config.json").is_file() for n in names
        ):
            inner = sorted(n for n in names if (path / n / "config.json").is_file())[0]
            raise UsageError(f"{where} has no Gemma files of its own: did you mean {path / inner}?")
        raise UsageError(
            f"{where} lacks {', '.join(missing)}: the Gemma download is incomplete; "
            "download the whole model folder again"
        )
    config = _read_config(path / "config.json", where)
    return TextEncoderInfo(
        path=path,
        form="directory",
        gemma_version=_version_of(config),
        model_type=config.get("model_type"),
    )


def _inspect_packed(path: Path, size: int) -> TextEncoderInfo:
    where = f"text encoder {path}"
    header = read_header(path, size)
    raw = header.metadata.get("gemma_config")
    if raw is None:
        if (path.parent / "config.json").is_file():
            raise UsageError(
                f"{where} is one shard of a Gemma directory: pass the folder {path.parent}"
            )
        if header.metadata.get("config") is not None:
            raise UsageError(
                f"{where} is an LTX checkpoint/VAE file, not a text encoder: pass the Gemma folder"
            )
        raise UsageError(f"{where} has no `gemma_config` metadata: not a packed Gemma text encoder")
    if header.tensor("tokenizer_json") is None:
        raise UsageError(
            f"{where} has no `tokenizer_json` tensor: the packed Gemma is incomplete; download it"
            " again"
        )
    try:
        config = loads_json(raw, what="gemma_config")
    except UsageError:
        config = None
    if not isinstance(config, dict):
        raise UsageError(f"{where}: its `gemma_config` metadata is not JSON: download it again")
    version = _version_of(config) or header.metadata.get("gemma_version")
    return TextEncoderInfo(
        path=path, form="packed", gemma_version=version, model_type=config.get("model_type")
    )


def inspect_text_encoder(
    path: str | os.PathLike, *, cwd: str | os.PathLike | None = None
) -> TextEncoderInfo:
    resolved = resolve_user_path(path, what="text encoder", cwd=cwd)
    st = stat_path(resolved, what="text encoder")
    if stat.S_ISDIR(st.st_mode):
        if not os.access(resolved, os.R_OK | os.X_OK):
            raise UsageError(
                f"text encoder {resolved} cannot be listed (permission denied): chmod a+rx it"
            )
        return _inspect_directory(resolved)
    st = require_regular_file(resolved, what="text encoder")
    return _inspect_packed(resolved, st.st_size)


def _norm(version: str) -> str:
    text = version.strip().lower().removeprefix("gemma").strip(" -_v")
    while text.endswith(".0"):
        text = text[:-2]
    return text


def check_compatibility(ckpt: CheckpointInfo, te: TextEncoderInfo) -> None:
    """Raise UsageError when the trainer would refuse (or mis-load) this pairing."""
    if ckpt.is_split_pack and te.form == "directory":
        raise UsageError(
            f"checkpoint {ckpt.path} is a split pack: it needs the packed Gemma .safetensors of the"
            f" same pack, not the directory {te.path}"
        )
    if not ckpt.is_split_pack and te.form == "packed":
        raise UsageError(
            f"checkpoint {ckpt.path} is unified: it needs a Gemma model directory, not the packed "
            f"file {te.path}"
        )
    family = _family(te.model_type)
    if ckpt.gemma_version is None:
        # Checkpoints that predate the key were built with Gemma 3.
        if family not in (None, "3"):
            raise UsageError(
                f"Gemma version mismatch: checkpoint {ckpt.path} declares no Gemma version (a Gemma"
                f" 3 era checkpoint) but text encoder {te.path} is {te.model_type}: use Gemma 3"
            )
        return
    if te.gemma_version is not None and _norm(te.gemma_version) == _norm(ckpt.gemma_version):
        return
    wanted = ckpt.gemma_version
    found = te.gemma_version if te.gemma_version is not None else "none declared"
    if te.gemma_version is None and family == _norm(wanted):
        hint = (
            f"this is Google's vanilla Gemma {family}; LTX {ckpt.model_version or ''} needs the LTX"
            f" fine-tuned Gemma {wanted} root that ships with the checkpoint"
        ).replace("LTX  ", "LTX ")
    else:
        hint = f"use the Gemma {wanted} text encoder that ships with this checkpoint"
    raise UsageError(
        f"Gemma version mismatch: checkpoint {ckpt.path} needs gemma_version {wanted}, text encoder"
        f" {te.path} has {found} (model_type {te.model_type or '?'}): {hint}"
    )
