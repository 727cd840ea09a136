"""Simulated GPU time of the wizard's autotune against the naive schedule, side by side.

    .venv/bin/python benchmarks/bench_autotune.py [--presets rtx5090,a6000,h100]

For each preset one run folder is planned from look-alike files, then autotuned twice with the
simulated trainer (time compressed 50x):

* wizard: the engine as shipped: step-0 validation skipped, no-op and cannot-fit trials skipped
  before they start, an OOM or NaN trial stopped at the line that proves it;
* naive: the same rules, but every considered trial runs (no headroom model, no no-op check),
  with step-0 validation, and an OOM left to finish its teardown (as a person reading logs would).

GPU-seconds = trial wall time x 50 (the simulated trainer's uncompressed clock, process start
included), summed over the trials that ran.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ltx_wizard.core.assessment import assess  # noqa: E402
from ltx_wizard.core.autotune import schedule  # noqa: E402
from ltx_wizard.core.autotune import trial_config as trial_config_mod  # noqa: E402
from ltx_wizard.core.autotune.engine import AutotuneEngine  # noqa: E402
from ltx_wizard.core.autotune.trial_runner import TrialRunner  # noqa: E402
from ltx_wizard.core.gpu_presets import simulated_probe  # noqa: E402
from ltx_wizard.core.lookalike_checkout import make_checkout  # noqa: E402
from ltx_wizard.core.lookalike_models import make_checkpoint, make_data_root, make_gemma_dir  # noqa: E402
from ltx_wizard.core.run_plan import PlanRequest, prepare_plan, write_plan  # noqa: E402


SIM_SPEED = 50.0


def plan(root: Path, preset: str, name: str) -> Path:
    make_checkout(root / "LTX-2")
    ckpt = make_checkpoint(root / "models" / "ltx-2.safetensors", params_b=22)
    gemma = make_gemma_dir(root / "models" / "gemma")
    data = make_data_root(root / "data" / ".precomputed", n_samples=4)
    request = PlanRequest(trainer_root=root / "LTX-2", checkpoint=ckpt, text_encoder=gemma,
                          data_root=data, workspace=root / "ws", run_name=name)
    return write_plan(prepare_plan(request, assess(simulated_probe(preset)))).root


class _NaiveRunner(TrialRunner):
    def _fail(self, watch, outcome, proof):  # note the failure, but let the process run out
        if watch.outcome is None:
            watch.outcome, watch.proof = outcome, proof.strip()


def _naive_patches():
    """Turn the engine into the naive schedule for the duration of one run."""
    saved = (schedule._noop_reason, schedule.predict, trial_config_mod.trial_overrides)
    original_overrides = trial_config_mod.trial_overrides

    def no_noop(stage, s, ctx, results):
        if stage == "checkpointing" and ctx.tier is not schedule.Tier.T80:
            return "below the 80GB+ tier"  # the skill never turns it off there either
        if stage == "batch4" and s.batch_size < 2:
            return "batch 2 did not win"
        return ""

    def overrides(subset_root, output_dir):
        return {**original_overrides(subset_root, output_dir), "validation.skip_initial_validation": False}

    def fits(current, proposed, best_peak_gb, gpu_total_gb, transformer_params):
        return saved[1](current, proposed, None, None, transformer_params)

    schedule._noop_reason = no_noop
    schedule.predict = fits
    trial_config_mod.trial_overrides = overrides
    import ltx_wizard.core.autotune.engine as engine_mod

    saved_runner = engine_mod.TrialRunner
    engine_mod.TrialRunner = _NaiveRunner

    def restore():
        schedule._noop_reason, schedule.predict, trial_config_mod.trial_overrides = saved
        engine_mod.TrialRunner = saved_runner

    return restore


def autotune(run_dir: Path, preset: str, naive: bool):
    probe = simulated_probe(preset)
    restore = _naive_patches() if naive else (lambda: None)
    try:
        engine = AutotuneEngine(run_dir, probe=probe, assessment=assess(probe), simulate=preset,
                                grace_s=2.0, sim_speed=SIM_SPEED)
        return asyncio.run(engine.run())
    finally:
        restore()


def gpu_seconds(summary) -> float:
    return sum((t.wall_s or 0.0) * SIM_SPEED for t in summary.trials if t.ran)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presets", default="rtx5090,a6000,h100")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-autotune-") as tmp:
        for preset in args.presets.split(","):
            results = {}
            for mode in ("wizard", "naive"):
                root = Path(tmp) / f"{preset}-{mode}"
                run_dir = plan(root, preset, "run")
                summary = autotune(run_dir, preset, naive=(mode == "naive"))
                results[mode] = summary
            w, n = results["wizard"], results["naive"]
            rows.append((preset, sum(t.ran for t in w.trials), gpu_seconds(w),
                         sum(t.ran for t in n.trials), gpu_seconds(n), w.winner, n.winner))
    print(f"{'preset':<10} {'wizard trials':>13} {'wizard GPU-s':>13} {'naive trials':>13} "
          f"{'naive GPU-s':>12} {'naive/wizard':>13}  winner (wizard/naive)")
    for preset, wt, ws, nt, ns, ww, nw in rows:
        print(f"{preset:<10} {wt:>13} {ws:>13.0f} {nt:>13} {ns:>12.0f} {ns / ws:>12.2f}x  {ww}/{nw}")


if __name__ == "__main__":
    main()
