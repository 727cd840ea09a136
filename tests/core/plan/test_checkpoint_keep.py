"""Checkpoints kept for comparison (issue 44): five spread over the run, every save kept, sized
against the free disk, the spread kept through autotune's rescaled steps."""

from __future__ import annotations

import ast
import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from ltx_wizard.core.autotune.outputs.tuned_config import tuned_config
from ltx_wizard.core.io.trainer_config import trainer_config
from ltx_wizard.core.io.yaml_patch import load_yaml
from ltx_wizard.core.plan.checkpoint_keep import (
    COMPARE_KEEP,
    CheckpointKeep,
    keep_lines,
    keep_warning,
    plan_keep,
    spread,
)
from ltx_wizard.core.plan.checkpoint_saves import CheckpointBytes, checkpoint_bytes, kept_saves
from ltx_wizard.core.plan.host_limits import OUTPUT_ALLOWANCE, HostReadings, check_host
from ltx_wizard.core.tuning.headroom import TrainSettings

GiB = 1024**3
CKPT = SimpleNamespace(
    transformer_param_count=22 * 10**9, linears=(), embeddings_param_count=0, dtype_counts={"BF16": 1}
)


def config(interval: int | None = 250, keep: int | None = 3, steps: int = 2000) -> dict:
    checkpoints = {k: v for k, v in (("interval", interval), ("keep_last_n", keep)) if v is not None}
    return {
        "model": {"training_mode": "lora"},
        "lora": {"rank": 32},
        "optimization": {"steps": steps},
        "checkpoints": checkpoints,
    }


@pytest.mark.parametrize(
    "interval, keep, files, peak",
    [
        # keep_last_n 5 over saves at 400..2000 and the save after the loop (2000 again): four files
        (400, 5, (800, 1200, 1600, 2000), 5),
        (400, 6, (400, 800, 1200, 1600, 2000), 5),
        (400, -1, (400, 800, 1200, 1600, 2000), 5),
        (400, None, (2000,), 2),  # the trainer's default keep_last_n 1
        (None, 3, (2000,), 1),  # no interval: only the final save
        (300, 5, (900, 1200, 1500, 1800, 2000), 6),
    ],
)
def test_kept_saves_mirror_the_trainers_cleanup(interval, keep, files, peak):
    kept = kept_saves(2000, interval, keep)
    assert (kept.steps, kept.peak) == (files, peak)


@pytest.mark.parametrize("steps", [1, 3, 7, 13, 50, 999, 2000, 2001, 3000, 100_000])
def test_spread_keeps_at_least_five_over_the_whole_run(steps):
    interval, keep = spread(steps, COMPARE_KEEP)
    kept = kept_saves(steps, interval, keep).steps
    assert len(kept) >= min(COMPARE_KEEP, steps) and kept[-1] == steps
    assert kept[0] <= steps // 2 or steps < 2  # spread from the first half on, not the last few
    assert len(kept) == COMPARE_KEEP or steps < 13  # exactly five where the steps allow


def test_the_plan_patches_a_config_that_keeps_the_last_three():
    keep = plan_keep(config(250, 3), CheckpointBytes(300 * 10**6, 0), 500 * GiB)
    assert keep.changes == {"checkpoints.interval": 400, "checkpoints.keep_last_n": 6}
    assert keep_warning(keep) is None


def test_a_shipped_config_keeping_every_save_of_eight_is_left_alone():
    keep = plan_keep(config(250, -1), CheckpointBytes(300 * 10**6, 0), 500 * GiB)
    assert keep.changes == {} and kept_saves(2000, 250, -1).steps == tuple(range(250, 2001, 250))


def test_a_disk_for_three_keeps_three_and_says_so():
    size = CheckpointBytes(10 * GiB, 0)
    keep = plan_keep(config(250, -1), size, OUTPUT_ALLOWANCE + 3 * size.each + GiB)
    assert keep.fits == 3 and keep.changes == {"checkpoints.interval": 667, "checkpoints.keep_last_n": 3}
    assert "holds 3 checkpoints" in (keep_warning(keep) or "")
    patched = config(667, 3)
    lines = keep_lines(patched, keep)
    assert lines[0].startswith("- 3 checkpoints kept, at steps 667, 1,334, 2,000: 10.0 GiB each, 30.0 GiB")
    assert "the free disk holds 3 checkpoints" in lines[-1]


def test_the_disk_check_counts_every_kept_checkpoint():
    cfg = config(400, 6)
    size = checkpoint_bytes(cfg, CKPT)
    readings = HostReadings(256 * GiB, 240 * GiB, 0, None, 500 * GiB)
    check = check_host(cfg, CKPT, 0, 1, readings)
    assert check.disk_need == 5 * size.weights + OUTPUT_ALLOWANCE
    assert check.disk_items[0].startswith("5 checkpoint(s)")


def test_plan_md_lines_name_the_steps_and_why_keep_last_n_is_one_more():
    keep = CheckpointKeep(weights_bytes=GiB // 4, fits=None, interval=400, keep_last_n=6)
    lines = keep_lines(config(400, 6), keep)
    assert lines[0] == (
        "- 5 checkpoints kept, at steps 400, 800, 1,200, 1,600, 2,000: 0.2 GiB each, 1.2 GiB in all "
        "(checkpoints.interval 400, keep_last_n 6)."
    )
    assert "saves step 2,000 twice" in lines[1] and len(lines) == 2


@pytest.mark.parametrize("batch, steps", [(2, 1000), (3, 667), (4, 500)])
def test_autotunes_rescaled_steps_keep_five_spread(batch, steps):
    planned = (
        "optimization:\n  steps: 2000\n  batch_size: 1\n"
        "checkpoints:\n  interval: 400\n  keep_last_n: 6\nvalidation:\n  interval: 250\n"
    )
    tuned = tuned_config(
        planned,
        {"optimization.batch_size": batch},
        TrainSettings(None, "adamw", 1, 1, True),
        TrainSettings(None, "adamw", batch, 1, True),
    )
    keys = trainer_config(load_yaml(tuned.text))
    assert keys.optimization.steps == steps
    kept = kept_saves(steps, keys.checkpoints.interval, keys.checkpoints.keep_last_n).steps
    assert len(kept) == COMPARE_KEEP and kept[-1] == steps and kept[0] <= steps // 4
    assert "keep_last_n" in tuned.text.split("checkpoints:")[1].split("validation:")[0]


REAL = os.environ.get("LTX_WIZARD_REAL_CHECKOUT")


def _real_method(checkout: Path, name: str):
    """LtxvTrainer's own method, its source read from the real trainer.py and compiled alone
    (the module imports wandb, peft and the models, none of which the rule needs)."""
    source = (checkout / "packages/ltx-trainer/src/ltx_trainer/trainer.py").read_text("utf-8")
    tree = ast.parse(source)
    trainer = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "LtxvTrainer")
    method = next(n for n in trainer.body if isinstance(n, ast.FunctionDef) and n.name == name)
    method.decorator_list = []
    namespace = {"Path": Path, "logger": SimpleNamespace(info=lambda *a: None, debug=lambda *a: None)}
    exec(compile(ast.Module(body=[method], type_ignores=[]), "trainer.py", "exec"), namespace)
    return namespace[name]


def _left_by_real_cleanup(folder: Path, steps: int, interval: int, keep: int) -> tuple[int, ...]:
    cleanup = _real_method(Path(str(REAL)), "_cleanup_checkpoints")
    me = SimpleNamespace(
        _config=SimpleNamespace(checkpoints=SimpleNamespace(keep_last_n=keep)), _checkpoint_paths=[]
    )
    saves = [s for s in range(1, steps + 1) if s % interval == 0] + [steps]  # the loop, then the end
    folder.mkdir()
    for step in saves:  # _save_checkpoint: write, append, clean up
        path = folder / f"lora_weights_step_{step:05d}.safetensors"
        path.write_bytes(b"w")
        me._checkpoint_paths.append(path)
        cleanup(me)
    return tuple(sorted(int(p.stem.rsplit("_", 1)[1]) for p in folder.iterdir()))


@pytest.mark.skipif(not REAL, reason="set LTX_WIZARD_REAL_CHECKOUT to a real LTX-2 checkout")
@pytest.mark.parametrize("steps, count", [(2000, 5), (2001, 5), (3000, 5), (13, 5), (2000, 3)])
def test_the_real_trainers_cleanup_leaves_the_planned_checkpoints(tmp_path, steps, count):
    """The real `_cleanup_checkpoints` over the real loop's save sequence (trainer.py `train`:
    every interval, then once more after the loop) leaves what kept_saves says."""
    interval, keep = spread(steps, count)
    left = _left_by_real_cleanup(tmp_path / "checkpoints", steps, interval, keep)
    assert left == kept_saves(steps, interval, keep).steps and len(left) == count


@pytest.mark.skipif(not REAL, reason="set LTX_WIZARD_REAL_CHECKOUT to a real LTX-2 checkout")
def test_the_real_trainers_keep_last_n_counts_the_last_step_twice(tmp_path):
    left = _left_by_real_cleanup(tmp_path / "checkpoints", 2000, 400, 5)
    assert left == (800, 1200, 1600, 2000) == kept_saves(2000, 400, 5).steps
