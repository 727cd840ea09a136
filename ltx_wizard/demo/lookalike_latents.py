"""Look-alike `.pt` latents in torch.save's zip layout, written without torch.

The pickle opcodes are the ones torch.save emits for a dict of tensors and numbers (protocol 2,
`torch._utils._rebuild_tensor_v2` with a persistent storage id); the storage bytes are left
empty, so torch.load would fail on the data while every shape reads as the real one does.
"""

from __future__ import annotations

import os
import struct
import zipfile
from math import prod
from pathlib import Path


def _text(value: str) -> bytes:
    data = value.encode("utf-8")
    return b"X" + struct.pack("<I", len(data)) + data


def _int(value: int) -> bytes:
    return b"J" + struct.pack("<i", value)


def _tuple(values) -> bytes:
    return b"(" + b"".join(_int(v) for v in values) + b"t"


def _tensor(size: tuple[int, ...], key: str, storage: str) -> bytes:
    strides = [prod(size[i + 1 :]) for i in range(len(size))]
    return (
        b"ctorch._utils\n_rebuild_tensor_v2\n("
        + b"("
        + _text("storage")
        + f"ctorch\n{storage}\n".encode()
        + _text(key)
        + _text("cpu")
        + _int(prod(size))
        + b"tQ"
        + _int(0)
        + _tuple(size)
        + _tuple(strides)
        + b"\x89"
        + b"ccollections\nOrderedDict\n)Rt"
        + b"R"
    )


def pickle_of(obj: dict, storage: str = "BFloat16Storage") -> bytes:
    """`obj` maps names to ints, floats or tensor sizes (tuples)."""
    out, key = [b"\x80\x02}("], 0
    for name, value in obj.items():
        out.append(_text(name))
        if isinstance(value, tuple):
            out.append(_tensor(value, str(key), storage))
            key += 1
        elif isinstance(value, float):
            out.append(b"G" + struct.pack(">d", value))
        else:
            out.append(_int(int(value)))
    out.append(b"u.")
    return b"".join(out)


def write_pt(path: Path, obj: dict) -> Path:
    """Atomically, like the trainer's _atomic_save (temp file, then rename)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    stem = path.stem or "archive"
    tmp = path.with_name(f"{path.name}.tmp.{os.getpid()}")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr(f"{stem}/data.pkl", pickle_of(obj))
        archive.writestr(f"{stem}/byteorder", "little")
        archive.writestr(f"{stem}/version", "3\n")
    os.replace(tmp, path)
    return path


def video_latents(frames: int, height: int, width: int, fps: float = 25.0) -> dict:
    """What process_videos.py compute_latents saves for a clip at a bucket (32x32x8 VAE)."""
    f, h, w = (frames - 1) // 8 + 1, height // 32, width // 32
    return {"latents": (128, f, h, w), "num_frames": f, "height": h, "width": w, "fps": fps}


def audio_latents(seconds: float) -> dict:
    steps = max(1, round(seconds * 25))
    return {
        "latents": (8, steps, 16),
        "num_time_steps": steps,
        "frequency_bins": 16,
        "duration": float(seconds),
    }


def condition_embeddings(width: int = 3840) -> dict:
    """What process_captions.py saves per caption: 1024 tokens (ltx-core gemma_assets.py
    TOKENIZER_MAX_LENGTH) of the feature extractor's output. The default is the 19B's (the
    demo's checkpoint): FeatureExtractorV1 hands Gemma 3's hidden size, 3840, to both streams."""
    return {
        "video_prompt_embeds": (1024, width),
        "prompt_attention_mask": (1024,),
        "audio_prompt_embeds": (1024, width),
    }
