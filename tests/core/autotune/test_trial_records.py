"""What a trial leaves behind: its whole output in logs/trial-N.log, the real cause in its reason,
no checkpoints, and a refusal instead of a run when the data cannot fill one batch per GPU."""

from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path

import pytest

from ltx_wizard.core.gpu.assessment import assess
from ltx_wizard.core.autotune.sweep.engine import AutotuneEngine
from ltx_wizard.core.autotune.events import LogLine, TrialStarted
from ltx_wizard.core.proc.child import OutputLine
from ltx_wizard.core.autotune.trials.log_file import TrialLog
from ltx_wizard.core.autotune.trials.leftovers import prune_trial_outputs
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.gpu.presets import simulated_probe
from ltx_wizard.demo.sim.stand_in import SimulatedTrainer
from tests.core.autotune.test_autotune_engine import SIM_SPEED, plan_run

# What scripts/train.py prints (typer.echo, stdout) when LtxTrainerConfig refuses a config: the
# layout of pydantic 2's ValidationError, as printed by the real schema for these two mistakes.
CONFIG_ERROR = """\
Error: Invalid configuration data: 2 validation errors for LtxTrainerConfig
optimization.batch_sizee
  Extra inputs are not permitted [type=extra_forbidden, input_value=2, input_type=int]
    For further information visit https://errors.pydantic.dev/2.14/v/extra_forbidden
training_strategy.flexible.audio.bogus
  Extra inputs are not permitted [type=extra_forbidden, input_value=1, input_type=int]
    For further information visit https://errors.pydantic.dev/2.14/v/extra_forbidden
"""

RANK_CRASH = """\
Traceback (most recent call last):
  File "scripts/train.py", line 58, in main
    trainer.train(disable_progress_bars=disable_progress_bars)
ValueError: Expected latents of shape [128, F, H, W], got [64, 4, 16, 16]
"""

# What torchrun (inside `accelerate launch`) prints after a rank failed: only that it failed.
LAUNCHER_CRASH = """\
E1130 01:02:03.000000 140 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) \
local_rank: 0 (pid: 141) of binary: /venv/bin/python
Traceback (most recent call last):
  File "/venv/bin/accelerate", line 10, in <module>
    sys.exit(main())
torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
============================================================
scripts/train.py FAILED
"""

OOM = (
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
    "capacity of 79.19 GiB of which 1.12 GiB is free. Including non-PyTorch memory, this process "
    "has 78.06 GiB memory in use. Of the allocated memory 75.10 GiB is allocated by PyTorch, and "
    "1.20 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large "
    "try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation."
)


def fake_trainer(tmp_path: Path, stdout: str = "", stderr: str = "", code: int = 1) -> list[str]:
    """A trainer that prints `stdout` and `stderr` (interleaved: stderr first) and exits `code`."""
    script = tmp_path / "fake_train.py"
    script.write_text(
        textwrap.dedent(f"""
        import sys
        sys.stderr.write({stderr!r}); sys.stderr.flush()
        sys.stdout.write({stdout!r}); sys.stdout.flush()
        sys.exit({code})
    """)
    )
    return [sys.executable, str(script)]


def engine(run_dir: Path, preset: str, events: list, **kw) -> AutotuneEngine:
    probe = simulated_probe(preset)
    return AutotuneEngine(
        run_dir,
        probe=probe,
        assessment=assess(probe),
        stand_in=SimulatedTrainer(preset, speed=SIM_SPEED),
        on_event=events.append,
        grace_s=2.0,
        **kw,
    )


async def baseline(tmp_path: Path, **kw):
    run_dir = plan_run(tmp_path, "a6000")
    summary = await engine(run_dir, "a6000", [], **kw).run()
    return run_dir, summary.trials[0]


async def test_a_config_error_keeps_every_field_and_message(tmp_path):
    cmd = fake_trainer(tmp_path, stdout=CONFIG_ERROR, stderr="a warning on stderr\n")
    run_dir, trial = await baseline(tmp_path, trainer_cmd=cmd)

    assert trial.outcome == "crash"
    assert trial.reason == (
        "exit code 1: invalid config: optimization.batch_sizee: Extra inputs are not permitted; "
        "training_strategy.flexible.audio.bogus: Extra inputs are not permitted"
    )
    log = (run_dir / "logs" / "trial-1.log").read_text()
    assert CONFIG_ERROR in log and "a warning on stderr\n" in log  # both streams, whole
    assert "exit code 1" in log.splitlines()[-1]
    assert trial.reason in (run_dir / "autotune.log").read_text()


async def test_a_crash_names_the_rank_exception_not_the_launcher_wrapper(tmp_path):
    cmd = fake_trainer(tmp_path, stderr=RANK_CRASH + LAUNCHER_CRASH)
    _, trial = await baseline(tmp_path, trainer_cmd=cmd)
    assert trial.outcome == "crash"
    assert trial.reason == (
        "exit code 1: ValueError: Expected latents of shape [128, F, H, W], got [64, 4, 16, 16]"
    )


async def test_an_oom_carries_the_allocation_line(tmp_path):
    cmd = fake_trainer(tmp_path, stderr=f'Traceback (most recent call last):\n  File "x"\n{OOM}\n')
    _, trial = await baseline(tmp_path, trainer_cmd=cmd)
    assert trial.outcome == "oom"
    assert trial.reason == (
        "CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
        "capacity of 79.19 GiB of which 1.12 GiB is free. Including non-PyTorch "
        "memory, this process has 78.06 GiB memory in use."
    )


async def test_a_crash_without_an_error_line_points_at_the_log(tmp_path):
    _, trial = await baseline(tmp_path, trainer_cmd=fake_trainer(tmp_path, stdout="loading\n"))
    assert trial.reason == ("exit code 1: no error line printed (the whole output is in logs/trial-1.log)")


async def test_the_log_holds_each_line_as_soon_as_it_arrived(tmp_path):
    go = tmp_path / "go"  # the trainer's second line waits until the first one has arrived
    script = tmp_path / "slow.py"
    script.write_text(
        textwrap.dedent(f"""
        import os, sys, time
        print("on stderr", file=sys.stderr, flush=True)
        deadline = time.monotonic() + 60  # bounded: a broken wizard fails the test, never hangs it
        while not os.path.exists({str(go)!r}):
            if time.monotonic() > deadline:
                sys.exit(3)
            time.sleep(0.01)
        print("still running", flush=True)
        time.sleep(3600)
    """)
    )
    run_dir = plan_run(tmp_path, "a6000")
    seen: list[str] = []
    run = engine(run_dir, "a6000", [], trainer_cmd=[sys.executable, str(script)])

    def on_event(event):
        if isinstance(event, LogLine) and event.text == "on stderr":
            go.touch()
        if isinstance(event, LogLine) and event.text == "still running":
            # the wizard could die right now: the file must already hold both lines, in order
            seen.append((run_dir / "logs" / "trial-1.log").read_text())
            run.cancel()

    run.on_event = on_event
    await run.run()
    assert seen and "on stderr\nstill running\n" in seen[0]


async def test_checkpoints_are_deleted_once_each_trial_is_recorded(tmp_path):
    run_dir = plan_run(tmp_path, "a6000")
    summary = await engine(run_dir, "a6000", []).run()  # the simulated trainer saves weights
    ran = [t.index for t in summary.trials if t.ran]
    assert len(ran) > 1
    for index in ran:
        trial_dir = run_dir / "overfit" / f"trial-{index}"
        assert (trial_dir / "config.yaml").is_file() and not (trial_dir / "checkpoints").exists()
        assert (run_dir / "logs" / f"trial-{index}.log").stat().st_size > 0
    skipped = [t.index for t in summary.trials if not t.ran]
    assert not any((run_dir / "logs" / f"trial-{i}.log").exists() for i in skipped)


def test_pruning_never_follows_a_link_out_of_the_run(tmp_path):
    run = tmp_path / "run"
    elsewhere = tmp_path / "big-disk"
    (elsewhere / "weights").mkdir(parents=True)
    (elsewhere / "weights" / "keep.safetensors").write_bytes(b"x")
    trial = run / "overfit" / "trial-1"
    (trial / "samples").mkdir(parents=True)
    os.symlink(elsewhere / "weights", trial / "checkpoints")
    assert prune_trial_outputs(trial, run) == [trial / "checkpoints"]
    assert not (trial / "checkpoints").is_symlink() and (trial / "samples").is_dir()
    assert (elsewhere / "weights" / "keep.safetensors").exists()

    inside = elsewhere / "trial-2"
    (inside / "checkpoints").mkdir(parents=True)
    os.symlink(inside, run / "overfit" / "trial-2")  # a linked trial folder: left alone
    assert prune_trial_outputs(run / "overfit" / "trial-2", run) == []
    assert (inside / "checkpoints").is_dir()
    assert prune_trial_outputs(elsewhere, run) == []  # not in the run folder at all


async def test_a_trial_the_data_cannot_fill_is_refused_not_run(tmp_path):
    run_dir = plan_run(tmp_path, "h100", samples=1)  # batch 2 needs 2 samples
    events: list = []
    # allowed, so that the data check (not the schedule rule) is what refuses it
    summary = await engine(run_dir, "h100", events, allow_batch_change=True).run()
    batch = next(t for t in summary.trials if t.changes.get("optimization.batch_size") == 2)
    assert batch.outcome == "skipped"
    # The schedule refuses it before the engine's own check (trial_data.subset_refusal) would.
    assert "holds 1 sample(s)" in batch.reason and "batch 2 on 1 GPU(s) needs 2" in batch.reason
    started = [e.index for e in events if isinstance(e, TrialStarted)]
    assert batch.index not in started
    assert not (run_dir / "logs" / f"trial-{batch.index}.log").exists()


async def test_side_by_side_trials_run_but_the_all_gpu_confirmation_is_refused(tmp_path):
    run_dir = plan_run(tmp_path, "2xh100", samples=1)  # one GPU per trial: 1 sample is enough
    events: list = []
    summary = await engine(run_dir, "2xh100", events).run()
    assert summary.trials[0].outcome == "ok"
    refused = summary.confirmations[-1]
    assert refused.outcome == "skipped" and "x 2 GPU(s) needs 2" in refused.reason
    assert not summary.config_patched


def test_a_flooding_trial_keeps_its_head_and_its_tail(tmp_path):
    log = TrialLog(tmp_path / "trial-1.log", max_bytes=200, tail_lines=3)
    log.open("trial 1 (baseline): train.py")
    for i in range(100):
        log.write(OutputLine(text=f"line {i:03d}", stream="stdout", t=0.0))
    log.close("ended (exit), exit code 0, after 1.0 s")
    lines = (tmp_path / "trial-1.log").read_text().splitlines()
    assert "line 000" in lines and "line 050" not in lines
    assert lines[-4:-1] == ["line 097", "line 098", "line 099"]
    assert any("line(s) left out" in line for line in lines)
    assert (tmp_path / "trial-1.log").stat().st_size < 600


def test_a_teardown_grace_that_is_not_positive_is_bad_input(tmp_path, capsys):
    from ltx_wizard.cli import main

    run_dir = plan_run(tmp_path, "a6000")
    capsys.readouterr()
    assert main(["autotune", str(run_dir), "--simulate", "a6000", "--teardown-grace", "0"]) == 2
    assert "--teardown-grace 0: give seconds above 0" in capsys.readouterr().err


def test_multi_gpu_trials_launch_as_the_trainer_docs_do(tmp_path):
    from ltx_wizard.core.autotune.sweep.launching import TrialLaunch
    from ltx_wizard.core.io.workspace import RunFolder
    from ltx_wizard.core.io.yaml_patch import load_yaml

    run_dir = plan_run(tmp_path, "2xh100")
    probe = simulated_probe("2xh100")
    real = TrialLaunch(
        RunFolder(run_dir.resolve()),
        probe,
        assess(probe),
        trainer_cmd=None,
        stand_in=None,  # the user's trainer, not a simulation
        trainer_root=tmp_path / "LTX-2",
        training_mode="lora",
        idle_timeout_s=900.0,
        grace_s=30.0,
    )
    command = real.command(run_dir / "config.yaml")
    prefix = command.prefix
    assert prefix[:4] == ["uv", "run", "accelerate", "launch"]
    assert prefix[prefix.index("--num_processes") + 1] == "2"
    named = Path(prefix[prefix.index("--config_file") + 1])
    shipped = tmp_path / "LTX-2" / "packages/ltx-trainer/configs/accelerate/ddp.yaml"
    assert named in (run_dir / "accelerate.yaml", shipped)  # never the user's default config
    assert load_yaml(named.read_text())["distributed_type"] == "MULTI_GPU"
    assert prefix[-1] == "scripts/train.py" and command.cwd == shipped.parents[2]


async def test_a_link_planted_at_the_trial_log_is_refused_not_written_through(tmp_path):
    run_dir = plan_run(tmp_path, "a6000")
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    (run_dir / "logs").mkdir(exist_ok=True)
    os.symlink(victim, run_dir / "logs" / "trial-1.log")
    cmd = fake_trainer(tmp_path, stdout="hello\n", code=0)
    with pytest.raises(UsageError, match=r"trial-1\.log is a symlink the wizard did not create"):
        await engine(run_dir, "a6000", [], trainer_cmd=cmd).run()
    assert victim.read_text() == "keep me\n"
