"""A stand-in for the vLLM server scripts/serve_captioner.py starts: the OpenAI-compatible routes
caption_videos.py (and the wizard's health check) use, answering with a caption of what the clip
really holds, read with PyAV (size, frames, rate, colour, sound). No model, no GPU, no network
beyond 127.0.0.1. The look-alike checkout's serve_captioner.py runs it; under --simulate on a
real checkout the wizard runs it in place of that script (`python -m ltx_wizard.demo.sim.captioner
--host H --port P`, simulated_gpu_runner); tests start it in a thread.

Routes: GET /health, GET /v1/models, POST /v1/chat/completions (the model must be the one
served, as vLLM refuses another; a `file://` video or image URL in the message). A file whose
name contains LTX_WIZARD_SIM_CAPTION_FAIL gets a 500, as a server error reads;
LTX_WIZARD_SIM_CAPTION_DELAY makes each caption take that many seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlparse

MODEL = "Qwen/Qwen3-Omni-30B-A3B-Thinking"
FAIL_ENV = "LTX_WIZARD_SIM_CAPTION_FAIL"
DELAY_ENV = "LTX_WIZARD_SIM_CAPTION_DELAY"  # seconds each caption takes (a slow model)
SHORT_INSTRUCTION = 300  # an instruction shorter than the default prompts is echoed back


def describe(path: Path) -> str:
    """One sentence of what the clip holds, as a captioner would see it."""
    import av

    with av.open(str(path)) as container:
        video = container.streams.video[0]
        frame = next(container.decode(video=0))
        pixel = bytes(frame.reformat(width=1, height=1, format="rgb24").planes[0])[:3]
        frames = video.frames or "several"
        rate = float(video.average_rate or 0)
        sound = (
            "with a steady tone on the soundtrack"
            if container.streams.audio
            else "in silence; no music and no speech"
        )
    return (
        f"A {_colour(pixel)} scene, {frame.width}x{frame.height}, {frames} frames at {rate:.0f} fps, {sound}."
    )


def _colour(rgb: bytes) -> str:
    r, g, b = rgb
    if max(r, g, b) < 50:
        return "dark"
    if min(r, g, b) > 200:
        return "bright white"
    names = {"red": r, "green": g, "blue": b}
    return f"mostly {max(names, key=lambda name: names[name])}"


class _Handler(BaseHTTPRequestHandler):
    server_version = "sim-vllm/0.1"
    model = MODEL

    def log_message(self, fmt, *args) -> None:
        pass

    def _reply(self, code: int, body: dict | str) -> None:
        data = (json.dumps(body) if isinstance(body, dict) else body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.path.rstrip("/") == "/health":
            self._reply(200, "")
        elif self.path.rstrip("/") == "/v1/models":
            self._reply(200, {"object": "list", "data": [{"id": self.model, "object": "model"}]})
        else:
            self._reply(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:
        self.server.requests.append(self.path)  # type: ignore[attr-defined]
        if self.path.rstrip("/") != "/v1/chat/completions":
            self._reply(404, {"error": {"message": f"no route {self.path}"}})
            return
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        if body.get("model") != self.model:
            self._reply(404, {"error": {"message": f"The model `{body.get('model')}` does not exist."}})
            return
        media, text = _parts(body)
        time.sleep(float(os.environ.get(DELAY_ENV) or 0))
        fail = os.environ.get(FAIL_ENV)
        if media is None or (fail and fail in media.name):
            self._reply(500, {"error": {"message": f"could not process {media}"}})
            return
        caption = describe(media)
        if text and len(text) < SHORT_INSTRUCTION:
            caption += f" ({text})"
        content = json.dumps({"combined_caption_english": caption})
        self._reply(
            200,
            {
                "id": "sim",
                "object": "chat.completion",
                "model": self.model,
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": "stop",
                        "message": {"role": "assistant", "content": content},
                    }
                ],
            },
        )


def _parts(body: dict) -> tuple[Path | None, str]:
    media, text = None, ""
    for message in body.get("messages") or []:
        for part in message.get("content") or []:
            kind = part.get("type")
            if kind in ("video_url", "image_url"):
                media = Path(unquote(urlparse(part[kind]["url"]).path))
            elif kind == "text":
                text = part.get("text", "")
    return media, text


def make_server(host: str = "127.0.0.1", port: int = 0, model: str = MODEL) -> ThreadingHTTPServer:
    """`.requests` lists the path of every POST it was sent (a test counts the captions asked)."""
    handler = type("Handler", (_Handler,), {"model": model})
    server = ThreadingHTTPServer((host, port), handler)
    server.requests = []  # type: ignore[attr-defined]
    return server


def start_in_thread(
    host: str = "127.0.0.1", port: int = 0, model: str = MODEL
) -> tuple[ThreadingHTTPServer, str]:
    """A running server and its base URL (…/v1); call .shutdown() when done (tests)."""
    server = make_server(host, port, model)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://{host}:{server.server_address[1]}/v1"


def serve(host: str, port: int, model: str = MODEL) -> None:
    """Serve until SIGTERM (the look-alike serve_captioner.py)."""
    import signal

    server = make_server(host, port, model)
    signal.signal(signal.SIGTERM, lambda *a: threading.Thread(target=server.shutdown).start())
    print(f"INFO:     Uvicorn running on http://{host}:{port} (sim)", flush=True)
    server.serve_forever()


def simulated_gpu_runner(trainer_dir: Path, uv_path: str | None):
    """--simulate on your checkout: its data scripts run in its own environment (`uv run
    python`, as without --simulate); only scripts/serve_captioner.py, the one that needs the GPU
    (vLLM), is replaced by this stand-in."""
    from dataclasses import replace

    from ltx_wizard.core.prepare.captioner import SERVER_SCRIPT
    from ltx_wizard.core.prepare.scripts import uv_runner

    runner = uv_runner(trainer_dir, uv_path)
    return replace(runner, stand_ins={SERVER_SCRIPT: (sys.executable, "-m", __name__)})


def lookalike_runner(trainer_dir: Path, uv_path: str | None):
    """--demo: the look-alike checkout has no environment of its own; its scripts run with
    this Python (they read clips with PyAV, as the wizard does)."""
    from ltx_wizard.core.prepare.scripts import ScriptRunner

    return ScriptRunner(trainer_dir=trainer_dir, prefix=(sys.executable,))


def main(argv: list[str] | None = None) -> int:
    """In place of serve_captioner.py: its --host/--port/--model, the rest ignored."""
    parser = argparse.ArgumentParser(prog="sim-captioner")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8001)
    parser.add_argument("--model", default=MODEL)
    args, _ = parser.parse_known_args(argv)
    serve(args.host, args.port, args.model)
    return 0


if __name__ == "__main__":
    sys.exit(main())
