"""plan.md's duration estimate against the simulated trainer's own total, side by side.

    .venv/bin/python benchmarks/bench_duration_estimate.py [--cases rtx5090,a6000,h100,i2v] [--json]

For each case a run folder is planned from the `--demo` look-alike files (the demo's config for
that GPU; `i2v`: the i2v_lora recipe's 2,000-step run on the demo's a6000) and autotuned by the
real engine against the simulated trainer (as `--demo` runs it). The estimate is autotune.json's
duration (core/tuning/duration.py: load, steps, validation passes, checkpoint saves), the one
plan.md states. Then the simulated trainer runs config.yaml to its end with no sleeping
(LTX_WIZARD_SIM_SPEED=0): its clock counts what a real run would take (cost_model.py), and the
measured total is the simulated seconds of the whole process (LTX_WIZARD_SIM_LEDGER: load, steps,
validation, saves, teardown). ratio = estimate / measured; the target is 0.8-1.2.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ltx_wizard.core.autotune.sweep.engine import AutotuneEngine
from ltx_wizard.core.gpu.assessment import assess
from ltx_wizard.core.gpu.presets import preset_gpus, simulated_probe
from ltx_wizard.core.plan.run_plan import PlanRequest, prepare_plan, write_plan
from ltx_wizard.core.tuning.tune_record import read_tune_record
from ltx_wizard.demo import DEMO_PRESET
from ltx_wizard.demo.builder import build_demo
from ltx_wizard.demo.sim.stand_in import SimulatedTrainer, choose_stand_ins, plan_simulation

# case -> (preset, recipe; None: the plan's default for the tier)
CASES = {
    "rtx5090": ("rtx5090", None),
    "a6000": ("a6000", None),
    "h100": ("h100", None),
    "i2v": (DEMO_PRESET, "i2v_lora"),
}
LOW, HIGH = 0.8, 1.2


def plan_and_tune(root: Path, preset: str, recipe: str | None) -> Path:
    demo = build_demo(root, simulate=preset)
    request = PlanRequest(
        trainer_root=demo.checkout,
        checkpoint=demo.checkpoint,
        text_encoder=demo.text_encoder,
        data_root=demo.data_root,
        workspace=demo.workspace,
        run_name="run",
        **({"recipe": recipe} if recipe else {}),
    )
    probe = simulated_probe(preset)
    run = write_plan(prepare_plan(request, assess(probe), **plan_simulation(choose_stand_ins(preset)))).root
    engine = AutotuneEngine(
        run, probe=probe, assessment=assess(probe), stand_in=SimulatedTrainer(preset), grace_s=2.0
    )
    asyncio.run(engine.run())
    return run


def simulated_total_s(run: Path, preset: str, ledger: Path) -> float:
    """The simulated trainer's own seconds for config.yaml, start to exit."""
    env = {
        **os.environ,
        "LTX_WIZARD_SIM_GPU": preset,
        "LTX_WIZARD_SIM_SPEED": "0",
        "LTX_WIZARD_SIM_LEDGER": str(ledger),
        "PYTHONPATH": str(Path(__file__).resolve().parents[1]),
    }
    gpus = len(preset_gpus(preset))
    if gpus > 1:
        env.update(WORLD_SIZE=str(gpus), LOCAL_RANK="0")
    argv = [sys.executable, "-m", "ltx_wizard.demo.sim.trainer", str(run / "config.yaml")]
    done = subprocess.run(argv + ["--disable-progress-bars"], env=env, cwd=run, capture_output=True)
    if done.returncode != 0:
        raise RuntimeError(f"the simulated trainer exited {done.returncode}: {done.stdout[-500:]!r}")
    return float(json.loads(ledger.read_text().splitlines()[-1])["sim_s"])


def measure(case: str, tmp: Path) -> dict:
    preset, recipe = CASES[case]
    run = plan_and_tune(tmp / case, preset, recipe)
    record = read_tune_record(run)
    duration = record.duration if record is not None else None
    if duration is None:
        raise RuntimeError(f"{case}: autotune left no duration estimate")
    measured = simulated_total_s(run, preset, tmp / f"{case}.jsonl")
    return {
        "preset": preset,
        "steps": duration.steps,
        "estimate_s": round(duration.total_s, 1),
        "measured_s": round(measured, 1),
        "ratio": round(duration.total_s / measured, 3),
        "parts_s": {
            "load": round(duration.load_s or 0.0, 1),
            "steps": round(duration.train_s, 1),
            "validation": round(duration.validation_s, 1),
            "saves": round(duration.saves_s, 1),
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument("--json", action="store_true", help="one JSON object keyed by case")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-duration-") as tmp:
        results = {case: measure(case, Path(tmp)) for case in args.cases.split(",")}
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"{'case':<8} {'steps':>5} {'estimate':>10} {'measured':>10} {'ratio':>6}  estimate's parts (min)")
    for case, r in results.items():
        parts = ", ".join(f"{k} {v / 60:.1f}" for k, v in r["parts_s"].items())
        print(
            f"{case:<8} {r['steps']:>5} {r['estimate_s'] / 60:>8.1f} m {r['measured_s'] / 60:>8.1f} m "
            f"{r['ratio']:>5.2f}x  {parts}"
        )
    print(f"\ntarget: every ratio within {LOW}-{HIGH}")


if __name__ == "__main__":
    main()
