"""The tournament's renders with one model load, run inside the trainer's environment (issue 44,
Deliver 4 and 8); with --loss-config, the held-out loss too, on that same model load, first.

    uv run python tournament_render.py --config RUN/compare-config.yaml \
        --out-dir RUN/outputs/compare/renders [--device cuda] \
        [--loss-config RUN/config.yaml --held-out HELD/.precomputed --loss-out-dir RUN/outputs/compare \
         [--train-root ROOT] [--sample 4] [--sigmas 0.1,0.3,0.5,0.7,0.9] [--seed 42] \
         [--loss-rows NAME,...]] ROW ...

ROW is NAME (the base model: the LoRA switched off) or NAME=CHECKPOINT.safetensors. The transformer
is loaded once as the trainer loads it and wrapped in the run's LoRA (lora_model.py).

With --loss-config (the run's own config.yaml: its strategy and data root), before any render, the
held-out loss of heldout_loss.py (its own functions, the same arguments: --held-out, --train-root,
--sample, --sigmas, --seed as heldout_loss.py's) is computed on that one model for each row named
in --loss-rows (default: every row; the base row's record is heldout-loss-base.json), written to
--loss-out-dir as heldout_loss.py writes it, to the last digit. The two configs must agree on what the
model is (the model section less load_checkpoint, the LoRA section, the quantization): where they
differ it refuses, one line, exit 2. A loss that fails is named on stderr in one line
(`tournament_render: held-out loss: failed: ...`) and nothing renders (exit 1).

Then, row by row, the checkpoint's LoRA is loaded in place (as the trainer resumes one) and the
trainer's own validation (its ValidationRunner, built from --config's validation section: its samples,
seed, size and inference steps) renders every sample, written where the trainer writes its step-0
samples: OUT_DIR/NAME/samples/step_000000_<sample + 1>.mp4. core/evaluation/tournament.py lays them out.

A row that fails is named on stderr in one line (`tournament_render: NAME: failed: ...`) and the
others still render; the exit status is 1 when no row rendered, 2 when the arguments or the
environment cannot run at all. The model runs in eval mode (the trainer validates in train mode,
where the LoRA's dropout is live): the renders are a fixed function of the checkpoint.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ltx_wizard.trainer_side import heldout_loss, lora_model
else:
    try:  # run by path, as the wizard runs it: this folder is sys.path[0]
        import heldout_loss
        import lora_model
    except ModuleNotFoundError:  # loaded from its file by a test: the siblings beside it
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import heldout_loss
        import lora_model

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
    loss = p.add_argument_group("the held-out loss first, on the same model (heldout_loss.py's arguments)")
    loss.add_argument("--loss-config", type=Path, help="the run's config.yaml: computes the held-out loss")
    loss.add_argument("--held-out", type=Path, help="the held-out clips' .precomputed folder")
    loss.add_argument("--loss-out-dir", type=Path, help="where its records go (RUN/outputs/compare)")
    loss.add_argument(
        "--train-root", type=Path, help="training latents (default: data.preprocessed_data_root)"
    )
    loss.add_argument("--sample", type=int, default=4, help="held-out clips used, and as many training ones")
    loss.add_argument("--sigmas", default=",".join(map(str, heldout_loss.DEFAULT_SIGMAS)))
    loss.add_argument("--seed", type=int, default=42)
    loss.add_argument("--loss-rows", help="the rows whose loss is computed, NAME,... (default: all)")
    p.add_argument("rows", nargs="+", help="NAME (the base model) or NAME=CHECKPOINT.safetensors")
    return p.parse_args(argv)


def _rows(args: argparse.Namespace) -> list[Row]:
    """Refuse what cannot run before torch is imported (seconds): one line, exit 2."""
    if not args.config.is_file():
        lora_model.fail(f"{args.config} does not exist")
    rows: list[Row] = []
    for text in args.rows:
        name, _, path = text.partition("=")
        if not name or not set(name) <= ROW_NAME_CHARS or name in {r.name for r in rows}:
            lora_model.fail(f"row {text!r}: its name must be unique, of a-z, 0-9, - and _")
        checkpoint = Path(path) if path else None
        if checkpoint is not None:
            lora_model.check_checkpoint(checkpoint)
        rows.append(Row(name, checkpoint))
    return rows


@dataclass(frozen=True)
class LossRequest:
    config: Path
    sigmas: tuple[float, ...]
    rows: tuple[Row, ...]  # whose records it writes, the base first as heldout_loss.py --base does


def _loss_request(args: argparse.Namespace, rows: list[Row]) -> LossRequest | None:
    """The held-out loss asked for, checked as heldout_loss.py checks it; None without --loss-config."""
    if args.loss_config is None:
        return None
    if not args.loss_config.is_file():
        lora_model.fail(f"{args.loss_config} does not exist")
    if args.held_out is None or args.loss_out_dir is None:
        lora_model.fail("--loss-config needs --held-out and --loss-out-dir")
    sigmas = heldout_loss.checked_grid(args.held_out, args.sigmas, args.sample)
    names = [r.name for r in rows] if args.loss_rows is None else args.loss_rows.split(",")
    unknown = sorted(set(names) - {r.name for r in rows})
    if unknown or not names:
        lora_model.fail(f"--loss-rows {args.loss_rows!r}: name rows of this run ({', '.join(unknown)})")
    chosen = sorted((r for r in rows if r.name in names), key=lambda r: r.checkpoint is not None)
    return LossRequest(args.loss_config, sigmas, tuple(chosen))


@dataclass
class Renderer:
    config: Any
    runner: Any  # the trainer's ValidationRunner
    model: Any  # the PEFT-wrapped transformer
    device: Any


def _same_model(render_config: Any, loss_config: Any, args: argparse.Namespace) -> None:
    ours, theirs = lora_model.model_sections(render_config), lora_model.model_sections(loss_config)
    differ = [key for key in ours if ours[key] != theirs[key]]
    if differ:
        lora_model.fail(
            f"{args.loss_config} and {args.config} differ in {', '.join(differ)}: "
            "one model load serves the held-out loss and the renders only where they agree"
        )


def _load(args: argparse.Namespace, loss: LossRequest | None) -> tuple[Renderer, Any]:
    """The renders' config, the loss's (or None), and the one model both use."""
    from ltx_trainer.validation_runner import ValidationRunner

    config = lora_model.read_config(args.config, "the tournament")
    loss_config = None
    if loss is not None:
        loss_config = lora_model.read_config(loss.config, "the held-out loss")
        _same_model(config, loss_config, args)
        heldout_loss.deterministic()  # before CUDA starts, as heldout_loss.py alone
    device = lora_model.device(args.device)
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
    return Renderer(config, runner, lora_model.load_model(config, device), device), loss_config


def _loss(renderer: Renderer, loss_config: Any, loss: LossRequest, args: argparse.Namespace) -> None:
    """heldout_loss.py's records on the renders' model; what the loss held is freed after."""
    import torch

    run = heldout_loss.loss_run(loss_config, renderer.model, renderer.device)
    sets = heldout_loss.loss_sets(run, args.held_out, args.train_root, args.sample, args.seed)
    checkpoints = [r.checkpoint for r in loss.rows]
    heldout_loss.write_records(run, sets, checkpoints, loss.sigmas, args.seed, args.loss_out_dir)
    del run, sets
    torch.use_deterministic_algorithms(False)  # the renders as they render without a loss
    _free(renderer)


def _render(renderer: Renderer, row: Row, out_dir: Path) -> list[Path]:
    from ltx_trainer.progress import TrainingProgress

    if row.checkpoint is not None:
        lora_model.load_lora(renderer.model, row.checkpoint)
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
    lora_model.PROGRAM = "tournament_render"
    args = _args(sys.argv[1:] if argv is None else argv)
    rows = _rows(args)
    loss = _loss_request(args, rows)
    lora_model.need_trainer_environment(
        lora_model.TRAINER_MODULES if loss is None else heldout_loss.TRAINER_MODULES
    )
    renderer, loss_config = _load(args, loss)
    if loss is not None:
        try:
            _loss(renderer, loss_config, loss, args)
        except Exception as exc:  # the comparison needs it: no renders without it
            print(f"tournament_render: held-out loss: failed: {type(exc).__name__}: {exc}", file=sys.stderr)
            return 1
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
    import gc

    import torch

    gc.collect()
    if renderer.device.type == "cuda":
        torch.cuda.empty_cache()


if __name__ == "__main__":
    raise SystemExit(main())
