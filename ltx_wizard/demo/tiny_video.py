"""The simulated trainer's validation renders: tiny real videos, written with PyAV.

Each render is a few frames of 64x36 pixels whose picture follows from what the real render
would depend on: the prompt and the seed set its colours, a loaded LoRA adds a band of its own
(so a render with the LoRA and one without it differ, and two renders of the same prompt, seed
and weights are identical). One frame makes a PNG and a run without video a WAV, as the trainer
names them (ltx_trainer/validation_runner.py ValidationRunner.run). Without PyAV the old
placeholder bytes are written instead.
"""

from __future__ import annotations

import hashlib
import os
import struct
import wave
from pathlib import Path

WIDTH, HEIGHT, FRAMES, FPS = 64, 36, 9, 24  # width * 3 is a multiple of 32: no row padding
_MP4_PLACEHOLDER = b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom"


def _colour(*parts: str) -> tuple[int, int, int]:
    digest = hashlib.sha256("\0".join(parts).encode()).digest()
    return 40 + digest[0] % 180, 40 + digest[1] % 180, 40 + digest[2] % 180


def frame_rgb(index: int, prompt: str, seed: int, lora: str | None, mark: str = "") -> bytes:
    """One frame: the prompt's colour above, the seed's below, a bar sweeping left to right, and
    with a LoRA a diagonal band in the LoRA's colour; `mark` (the program that rendered it, when
    not the trainer) paints the bottom rows its own colour."""
    top, bottom = _colour("prompt", prompt), _colour("seed", str(seed))
    marked = _colour("mark", mark) if mark else None
    band = _colour("lora", Path(lora).name) if lora else None  # the file, wherever it is
    bar = index * (WIDTH - 4) // max(FRAMES - 1, 1)
    rows = []
    for y in range(HEIGHT):
        row = bytearray()
        for x in range(WIDTH):
            pixel = top if y < HEIGHT // 2 else bottom
            if bar <= x < bar + 4:
                pixel = (235, 235, 235)
            if band is not None and abs((x - 2 * y) % WIDTH) < 8:
                pixel = band
            if marked is not None and y >= HEIGHT - 6:
                pixel = marked
            row += bytes(pixel)
        rows.append(bytes(row))
    return b"".join(rows)


def _yuv420(data: bytes) -> tuple[bytes, bytes, bytes]:
    """BT.601 limited-range planes of an RGB image, computed here: FFmpeg's converter takes a
    SIMD path or not by how its buffers happen to be aligned, so the same picture came out a
    level apart from one run to the next (and the snapshots of these renders with it)."""

    def rgb(x: int, y: int) -> tuple[int, int, int]:
        at = (y * WIDTH + x) * 3
        return data[at], data[at + 1], data[at + 2]

    luma = bytes(
        16 + (66 * r + 129 * g + 25 * b + 128) // 256
        for y in range(HEIGHT)
        for x in range(WIDTH)
        for r, g, b in [rgb(x, y)]
    )
    u, v = bytearray(), bytearray()
    for y in range(0, HEIGHT, 2):
        for x in range(0, WIDTH, 2):
            block = [rgb(x + dx, y + dy) for dx in (0, 1) for dy in (0, 1)]
            r, g, b = (sum(p[c] for p in block) // 4 for c in range(3))
            u.append(128 + (-38 * r - 74 * g + 112 * b + 128) // 256)
            v.append(128 + (112 * r - 94 * g - 18 * b + 128) // 256)
    return luma, bytes(u), bytes(v)


def _frame(av, data: bytes, pix_fmt: str):
    frame = av.VideoFrame(WIDTH, HEIGHT, pix_fmt)
    planes = [data] if pix_fmt == "rgb24" else _yuv420(data)
    for plane, rows in zip(frame.planes, planes):
        width = len(rows) // (HEIGHT if plane is frame.planes[0] else HEIGHT // 2)
        padded = b"".join(
            rows[i : i + width].ljust(plane.line_size, b"\0") for i in range(0, len(rows), width)
        )
        plane.update(padded)
    return frame


def _encode(path: Path, images: list[bytes], codec: str, fmt: str) -> None:
    import av

    with av.open(str(path), "w", format=fmt) as container:
        stream = container.add_stream(codec, rate=FPS)
        stream.width, stream.height = WIDTH, HEIGHT
        stream.pix_fmt = "rgb24" if codec == "png" else "yuv420p"
        if codec == "libx264":
            # lossless: every decoder gets back exactly the planes written, whatever choices
            # the encoder made on this box and load (the snapshots show these pixels)
            stream.options = {"qp": "0"}
        for data in images:
            for packet in stream.encode(_frame(av, data, stream.pix_fmt)):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)


def _wav(path: Path, prompt: str, seed: int, mark: str = "") -> None:
    level = _colour("audio", prompt, str(seed), mark)[0] * 64
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(8000)
        out.writeframes(b"".join(struct.pack("<h", level if i % 40 < 20 else -level) for i in range(800)))


def write_render(
    path: Path, prompt: str, seed: int, lora: str | None, frames: int, video: bool = True, mark: str = ""
) -> Path:
    """Write the render the trainer would name `path` (its suffix changed for one frame or audio
    only); through a temp file and a rename, as the trainer's files appear whole. `mark`: the
    program that made it, when not the trainer (its picture or sound differs). Drawn once per set
    of arguments (demo/media_cache.py): the picture depends on the LoRA's file name only."""
    from ltx_wizard.demo.media_cache import cached

    suffix = ".wav" if not video else ".png" if frames == 1 else ".mp4"
    path = path.with_suffix(suffix)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        import av  # noqa: F401 - without it the placeholder is written, and never cached
    except ImportError:
        return _draw(path, prompt, seed, lora, frames, mark)
    parts = ("render", prompt, seed, Path(lora).name if lora else None, frames, suffix, mark)
    return cached(path, parts, lambda target: _draw(target, prompt, seed, lora, frames, mark))


def _draw(path: Path, prompt: str, seed: int, lora: str | None, frames: int, mark: str) -> Path:
    suffix = path.suffix
    tmp = path.with_name(f".{path.name}.tmp{suffix}")
    try:
        if suffix == ".wav":
            _wav(tmp, prompt, seed, mark)
        else:
            images = [frame_rgb(i, prompt, seed, lora, mark) for i in range(1 if frames == 1 else FRAMES)]
            if suffix == ".png":
                _encode(tmp, images, "png", "image2")
            else:
                _encode(tmp, images, "libx264", "mp4")
    except ImportError:
        tmp.write_bytes(_MP4_PLACEHOLDER)
    os.replace(tmp, path)
    return path


def render_sample(raw: dict, index: int, lora: str | None, path: Path) -> Path:
    """Validation sample `index` of a config (its prompt, seed and size) with the LoRA loaded:
    validation_runner.py _generate_sample takes `sample.seed or self._config.seed`, and
    `sample.video_dims or self._config.video_dims`."""
    validation = raw["validation"]
    samples = validation.get("samples") or [{"prompt": p} for p in validation.get("prompts") or []]
    sample = samples[index % len(samples)] if samples else {"prompt": ""}
    dims = sample.get("video_dims") or validation.get("video_dims") or (960, 544, 97)
    seed = sample.get("seed") or validation.get("seed") or 42
    return write_render(
        path,
        str(sample.get("prompt", "")),
        int(seed),
        lora,
        int(dims[2]),
        bool(validation.get("generate_video", True)),
    )
