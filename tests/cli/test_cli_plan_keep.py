"""`ltx-wizard plan` keeps checkpoints for comparison (issue 44): config.yaml's two keys patched,
plan.md saying how many, at which steps and their size, read against the plan's record."""

from __future__ import annotations

import re

import pytest

from ltx_wizard.cli import main
from ltx_wizard.core.io.trainer_config import trainer_config
from ltx_wizard.core.io.yaml_patch import load_yaml
from ltx_wizard.core.plan import memory_section
from ltx_wizard.core.plan.checkpoint_keep import videos_and_logs
from ltx_wizard.core.plan.checkpoint_saves import kept_saves
from ltx_wizard.core.plan.host_limits import HostReadings, gib
from ltx_wizard.core.plan.record import read_record

GiB = 1024**3


@pytest.fixture
def box(model_tree):
    tree = model_tree()
    shipped = tree.shipped("t2v_lora.yaml")
    text = shipped.read_text("utf-8")
    # the trainer's own default behaviour, nearly: only the last few checkpoints stay
    shipped.write_text(text.replace("keep_last_n: -1   # -1 keeps every one", "keep_last_n: 3"), "utf-8")
    return tree


def _section(plan: str) -> list[str]:
    body = plan.split("## Checkpoints kept for comparison\n", 1)[1].split("\n## ", 1)[0]
    return [line for line in body.splitlines() if line]


def test_the_plan_keeps_five_spread_and_plan_md_says_which(box, capsys):
    assert main(box.args()) == 0, capsys.readouterr().err
    run = box.run
    keys = trainer_config(load_yaml((run / "config.yaml").read_text("utf-8")))
    assert (keys.checkpoints.interval, keys.checkpoints.keep_last_n) == (400, 6)
    rec = read_record(run)
    assert (
        rec is not None
        and rec.keep is not None
        and rec.keep.changes
        == {
            "checkpoints.interval": 400,
            "checkpoints.keep_last_n": 6,
        }
    )
    plan = (run / "plan.md").read_text("utf-8")
    kept = kept_saves(2000, 400, 6).steps
    each = rec.keep.weights_bytes
    assert _section(plan)[0] == (
        f"- 5 checkpoints kept, at steps {', '.join(f'{s:,}' for s in kept)}: {gib(each)} each, "
        f"{gib(5 * each)} in all (checkpoints.interval 400, keep_last_n 6)."
    )
    # the two keys go through the one patch path: plan.md's diff shows them
    assert re.search(r"^-  keep_last_n: 3$", plan, re.M) and re.search(r"^\+  keep_last_n: 6$", plan, re.M)
    assert re.search(r"^\+  interval: 400$", plan, re.M)
    assert "| Checkpoints kept (keep_last_n) | `6` |" in plan
    # the disk need counts all five
    assert any(line.startswith("  - 5 checkpoint(s) of ") for line in rec.host_lines)


def test_a_disk_for_two_keeps_two_and_plan_md_says_so(box, capsys, monkeypatch):
    assert main(box.args()) == 0, capsys.readouterr().err  # with room: what one checkpoint weighs
    first = read_record(box.run)
    assert first is not None and first.keep is not None
    other = videos_and_logs(load_yaml(first.config_text))
    free = other + 2 * first.keep.weights_bytes + first.keep.weights_bytes // 2  # room for two
    monkeypatch.setattr(
        memory_section, "read_host", lambda run_dir: HostReadings(256 * GiB, 240 * GiB, 0, None, free)
    )
    assert main(box.args("--force")) == 0, capsys.readouterr().err
    rec = read_record(box.run)
    assert rec is not None and rec.keep is not None
    fits = rec.keep.fits
    assert fits == 2
    keys = trainer_config(load_yaml((box.run / "config.yaml").read_text("utf-8")))
    # two, spread: one halfway and the last (keep_last_n 3: step 2,000 is saved twice)
    assert (keys.checkpoints.interval, keys.checkpoints.keep_last_n) == (1000, 3)
    kept = kept_saves(2000, keys.checkpoints.interval, keys.checkpoints.keep_last_n).steps
    assert kept == (1000, 2000)
    lines = _section((box.run / "plan.md").read_text("utf-8"))
    assert lines[0].startswith(f"- {fits} checkpoint")
    assert f"the free disk holds {fits} checkpoint" in lines[-1]
    assert any(f"holds {fits} checkpoint" in w for w in rec.warnings)
