"""Look-alikes of the trainer's captioning scripts, scripts/caption_videos.py and
serve_captioner.py (see demo/lookalike_prepare_scripts.py, which writes them into the look-alike
checkout): the real options, the same printed lines and output files; captions asked of the
OpenAI-compatible server at --vllm-url, which demo/sim/captioner.py stands in for.
"""

from __future__ import annotations

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
