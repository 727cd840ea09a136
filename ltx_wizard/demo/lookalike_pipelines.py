"""Look-alike of packages/ltx-pipelines: the entry points the evaluation runs, with exactly the
flags of the real parsers and nothing behind them.

The real parsers (ltx_pipelines/utils/args.py at LTX-2 400fd31: basic_arg_parser,
new_video_gen_arg_parser, default_1_stage_arg_parser, default_1_stage_t2a_arg_parser,
default_2_stage_arg_parser, default_2_stage_distilled_arg_parser, add_generated_keyframes_arg,
and the flags each module's main() adds) are written again here with argparse alone, in the
wizard's words: the same option names, counts, choices and required flags; paths that must exist
are checked as the real `resolve_existing_path` does, and the monolith-or-split rule of
`model_paths_from_namespace` is kept. Each module file builds its parser and, run directly,
refuses to render (the look-alike has no model); the simulator (demo/sim/pipelines.py) loads
these parsers, so it takes what the real command lines take and refuses what they refuse.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

SRC_REL = Path("packages") / "ltx-pipelines" / "src"

ARGS = '''\
"""Look-alike of ltx_pipelines/utils/args.py: the real parsers' flags, argparse only."""
import argparse
from pathlib import Path

QUANTIZATION = ("fp8-cast", "fp8-scaled-mm", "nvfp4-cast", "nvfp4-prequant")
OFFLOAD = ("none", "cpu", "disk")
DIFFVAE = ("chunked_eager", "chunked_compile", "combined_compile", "blackwell_dsl")
HDR = ("SRGB_LINEAR", "ACESCG", "ACESCCT")
SPLIT = ("transformer_path", "text_encoder_path", "audio_vae_path", "duration_head_path")


def existing(path):
    resolved = Path(path).expanduser().resolve()
    if not resolved.exists():
        raise argparse.ArgumentError(None, f"Path not found: {resolved}")
    return str(resolved)


def positive(value):
    number = int(value)
    if number < 1:
        raise argparse.ArgumentTypeError("must be >= 1")
    return number


class Lora(argparse.Action):
    """PATH [STRENGTH], repeatable."""

    def __call__(self, parser, namespace, values, option_string=None):
        if len(values) > 2:
            raise argparse.ArgumentError(self, "accepts at most 2 arguments (PATH and STRENGTH)")
        entry = (existing(values[0]), float(values[1]) if len(values) > 1 else 1.0)
        setattr(namespace, self.dest, [*(getattr(namespace, self.dest) or []), entry])


class Image(argparse.Action):
    """PATH FRAME_IDX STRENGTH [CRF], repeatable."""

    def __call__(self, parser, namespace, values, option_string=None):
        if len(values) not in (3, 4):
            raise argparse.ArgumentError(self, "requires 3 or 4 arguments (PATH FRAME_IDX STRENGTH [CRF])")
        entry = (existing(values[0]), int(values[1]), float(values[2]),
                 int(values[3]) if len(values) > 3 else None)
        setattr(namespace, self.dest, [*(getattr(namespace, self.dest) or []), entry])


class PathStrength(argparse.Action):
    """PATH STRENGTH (the IC-LoRA reference, the attention mask)."""

    def __call__(self, parser, namespace, values, option_string=None):
        entry = (existing(values[0]), float(values[1]))
        if self.dest == "video_conditioning":
            entry = [*(getattr(namespace, self.dest) or []), entry]
        setattr(namespace, self.dest, entry)


class Parser(argparse.ArgumentParser):
    def parse_args(self, args=None, namespace=None):
        ns = super().parse_args(args, namespace)
        split = [name for name in SPLIT if getattr(ns, name, None)]
        monolith = getattr(ns, "checkpoint_path", None) or getattr(ns, "distilled_checkpoint_path", None)
        if split and (monolith or ns.gemma_root):
            raise SystemExit("Split pack flags cannot be combined with the monolith flags")
        if not split and not (monolith and ns.gemma_root):
            raise SystemExit("Provide either monolith args (checkpoint + --gemma-root) or split pack flags")
        if ns.quantization and not (monolith or ns.transformer_path):
            raise SystemExit(f"--quantization {ns.quantization} requires a checkpoint path")
        for image in getattr(ns, "images", None) or []:
            if Path(image[0]).is_dir():
                raise SystemExit(f"--image '{image[0]}' is a directory; pass a still file")
        return ns


def basic(distilled=False):
    p = Parser()
    if distilled:
        p.add_argument("--distilled-checkpoint-path", type=existing, default=None)
    else:
        p.add_argument("--checkpoint-path", type=existing, default=None)
        p.add_argument("--num-inference-steps", type=int, default=30)
    for flag in ("--gemma-root", "--transformer-path", "--text-encoder-path", "--video-vae-path",
                 "--audio-vae-path", "--duration-head-path"):
        p.add_argument(flag, type=existing, default=None)
    p.add_argument("--prompt", type=str, required=True)
    p.add_argument("--output-path", type=str, required=True)
    p.add_argument("--seed", type=int, default=10)
    p.add_argument("--lora", dest="lora", action=Lora, nargs="+", default=[])
    p.add_argument("--enhance-prompt", action="store_true")
    p.add_argument("--enhance-static-cache", action="store_true")
    p.add_argument("--prompt-enhancer-gemma-root", type=existing, default=None)
    p.add_argument("--offload", dest="offload_mode", choices=OFFLOAD, default="none")
    p.add_argument("--max-batch-size", type=positive, default=1)
    p.add_argument("--quantization", choices=QUANTIZATION, default=None)
    p.add_argument("--compile", nargs="*", default=None)
    p.add_argument("--diffvae-optimization", choices=DIFFVAE, default="chunked_eager")
    return p


def num_frames(p, auto_duration):
    p.add_argument("--num-frames", type=int, default=None if auto_duration else 121)
    if auto_duration:
        p.add_argument("--auto-duration", nargs=2, type=float, default=None)


def video_gen(distilled=False, auto_duration=False):
    p = basic(distilled)
    p.add_argument("--height", type=int, default=512)
    p.add_argument("--width", type=int, default=768)
    num_frames(p, auto_duration)
    p.add_argument("--frame-rate", type=float, default=24.0)
    p.add_argument("--image", dest="images", action=Image, nargs="+", default=[])
    p.add_argument("--hdr", choices=HDR, type=str.upper, default=None)
    return p


def one_stage(auto_duration=False):
    p = video_gen(auto_duration=auto_duration)
    p.add_argument("--negative-prompt", type=str, default="")
    for flag in ("--video-cfg-guidance-scale", "--video-stg-guidance-scale", "--video-rescale-scale",
                 "--a2v-guidance-scale", "--audio-cfg-guidance-scale", "--audio-stg-guidance-scale",
                 "--audio-rescale-scale", "--v2a-guidance-scale"):
        p.add_argument(flag, type=float, default=None)
    for flag in ("--video-stg-blocks", "--audio-stg-blocks"):
        p.add_argument(flag, type=int, nargs="*", default=None)
    for flag in ("--video-skip-step", "--audio-skip-step"):
        p.add_argument(flag, type=int, default=0)
    return p


def t2a():
    p = basic()
    num_frames(p, True)
    p.add_argument("--frame-rate", type=float, default=24.0)
    p.add_argument("--negative-prompt", type=str, default="")
    for flag in ("--audio-cfg-guidance-scale", "--audio-stg-guidance-scale", "--audio-rescale-scale"):
        p.add_argument(flag, type=float, default=None)
    p.add_argument("--audio-stg-blocks", type=int, nargs="*", default=None)
    p.add_argument("--audio-skip-step", type=int, default=0)
    return p


def two_stage(auto_duration=False):
    p = one_stage(auto_duration)
    p.add_argument("--distilled-lora", dest="distilled_lora", action=Lora, nargs="+", required=True)
    p.add_argument("--spatial-upsampler-path", type=existing, required=True)
    return p


def two_stage_distilled(auto_duration=False):
    p = video_gen(distilled=True, auto_duration=auto_duration)
    p.add_argument("--spatial-upsampler-path", type=existing, required=True)
    return p


def keyframes(p):
    p.add_argument("--num-generated-keyframes", type=int, default=0)
    return p
'''

_MAIN = """

if __name__ == "__main__":
    build_parser().parse_args()
    raise SystemExit("look-alike checkout: no model behind this entry point")
"""

MODULES = {
    "ti2vid_one_stage": '''\
"""Look-alike of ltx_pipelines/ti2vid_one_stage.py."""
from ltx_pipelines.utils import args


def build_parser():
    return args.keyframes(args.one_stage(auto_duration=True))
''',
    "ic_lora": '''\
"""Look-alike of ltx_pipelines/ic_lora.py."""
from ltx_pipelines.utils import args


def build_parser():
    p = args.two_stage_distilled()
    p.add_argument("--video-conditioning", action=args.PathStrength, nargs=2, required=True)
    p.add_argument("--conditioning-attention-mask", action=args.PathStrength, nargs=2, default=None)
    p.add_argument("--skip-stage-2", action="store_true")
    return p
''',
    "a2vid_two_stage": '''\
"""Look-alike of ltx_pipelines/a2vid_two_stage.py."""
from ltx_pipelines.utils import args


def build_parser():
    p = args.two_stage()
    p.add_argument("--audio-path", type=str, required=True)
    p.add_argument("--audio-start-time", type=float, default=0.0)
    p.add_argument("--audio-max-duration", type=float, default=None)
    return p
''',
    "t2a_one_stage": '''\
"""Look-alike of ltx_pipelines/t2a_one_stage.py."""
from ltx_pipelines.utils import args


def build_parser():
    return args.t2a()
''',
}


def write_pipelines(root: Path, modules: tuple[str, ...] | None = None) -> Path:
    """packages/ltx-pipelines of a look-alike checkout at `root` (all entry points, or those
    named); returns the package folder."""
    package = root / SRC_REL / "ltx_pipelines"
    (package / "utils").mkdir(parents=True, exist_ok=True)
    (package / "__init__.py").write_text('"""Look-alike of ltx_pipelines."""\n', "utf-8")
    (package / "utils" / "__init__.py").write_text("", "utf-8")
    (package / "utils" / "args.py").write_text(ARGS, "utf-8")
    for name, text in MODULES.items():
        if modules is None or name in modules:
            (package / f"{name}.py").write_text(text + _MAIN, "utf-8")
    return package


def load_parser(checkout: Path, module: str):
    """The look-alike entry point's parser, imported from the checkout (the simulator, tests)."""
    src = str(Path(checkout) / SRC_REL)
    sys.path.insert(0, src)
    try:
        return importlib.import_module(module).build_parser()
    finally:
        sys.path.remove(src)
        for name in [m for m in sys.modules if m.split(".")[0] == "ltx_pipelines"]:
            del sys.modules[name]  # the next checkout's look-alike is its own
