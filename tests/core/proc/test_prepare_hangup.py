"""Issue 42, reproduced: SIGHUP to `ltx-wizard prepare` while its (simulated) captioner server runs
killed the wizard and left serve_captioner.py running under PID 1. Through core/proc the wizard
stops every child first (the server and caption_videos.py), then leaves with 128 + SIGHUP, and
nothing it started is alive 5 s later."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from ltx_wizard.demo.lookalike_raw_clips import write_video
from tests.prepare_kit import checkout, uv_on_path

REPO = Path(__file__).resolve().parents[3]
UP_S = 90.0  # generous for a loaded machine: each wait returns as soon as its state is there
EXIT_S = 60.0
GONE_S = 5.0  # the bound


def _descendants(root: int) -> dict[int, str]:
    """pid -> start time of every live process below `root`, read from /proc (not through core/proc)."""
    parents, starts = {}, {}
    for name in os.listdir("/proc"):
        try:
            stat = Path(f"/proc/{name}/stat").read_bytes() if name.isdigit() else b""
        except OSError:
            continue
        if stat:
            fields = stat[stat.rfind(b")") + 2 :].split()
            if fields[0] != b"Z":
                parents[int(name)], starts[int(name)] = int(fields[1]), fields[19].decode()
    found, todo = {}, [root]
    while todo:
        pid = todo.pop()
        for child, parent in parents.items():
            if parent == pid and child not in found:
                found[child] = starts[child]
                todo.append(child)
    return found


def _alive(pid: int, start: str) -> bool:
    try:
        fields = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()
    except OSError:
        return False
    return fields[0] != b"Z" and fields[19].decode() == start


def _until(check, bound_s: float, what: str) -> None:
    deadline = time.monotonic() + bound_s
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {bound_s:.0f} s: {what}")
        time.sleep(0.05)


def _cmdlines(pids) -> str:
    out = []
    for pid in pids:
        try:
            out.append(Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode())
        except OSError:
            pass
    return " | ".join(out)


def test_sighup_to_prepare_leaves_no_captioner_server(tmp_path, monkeypatch):
    uv_on_path(tmp_path, monkeypatch)
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    checkout(tmp_path)
    write_video(tmp_path / "raw" / "beach.mp4", frames=30, colour=2)
    argv = [sys.executable, "-m", "ltx_wizard", "prepare", str(tmp_path / "raw")]
    argv += ["--trainer-root", str(tmp_path / "LTX-2"), "--workspace", str(tmp_path / "ws")]
    argv += ["--run-name", "run", "--simulate", "h100", "--holdout", "0", "--yes", "--captioner", "qwen_omni"]
    env = {**os.environ, "PYTHONPATH": str(REPO), "LTX_WIZARD_SIM_CAPTION_DELAY": "120"}
    logs = tmp_path / "ws" / "run" / "logs"
    children: dict[int, str] = {}
    with open(tmp_path / "wizard.out", "wb") as out:
        wizard = subprocess.Popen(argv, env=env, stdout=out, stderr=out, start_new_session=True)
    try:
        # the server answers and caption_videos.py is waiting on it: both children are up
        _until(
            lambda: (
                "media files to process" in "".join(p.read_text() for p in logs.glob("prepare-caption*.log"))
            ),
            UP_S,
            "caption_videos.py running against the server",
        )
        children = _descendants(wizard.pid)
        assert "ltx_wizard.demo.sim.captioner" in _cmdlines(children)
        wizard.send_signal(signal.SIGHUP)
        code = wizard.wait(EXIT_S)
        _until(
            lambda: not any(_alive(pid, start) for pid, start in children.items()),
            GONE_S,
            f"every child gone: {_cmdlines(p for p, s in children.items() if _alive(p, s))}",
        )
        assert code == 128 + signal.SIGHUP  # as a shell reports it, not killed by it
        said = (tmp_path / "wizard.out").read_text()
        assert "stopped by SIGHUP: every process it had started was stopped with it" in said
    finally:
        if wizard.poll() is None:
            wizard.kill()
        for pid, start in children.items():
            if _alive(pid, start):
                os.kill(pid, signal.SIGKILL)
