"""The run's transformer wrapped in its LoRA, as the trainer loads it, for trainer_side/'s programs that
run a model (heldout_loss.py, tournament_render.py): the config read by the trainer's own schema, the
transformer loaded (quantized as the run trained it, frozen) and wrapped in the run's LoRA in eval mode,
a checkpoint's LoRA swapped in place, its step, and the one-line exit-2 refusal. Imported by those
programs as a sibling module (they run by path, their folder first on sys.path); it runs inside the
trainer's environment, never in the wizard's.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any, NoReturn

# The refusal's prefix: the program that runs (each main sets it to its own name).
PROGRAM = "trainer_side"

# What a model-loading program imports from the trainer's environment (never the wizard's own).
TRAINER_MODULES = ("torch", "yaml", "safetensors", "peft", "ltx_trainer")


def fail(message: str) -> NoReturn:
    """One line on stderr, exit 2: what cannot run, said before anything heavy starts."""
    print(f"{PROGRAM}: {message}", file=sys.stderr)
    raise SystemExit(2)


def need_trainer_environment(modules: tuple[str, ...] = TRAINER_MODULES) -> None:
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        fail(
            f"{', '.join(missing)} cannot be imported here: run it inside the LTX-2 trainer's environment, "
            "as `ltx-wizard compare RUN` does (uv run python ... in the checkout's packages/ltx-trainer)"
        )


def check_checkpoint(path: Path) -> None:
    if not path.is_file():
        fail(f"{path} does not exist")
    if path.suffix != ".safetensors":  # ltx_trainer/trainer.py LtxvTrainer._find_checkpoint's rule
        fail(f"checkpoint file must have a .safetensors extension: {path}")


def step(checkpoint: Path) -> int | None:
    # ltx_trainer/trainer.py LtxvTrainer._find_checkpoint (_get_step_num): the number after "step_"
    try:
        return int(checkpoint.stem.split("step_")[1])
    except (IndexError, ValueError):
        return None


def read_config(path: Path, what: str) -> Any:
    """scripts/train.py main: the YAML read and checked by the trainer's own schema; a LoRA run only
    (`what` compares LoRA checkpoints)."""
    import yaml
    from ltx_trainer.config import LtxTrainerConfig

    config = LtxTrainerConfig(**yaml.safe_load(path.read_text(encoding="utf-8")))
    if config.model.training_mode != "lora":
        fail(f"{what} compares LoRA checkpoints (model.training_mode is not lora)")
    return config


def model_sections(config: Any) -> dict[str, Any]:
    """What the loaded model depends on: the model section (less load_checkpoint, which neither
    program reads: each swaps the LoRAs in itself), the LoRA section and the quantization."""
    model = config.model.model_dump()
    model.pop("load_checkpoint", None)
    lora = None if config.lora is None else config.lora.model_dump()
    return {"model": model, "lora": lora, "acceleration.quantization": config.acceleration.quantization}


def device(name: str | None) -> Any:
    import torch

    return torch.device(name or ("cuda" if torch.cuda.is_available() else "cpu"))


def load_model(config: Any, on: Any) -> Any:
    """ltx_trainer/trainer.py LtxvTrainer._load_models: the transformer in bf16 (LoRA mode), quantized
    as the run trained it, frozen; then LtxvTrainer._setup_lora's wrap, on `on`, in eval mode (no LoRA
    dropout: a fixed function of the checkpoint)."""
    import torch
    from ltx_trainer.model_loader import load_transformer

    model = load_transformer(checkpoint_path=config.model.model_path, device="cpu", dtype=torch.bfloat16)
    if config.acceleration.quantization is not None:
        from ltx_trainer.quantization import quantize_model

        model = quantize_model(model, precision=config.acceleration.quantization)
    model.requires_grad_(False)
    return with_lora(model, config).to(on).eval()


def with_lora(model: Any, config: Any) -> Any:
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


def load_lora(model: Any, checkpoint: Path) -> None:
    """The checkpoint's LoRA into the wrapped model, in place."""
    import torch
    from peft import set_peft_model_state_dict
    from safetensors.torch import load_file

    with torch.no_grad():  # no leftovers of the previous checkpoint in a layer this one lacks
        for name, param in model.named_parameters():
            if "lora_" in name:
                param.zero_()
    # ltx_trainer/trainer.py LtxvTrainer._load_lora_checkpoint: ComfyUI names back to PEFT's
    state = {k.replace("diffusion_model.", "", 1): v for k, v in load_file(checkpoint).items()}
    set_peft_model_state_dict(model.get_base_model(), state)
