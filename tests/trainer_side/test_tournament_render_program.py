"""ltx_wizard/trainer_side/tournament_render.py, run as the wizard runs it (a separate interpreter
with the look-alike trainer of tests/trainer_side/lookalike/ on its path): one model load renders
every row through the trainer's ValidationRunner into the trainer's step-0 sample names; the base
row is the base model whatever row ran before it, an all-zero LoRA renders the base's pictures, a
trained one differs, the same rows give the same pictures twice, and a broken checkpoint fails its
row alone."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from safetensors.torch import save_file

from ltx_wizard.core.evaluation.keyframes import decode
from ltx_wizard.core.evaluation.layout import trainer_samples
from tests.trainer_side.heldout_kit import write_lora
from tests.trainer_side.tournament_kit import PROMPTS, run_tournament, write_tournament_run

pytestmark = pytest.mark.xdist_group("tournament_render_program")
ROWS = ("base", "step-00100", "step-00200", "base-again", "broken")


def _rows(run: Path) -> list[str]:
    return [
        "base",
        f"step-00100={run / 'lora_weights_step_00100.safetensors'}",
        f"step-00200={run / 'lora_weights_step_00200.safetensors'}",
        "base-again",
        f"broken={run / 'lora_weights_step_00300.safetensors'}",
    ]


@pytest.fixture(scope="module")
def rendered(tmp_path_factory) -> tuple[Path, list]:
    run = write_tournament_run(tmp_path_factory.mktemp("tournament") / "run")
    write_lora(run / "lora_weights_step_00100.safetensors", seed=5, scale=0.5)
    write_lora(run / "lora_weights_step_00200.safetensors", seed=6, scale=0.0)
    # a layer the model does not have: loading it fails, as a checkpoint of another run would
    save_file(
        {"diffusion_model.nowhere.lora_A.weight": torch.zeros(2, 8)},
        str(run / "lora_weights_step_00300.safetensors"),
    )
    done = []
    for name in ("first", "second"):
        done.append(run_tournament(run, "--out-dir", str(run / name), *_rows(run)))
    return run, done


def _pixels(path: Path) -> list[bytes]:
    found = decode(path, count=3, width=64)
    assert found.error is None, found.error
    return [frame.rgb for frame in found.frames]


def test_every_row_renders_every_prompt_where_the_trainer_writes_its_step_0_samples(rendered):
    run, done = rendered
    assert done[0].returncode == 0, done[0].stderr[-2000:]
    for name in ROWS[:-1]:
        out = run / "first" / name
        found = trainer_samples(run, out_dir=out)  # tournament.py's own reading of them
        assert sorted(found) == list(range(len(PROMPTS)))
        assert [p.name for _, p in sorted(found.items())] == [f"step_000000_{i}.mp4" for i in (1, 2, 3)]
        decoded = decode(found[0], count=3, width=64)
        assert decoded.count == 17 and (decoded.width, decoded.height) == (64, 64)
    assert "tournament_render: step-00100: 3 render(s) (2 of 5)" in done[0].stdout


def test_the_base_row_is_the_base_model_and_a_lora_changes_the_pictures(rendered):
    run, _ = rendered
    out = run / "first"
    for i in (1, 2, 3):
        base = _pixels(out / "base" / "samples" / f"step_000000_{i}.mp4")
        assert _pixels(out / "base-again" / "samples" / f"step_000000_{i}.mp4") == base  # after a LoRA row
        assert _pixels(out / "step-00200" / "samples" / f"step_000000_{i}.mp4") == base  # all-zero LoRA
        assert _pixels(out / "step-00100" / "samples" / f"step_000000_{i}.mp4") != base
    # the prompts differ, so do their renders
    assert _pixels(out / "base" / "samples" / "step_000000_1.mp4") != _pixels(
        out / "base" / "samples" / "step_000000_2.mp4"
    )


def test_the_same_rows_give_the_same_pictures_twice(rendered):
    run, done = rendered
    assert done[1].returncode == 0, done[1].stderr[-2000:]
    for name in ROWS[:-1]:
        for i in (1, 2, 3):
            rel = Path(name) / "samples" / f"step_000000_{i}.mp4"
            assert _pixels(run / "first" / rel) == _pixels(run / "second" / rel)


def test_a_broken_checkpoint_fails_its_row_alone_and_says_so(rendered):
    run, done = rendered
    assert not trainer_samples(run, out_dir=run / "first" / "broken")
    assert "tournament_render: broken: failed: " in done[0].stderr


def test_what_cannot_run_is_refused_in_one_line_before_the_model_loads(tmp_path):
    run = write_tournament_run(tmp_path / "run")
    (run / "notes.txt").write_text("x", encoding="utf-8")
    for rows, said in (
        ([f"a={run / 'missing.safetensors'}"], "does not exist"),
        ([f"a={run / 'notes.txt'}"], "must have a .safetensors extension"),
        (["base", "base"], "must be unique"),
        (["../up"], "must be unique, of a-z"),
    ):
        done = run_tournament(run, "--out-dir", str(run / "out"), *rows)
        assert done.returncode == 2 and said in done.stderr, done.stderr
    bare = tmp_path / "bare"  # no trainer on the path: named, exit 2
    bare.mkdir()
    done = run_tournament(run, "--out-dir", str(run / "out"), "base", extra_path=bare)
    assert done.returncode == 2 and "cannot be imported here" in done.stderr
    assert not (run / "out").exists()
