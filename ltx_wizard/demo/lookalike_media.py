"""Look-alike clips and dataset files: tiny files that carry their own frames, size and sound.

A clip is a few bytes of MP4 signature followed by a marker and a JSON line; the simulated
ffprobe (demo/sim/ffprobe.py) and the simulated preprocessor read that line as the real tools
would read the stream. Anything without the marker is unreadable to both, like a broken file.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

MARKER = b"LTXWIZ-CLIP "
_HEAD = b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom"


def write_clip(path: Path, frames: int = 97, width: int = 1280, height: int = 720, *,
               audio: bool = True, fps: float = 25.0) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    meta = {"frames": frames, "width": width, "height": height, "audio": audio, "fps": fps}
    path.write_bytes(_HEAD + MARKER + json.dumps(meta).encode() + b"\n")
    return path


def read_clip(path: Path) -> dict | None:
    """The clip's facts, or None when it is not a look-alike clip (unreadable)."""
    try:
        data = Path(path).read_bytes()[:4096]
    except OSError:
        return None
    at = data.find(MARKER)
    if at < 0:
        return None
    try:
        return json.loads(data[at + len(MARKER):].split(b"\n", 1)[0])
    except ValueError:
        return None


def make_clip_dataset(folder: Path, clips: list[dict] | int = 3, *, fmt: str = "json",
                      name: str = "dataset") -> Path:
    """`folder`/videos/clip_NN.mp4 and a dataset file naming them with a caption each."""
    folder = Path(folder)
    if isinstance(clips, int):
        clips = [{} for _ in range(clips)]
    entries = []
    for i, facts in enumerate(clips):
        rel = f"videos/clip_{i:02d}.mp4"
        write_clip(folder / rel, **facts)
        entries.append({"caption": f"A look-alike clip number {i}, a cat on a sunny floor",
                        "video": rel})
    path = folder / f"{name}.{fmt}"
    if fmt == "json":
        path.write_text(json.dumps(entries, indent=2) + "\n", encoding="utf-8")
    elif fmt == "jsonl":
        path.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")
    else:
        import csv

        with open(path, "w", encoding="utf-8", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=["caption", "video"])
            writer.writeheader()
            writer.writerows(entries)
    return path


def write_fake_ffprobe(bin_dir: Path) -> Path:
    """An executable `ffprobe` in `bin_dir` that answers for look-alike clips (tests, demo)."""
    bin_dir = Path(bin_dir)
    bin_dir.mkdir(parents=True, exist_ok=True)
    package_parent = Path(__file__).resolve().parents[2]
    script = bin_dir / "ffprobe"
    script.write_text(
        f"#!{sys.executable}\n"
        "import sys\n"
        f"sys.path.insert(0, {str(package_parent)!r})\n"
        "from ltx_wizard.demo.sim.ffprobe import main\n"
        "sys.exit(main(sys.argv[1:]))\n",
        encoding="utf-8",
    )
    os.chmod(script, script.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return script
