"""Simulated ltx-pipelines: `python -m ltx_wizard.demo.sim.pipelines MODULE ARGS...`, run in the
checkout's folder.

Stands in for `python -m ltx_pipelines.<MODULE>` on a simulated GPU. Its command line is parsed by
the checkout's own look-alike parser (demo/lookalike_pipelines.py, the real entry points' flags),
so a flag the real entry point would refuse is refused here too (argparse, exit 2). Then: torch's
out-of-memory error, exit 1, when the render would not fit, by the eval check's own stage rule
(core/evaluation/memory.py need_gb, after ltx_pipelines/utils/blocks.py: each model alone on the
GPU) on the checkpoint and Gemma it was given, as the real one loads them; else a tiny real render
at `--output-path` (a .wav from t2a_one_stage), made by this program: its picture carries a mark
of its own, so it is never the trainer's render of the same prompt. The conditioning it was given
is printed, as the real pipelines log it. Environment: LTX_WIZARD_SIM_GPU (the preset),
LTX_WIZARD_SIM_PARAMS (transformer parameters where no checkpoint header can be read),
LTX_WIZARD_SIM_PIPELINES_UNMODELLED_GB (memory the check's estimate leaves out: a test's fault,
to see the one retry of a render that ran out of memory all the same).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.evaluation import memory
from ltx_wizard.core.gpu.presets import preset_gpus
from ltx_wizard.core.tuning.headroom import ModelSize
from ltx_wizard.demo.lookalike_pipelines import MODULES, load_parser
from ltx_wizard.demo.sim.memory_model import transformer_params
from ltx_wizard.demo.sim.rich_format import oom_message
from ltx_wizard.demo.tiny_video import write_render

UNMODELLED_ENV = "LTX_WIZARD_SIM_PIPELINES_UNMODELLED_GB"
PIPELINES_MARK = "ltx-pipelines"  # what sets this program's renders apart from the trainer's


def _model(args: argparse.Namespace) -> ModelSize:
    """The transformer it was given, from the file's header (the real one loads those weights)."""
    from ltx_wizard.core.inputs.checkpoint import inspect_checkpoint
    from ltx_wizard.core.tuning.headroom import model_size

    for name in ("checkpoint_path", "distilled_checkpoint_path", "transformer_path"):
        path = getattr(args, name, None)
        if path:
            try:
                return model_size(inspect_checkpoint(str(path)))
            except (UsageError, TypeError):
                break
    return ModelSize.estimate(transformer_params())


def need_gb(args: argparse.Namespace) -> float:
    """The largest stage at this render's size, by the eval check's own rule."""
    offload = None if args.offload_mode == "none" else args.offload_mode
    width, height = getattr(args, "width", None) or 64, getattr(args, "height", None) or 64
    dims = (width, height, args.num_frames or 97)
    encoder = memory.text_encoder_bytes(
        getattr(args, "gemma_root", None) or getattr(args, "text_encoder_path", None)
    )
    extra = float(os.environ.get(UNMODELLED_ENV) or 0)
    return memory.need_gb(_model(args), encoder, args.quantization, offload, dims)[0] + extra


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
        Path(args.output_path),
        args.prompt,
        args.seed,
        lora,
        args.num_frames or 97,
        video=video,
        mark=PIPELINES_MARK,
    )
    if written != Path(args.output_path):  # the real ones write where they are told
        os.replace(written, args.output_path)
    print(f"INFO:ltx_pipelines:Saved {args.output_path}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
