"""Issue 43, Deliver 2: the clip-check cache read and written like any foreign file.

A link planted at the cache path is never written through; a FIFO there never blocks a check;
a line nested 5,000 deep or a link to /dev/zero only costs a re-read; the file is pruned to its
caps, oldest first; a clip rewritten with its size and mtime put back is read again; two
processes writing at once lose and tear nothing.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from ltx_wizard.core.dataset import clip_cache, clip_probe
from ltx_wizard.core.dataset.clip_cache import FILE_NAME, LINE, FactsCache
from ltx_wizard.core.dataset.clip_probe import probe_clips
from tests.core.dataset.test_clip_probe import make_video

ROOT = Path(__file__).resolve().parents[2]


def _clips(folder: Path, n: int) -> list[Path]:
    """n real tiny clips: one encoded, the rest copies (each its own file, inode and path)."""
    folder.mkdir(parents=True, exist_ok=True)
    first = make_video(folder / "c0000.mp4", frames=5)
    data = first.read_bytes()
    paths = [first]
    for i in range(1, n):
        path = folder / f"c{i:04d}.mp4"
        path.write_bytes(data)
        paths.append(path)
    return paths


def _counting(monkeypatch) -> list[Path]:
    calls: list[Path] = []
    real = clip_probe.probe_clip
    monkeypatch.setattr(clip_probe, "probe_clip", lambda p: calls.append(p) or real(p))
    return calls


def _bounded(fn, limit_s: float = 60.0):
    """Runs fn on a thread; fails when it is still running after limit_s (a hang, not a wait)."""
    out: list[object] = []
    worker = threading.Thread(target=lambda: out.append(fn()), daemon=True)
    worker.start()
    worker.join(limit_s)
    assert not worker.is_alive(), f"{fn} still running after {limit_s} s"
    return out[0]


def test_a_link_at_the_cache_path_never_gets_lines_appended_to_its_target(tmp_path):
    cache_dir, target = tmp_path / "cache", tmp_path / "outside.txt"
    cache_dir.mkdir()
    target.write_text("precious\n")
    (cache_dir / FILE_NAME).symlink_to(target)
    facts = probe_clips(_clips(tmp_path / "v", 2), cache=FactsCache(cache_dir))
    assert all(f.readable for f in facts)
    assert target.read_text() == "precious\n"
    assert (cache_dir / FILE_NAME).is_symlink()


def test_a_fifo_at_the_cache_path_blocks_neither_the_read_nor_the_write(tmp_path):
    cache_dir = tmp_path / "cache"
    cache_dir.mkdir()
    os.mkfifo(cache_dir / FILE_NAME)
    paths = _clips(tmp_path / "v", 2)
    facts = _bounded(lambda: probe_clips(paths, cache=FactsCache(cache_dir)))
    assert [f.frames for f in facts] == [5, 5]


def test_a_deep_line_an_endless_line_or_dev_zero_only_cost_a_re_read(tmp_path, monkeypatch):
    cache_dir = tmp_path / "cache"
    paths = _clips(tmp_path / "v", 2)
    probe_clips(paths, cache=FactsCache(cache_dir))
    file = cache_dir / FILE_NAME
    good = file.read_bytes()
    deep = b'{"path": ' + b"[" * 5000 + b"]" * 5000 + b"}\n"
    file.write_bytes(deep + b"{" * (200 * 1024) + b"\n" + good + b'{"path": "/x", "key": [1,')
    calls = _counting(monkeypatch)
    assert probe_clips(paths, cache=FactsCache(cache_dir)) and calls == []
    file.unlink()
    file.symlink_to("/dev/zero")
    facts = _bounded(lambda: probe_clips(paths, cache=FactsCache(cache_dir)))
    assert [f.frames for f in facts] == [5, 5] and len(calls) == 2


def test_a_clip_rewritten_with_its_size_and_mtime_put_back_is_read_again(tmp_path, monkeypatch):
    (clip,) = _clips(tmp_path / "v", 1)
    cache = FactsCache(tmp_path / "cache")
    probe_clips([clip], cache=cache)
    calls = _counting(monkeypatch)
    before = os.stat(clip)
    data = bytearray(clip.read_bytes())
    data[-1] ^= 0xFF  # same size, other bytes
    clip.write_bytes(bytes(data))
    os.utime(clip, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert os.stat(clip).st_size == before.st_size and os.stat(clip).st_mtime_ns == before.st_mtime_ns
    probe_clips([clip], cache=FactsCache(tmp_path / "cache"))  # another run: the file's key
    probe_clips([clip], cache=cache)  # this run: the key kept in memory
    assert calls == [clip, clip]


def test_the_cache_is_pruned_to_its_caps_oldest_first(tmp_path, monkeypatch):
    monkeypatch.setattr(clip_cache, "MAX_ENTRIES", 40)
    paths = _clips(tmp_path / "v", 60)
    cache_dir = tmp_path / "cache"
    for path in paths:  # one run per clip: the file holds them oldest first
        probe_clips([path], cache=FactsCache(cache_dir))
    file = cache_dir / FILE_NAME
    kept = [LINE.decode(line, file).path for line in file.read_bytes().splitlines()]
    assert len(kept) <= 40 and kept == [str(p) for p in paths[-len(kept) :]]
    calls = _counting(monkeypatch)
    probe_clips(paths, cache=FactsCache(cache_dir))
    assert calls == paths[: 60 - len(kept)]  # the oldest were dropped: read again
    # bytes: a file far over the cap is read only at its newest end, then cut down
    monkeypatch.setattr(clip_cache, "MAX_ENTRIES", 100_000)
    line_bytes = len(file.read_bytes().splitlines()[-1]) + 1
    monkeypatch.setattr(clip_cache, "MAX_FILE_BYTES", 20 * line_bytes)
    with open(file, "ab") as out:
        out.write(file.read_bytes() * 50)
    FactsCache(cache_dir).lookup(paths)
    assert file.stat().st_size <= 20 * line_bytes


WRITER = r"""
import sys
from pathlib import Path
from ltx_wizard.core.dataset import clip_cache
from ltx_wizard.core.dataset.clip_cache import FactsCache
from ltx_wizard.core.dataset.clip_probe import probe_clips
clip_cache.MAX_FILE_BYTES = int(sys.argv[3])  # small: the writers prune while the other appends
cache_dir, clips = Path(sys.argv[1]), sorted(Path(sys.argv[2]).glob("*.mp4"))
for clip in clips + clips:  # twice: the file outgrows its cap, its distinct clips do not
    probe_clips([clip], cache=FactsCache(cache_dir))
"""


def test_two_processes_at_once_lose_nothing_and_tear_nothing(tmp_path):
    a, b = _clips(tmp_path / "a", 60), _clips(tmp_path / "b", 60)
    cache_dir = tmp_path / "cache"
    probe_clips(a[:1], cache=FactsCache(cache_dir))
    line_bytes = len((cache_dir / FILE_NAME).read_bytes())
    cap = str(line_bytes * 170)  # a prune keeps 3/4 of it: room for the 120 clips, not the 240 lines
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(cache_dir), str(folder), cap], env=env)
        for folder in (tmp_path / "a", tmp_path / "b")
    ]
    assert [p.wait(timeout=300) for p in procs] == [0, 0]
    file = cache_dir / FILE_NAME
    lines = file.read_bytes().splitlines()
    entries = [LINE.decode(line, file) for line in lines]  # not one torn line
    assert {e.path for e in entries} == {str(p) for p in a + b}


@pytest.mark.parametrize("kind", ["link", "fifo"])
def test_a_planted_lock_file_leaves_the_facts_in_memory_only(tmp_path, kind):
    cache_dir, target = tmp_path / "cache", tmp_path / "outside.txt"
    cache_dir.mkdir()
    target.write_text("precious\n")
    lock = cache_dir / f"{FILE_NAME}.lock"
    lock.symlink_to(target) if kind == "link" else os.mkfifo(lock)
    cache = FactsCache(cache_dir)
    facts = _bounded(lambda: probe_clips(_clips(tmp_path / "v", 1), cache=cache))
    assert facts[0].frames == 5 and target.read_text() == "precious\n"
    assert not (cache_dir / FILE_NAME).exists()
