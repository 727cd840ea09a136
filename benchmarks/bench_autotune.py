"""GPU-seconds and wall time of the wizard's autotune against the naive schedule, side by side.

    .venv/bin/python benchmarks/bench_autotune.py [--presets rtx5090,a6000,h100] [--speed 20] [--json]

For each preset a run folder is planned from look-alike files and autotuned by the real engine
(`AutotuneEngine`, the code path `ltx-wizard autotune` runs) against the simulated trainer, whose
phases take what ltx_wizard/demo/sim/cost_model.py says a real 22B run takes (time compressed
SIM_SPEED x).

Naive = the skill's text as written, by hand: every trial the wizard considered that is not a
no-op (trials the wizard skipped as unable to fit or unable to be kept run too; only no-ops and
trials the data has too few samples for are left out), in order, with the wizard's keep decisions
carried forward, each a fresh process with the plan's launch on every GPU: load (Gemma included)
+ 50 steps + the step-50 validation of the config's own samples, each run to its end (an OOM
left to finish its teardown).

GPU-seconds = the simulated seconds each trainer process ran (it reports them through
LTX_WIZARD_SIM_LEDGER, also when stopped early) x the GPUs it held, summed. Wall = the measured
wall time of the whole schedule x SIM_SPEED (Python start-up included, on both sides).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ltx_wizard.core.gpu.assessment import assess
from ltx_wizard.core.autotune.sweep.engine import AutotuneEngine
from ltx_wizard.core.tuning.trial_config import trial_overrides
from ltx_wizard.core.gpu.presets import preset_gpus, simulated_probe
from ltx_wizard.demo.lookalike_checkout import make_checkout
from ltx_wizard.demo.lookalike_models import make_checkpoint, make_data_root, make_gemma_dir
from ltx_wizard.core.plan.run_plan import PlanRequest, prepare_plan, write_plan
from ltx_wizard.core.io.yaml_patch import patch_yaml_text

SIM_SPEED = 20.0  # small enough that the simulation's own overhead (~1 s real a process) stays small
NAIVE_STEPS = 50
PRESETS = "rtx5090,a6000,h100,2xh100,8xh100"
TARGET_GPU, TARGET_WALL_8X = 0.5, 0.35


def plan(root: Path, preset: str) -> Path:
    gpus = len(preset_gpus(preset))
    make_checkout(root / "LTX-2")
    ckpt = make_checkpoint(root / "models" / "ltx-2.safetensors", params_b=22)
    gemma = make_gemma_dir(root / "models" / "gemma")
    data = make_data_root(root / "data" / ".precomputed", n_samples=4 * gpus)
    request = PlanRequest(
        trainer_root=root / "LTX-2",
        checkpoint=ckpt,
        text_encoder=gemma,
        data_root=data,
        workspace=root / "ws",
        run_name="run",
    )
    return write_plan(prepare_plan(request, assess(simulated_probe(preset)))).root


def ledger_gpu_s(path: Path) -> float:
    if not path.exists():
        return 0.0
    return sum(r["sim_s"] * r["gpus"] for r in map(json.loads, path.read_text().splitlines()) if r)


def wizard(run_dir: Path, preset: str, ledger: Path):
    probe = simulated_probe(preset)
    from ltx_wizard.demo.sim.stand_in import SimulatedTrainer

    stand_in = SimulatedTrainer(preset, speed=SIM_SPEED, env={"LTX_WIZARD_SIM_LEDGER": str(ledger)})
    engine = AutotuneEngine(run_dir, probe=probe, assessment=assess(probe), stand_in=stand_in, grace_s=2.0)
    start = time.monotonic()
    summary = asyncio.run(engine.run())
    return summary, (time.monotonic() - start) * SIM_SPEED


def naive_trials(summary) -> list:
    """The trials a person following the skill runs: all but no-ops and data-starved ones."""

    def runs(trial) -> bool:
        return trial.ran or not (
            trial.reason.startswith("no-op") or "sample" in trial.reason or "did not win" in trial.reason
        )

    return [t for t in summary.trials if runs(t)]


def naive(run_dir: Path, preset: str, summary, ledger: Path) -> float:
    """Wall seconds (scaled) of the naive schedule; GPU-seconds land in `ledger`."""
    planned = (run_dir / "plan-base.yaml").read_text()  # config.yaml has the winner patched in
    gpus = len(preset_gpus(preset))
    env = {
        **os.environ,
        "LTX_WIZARD_SIM_GPU": preset,
        "LTX_WIZARD_SIM_SPEED": f"{SIM_SPEED:g}",
        "LTX_WIZARD_SIM_LEDGER": str(ledger),
        "PYTHONPATH": str(Path(__file__).resolve().parents[1]),
    }
    if gpus > 1:
        env.update(WORLD_SIZE=str(gpus), LOCAL_RANK="0")
    subset = run_dir / "overfit" / ".precomputed"
    kept: dict[str, object] = {}
    start = time.monotonic()
    for trial in naive_trials(summary):
        out = run_dir / "naive" / f"trial-{trial.index}"
        out.mkdir(parents=True, exist_ok=True)
        overrides = {k: v for k, v in trial_overrides(subset, out).items() if not k.startswith("validation.")}
        text = patch_yaml_text(
            planned,
            {
                **kept,
                **trial.changes,
                **overrides,
                "optimization.steps": NAIVE_STEPS,
                "validation.interval": NAIVE_STEPS,
                "validation.skip_initial_validation": True,
            },
        )
        (out / "config.yaml").write_text(text)
        subprocess.run(
            [
                sys.executable,
                "-m",
                "ltx_wizard.demo.sim.trainer",
                str(out / "config.yaml"),
                "--disable-progress-bars",
            ],
            env=env,
            cwd=out,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
        )
        if trial.kept:
            kept.update(trial.changes)
    return (time.monotonic() - start) * SIM_SPEED


def measure(preset: str, tmp: Path) -> dict:
    run_dir = plan(tmp / preset, preset)
    (run_dir / "plan-base.yaml").write_text((run_dir / "config.yaml").read_text())
    summary, wizard_wall = wizard(run_dir, preset, tmp / f"{preset}-wizard.jsonl")
    naive_wall = naive(run_dir, preset, summary, tmp / f"{preset}-naive.jsonl")
    conf = summary.confirmation
    return {
        "naive_gpu_s": round(ledger_gpu_s(tmp / f"{preset}-naive.jsonl"), 1),
        "wizard_gpu_s": round(ledger_gpu_s(tmp / f"{preset}-wizard.jsonl"), 1),
        "naive_wall_s": round(naive_wall, 1),
        "wizard_wall_s": round(wizard_wall, 1),
        "naive_trials": len(naive_trials(summary)),
        "wizard_trials": sum(1 for t in summary.trials if t.ran),
        "confirmation": None
        if conf is None
        else f"{conf.outcome} ({conf.gpus} GPU"
        + ("s" if conf.gpus > 1 else "")
        + (", fused" if conf.fused else "")
        + ")",
        "trials": [f"{t.change}: {t.outcome}{' kept' if t.kept else ''}" for t in summary.trials],
    }


def main() -> None:
    global SIM_SPEED
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presets", default=PRESETS)
    parser.add_argument("--json", action="store_true", help="one JSON object keyed by preset")
    parser.add_argument(
        "--speed",
        type=float,
        default=SIM_SPEED,
        help="time compression (lower: the simulation's own ~1 s of process "
        "overhead weighs less in the wall times; slower to run)",
    )
    args = parser.parse_args()
    SIM_SPEED = args.speed
    results = {}
    with tempfile.TemporaryDirectory(prefix="bench-autotune-") as tmp:
        for preset in args.presets.split(","):
            results[preset] = measure(preset, Path(tmp))
    if args.json:
        keys = ("naive_gpu_s", "wizard_gpu_s", "naive_wall_s", "wizard_wall_s")
        print(json.dumps({p: {k: r[k] for k in keys} for p, r in results.items()}, indent=2))
        return
    print(
        f"{'preset':<8} {'trials n/w':>10} {'naive GPU-s':>12} {'wizard GPU-s':>13} {'ratio':>6} "
        f"{'naive wall':>11} {'wizard wall':>12} {'ratio':>6}  confirmation"
    )
    for preset, r in results.items():
        gpu = r["wizard_gpu_s"] / r["naive_gpu_s"] if r["naive_gpu_s"] else float("nan")
        wall = r["wizard_wall_s"] / r["naive_wall_s"] if r["naive_wall_s"] else float("nan")
        print(
            f"{preset:<8} {r['naive_trials']:>4}/{r['wizard_trials']:<5} {r['naive_gpu_s']:>12.0f} "
            f"{r['wizard_gpu_s']:>13.0f} {gpu:>5.2f}x {r['naive_wall_s']:>11.0f} "
            f"{r['wizard_wall_s']:>12.0f} {wall:>5.2f}x  {r['confirmation']}"
        )
    print(
        f"\ntargets: wizard <= {TARGET_GPU}x naive GPU-seconds everywhere, "
        f"<= {TARGET_WALL_8X}x naive wall on 8xh100"
    )
    for preset, r in results.items():
        print(f"{preset}: {'; '.join(r['trials'])}")


if __name__ == "__main__":
    main()
