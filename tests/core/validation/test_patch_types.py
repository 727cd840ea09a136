"""The splice check (core/validation/patch.py `checked`) reads validation.samples through the typed
view: a wrongly typed key in the text is refused naming the key, not passed over."""

from __future__ import annotations

import pytest

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.validation.patch import checked

BEFORE = "validation:\n  samples:\n  - prompt: a cat\n  interval: 100\n"
AFTER = BEFORE.replace("a cat", "a dog")


def test_a_splice_is_checked_against_the_samples_it_was_asked_to_write():
    assert checked(BEFORE, AFTER, [{"prompt": "a dog"}])
    assert not checked(BEFORE, AFTER, [{"prompt": "a cat"}])
    assert not checked(BEFORE, AFTER.replace("interval: 100", "interval: 50"), [{"prompt": "a dog"}])


def test_a_wrongly_typed_key_is_refused_with_its_name():
    wrong = AFTER.replace("interval: 100", "interval: soon")
    with pytest.raises(
        UsageError, match=r"^config.yaml: validation.interval is 'soon', expected a whole number"
    ):
        checked(BEFORE, wrong, [{"prompt": "a dog"}])
