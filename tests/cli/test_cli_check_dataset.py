"""`ltx-wizard check --dataset` at a user's scale: progress on stderr while the files and clips are
looked at, the count the trainer trains on, and the same answer whether ffprobe is on PATH."""

from __future__ import annotations

import io
import json

from ltx_wizard.cli import main
from ltx_wizard.commands.check import ProgressLines
from ltx_wizard.demo.lookalike_media import write_clip
from ltx_wizard.demo.lookalike_models import make_checkpoint, make_gemma_dir


def _check(tmp_path, rows, *extra):
    path = tmp_path / "clips" / "dataset.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    models = tmp_path / "models"
    return main(
        [
            "check",
            "--checkpoint",
            str(make_checkpoint(models / "c.safetensors", params_b=19)),
            "--text-encoder",
            str(make_gemma_dir(models / "gemma")),
            "--dataset",
            str(path),
            *extra,
        ]
    )


def test_a_big_dataset_shows_its_progress_and_counts_what_trains(tmp_path, capsys, ffprobe_mode):
    write_clip(tmp_path / "clips" / "a.mp4", frames=49, width=960, height=544)
    write_clip(tmp_path / "clips" / "b.mp4", frames=30, width=960, height=544)
    rows = [{"caption": f"clip {i}", "video": "a.mp4" if i % 4 else "b.mp4"} for i in range(3000)]
    assert _check(tmp_path, rows) == 0
    out, err = capsys.readouterr()
    progress = [line for line in err.splitlines() if line.startswith("check: ")]
    assert progress[0] == "check: looking at the media files 0/3,000 (0%)"
    assert progress[-1] == "check: looking at the media files 3,000/3,000 (100%)"
    assert len(progress) == 11  # a line per tenth on a pipe
    line = next(x for x in out.splitlines() if "data_root" in x)
    assert "2250 of 3000 clips usable at 960x544x49 (750 skipped)" in line


def test_a_small_dataset_prints_no_progress(tmp_path, capsys):
    write_clip(tmp_path / "clips" / "a.mp4", frames=49, width=960, height=544)
    assert _check(tmp_path, [{"caption": "c", "video": "a.mp4"}], "--video-only") == 0
    out, err = capsys.readouterr()
    assert "check:" not in err and "1 of 1 clips usable" in out


def test_progress_on_a_terminal_redraws_one_line():
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    screen = Terminal()
    show = ProgressLines(screen)
    for done in range(0, 10_001, 50):
        show("reading clips", done, 10_000)
    text = screen.getvalue()
    assert text.count("\n") == 1 and text.endswith("check: reading clips 10,000/10,000 (100%)\n")
    assert text.count("\r") == 101  # one redraw per percent
