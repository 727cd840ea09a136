"""Hostile names against the generated scripts: launch.sh and slurm.sbatch are RUN, under fake
`uv`, `sbatch`, `srun` and `scontrol` on PATH, and nothing but the planned command may run.

A path with a control character is refused where it is typed (one line, exit 2); every other
name, however odd, must reach the trainer as exactly one argument and never as shell code.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.launch.script import write_script
from ltx_wizard.core.io.run_meta import LaunchSpec
from ltx_wizard.demo.lookalike_checkout import make_checkout
from ltx_wizard.demo.lookalike_models import make_checkpoint, make_data_root, make_gemma_dir

from .conftest import refused

BASH = shutil.which("bash")
pytestmark = pytest.mark.skipif(BASH is None, reason="needs bash")

# Each fake records its argv (NUL-separated) and where it ran; none runs anything it was given.
FAKE_UV = """#!/bin/bash
if [ "$1 $2 $3" = "run --no-sync python" ]; then shift 3; exec {python} "$@"; fi
[ "$1 $2" = "run --no-sync" ] && shift 2
name=uv; [ -n "${{SLURM_NODEID:-}}" ] && name=node-$SLURM_NODEID
printf '%s\\0' "$PWD" "$@" > "$RECORD_DIR/$name"
"""
FAKE_SBATCH = """#!/bin/bash
printf '%s\\0' "$PWD" "$@" > "$RECORD_DIR/sbatch"
echo "Submitted batch job 77"
"""
FAKE_SRUN = """#!/bin/bash
while [[ "$1" == -* ]]; do shift; done
for ((i = 0; i < SLURM_JOB_NUM_NODES; i++)); do SLURM_NODEID=$i "$@" || exit $?; done
"""
FAKE_SCONTROL = """#!/bin/bash
if [ "$1 $2" = "show hostnames" ]; then printf '%s\\n' node-a node-b; fi
"""
# Shell metacharacters a folder name may hold: each would run `touch` if it reached bash unquoted.
HOSTILE = "ws $(touch PWNED1) `touch PWNED2` ;touch PWNED3; 'q\" *&|<>\\ ${HOME} -x é"


@pytest.fixture
def box(box):
    """The sandbox, planning for one real H100 read from a GPU CSV: these scripts run the planned
    trainer command (under fake tools); simulated GPUs would launch the simulated trainer."""
    csv = box.root / "gpus.csv"
    csv.write_text("name, memory.total [MiB]\nNVIDIA H100 80GB HBM3, 81559 MiB\n")
    simulated = box.plan_args

    def plan_args(*extra: str, **override: str) -> list[str]:
        args = simulated(*extra, **override)
        at = args.index("--simulate")
        return [*args[:at], "--from-csv", str(csv), *args[at + 2 :]]

    box.plan_args = plan_args
    return box


def fake_path(tmp_path: Path, **extra: str) -> dict[str, str]:
    bin_dir = tmp_path / "fakebin"
    record = tmp_path / "record"
    bin_dir.mkdir(exist_ok=True)
    record.mkdir(exist_ok=True)
    fakes = {
        "uv": FAKE_UV.format(python=sys.executable),
        "sbatch": FAKE_SBATCH,
        "srun": FAKE_SRUN,
        "scontrol": FAKE_SCONTROL,
        **extra,
    }
    for name, text in fakes.items():
        if (bin_dir / name).exists():  # made once per sandbox (a test may have replaced one)
            continue
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    return {
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "RECORD_DIR": str(record),
        "HOME": str(tmp_path),
        "LTX_WIZARD_RELIABILITY_SANDBOX": os.environ.get("LTX_WIZARD_RELIABILITY_SANDBOX", ""),
    }


def recorded(tmp_path: Path, name: str) -> list[str]:
    return (tmp_path / "record" / name).read_text().rstrip("\0").split("\0")


def no_injection(tmp_path: Path) -> None:
    found = [p for p in tmp_path.rglob("PWNED*")] + [p for p in Path.cwd().glob("PWNED*")]
    assert not found, f"a name ran as shell code: {found}"


# --- control characters are refused at the option ------------------------------------------


def _newline_folder(box, *parts: str) -> Path:
    path = box.root / "a\ntouch PWNED0"
    return path.joinpath(*parts)


CONTROL = [
    ("workspace-newline", lambda b: b.plan_args(workspace=str(b.root / "w\ntouch PWNED0")), "--workspace"),
    ("workspace-tab", lambda b: b.plan_args(workspace=str(b.root / "w\tx")), "--workspace"),
    ("workspace-escape", lambda b: b.plan_args(workspace=str(b.root / "w\x1b[2Jx")), "--workspace"),
    (
        "data-root-newline",
        lambda b: b.plan_args(data_root=str(make_data_root(_newline_folder(b, ".precomputed"), 3))),
        "data root",
    ),
    (
        "checkpoint-newline",
        lambda b: b.plan_args(checkpoint=str(make_checkpoint(_newline_folder(b, "ltx-2.safetensors")))),
        "checkpoint",
    ),
    (
        "text-encoder-newline",
        lambda b: b.plan_args(text_encoder=str(make_gemma_dir(_newline_folder(b, "gemma")))),
        "text encoder",
    ),
    (
        "trainer-root-newline",
        lambda b: b.plan_args(trainer_root=str(make_checkout(_newline_folder(b, "LTX-2")))),
        "--trainer-root",
    ),
    ("workspace-link-to-newline", lambda b: _linked_workspace(b), "--workspace"),
]


def _linked_workspace(box) -> list[str]:
    target = box.root / "real\ntouch PWNED0"
    target.mkdir()
    os.symlink(target, box.root / "plain-link")
    return box.plan_args(workspace=str(box.root / "plain-link"))


@pytest.mark.parametrize(("build", "words"), [c[1:] for c in CONTROL], ids=[c[0] for c in CONTROL])
def test_a_path_with_a_control_character_is_refused_at_its_option(box, build, words):
    argv = build(box)
    unchanged = box.freeze(skip=box.root / "none")  # nothing at all may be written
    result = box.cli(*argv)
    refused(result, 2, words, "control character")
    unchanged()
    no_injection(box.root)


def test_a_script_is_never_rendered_with_a_newline_in_a_comment(tmp_path):
    run = tmp_path / "run\ntouch PWNED0"
    spec = LaunchSpec(argv=["uv", "run", "x"], cwd=tmp_path)
    with pytest.raises(UsageError, match="control character"):
        write_script(run, spec)
    assert not (run / "launch.sh").exists()


# --- hostile but plain names: the scripts run and pass them as data -------------------------


def _plan_hostile(box, *extra: str) -> Path:
    ws = box.root / HOSTILE
    ws.mkdir()
    result = box.cli(*box.plan_args(*extra, workspace=str(ws), run_name="r $(touch PWNED4) 'x"))
    assert result.code == 0, result.err
    return ws / "r $(touch PWNED4) 'x"


def test_launch_sh_under_a_hostile_workspace_runs_only_the_planned_command(box):
    run = _plan_hostile(box)
    env = fake_path(box.root)
    outside = box.freeze(run, box.root / "record")
    done = subprocess.run(
        [BASH, str(run / "launch.sh")], env=env, capture_output=True, text=True, timeout=60, cwd=box.root
    )
    assert done.returncode == 0, done.stderr
    cwd, *argv = recorded(box.root, "uv")
    assert Path(cwd) == box.checkout.resolve() / "packages" / "ltx-trainer"
    assert str(run.resolve() / "config.yaml") in argv  # one argument, byte for byte
    assert (run / "logs" / "train.log").is_file()
    no_injection(box.root)
    outside()


def test_slurm_sbatch_under_a_hostile_workspace_runs_only_the_planned_launch(box):
    run = _plan_hostile(box, "--nodes", "2")
    env = fake_path(box.root)
    outside = box.freeze(run, box.root / "record")
    # launch.sh submits slurm.sbatch with the fake sbatch ...
    done = subprocess.run(
        [BASH, str(run / "launch.sh")], env=env, capture_output=True, text=True, timeout=60, cwd=box.root
    )
    assert done.returncode == 0, done.stderr
    cwd, *argv = recorded(box.root, "sbatch")
    assert Path(cwd) == run.resolve() and argv == [str(run.resolve() / "slurm.sbatch")]
    # ... and the batch script runs as Slurm would start it, on two fake nodes.
    env.update(
        SLURM_JOB_ID="5",
        SLURM_JOB_NUM_NODES="2",
        SLURM_JOB_NODELIST="node-[a,b]",
        SLURM_SUBMIT_DIR=str(run.resolve()),
    )
    job = subprocess.run(
        [BASH, str(run / "slurm.sbatch")], env=env, capture_output=True, text=True, timeout=120, cwd=run
    )
    assert job.returncode == 0, job.stderr
    for rank in (0, 1):
        cwd, *argv = recorded(box.root, f"node-{rank}")
        assert Path(cwd) == box.checkout.resolve() / "packages" / "ltx-trainer"
        assert str(run.resolve() / "config.yaml") in argv
        assert argv[argv.index("--machine_rank") + 1] == str(rank)
    no_injection(box.root)
    outside()


# --- the scripts write only inside their own run folder --------------------------------------


def _launch(box, script: Path, timeout: float = 60, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [BASH, str(script)],
        env={**fake_path(box.root), **env},
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=box.root,
    )


def one_script_line(done: subprocess.CompletedProcess, name: str, *words: str) -> None:
    """A script's refusal: exit 1, one `<script>: ...` line naming the problem, no trainer run."""
    assert done.returncode == 1, (done.returncode, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{name}: "), done.stderr
    for word in words:
        assert word in lines[0], (word, lines[0])
    assert "kill" not in done.stderr


def test_a_moved_run_folder_neither_trains_nor_recreates_the_old_one(box):
    old = box.planned()
    fake_path(box.root)
    new = box.ws / "moved"
    os.rename(old, new)
    outside = box.freeze(skip=box.root / "record")
    one_script_line(_launch(box, new / "launch.sh"), "launch.sh", "planned at", "moved")
    assert not old.exists() and not (box.root / "record" / "uv").exists()
    from ltx_wizard.core.launch.background import start_training

    with pytest.raises(UsageError, match="moved or copied"):
        start_training(new)
    assert not old.exists() and not (new / "logs" / "train.pid").exists()
    outside()


def test_a_launch_sh_of_another_run_refuses_this_folder(box):
    run = box.planned()
    foreign = (run / "launch.sh").read_text()
    assert box.cli(*box.plan_args("--force")).code == 0  # the folder is planned again: a new id
    (run / "launch.sh").write_text(foreign)
    fake_path(box.root)
    outside = box.freeze(skip=box.root / "record")
    one_script_line(_launch(box, run / "launch.sh"), "launch.sh", "run.json", "another run")
    assert not (box.root / "record" / "uv").exists() and not (run / "logs" / "train.log").exists()
    outside()


@pytest.mark.parametrize("planted", ["logs", "logs/train.log", "logs/train.pid"])
def test_launch_sh_never_writes_through_a_planted_link(box, planted):
    run = box.planned()
    victim = box.root / "victim"
    victim.mkdir()
    (victim / "train.log").write_text("precious\n")
    target = victim if planted == "logs" else victim / "train.log"
    if planted == "logs":
        (run / "logs").rmdir()
    os.symlink(target, run / planted)
    fake_path(box.root)
    outside = box.freeze(run, box.root / "record")
    one_script_line(_launch(box, run / "launch.sh"), "launch.sh", "link")
    assert (victim / "train.log").read_text() == "precious\n" and sorted(os.listdir(victim)) == ["train.log"]
    outside()


def test_a_fifo_at_train_pid_does_not_block_launch_sh(box):
    run = box.planned()
    os.mkfifo(run / "logs" / "train.pid")
    done = _launch(box, run / "launch.sh", timeout=30)  # before: blocked for ever
    assert done.returncode == 0, done.stderr
    assert recorded(box.root, "uv")[0]  # the trainer ran
    assert (run / "logs" / "train.pid").is_file()  # the FIFO was replaced by a record
    no_injection(box.root)


def _stale_records() -> list[tuple[str, str]]:
    parent = os.getppid()  # alive, but not the process that started at tick 1
    return [
        ("pid-1", "1 5\n"),
        ("pid-0", "0\n"),
        ("pid-minus-1", "-1 5\n"),
        ("20-digits", "9" * 20 + "\n"),
        ("reused-pid", f"{parent} 1\n"),
        ("no-start-time", f"{parent}\n"),
        ("garbage", "\x1b[2J not a pid\n"),
    ]


@pytest.mark.parametrize("content", [c for _, c in _stale_records()], ids=[i for i, _ in _stale_records()])
def test_a_stale_or_implausible_train_pid_is_stale_never_something_to_kill(box, content):
    from ltx_wizard.core.launch.background import running_pid

    run = box.planned()
    (run / "logs" / "train.pid").write_text(content)
    assert running_pid(run) is None  # the wizard: no training runs (was: 'kill 1', a crash)
    done = _launch(box, run / "launch.sh")
    assert done.returncode == 0, done.stderr
    assert "stale" in done.stderr and "kill" not in done.stderr and "\x1b" not in done.stderr
    pid, started = (run / "logs" / "train.pid").read_text().split()
    assert int(pid) > 1 and started.isdigit()  # launch.sh wrote its own record


def test_a_live_training_is_named_without_advice_to_kill(box):
    from ltx_wizard.core.launch.background import running_pid

    run = box.planned()
    env = fake_path(box.root)
    hold = box.root / "hold"
    (box.root / "fakebin" / "uv").write_text(
        f"#!/bin/bash\necho holding\nwhile [ ! -e {hold} ]; do sleep 0.05; done\n"
    )
    first = subprocess.Popen(
        [BASH, str(run / "launch.sh")], env=env, stdout=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        assert first.stdout.readline().strip() == "holding"
        assert running_pid(run) == first.pid
        second = _launch(box, run / "launch.sh")
        one_script_line(second, "launch.sh", f"already runs as pid {first.pid}")
    finally:
        hold.touch()
        first.wait(timeout=60)


def test_slurm_sbatch_runs_only_from_its_own_run_folder(box):
    run = _plan_hostile(box, "--nodes", "2")
    env = fake_path(box.root)
    env.update(SLURM_JOB_ID="5", SLURM_JOB_NUM_NODES="2", SLURM_JOB_NODELIST="node-[a,b]")
    spool = box.root / "spool"
    spool.mkdir()
    shutil.copy(run / "slurm.sbatch", spool / "slurm_script")  # what Slurm runs: a copy
    # submitted from elsewhere: no run folder found, nothing runs
    job = subprocess.run(
        [BASH, str(spool / "slurm_script")],
        env={**env, "SLURM_SUBMIT_DIR": str(box.root)},
        capture_output=True,
        text=True,
        timeout=60,
        cwd=box.root,
    )
    one_script_line(job, "slurm.sbatch", "submit it from its run folder")
    # submitted from the run folder: found, and it runs
    job = subprocess.run(
        [BASH, str(spool / "slurm_script")],
        env={**env, "SLURM_SUBMIT_DIR": str(run)},
        capture_output=True,
        text=True,
        timeout=60,
        cwd=run,
    )
    assert job.returncode == 0, job.stderr
    assert recorded(box.root, "node-1")
    # moved: it refuses rather than train into the old place
    moved = box.root / "moved-run"
    os.rename(run, moved)
    job = subprocess.run(
        [BASH, str(moved / "slurm.sbatch")], env=env, capture_output=True, text=True, timeout=60, cwd=moved
    )
    one_script_line(job, "slurm.sbatch", "planned at", "moved")
    assert not run.exists()
    no_injection(box.root)
