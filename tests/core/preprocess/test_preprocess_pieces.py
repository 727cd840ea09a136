"""The preprocessing's parts: the script's options read from a typer script like the real one,
progress and ETA parsed from rich's bars, the verification of an existing .precomputed."""

from __future__ import annotations

from pathlib import Path

from ltx_wizard.core.dataset.buckets import parse_buckets
from ltx_wizard.core.dataset.sources import SHIPPED_T2V_STRATEGY
from ltx_wizard.core.dataset.precomputed_check import verify_precomputed
from ltx_wizard.core.preprocess.preprocess_command import script_options
from ltx_wizard.core.preprocess.preprocess_progress import ProgressParser
from ltx_wizard.demo.lookalike_latents import (
    audio_latents,
    condition_embeddings,
    video_latents,
    write_pt,
)

TYPER_SCRIPT = """
import typer
app = typer.Typer()

@app.command()
def main(
    dataset_path: str = typer.Argument(..., help="metadata"),
    resolution_buckets: str | None = typer.Option(default=None),
    model_path: str = typer.Option(..., help="ckpt"),
    text_encoder_path: str = typer.Option(...),
    skip_audio: bool = typer.Option(default=False),
    batch_size: int = typer.Option(default=1),
) -> None:
    pass
"""


def test_options_of_a_typer_script_like_the_trainers(tmp_path):
    script = tmp_path / "process_dataset.py"
    script.write_text(TYPER_SCRIPT)
    options = script_options(script)
    assert options.flags == {
        "--resolution-buckets",
        "--model-path",
        "--text-encoder-path",
        "--skip-audio",
        "--no-skip-audio",
        "--batch-size",
    }
    assert options.required == {"--model-path", "--text-encoder-path"}


def test_simulated_preprocessor_takes_a_typer_scripts_options_only(tmp_path, monkeypatch):
    from ltx_wizard.demo.sim.preprocess import _parser

    script = tmp_path / "process_dataset.py"
    script.write_text(TYPER_SCRIPT)
    parser = _parser(script)
    ns = parser.parse_args(["d.json", "--model-path", "m", "--text-encoder-path", "t", "--skip-audio"])
    assert ns.skip_audio and ns.batch_size == 1
    import pytest

    with pytest.raises(SystemExit):
        parser.parse_args(
            ["d.json", "--model-path", "m", "--text-encoder-path", "t", "--lora-trigger", "x"]
        )  # this script has no such option


def test_progress_bars_give_phase_counts_and_an_eta():
    parser = ProgressParser()
    assert parser.line() == "starting (loading the models)"
    bar = "\x1b[2K\x1b[1A⠋ Processing videos ━━━━╸━━━━  20% 2/10 0:00:10 0:00:40\r"
    assert parser.feed("INFO Loaded 10 valid media files\n" + bar, now=100.0)  # \r ends a redraw
    assert parser.line() == "videos 2/10 (20%)"  # no rate yet: no ETA
    assert parser.feed("\x1b[2K⠙ Processing videos ━━━━━━━━  40% 4/10 0:00:20 0:00:30\r", 110.0)
    assert parser.current.done == 4 and parser.current.total == 10
    assert parser.line() == "videos 4/10 (40%), about 30s left"  # 2 clips in 10 s, 6 to go
    parser.feed("WARNING  Skipping video at /d/v/a.mp4 - has 20 frames, which is less\n", 111.0)
    parser.feed("INFO Audio processing: 3 videos with audio, 1 videos without audio (skipped)\n", 112)
    assert parser.skipped == [("/d/v/a.mp4", 20)] and parser.audio_counts == (3, 1)


def _root(tmp_path: Path, shape=(49, 544, 960), audio=("a.pt", "b.pt")) -> Path:
    root = tmp_path / ".precomputed"
    for name in ("a.pt", "b.pt"):
        write_pt(root / "latents" / name, video_latents(*shape))
        write_pt(root / "conditions" / name, condition_embeddings())
    for name in audio:
        write_pt(root / "audio_latents" / name, audio_latents(2.0))
    return root


def test_verification_reuses_a_matching_root(tmp_path):
    check = verify_precomputed(
        _root(tmp_path), SHIPPED_T2V_STRATEGY, ("a.pt", "b.pt"), parse_buckets("960x544x49")
    )
    assert check.reusable and "reused as it is" in check.describe()


def test_verification_names_a_shape_from_another_bucket(tmp_path):
    check = verify_precomputed(
        _root(tmp_path, shape=(97, 512, 512)),
        SHIPPED_T2V_STRATEGY,
        ("a.pt", "b.pt"),
        parse_buckets("960x544x49"),
    )
    assert not check.reusable and "13x16x16" in check.mismatch and "7x17x30" in check.mismatch


def test_verification_counts_missing_modalities_and_exempts_silent_clips(tmp_path):
    root = _root(tmp_path, audio=("a.pt",))
    buckets = parse_buckets("960x544x49")
    partial = verify_precomputed(root, SHIPPED_T2V_STRATEGY, ("a.pt", "b.pt"), buckets)
    assert not partial.complete and partial.missing == (("audio_latents", 1),)
    assert "resumes it" in partial.describe()
    silent = verify_precomputed(root, SHIPPED_T2V_STRATEGY, ("a.pt", "b.pt"), buckets, silent=("b.pt",))
    assert silent.reusable
    assert not verify_precomputed(tmp_path / "none", SHIPPED_T2V_STRATEGY, ("a.pt",), buckets).exists
