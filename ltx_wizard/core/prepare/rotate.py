"""A rotated copy of a phone clip, in the run folder, made with PyAV (what the trainer reads
video with); the original is only read.

The trainer decodes frames as stored and ignores the display matrix (ltx_trainer/video_utils.py
read_video), so a clip shot in portrait and stored landscape trains sideways. The copy holds the
frames turned the way a player shows them (the display matrix's counter-clockwise degrees, as
ffmpeg's autorotate turns them: 90 -> transpose=cclock, 270 -> transpose=clock, 180 -> both
flips) and no matrix; the sound is copied as it is.
"""

from __future__ import annotations

import contextlib
import os
from fractions import Fraction
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.io.safe_fs import check_inside

if TYPE_CHECKING:  # PyAV is imported where a copy is made
    from av.container import OutputContainer
    from av.filter import FilterContext, Graph
    from av.video.frame import VideoFrame
    from av.video.stream import VideoStream

Steps = tuple[tuple[str, str], ...]  # the filters that turn a clip upright: (name, argument)

ROTATED = "rotated"  # the copies' folder under dataset/
FILTERS: dict[int, Steps] = {
    90: (("transpose", "cclock"),),
    270: (("transpose", "clock"),),
    180: (("hflip", ""), ("vflip", "")),
}
CRF = "18"  # ltx_trainer/video_utils.py save_video's quality


def rotated_name(rel: str) -> str:
    """Where the copy of the staged clip `rel` goes, under dataset/."""
    return f"{ROTATED}/{Path(rel).with_suffix('.mp4').as_posix().split('/', 1)[-1]}"


def make_rotated_copy(source: Path, rotation: int, dest: Path, run_dir: Path) -> Path:
    """Write `dest` (inside the run folder) from `source` turned upright; atomic."""
    steps = FILTERS.get(rotation % 360)
    if steps is None:
        raise WizardError(f"{source}: rotation {rotation} is not a quarter turn")
    check_inside(run_dir, dest)
    tmp = dest.with_name(f".{dest.name}.part.mp4")
    try:
        _copy(source, tmp, steps)
        os.replace(tmp, dest)
    except WizardError:
        raise
    except Exception as exc:  # PyAV's errors: one line naming the clip
        raise WizardError(
            f"could not make the rotated copy of {source}: "
            f"{' '.join(str(exc).split())[:200] or type(exc).__name__}"
        ) from None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
    return dest


def _copy(source: Path, dest: Path, steps: Steps) -> None:
    import av

    with av.open(str(source)) as src, av.open(str(dest), "w", format="mp4") as out:
        video = src.streams.video[0]
        rate = video.average_rate or video.base_rate or Fraction(24)
        audio = src.streams.audio[0] if src.streams.audio else None
        graph, sink = _graph(av, video, steps)
        encoder = out.add_stream("libx264", rate=rate)
        encoder.pix_fmt, encoder.options = "yuv420p", {"crf": CRF}
        width, height = video.codec_context.width, video.codec_context.height
        quarter = steps[0][0] == "transpose"  # set before the first packet opens the file
        encoder.width, encoder.height = (height, width) if quarter else (width, height)
        audio_out = out.add_stream_from_template(audio) if audio is not None else None
        streams = [video] + ([audio] if audio is not None else [])
        index = 0
        for packet in src.demux(*streams):
            if packet.stream is audio:
                if packet.dts is not None:
                    packet.stream = audio_out
                    out.mux(packet)
                continue
            for frame in packet.decode():
                index = _encode(graph, sink, frame, encoder, out, index, rate)
        graph.vpush(None)
        _drain(sink, encoder, out, index, rate)
        for pkt in encoder.encode():
            out.mux(pkt)


def _graph(av: ModuleType, video: VideoStream, steps: Steps) -> tuple[Graph, FilterContext]:
    graph = av.filter.Graph()
    node = graph.add_buffer(template=video)
    for name, arg in steps:
        following = graph.add(name, arg) if arg else graph.add(name)
        node.link_to(following)
        node = following
    sink = graph.add("buffersink")
    node.link_to(sink)
    graph.configure()
    return graph, sink


def _encode(
    graph: Graph,
    sink: FilterContext,
    frame: VideoFrame,
    encoder: VideoStream,
    out: OutputContainer,
    index: int,
    rate: Fraction,
) -> int:
    graph.vpush(frame)
    return _drain(sink, encoder, out, index, rate)


def _drain(
    sink: FilterContext, encoder: VideoStream, out: OutputContainer, index: int, rate: Fraction
) -> int:
    import av

    while True:
        try:
            turned = sink.pull()
        except (av.BlockingIOError, av.EOFError):
            return index
        assert isinstance(turned, av.VideoFrame)  # a video graph's sink gives video frames
        turned.pts, turned.time_base = index, Fraction(1) / Fraction(rate)
        for pkt in encoder.encode(turned):
            out.mux(pkt)
        index += 1
