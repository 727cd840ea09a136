"""The demo's data folders (demo/builder.py demo_folders) are worked out from the blocks its
configs are written from; they must be what the written checkout's recipes read."""

from __future__ import annotations

from ltx_wizard.core.dataset.sources import required_folders
from ltx_wizard.core.inputs.recipes import list_recipes
from ltx_wizard.demo.builder import build_demo, demo_folders


def test_the_folders_are_those_every_recipe_of_the_written_checkout_reads(tmp_path):
    demo = build_demo(tmp_path)
    recipes = list_recipes(demo.checkout / "packages" / "ltx-trainer" / "configs")
    assert len(recipes) >= 7  # t2v and the look-alike recipes, each parsed whole
    read = {f for r in recipes for f in required_folders(r.strategy)}
    assert set(demo_folders()) == read | {"latents", "conditions", "audio_latents"}
    assert {p.name for p in demo.data_root.iterdir() if p.is_dir()} >= read
