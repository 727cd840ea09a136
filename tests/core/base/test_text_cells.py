"""Cell widths as a terminal (and rich) lays them out: the parser's fold detection relies on them."""

from __future__ import annotations

from ltx_wizard.core.base.text_cells import cell_width


def test_ascii_takes_one_cell_per_character_and_wide_characters_two():
    assert cell_width("weights saved in /runs/a.safetensors") == 36
    assert cell_width("step 20 📊 done") == 15  # the emoji is two cells wide
    assert cell_width("模型") == 4


def test_combining_marks_and_joined_emoji_take_no_extra_cells():
    assert cell_width("e\u0301") == 1
    assert cell_width("👩\u200d💻") == 2
