"""The Paths screen's validation section: what the chosen recipe's validation samples read, the
user's files for them (the dataset file's media in a list one ↓ below the files box, where keys
1-9 pick; typed in the box, digits are text), their prompts, or
validation without media / none at all. Shown only for a recipe whose samples read media.

The screen's check worker computes a ValidationForm (core/validation/form.py) and posts
ValidationChecked; this widget only shows it and hands back what was typed and chosen.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input, OptionList, Select, Static, TextArea

from ltx_wizard.core.base.text_safety import clean_text

if TYPE_CHECKING:
    from ltx_wizard.core.plan.plan_request import PlanRequest

MODES = [
    ("Use these files (or the config's own, when readable)", "media"),
    ("Prompts only: validate without conditioning media", "prompts-only"),
    ("No validation", "off"),
]
SEPARATOR = ";"  # between files in the one-line box


@dataclass
class ValidationChecked(Message):
    """The check worker's ValidationForm for the draft request it was run on."""

    form: Any
    draft: Any


class Offers(OptionList):
    """The dataset file's media: 1-9 (or Enter on one) adds it as the next file."""

    BINDINGS = [Binding(str(n), f"take({n - 1})", show=False) for n in range(1, 10)]

    @dataclass
    class Taken(Message):
        path: str

    def __init__(self, **kwargs) -> None:
        super().__init__(compact=True, **kwargs)
        self.paths: list[str] = []

    def action_take(self, index: int) -> None:
        if index < len(self.paths):
            self.post_message(self.Taken(self.paths[index]))

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_take(event.option_index)


class MediaBox(Input):
    """The files box. Every key typed here is text (a path holds digits too); the dataset's media
    are one ↓ away, in the list below, where 1-9 pick (said on screen by OFFERS_HINT)."""

    BINDINGS = [Binding("down", "to_offers", "Pick below", show=False)]

    def action_to_offers(self) -> None:
        offers = self.screen.query_one("#validation-offers", Offers)
        if offers.display:
            offers.focus()


# Over the numbered list: how it is reached, since digits typed in the box stay text.
OFFERS_HINT = "From the dataset file: ↓ to this list, then 1-9 or Enter adds a file to the box"


class ValidationPanel(Vertical):
    DEFAULT_CSS = """
    ValidationPanel { height: auto; }
    ValidationPanel #validation-mode { width: 60; }
    ValidationPanel #validation-prompts { height: 4; }
    ValidationPanel Offers { height: auto; max-height: 6; }
    """

    def __init__(self, request: PlanRequest) -> None:
        super().__init__(id="validation")
        self._request = request

    def compose(self) -> ComposeResult:
        paths = self._request
        yield Static("Validation media", id="validation-needs", classes="field-label")
        yield Select(
            MODES, value=paths.validation or "media", allow_blank=False, id="validation-mode", compact=True
        )
        yield MediaBox(
            f"{SEPARATOR} ".join(map(str, paths.validation_media)),
            id="validation-media",
            placeholder=f"files in sample order, '{SEPARATOR}' between",
            compact=True,
        )
        hint = Static(OFFERS_HINT, id="validation-offers-hint", classes="dialog-hint")
        offers = Offers(id="validation-offers")
        hint.display = offers.display = False
        yield hint
        yield offers
        yield Static(
            "Validation prompts (optional, one per line; they replace the shipped ones)",
            classes="field-label",
        )
        yield TextArea(
            "\n".join(paths.validation_prompts),
            id="validation-prompts",
            compact=True,
            show_line_numbers=False,
            placeholder="one prompt per line (empty: the shipped prompts)",
        )
        yield Static("", id="validation-status", classes="field-status")

    def on_mount(self) -> None:
        self.display = False  # until a recipe whose samples read media is chosen

    # ----- what was chosen --------------------------------------------------------------------
    def values(self) -> dict[str, str]:
        return {
            "validation": str(self.query_one("#validation-mode", Select).value),
            "validation_media": self.query_one("#validation-media", Input).value.strip(),
            "validation_prompts": self.query_one("#validation-prompts", TextArea).text.strip(),
        }

    @staticmethod
    def media(values: dict[str, str]) -> tuple[str, ...]:
        return tuple(p.strip() for p in values.get("validation_media", "").split(SEPARATOR) if p.strip())

    @staticmethod
    def prompts(values: dict[str, str]) -> tuple[str, ...]:
        return tuple(p.strip() for p in values.get("validation_prompts", "").splitlines() if p.strip())

    # ----- what the check found ---------------------------------------------------------------
    def show(self, form: Any) -> None:
        self.display = bool(form.slots)
        if not form.slots:
            return
        needs = self.query_one("#validation-needs", Static)
        own = " (the config's own files are readable)" if form.shipped_ok else ""
        needs.update(f"Validation media: the recipe's samples read: {clean_text(form.needs)}{own}")
        offers = self.query_one("#validation-offers", Offers)
        offers.paths = [str(o.path) for o in form.offers]
        offers.clear_options()
        offers.add_options(
            [
                f"{i + 1}  {o.path.name}  ({o.role.replace('_', ' ')}, {o.source.name})"
                for i, o in enumerate(form.offers)
            ]
        )
        offers.display = bool(form.offers)
        self.query_one("#validation-offers-hint", Static).display = offers.display
        status = self.query_one("#validation-status", Static)
        status.set_class(form.error is None, "-ok")
        status.set_class(form.error is not None, "-bad")
        mark, text = ("✗ ", form.error) if form.error else ("✓ ", form.note or "")
        status.update(Text.assemble((mark, "bold"), clean_text(text)))  # may quote the recipe

    @on(Offers.Taken)
    def _take(self, event: Offers.Taken) -> None:
        box = self.query_one("#validation-media", Input)
        files = [*self.media({"validation_media": box.value}), event.path]
        box.value = f"{SEPARATOR} ".join(files)
        self.query_one("#validation-mode", Select).value = "media"
