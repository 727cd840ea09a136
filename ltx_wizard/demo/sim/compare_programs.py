"""The simulated trainer environment's stand-ins for trainer_side/'s programs (`compare` on a
--simulate / --demo run), run as `python -m ltx_wizard.demo.sim.compare_programs <program> ARGS`
with the real program's arguments, writing the records the real ones write
(core/compare/loss_record.py, health_record.py), deterministically.

tournament_render: every row in one process, as the real program; with --loss-config (the real
program's held-out loss arguments) it writes heldout_loss's records first, in the same process.

heldout_loss: no model exists here, so the numbers come from the simulated run's own loss curve
(`mean_loss`, the simulated trainer's logged loss without its noise), by a stated rule:
- training loss at step s: mean_loss(s); the base model is step 0;
- held-out loss: the training loss + 0.01, + 0.05 per unit of the run past 60 % of its steps
  (so a long run over-fits: held-out rising while training falls);
- effect against base: 20 % x (1 - exp(-s / (0.3 x steps)));
- per sigma: the loss x (0.6 + 0.8 sigma), whose mean over the default grid is the loss.

lora_health: the simulated trainer's checkpoints are safetensors headers without tensors (metadata
"simulated"), so the real program would find no LoRA in them. For those it writes facts of a
healthy LoRA (the config's targets in attn1 and attn2 of two blocks, B growing with the step); any
other file (a test's real LoRA file, NaNs or audio modules in it) goes to the real lora_health.py
run by this python, which needs torch: without it, that file is refused in one line, exit 1.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

from ltx_wizard.core.io.run_folder import CONFIG, LORA_HEALTH
from ltx_wizard.demo.sim.resume import write_file

# seconds each record waits before it is written, standing in for the model's time (the signal
# tests need a program still running when the signal comes); unset: none
WAIT_ENV = "LTX_WIZARD_SIM_COMPARE_WAIT"
RENDER_WAIT_ENV = "LTX_WIZARD_SIM_RENDER_WAIT"  # seconds before each tournament row; unset: none
HEALTH_SCRIPT = Path(__file__).resolve().parents[2] / "trainer_side" / "lora_health.py"
_STEP = re.compile(r"step_(\d+)")
BLOCKS = 2
DEFAULT_TARGETS = ("to_k", "to_q", "to_v", "to_out.0")  # ltx_trainer/config.py LoraConfig


def mean_loss(step: int) -> float:
    """The simulated trainer's loss curve (trainer.py `_step_line` adds its noise to it)."""
    return 0.11 + 0.25 * math.exp(-step / 30)


def _config(path: Path) -> dict[str, Any]:
    data = YAML(typ="safe").load(path.read_text(encoding="utf-8")) if path.is_file() else None
    return data if isinstance(data, dict) else {}


def _step(path: Path) -> int | None:
    found = _STEP.search(path.stem)
    return int(found.group(1)) if found else None


def _write_json(path: Path, record: dict[str, Any]) -> None:
    write_file(path, (json.dumps(record, indent=2, allow_nan=False) + "\n").encode("utf-8"))


def _latents(root: Path) -> list[str]:
    folder = root / "latents"
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*.pt")) if folder.is_dir() else []


def _loss_set(root: Path, names: list[str], loss: float, sigmas: list[float]) -> dict[str, Any]:
    per = [round(loss * (0.6 + 0.8 * s), 8) for s in sigmas]
    return {"root": str(root), "samples": names, "loss": round(loss, 8), "loss_per_sigma": per}


def heldout_loss(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="heldout_loss.py (simulated)")
    p.add_argument("--config", type=Path, required=True)
    p.add_argument("--held-out", type=Path, required=True)
    p.add_argument("--out-dir", type=Path, required=True)
    _loss_options(p)
    p.add_argument("--base", action="store_true")
    p.add_argument("checkpoints", nargs="*", type=Path)
    args = p.parse_args(argv)
    checkpoints = ([None] if args.base else []) + list(args.checkpoints)
    return _loss_records(args, args.config, args.out_dir, checkpoints, "heldout_loss")


def _loss_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--train-root", type=Path)
    p.add_argument("--sample", type=int, default=4)
    p.add_argument("--sigmas", default="0.1,0.3,0.5,0.7,0.9")
    p.add_argument("--seed", type=int, default=42)


def _loss_records(
    args: argparse.Namespace, config: Path, out_dir: Path, checkpoints: list[Path | None], program: str
) -> int:
    """heldout-loss-<stem>.json for each checkpoint (None: the base model), in order; 2 without latents."""
    raw = _config(config)
    steps = int((raw.get("optimization") or {}).get("steps") or 1)
    train_root = args.train_root or Path((raw.get("data") or {}).get("preprocessed_data_root") or ".")
    held = _latents(args.held_out)[: args.sample]
    if not held:
        print(f"{program}: no latents under {args.held_out}", file=sys.stderr)
        return 2
    train = _latents(train_root)[: len(held)]
    sigmas = [float(s) for s in args.sigmas.split(",")]
    out_dir.mkdir(parents=True, exist_ok=True)
    for ckpt in checkpoints:
        step = 0 if ckpt is None else (_step(ckpt) or 0)
        over = 0.05 * max(0.0, step / steps - 0.6)
        record = {
            "version": 1,
            "checkpoint": None if ckpt is None else str(ckpt.resolve()),
            "step": None if ckpt is None else _step(ckpt),
            "strategy": "simulated",
            "sigmas": sigmas,
            "seed": args.seed,
            "held_out": _loss_set(args.held_out, held, mean_loss(step) + 0.01 + over, sigmas),
            "train": _loss_set(train_root, train, mean_loss(step), sigmas),
            "effect": None if ckpt is None else round(0.2 * (1 - math.exp(-step / (0.3 * steps))), 8),
            "forward_passes": (len(held) + len(train)) * len(sigmas),
            "seconds": 0.0,
            "device": "simulated",
        }
        name = "base" if ckpt is None else ckpt.stem
        time.sleep(float(os.environ.get(WAIT_ENV) or 0))
        _write_json(out_dir / f"heldout-loss-{name}.json", record)
        print(f"heldout_loss: {name}: held-out {record['held_out']['loss']}", flush=True)
    return 0


def _simulated(path: Path) -> bool:
    """The simulated trainer's own checkpoint: a header whose metadata says so, and no tensor."""
    try:
        with path.open("rb") as f:
            size = int.from_bytes(f.read(8), "little")
            header = json.loads(f.read(min(size, 1 << 20)))
    except (OSError, ValueError):
        return False
    return isinstance(header, dict) and (header.get("__metadata__") or {}).get("simulated") == "true"


def _module(name: str, rank: int, step: int) -> dict[str, Any]:
    b = round(0.02 * (1 - math.exp(-step / 30)), 8)
    counts = {"name": name, "rank": rank, "nan": 0, "inf": 0, "b_zero": b == 0.0}
    return counts | {"a_norm": 1.0, "b_norm": b, "delta_norm": round(b * 0.5, 8)}


def _simulated_facts(path: Path, raw: dict[str, Any]) -> dict[str, Any]:
    lora = raw.get("lora") or {}
    targets, rank, step = (
        lora.get("target_modules") or DEFAULT_TARGETS,
        int(lora.get("rank") or 32),
        _step(path) or 0,
    )
    names = [
        f"diffusion_model.transformer_blocks.{b}.{part}.{t}"
        for b in range(BLOCKS)
        for part in ("attn1", "attn2")
        for t in targets
    ]
    modules = [_module(n, rank, step) for n in names]
    file = {"path": str(path), "file_bytes": path.stat().st_size, "dtypes": ["BF16"], "seconds": 0.0}
    return file | {"modules": modules, "others": []}


def _real_facts(paths: list[Path]) -> tuple[dict[str, dict[str, Any]], str] | int:
    """The real program on the files that are not the simulator's: (facts by path, torch) or its exit code."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "health.json"
        code = subprocess.run(
            [sys.executable, str(HEALTH_SCRIPT), "--out", str(out), *map(str, paths)]
        ).returncode
        if code != 0:
            return code
        record = json.loads(out.read_text(encoding="utf-8"))
    return {c["path"]: c for c in record["checkpoints"]}, record["torch"]


def lora_health(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="lora_health.py (simulated)")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("checkpoints", type=Path, nargs="+")
    args = p.parse_args(argv)
    run = args.out.parents[len(Path(LORA_HEALTH.rel).parts) - 1]  # --out is RUN/<LORA_HEALTH.rel>
    raw = _config(CONFIG.path(run))
    real = [c for c in args.checkpoints if not _simulated(c)]
    read = _real_facts(real) if real else ({}, "simulated")
    if isinstance(read, int):
        return read
    found, torch = read
    time.sleep(float(os.environ.get(WAIT_ENV) or 0))
    facts = [found[str(c)] if c in real else _simulated_facts(c, raw) for c in args.checkpoints]
    _write_json(args.out, {"version": 1, "torch": torch, "checkpoints": facts})
    print(f"lora_health: {len(facts)} checkpoint(s) read", flush=True)
    return 0


def tournament_render(argv: list[str]) -> int:
    """Every row in this one process, as tournament_render.py does, each render the one the
    simulated trainer's validation draws for the same sample and LoRA (demo/tiny_video.py), where
    the trainer writes its step-0 samples: OUT_DIR/NAME/samples/step_000000_<sample + 1>.mp4. A
    checkpoint that is not a file fails its row alone, in the real program's words."""
    from ltx_wizard.demo.tiny_video import render_sample

    p = argparse.ArgumentParser(prog="tournament_render.py (simulated)")
    p.add_argument("--config", type=Path, required=True)
    p.add_argument("--out-dir", type=Path, required=True)
    p.add_argument("--device")
    p.add_argument("--loss-config", type=Path)
    p.add_argument("--held-out", type=Path)
    p.add_argument("--loss-out-dir", type=Path)
    p.add_argument("--loss-rows")
    _loss_options(p)
    p.add_argument("rows", nargs="+")
    args = p.parse_args(argv)
    if args.loss_config is not None:  # the held-out loss first, in this same process
        code = _loss_records(args, args.loss_config, args.loss_out_dir, _loss_rows(args), "tournament_render")
        if code:
            return code
    raw = _config(args.config)
    count = len((raw.get("validation") or {}).get("samples") or [])
    rendered = 0
    for text in args.rows:
        name, _, lora = text.partition("=")
        time.sleep(float(os.environ.get(RENDER_WAIT_ENV) or 0))
        if lora and not Path(lora).is_file():
            print(
                f"tournament_render: {name}: failed: FileNotFoundError: {lora}", file=sys.stderr, flush=True
            )
            continue
        samples = args.out_dir / name / "samples"
        for index in range(count):
            render_sample(raw, index, lora or None, samples / f"step_000000_{index + 1}.mp4")
        rendered += 1
        print(f"tournament_render: {name}: {count} render(s)", flush=True)
    return 0 if rendered else 1


def _loss_rows(args: argparse.Namespace) -> list[Path | None]:
    """The checkpoints of the rows --loss-rows names (all by default), the base (no LoRA) first."""
    rows = [text.partition("=") for text in args.rows]
    wanted = None if args.loss_rows is None else set(args.loss_rows.split(","))
    chosen = [Path(lora) if lora else None for name, _, lora in rows if wanted is None or name in wanted]
    return sorted(chosen, key=lambda c: c is not None)


PROGRAMS = {"heldout_loss": heldout_loss, "lora_health": lora_health, "tournament_render": tournament_render}


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] not in PROGRAMS:
        print(f"usage: compare_programs {{{','.join(PROGRAMS)}}} ARGS", file=sys.stderr)
        return 2
    return PROGRAMS[args[0]](args[1:])


if __name__ == "__main__":
    raise SystemExit(main())
