"""`<run>/launch.sh`: the one way the full training run starts.

The Done screen shows and copies `bash <run>/launch.sh`, the wizard's "Start training" runs it
detached, and a user runs it by hand: all three start exactly the same thing. The script cds to
the trainer package, exports only the variables that must differ (CUDA_VISIBLE_DEVICES), appends
all output to logs/train.log, writes the pid to logs/train.pid, and refuses a second start while
that pid lives. `exec` keeps the pid: the number in the file is the trainer's own process.
"""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

from ltx_wizard.core.errors import UsageError
from ltx_wizard.core.launch import QUIET_FLAG, LaunchPlan
from ltx_wizard.core.run_meta import LaunchSpec, read_run_meta
from ltx_wizard.core.safe_fs import create_run_dir
from ltx_wizard.core.text_safety import require_plain_path
from ltx_wizard.core.workspace import atomic_write_text

SCRIPT_NAME = "launch.sh"
LOG_REL = Path("logs") / "train.log"
PID_REL = Path("logs") / "train.pid"
SIM_GPU_ENV = "LTX_WIZARD_SIM_GPU"  # read by the simulated trainer
# Run by module name, never imported: the core does not depend on the demo package.
SIM_TRAINER_MODULE = "ltx_wizard.demo.sim.trainer"


def _spec(run_dir: Path, **fields) -> LaunchSpec:
    run = Path(run_dir).resolve()
    return LaunchSpec(log=log_path(run), pid_file=pid_path(run), **fields)


def spec_of(plan: LaunchPlan, run_dir: Path) -> LaunchSpec:
    """The planned trainer command, started by launch.sh."""
    return _spec(run_dir, argv=list(plan.argv), cwd=plan.cwd, env=dict(plan.env))


def sbatch_spec(run_dir: Path, sbatch: Path) -> LaunchSpec:
    """Several nodes: launch.sh submits slurm.sbatch."""
    return _spec(run_dir, argv=["sbatch", str(sbatch)], cwd=Path(run_dir).resolve())


def simulated_spec(run_dir: Path, preset: str) -> LaunchSpec:
    """No real GPU: the simulated trainer runs the planned config (what --demo can show)."""
    config = str(Path(run_dir).resolve() / "config.yaml")
    argv = [sys.executable, "-m", SIM_TRAINER_MODULE, config, QUIET_FLAG]
    return _spec(run_dir, argv=argv, cwd=Path(run_dir).resolve(), env={SIM_GPU_ENV: preset},
                 simulated=True)


def launch_files(run_dir: Path, spec: LaunchSpec | None = None) -> tuple[Path, Path]:
    """(log, pid file) of the full run, as the plan recorded them (else the default places),
    under `run_dir` as given."""
    spec = spec if spec is not None else read_run_meta(Path(run_dir)).launch
    return (_recorded(run_dir, spec.log if spec is not None else None, LOG_REL),
            _recorded(run_dir, spec.pid_file if spec is not None else None, PID_REL))


def _recorded(run_dir: Path, path: Path | None, default_rel: Path) -> Path:
    # A path outside the run folder (a damaged or planted run.json) is never followed: the
    # wizard writes the pid file, so it must not be pointed at any other file.
    run = Path(run_dir)
    if path is not None:
        try:
            rel = Path(path).relative_to(run.resolve())
        except ValueError:
            rel = None
        if rel is not None and rel.parts and ".." not in rel.parts:
            return run / rel
    return run / default_rel


def script_path(run_dir: Path) -> Path:
    return Path(run_dir) / SCRIPT_NAME


def log_path(run_dir: Path) -> Path:
    return Path(run_dir) / LOG_REL


def pid_path(run_dir: Path) -> Path:
    return Path(run_dir) / PID_REL


def copy_line(run_dir: Path) -> str:
    """What the user pastes: short, so that no terminal wraps it mid-path."""
    return shlex.join(["bash", str(script_path(Path(run_dir).resolve()))])


def render_script(run_dir: Path, spec: LaunchSpec, planned_line: str | None = None) -> str:
    run = Path(run_dir).resolve()
    # Comment lines cannot quote: a newline there would start a shell line (refused upstream at
    # every option; checked again here, the last place before bash reads it).
    require_plain_path(run, "run folder")
    require_plain_path(planned_line or "", "planned command")
    q = shlex.quote
    log, pid = launch_files(run, spec)
    head = [
        "#!/usr/bin/env bash",
        "# Written by ltx-wizard: starts the full training run of this run folder.",
        f"#   bash {q(str(run / SCRIPT_NAME))}",
        "# Runs in the foreground (Ctrl-C stops it); to keep it running after you log out, start it",
        "# inside tmux, or: nohup bash launch.sh >/dev/null 2>&1 &",
        "# Output is also appended to logs/train.log; logs/train.pid holds the trainer's pid.",
        "# Resume after a stop: set model.load_checkpoint in config.yaml to this run's",
        "# outputs/checkpoints folder (the trainer picks the latest step there), then run this again.",
    ]
    if spec.argv[:1] == ["sbatch"]:
        head.append("# Several nodes: this submits slurm.sbatch to Slurm and returns; the log gets the")
        head.append("# job id; `squeue --me` shows the job, logs/slurm-<job id>.out its output.")
    if spec.simulated:
        head.append("# GPUs are SIMULATED here (--simulate/--demo): this runs the simulated trainer.")
        if planned_line:
            head.append(f"# On the GPU box the planned command is: {planned_line}")
    body = [
        "set -euo pipefail",
        f"run_dir={q(str(run))}",
        f"log={q(str(log))}",
        f"pid_file={q(str(pid))}",
        'mkdir -p "$(dirname "$log")" "$(dirname "$pid_file")"',
        'old_pid="$(cat "$pid_file" 2>/dev/null || true)"',
        '# (the wizard may already have written our own pid: that is not a second start)',
        'if [ -n "$old_pid" ] && [ "$old_pid" != "$$" ] && kill -0 "$old_pid" 2>/dev/null; then',
        '  echo "launch.sh: training from $run_dir already runs as pid $old_pid:'
        ' stop it (kill $old_pid) first" >&2',
        "  exit 1",
        "fi",
        f"cd {q(str(spec.cwd))}",
        *(f"export {k}={q(v)}" for k, v in sorted(spec.env.items())),
        "export PYTHONUNBUFFERED=1  # step lines reach the log as they happen",
        "export COLUMNS=250  # through the pipe to tee, the trainer's log would wrap at 80 columns",
        'echo "$$" > "$pid_file.tmp" && mv -f "$pid_file.tmp" "$pid_file"',
        'echo "=== $(date -u +%Y-%m-%dT%H:%M:%SZ) launch.sh started, pid $$" >> "$log"',
        'exec > >(tee -a "$log") 2>&1',
        f"exec {shlex.join(spec.argv)}",
    ]
    return "\n".join(head + [""] + body) + "\n"


def write_script(run_dir: Path, spec: LaunchSpec, planned_line: str | None = None) -> Path:
    for key in spec.env:
        if not key.isidentifier():
            raise UsageError(f"environment variable name {key!r} cannot be exported by launch.sh")
    create_run_dir(Path(run_dir))  # a real folder of ours (made if missing); a planted link refused
    path = atomic_write_text(script_path(run_dir), render_script(run_dir, spec, planned_line),
                             root=Path(run_dir))
    os.chmod(path, 0o755)
    return path


def ensure_script(run_dir: Path) -> Path:
    """launch.sh of a run folder; an older folder gets it from run.json. Raises UsageError."""
    path = script_path(run_dir)
    if path.is_file():
        return path
    spec = read_run_meta(Path(run_dir)).launch
    if spec is None:
        raise UsageError(
            f"{run_dir} has no launch.sh and run.json records no launch: plan the run again "
            "(ltx-wizard plan ... --force, or New run in the wizard)"
        )
    return write_script(Path(run_dir), spec)
