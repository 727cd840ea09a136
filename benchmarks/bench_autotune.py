"""Simulated GPU time of the wizard's autotune against the naive schedule, side by side.

    .venv/bin/python benchmarks/bench_autotune.py [--presets rtx5090,a6000,h100]

For each preset a run folder is planned from look-alike files and autotuned by the engine with the
simulated trainer (time compressed 50x). Then the *same* trials are run the naive way, as a person
following the skill by hand would: every trial the wizard considered runs (no-op and cannot-fit
trials included), each with the step-0 validation, each to its end (an OOM left to finish its
teardown). Only trials skipped for lack of samples are left out of both.

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
from ltx_wizard.core.autotune.engine import AutotuneEngine  # noqa: E402
from ltx_wizard.core.autotune.schedule import Candidate  # noqa: E402
from ltx_wizard.core.autotune.trial_config import trial_config_text  # noqa: E402
from ltx_wizard.core.autotune.trial_runner import TrialCommand, TrialRunner  # noqa: E402
from ltx_wizard.core.autotune.vram_sampler import NullBackend  # noqa: E402
from ltx_wizard.core.yaml_patch import patch_yaml_text  # noqa: E402
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


def wizard(run_dir: Path, preset: str):
    probe = simulated_probe(preset)
    engine = AutotuneEngine(run_dir, probe=probe, assessment=assess(probe), simulate=preset,
                            grace_s=2.0, sim_speed=SIM_SPEED)
    return asyncio.run(engine.run())


def naive(run_dir: Path, preset: str, summary) -> list[float]:
    """Wall seconds of each trial the wizard considered, run the naive way, in the same order."""
    planned = (run_dir / "plan-base.yaml").read_text()  # config.yaml has the winner patched in
    env = {"LTX_WIZARD_SIM_GPU": preset, "LTX_WIZARD_SIM_SPEED": f"{SIM_SPEED:g}"}
    command = TrialCommand([sys.executable, "-m", "ltx_wizard.core.sim.trainer"], None, env,
                           time_scale=SIM_SPEED)
    runner = _NaiveRunner(command, lambda: NullBackend(1), lambda event: None, grace_s=2.0)
    subset = run_dir / "overfit" / ".precomputed"
    kept: dict[str, object] = {}
    walls = []
    for trial in summary.trials:
        if trial.outcome == "skipped" and "sample" in trial.reason:
            continue
        out = run_dir / "naive" / f"trial-{trial.index}"
        out.mkdir(parents=True, exist_ok=True)
        text = trial_config_text(planned, {**kept, **trial.changes}, subset, out)
        text = patch_yaml_text(text, {"validation.skip_initial_validation": False})
        (out / "config.yaml").write_text(text)
        cand = Candidate(trial.index, "naive", trial.change, trial.changes, None)
        result = asyncio.run(runner.run(cand, out / "config.yaml", out))
        walls.append(result.wall_s or 0.0)
        if trial.kept:
            kept.update(trial.changes)
    return walls


def gpu_seconds(walls) -> float:
    return sum(walls) * SIM_SPEED


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presets", default="rtx5090,a6000,h100")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-autotune-") as tmp:
        for preset in args.presets.split(","):
            run_dir = plan(Path(tmp) / preset, preset, "run")
            (run_dir / "plan-base.yaml").write_text((run_dir / "config.yaml").read_text())
            summary = wizard(run_dir, preset)
            wizard_walls = [t.wall_s or 0.0 for t in summary.trials if t.ran]
            naive_walls = naive(run_dir, preset, summary)
            ws, ns = gpu_seconds(wizard_walls), gpu_seconds(naive_walls)
            rows.append((preset, len(wizard_walls), ws, len(naive_walls), ns,
                         ", ".join(f"{t.change}: {t.outcome}" for t in summary.trials)))
    print(f"{'preset':<9} {'wizard trials':>13} {'wizard GPU-s':>13} {'naive trials':>12} "
          f"{'naive GPU-s':>12} {'naive/wizard':>13}")
    for preset, wt, ws, nt, ns, _ in rows:
        print(f"{preset:<9} {wt:>13} {ws:>13.0f} {nt:>12} {ns:>12.0f} {ns / ws:>12.2f}x")
    print()
    for preset, *_, trials in rows:
        print(f"{preset}: {trials}")


if __name__ == "__main__":
    main()
