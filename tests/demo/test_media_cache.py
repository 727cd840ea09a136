"""The demo's media cache (demo/media_cache.py): a file drawn once is copied, never linked, and an
entry that is not a plain file of a sane size is drawn again instead of being trusted."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from ltx_wizard.demo import media_cache
from ltx_wizard.demo.lookalike_media import write_clip
from ltx_wizard.demo.tiny_video import write_render


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv(media_cache.CACHE_ENV, str(folder))
    return folder


class Drawer:
    """A draw function that counts its calls and writes `body`."""

    def __init__(self, body: bytes = b"drawn") -> None:
        self.calls, self.body = 0, body

    def __call__(self, target: Path) -> Path:
        self.calls += 1
        target.write_bytes(self.body)
        return target


def test_a_second_draw_with_the_same_arguments_is_a_copy(cache, tmp_path):
    draw = Drawer()
    first = media_cache.cached(tmp_path / "a" / "x.mp4", ("k", 1), draw)
    second = media_cache.cached(tmp_path / "b" / "x.mp4", ("k", 1), draw)
    assert draw.calls == 1 and second.read_bytes() == first.read_bytes() == b"drawn"
    assert os.stat(first).st_ino != os.stat(second).st_ino  # a copy: a test may damage its own
    media_cache.cached(tmp_path / "c" / "x.mp4", ("k", 2), draw)
    assert draw.calls == 2  # other arguments, another entry
    assert len(list(cache.iterdir())) == 2


def test_a_real_clip_and_render_come_back_byte_for_byte(cache, tmp_path):
    clip = write_clip(tmp_path / "one" / "c.mp4", frames=9, width=64, height=36)
    again = write_clip(tmp_path / "two" / "c.mp4", frames=9, width=64, height=36)
    assert again.read_bytes() == clip.read_bytes()
    render = write_render(tmp_path / "r1" / "v.mp4", "a cat", 3, "/x/lora.safetensors", 9)
    copied = write_render(tmp_path / "r2" / "v.mp4", "a cat", 3, "/y/lora.safetensors", 9)
    assert copied.read_bytes() == render.read_bytes()  # the picture depends on the file's name
    other = write_render(tmp_path / "r3" / "v.mp4", "a dog", 3, "/x/lora.safetensors", 9)
    assert other.read_bytes() != render.read_bytes()
    still = write_render(tmp_path / "r4" / "v.mp4", "a cat", 3, None, 1)
    assert still.suffix == ".png" and still.read_bytes()[:4] == b"\x89PNG"


def _entry(cache: Path, draw: Drawer, tmp_path: Path) -> Path:
    media_cache.cached(tmp_path / "seed.mp4", ("k",), draw)
    (entry,) = cache.iterdir()
    return entry


def test_a_link_in_the_cache_is_not_followed(cache, tmp_path):
    draw = Drawer()
    entry = _entry(cache, draw, tmp_path)
    secret = tmp_path / "secret"
    secret.write_bytes(b"not yours")
    entry.unlink()
    entry.symlink_to(secret)
    out = media_cache.cached(tmp_path / "out.mp4", ("k",), draw)
    assert draw.calls == 2 and out.read_bytes() == b"drawn"
    assert secret.read_bytes() == b"not yours"  # the link is replaced, its target never written
    assert not entry.is_symlink()


def test_a_fifo_in_the_cache_is_drawn_again_without_waiting(cache, tmp_path):
    draw = Drawer()
    entry = _entry(cache, draw, tmp_path)
    entry.unlink()
    os.mkfifo(entry)
    result: list[Path] = []
    worker = threading.Thread(
        target=lambda: result.append(media_cache.cached(tmp_path / "o.mp4", ("k",), draw))
    )
    worker.start()
    worker.join(30)  # a bound, not a wait: a blocked open would never return
    assert not worker.is_alive(), "the cache blocked on a FIFO"
    assert result[0].read_bytes() == b"drawn" and draw.calls == 2


@pytest.mark.parametrize("size", [0, media_cache.MAX_ENTRY_BYTES + 1])
def test_an_empty_or_oversized_entry_is_drawn_again(cache, tmp_path, size):
    draw = Drawer()
    entry = _entry(cache, draw, tmp_path)
    with open(entry, "wb") as out:
        out.truncate(size)
    out_path = media_cache.cached(tmp_path / "o.mp4", ("k",), draw)
    assert draw.calls == 2 and out_path.read_bytes() == b"drawn"
    assert entry.stat().st_size == len(b"drawn")  # the entry is drawn anew


def test_a_cache_that_cannot_be_written_still_draws(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv(media_cache.CACHE_ENV, str(blocker / "cache"))
    draw = Drawer()
    assert media_cache.cached(tmp_path / "o.mp4", ("k",), draw).read_bytes() == b"drawn"
    assert media_cache.cached(tmp_path / "p.mp4", ("k",), draw).read_bytes() == b"drawn"
    assert draw.calls == 2
