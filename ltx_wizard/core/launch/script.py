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
from dataclasses import replace
from pathlib import Path
from typing import Any

from ltx_wizard.core.io.run_folder import CONFIG
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.base.stand_in import StandIn
from ltx_wizard.core.launch.launch_command import QUIET_FLAG, LaunchPlan
from ltx_wizard.core.io import run_folder
from ltx_wizard.core.io.run_meta import RUN_META_FILE, LaunchSpec, new_run_id, read_run_meta
from ltx_wizard.core.io.safe_fs import create_run_dir
from ltx_wizard.core.base.text_safety import require_plain_path
from ltx_wizard.core.io.workspace import atomic_write_text

SCRIPT_NAME = run_folder.LAUNCH_SCRIPT.rel
LOG_REL = Path(run_folder.TRAIN_LOG.rel)
PID_REL = Path(run_folder.TRAIN_PID.rel)


def _spec(run_dir: Path, **fields: Any) -> LaunchSpec:
    run = Path(run_dir).resolve()
    return LaunchSpec(log=log_path(run), pid_file=pid_path(run), **fields)


def spec_of(plan: LaunchPlan, run_dir: Path) -> LaunchSpec:
    """The planned trainer command, started by launch.sh."""
    return _spec(run_dir, argv=list(plan.argv), cwd=plan.cwd, env=dict(plan.env))


def sbatch_spec(run_dir: Path, sbatch: Path) -> LaunchSpec:
    """Several nodes: launch.sh submits slurm.sbatch."""
    return _spec(run_dir, argv=["sbatch", str(sbatch)], cwd=Path(run_dir).resolve())


def stand_in_spec(run_dir: Path, stand_in: StandIn) -> LaunchSpec:
    """No real GPU: the stand-in the caller gave runs the planned config (what --demo can show)."""
    run = Path(run_dir).resolve()
    argv, env = stand_in.launch(run, CONFIG.path(run), QUIET_FLAG)
    return _spec(run_dir, argv=argv, cwd=run, env=env, simulated=True)


def launch_files(run_dir: Path, spec: LaunchSpec | None = None) -> tuple[Path, Path]:
    """(log, pid file) of the full run, as the plan recorded them (else the default places),
    under `run_dir` as given."""
    spec = spec if spec is not None else read_run_meta(Path(run_dir)).launch
    return (
        _recorded(run_dir, spec.log if spec is not None else None, LOG_REL),
        _recorded(run_dir, spec.pid_file if spec is not None else None, PID_REL),
    )


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


def spec_line(spec: LaunchSpec) -> str:
    """What launch.sh runs, as one shell line: its cd, its exports and its command."""
    env = " ".join(f"{k}={shlex.quote(v)}" for k, v in sorted(spec.env.items()))
    cmd = shlex.join(spec.argv)
    return f"cd {shlex.quote(str(spec.cwd))} && " + (f"{env} {cmd}" if env else cmd)


def copy_line(run_dir: Path) -> str:
    """What the user pastes: short, so that no terminal wraps it mid-path."""
    return shlex.join(["bash", str(script_path(Path(run_dir).resolve()))])


# The body, with @NAME@ placeholders (bash's own braces and dollars stay as typed). The run
# folder is where this script is: the only baked path is the planned place, compared, never
# written to. Each check answers one way the script could write outside its run folder.
_BODY = r"""set -euo pipefail
unset CDPATH
run_id=@RUN_ID@
planned_dir=@PLANNED@
log_rel=@LOG_REL@
pid_rel=@PID_REL@
fail() { local m="$*"; printf 'launch.sh: %s\n' "${m//[[:cntrl:]]/?}" >&2; exit 1; }
here=${BASH_SOURCE[0]}
case $here in */*) here=${here%/*}; here=${here:-/} ;; *) here=. ;; esac
cd -P -- "$here" || fail "cannot enter the folder of $here"
run_dir=$PWD
if [ "$run_dir" != "$planned_dir" ]; then
  fail "this run folder was planned at $planned_dir and is now at $run_dir (moved or copied): config.yaml still names the old place; plan it again here (ltx-wizard plan ... --force), or move it back"
fi
if [ -L run.json ] || [ ! -f run.json ] || ! grep -qF -- "\"run_id\": \"$run_id\"" run.json; then
  fail "$run_dir/run.json does not name this script's run ($run_id): launch.sh belongs to another run folder; plan the run again"
fi
# Never write through a link: every folder on the way to the log and the pid file is real.
for d in @DIRS@; do
  if [ -L "$d" ] || { [ -e "$d" ] && [ ! -d "$d" ]; }; then
    fail "$run_dir/$d is a link or not a folder: remove it (launch.sh writes only inside its run folder)"
  fi
  mkdir -p -- "$d"
done
if [ -L "$log_rel" ] || { [ -e "$log_rel" ] && [ ! -f "$log_rel" ]; }; then
  fail "$run_dir/$log_rel is a link or not a regular file: remove it"
fi
if [ -L "$pid_rel" ] || [ -d "$pid_rel" ]; then
  fail "$run_dir/$pid_rel is a link or a folder: remove it"
fi
log=$run_dir/$log_rel
pid_file=$run_dir/$pid_rel
start_of() {  # the kernel's start time of pid $1 (field 22 of /proc/<pid>/stat), '-' if unknown
  local stat=""
  local -a f=()
  if read -r stat 2>/dev/null < "/proc/$1/stat"; then read -r -a f <<< "${stat##*) }"; fi
  printf '%s' "${f[19]:--}"
}
held_by() {  # true when "<pid> <start>" names a live process other than us (core/io/pid_records.py)
  [[ $1 =~ ^[0-9]{1,7}$ ]] && (( 10#$1 >= 2 && 10#$1 <= 4194304 )) || return 1
  [ "$1" != "$$" ] || return 1  # the wizard wrote our own pid: not a second start
  if [ -d /proc/self ]; then  # start times readable: a record must carry the matching one
    [ -e "/proc/$1/stat" ] && [[ $2 =~ ^[0-9]{1,20}$ ]] || return 1
    [ "$(start_of "$1")" = "$2" ] || return 1
  else
    kill -0 "$1" 2>/dev/null || return 1
  fi
}
# train.pid: a regular small file only (a FIFO would block the read), never trusted blindly.
old_pid="" old_start=""
if [ -f "$pid_rel" ]; then IFS=' ' read -r -n 64 old_pid old_start _ < "$pid_rel" || true; fi
if held_by "$old_pid" "$old_start"; then
  fail "training from $run_dir already runs as pid $old_pid: stop that training first"
elif [ -n "$old_pid" ] && [ "$old_pid" != "$$" ]; then
  printf 'launch.sh: logs/train.pid was stale (%s): replaced\n' "${old_pid//[^0-9-]/?}" >&2
fi
@EXPORTS@export PYTHONUNBUFFERED=1  # step lines reach the log as they happen
export COLUMNS=250  # through the pipe to tee, the trainer's log would wrap at 80 columns
tmp=$pid_file.tmp.$$
rm -f -- "$tmp"
(set -C; printf '%s %s\n' "$$" "$(start_of $$)" > "$tmp") && mv -f -- "$tmp" "$pid_file"
echo "=== $(date -u +%Y-%m-%dT%H:%M:%SZ) launch.sh started, pid $$" >> "$log"
exec > >(tee -a "$log") 2>&1
# From here bash's own errors reach the log too (a trainer folder that is gone, a command not on
# PATH): `ltx-wizard status` and the Monitor read the cause there (core/monitor/run_log.py).
cd -- @CWD@
exec @ARGV@
"""


def _dirs_on_the_way(*rels: Path) -> list[str]:
    """Every folder from the run folder down to each file's: `full/x/train.log` -> full, full/x."""
    found: list[str] = []
    for rel in rels:
        for n in range(1, len(rel.parts)):
            prefix = str(Path(*rel.parts[:n]))
            if prefix not in found:
                found.append(prefix)
    return found


def render_script(
    run_dir: Path, spec: LaunchSpec, planned_line: str | None = None, run_id: str | None = None
) -> str:
    run = Path(run_dir).resolve()
    # Comment lines cannot quote: a newline there would start a shell line (refused upstream at
    # every option; checked again here, the last place before bash reads it).
    require_plain_path(run, "run folder")
    require_plain_path(planned_line or "", "planned command")
    q = shlex.quote
    log, pid = (path.relative_to(run) for path in launch_files(run, spec))
    body = _BODY
    for key, value in (
        ("RUN_ID", q(run_id or new_run_id())),
        ("PLANNED", q(str(run))),
        ("LOG_REL", q(str(log))),
        ("PID_REL", q(str(pid))),
        ("DIRS", " ".join(q(d) for d in _dirs_on_the_way(log, pid))),
        ("CWD", q(str(spec.cwd))),
        ("EXPORTS", "".join(f"export {k}={q(v)}\n" for k, v in sorted(spec.env.items()))),
        ("ARGV", shlex.join(spec.argv)),
    ):
        body = body.replace(f"@{key}@", value)
    return "\n".join(_head(run, spec, planned_line) + [""]) + body


def _head(run: Path, spec: LaunchSpec, planned_line: str | None) -> list[str]:
    head = [
        "#!/usr/bin/env bash",
        "# Written by ltx-wizard: starts the full training run of this run folder.",
        f"#   bash {shlex.quote(str(run / SCRIPT_NAME))}",
        "# Runs in the foreground (Ctrl-C stops it); to keep it running after you log out, start it",
        "# inside tmux, or: nohup bash launch.sh >/dev/null 2>&1 &",
        "# Output is also appended to logs/train.log; logs/train.pid holds the trainer's pid and",
        "# its start time. It runs only from this run folder, where the plan put it.",
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
    return head


def write_script(run_dir: Path, spec: LaunchSpec, planned_line: str | None = None) -> Path:
    for key in spec.env:
        if not key.isidentifier():
            raise UsageError(f"environment variable name {key!r} cannot be exported by launch.sh")
    create_run_dir(Path(run_dir))  # a real folder of ours (made if missing); a planted link refused
    run_id = ensure_run_id(Path(run_dir), spec)
    path = atomic_write_text(
        script_path(run_dir), render_script(run_dir, spec, planned_line, run_id), root=Path(run_dir)
    )
    os.chmod(path, 0o755)
    return path


def ensure_run_id(run_dir: Path, spec: LaunchSpec) -> str:
    """run.json's id (the plan wrote it); an older folder's run.json, or a folder without one,
    gets one now, with the launch it records: launch.sh runs only where run.json names it."""
    meta = read_run_meta(run_dir)
    if meta.run_id:
        return meta.run_id
    run_id = new_run_id()
    meta = replace(meta, run_id=run_id, run_dir=Path(run_dir).resolve(), launch=meta.launch or spec)
    RUN_META_FILE.write(run_dir, meta)
    return run_id


def ensure_script(run_dir: Path) -> Path:
    """launch.sh of a run folder; an older folder gets it from run.json. Raises UsageError."""
    path = script_path(run_dir)
    if path.is_file():
        return path
    try:  # a refused run.json is named with what is wrong in it, not read as "no launch"
        meta = RUN_META_FILE.read(run_dir)
    except UsageError as exc:
        raise UsageError(f"{run_dir} has no launch.sh, and its {exc.message}") from None
    spec = meta.launch if meta is not None else None
    if spec is None:
        raise UsageError(
            f"{run_dir} has no launch.sh and run.json records no launch: plan the run again "
            "(ltx-wizard plan ... --force, or New run in the wizard)"
        )
    return write_script(Path(run_dir), spec)
