"""Issue 45 item 3, on the command line of a simulated run: plan, autotune, `bash launch.sh`,
compare, each its own process as a user runs them. Every process the wizard started is seen
independently (a Python audit hook in the wizard's processes, `subprocess.Popen` events, loaded
through sitecustomize) and must be in RUN/logs/commands.jsonl with its end; `ltx-wizard commands
RUN` prints each as a line that, pasted into bash from another folder, runs again with the same
exit code (and the same file, for the LoRA health check)."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from collections import Counter
from pathlib import Path

from ltx_wizard.core.io.commands_file import read_commands
from ltx_wizard.demo.builder import build_demo

PRESET = "rtx5090"
# not steps a user reruns, kept out of commands.jsonl (core/proc/command_log.py says why): the
# wizard's own looks at a clip or the GPUs, and core/proc's watchdog of its own session
PROBES = {"ffprobe", "nvidia-smi"}
WATCHDOG = "ltx_wizard.core.proc.reaper"


def _recordable(argv: list[str]) -> bool:
    return Path(argv[0]).name not in PROBES and WATCHDOG not in argv


_SITE = """
import json, os, sys

def _hook(event, args):
    if event != "subprocess.Popen":
        return
    main = sys.argv[0] if sys.argv else ""
    if os.path.basename(main) != "ltx-wizard" and not main.endswith(os.path.join("ltx_wizard", "__main__.py")):
        return  # a child of the wizard (a trainer, a stand-in) starting its own
    with open(os.environ["LTX_TEST_AUDIT"], "a") as out:
        out.write(json.dumps([os.fsdecode(a) for a in args[1]]) + "\\n")

if os.environ.get("LTX_TEST_AUDIT"):
    sys.addaudithook(_hook)
"""


def _env(tmp_path: Path) -> dict[str, str]:
    here = Path(__file__).resolve().parents[2]
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(_SITE)
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    pythonpath = os.pathsep.join(p for p in (str(site), str(here), os.environ.get("PYTHONPATH")) if p)
    return {**os.environ, "PATH": path, "PYTHONPATH": pythonpath, "LTX_WIZARD_SIM_SPEED": "0"}


def _run(argv: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{shlex.join(argv)}\n{done.stdout}\n{done.stderr}"
    return done


def test_every_process_of_a_cli_run_is_in_commands_jsonl_and_reruns_by_hand(tmp_path):
    demo = build_demo(tmp_path / "demo", simulate=PRESET)
    env = _env(tmp_path)
    audit = tmp_path / "audit.jsonl"
    wizard = {**env, "LTX_TEST_AUDIT": str(audit)}
    plan = ["ltx-wizard", "--simulate", PRESET, "plan", "--trainer-root", str(demo.checkout)]
    plan += ["--checkpoint", str(demo.checkpoint), "--text-encoder", str(demo.text_encoder)]
    plan += ["--data-root", str(demo.data_root), "--workspace", str(tmp_path / "ws"), "--run-name", "r"]
    _run(plan, wizard, tmp_path)
    run = tmp_path / "ws" / "r"
    _run(["ltx-wizard", "autotune", str(run), "--simulate", PRESET], wizard, tmp_path)
    _run(["bash", str(run / "launch.sh")], env, tmp_path)  # the user's own start: not the wizard's
    _run(["ltx-wizard", "compare", str(run), "--yes", "--json", "--no-render"], wizard, tmp_path)

    seen = [json.loads(x) for x in audit.read_text().splitlines()]
    started = Counter(tuple(a) for a in seen if _recordable(a))
    commands = read_commands(run)
    assert Counter(c.start.argv for c in commands) == started
    programs = [" ".join(c.start.argv) for c in commands]
    assert sum("ltx_wizard.demo.sim.trainer" in p for p in programs) >= 2  # autotune's trials
    assert any("compare_programs lora_health" in p for p in programs)  # compare's program
    assert all(c.end is not None and c.ok for c in commands), [c.outcome for c in commands]
    assert all(c.start.run == str(run) for c in commands)
    _rerun_by_hand(run, commands, env, tmp_path)


def _rerun_by_hand(run: Path, commands, env: dict[str, str], tmp_path: Path) -> None:
    printed = _run(["ltx-wizard", "commands", str(run)], env, tmp_path).stdout.splitlines()
    lines = [x for x in printed if not x.startswith("#")]
    assert lines == [c.line for c in commands]
    assert [x for x in printed if x.startswith("#")] == [
        f"# {c.when}: {c.outcome}{f', {c.took}' if c.took else ''}" for c in commands
    ]
    health = run / "outputs" / "compare" / "lora-health.json"
    first = health.read_bytes()
    health.unlink()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for line, command in zip(lines, commands):
        done = subprocess.run(["bash", "-c", line], env=env, cwd=elsewhere, capture_output=True, timeout=600)
        assert done.returncode == command.end.exit_code, (line, done.stderr[-2000:])
    assert health.read_bytes() == first  # the same file again
    assert list(elsewhere.iterdir()) == []  # each ran in its own folder, as recorded
