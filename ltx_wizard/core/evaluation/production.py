"""Production inference: the same prompts through the checkout's ltx-pipelines, with `--lora`.

Training-time samples come from the quantized training stack and can look far worse than the
same LoRA in production inference (ai-toolkit#635, musubi#73); where the user's checkout has
`packages/ltx-pipelines` and the model files its one-stage pipeline reads, each prompt is also
rendered through `python -m ltx_pipelines.ti2vid_one_stage` (flags from
ltx_pipelines/utils/args.py basic_arg_parser and default_1_stage_arg_parser: `--lora PATH
STRENGTH`, `--seed`, `--quantization`, `--offload`, size, frame rate, steps). It is offered for
text-to-video runs only: an image-conditioned run would need a still for `--image` (the trainer
takes the clip's first frame itself), and the other modes have pipelines of their own inputs.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from ltx_wizard.core.evaluation.eval_config import template_conditions
from ltx_wizard.core.evaluation.job import Command, Production
from ltx_wizard.core.io.yaml_patch import get_dotted

PIPELINES_REL = Path("packages/ltx-pipelines")
MODULE = "ltx_pipelines.ti2vid_one_stage"
LORA_STRENGTH = "1.0"


@dataclass(frozen=True)
class Offer:
    """Whether the production path can run here, and why not when it cannot."""

    available: bool
    reason: str


def _module_file(checkout: Path) -> Path:
    return checkout / PIPELINES_REL / "src" / Path(*MODULE.split(".")).with_suffix(".py")


def _t2v(config: Mapping[str, Any]) -> str | None:
    """None for a text-to-video run, else why the one-stage pipeline does not fit its mode."""
    strategy = get_dotted(config, "training_strategy", None) or {}
    name = strategy.get("name", "text_to_video") if isinstance(strategy, Mapping) else ""
    if name == "video_to_video":
        return "an IC-LoRA (video-to-video) run needs ltx_pipelines.ic_lora and its reference inputs"
    if name == "flexible" and not (strategy.get("video") or {}).get("is_generated"):
        return "this run generates audio only (ltx_pipelines.t2a_one_stage takes other inputs)"
    if template_conditions(config):
        return ("the run validates with conditions (an image, a reference, a mask), which the "
                "text-to-video pipeline does not take")
    return None


def offer(checkout: Path | None, config: Mapping[str, Any]) -> Offer:
    if checkout is None or not _module_file(Path(checkout)).is_file():
        where = Path(checkout) / PIPELINES_REL if checkout is not None else "the checkout"
        return Offer(False, f"no ltx-pipelines in {where} (it ships with the LTX-2 checkout)")
    why = _t2v(config)
    if why is not None:
        return Offer(False, why)
    missing = [str(p) for p in _model_files(config).values() if not Path(p).exists()]
    if missing:
        return Offer(False, f"model files missing: {', '.join(missing)} (ltx-wizard models "
                            "downloads them)")
    return Offer(True, f"{MODULE} from {Path(checkout) / PIPELINES_REL}")


def _model_files(config: Mapping[str, Any]) -> dict[str, str]:
    """The pipeline's model flags from config.yaml's model section: a unified checkpoint with its
    Gemma folder, or a split pack's files (args.py: split flags)."""
    model = get_dotted(config, "model", None) or {}
    path, encoder = str(model.get("model_path", "")), str(model.get("text_encoder_path") or "")
    if model.get("video_vae_path"):
        files = {"--transformer-path": path, "--text-encoder-path": encoder,
                 "--video-vae-path": str(model["video_vae_path"])}
        if model.get("audio_vae_path"):
            files["--audio-vae-path"] = str(model["audio_vae_path"])
        return files
    return {"--checkpoint-path": path, "--gemma-root": encoder}


def settings_args(config: Mapping[str, Any]) -> list[str]:
    """The validation settings the renders share with the trainer's: steps, frame rate, the
    negative prompt and the video guidance scales."""
    args: list[str] = []
    for flag, key in (("--num-inference-steps", "validation.inference_steps"),
                      ("--frame-rate", "validation.frame_rate"),
                      ("--negative-prompt", "validation.negative_prompt"),
                      ("--video-cfg-guidance-scale", "validation.video_cfg_scale"),
                      ("--video-stg-guidance-scale", "validation.video_stg_scale"),
                      ("--video-rescale-scale", "validation.guidance_rescale")):
        value = get_dotted(config, key, None)
        if value is not None and not isinstance(value, bool):
            args += [flag, str(value)]
    return args


def production(checkout: Path, config: Mapping[str, Any], prefix: Command,
               quantization: str | None, offload: str | None) -> Production:
    args = [item for pair in _model_files(config).items() for item in pair]
    return Production(MODULE, prefix, args + settings_args(config), quantization, offload)


def uv_prefix(checkout: Path, uv: str = "uv") -> Command:
    """`uv run --directory <checkout>/packages/ltx-pipelines python -m <module>`: the package's
    own environment, whatever directory the job runs in."""
    directory = str(Path(checkout).resolve() / PIPELINES_REL)
    return Command([uv, "run", "--directory", directory, "python", "-m", MODULE], directory)


def render_argv(job_production: Production, prompt: str, seed: int, output: Path,
                dims: tuple[int, int, int], lora: Path | None) -> list[str]:
    width, height, frames = dims
    argv = [*job_production.prefix.argv, *job_production.args, "--prompt", prompt,
            "--seed", str(seed), "--width", str(width), "--height", str(height),
            "--num-frames", str(frames), "--output-path", str(output)]
    if lora is not None:
        argv += ["--lora", str(lora), LORA_STRENGTH]
    if job_production.quantization:
        argv += ["--quantization", job_production.quantization]
    if job_production.offload:
        argv += ["--offload", job_production.offload]
    return argv
