"""Issue 42: a signal to `ltx-wizard prepare` while its children run (the local captioner server,
scripts/serve_captioner.py's stand-in, and scripts/caption_videos.py) leaves none of them alive 5 s
after the wizard is gone. Reproduced in the issue: SIGHUP left the server running under PID 1.
The captions are slowed (LTX_WIZARD_SIM_CAPTION_DELAY) so both are up when the signal comes."""

from __future__ import annotations

import subprocess
import sys
import urllib.request

import pytest

from ltx_wizard.demo.lookalike_raw_clips import write_video
from tests.prepare_kit import checkout, uv_on_path

from .children import Wizard, next_start_reaps, signals, wait_for, wait_logged, wizard_env

SERVER = "ltx_wizard.demo.sim.captioner"
SCRIPT = "caption_videos.py"
SLOW = {"LTX_WIZARD_SIM_CAPTION_DELAY": "120", "LTX_WIZARD_SIM_SPEED": "0"}


@pytest.fixture
def raw(tmp_path, monkeypatch):
    """A look-alike checkout, the stand-in uv its scripts run under, two real tiny clips."""
    uv_on_path(tmp_path, monkeypatch)
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    checkout(tmp_path)
    folder = tmp_path / "raw"
    write_video(folder / "beach.mp4", frames=30, colour=2)
    write_video(folder / "quiet.mp4", frames=30, audio=False, colour=1)
    return folder


def captions_running(tmp_path, wizard: Wizard) -> None:
    """caption_videos.py past its start-up, waiting on the (slowed) server for the spot check."""
    wizard.child_up(SCRIPT)
    wait_logged(tmp_path / "ws" / "run" / "logs", "prepare-caption*.log", "media files to process")
    wizard.record()


def prepare_argv(tmp_path, raw, *extra: str) -> list[str]:
    return [
        "prepare",
        str(raw),
        "--trainer-root",
        str(tmp_path / "LTX-2"),
        "--workspace",
        str(tmp_path / "ws"),
        "--run-name",
        "run",
        "--simulate",
        "h100",
        "--holdout",
        "0",
        "--yes",
        *extra,
    ]


@pytest.mark.parametrize(
    "sig",
    signals(),
)
def test_a_signal_to_prepare_stops_the_captioner_server(box, tmp_path, raw, sig):
    argv = prepare_argv(tmp_path, raw, "--captioner", "qwen_omni")
    with Wizard(argv, env=wizard_env(**SLOW), cwd=tmp_path) as wizard:
        wizard.child_up(SERVER)
        captions_running(tmp_path, wizard)
        wizard.assert_leaves_nothing(sig)


@pytest.fixture
def remote_server(tmp_path):
    """A captioner server the user runs elsewhere (--vllm-url): not the wizard's to stop."""
    env = {**wizard_env(**SLOW)}
    server = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from ltx_wizard.demo.sim.captioner import start_in_thread as s;"
            "import time; srv, url = s(); print(url, flush=True); time.sleep(600)",
        ],
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        url = server.stdout.readline().strip()
        wait_for(lambda: _healthy(url), 30, f"the remote captioner at {url}")
        yield server, url
    finally:
        server.kill()
        server.wait()


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(url.removesuffix("/v1") + "/health", timeout=2) as reply:
            return reply.status == 200
    except OSError:
        return False


@pytest.mark.parametrize(
    "sig",
    signals(),
)
def test_a_signal_to_prepare_stops_the_caption_script(box, tmp_path, raw, remote_server, sig):
    server, url = remote_server
    argv = prepare_argv(tmp_path, raw, "--captioner", "qwen_omni", "--vllm-url", url)
    with Wizard(argv, env=wizard_env(**SLOW), cwd=tmp_path) as wizard:
        captions_running(tmp_path, wizard)
        wizard.assert_leaves_nothing(sig)
    assert server.poll() is None  # the user's own server is left alone


def test_prepare_killed_leaves_orphans_the_next_start_reaps(box, tmp_path, raw):
    argv = prepare_argv(tmp_path, raw, "--captioner", "qwen_omni")
    env = wizard_env(**SLOW)
    with Wizard(argv, env=env, cwd=tmp_path) as wizard:
        wizard.child_up(SERVER)
        captions_running(tmp_path, wizard)
        next_start_reaps(wizard, argv, env=env, cwd=tmp_path)
