"""Helpers for the prepare tests: a look-alike checkout with the trainer's data scripts, real
tiny clips made with PyAV, the runner that runs those scripts with this Python (no uv needed),
and a scripted Asker that records every question it is asked."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from ltx_wizard.core.prepare.captioner import GpuFree
from ltx_wizard.core.prepare.prepare_request import build_prepare_request
from ltx_wizard.core.prepare.scripts import ScriptRunner
from ltx_wizard.core.prepare.prepare_session import PrepareSession
from ltx_wizard.demo.lookalike_checkout import make_checkout
from ltx_wizard.demo.lookalike_raw_clips import write_video

H100 = [GpuFree(index=0, name="NVIDIA H100 80GB HBM3", free_gib=79.0, total_gib=79.6)]
SMALL_GPU = [GpuFree(index=0, name="NVIDIA GeForce RTX 4090", free_gib=22.0, total_gib=23.6)]


def python_runner(trainer_dir: Path, uv: str | None) -> ScriptRunner:
    return ScriptRunner(trainer_dir=trainer_dir, prefix=(sys.executable,))


def uv_on_path(tmp_path: Path, monkeypatch) -> Path:
    """The recorded stand-in uv (tests/setup_standins.py) first on PATH, its `uv run python` this
    Python with this checkout of the wizard importable; returns its folder (uv_calls reads it)."""
    from tests.setup_standins import write_uv

    folder = tmp_path / "uv-bin"
    write_uv(folder)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setenv("STANDIN_PYTHONPATH", str(Path(__file__).resolve().parent.parent))
    return folder


def checkout(tmp_path: Path) -> Path:
    return make_checkout(tmp_path / "LTX-2")


def raw_folder(tmp_path: Path) -> Path:
    """A long clip with hard cuts, a rotated phone clip, a silent clip and a plain one."""
    folder = tmp_path / "raw"
    write_video(folder / "long_take.mp4", frames=288, scenes=3)
    write_video(folder / "phone.mp4", frames=60, rotation=-90, colour=3)
    write_video(folder / "quiet.mp4", frames=60, audio=False, colour=1)
    write_video(folder / "beach.mp4", frames=72, colour=2)
    return folder


def snapshot(folder: Path) -> dict[str, tuple[int, int, bytes]]:
    """Every file under `folder`: (size, mtime_ns, bytes), to prove nothing changed."""
    out = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            st = path.stat()
            out[str(path)] = (st.st_size, st.st_mtime_ns, path.read_bytes())
    return out


class Asker:
    """Answers from `answers` (topic -> bool; "spot" -> list of verdicts; "holdout" -> int) and
    keeps every question and line."""

    def __init__(self, **answers) -> None:
        self.answers = answers
        self.asked: list[tuple[str, str]] = []
        self.lines: list[str] = []
        self.shown: list[list[tuple[str, str]]] = []
        self.progress_seen: list[tuple[str, int, int]] = []

    async def confirm(self, question: str, *, topic: str) -> bool:
        self.asked.append((topic, question))
        return self.answers.get(topic, True)

    async def approve_captions(self, shown):
        self.shown.append(list(shown))
        verdicts = self.answers.get("spot", [True])
        return verdicts[min(len(self.shown), len(verdicts)) - 1]

    async def choose_holdout(self, question: str, total: int) -> int:
        self.asked.append(("holdout", question))
        return self.answers.get("holdout", 1)

    def say(self, line: str) -> None:
        self.lines.append(line)

    def progress(self, stage: str, done: int, total: int) -> None:
        self.progress_seen.append((stage, done, total))

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


def session(
    tmp_path: Path,
    source: Path,
    asker: Asker,
    *,
    gpus=H100,
    env: dict | None = None,
    audio_probe=None,
    **request,
) -> PrepareSession:
    env = {
        **{k: v for k, v in os.environ.items() if k not in ("GEMINI_API_KEY", "GOOGLE_API_KEY")},
        **(env or {}),
    }
    req = build_prepare_request(
        {
            "source": str(source),
            "workspace": str(tmp_path / "ws"),
            "run_name": request.pop("run_name", "run"),
            "trainer_root": str(request.pop("trainer_root", tmp_path / "LTX-2")),
            **request,
        }
    )
    return PrepareSession(
        req, asker, gpus=lambda: list(gpus), runner=python_runner, env=env, audio_probe=audio_probe
    )


def record_servers(monkeypatch) -> list[int]:
    """The pids of the captioner servers this test starts. A server is checked by its pid: its
    port, once free, may be taken by a server of another test (another xdist worker)."""
    from ltx_wizard.core.prepare import captioner

    servers: list[int] = []
    real_spawn = captioner.spawn_async

    async def spawn_recorded(*args, **kwargs):
        spawned = await real_spawn(*args, **kwargs)
        servers.append(spawned.pid)
        return spawned

    monkeypatch.setattr(captioner, "spawn_async", spawn_recorded)
    return servers
