"""The autotune engine end to end against the simulated trainer (real processes, real files)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from ltx_wizard.cli import main
from ltx_wizard.core.gpu.assessment import assess
from ltx_wizard.core.autotune.sweep.engine import AutotuneEngine
from ltx_wizard.core.autotune.events import TrialStarted
from ltx_wizard.core.gpu.presets import simulated_probe
from ltx_wizard.demo.lookalike_checkout import make_checkout
from ltx_wizard.demo.lookalike_models import make_checkpoint, make_data_root, make_gemma_dir
from ltx_wizard.demo.sim.stand_in import SimulatedTrainer

ROOT = Path(__file__).resolve().parents[3]
# Trials sleep 1/SIM_SPEED of their simulated times: autotune decides on the simulator's own
# step clock (demo/sim/step_clock.py), not on how long the sleeps took, so they can be short.
SIM_SPEED = 2000.0


def plan_run(tmp_path: Path, preset: str, samples: int = 3, extra=()) -> Path:
    make_checkout(tmp_path / "LTX-2")
    make_checkpoint(tmp_path / "models" / "ltx-2-19b.safetensors", params_b=22)
    make_gemma_dir(tmp_path / "models" / "gemma")
    make_data_root(tmp_path / "data" / ".precomputed", n_samples=samples)
    args = [
        "plan",
        "--trainer-root",
        str(tmp_path / "LTX-2"),
        "--checkpoint",
        str(tmp_path / "models" / "ltx-2-19b.safetensors"),
        "--text-encoder",
        str(tmp_path / "models" / "gemma"),
        "--data-root",
        str(tmp_path / "data" / ".precomputed"),
        "--workspace",
        str(tmp_path / "ws"),
        "--run-name",
        "run",
        "--simulate",
        preset,
        *extra,
    ]
    assert main(args) == 0
    return tmp_path / "ws" / "run"


def autotune_json(capsys, run_dir: Path, preset: str, *extra) -> tuple[int, dict]:
    capsys.readouterr()
    code = main(["autotune", str(run_dir), "--simulate", preset, "--json", *extra])
    out = capsys.readouterr().out
    return code, json.loads(out) if out.strip() else {}


def outcomes(data: dict) -> list[tuple[str, str]]:
    return [(t["change"], t["outcome"]) for t in data["trials"]]


def test_a6000_relaxes_the_low_vram_config_and_patches_only_the_winner(tmp_path, capsys):
    run_dir = plan_run(tmp_path, "a6000")
    planned = (run_dir / "config.yaml").read_text()
    code, data = autotune_json(capsys, run_dir, "a6000")
    assert code == 0
    assert data["trials"][0]["outcome"] == "ok" and data["trials"][0]["change"] == "baseline"
    ran = [t for t in data["trials"] if t["outcome"] != "skipped"]
    assert 1 < len(ran) <= 5
    assert all(t["step_time_s"] and t["peak_vram_gb"] for t in ran if t["outcome"] == "ok")
    assert data["winner"] is not None
    written = (run_dir / "config.yaml").read_text()
    changed = [(a, b) for a, b in zip(planned.splitlines(), written.splitlines()) if a != b]
    assert data["config_patched"] == bool(changed)
    keys = {b.split(":")[0].strip() for _, b in changed}
    assert keys <= {"quantization", "optimizer_type", "batch_size", "gradient_accumulation_steps"}
    assert "overfit" not in written and "steps: 40" not in written  # no trial key leaks
    log = (run_dir / "autotune.log").read_text()
    assert "== autotune summary ==" in log and f"winner: trial {data['winner']}" in log
    assert "launch:" in log
    assert data["confirmation"]["outcome"] == "ok"  # the winner's own validation fits
    confirms = sum(1 for line in log.splitlines() if line.startswith("confirm  trial"))
    records = len(data["trials"]) + confirms // 2 + 1  # trial, confirmation and summary records
    assert sum(1 for line in log.splitlines() if line.startswith('{"')) == records


def test_rtx5090_keeps_the_baseline(tmp_path, capsys):
    run_dir = plan_run(tmp_path, "rtx5090", samples=1)
    planned = (run_dir / "config.yaml").read_text()
    code, data = autotune_json(capsys, run_dir, "rtx5090")
    assert code == 0 and data["winner"] == 1 and data["config_patched"] is False
    assert (run_dir / "config.yaml").read_text() == planned
    skipped = {t["change"]: t["reason"] for t in data["trials"] if t["outcome"] == "skipped"}
    assert any("headroom" in r or "oom" in r.lower() for r in skipped.values()) or any(
        t["outcome"] == "oom" for t in data["trials"]
    )


def test_h100_skips_the_no_ops(tmp_path, capsys):
    run_dir = plan_run(tmp_path, "h100")
    code, data = autotune_json(capsys, run_dir, "h100")
    assert code == 0
    reasons = {t["change"]: t["reason"] for t in data["trials"] if t["outcome"] == "skipped"}
    assert any(r.startswith("no-op: quantization") for r in reasons.values())
    assert any(r.startswith("no-op: the optimizer") for r in reasons.values())
    assert not any(t["outcome"] == "ok" and "quantization" in t["change"] for t in data["trials"])


def test_finished_autotune_is_not_rerun(tmp_path, capsys):
    run_dir = plan_run(tmp_path, "a6000")
    _, first = autotune_json(capsys, run_dir, "a6000")
    before = (run_dir / "autotune.log").read_text()
    code, again = autotune_json(capsys, run_dir, "a6000")
    assert code == 0 and again == first
    assert (run_dir / "autotune.log").read_text() == before


def _engine(run_dir: Path, preset: str, events: list, sim_env=None, **kw) -> AutotuneEngine:
    probe = simulated_probe(preset)
    return AutotuneEngine(
        run_dir,
        probe=probe,
        assessment=assess(probe),
        stand_in=SimulatedTrainer(preset, speed=SIM_SPEED, env=sim_env),
        on_event=events.append,
        grace_s=2.0,
        **kw,
    )


async def test_cancel_stops_the_trial_and_resume_skips_finished_trials(tmp_path):
    run_dir = plan_run(tmp_path, "a6000")
    events: list = []
    engine = _engine(run_dir, "a6000", events)

    def on_event(event):
        events.append(event)
        if isinstance(event, TrialStarted) and event.index > 1:
            engine.cancel()  # cancel the second trial as soon as it starts

    engine.on_event = on_event
    summary = await engine.run()
    assert summary.stop_reason == "cancelled"
    assert [t.outcome for t in summary.trials if t.ran][-1] == "cancelled"
    assert _trial_processes(run_dir) == []
    log = (run_dir / "autotune.log").read_text()
    assert "== autotune summary ==" not in log

    resumed: list = []
    engine2 = _engine(run_dir, "a6000", resumed)
    summary2 = await engine2.run()
    started = [e.index for e in resumed if isinstance(e, TrialStarted)]
    assert 1 not in started  # the baseline is not run again
    assert summary2.trials[0].outcome == "ok" and summary2.stop_reason != "cancelled"


async def test_nan_baseline_means_no_winner(tmp_path):
    run_dir = plan_run(tmp_path, "h100")
    events: list = []
    summary = await _engine(run_dir, "h100", events, sim_env={"LTX_WIZARD_SIM_FAULT": "nan"}).run()
    assert summary.trials[0].outcome == "nan" and summary.winner is None
    assert "NaN" in summary.trials[0].reason or "nan" in summary.trials[0].reason.lower()


async def test_hung_trainer_times_out_and_leaves_no_process(tmp_path):
    run_dir = plan_run(tmp_path, "h100")
    events: list = []
    engine = _engine(run_dir, "h100", events, idle_timeout_s=1.5, sim_env={"LTX_WIZARD_SIM_FAULT": "hang"})
    summary = await engine.run()
    assert summary.trials[0].outcome == "timeout"
    assert _trial_processes(run_dir) == []


def _trial_processes(run_dir: Path) -> list[int]:
    """Live simulated-trainer pids whose command line mentions this run folder."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{name}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            state = Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if str(run_dir) in cmdline and "demo.sim.trainer" in cmdline and state != "Z":
            found.append(int(name))
    return found


def test_sighup_to_the_wizard_leaves_no_trainer_behind(tmp_path):
    run_dir = plan_run(tmp_path, "h100")
    env = {**os.environ, "LTX_WIZARD_SIM_FAULT": "hang", "PYTHONPATH": str(ROOT)}
    wizard = subprocess.Popen(
        [sys.executable, "-m", "ltx_wizard", "autotune", str(run_dir), "--simulate", "h100"],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    for line in wizard.stderr:  # wait until the trial is really running
        if "step 20/" in line:
            break
    assert _trial_processes(run_dir), "the trial should be running"
    wizard.send_signal(signal.SIGHUP)
    assert wizard.wait(timeout=30) != 0
    assert _trial_processes(run_dir) == []
    trials = [
        json.loads(line)
        for line in (run_dir / "autotune.log").read_text().splitlines()
        if line.startswith('{"')
    ]
    assert trials[-1]["outcome"] == "cancelled"


def test_trainer_cmd_replaces_the_prefix(tmp_path, capsys):
    run_dir = plan_run(tmp_path, "h100")
    cmd = f"{sys.executable} -m ltx_wizard.demo.sim.trainer"
    code, data = autotune_json(capsys, run_dir, "h100", "--trainer-cmd", cmd, "--max-trials", "1")
    assert code == 0 and data["trials"][0]["outcome"] == "ok"
    assert sum(1 for t in data["trials"] if t["outcome"] != "skipped") == 1


@pytest.mark.parametrize(
    ("args", "code", "words"),
    [
        (["autotune", "/nonexistent/run"], 2, "does not exist"),
        (["autotune", "{tmp}", "--simulate", "h100"], 2, "no config.yaml"),
        (["autotune", "{run}", "--simulate", "h100", "--trainer-cmd", "'unclosed"], 2, "cannot be split"),
        (["autotune", "{run}", "--simulate", "rtx4090"], 3, "This GPU has 24GB VRAM"),
        (["autotune", "{run}", "--simulate", "h100", "--max-trials", "0"], 2, "at least 1"),
    ],
)
def test_autotune_refusals(tmp_path, capsys, args, code, words):
    run_dir = plan_run(tmp_path, "h100")
    capsys.readouterr()
    args = [a.replace("{tmp}", str(tmp_path)).replace("{run}", str(run_dir)) for a in args]
    assert main(args) == code
    assert words in capsys.readouterr().err
