"""Round four: `ltx-wizard models` against a hostile Hub (the local stand-in on 127.0.0.1, made
to misbehave): a body cut off mid-file, HTTP 500 on every try, a size that is not a number, a
negative size, a `..` file name in the model info or in the folder listing, a saved token that is
a FIFO. Each is one line with its cause and the next step, exit 1 for the Hub's or the machine's
side; no file lands outside the models folder, and no partial file sits where a check would trust
it. The F3 dialog shows the same line.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import threading
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest

pytest.importorskip("huggingface_hub")

from ltx_wizard.core.inputs import hub_answers
from tests.hf_standin import Hub, _handler

from .conftest import snapshot

CKPT = "ltx-2.3-22b-dev.safetensors"
GEMMA = "google/gemma-3-12b-it-qat-q4_0-unquantized"


class HostileHub(Hub):
    """The stand-in, with one fault: `fault` names it (see _answer_api / _answer_file)."""

    def __init__(self, fault: str) -> None:
        super().__init__()
        self.fault, self.requests = fault, 0
        hub, base = self, _handler(self)

        class Handler(base):  # type: ignore[misc, valid-type]
            def _api(self) -> None:
                if not hub.answer_api(self):
                    super()._api()

            def _file(self, head: bool) -> None:
                hub.requests += 1
                if not hub.answer_file(self, head):
                    super()._file(head)

        self.server.server_close()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def answer_api(self, h) -> bool:
        path = h.path.split("?", 1)[0].removeprefix("/api/models/")
        repo, rest = h._repo_of(path)
        if repo is None:
            return False
        if self.fault == "api-500":
            h._send(500, b"{}")
            return True
        if rest == "" and self.fault in ("size-nan", "size-negative", "dotdot-info"):
            siblings = [
                {"rfilename": n, "size": {"size-nan": "abc", "size-negative": -5}.get(self.fault, len(b))}
                for n, b in self.repos[repo]["files"].items()
            ]
            if self.fault == "dotdot-info":
                siblings.append({"rfilename": "../../evil.safetensors", "size": 3})
            body = {"id": repo, "sha": "0" * 40, "gated": False, "siblings": siblings}
            h._send(200, json.dumps(body).encode(), {"Content-Type": "application/json"})
            return True
        if rest.startswith("tree/") and self.fault == "dotdot-tree":
            tree = [{"type": "file", "path": "../../evil.txt", "size": 3, "oid": "0" * 40}]
            h._send(200, json.dumps(tree).encode(), {"Content-Type": "application/json"})
            return True
        return False

    def answer_file(self, h, head: bool) -> bool:
        if self.fault == "file-500":
            h._send(500, b"", {}, head)
            return True
        if self.fault == "cut-off" and not head:  # says 4,000 bytes, sends 100, hangs up
            h.send_response(200)
            h.send_header("Content-Length", "4000")
            h.send_header("X-Repo-Commit", "0" * 40)
            h.send_header("ETag", '"e"')
            h.end_headers()
            h.wfile.write(b"C" * 100)
            h.wfile.flush()
            h.close_connection = True
            h.connection.shutdown(2)
            return True
        return False


@pytest.fixture
def world(tmp_path, monkeypatch):
    """HOME, HF_HOME and the models folder in tmp_path; the Hub library's back-off waits are
    recorded instead of slept (its retries still happen, each one a real request)."""
    import huggingface_hub.file_download as fd
    import huggingface_hub.utils._http as hh

    waits: list[float] = []
    monkeypatch.setattr(hh.time, "sleep", waits.append)
    monkeypatch.setattr(fd.time, "sleep", waits.append)
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("LTX_MODELS_DIR", str(tmp_path / "models"))
    (tmp_path / "home").mkdir(exist_ok=True)
    return tmp_path, waits


def _run(world, capsys, monkeypatch, fault: str, *argv: str, answers: str = "y\ny\n"):
    from ltx_wizard.cli import main

    root, _ = world
    before = snapshot(root, root / "models", root / "hf")
    with HostileHub(fault) as hub:
        hub.add("Lightricks/LTX-2.3", {CKPT: b"C" * 4000})
        hub.add(GEMMA, {"config.json": b"{}", "model.safetensors": b"G" * 3000})
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        monkeypatch.setattr("sys.stdin", io.StringIO(answers))
        code = main(["models", "--release", "ltx-2.3", *argv])
        out, err = capsys.readouterr()
    assert snapshot(root, root / "models", root / "hf") == before  # nothing outside
    assert not any("evil" in p.name for p in root.rglob("*")), list(root.rglob("*evil*"))
    assert "Traceback" not in err and "internal error" not in err, err
    last = err.strip().splitlines()[-1]
    assert last.startswith("ltx-wizard: ") or code != 1, err
    return code, out, err, hub


def _lines(err: str, start: str) -> list[str]:
    return [line.strip() for line in err.splitlines() if line.strip().startswith(start)]


def _final_files(models: Path) -> list[str]:
    """Files a later check would look at: everything outside the hub's hidden .cache."""
    return sorted(
        str(p.relative_to(models))
        for p in models.rglob("*")
        if p.is_file() and ".cache" not in p.relative_to(models).parts
    )


def test_a_body_cut_off_mid_file_is_one_line_and_leaves_no_file_to_trust(world, capsys, monkeypatch):
    code, out, err, hub = _run(world, capsys, monkeypatch, "cut-off", "--only", "checkpoint")
    assert code == 1
    (failed,) = _lines(err, "failed:")
    assert "connection kept dropping" in failed and "run it again" in failed
    assert hub.requests > 3 and len(world[1]) >= 5  # the library resumed, and gave up
    assert _final_files(world[0] / "models") == []  # the partial file stays in .cache only
    assert "checkpoint=" not in out


def test_http_500_after_the_retries_is_one_line(world, capsys, monkeypatch):
    code, out, err, hub = _run(world, capsys, monkeypatch, "file-500", "--only", "checkpoint")
    assert code == 1
    (failed,) = _lines(err, "failed:")
    assert "HTTP 500" in failed and "retry in a few minutes" in failed
    assert len(world[1]) == 5  # five back-off waits: six tries, then the one line
    assert _final_files(world[0] / "models") == []


def test_the_model_info_failing_is_one_line_per_file_and_a_machine_failure(world, capsys, monkeypatch):
    code, _, err, _ = _run(world, capsys, monkeypatch, "api-500")
    assert code == 1
    refused = _lines(err, "not offered:")
    assert len(refused) == 2 and all("HTTP 500" in line for line in refused), err


@pytest.mark.parametrize(
    ("fault", "words"), [("size-nan", "'abc', not a whole number"), ("size-negative", "is -5, out of range")]
)
def test_a_size_that_is_not_a_byte_count_is_refused_not_offered(world, capsys, monkeypatch, fault, words):
    code, _, err, hub = _run(world, capsys, monkeypatch, fault)
    assert code == 1
    refused = _lines(err, "not offered:")
    assert len(refused) == 2 and all(words in line and "malformed" in line for line in refused)
    assert "-0.0 GB" not in err and "GB" not in refused[0]
    assert hub.downloads == []


def test_a_dotdot_name_in_the_model_info_is_refused_before_any_download(world, capsys, monkeypatch):
    code, _, err, hub = _run(world, capsys, monkeypatch, "dotdot-info")
    assert code == 1 and hub.downloads == []
    refused = _lines(err, "not offered:")
    assert (
        all("'../../evil.safetensors'" in line and "outside the download folder" in line for line in refused)
        and len(refused) == 2
    )


def test_a_dotdot_name_in_the_folder_listing_writes_nothing_outside(world, capsys, monkeypatch):
    code, _, err, _ = _run(world, capsys, monkeypatch, "dotdot-tree", "--only", "text_encoder")
    assert code == 1
    (failed,) = _lines(err, "failed:")
    assert "'../../evil.txt'" in failed and "nothing was written outside it" in failed


def test_a_saved_token_that_is_a_fifo_is_one_line_not_a_hang(world):
    root, _ = world
    (root / "hf").mkdir()
    os.mkfifo(root / "hf" / "token")
    # its own process: the library fixes its token path from HF_HOME when first imported, and a
    # regression would hang on the FIFO (the timeout then fails the test instead)
    env = dict(os.environ, HF_HOME=str(root / "hf"), HF_ENDPOINT="http://127.0.0.1:9")
    done = subprocess.run(
        [sys.executable, "-m", "ltx_wizard", "models", "--release", "ltx-2.3"],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    err = done.stderr.strip()
    assert done.returncode == 2 and err.count("\n") == 0, err
    assert err.startswith("ltx-wizard: ") and "token" in err and "FIFO" in err, err


def test_a_full_disk_mid_download_names_the_folder_and_the_fix(tmp_path):
    # what huggingface_hub raises while writing the partial file, wrapped as it wraps it
    try:
        try:
            raise OSError(28, "No space left on device")
        except OSError as exc:
            raise RuntimeError("download failed") from exc
    except RuntimeError as wrapped:
        message = hub_answers.failure(wrapped, repo="r/x", dest=tmp_path, what="the download").message
    assert f"no space left in {tmp_path}" in message and "LTX_MODELS_DIR" in message


async def test_the_download_dialog_shows_a_cut_off_body_in_one_line(world, monkeypatch):
    from ltx_wizard.tui.dialogs.download import DownloadDialog
    from ltx_wizard.tui.screens.paths import PathsScreen
    from tests.tui.helpers import make_app, settle, wait_until

    with HostileHub("cut-off") as hub:
        hub.add("Lightricks/LTX-2.3", {CKPT: b"C" * 4000})
        hub.add(GEMMA, {"config.json": b"{}"}, gated=True)
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        (world[0] / "demo").mkdir()
        app = make_app(world[0] / "demo")
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await pilot.press("ctrl+n")
            await wait_until(pilot, lambda: isinstance(app.screen, PathsScreen))
            await pilot.press("f3")
            await wait_until(pilot, lambda: isinstance(app.screen, DownloadDialog))
            await pilot.press("3")
            await wait_until(pilot, lambda: app.screen.index == 0)
            await pilot.press("y")
            await wait_until(pilot, lambda: "Failed" in str(app.screen.query_one("#dl-status").render()))
            status = str(app.screen.query_one("#dl-status").render())
            first = status.splitlines()[0]
            assert "connection kept dropping" in first and "Error" not in first, status
            assert app.screen.index == 0 and not app.screen.busy  # y retries, n skips
    assert _final_files(world[0] / "models") == []
