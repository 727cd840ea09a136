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

CAPTION_VIDEOS = r'''"""Look-alike of scripts/caption_videos.py: the real options, media listing, output formats
(paths relative to the output file), skipping of captioned media, and a failed clip printed and
left out ("Captioned X/Y"). qwen_omni asks the server at --vllm-url (chat completions);
gemini_flash has no network here: every clip fails, as it would offline."""
import argparse
import csv
import json
import os
import re
import sys
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

VIDEO = ["mp4", "avi", "mov", "mkv", "webm"]
IMAGE = ["jpg", "jpeg", "png"]
SAVE_INTERVAL = 5
MODEL = "Qwen/Qwen3-Omni-30B-A3B-Thinking"
KEY = "combined_caption_english"
# the look-alike's own default prompt, as long as a real one (a server echoes short ones back)
DEFAULT_PROMPT = ("Write one paragraph that tells what this clip shows and what it sounds like: "
                  "the framing and any camera movement, the people and things in it and how "
                  "they move, the place, its light and colours, and every sound, speech or "
                  "music that can be heard, or that none can. Describe only what is there, in "
                  "the order it happens, without headings or lists. Answer with a JSON object "
                  'whose only key is "combined_caption_english".')


def build_parser():
    p = argparse.ArgumentParser(prog="caption_videos.py")
    p.add_argument("input_path")
    p.add_argument("--output", "-o", default=None)
    p.add_argument("--captioner-type", "-c", default="qwen_omni", type=str.lower,
                   choices=["qwen_omni", "gemini_flash"])
    p.add_argument("--vllm-url", default="http://127.0.0.1:8001/v1")
    p.add_argument("--vllm-model", default=MODEL)
    p.add_argument("--enable-thinking", action=argparse.BooleanOptionalAction, default=False)
    p.add_argument("--max-tokens", type=int, default=4096)
    p.add_argument("--instruction", "-i", default=None)
    p.add_argument("--extensions", "-e", default=",".join(VIDEO + IMAGE))
    p.add_argument("--recursive", "-r", action="store_true")
    p.add_argument("--fps", "-f", type=int, default=2)
    p.add_argument("--override", action="store_true")
    p.add_argument("--api-key", default=None)
    p.add_argument("--num-workers", "-w", type=int, default=1, choices=range(1, 11))
    return p


def parse_caption(raw):
    text = re.sub(r"<think>[\s\S]*?</think>", "", raw).strip()
    if "</think>" in text:
        text = text.rsplit("</think>", 1)[1].strip()
    try:
        data = json.loads(text)
        if isinstance(data, dict) and KEY in data:
            return data[KEY]
    except ValueError:
        pass
    return text or raw.strip()


def qwen(args):
    def caption(path):
        kind = "image_url" if path.suffix.lower().lstrip(".") in IMAGE else "video_url"
        body = {"model": args.vllm_model, "max_tokens": args.max_tokens, "temperature": 0.0,
                "repetition_penalty": 1.05,
                "chat_template_kwargs": {"enable_thinking": args.enable_thinking},
                "mm_processor_kwargs": {"fps": args.fps},
                "messages": [{"role": "user", "content": [
                    {"type": kind, kind: {"url": f"file://{path.resolve()}"}},
                    {"type": "text", "text": args.instruction or DEFAULT_PROMPT}]}]}
        request = urllib.request.Request(args.vllm_url.rstrip("/") + "/chat/completions",
                                         data=json.dumps(body).encode(),
                                         headers={"Content-Type": "application/json",
                                                  "Authorization": "Bearer EMPTY"})
        try:
            with urllib.request.urlopen(request, timeout=600) as reply:
                data = json.loads(reply.read())
        except urllib.error.HTTPError as exc:
            raise RuntimeError(f"Error code: {exc.code} - {exc.read().decode()[:200]}") from None
        except urllib.error.URLError as exc:
            raise RuntimeError(f"Connection error. ({exc.reason})") from None
        return parse_caption(data["choices"][0]["message"]["content"] or "").strip()
    return caption


def gemini(args):
    if not (args.api_key or os.environ.get("GEMINI_API_KEY") or os.environ.get("GOOGLE_API_KEY")):
        raise ValueError("No Gemini credentials found. Provide an API key (--api-key, or "
                         "GEMINI_API_KEY / GOOGLE_API_KEY), or set up Google Cloud credentials "
                         "for Vertex AI (e.g. `gcloud auth application-default login` or an "
                         "attached service account).")
    def caption(path):
        raise RuntimeError("look-alike checkout: gemini_flash cannot reach Google from here")
    return caption


def media_files(path, extensions, recursive):
    wanted = {e.lower().lstrip(".") for e in extensions}
    if path.is_file():
        return [path] if path.suffix.lstrip(".").lower() in wanted else []
    pattern = "**/*" if recursive else "*"
    return sorted(f for f in path.glob(pattern) if f.is_file() and f.suffix.lstrip(".").lower() in wanted)


def load(output, fmt):
    if not output.exists():
        return {}
    try:
        if fmt == "json":
            return {e["media_path"]: e["caption"] for e in json.loads(output.read_text("utf-8"))
                    if "caption" in e and "media_path" in e}
        if fmt == "jsonl":
            return {e["media_path"]: e["caption"] for e in map(json.loads, output.read_text("utf-8").splitlines())
                    if "caption" in e and "media_path" in e}
        if fmt == "csv":
            rows = list(csv.reader(output.open(encoding="utf-8", newline="")))[1:]
            return {r[1]: r[0] for r in rows if len(r) >= 2}
    except Exception as exc:
        print(f"Warning: Could not load existing captions: {exc}")
    return {}


def save(captions, output, fmt):
    output.parent.mkdir(parents=True, exist_ok=True)
    print("Saving captions...")
    if fmt == "json":
        output.write_text(json.dumps([{"caption": c, "media_path": m} for m, c in captions.items()],
                                     indent=2, ensure_ascii=False), "utf-8")
    elif fmt == "jsonl":
        output.write_text("".join(json.dumps({"caption": c, "media_path": m}, ensure_ascii=False) + "\n"
                                  for m, c in captions.items()), "utf-8")
    elif fmt == "csv":
        with output.open("w", encoding="utf-8", newline="") as f:
            w = csv.writer(f)
            w.writerow(["caption", "media_path"])
            w.writerows([c, m] for m, c in captions.items())
    print(f"Captions saved to {output}")


def main(argv=None):
    args = build_parser().parse_args(argv)
    source = Path(args.input_path)
    if not source.exists():
        print(f"Error: Invalid value for 'INPUT_PATH': Path '{source}' does not exist.", file=sys.stderr)
        return 2
    if args.num_workers > 1 and args.captioner_type != "gemini_flash":
        print("Error: --num-workers > 1 is only supported with --captioner-type gemini_flash.")
        return 1
    if args.output is None:
        output, fmt = (source.with_suffix(".dataset.json") if source.is_file() else source / "dataset.json"), "json"
    else:
        output, fmt = Path(args.output), Path(args.output).suffix.lstrip(".").lower()
    output = output.resolve()
    print(f"Output will be saved to {output}")
    captioner = qwen(args) if args.captioner_type == "qwen_omni" else gemini(args)
    print(f"{args.captioner_type} captioner ready")
    files = media_files(source, [e.strip() for e in args.extensions.split(",")], args.recursive)
    if not files:
        print("No media files found to process.")
        return 0
    print(f"Found {len(files)} media files to process.")
    base = output.parent.resolve()
    captions = load(output, fmt)
    known = {str((base / p).resolve()) for p in captions}
    todo = files if args.override else [f for f in files if str(f.resolve()) not in known]
    if len(todo) < len(files):
        print(f"Skipping {len(files) - len(todo)} media that already have captions.")
    if not todo:
        print("All media already have captions. Use --override to recaption.")
        return 0
    done = since = 0
    def one(path):
        return str((path.parent.resolve() / path.name).relative_to(base)), captioner(path)
    with ThreadPoolExecutor(max_workers=args.num_workers) as pool:
        futures = {pool.submit(one, f): f for f in todo}
        for i, future in enumerate(as_completed(futures), 1):
            path = futures[future]
            try:
                rel, text = future.result()
                captions[rel] = text
                done, since = done + 1, since + 1
                if since >= SAVE_INTERVAL:
                    save(captions, output, fmt)
                    since = 0
            except Exception as exc:
                print(f"Error captioning {path.name}: {exc}")
            print(f"Captioning {path.name} {i}/{len(todo)}", end="\r", flush=True)
    print()
    save(captions, output, fmt)
    print(f"Captioned {done}/{len(todo)} media successfully.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
'''

SERVE_CAPTIONER = r'''"""Look-alike of scripts/serve_captioner.py: the real options; instead of `uvx ... vllm serve`
it serves the wizard's stand-in (demo/sim/captioner.py) on --host/--port until SIGTERM."""
import argparse
import sys

MODEL = "Qwen/Qwen3-Omni-30B-A3B-Thinking"


def build_parser():
    p = argparse.ArgumentParser(prog="serve_captioner.py")
    p.add_argument("--model", default=MODEL)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8001)
    p.add_argument("--quantization", "-q", default="fp8")
    p.add_argument("--max-model-len", type=int, default=32768)
    p.add_argument("--gpu-memory-utilization", type=float, default=0.9)
    p.add_argument("--hf-home", default=None)
    p.add_argument("--vllm-spec", default="vllm[audio]==0.11.2")
    p.add_argument("--print-cmd", action="store_true")
    p.add_argument("extra_args", nargs="*")
    return p


def main(argv=None):
    args = build_parser().parse_args(argv)
    if args.quantization not in ("bf16", "fp8"):
        print(f"--quantization must be 'bf16' or 'fp8'; got {args.quantization!r}.")
        return 1
    print("\nCommand:")
    print(f"  uvx --from {args.vllm_spec} vllm serve {args.model} --host {args.host} --port {args.port}")
    if args.print_cmd:
        return 0
    from ltx_wizard.demo.sim.captioner import serve
    serve(args.host, args.port, args.model)
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

SCRIPTS = {"split_scenes.py": SPLIT_SCENES, "caption_videos.py": CAPTION_VIDEOS,
           "serve_captioner.py": SERVE_CAPTIONER, "compute_reference.py": COMPUTE_REFERENCE}


def write_prepare_scripts(root: Path) -> list[Path]:
    """The four data scripts in the look-alike checkout at `root`."""
    folder = Path(root) / TRAINER_REL / "scripts"
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for name, text in SCRIPTS.items():
        (folder / name).write_text(text, encoding="utf-8")
        out.append(folder / name)
    return out
