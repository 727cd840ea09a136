"""Setup failures stop autotune with the cause, the file and the fix, and resume after the fix
without re-running finished trials; a placeholder never reaches a trial (issue 19, item 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ltx_wizard.cli import main
from ltx_wizard.core.gpu.assessment import assess
from ltx_wizard.core.autotune.sweep.engine import AutotuneEngine
from ltx_wizard.core.autotune.events import TrialFinished, TrialStarted
from ltx_wizard.core.autotune.sweep.setup_stop import classify
from ltx_wizard.core.gpu.presets import simulated_probe
from ltx_wizard.demo.lookalike_checkout import make_checkout
from ltx_wizard.demo.lookalike_models import make_checkpoint, make_data_root, make_gemma_dir
from ltx_wizard.demo.lookalike_recipes import RECIPES
from ltx_wizard.core.dataset.sources import required_folders
from ltx_wizard.core.inputs.recipes import find_recipe
from ltx_wizard.demo.sim.stand_in import SimulatedTrainer
from tests.core.plan.test_recipe_plans import media_args
from tests.core.autotune.test_autotune_engine import SIM_SPEED

CONFIG = {
    "validation": {
        "samples": [
            {"prompt": "a", "conditions": [{"type": "first_frame", "image_or_video": "/data/frame.png"}]}
        ]
    }
}


@pytest.mark.parametrize(
    "line, file, words",
    [
        (
            "FileNotFoundError: [Errno 2] No such file or directory: '/data/frame.png'",
            "/data/frame.png",
            "put the file there, or point validation.samples[0]",
        ),
        (
            "PIL.UnidentifiedImageError: cannot identify image file '/data/frame.png'",
            "/data/frame.png",
            "replace it with a file its reader opens",
        ),
        (
            "av.error.InvalidDataError: [Errno 1094995529] Invalid data found when processing input: "
            "'/v/clip.mp4'",
            "/v/clip.mp4",
            "replace it",
        ),
        (
            'RuntimeError: Failed to open the input "/a/x.wav" (No such file or directory).',
            "/a/x.wav",
            "replace it",
        ),
        (
            "av.error.DecoderNotFoundError: [Errno 1330660686] Decoder not found: '/v/clip.mkv'",
            "/v/clip.mkv",
            "install an FFmpeg build with that codec",
        ),
        (
            "FileNotFoundError: Required latents directory does not exist: /runs/overfit/latents",
            "/runs/overfit/latents",
            "put the file there, or correct the path",
        ),
    ],
)
def test_setup_causes_name_the_file_and_the_fix(line, file, words):
    failure = classify(line, CONFIG)
    assert failure is not None and failure.file == file and words in failure.fix
    assert failure.where == (
        "validation.samples[0].conditions[0].image_or_video" if file == "/data/frame.png" else None
    )


@pytest.mark.parametrize(
    "line",
    [
        "ValueError: Quantization is not supported in full training mode.",  # trainer.py _load_models
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
        "ModuleNotFoundError: No module named 'optimum'",  # a quantization change can need it
        None,
    ],
)
def test_a_change_s_own_failure_is_not_a_setup_failure(line):
    assert classify(line, CONFIG) is None


def _box(tmp_path: Path, recipe: str) -> list[str]:
    make_checkout(tmp_path / "LTX-2")  # placeholders, as the real recipes ship
    make_checkpoint(tmp_path / "models" / "ltx.safetensors", params_b=22)
    make_gemma_dir(tmp_path / "models" / "gemma")
    folders = required_folders(find_recipe(tmp_path / "LTX-2/packages/ltx-trainer/configs", recipe).strategy)
    make_data_root(tmp_path / "data" / ".precomputed", 3, folders=list(folders))
    return [
        "plan",
        "--trainer-root",
        str(tmp_path / "LTX-2"),
        "--checkpoint",
        str(tmp_path / "models" / "ltx.safetensors"),
        "--text-encoder",
        str(tmp_path / "models" / "gemma"),
        "--data-root",
        str(tmp_path / "data" / ".precomputed"),
        "--workspace",
        str(tmp_path / "ws"),
        "--run-name",
        "run",
        "--simulate",
        "a6000",
        "--recipe",
        recipe,
        *media_args(tmp_path / "LTX-2/packages/ltx-trainer/configs", recipe, tmp_path / "media"),
    ]


def _engine(run_dir: Path, events: list) -> AutotuneEngine:
    probe = simulated_probe("a6000")
    return AutotuneEngine(
        run_dir,
        probe=probe,
        assessment=assess(probe),
        stand_in=SimulatedTrainer("a6000", speed=SIM_SPEED),
        on_event=events.append,
        grace_s=2.0,
    )


@pytest.mark.parametrize("recipe", [r.name for r in RECIPES])
async def test_every_lookalike_recipe_planned_with_media_autotunes_to_a_winner(tmp_path, recipe):
    assert main(_box(tmp_path, recipe)) == 0
    summary = await _engine(tmp_path / "ws" / "run", []).run()
    assert summary.winner is not None, summary.stop_reason
    assert summary.setup_failure is None
    assert summary.confirmation is None or summary.confirmation.ok, summary.confirmation


async def test_a_missing_medium_stops_autotune_and_it_resumes_after_the_fix(tmp_path):
    assert main(_box(tmp_path, "i2v_lora")) == 0
    run_dir = tmp_path / "ws" / "run"
    image = tmp_path / "media" / "first_frame_1.png"
    aside = image.with_suffix(".moved")
    events: list = []
    engine = _engine(run_dir, events)

    def on_event(event):
        events.append(event)
        if isinstance(event, TrialFinished) and event.result.index == 1:
            image.rename(aside)  # gone after the baseline: the validating run cannot read it

    engine.on_event = on_event
    first = await engine.run()
    finished = [e.result for e in events if isinstance(e, TrialFinished)]
    assert first.winner is None and first.setup_failure
    assert str(image) in first.setup_failure
    assert "validation.samples[0].conditions[0].image_or_video" in first.setup_failure
    assert "run autotune again" in first.setup_failure
    assert not any(t.outcome == "crash" for t in first.trials)  # not the change's crash
    log = (run_dir / "autotune.log").read_text()
    assert "== autotune summary ==" not in log and "autotune stopped:" in log
    assert (run_dir / "config.yaml").read_text().count(str(image)) == 1  # planned, unpatched

    aside.rename(image)  # the fix
    events2: list = []
    second = await _engine(run_dir, events2).run()
    started = {e.index for e in events2 if isinstance(e, TrialStarted)}
    assert not started & {r.index for r in finished if r.ran}  # finished trials not run again
    assert started  # the stopped one ran now
    assert second.winner is not None and second.setup_failure is None
    assert second.confirmation is not None and second.confirmation.ok


def test_autotune_refuses_unreadable_validation_media_before_any_trial(tmp_path, capsys):
    assert main(_box(tmp_path, "v2v_ic_lora")) == 0
    run_dir = tmp_path / "ws" / "run"
    clip = tmp_path / "media" / "reference_1.mp4"
    clip.write_text("not a video")  # replaced after planning
    capsys.readouterr()
    assert main(["autotune", str(run_dir), "--simulate", "a6000"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ltx-wizard: ") and "validation.samples[0].conditions[0].video" in err
    assert str(clip) in err and "run autotune again" in err
    assert not (run_dir / "logs").exists() or not list((run_dir / "logs").glob("trial-*.log"))
