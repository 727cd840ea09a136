"""Simulated ffprobe for look-alike clips: `-of json` stream entries, as the real one prints them.

Only what the wizard asks is answered; a file without the look-alike marker fails like a file
ffprobe cannot parse (exit 1, "Invalid data found when processing input").
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ltx_wizard.demo.lookalike_media import read_clip


def streams_of(facts: dict) -> list[dict]:
    fps = float(facts.get("fps", 25.0))
    frames = int(facts["frames"])
    video = {"codec_type": "video", "width": int(facts["width"]), "height": int(facts["height"]),
             "avg_frame_rate": f"{int(fps)}/1", "r_frame_rate": f"{int(fps)}/1",
             "nb_frames": str(frames), "duration": f"{frames / fps:.6f}"}
    out = [video]
    if facts.get("audio"):
        out.append({"codec_type": "audio", "duration": f"{frames / fps:.6f}"})
    return out


def main(argv: list[str]) -> int:
    if not argv:
        print("ffprobe: no input file", file=sys.stderr)
        return 1
    path = Path(argv[-1])
    if not path.is_file():
        print(f"{path}: No such file or directory", file=sys.stderr)
        return 1
    facts = read_clip(path)
    if facts is None:
        print(f"{path}: Invalid data found when processing input", file=sys.stderr)
        return 1
    print(json.dumps({"programs": [], "streams": streams_of(facts)}, indent=4))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
