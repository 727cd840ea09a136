"""Round five, item 5: a captioner server that never answers is named with its URL.

`prepare --vllm-url` at a server that takes the connection and never replies showed nothing
after the held-out question; now the server is asked first, for a stated time, and a silence
is one error naming the URL (exit 1: the machine, not the input), before any clip is sent."""

from __future__ import annotations

import asyncio
import socket

import pytest

from ltx_wizard.core.base.errors import EXIT_FAILURE, WizardError
from ltx_wizard.core.prepare import caption_step
from ltx_wizard.demo.lookalike_raw_clips import write_video
from tests.prepare_kit import Asker, checkout, session


@pytest.fixture
def silent_server():
    """A listening socket nobody accepts on: the kernel completes the connection, no reply."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    yield f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    sock.close()


def test_a_silent_captioner_server_is_named_with_its_url(tmp_path, monkeypatch, silent_server):
    monkeypatch.setattr(caption_step, "ANSWER_S", 1.0)
    checkout(tmp_path)
    clips = tmp_path / "clips"
    write_video(clips / "a.mp4", frames=24)
    write_video(clips / "b.mp4", frames=24, colour=2)
    asker = Asker(holdout=0)
    prep = session(tmp_path, clips, asker, captioner="qwen_omni", vllm_url=silent_server, holdout="0")
    with pytest.raises(WizardError) as stop:
        asyncio.run(asyncio.wait_for(prep.run(), 60))
    assert silent_server in stop.value.message and "did not answer" in stop.value.message
    assert stop.value.exit_code == EXIT_FAILURE
    assert not asker.shown  # nothing was captioned: the spot check never started
