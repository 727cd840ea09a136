"""Simulated ltx-pipelines: `python -m ltx_wizard.demo.sim.pipelines MODULE ARGS...`, run in the
checkout's folder.

Stands in for `python -m ltx_pipelines.<MODULE>` on a simulated GPU. Its command line is parsed by
the checkout's own look-alike parser (demo/lookalike_pipelines.py, the real entry points' flags),
so a flag the real entry point would refuse is refused here too (argparse, exit 2). Then: torch's
out-of-memory error, exit 1, when the render would not fit (the transformer's weights in bf16,
1 byte with fp8, half with nvfp4, or ~5 GB with offloading, ltx_pipelines/utils/types.py
OffloadMode; activations growing with the size), else a tiny real render at `--output-path` (a
.wav from t2a_one_stage). The conditioning it was given is printed, as the real pipelines log
it. Environment: LTX_WIZARD_SIM_GPU (the preset), LTX_WIZARD_SIM_PARAMS (transformer
parameters, as the simulated trainer reads them).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ltx_wizard.core.gpu.presets import preset_gpus
from ltx_wizard.demo.lookalike_pipelines import MODULES, load_parser
from ltx_wizard.demo.sim.memory_model import CTX_GB, REF_TOKENS, transformer_params
from ltx_wizard.demo.sim.rich_format import oom_message
from ltx_wizard.demo.tiny_video import write_render

ACT_GB_PER_REF = 8.0  # activations and VAE decode at 576x576x89 (REF_TOKENS)
_BYTES = {None: 2.0, "fp8-cast": 1.0, "fp8-scaled-mm": 1.0, "nvfp4-cast": 0.5, "nvfp4-prequant": 0.5}


def need_gb(args: argparse.Namespace) -> float:
    if args.offload_mode != "none":
        return 5.0
    width, height = getattr(args, "width", None) or 64, getattr(args, "height", None) or 64
    frames = args.num_frames or 97
    tokens = (width // 32) * (height // 32) * ((frames - 1) // 8 + 1)
    weights = transformer_params() * _BYTES[args.quantization] / 1024**3
    return CTX_GB + weights + ACT_GB_PER_REF * tokens / REF_TOKENS


def _fed(args: argparse.Namespace) -> list[str]:
    lines = [f"image {image[0]} at frame {image[1]}" for image in getattr(args, "images", [])]
    lines += [f"reference video {path}" for path, _ in getattr(args, "video_conditioning", [])]
    audio = getattr(args, "audio_path", None)
    if audio is not None:
        if not Path(audio).is_file():  # the real one fails when it decodes it
            raise SystemExit(f"cannot read audio: {audio}")
        lines.append(f"audio {audio}")
    return lines


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    module = argv[0].rpartition(".")[2] if argv else ""
    if not argv or not argv[0].startswith("ltx_pipelines.") or module not in MODULES:
        print(f"simulated ltx-pipelines: no module {argv[:1]}", file=sys.stderr)
        return 1
    parser = load_parser(Path.cwd(), argv[0])
    parser.prog = argv[0]
    args = parser.parse_args(argv[1:])
    gpu = preset_gpus(os.environ.get("LTX_WIZARD_SIM_GPU") or "h100")[0]
    total = (gpu.memory_total_bytes or 128 * 1024**3) / 1024**3
    print(f"INFO:ltx_pipelines:Loading {argv[0]} on {gpu.name}", flush=True)
    for line in _fed(args):
        print(f"INFO:ltx_pipelines:conditioning on {line}", flush=True)
    need = need_gb(args)
    if need > total:
        print("Traceback (most recent call last):", file=sys.stderr)
        print(oom_message(min(2.5, need - total + 0.5), 0, total - 0.5, 0.4), file=sys.stderr)
        return 1
    lora = args.lora[0][0] if args.lora else None
    video = module != "t2a_one_stage"
    written = write_render(
        Path(args.output_path), args.prompt, args.seed, lora, args.num_frames or 97, video=video
    )
    if written != Path(args.output_path):  # the real ones write where they are told
        os.replace(written, args.output_path)
    print(f"INFO:ltx_pipelines:Saved {args.output_path}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
