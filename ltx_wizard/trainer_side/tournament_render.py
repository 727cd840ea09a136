"""The tournament's renders with one model load, run inside the trainer's environment (issue 44,
Deliver 4 and 8).

    uv run python tournament_render.py --config RUN/compare-config.yaml \
        --out-dir RUN/outputs/compare/renders [--device cuda] ROW ...

ROW is NAME (the base model: the LoRA switched off) or NAME=CHECKPOINT.safetensors. The transformer
is loaded once as the trainer loads it and wrapped in the run's LoRA; then, row by row, the
checkpoint's LoRA is loaded in place (as the trainer resumes one) and the trainer's own validation
(its ValidationRunner, built from the config's validation section: its samples, seed, size and
inference steps) renders every sample, written where the trainer writes its step-0 samples:
OUT_DIR/NAME/samples/step_000000_<sample + 1>.mp4. core/evaluation/tournament.py lays them out.

A row that fails is named on stderr in one line (`tournament_render: NAME: failed: ...`) and the
others still render; the exit status is 1 when no row rendered, 2 when the arguments or the
environment cannot run at all. The model runs in eval mode (the trainer validates in train mode,
where the LoRA's dropout is live): the renders are a fixed function of the checkpoint.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

ROW_NAME_CHARS = set("abcdefghijklmnopqrstuvwxyz0123456789-_")


@dataclass(frozen=True)
class Row:
    name: str  # its renders' folder under --out-dir
    checkpoint: Path | None  # None: the base model


def _args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--config", type=Path, required=True, help="the validate-only trainer config")
    p.add_argument("--out-dir", type=Path, required=True, help="RUN/outputs/compare/renders")
    p.add_argument("--device", help="default: cuda where torch sees one, else cpu")
    p.add_argument("rows", nargs="+", help="NAME (the base model) or NAME=CHECKPOINT.safetensors")
    return p.parse_args(argv)


def _rows(args: argparse.Namespace) -> list[Row]:
    """Refuse what cannot run before torch is imported (seconds): one line, exit 2."""
    if not args.config.is_file():
        _fail(f"{args.config} does not exist")
    rows: list[Row] = []
    for text in args.rows:
        name, _, path = text.partition("=")
        if not name or not set(name) <= ROW_NAME_CHARS or name in {r.name for r in rows}:
            _fail(f"row {text!r}: its name must be unique, of a-z, 0-9, - and _")
        checkpoint = Path(path) if path else None
        if checkpoint is not None and not checkpoint.is_file():
            _fail(f"{checkpoint} does not exist")
        if checkpoint is not None and checkpoint.suffix != ".safetensors":
            # ltx_trainer/trainer.py LtxvTrainer._find_checkpoint's rule for a checkpoint file
            _fail(f"checkpoint file must have a .safetensors extension: {checkpoint}")
        rows.append(Row(name, checkpoint))
    return rows


def _fail(message: str) -> NoReturn:
    print(f"tournament_render: {message}", file=sys.stderr)
    raise SystemExit(2)


# What this program imports from the trainer's environment (never the wizard's own dependencies).
TRAINER_MODULES = ("torch", "yaml", "safetensors", "peft", "ltx_trainer")


def _need_trainer_environment() -> None:
    missing = [m for m in TRAINER_MODULES if importlib.util.find_spec(m) is None]
    if missing:
        _fail(
            f"{', '.join(missing)} cannot be imported here: run it inside the LTX-2 trainer's environment, "
            "as `ltx-wizard compare RUN` does (uv run python ... in the checkout's packages/ltx-trainer)"
        )


@dataclass
class Renderer:
    config: Any
    runner: Any  # the trainer's ValidationRunner
    model: Any  # the PEFT-wrapped transformer
    device: Any


def _load(config_path: Path, device_name: str | None) -> Renderer:
    import torch
    import yaml
    from ltx_trainer.config import LtxTrainerConfig
    from ltx_trainer.model_loader import load_transformer
    from ltx_trainer.validation_runner import ValidationRunner

    # scripts/train.py main: the YAML read and checked by the trainer's own schema
    config = LtxTrainerConfig(**yaml.safe_load(config_path.read_text(encoding="utf-8")))
    if config.model.training_mode != "lora":
        _fail("the tournament compares LoRA checkpoints (model.training_mode is not lora)")
    device = torch.device(device_name or ("cuda" if torch.cuda.is_available() else "cpu"))
    # ltx_trainer/trainer.py LtxvTrainer.__init__: the runner caches the prompts' embeddings and
    # the conditioning media, and keeps its decoders, once for every row
    runner = ValidationRunner(
        config=config.validation,
        model_path=config.model.model_path,
        text_encoder_path=config.model.text_encoder_path,
        video_vae_path=config.model.video_vae_path,
        audio_vae_path=config.model.audio_vae_path,
        load_text_encoder_in_8bit=config.acceleration.load_text_encoder_in_8bit,
    )
    # LtxvTrainer._load_models: the transformer in bf16 (LoRA mode), quantized as the run trained it
    model = load_transformer(checkpoint_path=config.model.model_path, device="cpu", dtype=torch.bfloat16)
    if config.acceleration.quantization is not None:
        from ltx_trainer.quantization import quantize_model

        model = quantize_model(model, precision=config.acceleration.quantization)
    model.requires_grad_(False)
    model = _with_lora(model, config).to(device).eval()
    return Renderer(config, runner, model, device)


def _with_lora(model: Any, config: Any) -> Any:
    from peft import LoraConfig, get_peft_model

    # ltx_trainer/trainer.py LtxvTrainer._setup_lora
    lora = LoraConfig(
        r=config.lora.rank,
        lora_alpha=config.lora.alpha,
        target_modules=config.lora.target_modules,
        lora_dropout=config.lora.dropout,
        init_lora_weights=True,
    )
    return get_peft_model(model, lora)


def _load_lora(model: Any, checkpoint: Path) -> None:
    import torch
    from peft import set_peft_model_state_dict
    from safetensors.torch import load_file

    with torch.no_grad():  # no leftovers of the previous row's checkpoint in a layer this one lacks
        for name, param in model.named_parameters():
            if "lora_" in name:
                param.zero_()
    # ltx_trainer/trainer.py LtxvTrainer._load_lora_checkpoint: ComfyUI names back to PEFT's
    state = {k.replace("diffusion_model.", "", 1): v for k, v in load_file(checkpoint).items()}
    set_peft_model_state_dict(model.get_base_model(), state)


def _render(renderer: Renderer, row: Row, out_dir: Path) -> list[Path]:
    from ltx_trainer.progress import TrainingProgress

    if row.checkpoint is not None:
        _load_lora(renderer.model, row.checkpoint)
    # PEFT: the base model's own prediction for the base row, whatever the last row loaded
    off = renderer.model.disable_adapter() if row.checkpoint is None else contextlib.nullcontext()
    with off:
        # ltx_trainer/trainer.py LtxvTrainer._run_validation: the runner at step 0 (one rank,
        # every sample saved), into the row's own output folder
        sampled = renderer.runner.run(
            transformer=renderer.model,
            step=0,
            output_dir=out_dir / row.name,
            device=renderer.device,
            progress=TrainingProgress(enabled=False, total_steps=0),
            wandb_run=None,
        )
    return [Path(p) for _, p in sampled]


def main(argv: list[str] | None = None) -> int:
    args = _args(sys.argv[1:] if argv is None else argv)
    rows = _rows(args)
    _need_trainer_environment()
    renderer = _load(args.config, args.device)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    rendered = 0
    for number, row in enumerate(rows, start=1):
        try:
            paths = _render(renderer, row, args.out_dir)
        except Exception as exc:  # one row's failure leaves the others to render
            print(f"tournament_render: {row.name}: failed: {type(exc).__name__}: {exc}", file=sys.stderr)
            _free(renderer)
            continue
        rendered += 1
        print(f"tournament_render: {row.name}: {len(paths)} render(s) ({number} of {len(rows)})", flush=True)
    return 0 if rendered else 1


def _free(renderer: Renderer) -> None:
    """After an out-of-memory row, what it held goes before the next one starts."""
    import torch

    if renderer.device.type == "cuda":
        torch.cuda.empty_cache()


if __name__ == "__main__":
    raise SystemExit(main())
