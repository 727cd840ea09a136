"""The conditioning a production render is fed: what the trainer's validation sample of the same
prompt gets (eval_config.sample_conditions: the prompt's own row, else the run's own file), as the
entry point's flags.

- `first_frame` -> `--image PNG 0 1.0`. A still (PNG or JPEG) is passed as it is; a clip's first
  frame is decoded with PyAV into `outputs/eval/inputs/<category>/NN_<slug>.first-frame.png`, as
  the trainer takes it (validation_runner.py _load_first_frame reads frame 0 with read_video,
  which, like this decode, applies no rotation);
- a video `reference` -> `--video-conditioning PATH 1.0` (the trainer's strength, 1.0);
- `audio_to_video` -> `--audio-path PATH` (the row's own audio file, else its clip, whose sound
  the trainer trained on).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import Any, Sequence

from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.evaluation.eval_config import sample_conditions
from ltx_wizard.core.evaluation.layout import INPUTS, eval_dir
from ltx_wizard.core.evaluation.prompts import EvalPrompt
from ltx_wizard.core.io.safe_fs import check_inside

STILLS = (".png", ".jpg", ".jpeg")  # what --image reads as it is (args.py ImageAction)
STRENGTH = "1.0"


class InputError(WizardError):
    """A conditioning file could not be read or turned into the pipeline's input."""


def first_frame_png(source: Path, target: Path) -> Path:
    """Frame 0 of `source` (a clip, or an image PyAV reads) as a PNG at `target`, written through
    a temp file and a rename."""
    try:
        import av
    except ImportError:
        raise InputError("PyAV (av) is not installed: pip install av") from None
    try:
        with av.open(str(source)) as container:
            if not container.streams.video:
                raise InputError(f"{source} has no picture to take a first frame from")
            frame = next(container.decode(video=0)).reformat(format="rgb24")
        codec = av.CodecContext.create("png", "w")
        codec.width, codec.height, codec.pix_fmt = frame.width, frame.height, "rgb24"
        data = b"".join(bytes(p) for p in [*codec.encode(frame), *codec.encode(None)])
    except (av.FFmpegError, OSError, StopIteration, ValueError) as exc:
        raise InputError(f"cannot take the first frame of {source}: {exc}") from None
    _write_bytes(target, data)
    return target


def _write_bytes(target: Path, data: bytes) -> None:
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, target)
        tmp = None
    except OSError as exc:
        raise InputError(f"cannot write {target}: {exc.strerror or exc}") from None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def _still(run_dir: Path, source: Path, stem: str) -> Path:
    if source.suffix.lower() in STILLS:
        return source
    target = check_inside(run_dir, eval_dir(run_dir) / INPUTS / f"{stem}.first-frame.png")
    return first_frame_png(source, target)


def _audio_words(path: str, prompt: EvalPrompt) -> str:
    own = not prompt.media.get("audio") and path == prompt.media.get("video")
    return f"audio: {path}" + (" (the clip's own sound)" if own else "")


def described(template: Sequence[dict[str, Any]], prompt: EvalPrompt) -> str:
    """What a prompt's renders are fed, in words, before any first frame is decoded (the job's
    plan as printed, and the trainer's own renders)."""
    words = []
    for cond in sample_conditions(template, prompt.media):
        kind = cond.get("type")
        if kind == "first_frame":
            words.append(f"first frame: {cond['image_or_video']}")
        elif kind == "reference" and cond.get("video"):
            words.append(f"reference video: {cond['video']}")
        elif kind == "audio_to_video":
            words.append(_audio_words(str(cond["audio"]), prompt))
        elif kind == "video_to_audio":
            words.append(f"video: {cond['video']}")
    return "; ".join(words)


def inputs(
    run_dir: Path, template: Sequence[dict[str, Any]], prompt: EvalPrompt, stem: str
) -> tuple[list[str], str]:
    """(the flags, what they are in words) for one prompt's production renders."""
    args: list[str] = []
    words: list[str] = []
    for cond in sample_conditions(template, prompt.media):
        kind = cond.get("type")
        if kind == "first_frame":
            source = Path(str(cond["image_or_video"]))
            still = _still(Path(run_dir), source, stem)
            args += ["--image", str(still), "0", STRENGTH]
            words.append(f"first frame: {source}" + (f" -> {still}" if still != source else ""))
        elif kind == "reference" and cond.get("video"):
            args += ["--video-conditioning", str(cond["video"]), STRENGTH]
            words.append(f"reference video: {cond['video']}")
        elif kind == "audio_to_video":
            args += ["--audio-path", str(cond["audio"])]
            words.append(_audio_words(str(cond["audio"]), prompt))
    return args, "; ".join(words)
