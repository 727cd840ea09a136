"""What an LTX-2 checkpoint (and a split pack's VAE files) declares, read from the header alone.

The `config` metadata says which components the file holds: a unified checkpoint has
transformer, vae, audio_vae and vocoder; a split pack's transformer file has the transformer only,
and then the trainer needs the video and audio VAE files passed separately.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from ltx_wizard.core.base.records import record
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.inputs.model_paths import require_regular_file, resolve_user_path
from ltx_wizard.core.inputs.header_cache import summary_for
from ltx_wizard.core.inputs.header_summary import (
    COMPONENT_SECTIONS,
    HeaderSummary,
    Linear,
    linears,
)
from ltx_wizard.core.base.text_safety import clip


def format_params(n: int) -> str:
    if n >= 1e9:
        return f"{n / 1e9:.1f} B params"
    if n >= 1e6:
        return f"{n / 1e6:.1f} M params"
    return f"{n:,} params"


def format_bytes(n: int) -> str:
    """Decimal units, as model cards and disk tools print them."""
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if n >= scale:
            value = n / scale
            return f"{value:.0f} {unit}" if value >= 10 else f"{value:.1f} {unit}"
    return f"{n} B"


def dtype_label(dtype: str) -> str:
    low = dtype.lower()
    return "fp" + low[1:] if low.startswith("f") else low


def format_dtypes(counts: dict[str, int]) -> str:
    """ "bf16", or "bf16 + fp32 (0.2%)" for a mix; the main dtype first."""
    total = sum(counts.values()) or 1
    items = sorted(counts.items(), key=lambda kv: -kv[1])
    if not items:
        return "no tensors"
    parts = [dtype_label(items[0][0])]
    parts += [f"{dtype_label(d)} ({100 * n / total:.1f}%)" for d, n in items[1:]]
    return " + ".join(parts)


def config_sections(header: HeaderSummary) -> tuple[str, ...] | None:
    config = header.metadata_json("config")
    return tuple(config) if isinstance(config, dict) else None


@record
class CheckpointInfo:
    path: Path
    size_bytes: int
    param_count: int
    transformer_param_count: int
    dtype_counts: dict[str, int]
    model_version: str | None = None
    is_split_pack: bool = False
    gemma_version: str | None = None
    config_sections: tuple[str, ...] = ()
    # The raw `gemma_source_checkpoint` metadata string, for ltx-core's exact Gemma rule.
    gemma_source_raw: str | None = None
    # Every 2-D `.weight` of the transformer, what a LoRA `target_modules` entry can wrap, in
    # the compact form of header_summary (discovery keeps one info per checkpoint it finds).
    linear_table: str = ""
    embeddings_param_count: int = 0  # text connectors, loaded beside the transformer

    @property
    def linears(self) -> tuple[Linear, ...]:
        return linears(self.linear_table)

    def describe(self) -> str:
        """ "22.0 B params, bf16, 44 GB"."""
        return (
            f"{format_params(self.param_count)}, {format_dtypes(self.dtype_counts)},"
            f" {format_bytes(self.size_bytes)}"
        )

    def summary(self) -> str:
        pack = "split pack (needs separate VAE files)" if self.is_split_pack else "unified"
        version = f"LTX {clip(self.model_version)}" if self.model_version else "LTX (no model_version)"
        gemma = (
            f"Gemma {clip(self.gemma_version)}" if self.gemma_version else "Gemma not declared (Gemma 3 era)"
        )
        return f"{self.describe()}, {version}, {pack}, {gemma}"


def _gemma_version(header: HeaderSummary) -> str | None:
    source = header.metadata_json("gemma_source_checkpoint")
    if isinstance(source, dict) and source.get("gemma_version") is not None:
        return str(source["gemma_version"])
    return None


def open_header(
    path: str | os.PathLike[str], *, what: str, cwd: str | os.PathLike[str] | None = None
) -> HeaderSummary:
    """Resolve, vet and read the header of a local .safetensors file (once per file version)."""
    resolved = resolve_user_path(path, what=what, cwd=cwd)
    st = require_regular_file(resolved, what=what)
    return summary_for(resolved, st)


def inspect_checkpoint(
    path: str | os.PathLike[str], *, cwd: str | os.PathLike[str] | None = None
) -> CheckpointInfo:
    header = open_header(path, what="checkpoint", cwd=cwd)
    where = f"checkpoint {header.path}"
    if not header.tensor_count:
        raise UsageError(f"{where} holds no tensors: it is not a model; download the checkpoint again")
    if header.metadata.get("gemma_config") is not None:
        raise UsageError(
            f"{where} is a packed Gemma text encoder, not the LTX checkpoint: pass it as --text-encoder"
        )
    sections = config_sections(header)
    if sections is None:
        raise UsageError(
            f"{where} has no LTX `config` in its metadata: not an LTX-2 checkpoint (a LoRA, "
            "a diffusers shard?); pass the full LTX-2 .safetensors"
        )
    if "transformer" not in sections:
        held = ", ".join(sections) or "nothing"
        raise UsageError(
            f"{where} holds {held} but no transformer: it is a component file (VAE?), "
            "not the checkpoint; pass the transformer/unified .safetensors"
        )
    return CheckpointInfo(
        path=header.path,
        size_bytes=header.file_size,
        param_count=header.param_count,
        transformer_param_count=header.transformer_params,
        dtype_counts=dict(header.dtype_counts),  # a copy: the header summary is cached
        model_version=header.metadata.get("model_version"),
        is_split_pack=not any(s in sections for s in COMPONENT_SECTIONS),
        gemma_version=_gemma_version(header),
        config_sections=sections,
        gemma_source_raw=header.metadata.get("gemma_source_checkpoint"),
        linear_table=header.linear_table,
        embeddings_param_count=header.connector_params,
    )


@record
class VaeInfo:
    path: Path
    kind: Literal["video", "audio"]
    size_bytes: int
    param_count: int
    dtype_counts: dict[str, int]

    def describe(self) -> str:
        return (
            f"{self.kind} VAE, {format_params(self.param_count)},"
            f" {format_dtypes(self.dtype_counts)}, {format_bytes(self.size_bytes)}"
        )


def inspect_vae(
    path: str | os.PathLike[str],
    kind: Literal["video", "audio"],
    *,
    cwd: str | os.PathLike[str] | None = None,
) -> VaeInfo:
    what = f"{kind} VAE"
    header = open_header(path, what=what, cwd=cwd)
    if not header.tensor_count:
        raise UsageError(f"{what} {header.path} holds no tensors: download it again")
    sections = config_sections(header) or ()
    wanted, other = ("vae", "audio_vae") if kind == "video" else ("audio_vae", "vae")
    if "transformer" in sections:
        raise UsageError(
            f"{what} {header.path} is a transformer checkpoint, not a VAE: pass the {kind} VAE file"
            " of the split pack"
        )
    if sections and wanted not in sections:
        if other in sections:
            flags = "--video-vae and --audio-vae" if kind == "video" else "--audio-vae and --video-vae"
            raise UsageError(
                f"{what} {header.path} is the {'audio' if kind == 'video' else 'video'} VAE: swap {flags}"
            )
        raise UsageError(f"{what} {header.path} has no `{wanted}` section in its config: not the {kind} VAE")
    if not sections and wanted not in header.components:
        raise UsageError(
            f"{what} {header.path} has neither an LTX config nor {wanted}.* tensors: not the {kind}"
            " VAE of an LTX-2 split pack"
        )
    return VaeInfo(
        path=header.path,
        kind=kind,
        size_bytes=header.file_size,
        param_count=header.param_count,
        dtype_counts=dict(header.dtype_counts),  # a copy: the header summary is cached
    )
