"""What comparing the kept checkpoints costs, as plan.md estimates it, beside issue 44's targets.

    .venv/bin/python benchmarks/bench_compare_cost.py [--cases rtx5090,a6000,h100] [--held-out N] [--json]

For each case a run folder is planned from the `--demo` look-alike files and autotuned by the real
engine against the simulated trainer (benchmarks/bench_duration_estimate.py's plan_and_tune), whose
phases follow ltx_wizard/demo/sim/cost_model.py. From autotune.json's duration estimate (the one
plan.md states) core/plan/compare_cost.py prices the held-out loss (trainer_side/heldout_loss.py as
compare runs it: the base and each checkpoint, its samples sized to its budget) and the tournament's
renders for the checkpoints config.yaml keeps, with --held-out clips held out (default 4, the loss's
most samples: the demo's dataset holds none out). The loss runs first in the tournament's process on
its one model load: its share is its forward passes (`loss_alone_share`: with `--no-render`, its own
load added). Shares are of the training GPU time (steps x s/step x GPUs); targets: held-out loss
<= 5 %, whole comparison <= 15 %. `fits` is the most kept checkpoints within each target (0: not even one).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_duration_estimate import CASES, plan_and_tune

from ltx_wizard.core.io.yaml_patch import load_yaml
from ltx_wizard.core.plan.compare_cost import (
    LOSS_SAMPLE,
    LOSS_TARGET,
    TOURNAMENT_TARGET,
    CompareCost,
    compare_cost,
)
from ltx_wizard.core.plan.record import read_record
from ltx_wizard.core.tuning.tune_record import read_tune_record

DEFAULT_CASES = ("rtx5090", "a6000", "h100")


def priced(run: Path, held_out: int) -> CompareCost:
    """The cost plan.md states for this run, with `held_out` clips held out."""
    tuned, rec = read_tune_record(run), read_record(run)
    if tuned is None or tuned.duration is None or rec is None:
        raise RuntimeError(f"{run}: autotune left no duration estimate")
    return compare_cost(load_yaml(tuned.config_text), tuned.duration, held_out, rec.schedule.num_gpus)


def measure(case: str, tmp: Path, held_out: int = LOSS_SAMPLE) -> dict:
    preset, recipe = CASES[case]
    return {"preset": preset, **measure_run(plan_and_tune(tmp / case, preset, recipe), held_out)}


def measure_run(run: Path, held_out: int) -> dict:
    """One case's row, from its autotuned run folder."""
    cost = priced(run, held_out)
    loss, renders, total = cost.loss_s(), cost.render_s(), cost.total_s()
    alone = cost.loss_alone_s()
    return {
        "checkpoints": cost.checkpoints,
        "samples": cost.samples,
        "forward_passes": cost.passes,
        "train_gpu_s": round(cost.train_gpu_s, 1),
        "loss_s": round(loss, 1),
        "renders_s": None if renders is None else round(renders, 1),
        "loss_share": _ratio(cost.share(loss)),
        "loss_alone_share": _ratio(cost.share(alone)),
        "renders_share": _ratio(cost.share(renders)),
        "total_share": _ratio(cost.share(total)),
        "loss_fits": cost.most_checkpoints(LOSS_TARGET, whole=False),
        "total_fits": cost.most_checkpoints(TOURNAMENT_TARGET, whole=True),
    }


def _ratio(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:.1f}%"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default=",".join(DEFAULT_CASES))
    parser.add_argument("--held-out", type=int, default=LOSS_SAMPLE, help="clips held out (default 4)")
    parser.add_argument("--json", action="store_true", help="one JSON object keyed by case")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-compare-cost-") as tmp:
        results = {case: measure(case, Path(tmp), args.held_out) for case in args.cases.split(",")}
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(
        f"{'case':<8} {'kept':>4} {'S':>2} {'train':>8} {'loss':>7} {'target':>6} {'fits':>4} "
        f"{'renders':>8} {'whole':>7} {'target':>6} {'fits':>4}"
    )
    for case, r in results.items():
        print(
            f"{case:<8} {r['checkpoints']:>4} {r['samples']:>2} {r['train_gpu_s'] / 60:>6.0f} m {_pct(r['loss_share']):>7} "
            f"{_pct(LOSS_TARGET):>6} {r['loss_fits']:>4} {_pct(r['renders_share']):>8} "
            f"{_pct(r['total_share']):>7} {_pct(TOURNAMENT_TARGET):>6} {r['total_fits']:>4}"
        )
    print(
        f"\nshares of the training GPU time, {args.held_out} clips held out; targets: held-out loss <= "
        f"{_pct(LOSS_TARGET)}, whole comparison (loss + renders) <= {_pct(TOURNAMENT_TARGET)}"
    )


if __name__ == "__main__":
    main()
