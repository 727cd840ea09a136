"""Which captioner `caption_videos.py` uses, chosen from what the box has (phases/
prepare-dataset.md, "Choosing a backend"), and the local Qwen3-Omni server's life.

A Gemini key in the environment (GEMINI_API_KEY / GOOGLE_API_KEY, the names caption_videos.py
reads) -> gemini_flash; a server the user named (--vllm-url) -> qwen_omni against it; a GPU with
40 GiB free -> qwen_omni through a server started with scripts/serve_captioner.py (FP8 weights
~31 GiB plus KV cache; it reserves 90 % of the GPU, --gpu-memory-utilization 0.9), health-checked
on /v1/models and stopped once captioning ends, before preprocessing or training; neither ->
no captioner: captions come from a file.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import time
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Callable, Iterator, Mapping

from ltx_wizard.core.base.errors import UsageError, WizardError
from ltx_wizard.core.base.records import record
from ltx_wizard.core.base.text_safety import clean_text, clip
from ltx_wizard.core.prepare.scripts import ScriptRunner, require_options
from ltx_wizard.core.proc.spawn import AsyncSpawned, spawn_async
from ltx_wizard.core.proc.stop import Graces

BACKENDS = ("qwen_omni", "gemini_flash", "none")
KEY_VARS = ("GEMINI_API_KEY", "GOOGLE_API_KEY")  # caption_videos.py --api-key envvar
QWEN_MIN_FREE_GIB = 40.0  # the skill: FP8 fits a 40 GiB GPU
QWEN_MODEL = "Qwen/Qwen3-Omni-30B-A3B-Thinking"  # serve_captioner.py DEFAULT_MODEL
MODEL_DISK_GIB = 65.0  # serve_captioner.py MODEL_DISK_GIB: the first download
SERVER_SCRIPT = "serve_captioner.py"
START_TIMEOUT_S = 1800.0  # the first start downloads ~65 GiB
POLL_S = 2.0
FIRST_POLL_S = 0.1  # a server whose model is on disk answers in seconds: ask early, then every POLL_S
# vLLM and its workers leave on SIGINT or SIGTERM; the GPU memory it reserved must be free again
# before preprocessing starts, so what is left after these is SIGKILLed.
SERVER_GRACES = Graces(interrupt_s=10.0, term_s=30.0)


@record
class GpuFree:
    index: int
    name: str
    free_gib: float | None  # None: not read (then the total stands in, said so)
    total_gib: float | None = None


@record
class Knobs:
    """How the user sets each captioner input where they are, for the advice to name: the command
    line's flags (these defaults), or the Prepare screen's fields (tui/screens/prepare/choices.py)."""

    url: str = "--vllm-url URL"
    gemini: str = "--captioner gemini_flash"
    captions: str = "--captions FILE"


CLI_KNOBS = Knobs()
MAX_URL, MAX_HOST = 2048, 253  # a longer URL or host name is no server's address


def check_server_url(text: str, *, knobs: Knobs = CLI_KNOBS) -> str:
    """A captioner server's base URL as scripts/caption_videos.py's --vllm-url takes it (its default
    http://127.0.0.1:8001/v1, serve_captioner.py's port; the chat completions route goes after it):
    http(s)://host[:port][/path], no query. Returns it without a trailing slash; a UsageError says
    what is wrong and what one looks like."""
    url = text.strip()
    said = f"the captioner server URL {clip(clean_text(url), 80)!r} ({knobs.url})"
    example = "its base URL, e.g. http://10.0.0.5:8001/v1"
    try:
        parts = urllib.parse.urlsplit(url)
        _ = parts.port  # raises on a port that is not a number in range
    except ValueError as exc:
        raise UsageError(f"{said} is not a URL ({clip(exc, 80)}): give {example}") from None
    if len(url) > MAX_URL or len(parts.hostname or "") > MAX_HOST:  # DNS: 253 at most
        raise UsageError(f"{said} is too long ({len(url):,} characters): give {example}")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(f"{said} is not an http:// or https:// address with a host: give {example}")
    if parts.query or parts.fragment or any(c.isspace() for c in url):
        raise UsageError(f"{said} has spaces, a ? or a #: give {example}")
    return url.rstrip("/")


@record
class CaptionerChoice:
    backend: str  # one of BACKENDS
    why: str
    vllm_url: str | None = None  # qwen_omni: the server's base URL (…/v1)
    start_server: bool = False  # qwen_omni without a URL: the wizard starts one
    gpu: int | None = None  # the GPU the started server runs on
    notes: tuple[str, ...] = ()
    label: str = ""  # a few words for a chooser ("qwen_omni, GPU 0 (80 GiB free)")


def has_key(env: Mapping[str, str]) -> str | None:
    return next((name for name in KEY_VARS if env.get(name, "").strip()), None)


def choose_captioner(
    requested: str | None,
    env: Mapping[str, str],
    gpus: list[GpuFree],
    *,
    vllm_url: str | None = None,
    captions_file: bool = False,
    knobs: Knobs = CLI_KNOBS,
) -> CaptionerChoice:
    """The backend for this box; raises a UsageError for a choice the box cannot run. `knobs`:
    how the advice names the settings (the flags, or the screen's fields)."""
    if requested is not None and requested not in BACKENDS:
        raise UsageError(f"--captioner {requested!r}: choose one of {', '.join(BACKENDS)}")
    key = has_key(env)
    big = _roomiest(gpus)
    if vllm_url:  # checked whatever is chosen: a typo is said, not ignored
        vllm_url = check_server_url(vllm_url, knobs=knobs)
    if requested == "none" or (requested is None and captions_file):
        return CaptionerChoice(
            backend="none", why="captions from your file", label="none: captions from your file"
        )
    if requested == "gemini_flash" or (requested is None and key and not vllm_url):
        why = (
            f"{key} is set"
            if key
            else "asked for; no GEMINI_API_KEY or GOOGLE_API_KEY set, so "
            "the script tries Google Cloud credentials (gcloud / Vertex AI)"
        )
        return CaptionerChoice(
            backend="gemini_flash", why=why, label=f"gemini_flash ({key or 'Google Cloud credentials'})"
        )
    if vllm_url:
        return CaptionerChoice(
            backend="qwen_omni",
            vllm_url=vllm_url,
            why=f"the Qwen3-Omni server at {vllm_url}",
            label=f"qwen_omni at {vllm_url}",
        )
    if big is not None and _free(big) >= QWEN_MIN_FREE_GIB:
        return CaptionerChoice(
            backend="qwen_omni",
            start_server=True,
            gpu=big.index,
            why=f"GPU {big.index} ({big.name}) has {_free(big):.0f} GiB free: the local "
            f"Qwen3-Omni server (scripts/{SERVER_SCRIPT}, FP8) fits",
            notes=_server_notes(big, env),
            label=f"qwen_omni, GPU {big.index} ({_free(big):.0f} GiB free)",
        )
    return _none_here(requested, big, knobs)


def _none_here(requested: str | None, big: GpuFree | None, knobs: Knobs) -> CaptionerChoice:
    """No key, no URL, no GPU with room: qwen_omni asked for is refused, else captions from a file."""
    seen = f"GPU {big.index} has {_free(big):.0f} GiB free" if big is not None else "no GPU"
    if requested == "qwen_omni":
        raise UsageError(
            f"the local Qwen3-Omni server needs a GPU with {QWEN_MIN_FREE_GIB:.0f} "
            f"GiB free ({seen}): give a server elsewhere ({knobs.url}), or "
            f"{knobs.gemini} with GEMINI_API_KEY set"
        )
    return CaptionerChoice(
        backend="none",
        why=f"no captioner on this box: no GEMINI_API_KEY or GOOGLE_API_KEY, and {seen} (the "
        f"local Qwen3-Omni server needs {QWEN_MIN_FREE_GIB:.0f}); captions must come from a "
        f"file ({knobs.captions}), or a server elsewhere ({knobs.url}), or set GEMINI_API_KEY "
        "(https://aistudio.google.com/apikey)",
        label="none here: captions from your file",
    )


def _roomiest(gpus: list[GpuFree]) -> GpuFree | None:
    return max(gpus, key=_free, default=None)


def _free(gpu: GpuFree) -> float:
    value = gpu.free_gib if gpu.free_gib is not None else gpu.total_gib
    return value or 0.0


def _server_notes(gpu: GpuFree, env: Mapping[str, str]) -> tuple[str, ...]:
    notes = []
    if gpu.free_gib is None:
        notes.append(f"GPU {gpu.index}'s free memory was not read: its total stands in")
    hf_home = Path(env.get("HF_HOME") or Path(env.get("HOME", "~")).expanduser() / ".cache" / "huggingface")
    cached = hf_home / "hub" / ("models--" + QWEN_MODEL.replace("/", "--"))
    if not cached.is_dir():
        probe = hf_home
        while not probe.exists() and probe.parent != probe:
            probe = probe.parent
        with contextlib.suppress(OSError):
            st = os.statvfs(probe)
            free = st.f_bavail * st.f_frsize / 2**30
            if free < MODEL_DISK_GIB:
                notes.append(
                    f"the model's first download needs ~{MODEL_DISK_GIB:.0f} GiB under "
                    f"{hf_home}, which has {free:.0f} GiB free: set HF_HOME to a larger "
                    "disk, or the download fails part way"
                )
    return tuple(notes)


def free_port() -> int:
    """A free port on 127.0.0.1 that the system picks. Not the script's default (8001): two
    wizards on one box (two SSH sessions preparing) would both pick it, and the second could take
    the first's server, answering there, for its own until the first stops it."""
    with contextlib.suppress(OSError), socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        bound: int = sock.getsockname()[1]
        return bound
    raise WizardError("no free TCP port on 127.0.0.1 for the captioner server")


def poll_pauses() -> Iterator[float]:
    """The pauses between readiness checks: doubling from FIRST_POLL_S up to POLL_S."""
    pause = FIRST_POLL_S
    while True:
        yield pause
        pause = min(2 * pause, POLL_S)


def server_ready(url: str, timeout_s: float = 5.0) -> bool:
    """The server at `url` (…/v1) answers /models with the captioner's model (or any model)."""
    try:
        with urllib.request.urlopen(f"{url.rstrip('/')}/models", timeout=timeout_s) as reply:
            data = json.loads(reply.read(1 << 20) or b"{}")
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and bool(data.get("data"))


class CaptionerServer:
    """scripts/serve_captioner.py started as a child of core/proc, its output in `log`."""

    def __init__(
        self,
        runner: ScriptRunner,
        log: Path,
        env: Mapping[str, str],
        *,
        gpu: int | None = None,
        port: int | None = None,
    ) -> None:
        self.runner, self.log, self.env = runner, log, dict(env)
        self.port = port or free_port()
        self.gpu = gpu
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self.proc: asyncio.subprocess.Process | None = None
        self._child: AsyncSpawned | None = None

    def args(self) -> list[str]:
        return ["--host", "127.0.0.1", "--port", str(self.port)]

    async def start(
        self, on_wait: Callable[[float], None] = lambda s: None, timeout_s: float = START_TIMEOUT_S
    ) -> str:
        require_options(self.runner, SERVER_SCRIPT, ["--host", "--port"])
        env = {**self.env, **self.runner.env}
        if self.gpu is not None:
            env["CUDA_VISIBLE_DEVICES"] = str(self.gpu)
        self.log.parent.mkdir(parents=True, exist_ok=True)
        argv = self.runner.argv(SERVER_SCRIPT, self.args())
        with open(self.log, "ab") as sink:
            sink.write(("$ " + " ".join(argv) + "\n").encode())
            sink.write(f"# ltx-wizard: serving on {self.url} (a free port)\n".encode())
            sink.flush()
            # registered: a wizard leaving mid-way (a signal, the app quitting) leaves no server
            self._child = await spawn_async(
                argv,
                env=env,
                graces=SERVER_GRACES,
                cwd=str(self.runner.trainer_dir),
                stdout=sink,
                stderr=sink,
            )
        self.proc = self._child.proc
        started = time.monotonic()
        pauses = poll_pauses()
        while time.monotonic() - started < timeout_s:
            if await asyncio.to_thread(server_ready, self.url, POLL_S) and self.proc.returncode is None:
                return self.url  # ours, alive: not another server that took the port first
            if self.proc.returncode is not None:
                raise WizardError(
                    f"the captioner server stopped (exit {self.proc.returncode}) "
                    f"before it answered; its output is in {self.log}"
                )
            await asyncio.sleep(next(pauses))
            on_wait(time.monotonic() - started)  # the checks' own time counts too
        await self.stop()
        raise WizardError(
            f"the captioner server did not answer on {self.url} within "
            f"{timeout_s / 60:.0f} min; its output is in {self.log}"
        )

    async def stop(self) -> None:
        """The stop rule (core/proc/stop.py) on the server and its workers (SERVER_GRACES)."""
        child, self._child, self.proc = self._child, None, None
        if child is not None:
            await child.stop()
