"""Simulated ltx-pipelines: `python -m ltx_wizard.demo.sim.pipelines MODULE ARGS...`.

Stands in for `python -m ltx_pipelines.ti2vid_one_stage` on a simulated GPU: the real CLI's flags
as ltx_pipelines/utils/args.py defines them (basic_arg_parser, default_1_stage_arg_parser: paths
that must exist, `--lora PATH [STRENGTH]`, the `--quantization` and `--offload` choices), a tiny
real video at `--output-path`, and torch's out-of-memory error, exit 1, when the render would not
fit: the transformer's weights (bf16, or 1 byte with fp8), activations growing with the size, or
~5 GB with offloading (ltx_pipelines/utils/types.py OffloadMode). Environment: LTX_WIZARD_SIM_GPU
(the preset), LTX_WIZARD_SIM_PARAMS (transformer parameters, as the simulated trainer reads them).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ltx_wizard.core.gpu.presets import preset_gpus
from ltx_wizard.demo.sim.memory_model import CTX_GB, REF_TOKENS, transformer_params
from ltx_wizard.demo.sim.rich_format import oom_message
from ltx_wizard.demo.tiny_video import write_render

MODULES = ("ltx_pipelines.ti2vid_one_stage",)
QUANTIZATION = ("fp8-cast", "fp8-scaled-mm", "nvfp4-cast", "nvfp4-prequant")  # QuantizationKind
OFFLOAD = ("none", "cpu", "disk")  # OffloadMode values
ACT_GB_PER_REF = 8.0  # activations and VAE decode at 576x576x89 (REF_TOKENS)
_BYTES = {None: 2.0, "fp8-cast": 1.0, "fp8-scaled-mm": 1.0, "nvfp4-cast": 0.5, "nvfp4-prequant": 0.5}


def _existing(path: str) -> str:
    # args.py resolve_existing_path
    resolved = Path(path).expanduser().resolve()
    if not resolved.exists():
        raise argparse.ArgumentTypeError(f"Path not found: {resolved}")
    return str(resolved)


def _lora(parser: argparse.ArgumentParser):
    class LoraAction(argparse.Action):  # args.py LoraAction: PATH and an optional STRENGTH
        def __call__(self, p, namespace, values, option_string=None):
            if not 1 <= len(values) <= 2:
                parser.error("--lora takes a path and an optional strength")
            entry = (_existing(values[0]), float(values[1]) if len(values) > 1 else 1.0)
            getattr(namespace, self.dest).append(entry)
    return LoraAction


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="ltx_pipelines.ti2vid_one_stage")
    for flag in ("--checkpoint-path", "--gemma-root", "--transformer-path", "--text-encoder-path",
                 "--video-vae-path", "--audio-vae-path"):
        p.add_argument(flag, type=_existing, default=None)
    p.add_argument("--prompt", required=True)
    p.add_argument("--output-path", required=True)
    p.add_argument("--seed", type=int, default=10)
    p.add_argument("--lora", dest="lora", action=_lora(p), nargs="+", default=[])
    p.add_argument("--quantization", choices=QUANTIZATION, default=None)
    p.add_argument("--offload", choices=OFFLOAD, default="none")
    for flag, kind in (("--height", int), ("--width", int), ("--num-frames", int),
                       ("--num-inference-steps", int), ("--frame-rate", float),
                       ("--video-cfg-guidance-scale", float), ("--video-stg-guidance-scale", float),
                       ("--video-rescale-scale", float)):
        p.add_argument(flag, type=kind, default=None)
    p.add_argument("--negative-prompt", default="")
    return p


def need_gb(args: argparse.Namespace) -> float:
    if args.offload != "none":
        return 5.0
    width, height, frames = args.width or 960, args.height or 544, args.num_frames or 97
    tokens = (width // 32) * (height // 32) * ((frames - 1) // 8 + 1)
    weights = transformer_params() * _BYTES[args.quantization] / 1024**3
    return CTX_GB + weights + ACT_GB_PER_REF * tokens / REF_TOKENS


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] not in MODULES:
        print(f"simulated ltx-pipelines: no module {argv[:1]}", file=sys.stderr)
        return 1
    args = build_parser().parse_args(argv[1:])
    if args.checkpoint_path is None and args.transformer_path is None:
        raise SystemExit("--checkpoint-path or --transformer-path is required.")
    gpu = preset_gpus(os.environ.get("LTX_WIZARD_SIM_GPU") or "h100")[0]
    total = (gpu.memory_total_bytes or 128 * 1024**3) / 1024**3
    print(f"INFO:ltx_pipelines:Loading pipeline on {gpu.name}", flush=True)
    need = need_gb(args)
    if need > total:
        print("Traceback (most recent call last):", file=sys.stderr)
        print(oom_message(min(2.5, need - total + 0.5), 0, total - 0.5, 0.4), file=sys.stderr)
        return 1
    lora = args.lora[0][0] if args.lora else None
    write_render(Path(args.output_path), args.prompt, args.seed, lora, args.num_frames or 97)
    print(f"INFO:ltx_pipelines:Saved {args.output_path}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
