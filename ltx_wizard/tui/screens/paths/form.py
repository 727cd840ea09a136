"""What the Paths screen reads from its form and shows back, as plain functions of the values:
the draft request the fields say, each field's verdict, the fields still blocking Continue, the
models discovery did not find, and a recipe's label in the Recipe list."""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING

from ltx_wizard.core.plan.plan_request import PlanRequest, lenient_request
from ltx_wizard.tui.screens.paths.fields import EMPTY_HINT, FIELDS, REQUIRED, TEXT_FIELDS
from ltx_wizard.tui.widgets.validation_panel import ValidationPanel

if TYPE_CHECKING:
    from ltx_wizard.core.plan.model_checks import CheckItem


def recipe_label(name: str, modes: str) -> str:
    return f"{name} · {modes}" if modes else name


def form_request(values: dict[str, str], request: PlanRequest) -> tuple[PlanRequest, dict[str, str]]:
    """(the draft, fields it could not hold with why: a URL typed for a file)."""
    raw: dict[str, object] = {name: values[name] for name, _, _ in FIELDS}
    raw.update({name: values[name] for name in TEXT_FIELDS})
    raw.update(
        training_mode=values["training_mode"],
        recipe=values["recipe"],
        video_only=values["video_only"],
        validation_media=ValidationPanel.media(values),
        validation_prompts=ValidationPanel.prompts(values),
        validation=values["validation"],
    )
    return lenient_request({**asdict(request), **raw})


def missing_models_note(by_kind: dict[str, list], values: dict[str, str]) -> str | None:
    """The skill's onboarding: offer the download, never start one unasked."""
    lacking = [
        what
        for what, kind in (("LTX checkpoint", "checkpoint"), ("Gemma text encoder", "text_encoder"))
        if not by_kind.get(kind) and not values[kind]
    ]
    if not lacking:
        return None
    return (
        f"No {' or '.join(lacking)} found on disk: F3 offers the files the "
        "trainer's docs name (asking before each), as does `ltx-wizard models`."
    )


def field_verdict(
    name: str, item: CheckItem | None, draft: PlanRequest, problems: dict[str, str]
) -> tuple[bool | None, str, str | None]:
    """(ok, text, warning) under one field, from its check. The dataset options under the data
    field have no line of their own: a value they cannot hold is said under the data field."""
    option = next((problems[n] for n in TEXT_FIELDS if n in problems), None)
    if name == "data_root" and option is not None:
        return False, option, None
    empty = getattr(draft, name) is None and name not in problems
    if empty and (name in REQUIRED or (item is not None and not item.ok)):
        # The checks speak in CLI flags ("pass --checkpoint FILE"); here it is a field.
        return False, EMPTY_HINT[name], None
    if item is not None:
        return item.ok, item.summary if item.ok else (item.error or "not usable"), item.warning
    return None, "", None


def problem_fields(
    draft: PlanRequest, results: dict[str, CheckItem], validation_error: str | None
) -> list[str]:
    """The fields that keep Continue refused, in the order they are named."""
    bad = [n for n, item in results.items() if not item.ok]
    bad += ["validation"] if validation_error else []
    bad += [n for n in REQUIRED if getattr(draft, n) is None and n not in bad]
    return bad
