"""The demo folder builder (no UI needed)."""

from __future__ import annotations

from ltx_wizard.demo.builder import DEMO_PRESET, build_demo
from ltx_wizard.core.plan.model_checks import run_checks


def test_demo_folder_passes_every_check_and_rebuilds_in_place(tmp_path):
    first = build_demo(tmp_path / "demo")
    again = build_demo(tmp_path / "demo", simulate="rtx5090")
    assert first.checkpoint == again.checkpoint and again.simulate == "rtx5090"
    assert first.simulate == DEMO_PRESET
    items = run_checks(
        checkpoint=first.checkpoint,
        text_encoder=first.text_encoder,
        data_root=first.data_root,
        trainer_root=first.checkout,
    )
    assert [i.name for i in items if not i.ok] == []
    assert "3 samples" in next(i.summary for i in items if i.name == "data_root")
    # The 19 B-parameter checkpoint is sparse: the whole demo stays tiny on disk.
    used = sum(p.stat().st_blocks * 512 for p in (tmp_path / "demo").rglob("*") if p.is_file())
    assert used < 5_000_000
