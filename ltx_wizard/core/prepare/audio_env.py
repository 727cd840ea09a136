"""Can the trainer's environment decode the clips' sound? One check, run as the preprocessing
runs: `uv run python` in the checkout, torchaudio.load on one clip with an audio stream.

process_videos.py _load_audio_from_file catches every error of torchaudio.load, logs it at debug
level and returns None: a broken decoder costs the run its audio without a word. torchaudio 2.9
and later read through torchcodec, which loads FFmpeg's shared libraries (libavutil, ...) from
the system; where they are missing the load fails (LTX-2#98).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any, Awaitable, Callable, Mapping

from ltx_wizard.core.base.records import record
from ltx_wizard.core.prepare.scripts import ScriptRunner, run_script

MARK = "LTXWIZ-AUDIO "
TIMEOUT_S = 600.0  # `uv run` may sync the environment first
CHECK = """\
import json, sys
out = {"torchaudio": None, "torchcodec": None, "ok": False, "error": None}
try:
    import torchaudio
    out["torchaudio"] = getattr(torchaudio, "__version__", "?")
except Exception as exc:
    out["error"] = "import torchaudio: %s: %s" % (type(exc).__name__, exc)
else:
    try:
        import torchcodec
        out["torchcodec"] = getattr(torchcodec, "__version__", "?")
    except Exception as exc:
        out["torchcodec_error"] = "%s: %s" % (type(exc).__name__, str(exc)[:400])
    try:
        wav, rate = torchaudio.load(sys.argv[1])
        out.update(ok=True, sample_rate=int(rate), channels=int(wav.shape[0]))
    except Exception as exc:
        out["error"] = "torchaudio.load: %s: %s" % (type(exc).__name__, str(exc)[:600])
print(@MARK@ + json.dumps(out), flush=True)
""".replace("@MARK@", repr(MARK))
FFMPEG_FIX = (
    "install FFmpeg's shared libraries (Debian/Ubuntu: sudo apt-get install -y ffmpeg; "
    "conda: conda install -c conda-forge ffmpeg), then run prepare again"
)


@record
class AudioDecode:
    ok: bool
    clip: str
    detail: str  # versions, or what failed
    fix: str = ""
    # whose environment was checked: the preprocessing's own (a simulated run's is the stand-in's)
    where: str = "the trainer's environment"

    def describe(self) -> str:
        if self.ok:
            return f"{self.where} decodes audio ({self.detail}; checked on {self.clip})"
        return f"{self.where} cannot decode audio: {self.detail}: {self.fix}"


# The check prepare runs: (clip file, its name in the dataset, the check's log) -> the verdict
AudioProbe = Callable[[Path, str, Path], Awaitable[AudioDecode]]


async def check_audio_decode(
    runner: ScriptRunner, clip: Path, label: str, log: Path, env: Mapping[str, str]
) -> AudioDecode:
    lines: list[str] = []
    try:
        code = await asyncio.wait_for(
            run_script(
                runner.python(["-c", CHECK, str(clip)]),
                cwd=runner.trainer_dir,
                env={**env, **runner.env},
                log=log,
                on_line=lines.append,
            ),
            TIMEOUT_S,
        )
    except asyncio.TimeoutError:
        return AudioDecode(
            ok=False,
            clip=label,
            detail=f"the check took over {TIMEOUT_S:.0f} s",
            fix=f"run `uv sync` in the checkout and see {log}",
        )
    found = next((ln[ln.index(MARK) + len(MARK) :] for ln in lines if MARK in ln), None)
    if found is None:
        tail = next((ln.strip() for ln in reversed(lines) if ln.strip()), "no output")
        return AudioDecode(
            ok=False,
            clip=label,
            detail=f"the check did not run (exit {code}: {tail[:200]})",
            fix=f"run `uv sync` in the checkout; see {log}",
        )
    try:
        result = json.loads(found)
    except ValueError:
        return AudioDecode(ok=False, clip=label, detail="the check printed no result", fix=f"see {log}")
    return judge(result, label)


def judge(result: dict[str, Any], label: str) -> AudioDecode:
    if result.get("ok"):
        codec = result.get("torchcodec")
        detail = f"torchaudio {result.get('torchaudio')}" + (f", torchcodec {codec}" if codec else "")
        return AudioDecode(ok=True, clip=label, detail=detail)
    error = str(result.get("error") or result.get("torchcodec_error") or "unknown error")
    lowered = (error + " " + str(result.get("torchcodec_error") or "")).lower()
    if result.get("torchaudio") is None:
        fix = "run `uv sync` in the checkout (torchaudio is a trainer dependency)"
    elif "libtorchcodec" in lowered or "ffmpeg" in lowered or "libav" in lowered:
        fix = FFMPEG_FIX
    elif "torchcodec" in lowered:
        fix = "run `uv sync` in the checkout (torchcodec, which torchaudio reads through, is missing)"
    else:
        fix = "fix the audio decode in the checkout's environment, then run prepare again"
    return AudioDecode(ok=False, clip=label, detail=error.splitlines()[0][:300], fix=fix)
