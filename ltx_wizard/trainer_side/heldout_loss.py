"""The held-out loss of LoRA checkpoints, run inside the trainer's environment (issue 44, Deliver 2).

    uv run python heldout_loss.py --config RUN/config.yaml --held-out HELD/.precomputed \
        --out-dir RUN/outputs/compare [--train-root ROOT] [--sample 4] [--sigmas 0.1,0.3,0.5,0.7,0.9] \
        [--seed 42] [--base] CHECKPOINT.safetensors ...

For each checkpoint it writes RUN/outputs/compare/heldout-loss-<checkpoint stem>.json (and with
--base heldout-loss-base.json, the base model alone): the trainer's own training loss, computed by
its strategy's prepare_training_inputs and compute_loss on the model and LoRA loaded as the trainer
loads them, at a fixed grid of sigmas with fixed noise seeds, on the held-out latents and on an equal
seeded sample of the training latents; and the effect size against the base model on the held-out
latents (LoRA on against off, same inputs). The wizard reads the file back through
ltx_wizard/core/compare/loss_record.py; it never imports this program (torch lives here only).
The model is loaded and its LoRAs swapped by lora_model.py, the sibling tournament_render.py shares;
`compare` runs this program alone only with --no-render: otherwise tournament_render.py --loss-config
computes the same records with this program's functions (loss_run, loss_sets, write_records) on the
one model it renders with.

Every random draw is fixed: the trainer's timestep sampler is replaced by one that returns the grid's
sigma; the noise (torch.randn_like in the strategy) and the strategy's conditioning draws (the
first-frame / prefix Bernoulli, the reference-condition coin, all torch.rand) come from the torch RNG,
which is seeded before each (set, sample, sigma) pass from --seed alone, so every checkpoint sees the
same noisy inputs; the training sample's choice is random.Random(--seed). The model runs in eval mode,
so the LoRA dropout the trainer trains with is off.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ltx_wizard.trainer_side import lora_model
else:
    try:  # run by path, as the wizard runs it: this folder is sys.path[0]
        import lora_model
    except ModuleNotFoundError:  # loaded from its file by a test: the sibling beside it
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import lora_model

DEFAULT_SIGMAS = (0.1, 0.3, 0.5, 0.7, 0.9)
VERSION = 1  # ltx_wizard/core/compare/loss_record.py LOSS_VERSION
# What this program imports from the trainer's environment (never the wizard's own dependencies).
TRAINER_MODULES = (*lora_model.TRAINER_MODULES, "ltx_core")


def _args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--config", type=Path, required=True, help="the run's trainer config.yaml")
    p.add_argument("--held-out", type=Path, required=True, help="the held-out clips' .precomputed folder")
    p.add_argument("--train-root", type=Path, help="training latents (default: data.preprocessed_data_root)")
    p.add_argument("--out-dir", type=Path, required=True, help="where the records go (RUN/outputs/compare)")
    p.add_argument("--sample", type=int, default=4, help="held-out clips used, and as many training ones")
    p.add_argument("--sigmas", default=",".join(map(str, DEFAULT_SIGMAS)), help="the fixed sigma grid")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--base", action="store_true", help="also write the base model's record")
    p.add_argument("--device", help="default: cuda where torch sees one, else cpu")
    p.add_argument("checkpoints", nargs="*", type=Path, help="LoRA checkpoints (.safetensors)")
    return p.parse_args(argv)


def _checked(args: argparse.Namespace) -> tuple[float, ...]:
    """Refuse what cannot run before torch is imported (seconds): one line, exit 2."""
    sigmas = checked_grid(args.held_out, args.sigmas, args.sample)
    if not args.config.is_file():
        lora_model.fail(f"{args.config} does not exist")
    for path in args.checkpoints:
        lora_model.check_checkpoint(path)
    if not args.checkpoints and not args.base:
        lora_model.fail("name at least one checkpoint, or --base")
    return sigmas


def checked_grid(held_out: Path, sigmas_text: str, sample: int) -> tuple[float, ...]:
    """The held-out folder, the sigma grid and the sample size, or the one-line refusal."""
    if not held_out.is_dir():
        lora_model.fail(
            f"the held-out latents folder {held_out} does not exist: preprocess the held-out clips first"
        )
    try:
        sigmas = tuple(float(s) for s in sigmas_text.split(","))
    except ValueError:
        lora_model.fail(f"--sigmas {sigmas_text!r} is not a list of numbers")
    if not sigmas or len(sigmas) > 100 or not all(0.0 < s <= 1.0 for s in sigmas):
        lora_model.fail("--sigmas takes 1 to 100 values in (0, 1]")
    if sample < 1:
        lora_model.fail("--sample must be at least 1")
    return sigmas


@dataclass
class Run:
    """What every pass shares: the trainer's config, strategy, model (LoRA-wrapped) and embeddings."""

    config: Any
    strategy: Any
    model: Any  # the PEFT-wrapped transformer
    embeddings: Any
    device: Any
    autocast: Any  # a function returning the trainer's mixed-precision context
    passes: int = 0


def deterministic() -> None:
    """The same number twice, on a GPU too: set before CUDA starts (cuBLAS reads it then)."""
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    import torch

    torch.use_deterministic_algorithms(True, warn_only=True)


def _load(config_path: Path, device_name: str | None) -> Run:
    deterministic()
    config = lora_model.read_config(config_path, "the held-out loss")
    device = lora_model.device(device_name)
    return loss_run(config, lora_model.load_model(config, device), device)


def loss_run(config: Any, model: Any, device: Any) -> Run:
    """The loss's parts around a loaded model (lora_model.load_model): the strategy, the text
    embeddings' connectors and the forward's precision, as the trainer sets them up."""
    import torch
    from ltx_trainer.model_loader import (
        embedding_weight_paths,
        load_embeddings_processor,
        read_video_scale_factors,
        resolve_video_vae_path,
    )
    from ltx_trainer.training_strategies import get_training_strategy

    # ltx_trainer/trainer.py LtxvTrainer.__init__: the strategy and the VAE's scale factors
    strategy = get_training_strategy(config.training_strategy)
    strategy.video_scale_factors = read_video_scale_factors(
        resolve_video_vae_path(config.model.model_path, config.model.video_vae_path)
    )
    embeddings = load_embeddings_processor(
        checkpoint_path=embedding_weight_paths(config.model.model_path, config.model.text_encoder_path),
        gemma_model_path=config.model.text_encoder_path,
        device=device,
        dtype=torch.bfloat16,
    )
    embeddings.feature_extractor = None
    precision = config.acceleration.mixed_precision_mode
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(precision)

    # Accelerator(mixed_precision=...) in LtxvTrainer._setup_accelerator autocasts the forward
    def autocast() -> Any:
        return torch.autocast(device.type, dtype=dtype or torch.bfloat16, enabled=dtype is not None)

    return Run(config, strategy, model, embeddings, device, autocast)


class FixedSigma:
    """The trainer's TimestepSampler as the strategies call it (sample_for, in flexible.py's
    _initialize_noisy_target), returning one sigma for the batch."""

    def __init__(self, sigma: float) -> None:
        self.sigma = sigma

    def sample_for(self, batch: Any) -> Any:
        import torch

        return torch.full((batch.shape[0],), self.sigma, device=batch.device, dtype=torch.float32)


@dataclass
class Samples:
    """A set of latents: its root, the chosen samples' names, and each one's batch of one."""

    root: Path
    names: list[str]
    batches: list[dict[str, Any]]


def _samples(run: Run, root: Path, count: int, seed: int) -> Samples:
    """A seeded choice of `count` samples of the trainer's own dataset at `root` (sorted order)."""
    from ltx_trainer.datasets import PrecomputedDataset
    from torch.utils.data import default_collate

    # ltx_trainer/trainer.py LtxvTrainer._init_dataloader: the strategy's data sources
    dataset = PrecomputedDataset(str(root), data_sources=run.config.training_strategy.get_data_sources())
    chosen = sorted(random.Random(seed).sample(range(len(dataset)), min(count, len(dataset))))
    files = next(iter(dataset.sample_files.values()))
    names = [str(files[i]) for i in chosen]
    batches = [_embedded(run, _to(default_collate([dataset[i]]), run.device)) for i in chosen]
    return Samples(root, names, batches)


def _to(value: Any, device: Any) -> Any:
    if isinstance(value, dict):
        return {k: _to(v, device) for k, v in value.items()}
    return value.to(device) if hasattr(value, "to") else value


def _embedded(run: Run, batch: dict[str, Any]) -> dict[str, Any]:
    """ltx_trainer/trainer.py LtxvTrainer._training_step, its first half: the precomputed text
    features through the embedding connectors. They hold no LoRA, so once per sample."""
    import torch
    from ltx_core.text_encoders.gemma import convert_to_additive_mask

    conditions = batch["conditions"]
    if "video_prompt_embeds" in conditions:
        video, audio = conditions["video_prompt_embeds"], conditions.get("audio_prompt_embeds")
    else:  # the legacy format: one prompt_embeds for both modalities
        video = audio = conditions["prompt_embeds"]
    additive = convert_to_additive_mask(conditions["prompt_attention_mask"], video.dtype)
    with torch.no_grad(), run.autocast():
        video_embeds, audio_embeds, mask = run.embeddings.create_embeddings(video, audio, additive)
    conditions.update(video_prompt_embeds=video_embeds, audio_prompt_embeds=audio_embeds)
    conditions["prompt_attention_mask"] = mask
    return batch


def _inputs(run: Run, batch: dict[str, Any], sigma: float, seed: int) -> Any:
    import torch

    torch.manual_seed(seed)  # the noise and the strategy's conditioning draws (see the docstring)
    fresh = {k: dict(v) if isinstance(v, dict) else v for k, v in batch.items()}  # the strategy may edit it
    return run.strategy.prepare_training_inputs(fresh, FixedSigma(sigma))


def _forward(run: Run, inputs: Any) -> tuple[Any, Any]:
    import torch

    run.passes += 1
    with torch.no_grad(), run.autocast():
        # ltx_trainer/trainer.py LtxvTrainer._training_step: the Modality-based forward
        return run.model(video=inputs.video, audio=inputs.audio, perturbations=None)


def _loss(run: Run, pred: tuple[Any, Any], inputs: Any) -> float:
    # the strategy's compute_loss returns [B]; the trainer backpropagates its mean
    value = run.strategy.compute_loss(pred[0], pred[1], inputs).float().mean().item()
    return value if math.isfinite(value) else math.nan


def _relative_change(on: tuple[Any, Any], off: tuple[Any, Any]) -> float:
    """|pred(LoRA on) - pred(LoRA off)| / |pred(LoRA off)| over every predicted value."""
    import torch

    a = torch.cat([p.float().flatten() for p in on if p is not None])
    b = torch.cat([p.float().flatten() for p in off if p is not None])
    return float(torch.linalg.vector_norm(a - b) / torch.linalg.vector_norm(b).clamp(min=1e-12))


def _pass_seed(seed: int, set_id: int, position: int, k: int) -> int:
    """One seed per (set, sample, sigma), the same for every checkpoint."""
    return ((seed * 2 + set_id) * 100_000 + position) * 100 + k


def _grid(
    run: Run, sets: list[Samples], sigmas: tuple[float, ...], seed: int, lora: bool, cache: dict
) -> Any:
    """The loss of each (sample, sigma) per set; with the LoRA on, also the relative change of the
    prediction against the base model's on the held-out set (set 0). The base model's predictions
    do not depend on the checkpoint: computed once, kept in `cache`."""
    grids: list[list[list[float]]] = []
    effects: list[float] = []
    for set_id, samples in enumerate(sets):
        grid = []
        for pos, batch in enumerate(samples.batches):
            row = []
            for k, sigma in enumerate(sigmas):
                inputs = _inputs(run, batch, sigma, _pass_seed(seed, set_id, pos, k))
                off = _base(run, cache, (set_id, pos, k), inputs) if set_id == 0 or not lora else None
                pred = _forward(run, inputs) if lora or off is None else off
                row.append(_loss(run, pred, inputs))
                if lora and off is not None:
                    effects.append(_relative_change(pred, off))
            grid.append(row)
        grids.append(grid)
    return grids, (sum(effects) / len(effects) if lora else None)


def _base(run: Run, cache: dict, key: tuple[int, int, int], inputs: Any) -> tuple[Any, Any]:
    if key not in cache:
        with run.model.disable_adapter():  # PEFT: the base model's prediction, same inputs
            cache[key] = _forward(run, inputs)
    return cache[key]


def _finite(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


def _mean(values: list[float]) -> float | None:
    return _finite(sum(values) / len(values)) if values else None


def _loss_set(samples: Samples, grid: list[list[float]], count: int) -> dict[str, Any]:
    per_sigma = [_mean([row[k] for row in grid]) for k in range(count)]
    loss = _mean([v for row in grid for v in row])
    return {"root": str(samples.root), "samples": samples.names, "loss": loss, "loss_per_sigma": per_sigma}


def _write(path: Path, record: dict[str, Any]) -> None:
    """Atomic: a temporary file beside it, then a rename."""
    text = json.dumps(record, indent=2, allow_nan=False) + "\n"
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _evaluate(
    run: Run, checkpoint: Path | None, sets: list[Samples], grid: tuple[float, ...], seed: int, cache: dict
) -> dict:
    start, passes = time.perf_counter(), run.passes
    if checkpoint is not None:
        lora_model.load_lora(run.model, checkpoint)
    grids, effect = _grid(run, sets, grid, seed, checkpoint is not None, cache)
    return {
        "version": VERSION,
        "checkpoint": None if checkpoint is None else str(checkpoint.resolve()),
        "step": None if checkpoint is None else lora_model.step(checkpoint),
        "strategy": type(run.strategy).__name__,
        "sigmas": list(grid),
        "seed": seed,
        "held_out": _loss_set(sets[0], grids[0], len(grid)),
        "train": _loss_set(sets[1], grids[1], len(grid)),
        "effect": _finite(effect),
        "forward_passes": run.passes - passes,
        "seconds": round(time.perf_counter() - start, 3),
        "device": run.device.type,
    }


def loss_sets(run: Run, held_out: Path, train_root: Path | None, sample: int, seed: int) -> list[Samples]:
    """The held-out sample (seeded when there are more than `sample`) and as many training ones
    (from `train_root`, by default the config's data.preprocessed_data_root)."""
    try:
        held = _samples(run, held_out, sample, seed)
    except (FileNotFoundError, ValueError) as exc:  # PrecomputedDataset's own refusals
        lora_model.fail(f"the held-out latents at {held_out} cannot be read: {exc}")
    root = train_root or Path(run.config.data.preprocessed_data_root)
    return [held, _samples(run, root, len(held.names), seed + 1)]


def write_records(
    run: Run,
    sets: list[Samples],
    checkpoints: list[Path | None],
    grid: tuple[float, ...],
    seed: int,
    out_dir: Path,
    say: Callable[[str], None] = lambda line: print(line, flush=True),
) -> None:
    """out_dir/heldout-loss-<stem>.json for each checkpoint (None: the base model, heldout-loss-base.json),
    in order; the base model's predictions, the effect's reference, computed once for them all."""
    out_dir.mkdir(parents=True, exist_ok=True)
    cache: dict = {}
    for checkpoint in checkpoints:
        record = _evaluate(run, checkpoint, sets, grid, seed, cache)
        name = "base" if checkpoint is None else checkpoint.stem  # core/compare/loss_record.py loss_file
        _write(out_dir / f"heldout-loss-{name}.json", record)
        say(
            f"heldout_loss: {name}: held-out {record['held_out']['loss']}, train {record['train']['loss']}, "
            f"effect {record['effect']}, {record['forward_passes']} passes in {record['seconds']} s"
        )


def main(argv: list[str] | None = None) -> int:
    lora_model.PROGRAM = "heldout_loss"
    args = _args(sys.argv[1:] if argv is None else argv)
    grid = _checked(args)
    lora_model.need_trainer_environment(TRAINER_MODULES)
    run = _load(args.config, args.device)
    sets = loss_sets(run, args.held_out, args.train_root, args.sample, args.seed)
    write_records(
        run, sets, ([None] if args.base else []) + list(args.checkpoints), grid, args.seed, args.out_dir
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
