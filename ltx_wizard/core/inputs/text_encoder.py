"""The Gemma text encoder: its two forms, and whether it belongs with a given checkpoint.

Directory form (unified checkpoints): a Hugging Face Gemma root, flat or nested, searched the way
ltx_core/text_encoders/gemma/gemma_assets.py `GemmaAssets.from_root` searches it: config.json and
tokenizer.json are the first hits of a recursive search (ltx_core/utils.py `find_matching_file`),
tokenizer_config.json and processor_config.json may sit anywhere below the root, and the weights
are the *.safetensors under the folder of the first model*.safetensors
(`resolve_gemma_weight_paths`). Packed form (split packs): one .safetensors whose metadata holds
`gemma_config` and which has a `tokenizer_json` tensor (`GemmaAssets.from_single_file`).
Whether the pair loads is ltx-core's `_check_gemma_version`, mirrored in gemma_compat; wrong
pairings are the most common mistake (LTX-2 issue #214), so both versions are named.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any, Literal

from ltx_wizard.core.base.records import record
from ltx_wizard.core.inputs.checkpoint import CheckpointInfo
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.inputs.gemma_compat import SUPPORTED_MODEL_TYPES, check_gemma_version, loader_value, show
from ltx_wizard.core.inputs.model_paths import require_regular_file, resolve_user_path, stat_path
from ltx_wizard.core.io.bounded import loads_json, read_bytes
from ltx_wizard.core.inputs.header_cache import summary_for
from ltx_wizard.core.base.text_safety import clip

DIRECTORY_FILES = (
    "config.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "processor_config.json",
)
_MAX_CONFIG_BYTES = 4 * 1024 * 1024


_MAX_SEARCH_ENTRIES = 20_000  # a Gemma root holds tens of files; more means a wrong folder


@record
class TextEncoderInfo:
    path: Path
    form: Literal["directory", "packed"]
    gemma_version: str | None  # for display; None for Google's vanilla releases
    model_type: str | None
    # The config's `gemma_version` exactly as JSON gives it ("4", "4.0" and 4 differ to ltx-core).
    gemma_version_value: Any = None
    config_path: Path | None = None  # the config.json used, when found below the root
    param_count: int = 0  # Gemma weights (and packed projections), from the headers

    def describe(self) -> str:
        version = f"gemma_version {clip(self.gemma_version)}" if self.gemma_version else "no gemma_version"
        where = ""
        if self.config_path is not None and self.config_path.parent != self.path:
            where = f" (nested: {self.config_path.parent.relative_to(self.path)})"
        return (
            f"Gemma text encoder ({self.form}), model_type {clip(self.model_type or '?')}, {version}{where}"
        )


def _model_type(config: dict[str, Any], where: str) -> str | None:
    # Any JSON value: refused with a message naming it (the pydantic model's refusal read as an
    # internal error).
    value = config.get("model_type")
    if value is not None and not isinstance(value, str):
        raise UsageError(
            f"{where}: its config's model_type is {show(value)}, not a model name: "
            "download the text encoder again"
        )
    return value


def _version_of(config: dict[str, Any]) -> str | None:
    value = config.get("gemma_version")
    return None if value is None else str(value)


def _read_config(path: Path, where: str) -> dict[str, Any]:
    # Regular file, size-capped, depth-limited, finite: a hostile config.json is one refusal.
    try:
        doc = loads_json(
            read_bytes(path, what="config.json", limit=_MAX_CONFIG_BYTES),
            what="config.json",
            invalid="config.json is unreadable or not JSON: download the text encoder again",
        )
    except UsageError as exc:
        raise UsageError(f"{where}: {exc.message}") from None
    if not isinstance(doc, dict):
        raise UsageError(f"{where}: config.json is not a JSON object: download the text encoder again")
    return doc


def _listing(root: Path, where: str) -> list[Path]:
    """Every entry below `root` in Path.rglob order (the order find_matching_file sees)."""
    found: list[Path] = []
    try:
        for entry in root.rglob("*"):
            found.append(entry)
            if len(found) > _MAX_SEARCH_ENTRIES:
                raise UsageError(
                    f"{where} holds more than {_MAX_SEARCH_ENTRIES} files: not a Gemma folder; "
                    "pass the Gemma model folder itself"
                )
    except OSError as exc:
        raise UsageError(f"{where} cannot be searched: {exc.strerror or exc}") from None
    return found


def _first(entries: list[Path], name_glob: str) -> Path | None:
    # mirrors ltx_core/utils.py find_matching_file: the first recursive hit
    return next((p for p in entries if p.match(name_glob)), None)


def _weights_bytes_params(entries: list[Path], first_model: Path) -> int:
    """mirrors gemma_assets.py resolve_gemma_weight_paths: every *.safetensors under its folder."""
    folder = first_model.parent
    total = 0
    for p in entries:
        if p.suffix == ".safetensors" and folder in p.parents and p.is_file():
            try:
                total += summary_for(p, os.stat(p)).param_count
            except (UsageError, OSError):
                continue  # a broken shard is the trainer's error to report at load time
    return total


def _ambiguous(entries: list[Path], where: str) -> None:
    """Two different Gemma configs below one root: the trainer would take whichever it meets first."""
    seen: dict[tuple[object, object], Path] = {}
    for p in entries:
        if p.name != "config.json" or not p.is_file():
            continue
        try:  # size-capped, depth-limited: one hostile config.json is skipped, not parsed
            doc = loads_json(read_bytes(p, what="config.json", limit=_MAX_CONFIG_BYTES), what="config.json")
        except UsageError:
            continue
        if isinstance(doc, dict) and str(doc.get("model_type", "")).startswith("gemma"):
            seen.setdefault((doc.get("model_type"), doc.get("gemma_version")), p.parent)
    if len(seen) > 1:
        folders = ", ".join(str(d) for d in sorted(seen.values()))
        raise UsageError(
            f"{where} holds more than one Gemma ({folders}): the trainer would load whichever it "
            "finds first; pass the one folder that ships with the checkpoint"
        )


def _inspect_directory(path: Path) -> TextEncoderInfo:
    where = f"text encoder {path}"
    entries = _listing(path, where)
    hits = {name: _first(entries, name) for name in DIRECTORY_FILES}
    model = _first(entries, "model*.safetensors")
    missing = [n for n, hit in hits.items() if hit is None]
    if model is None:
        missing.append("model*.safetensors")
    if missing:
        raise UsageError(
            f"{where} lacks {', '.join(missing)} (searched every folder below it): the Gemma "
            "download is incomplete; download the whole model folder again"
        )
    _ambiguous(entries, where)
    config_path = hits["config.json"]
    assert config_path is not None and model is not None
    config = _read_config(config_path, where)
    return TextEncoderInfo(
        path=path,
        form="directory",
        gemma_version=_version_of(config),
        model_type=_model_type(config, where),
        gemma_version_value=config.get("gemma_version"),
        config_path=config_path,
        param_count=_weights_bytes_params(entries, model),
    )


def _inspect_packed(path: Path, st: os.stat_result) -> TextEncoderInfo:
    where = f"text encoder {path}"
    header = summary_for(path, st)
    raw = header.metadata.get("gemma_config")
    if raw is None:
        if (path.parent / "config.json").is_file():
            raise UsageError(f"{where} is one shard of a Gemma directory: pass the folder {path.parent}")
        if header.metadata.get("config") is not None:
            raise UsageError(
                f"{where} is an LTX checkpoint/VAE file, not a text encoder: pass the Gemma folder"
            )
        raise UsageError(f"{where} has no `gemma_config` metadata: not a packed Gemma text encoder")
    if not header.has_tokenizer_json:
        raise UsageError(
            f"{where} has no `tokenizer_json` tensor: the packed Gemma is incomplete; download it again"
        )
    try:
        config = loads_json(raw, what="gemma_config")
    except UsageError:
        config = None
    if not isinstance(config, dict):
        raise UsageError(f"{where}: its `gemma_config` metadata is not JSON: download it again")
    # Only `gemma_config` counts: ltx-core never reads a separate gemma_version metadata key.
    weights = header.param_count - header.auxiliary_params
    return TextEncoderInfo(
        path=path,
        form="packed",
        gemma_version=_version_of(config),
        model_type=_model_type(config, where),
        gemma_version_value=config.get("gemma_version"),
        param_count=weights,
    )


def inspect_text_encoder(
    path: str | os.PathLike[str], *, cwd: str | os.PathLike[str] | None = None
) -> TextEncoderInfo:
    resolved = resolve_user_path(path, what="text encoder", cwd=cwd)
    st = stat_path(resolved, what="text encoder")
    if stat.S_ISDIR(st.st_mode):
        if not os.access(resolved, os.R_OK | os.X_OK):
            raise UsageError(f"text encoder {resolved} cannot be listed (permission denied): chmod a+rx it")
        return _inspect_directory(resolved)
    st = require_regular_file(resolved, what="text encoder")
    return _inspect_packed(resolved, st)


def check_compatibility(ckpt: CheckpointInfo, te: TextEncoderInfo) -> str | None:
    """Raise UsageError where the trainer refuses the pair; return a warning where it only warns."""
    if ckpt.is_split_pack and te.form == "directory":
        # mirrors ltx_trainer/model_loader.py embedding_weight_paths: the projections are packed
        raise UsageError(
            f"checkpoint {ckpt.path} is a split pack: it needs the packed Gemma .safetensors of the"
            f" same pack, not the directory {te.path}"
        )
    if not ckpt.is_split_pack and te.form == "packed":
        raise UsageError(
            f"checkpoint {ckpt.path} is unified: it needs a Gemma model directory, not the packed "
            f"file {te.path}"
        )
    if te.model_type not in SUPPORTED_MODEL_TYPES:
        # mirrors gemma_assets.py build_gemma_hf_config and encoder_configurator.py get_gemma_ops
        raise UsageError(
            f"text encoder {te.path} has model_type {show(te.model_type)}; the trainer loads only "
            f"{', '.join(SUPPORTED_MODEL_TYPES)}: pass the Gemma that ships with the checkpoint"
        )
    verdict = check_gemma_version(
        loader_value(ckpt.gemma_source_raw),
        loader_value(ckpt.model_version),
        te.gemma_version_value,
        te.model_type,
        checkpoint=str(ckpt.path),
        text_encoder=str(te.path),
    )
    if verdict.level == "error":
        raise UsageError(verdict.message)
    return verdict.message if verdict.level == "warning" else None
