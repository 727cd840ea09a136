"""What the Paths screen asks about validation, computed off the event loop (core/validation/validation_choice.py
decides; this reads the recipe's shipped samples and the dataset file's media for the screen)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from ltx_wizard.core.dataset.dataset_media import MAX_OFFERS, Offer, dataset_offers, offers_for
from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.validation.validation_media import MediaSlot, media_slots, slot_problems
from ltx_wizard.core.validation.validation_choice import MEDIA_FLAG, Mode, describe_slots, plan_validation
from ltx_wizard.core.io.yaml_patch import load_yaml


@dataclass(frozen=True)
class ValidationForm:
    slots: tuple[MediaSlot, ...] = ()  # empty: the recipe's samples read no media (no question)
    shipped_ok: bool = False  # the shipped files are readable ones (a filled-in config)
    offers: tuple[Offer, ...] = ()  # the dataset file's media that fit a slot, at most 9
    error: str | None = None  # what plan would refuse, in its words
    note: str | None = None  # what plan will write, in its words

    @property
    def needs(self) -> str:
        return describe_slots(self.slots)


def recipe_text(trainer_root: str | None, recipe: str) -> str:
    from ltx_wizard.core.inputs.checkout import find_checkout
    from ltx_wizard.core.inputs.recipes import find_recipe
    from ltx_wizard.core.io.bounded import read_text

    checkout = find_checkout(trainer_root or None)
    # bounded, regular file only (core/io/bounded.py): the checkout is the user's
    return read_text(find_recipe(checkout.trainer_dir / "configs", recipe).path, what="shipped config")


def _offers(slots: Sequence[MediaSlot], data_root: str) -> tuple[Offer, ...]:
    if not data_root or not slots:
        return ()
    found = dataset_offers(Path(data_root))
    ranked: dict[Path, Offer] = {}
    for kind in dict.fromkeys(s.kind for s in slots):
        for offer in offers_for(kind, found):
            ranked.setdefault(offer.path, offer)
    return tuple(list(ranked.values())[:MAX_OFFERS])


def offered_media(config_text: str, data_root: Path) -> list[Path]:
    """The dataset file's media that fit the config's validation slots (for plan's warning)."""
    try:
        return [o.path for o in _offers(media_slots(load_yaml(config_text)), str(data_root))]
    except (WizardError, OSError):
        return []


def validation_form(
    trainer_root: str | None,
    recipe: str,
    data_root: str,
    media: Sequence[str],
    prompts: Sequence[str],
    mode: Mode | None,
) -> ValidationForm:
    """The recipe's media slots, what the data offers, and plan's verdict on the typed choice."""
    try:
        text = recipe_text(trainer_root, recipe)
        slots = tuple(media_slots(load_yaml(text)))
    except (WizardError, OSError, UnicodeDecodeError):
        return ValidationForm()  # no checkout or recipe yet: the other fields say why
    if not slots:
        return ValidationForm()
    shipped_ok = not slot_problems(load_yaml(text))
    offers = _offers(slots, data_root)
    if mode == "media" and not media and not shipped_ok:  # the question, asked on the screen
        return ValidationForm(
            slots,
            shipped_ok,
            offers,
            error=(
                f"type a file for each ({describe_slots(slots)}), or choose prompts only or no validation"
            ),
        )
    try:
        planned = plan_validation(text, [Path(m) for m in media], prompts, mode, recipe)
    except WizardError as exc:  # in plan's words, less the flag the screen has no use for
        error = exc.message.removeprefix(f"{MEDIA_FLAG} ")
        return ValidationForm(slots, shipped_ok, offers, error=error)
    return ValidationForm(slots, shipped_ok, offers, note=planned.notes[0] if planned.notes else None)
