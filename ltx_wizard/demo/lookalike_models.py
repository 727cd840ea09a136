"""Build small look-alikes of LTX-2 model files: real safetensors, sparse data.

Used by the tests and by `--demo`. The data section is a hole made with truncate(), so a file that
declares 22 B parameters (44 GB) costs a few KB of disk; only headers are ever read by the wizard.
Key names and metadata follow the documented layout (config sections, model_version,
gemma_source_checkpoint); no trainer file is copied.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ltx_wizard.core.inputs.safetensors_header import DTYPE_BITS

TensorSpecs = dict[str, tuple[str, list[int]]]
_ROW = 4096  # width of the fake transformer matrices


def write_safetensors(
    path: str | os.PathLike,
    tensors: TensorSpecs,
    metadata: dict[str, str] | None = None,
    *,
    sparse: bool = True,
) -> Path:
    """Write a valid safetensors file; the data is zeros (a hole when `sparse`)."""
    path = Path(path)
    header: dict[str, object] = {}
    if metadata:
        header["__metadata__"] = dict(metadata)
    offset = 0
    for name, (dtype, shape) in tensors.items():
        numel = 1
        for d in shape:
            numel *= d
        size = (numel * DTYPE_BITS[dtype] + 7) // 8
        header[name] = {
            "dtype": dtype,
            "shape": list(shape),
            "data_offsets": [offset, offset + size],
        }
        offset += size
    blob = json.dumps(header, separators=(",", ":")).encode("utf-8")
    blob += b" " * (-len(blob) % 8)  # the format pads the header to 8 bytes with spaces
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as fh:
        fh.write(len(blob).to_bytes(8, "little"))
        fh.write(blob)
        if sparse:
            fh.truncate(8 + len(blob) + offset)
        else:
            chunk = b"\0" * min(offset, 1 << 20)
            left = offset
            while left > 0:
                fh.write(chunk[: min(left, len(chunk))])
                left -= len(chunk)
    return path


def _transformer_tensors(n_params: int, dtype: str) -> TensorSpecs:
    """A few huge-shaped matrices (plus a remainder vector) holding exactly n_params."""
    rows, rest = divmod(n_params, _ROW)
    specs: TensorSpecs = {}
    blocks = min(4, rows) or 0
    for i in range(blocks):
        share = rows // blocks + (1 if i < rows % blocks else 0)
        specs[f"model.diffusion_model.transformer_blocks.{i}.attn1.to_q.weight"] = (
            dtype,
            [share, _ROW],
        )
    if rest or not specs:
        specs["model.diffusion_model.scale_shift_table"] = (dtype, [max(rest, 1)])
    return specs


# LTX-2's transformer geometry: video width 4096, audio width 2048 (32 heads of 128 / 64).
_VIDEO, _AUDIO = 4096, 2048


def _ltx_block_tensors(n_params: int, dtype: str, blocks: int) -> TensorSpecs:
    """`blocks` transformer blocks shaped like LTX-2's (every attention projection and
    feed-forward layer at its real size), the remainder in one vector: exactly n_params."""
    v, a = _VIDEO, _AUDIO
    attention = {  # module -> (out, in) of to_q, to_k, to_v, to_out.0
        "attn1": ((v, v),) * 4,
        "attn2": ((v, v),) * 4,
        "audio_attn1": ((a, a),) * 4,
        "audio_attn2": ((a, a),) * 4,
        "audio_to_video_attn": ((a, v), (a, a), (a, a), (v, a)),
        "video_to_audio_attn": ((a, a), (a, v), (a, v), (a, a)),
    }
    specs: TensorSpecs = {}
    for i in range(blocks):
        block = f"model.diffusion_model.transformer_blocks.{i}"
        for module, shapes in attention.items():
            for proj, shape in zip(("to_q", "to_k", "to_v", "to_out.0"), shapes):
                specs[f"{block}.{module}.{proj}.weight"] = (dtype, list(shape))
        for ff, width in (("ff", v), ("audio_ff", a)):
            specs[f"{block}.{ff}.net.0.proj.weight"] = (dtype, [4 * width, width])
            specs[f"{block}.{ff}.net.2.weight"] = (dtype, [width, 4 * width])
    used = sum(shape[0] * shape[1] for _, shape in specs.values())
    if used > n_params:
        raise ValueError(f"{blocks} LTX-2 blocks hold {used} parameters, more than {n_params}")
    if n_params > used:
        specs["model.diffusion_model.scale_shift_table"] = (dtype, [n_params - used])
    return specs


def _section_config(sections: list[str]) -> str:
    # Small, plausible values: only the section names matter to the wizard.
    known = {
        "transformer": {"num_layers": 48, "attention_head_dim": 128, "num_attention_heads": 32},
        "vae": {"latent_channels": 128, "patch_size": 4},
        "audio_vae": {"latent_channels": 8, "sample_rate": 16000},
        "vocoder": {"upsample_rates": [5, 4, 2, 2, 2]},
        "scheduler": {"shift": 1.0},
    }
    return json.dumps({name: known[name] for name in sections})


def make_checkpoint(
    path: str | os.PathLike,
    *,
    params_b: float = 0.001,
    dtype: str = "BF16",
    split: bool = False,
    gemma_version: str | None = "3",
    model_version: str = "2.0.0",
    blocks: int | None = None,
) -> Path:
    """An LTX-2 checkpoint declaring `params_b` billion transformer parameters; with `blocks`,
    laid out as that many real-sized LTX-2 transformer blocks (for LoRA sizes)."""
    n_params = round(params_b * 1e9)
    tensors = _ltx_block_tensors(n_params, dtype, blocks) if blocks else _transformer_tensors(n_params, dtype)
    sections = ["transformer", "scheduler"]
    if not split:
        sections[1:1] = ["vae", "audio_vae", "vocoder"]
        tensors.update(
            {
                "vae.decoder.conv_in.weight": (dtype, [128, 128, 3, 3, 3]),
                "audio_vae.decoder.conv_in.weight": (dtype, [64, 8, 3, 3]),
                "vocoder.conv_pre.weight": (dtype, [512, 128, 7]),
            }
        )
    meta = {"config": _section_config(sections), "model_version": model_version}
    if gemma_version is not None:
        meta["gemma_source_checkpoint"] = json.dumps({"gemma_version": gemma_version})
    return write_safetensors(path, tensors, meta)


def make_vae(path: str | os.PathLike, kind: str = "video") -> Path:
    """The video or audio VAE file of a split pack."""
    if kind == "video":
        tensors: TensorSpecs = {"vae.decoder.conv_in.weight": ("BF16", [128, 128, 3, 3, 3])}
        sections = ["vae"]
    elif kind == "audio":
        tensors = {
            "audio_vae.decoder.conv_in.weight": ("BF16", [64, 8, 3, 3]),
            "vocoder.conv_pre.weight": ("BF16", [512, 128, 7]),
        }
        sections = ["audio_vae", "vocoder"]
    else:
        raise ValueError(f"kind must be 'video' or 'audio', not {kind!r}")
    return write_safetensors(path, tensors, {"config": _section_config(sections)})


def _gemma_config(gemma_version: str | None, model_type: str) -> dict:
    config: dict[str, object] = {
        "model_type": model_type,
        "architectures": ["Gemma3ForConditionalGeneration"],
        "text_config": {"hidden_size": 3840, "num_hidden_layers": 48},
    }
    if gemma_version is not None:  # Google's vanilla releases carry no such key
        config["gemma_version"] = gemma_version
    return config


def make_gemma_dir(
    path: str | os.PathLike, *, gemma_version: str | None = "3", model_type: str = "gemma3"
) -> Path:
    """The directory form of a Gemma text encoder: the five files the trainer needs."""
    root = Path(path)
    root.mkdir(parents=True, exist_ok=True)
    (root / "config.json").write_text(json.dumps(_gemma_config(gemma_version, model_type)), "utf-8")
    (root / "tokenizer.json").write_text('{"version": "1.0", "model": {"type": "BPE"}}', "utf-8")
    (root / "tokenizer_config.json").write_text('{"model_max_length": 1024}', "utf-8")
    (root / "processor_config.json").write_text('{"processor_class": "Gemma3Processor"}', "utf-8")
    write_safetensors(
        root / "model-00001-of-00001.safetensors",
        {"language_model.model.embed_tokens.weight": ("BF16", [262208, 3840])},
    )
    return root


def make_packed_gemma(
    path: str | os.PathLike, *, gemma_version: str | None = "3", model_type: str = "gemma3"
) -> Path:
    """The packed single-file form of split packs: config in metadata, tokenizer as a tensor."""
    tensors: TensorSpecs = {
        "tokenizer_json": ("U8", [4096]),
        "language_model.model.embed_tokens.weight": ("BF16", [262208, 3840]),
    }
    meta = {"gemma_config": json.dumps(_gemma_config(gemma_version, model_type))}
    return write_safetensors(path, tensors, meta)


def make_data_root(
    path: str | os.PathLike,
    n_samples: int = 3,
    *,
    audio: bool = True,
    orphans: int = 0,
    folders: list[str] | None = None,
) -> Path:
    """A preprocessed data root: same relative .pt names in latents/, conditions/ and (unless
    audio=False: video-only data) audio_latents/, the folders the shipped t2v configs read.
    `folders` names them instead, e.g. a recipe's `required_folders` (reference_latents/,
    video_masks/, ...)."""
    root = Path(path)
    if folders is None:
        folders = ["latents", "conditions"] + (["audio_latents"] if audio else [])
    for folder in folders:
        (root / folder).mkdir(parents=True, exist_ok=True)
        for i in range(n_samples):
            (root / folder / f"sample_{i:04d}.pt").write_bytes(b"PK\x03\x04 look-alike tensor\n")
    for i in range(orphans):  # primary files whose conditions are missing
        (root / folders[0] / f"orphan_{i:04d}.pt").write_bytes(b"PK\x03\x04 look-alike tensor\n")
    return root
