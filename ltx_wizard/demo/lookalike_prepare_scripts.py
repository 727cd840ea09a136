"""Look-alikes of the trainer's data scripts `prepare` runs: scripts/split_scenes.py,
caption_videos.py, serve_captioner.py and compute_reference.py, with the real typer apps'
arguments and defaults (argparse here), the same printed lines the wizard reads, the same output
files and the same quirks (a failed caption printed and skipped; compute_reference.py's crash
when a clip fails). They do real work on real clips with PyAV: cuts found from a jump in
brightness, scenes written, captions asked of an OpenAI-compatible server (demo/sim/captioner.py
stands in for vLLM), edges drawn with FFmpeg's edgedetect filter. Run with the wizard's Python.
"""

from __future__ import annotations

from pathlib import Path

from ltx_wizard.core.inputs.checkout import TRAINER_REL
from ltx_wizard.demo.lookalike_caption_scripts import CAPTION_VIDEOS, SERVE_CAPTIONER

SPLIT_SCENES = r'''"""Look-alike of scripts/split_scenes.py (PySceneDetect): the real options; cuts from a
jump in mean brightness between frames (the content detector's job), scenes written with PyAV."""
import argparse
import sys
from fractions import Fraction
from pathlib import Path

import av


def build_parser():
    p = argparse.ArgumentParser(prog="split_scenes.py")
    p.add_argument("video_path")
    p.add_argument("output_dir")
    p.add_argument("--detector", default="content",
                   choices=["content", "adaptive", "threshold", "histogram"])
    p.add_argument("--threshold", type=float, default=None)
    p.add_argument("--max-scenes", type=int, default=None)
    p.add_argument("--min-scene-length", type=int, default=None)
    p.add_argument("--filter-shorter-than", default=None)
    p.add_argument("--skip-start", type=int, default=None)
    p.add_argument("--skip-end", type=int, default=None)
    p.add_argument("-d", dest="duration", default=None)
    p.add_argument("--save-images", type=int, default=0)
    p.add_argument("--stats-file", default=None)
    p.add_argument("--luma-only", action=argparse.BooleanOptionalAction, default=False)
    p.add_argument("--adaptive-window", type=int, default=None)
    p.add_argument("--fade-bias", type=float, default=None)
    p.add_argument("--downscale", type=int, default=None)
    p.add_argument("--frame-skip", type=int, default=0)
    return p


def timecode(frames, fps):
    s = frames / fps
    return "%02d:%02d:%06.3f" % (s // 3600, (s % 3600) // 60, s % 60)


def to_frames(text, fps):
    if text.endswith("s"):
        return round(float(text[:-1]) * fps)
    if ":" in text:
        h, m, s = text.split(":")
        return round((int(h) * 3600 + int(m) * 60 + float(s)) * fps)
    return int(text)


def brightness(frame):
    plane = bytes(frame.reformat(width=16, height=16, format="gray").planes[0])
    return sum(plane[:256]) / 256


def detect(path, threshold, min_len):
    with av.open(str(path)) as c:
        fps = float(c.streams.video[0].average_rate or 24)
        cuts, last, count = [], None, 0
        for frame in c.decode(video=0):
            level = brightness(frame)
            if last is not None and abs(level - last) > threshold:
                if count - (cuts[-1] if cuts else 0) >= min_len:
                    cuts.append(count)
            last, count = level, count + 1
    if not cuts:  # PySceneDetect: no cut, no scene list
        return fps, []
    edges = [0] + cuts + [count]
    return fps, list(zip(edges, edges[1:]))


def write_scenes(path, scenes, fps, out_dir, stem):
    digits = max(3, len(str(len(scenes))))
    names = [out_dir / f"{stem}-Scene-{i:0{digits}d}.mp4" for i in range(1, len(scenes) + 1)]
    with av.open(str(path)) as src:
        v_in = src.streams.video[0]
        a_in = src.streams.audio[0] if src.streams.audio else None
        outs = [av.open(str(n), "w") for n in names]
        vids = []
        for out in outs:
            s = out.add_stream("libx264", rate=v_in.average_rate or 24)
            s.width, s.height, s.pix_fmt = v_in.codec_context.width, v_in.codec_context.height, "yuv420p"
            vids.append(s)
        auds = [out.add_stream("aac", rate=a_in.codec_context.sample_rate) if a_in else None for out in outs]
        rate = Fraction(v_in.average_rate or 24)
        for index, frame in enumerate(src.decode(video=0)):
            k = next((i for i, (a, b) in enumerate(scenes) if a <= index < b), None)
            if k is None:
                continue
            frame.pts, frame.time_base = index - scenes[k][0], 1 / rate
            for pkt in vids[k].encode(frame):
                outs[k].mux(pkt)
        for k, s in enumerate(vids):
            for pkt in s.encode():
                outs[k].mux(pkt)
        if a_in is not None:
            src.seek(0)
            for frame in src.decode(audio=0):
                t = float(frame.time or 0.0)
                k = next((i for i, (a, b) in enumerate(scenes) if a / fps <= t < b / fps), None)
                if k is not None:
                    frame.pts = None
                    for pkt in auds[k].encode(frame):
                        outs[k].mux(pkt)
            for k, s in enumerate(auds):
                for pkt in s.encode():
                    outs[k].mux(pkt)
        for out in outs:
            out.close()


def main(argv=None):
    args = build_parser().parse_args(argv)
    video = Path(args.video_path)
    if not video.is_file():
        print(f"Error: Invalid value for 'VIDEO_PATH': File '{video}' does not exist.", file=sys.stderr)
        return 2
    if args.skip_start or args.skip_end:
        print("Skipping start and end frames is not supported yet.")
        return 0
    out = Path(args.output_dir)
    if out.exists() and not out.is_dir():
        print(f"Error: Invalid value: {out} exists but is not a directory", file=sys.stderr)
        return 2
    print("Detecting scenes...")
    fps, scenes = detect(video, args.threshold or 30.0, args.min_scene_length or 15)
    if args.filter_shorter_than:
        need = to_frames(args.filter_shorter_than, fps)
        kept = [(a, b) for a, b in scenes if b - a >= need]
        if len(kept) < len(scenes):
            print(f"Filtered out {len(scenes) - len(kept)} scenes shorter than {need / fps:.1f} "
                  f"seconds ({need} frames)")
        scenes = kept
    if args.max_scenes and len(scenes) > args.max_scenes:
        print(f"Dropping last {len(scenes) - args.max_scenes} scenes to meet max_scenes "
              f"({args.max_scenes}) limit")
        scenes = scenes[: args.max_scenes]
    print(f"Found {len(scenes)} scenes:")
    for i, (a, b) in enumerate(scenes, 1):
        print(f"Scene {i}: {timecode(a, fps)} to {timecode(b, fps)} ({b - a} frames)")
    print("Splitting video into scenes...")
    if scenes:
        out.mkdir(parents=True, exist_ok=True)
        write_scenes(video, scenes, fps, out, video.stem)
    print(f"Scenes have been saved to: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
'''

COMPUTE_REFERENCE = r'''"""Look-alike of scripts/compute_reference.py: the real options; edge maps drawn with FFmpeg's
edgedetect filter (PyAV), written beside each clip as <stem>_reference<suffix>, the
reference_video column added to the JSON in place; a clip that fails is printed, and the save
then fails on it, as the real script's does."""
import argparse
import json
import sys
from fractions import Fraction
from pathlib import Path

import av


def build_parser():
    p = argparse.ArgumentParser(prog="compute_reference.py")
    p.add_argument("input_path")
    p.add_argument("--output", "-o", required=True)
    p.add_argument("--override", action="store_true")
    p.add_argument("--batch-size", type=int, default=100)
    return p


def media_of(item):
    for column in ("video", "media_path"):
        if column in item:
            return item[column]
    raise KeyError("Dataset row must contain one of ('video', 'media_path')")


def edges(src, dest):
    with av.open(str(src)) as c, av.open(str(dest), "w") as out:
        v = c.streams.video[0]
        rate = v.average_rate or Fraction(24)
        s = out.add_stream("libx264", rate=rate)
        s.width, s.height, s.pix_fmt = v.codec_context.width, v.codec_context.height, "yuv420p"
        graph = av.filter.Graph()
        buf = graph.add_buffer(template=v)
        edge = graph.add("edgedetect")
        sink = graph.add("buffersink")
        buf.link_to(edge)
        edge.link_to(sink)
        graph.configure()
        for i, frame in enumerate(c.decode(video=0)):
            graph.vpush(frame)
            got = sink.pull()
            got.pts, got.time_base = i, Fraction(1) / Fraction(rate)
            for pkt in s.encode(got):
                out.mux(pkt)
        for pkt in s.encode():
            out.mux(pkt)


def main(argv=None):
    args = build_parser().parse_args(argv)
    output = Path(args.output).resolve()
    print(f"Output will be saved to {output}")
    if not output.exists():
        raise FileNotFoundError(f"Output file does not exist: {output}. This is also the input file for the dataset.")
    rows = json.loads(output.read_text("utf-8"))
    base = Path(args.input_path).resolve()
    refs = {media_of(r): str(Path(media_of(r)).with_name(Path(media_of(r)).stem + "_reference" + Path(media_of(r)).suffix))
            for r in rows}
    skipped = 0
    for row in rows:
        rel = media_of(row)
        media = base / rel
        ref = media.parent / (media.stem + "_reference" + media.suffix)
        if ref.resolve().exists() and not args.override:
            skipped += 1
            continue
        try:
            edges(media, ref.resolve())
        except Exception as exc:
            print(f"Error processing {media}: {exc}")
            refs.pop(rel)
    for row in rows:
        row.pop("reference_path", None)
        row["reference_video"] = refs[media_of(row)]
    output.write_text(json.dumps(rows, indent=2, ensure_ascii=False), "utf-8")
    print(f"Reference video paths saved to {output}")
    print(f"Processed {len(rows) - skipped}/{len(rows)} media successfully.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
'''

SCRIPTS = {
    "split_scenes.py": SPLIT_SCENES,
    "caption_videos.py": CAPTION_VIDEOS,
    "serve_captioner.py": SERVE_CAPTIONER,
    "compute_reference.py": COMPUTE_REFERENCE,
}


def write_prepare_scripts(root: Path) -> list[Path]:
    """The four data scripts in the look-alike checkout at `root`."""
    folder = Path(root) / TRAINER_REL / "scripts"
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for name, text in SCRIPTS.items():
        (folder / name).write_text(text, encoding="utf-8")
        out.append(folder / name)
    return out
