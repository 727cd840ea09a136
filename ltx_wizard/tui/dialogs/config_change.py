"""A config change shown as its diff before it is written: True only for an explicit yes.

The sentence (what the change means) and the diff scroll together in a region sized to the
terminal, so the buttons stay visible at 80x24 however long either is; the arrow keys, PgUp/PgDn
and Home/End scroll it (the focus stays on the buttons), and a line says so when it overflows.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.geometry import Size
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from ltx_wizard.core.base.text_safety import clean_text


def diff_text(diff: str) -> Text:
    """A unified diff coloured by line kind (and readable without colour: the +/- stay)."""
    text = Text()
    for line in diff.splitlines():
        style = "green" if line.startswith("+") else "red" if line.startswith("-") else "dim"
        text.append(clean_text(line) + "\n", style=style)
    return text


# This dialog's F1 help (dialogs/help.py shows it).
CONFIG_CHANGE_HELP = (
    "A change to config.yaml",
    """\
The diff shows exactly what would change in `config.yaml` (lines with - go, lines with + come).
Yes (y) writes it (the previous file is kept beside it); No (n or Esc) leaves everything as it is. Starting
the run again is a question of its own.""",
)


class ConfigChangeDialog(ModalScreen[bool]):
    F1_HELP = CONFIG_CHANGE_HELP
    BINDINGS = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
        # keys every terminal sends over SSH and tmux; the focused button has no use for them
        Binding("up,k", "scroll_text('up')", "Scroll up", show=False),
        Binding("down,j", "scroll_text('down')", "Scroll down", show=False),
        Binding("pageup", "scroll_text('page_up')", "Page up", show=False),
        Binding("pagedown", "scroll_text('page_down')", "Page down", show=False),
        Binding("home", "scroll_text('home')", "Top", show=False),
        Binding("end", "scroll_text('end')", "End", show=False),
    ]
    # What the dialog holds besides its text: border and padding (4 rows), the title (2),
    # the scroll hint (1), the buttons (4); the dialog itself is at most 95% of the screen.
    CHROME_ROWS = 11

    def __init__(self, title: str, sentence: str, diff: str, *, yes: str = "Apply") -> None:
        super().__init__()
        self.title_text, self.sentence, self.diff, self.yes_label = title, sentence, diff, yes
        self.fitted_to: Size | None = None

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog config-change"):
            yield Static(self.title_text, classes="dialog-title")
            # the sentence and the diff scroll together: the buttons stay on screen at 80x24
            with VerticalScroll(id="diff"):
                yield Static(Text(clean_text(self.sentence)), classes="dialog-body")
                yield Static(diff_text(self.diff))
            hint = Static("↑ ↓ PgUp PgDn Home End scroll the text", id="scroll-hint", classes="dialog-hint")
            hint.display = False
            yield hint
            with Horizontal(classes="dialog-buttons"):
                yield Button(f"{self.yes_label} (y)", id="yes", variant="warning")
                yield Button("Not now (n)", id="no", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()  # checkpoints are precious: no is the default

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit)

    def _fit(self) -> None:
        """The text region as tall as its text, up to what the screen leaves beside the rest.
        A region of auto height counts its whole content in the dialog's height (the dialog
        then fills the screen below its buttons): long content gets the capped height itself."""
        region = self.query_one("#diff", VerticalScroll)
        room = max(3, int(self.size.height * 0.95) - self.CHROME_ROWS)
        content = region.virtual_size.height
        region.styles.height = min(content, room) if content > room else "auto"
        self.query_one("#scroll-hint").display = content > room
        self.fitted_to = self.size  # the screen size the text region is sized for now

    def action_scroll_text(self, how: str) -> None:
        region = self.query_one("#diff", VerticalScroll)
        moves = {
            "up": region.scroll_up,
            "down": region.scroll_down,
            "page_up": region.scroll_page_up,
            "page_down": region.scroll_page_down,
            "home": region.scroll_home,
            "end": region.scroll_end,
        }
        moves[how](animate=False)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)
