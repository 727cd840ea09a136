"""Line streaming (core/proc/lines.py): one path from a child's output to a log and to lines,
each line capped, in time linear in the output even when it never ends a line."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ltx_wizard.core.io.safe_fs import open_append, write_all
from ltx_wizard.core.prepare.scripts import run_script
from ltx_wizard.core.preprocess.run import run_logged as run_preprocess
from ltx_wizard.core.proc.lines import MAX_LINE_BYTES, LineSplitter, run_logged
from ltx_wizard.core.proc.table import group_alive


def test_the_splitter_cuts_long_lines_at_the_cap_and_keeps_nothing_past_it():
    split = LineSplitter(cap=8, cr_ends_line=True)
    assert split.feed(b"ab") == []
    assert split.feed(b"c\r0123456789") == [(b"abc", False)]
    for _ in range(1000):  # a bar that never ends its line: nothing grows past the cap
        assert split.feed(b"x" * 100) == []
        assert len(split._buf) <= 8
    assert split.feed(b"yy\nlast") == [(b"01234567", True)]
    assert split.end() == (b"last", False) and split.end() is None


def test_without_cr_ends_line_a_carriage_return_stays_in_the_line():
    split = LineSplitter()
    assert split.feed(b"a\rb\r\nc\n") == [(b"a\rb\r", False), (b"c", False)]


_ENDLESS = "import sys; sys.stdout.write('x' * (8 << 20)); sys.stdout.write('\\ndone\\n')"


async def test_a_prepare_script_without_newlines_is_logged_whole_and_handed_on_cut(tmp_path):
    # The old read loop joined every chunk to the unfinished line and split it again: a script
    # that drew a bar without line ends grew one unbounded line, in quadratic time.
    log, lines = tmp_path / "logs" / "s.log", []
    code = await run_script(
        [sys.executable, "-c", _ENDLESS], cwd=tmp_path, env={}, log=log, on_line=lines.append
    )
    assert code == 0 and lines[-1] == "done"
    assert len(lines) == 2 and len(lines[0]) == MAX_LINE_BYTES
    head, body, tail = log.read_bytes().split(b"\n", 2)
    assert head.startswith(b"$ " + sys.executable.encode()) and body == b"x" * (8 << 20)
    assert tail == b"done\n"


async def test_preprocess_reads_its_bars_line_by_line_from_the_same_path(tmp_path):
    script = (
        "import sys\n"
        "for i in range(1, 4): sys.stdout.write(f'Processing videos ━━ {i}/3\\r')\n"
        "print('INFO Audio processing: 2 videos with audio, 1 videos without audio')\n"
    )
    moves: list[str] = []
    log = tmp_path / "p.log"
    code, parser = await run_preprocess(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        env={},
        log=log,
        on_progress=lambda p: moves.append(p.line()),
        root=tmp_path,
    )
    assert code == 0 and parser.audio_counts == (2, 1)
    assert [m.split(" (")[0] for m in moves] == ["videos 1/3", "videos 2/3", "videos 3/3"]
    assert log.read_text().splitlines()[0].startswith("$ ")


async def test_a_failing_callback_stops_the_child_and_its_group(tmp_path):
    pids: list[int] = []
    script = "import os, time\nprint(os.getpid(), flush=True)\ntime.sleep(60)\n"

    def on_line(line: str) -> None:
        pids.append(int(line))
        raise RuntimeError("consumer bug")

    log = tmp_path / "c.log"
    with open_append(log, binary=True) as sink, pytest.raises(RuntimeError, match="consumer bug"):
        await run_logged(
            [sys.executable, "-c", script],
            cwd=tmp_path,
            env={},
            write=lambda data: write_all(sink.fileno(), data, Path(log)),
            on_line=on_line,
        )
    assert pids and not group_alive(pids[0])
