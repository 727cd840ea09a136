"""ltx_wizard/trainer_side/tournament_render.py with the held-out loss (issue 44, Deliver 8: one model
load for the whole comparison), run as the wizard runs it (a separate interpreter, the look-alike
trainer on its path, which counts its transformer loads): one load serves the loss and the renders,
the loss's records are heldout_loss.py's alone to the last digit, --loss-rows writes only the rows
named (the out-of-memory retry's), and configs that disagree on the model are refused before it loads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ltx_wizard.core.evaluation.layout import trainer_samples
from tests.trainer_side.heldout_kit import run_program, write_lora
from tests.trainer_side.tournament_kit import PROMPTS, run_tournament, write_tournament_run

pytestmark = pytest.mark.xdist_group("tournament_loss_program")
LOADS_ENV = "LOOKALIKE_TRANSFORMER_LOADS"  # lookalike/ltx_trainer/model_loader.py


def _ckpts(run: Path) -> list[Path]:
    return [run / f"lora_weights_step_{s:05d}.safetensors" for s in (100, 200)]


def _loss_args(run: Path) -> list[str]:
    """heldout_loss.py's own arguments, not its defaults, so both programs are seen to read them."""
    held = run / "dataset" / "heldout" / ".precomputed"
    return ["--held-out", str(held), "--sample", "2", "--sigmas", "0.2,0.6", "--seed", "7"]


def _tournament(run: Path, name: str, *extra: str, loss_config: Path | None = None):
    loads = run / f"loads-{name}.txt"
    rows = ["base", *(f"step-{p.stem[-5:]}={p}" for p in _ckpts(run))]
    loss = []
    if loss_config is not None:
        loss = ["--loss-config", str(loss_config), "--loss-out-dir", str(run / f"loss-{name}")]
        loss += _loss_args(run)
    done = run_tournament(
        run, "--out-dir", str(run / f"renders-{name}"), *loss, *extra, *rows, env={LOADS_ENV: str(loads)}
    )
    return done, (loads.read_text("utf-8").splitlines() if loads.is_file() else [])


@pytest.fixture(scope="module")
def both(tmp_path_factory) -> Path:
    run = write_tournament_run(tmp_path_factory.mktemp("one-load") / "run")
    for seed, path in enumerate(_ckpts(run), start=5):
        write_lora(path, seed=seed, scale=0.5)
    alone = run_program(
        run,
        "--out-dir",
        str(run / "loss-alone"),
        *_loss_args(run),
        "--base",
        *map(str, _ckpts(run)),
        env={LOADS_ENV: str(run / "loads-alone.txt")},
    )
    assert alone.returncode == 0, alone.stderr[-2000:]
    return run


def _records(folder: Path) -> dict[str, dict]:
    found = {}
    for path in sorted(folder.glob("heldout-loss-*.json")):
        record = json.loads(path.read_text("utf-8"))
        record.pop("seconds")  # wall time, the one field that is not a number of the model's
        found[path.name] = record
    return found


def test_one_transformer_load_gives_the_loss_then_every_render(both):
    done, loads = _tournament(both, "one", loss_config=both / "config.yaml")
    assert done.returncode == 0, done.stderr[-2000:]
    assert len(loads) == 1, loads  # the loss and the renders on the same model
    alone = (both / "loads-alone.txt").read_text("utf-8").splitlines()
    assert len(alone) == 1  # heldout_loss.py alone loads it too: the comparison saved one load
    # identical to heldout_loss.py's alone on the same inputs, to the last digit
    assert _records(both / "loss-one") == _records(both / "loss-alone")
    assert set(_records(both / "loss-one")) == {
        "heldout-loss-base.json",
        "heldout-loss-lora_weights_step_00100.json",
        "heldout-loss-lora_weights_step_00200.json",
    }
    for row in ("base", "step-00100", "step-00200"):
        assert len(trainer_samples(both, out_dir=both / "renders-one" / row)) == len(PROMPTS), row
    # the loss's lines come before the first render's
    out = done.stdout.splitlines()
    assert out.index(next(x for x in out if x.startswith("tournament_render: "))) > max(
        i for i, x in enumerate(out) if x.startswith("heldout_loss: ")
    )


def test_loss_rows_writes_only_the_rows_named(both):
    done, loads = _tournament(both, "rows", "--loss-rows", "step-00200", loss_config=both / "config.yaml")
    assert done.returncode == 0, done.stderr[-2000:]
    assert len(loads) == 1
    assert list(_records(both / "loss-rows")) == ["heldout-loss-lora_weights_step_00200.json"]
    alone = _records(both / "loss-alone")["heldout-loss-lora_weights_step_00200.json"]
    got = _records(both / "loss-rows")["heldout-loss-lora_weights_step_00200.json"]
    # the same numbers; only its count of passes holds the base model's it computed for the effect
    assert {k: v for k, v in got.items() if k != "forward_passes"} == {
        k: v for k, v in alone.items() if k != "forward_passes"
    }


@pytest.mark.parametrize(
    ("old", "new", "section"),
    [
        ("  rank: 2\n", "  rank: 4\n", "lora"),
        ("  training_mode: lora\n", "  training_mode: lora\n  video_vae_path: /x\n", "model"),
    ],
)
def test_configs_that_disagree_on_the_model_are_refused_before_it_loads(both, old, new, section):
    other = both / f"other-{section}.yaml"
    text = (both / "config.yaml").read_text("utf-8")
    assert old in text
    other.write_text(text.replace(old, new), "utf-8")
    done, loads = _tournament(both, f"refused-{section}", loss_config=other)
    assert done.returncode == 2 and loads == []
    line = done.stderr.strip()
    assert "\n" not in line and line.startswith("tournament_render: "), done.stderr
    assert f"differ in {section}:" in line
    assert not (both / f"loss-refused-{section}").exists()
