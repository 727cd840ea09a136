"""`<run>/slurm.sbatch`: one Slurm task per node, each running accelerate's multi-node launch.

Every value the shell reads is quoted with shlex.quote; the `#SBATCH` lines are read by Slurm,
not the shell, so their values are restricted to characters that need no quoting (a path that
does not fit is left out, with a comment). Values reach each node unparsed: the launch words
travel as arguments through `srun` (never re-split), and only the node rank is expanded there.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

from ltx_wizard.core.io.run_folder import LOGS_DIR
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.base.text_safety import require_plain_path
from ltx_wizard.core.launch.multinode import (
    CONFIG_VAR,
    MAIN_IP_VAR,
    SBATCH_NAME,
    MultiNodePlan,
    shell_words,
)

DEFAULT_TIME = "24:00:00"
CPUS_PER_GPU = 8  # data loading and the launcher; edit to the node's real core count
REQUEUE_SIGNAL_S = 300
MAX_SLURM_CPUS = 4096  # --slurm-cpus: its help and its check say the same bound
_TIME = re.compile(r"\d+(:\d{1,2}){0,2}|\d+-\d{1,2}(:\d{1,2}){0,2}")  # Slurm's --time forms
_PARTITION = re.compile(r"[A-Za-z0-9_.-]+(,[A-Za-z0-9_.-]+)*")
_SAFE = re.compile(r"[A-Za-z0-9_./+-]+")  # needs no quoting anywhere, also in #SBATCH lines


@dataclass(frozen=True)
class SlurmOptions:
    time: str = DEFAULT_TIME
    partition: str | None = None
    cpus_per_node: int | None = None  # None: CPUS_PER_GPU per GPU


def slurm_options(
    time: str | None = None, partition: str | None = None, cpus_per_node: int | None = None
) -> SlurmOptions:
    """Checked options; a bad value is a one-line UsageError naming the flag."""
    time = DEFAULT_TIME if time is None else time.strip()
    if not _TIME.fullmatch(time):
        raise UsageError(
            f"--slurm-time {time!r} is not a Slurm time: use MINUTES, HH:MM:SS or "
            "DAYS-HH:MM:SS (e.g. 24:00:00)"
        )
    if partition is not None and not _PARTITION.fullmatch(partition):
        raise UsageError(
            f"--slurm-partition {partition!r} is not a partition name: letters, "
            "digits, '_', '.', '-' (several joined by commas)"
        )
    if cpus_per_node is not None and not 1 <= cpus_per_node <= MAX_SLURM_CPUS:
        raise UsageError(f"--slurm-cpus {cpus_per_node} is outside 1..{MAX_SLURM_CPUS}")
    return SlurmOptions(time, partition, cpus_per_node)


def _q(value: object) -> str:
    return shlex.quote(str(value))


def render_sbatch(plan: MultiNodePlan, options: SlurmOptions, job_name: str, run_id: str) -> str:
    cpus = options.cpus_per_node or CPUS_PER_GPU * plan.gpus_per_node
    # The run folder reaches a comment line, where quoting does not hold: a newline would start
    # a shell line (refused at every option; checked again before bash reads it).
    require_plain_path(plan.run_dir, "run folder")
    head = _sbatch_head(plan, options, job_name, cpus)
    return "\n".join(head) + "\n" + _sbatch_checks(plan, run_id) + _sbatch_launch(plan, cpus)


def _sbatch_head(plan: MultiNodePlan, options: SlurmOptions, job_name: str, cpus: int) -> list[str]:
    """The #SBATCH lines: what Slurm reads before the script runs."""
    name = job_name if _SAFE.fullmatch(job_name) and len(job_name) <= 64 else "ltx-train"
    logs = LOGS_DIR.path(plan.run_dir)
    head = [
        "#!/bin/bash",
        f"# Written by ltx-wizard: {plan.nodes} nodes x {plan.gpus_per_node} GPUs "
        f"({plan.style.upper()}, {plan.total_gpus} processes). Submit from a login node:",
        f"#   {plan.submit_line()}",
        "# UNTESTED ON A REAL CLUSTER: try a short job first. plan.md explains the caveats.",
        f"#SBATCH --job-name={name}",
        f"#SBATCH --nodes={plan.nodes}",
        "#SBATCH --ntasks-per-node=1",
        f"#SBATCH --gpus-per-node={plan.gpus_per_node}",
        f"##SBATCH --gres=gpu:{plan.gpus_per_node}   # instead, on clusters without --gpus-per-node",
        f"#SBATCH --cpus-per-task={cpus}",
        f"#SBATCH --time={options.time}",
        "#SBATCH --requeue",
        f"#SBATCH --signal=B:USR1@{REQUEUE_SIGNAL_S}",
        "#SBATCH --open-mode=append",
    ]
    if _SAFE.fullmatch(str(logs)):
        head.append(f"#SBATCH --output={logs}/slurm-%j.out")
    else:
        head.append(
            "# (the run folder's path needs quoting, so Slurm writes slurm-<job>.out where you submit)"
        )
    if options.partition:
        head.append(f"#SBATCH --partition={options.partition}")
    else:
        head.append("##SBATCH --partition=CHANGE_ME   # most clusters want one: drop one '#'")
    head.append("##SBATCH --account=CHANGE_ME     # if your cluster bills an account")
    return head


def _locate_run_dir(run_id: str) -> str:
    """The run folder is where this script is, or where it was submitted from (Slurm runs a
    spooled copy): the one whose run.json names this job's run, at the planned place. A baked
    path alone could name another run's folder, or a moved one's old place."""
    return f"""unset CDPATH
RUN_ID={_q(run_id)}
here=${{BASH_SOURCE[0]}}
case $here in */*) here=${{here%/*}}; here=${{here:-/}} ;; *) here=. ;; esac
found=""
for d in "$here" "${{SLURM_SUBMIT_DIR:-}}"; do
  if [ -n "$d" ] && [ -f "$d/run.json" ] && [ ! -L "$d/run.json" ] \\
      && grep -qF -- "\\"run_id\\": \\"$RUN_ID\\"" "$d/run.json"; then
    found=$(cd -P -- "$d" && pwd -P) && break
  fi
done
if [ -z "$found" ]; then
  echo "{SBATCH_NAME}: no run folder whose run.json names run $RUN_ID here or at the submit folder: submit it from its run folder (cd RUN && sbatch {SBATCH_NAME})" >&2
  exit 1
fi
if [ "$found" != "$RUN_DIR" ]; then
  echo "{SBATCH_NAME}: the run folder was planned at $RUN_DIR and is now at $found (moved or copied): plan it again there" | tr -d '\\000-\\010\\013-\\037' >&2
  exit 1
fi
if [ -L "$RUN_DIR/logs" ] || {{ [ -e "$RUN_DIR/logs" ] && [ ! -d "$RUN_DIR/logs" ]; }}; then
  echo "{SBATCH_NAME}: $RUN_DIR/logs is a link or not a folder: remove it" >&2
  exit 1
fi"""


def _sbatch_checks(plan: MultiNodePlan, run_id: str) -> str:
    """The shared paths and the checks every job makes before it starts anything."""
    return f"""
set -euo pipefail

# Every node must see these at the same absolute paths (a shared filesystem), from the same
# commit of the trainer's checkout.
RUN_DIR={_q(plan.run_dir)}
TRAINER_DIR={_q(plan.trainer_dir)}
CONFIG={_q(plan.config)}
RESUME_CONFIG={_q(plan.resume_config)}
DATA_ROOT={_q(plan.data_root)}
UV={_q(plan.uv)}
NUM_NODES={_q(plan.nodes)}

# Network: if the nodes have several interfaces, name the one they reach each other on.
# export NCCL_SOCKET_IFNAME=CHANGE_ME    # e.g. ib0 or eth0 (`ip addr` on a compute node)
# export GLOO_SOCKET_IFNAME=CHANGE_ME    # the same interface, for accelerate's own setup
# export NCCL_IB_HCA=CHANGE_ME           # InfiniBand adapters to use, e.g. mlx5
# export NCCL_DEBUG=INFO                 # NCCL prints what it chose: the first thing to read on a hang

if [ -z "${{SLURM_JOB_ID:-}}" ]; then
  echo "{SBATCH_NAME}: not inside a Slurm job: submit it with sbatch" >&2
  exit 1
fi
{_locate_run_dir(run_id)}
for path in "$RUN_DIR" "$TRAINER_DIR" "$CONFIG" "$DATA_ROOT"; do
  if [ ! -e "$path" ]; then
    echo "{SBATCH_NAME}: $path not found on $(hostname): run folder, checkout and data must be on a filesystem every node mounts" >&2
    exit 1
  fi
done
if [ "${{SLURM_JOB_NUM_NODES:-$NUM_NODES}}" != "$NUM_NODES" ]; then
  echo "{SBATCH_NAME}: got $SLURM_JOB_NUM_NODES nodes, planned $NUM_NODES: submit without --nodes, or plan again" >&2
  exit 1
fi

# The first node of the allocation is node rank 0: it hosts the rendezvous and global rank 0.
# (pipefail off in here: head leaves early, and scontrol's SIGPIPE must not stop the job)
MAIN_IP=$(set +o pipefail; scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n1)
if [ -z "$MAIN_IP" ]; then
  echo "{SBATCH_NAME}: scontrol gave no host for $SLURM_JOB_NODELIST" >&2
  exit 1
fi
export MAIN_IP DATA_ROOT
"""


def _sbatch_launch(plan: MultiNodePlan, cpus: int) -> str:
    """Requeue near the time limit, resume from the latest checkpoint, one srun step per node."""
    return f"""
# 5 minutes before the time limit Slurm signals this script: requeue, so the job continues.
requeue() {{
  echo "{SBATCH_NAME}: time limit near, requeueing job $SLURM_JOB_ID"
  scontrol requeue "$SLURM_JOB_ID"
}}
trap requeue USR1

# Resume on requeue: when outputs/checkpoints/ holds a step checkpoint, train from a copy of
# config.yaml with model.load_checkpoint set to that folder; the trainer picks the latest step.
cd "$TRAINER_DIR"
TRAIN_CONFIG=$("$UV" run --no-sync python - "$CONFIG" "$RESUME_CONFIG" <<'PY'
import os
import sys
from pathlib import Path

import yaml

src, dst = Path(sys.argv[1]), Path(sys.argv[2])
config = yaml.safe_load(src.read_text(encoding="utf-8"))
out = config.get("output_dir")
ckpts = Path(str(out)) / "checkpoints"
# mirrors ltx_trainer/trainer.py LtxvTrainer._find_checkpoint: *step_*.safetensors, any depth
if out and ckpts.is_dir() and any(ckpts.rglob("*step_*.safetensors")):
    config.setdefault("model", {{}})["load_checkpoint"] = str(ckpts)
    tmp = dst.with_name(dst.name + ".tmp")
    if tmp.is_symlink() or tmp.exists():
        tmp.unlink()
    # O_EXCL | O_NOFOLLOW: never written through a link planted in the run folder
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(yaml.safe_dump(config, sort_keys=False))
    tmp.replace(dst)
    print(dst)
else:
    print(src)
PY
)
export TRAIN_CONFIG
echo "{SBATCH_NAME}: $NUM_NODES nodes, main $MAIN_IP, config $TRAIN_CONFIG"

# Words the same on every node; only the node rank differs (expanded on the node itself).
LAUNCH=({shell_words(plan.launch_prefix(MAIN_IP_VAR))})
TRAIN=({shell_words(plan.train_args(CONFIG_VAR))})
# --cpus-per-task again: some Slurm versions do not hand the job's value down to srun steps.
srun --kill-on-bad-exit=1 --cpus-per-task="${{SLURM_CPUS_PER_TASK:-{cpus}}}" bash -c '
  if [ ! -d "$DATA_ROOT" ]; then
    echo "node $SLURM_NODEID ($(hostname)): $DATA_ROOT not found: the data must be on a filesystem every node mounts" >&2
    exit 1
  fi
  n=$1; shift
  exec "${{@:1:n}}" --machine_rank "$SLURM_NODEID" "${{@:n+1}}"
' ltx-node "${{#LAUNCH[@]}}" "${{LAUNCH[@]}}" "${{TRAIN[@]}}" &
wait $!
"""
