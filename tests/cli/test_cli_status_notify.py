"""`ltx-wizard status RUN --watch --notify` in a pseudo-terminal, on runs of the simulated trainer
that end OK, out of memory and with a NaN loss: the notification's escape sequences arrive on
the terminal (plain, and tmux-wrapped with $TMUX set) within 30 s of the trainer's exit, each
once; `--notify-url` POSTs the ending to a local HTTP server.

The watcher runs as a user runs it (its own process, the `ltx-wizard` script, a pty as its
controlling terminal); the test reads the terminal's bytes as they come (select), never sleeps."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import signal
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from ltx_wizard.cli import main
from ltx_wizard.core.launch import accelerate_config
from ltx_wizard.core.monitor.trainer_process import trainer_process
from ltx_wizard.demo.lookalike_checkout import make_checkout
from ltx_wizard.demo.lookalike_models import make_checkpoint, make_data_root, make_gemma_dir
from tests.monitor_runs import end, make_run, sample_log, start_live

HERE = Path(__file__).resolve().parents[2]  # this checkout of the wizard
WIZARD = str(Path(sys.executable).parent / "ltx-wizard")
PROMISED_S = 30.0  # issue 45: the notification fires within 30 s of the trainer's exit
OSC_777 = re.compile(rb"\x1b\]777;notify;ltx-wizard;([^\x1b\x07]*)\x1b\\")
OSC_9 = re.compile(rb"\x1b\]9;ltx-wizard: ([^\x1b\x07]*)\x1b\\")
TMUX_777 = re.compile(rb"\x1bPtmux;\x1b\x1b\]777;notify;ltx-wizard;([^\x1b\x07]*)\x1b\x1b\\\x1b\\")
TMUX_9 = re.compile(rb"\x1bPtmux;\x1b\x1b\]9;ltx-wizard: ([^\x1b\x07]*)\x1b\x1b\\\x1b\\")


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "KITTY_WINDOW_ID", "TERM")}
    path = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    pythonpath = os.pathsep.join(p for p in (str(HERE), env.get("PYTHONPATH", "")) if p)
    return {**env, "PATH": path, "PYTHONPATH": pythonpath, "TERM": "xterm-256color", **extra}


def _planned(root: Path, monkeypatch, capsys, *, oom: bool) -> Path:
    """A run planned by `plan --simulate h100`, cut to 60 steps (the NaN fault starts at 40);
    `oom`: no gradient checkpointing and batch 4, which the simulated H100 cannot hold."""
    monkeypatch.setattr(accelerate_config, "accelerate_available", lambda: False)
    argv = ["plan", "--trainer-root", str(make_checkout(root / "LTX-2"))]
    argv += ["--checkpoint", str(make_checkpoint(root / "models" / "ltx-2.safetensors"))]
    argv += ["--text-encoder", str(make_gemma_dir(root / "models" / "gemma-3"))]
    argv += ["--data-root", str(make_data_root(root / "cats" / ".precomputed", 5))]
    argv += ["--workspace", str(root / "ws"), "--run-name", "run", "--simulate", "h100"]
    (root / "ws").mkdir()
    assert main(argv) == 0, capsys.readouterr().err
    run = root / "ws" / "run"
    config = (run / "config.yaml").read_text()
    config = re.sub(r"(?m)^  steps: \d+$", "  steps: 60", config)
    if oom:
        config = config.replace("enable_gradient_checkpointing: true", "enable_gradient_checkpointing: false")
        config = re.sub(r"(?m)^  batch_size: 1$", "  batch_size: 4", config)
    (run / "config.yaml").write_text(config)
    return run


class Launched:
    """`bash launch.sh` in the background; `exited_at` is when its trainer (exec'd) exited."""

    def __init__(self, run: Path, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            ["bash", str(run / "launch.sh")],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        self.exited_at: float | None = None
        self.waiter = threading.Thread(target=self._wait, daemon=True)
        self.waiter.start()

    def _wait(self) -> None:
        self.proc.wait()
        self.exited_at = time.monotonic()

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.waiter.join(30)


def _wait_live(run: Path, launched: Launched) -> None:
    """Until the trainer's pid file names a live process (or it already ended)."""
    deadline = time.monotonic() + 120
    while trainer_process(run) is None and launched.exited_at is None:
        assert time.monotonic() < deadline, "the simulated trainer never started"
        launched.waiter.join(0.05)  # a wait on the trainer's exit, bounded: not a sleep


def _in_pty(
    argv: list[str], env: dict[str, str], marker: re.Pattern[bytes]
) -> tuple[bytes, float | None, int]:
    """Run argv with a pty as its controlling terminal; every byte it writes there, when
    `marker` first appeared, and its exit code."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: the pty is its controlling terminal and stdin/stdout/stderr
        try:
            os.execve(argv[0], argv, env)
        finally:
            os._exit(127)
    out, seen_at = b"", None
    deadline = time.monotonic() + 240
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 1.0)
            if not ready:
                continue
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # EIO: the child has exited and closed the terminal
                chunk = b""
            if not chunk:
                break
            out += chunk
            if seen_at is None and marker.search(out):
                seen_at = time.monotonic()
        else:
            os.kill(pid, signal.SIGKILL)
            raise AssertionError(f"the watcher never ended: {out[-2000:]!r}")
    finally:
        os.close(fd)
    _, status = os.waitpid(pid, 0)
    return out, seen_at, os.waitstatus_to_exitcode(status)


CASES = {  # cause: (exit code, the simulated fault, an OOM config, the start of its line)
    "done": (0, "", False, "run: training done at step 60 of 60, last loss "),
    "failed-oom": (3, "", True, "run: failed, out of GPU memory in training before its first step line"),
    "failed-nan": (
        4,
        "nan",
        False,
        "run: failed, the loss is NaN from step 40 (the trainer finished at step 60), last loss 0.2437",
    ),
}


# One at a time, on one worker (their pty watchers would race each other), but beside the other
# workers: the promise is 30 s, and all six passed on three workers at load 7 on 2 cores; the
# serial pass kept one core busy with them for ~60 s.
@pytest.mark.xdist_group("notify_timing")
@pytest.mark.parametrize("tmux", [False, True], ids=["plain", "tmux"])
@pytest.mark.parametrize("cause", list(CASES))
def test_watch_notify_sends_the_sequences_within_30s_of_the_trainers_exit(
    tmp_path, monkeypatch, capsys, cause, tmux
):
    code, fault, oom, words = CASES[cause]
    run = _planned(tmp_path, monkeypatch, capsys, oom=oom)
    trainer_env = _env(LTX_WIZARD_SIM_SPEED="50", **({"LTX_WIZARD_SIM_FAULT": fault} if fault else {}))
    launched = Launched(run, trainer_env)
    try:
        _wait_live(run, launched)
        watch_env = _env(**({"TMUX": "/tmp/tmux-1000/default,4242,0"} if tmux else {}))
        marker = TMUX_9 if tmux else OSC_9
        out, seen_at, exit_code = _in_pty(
            [WIZARD, "status", str(run), "--watch", "--notify"], watch_env, marker
        )
    finally:
        launched.stop()
    assert exit_code == code, out[-3000:]
    assert launched.exited_at is not None and seen_at is not None, out[-3000:]
    delay = seen_at - launched.exited_at  # negative: seen before this test's thread saw the exit
    print(f"{cause} {'tmux' if tmux else 'plain'}: notified {delay:.2f} s after the trainer's exit")
    assert delay <= PROMISED_S
    first, second = (TMUX_777, TMUX_9) if tmux else (OSC_777, OSC_9)
    (title_body,) = first.findall(out)  # once
    (body,) = second.findall(out)
    text = title_body.decode()
    assert text == body.decode() and text.startswith(words), text
    # the BEL right after the last OSC, bare (for tmux's own bell too)
    assert out.count(b"\x07") == 1 and re.search(rb"\x1b\\\x07", out)
    # nothing else: no OSC outside the wrapper inside tmux, no wrapper outside tmux
    assert b"\x1b]" not in first.sub(b"", second.sub(b"", out))
    assert (b"\x1bPtmux;" in out) == tmux
    # what it printed says the same, and the run folder remembers it
    assert f"Notified: {text}".encode() in out
    sent = json.loads((run / "logs" / "notified.json").read_text())["sent"]
    assert [(s["cause"], s["text"]) for s in sent] == [(cause, text)]


def test_a_restarted_watcher_does_not_ping_again(tmp_path):
    run = make_run(tmp_path, sample_log("ok_single_gpu_cols250"))
    argv = [WIZARD, "status", str(run), "--watch", "--notify"]
    out, seen, code = _in_pty(argv, _env(), OSC_777)
    assert code == 0 and seen is not None and len(OSC_777.findall(out)) == 1
    out, seen, code = _in_pty(argv, _env(), OSC_777)
    assert code == 0 and seen is None and b"\x07" not in out and b"\x1b]9;" not in out
    assert b"Already notified at 20" in out and b": run: training done at step 50 of 50" in out


class _Hook(BaseHTTPRequestHandler):
    received: list[tuple[str, str, bytes]] = []
    answer = 204

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        type(self).received.append((self.path, self.headers.get("Content-Type", ""), self.rfile.read(length)))
        self.send_response(type(self).answer)
        self.end_headers()

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def hook():
    class Hook(_Hook):
        received: list[tuple[str, str, bytes]] = []

    server = ThreadingHTTPServer(("127.0.0.1", 0), Hook)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield Hook, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_notify_url_posts_the_ending_as_json(tmp_path, capsys, hook):
    handler, url = hook
    run = make_run(tmp_path, sample_log("nan_loss"))
    code = main(["status", str(run), "--notify-url", f"{url}/hooks/secret-token?x=1"])
    out, err = capsys.readouterr()
    assert code == 4 and err == ""
    ((path, kind, body),) = handler.received
    assert path == "/hooks/secret-token?x=1" and kind == "application/json"
    doc = json.loads(body)
    assert doc["run"] == "run" and doc["cause"] == "failed-nan" and doc["step"] == 50
    assert doc["loss"] == 0.2437 and f"Notified: {doc['text']}" in out


def test_a_failing_endpoint_is_one_line_and_not_fatal(tmp_path, capsys, hook):
    handler, url = hook
    handler.answer = 500
    run = make_run(tmp_path, sample_log("oom_cols80"))
    code = main(["status", str(run), "--notify-url", f"{url}/secret"])
    _, err = capsys.readouterr()
    assert code == 3 and err == f"ltx-wizard: --notify-url: {url} answered HTTP 500\n"
    assert "secret" not in err
    with socket_closed() as dead:
        run2 = make_run(tmp_path / "b", sample_log("oom_cols80"))
        code = main(["status", str(run2), "--notify-url", dead])
    _, err = capsys.readouterr()
    assert code == 3 and err.startswith(f"ltx-wizard: --notify-url: could not POST to {dead}")
    assert err.count("\n") == 1


def socket_closed():
    """A URL on 127.0.0.1 where nothing listens (a port taken, then let go)."""
    import contextlib
    import socket

    @contextlib.contextmanager
    def closed():
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        yield f"http://127.0.0.1:{port}"

    return closed()


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://example.com/x", "/tmp/hook", "http://"])
def test_notify_url_takes_only_http_and_https(tmp_path, capsys, url):
    run = make_run(tmp_path, sample_log("ok_single_gpu_cols250"))
    with pytest.raises(SystemExit) as exc:
        main(["status", str(run), "--notify-url", url])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "is not an http:// or https:// URL" in err and err.count("\n") == 1
    assert not (run / "logs" / "notified.json").exists()


def test_a_watch_started_on_a_trainer_silent_for_long_says_stalled(tmp_path, capsys):
    """A live trainer whose log was last written an hour ago, at 1.56 s/step: five step-line
    intervals (156 s) passed long ago. The watch says so at once, exit 6; the trainer still runs."""
    run = make_run(
        tmp_path, sample_log("ok_single_gpu_cols250").split("INFO     🎥 Validation samples for step 50")[0]
    )
    hour_ago = time.time() - 3600
    os.utime(run / "logs" / "train.log", (hour_ago, hour_ago))
    proc = start_live(run)
    try:
        code = main(["status", str(run), "--notify"])
        out, err = capsys.readouterr()
        assert proc.poll() is None
    finally:
        end(proc)
    assert code == 6, err
    assert "Notified: run: stalled at step 40: no step line for 5 step-line intervals, ~1.6 s/step" in out


def test_with_json_the_last_object_carries_the_ending(tmp_path, capsys, hook):
    _, url = hook
    run = make_run(tmp_path, sample_log("ok_single_gpu_cols250"))
    code = main(["status", str(run), "--notify-url", url, "--json"])
    out, err = capsys.readouterr()
    last = json.loads(out.strip().splitlines()[-1])
    assert code == 0 and err == "" and last["state"] == "finished"
    assert last["ending"]["cause"] == "done" and last["ending"]["step"] == 50
    assert "Notified" not in out  # stdout stays one status object per line
