"""Models offered for download (the skill's onboarding): the release's files one at a time, each
with size, free disk, the gated-terms notice and the token state, downloaded only after `y` for
that file. Dismisses {role: path} of what was downloaded (the Paths screen checks them as typed
paths), or None.

Offers and downloads run in thread workers (network); they only post messages. While a file
downloads, its partial file under the destination is measured twice a second for the progress.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from rich.text import Text
from textual.widgets import Static

from ltx_wizard.core.base.text_safety import clean_block, clean_text


@dataclass
class OffersReady(Message):
    offers: list[Any]
    error: str | None


@dataclass
class Downloaded(Message):
    path: Path | None
    error: str | None


def _bytes_under(folder: Path) -> int:
    total = 0
    for path in folder.rglob("*"):
        try:
            if path.is_file():
                total += path.stat().st_size
        except OSError:
            continue
    return total


# This dialog's F1 help (dialogs/help.py shows it).
DOWNLOAD_HELP = (
    "Download models",
    """\
LTX-2.5 (5) or LTX-2.3 (3) picks the release; then each file is offered alone: Download (y)
fetches it (resumable) into `$LTX_MODELS_DIR` or `~/models`, Skip (n) passes it. A gated file needs its terms accepted on the model page
and a token (`hf auth login` or `HF_TOKEN`); Close (Esc): what was downloaded fills the fields.""",
)


class DownloadDialog(ModalScreen[dict | None]):
    F1_HELP = DOWNLOAD_HELP
    BINDINGS = [
        Binding("5", "release('ltx-2.5')", "LTX-2.5"),
        Binding("3", "release('ltx-2.3')", "LTX-2.3"),
        Binding("y", "answer(True)", "Download"),
        Binding("n", "answer(False)", "Skip"),
        Binding("escape", "close", "Close"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.offers: list = []
        self.index = -1  # the offer shown; -1 while choosing the release
        self.busy = False
        self.got: dict[str, str] = {}
        self._start_bytes = 0

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static("Download models", classes="dialog-title")
            yield Static(
                "Which release? 5: LTX-2.5 (transformer, packed Gemma 4, both VAEs) · "
                "3: LTX-2.3 (unified checkpoint and its Gemma 3 folder). Each file is "
                "offered alone; nothing downloads without y.",
                id="dl-body",
                classes="dialog-body",
            )
            yield Static("", id="dl-status")

    def action_release(self, release: str) -> None:
        if self.index == -1 and not self.busy:
            self.busy = True
            self.query_one("#dl-status", Static).update("Asking the Hub for sizes and access…")
            self._offer(release)

    @work(thread=True, exclusive=True, exit_on_error=False, group="offers")
    def _offer(self, release: str) -> None:
        from ltx_wizard.core.base.errors import WizardError
        from ltx_wizard.core.inputs.model_download import make_offers

        try:
            self.post_message(OffersReady(make_offers(release), None))
        except WizardError as exc:
            self.post_message(OffersReady([], exc.message))
        except Exception as exc:  # noqa: BLE001 - never a dialog stuck on "Asking the Hub"
            self.post_message(
                OffersReady(
                    [],
                    f"cannot ask the Hub ({type(exc).__name__}): retry, or download with `ltx-wizard models`",
                )
            )

    @on(OffersReady)
    def _ready(self, message: OffersReady) -> None:
        self.busy = False
        if message.error is not None:
            self.query_one("#dl-status", Static).update(Text(clean_text(message.error)))
            return
        self.offers = message.offers
        self._show(0)

    def _show(self, index: int) -> None:
        self.index = index
        if index >= len(self.offers):
            self.dismiss(self.got or None)
            return
        offer = self.offers[index]
        body = f"{index + 1} of {len(self.offers)}: {offer.line()}"
        if offer.refusal:
            body += f"\n\nNot offered: {offer.refusal}\nn goes on."
        else:
            body += "\n\ny downloads it (resumable), n skips it."
        # the Hub's words: never markup, never an escape
        self.query_one("#dl-body", Static).update(Text(clean_block(body)))
        self.query_one("#dl-status", Static).update("")

    def action_answer(self, yes: bool) -> None:
        if self.busy or not 0 <= self.index < len(self.offers):
            return
        offer = self.offers[self.index]
        if not yes or offer.refusal:
            self._show(self.index + 1)
            return
        self.busy = True
        self._start_bytes = _bytes_under(offer.dest) if offer.dest.exists() else 0
        self._timer = self.set_interval(0.5, self._tick)
        self._fetch(offer)

    def _tick(self) -> None:
        offer = self.offers[self.index]
        have = _bytes_under(offer.dest) - self._start_bytes if offer.dest.exists() else 0
        total = f" of {offer.size_bytes / 1e9:.2f} GB" if offer.size_bytes else ""
        self.query_one("#dl-status", Static).update(f"Downloading: {have / 1e9:.2f} GB{total}")

    @work(thread=True, exclusive=True, exit_on_error=False, group="download")
    def _fetch(self, offer) -> None:
        from ltx_wizard.core.base.errors import WizardError
        from ltx_wizard.core.inputs.model_download import download

        try:
            self.post_message(Downloaded(download(offer), None))
        except WizardError as exc:
            self.post_message(Downloaded(None, exc.message))
        except Exception as exc:  # noqa: BLE001 - shown in one line, not raised
            self.post_message(
                Downloaded(None, f"the download failed ({type(exc).__name__}): retry (it resumes)")
            )

    @on(Downloaded)
    def _downloaded(self, message: Downloaded) -> None:
        self.busy = False
        self._timer.stop()
        if message.error is not None:
            self.query_one("#dl-status", Static).update(
                Text(f"Failed: {clean_text(message.error)[:300]}\ny retries (it resumes), n skips.")
            )
            return
        self.got[self.offers[self.index].file.role] = str(message.path)
        self._show(self.index + 1)

    def action_close(self) -> None:
        if not self.busy:
            self.dismiss(self.got or None)
