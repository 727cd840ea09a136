"""The held-out clips' record (core/preprocess/held_out.py): where their latents go, never over
the training data, and what preprocess.json says when none were held out."""

from __future__ import annotations

import pytest

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.preprocess.held_out import (
    HOLDOUT_FILE,
    HeldOut,
    held_out_root,
    held_out_words,
    pending,
    plan_held_out,
    require_apart,
)


@pytest.mark.parametrize("data", ["run/holdout/.precomputed", "run/holdout", "run/holdout/.precomputed/x"])
def test_a_data_root_over_the_held_out_latents_is_refused(tmp_path, data):
    with pytest.raises(UsageError, match="held-out clips must never be trained on"):
        require_apart(held_out_root(tmp_path / "run"), tmp_path / data)


def test_a_data_root_beside_them_is_fine(tmp_path):
    require_apart(held_out_root(tmp_path / "run"), tmp_path / "cats" / ".precomputed")


def test_an_empty_holdout_file_holds_out_nothing(tmp_path):
    (tmp_path / "dataset.json").write_text("[]\n", "utf-8")
    (tmp_path / HOLDOUT_FILE).write_text("", "utf-8")
    held = plan_held_out(tmp_path / "run", tmp_path / "dataset.json", tmp_path / ".precomputed")
    assert held.file is None and not pending(held) and "lists none" in held.note


def test_the_words_follow_the_record(tmp_path):
    planned = HeldOut(file=tmp_path / HOLDOUT_FILE, root=tmp_path / "r", samples=("a.pt", "b.pt"))
    assert pending(planned) and not pending(None)
    assert held_out_words(planned) == (
        f"Held-out clips: 2 in `{tmp_path / HOLDOUT_FILE}`, preprocessed with the full step into "
        f"`{tmp_path / 'r'}` (never trained on)."
    )
    failed = HeldOut(file=planned.file, root=planned.root, samples=planned.samples, note="exit 1")
    assert pending(failed) and held_out_words(failed).endswith("The last try failed: exit 1.")
    assert held_out_words(None) is None
