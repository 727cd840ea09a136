"""Production inference: the same prompts through the checkout's ltx-pipelines, with `--lora`.

Training-time samples come from the quantized training stack and can look far worse than the
same LoRA in production inference (ai-toolkit#635, musubi#73); where the user's checkout has
`packages/ltx-pipelines`, the entry point of the run's mode (pipeline_modes.py) and the model
files it reads, each prompt is also rendered through it, fed the conditioning of the trainer's
own validation sample (render_conditioning.py). Flags are those of the entry points' parsers
(ltx_pipelines/utils/args.py basic_arg_parser and the parsers built on it): `--lora PATH
STRENGTH`, `--seed`, `--quantization`, `--offload`, size, frame rate, and the validation's steps
and guidance where the parser has them (the distilled ones have neither).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

from ltx_wizard.core.evaluation import pipeline_files
from ltx_wizard.core.evaluation.eval_config import run_conditions
from ltx_wizard.core.evaluation.job import Command, Production
from ltx_wizard.core.evaluation.pipeline_modes import DISTILLED_CHECKPOINT, T2V, PipelineMode, mode_for
from ltx_wizard.core.io.trainer_config import ValidationKeys, trainer_config

PIPELINES_REL = Path("packages/ltx-pipelines")
LORA_STRENGTH = "1.0"
# flag <- validation.* key, per parser family: guidance of video and audio
# (default_1_stage_arg_parser), audio only (default_1_stage_t2a_arg_parser).
_Setting = tuple[str, Callable[[ValidationKeys], int | float | str | None]]
_VIDEO_GUIDANCE: tuple[_Setting, ...] = (
    ("--video-cfg-guidance-scale", lambda v: v.video_cfg_scale),
    ("--video-stg-guidance-scale", lambda v: v.video_stg_scale),
    ("--video-rescale-scale", lambda v: v.guidance_rescale),
)
_AUDIO_GUIDANCE: tuple[_Setting, ...] = (
    ("--audio-cfg-guidance-scale", lambda v: v.audio_cfg_scale),
    ("--audio-stg-guidance-scale", lambda v: v.audio_stg_scale),
)


@dataclass(frozen=True)
class Offer:
    """Whether the production path can run here, and why not when it cannot."""

    available: bool
    reason: str
    mode: PipelineMode | None = None
    extras: dict[str, Path] = field(default_factory=dict)


def module_file(checkout: Path, module: str) -> Path:
    return Path(checkout) / PIPELINES_REL / "src" / Path(*module.split(".")).with_suffix(".py")


def offer(checkout: Path | None, config: Mapping[str, Any]) -> Offer:
    if checkout is None or not (Path(checkout) / PIPELINES_REL).is_dir():
        where = Path(checkout) / PIPELINES_REL if checkout is not None else "the checkout"
        return Offer(False, f"no ltx-pipelines in {where} (it ships with the LTX-2 checkout)")
    mode = mode_for(config)
    if isinstance(mode, str):
        return Offer(False, mode)
    if not module_file(checkout, mode.module).is_file():
        return Offer(
            False,
            f"no {mode.module} in {Path(checkout) / PIPELINES_REL} (an older "
            "checkout: update it for production renders of this mode)",
        )
    missing = [str(p) for p in model_files(config).values() if not Path(p).exists()]
    if missing:
        return Offer(False, f"model files missing: {', '.join(missing)} (ltx-wizard models downloads them)")
    extras, why = pipeline_files.extras(config, mode)
    if why is not None:
        return Offer(False, why)
    return Offer(True, f"{mode.module} ({mode.title}) from {Path(checkout) / PIPELINES_REL}", mode, extras)


def model_files(config: Mapping[str, Any]) -> dict[str, str]:
    """The pipeline's model flags from config.yaml's model section: a unified checkpoint with its
    Gemma folder, or a split pack's files (args.py: split flags)."""
    model = trainer_config(config).model
    path, encoder = model.model_path or "", model.text_encoder_path or ""
    if model.video_vae_path:
        files = {
            "--transformer-path": path,
            "--text-encoder-path": encoder,
            "--video-vae-path": model.video_vae_path,
        }
        if model.audio_vae_path:
            files["--audio-vae-path"] = model.audio_vae_path
        return files
    return {"--checkpoint-path": path, "--gemma-root": encoder}


def model_args(
    config: Mapping[str, Any], mode: PipelineMode, extras: Mapping[str, Path], *, placeholders: bool = False
) -> list[str]:
    """The entry point's model flags. `placeholders`: a file not found stands as `<role>` (a
    command printed for the user, who downloads it first) instead of being required."""
    found = dict(extras)
    if placeholders:
        found = {role: found.get(role, Path(f"<{role.replace('_', ' ')}>")) for role in mode.needs}
    files = model_files(config)
    if mode.distilled:  # the distilled checkpoint in the dev one's place (args.py, distilled=True)
        distilled = str(found[DISTILLED_CHECKPOINT])
        if "--checkpoint-path" in files:
            files = {"--distilled-checkpoint-path": distilled, "--gemma-root": files["--gemma-root"]}
        else:
            files["--transformer-path"] = distilled
    args = [item for pair in files.items() for item in pair]
    for role, path in found.items():
        if role in pipeline_files.FLAGS:
            args += [pipeline_files.FLAGS[role], str(path)]
    return args


def settings_args(config: Mapping[str, Any], mode: PipelineMode = T2V) -> list[str]:
    """The validation settings the renders share with the trainer's, as far as the mode's parser
    takes them: steps, frame rate, the negative prompt and the guidance scales."""
    pairs: tuple[_Setting, ...] = (("--frame-rate", lambda v: v.frame_rate),)
    if not mode.distilled:
        pairs += (
            ("--num-inference-steps", lambda v: v.inference_steps),
            ("--negative-prompt", lambda v: v.negative_prompt),
        )
        pairs += (_VIDEO_GUIDANCE if mode.video else ()) + _AUDIO_GUIDANCE
    validation = trainer_config(config).validation
    args: list[str] = []
    for flag, read in pairs:
        value = read(validation)
        if value is not None:
            args += [flag, str(value)]
    return args


def production(
    checkout: Path,
    config: Mapping[str, Any],
    prefix: Command,
    quantization: str | None,
    offload: str | None,
    found: Offer,
) -> Production:
    assert found.mode is not None
    mode = found.mode
    args = model_args(config, mode, found.extras) + settings_args(config, mode)
    return Production(
        mode.module,
        prefix,
        args,
        quantization,
        offload,
        kind=mode.kind,
        conditions=run_conditions(config),
        multiple=mode.multiple,
        ext=mode.ext,
        video=mode.video,
    )


def uv_prefix(checkout: Path, module: str, uv: str = "uv") -> Command:
    """`uv run --directory <checkout>/packages/ltx-pipelines python -m <module>`: the package's
    own environment, whatever directory the job runs in."""
    directory = str(Path(checkout).resolve() / PIPELINES_REL)
    return Command([uv, "run", "--directory", directory, "python", "-m", module], directory)


def fit_dims(dims: tuple[int, int, int], multiple: int) -> tuple[int, int, int]:
    """The size an entry point accepts: width and height down to its multiple (at least one)."""
    width, height, frames = dims
    return (max(multiple, width // multiple * multiple), max(multiple, height // multiple * multiple), frames)


def render_argv(
    job_production: Production,
    prompt: str,
    seed: int,
    output: Path,
    dims: tuple[int, int, int],
    lora: Path | None,
    inputs: list[str] | None = None,
) -> list[str]:
    width, height, frames = dims
    size = ["--width", str(width), "--height", str(height)] if job_production.video else []
    argv = [
        *job_production.prefix.argv,
        *job_production.args,
        "--prompt",
        prompt,
        "--seed",
        str(seed),
        *size,
        "--num-frames",
        str(frames),
        "--output-path",
        str(output),
        *(inputs or []),
    ]
    if lora is not None:
        argv += ["--lora", str(lora), LORA_STRENGTH]
    if job_production.quantization:
        argv += ["--quantization", job_production.quantization]
    if job_production.offload:
        argv += ["--offload", job_production.offload]
    return argv
