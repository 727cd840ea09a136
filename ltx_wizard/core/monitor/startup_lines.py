"""Two facts a run logs once at start-up: the W&B run URL and the attention backends.

The attention record can be folded by rich over several lines (below ~170 columns, mid-word too):
its lines are gathered until a line that is not a continuation ends it.
"""

from __future__ import annotations

import re

from ltx_wizard.core.monitor.history_doc import StartupDoc
from ltx_wizard.core.trainer_output import grammar, history_scan

# wandb prints `wandb: 🚀 View run <name> at: https://wandb.ai/<entity>/<project>/runs/<id>`
_WANDB = re.compile(r"(https://wandb\.ai/\S{1,400}/runs/[\w-]{1,100})")
# ltx_core/model/transformer/model.py LTXModel.__init__:
# "Building transformer with attention backends -- self: %s, masked: %s". The folded lines are
# joined with nothing between them (the backend names hold no spaces), so every space here is
# optional.
_ATTENTION = re.compile(r"attention\s*backends\s*--\s*self:\s*(\S+?),?\s*masked:\s*(\S+)")
_SOURCE = re.compile(r"\s+[\w.-]+\.py:\d+\s*$")  # rich's source column on a record's first line
CONTINUATION = grammar.CONTINUATION.decode()


class StartupLines:
    def __init__(self) -> None:
        self.wandb_url: str | None = None
        self.attention: str | None = None
        self.pending: list[str] | None = None  # the attention record, until the next one starts

    def ends(self, line: str) -> None:
        """Any line but a continuation ends the attention record being gathered."""
        if self.pending is not None and not line.startswith(CONTINUATION):
            self.done()

    def done(self) -> None:
        m = _ATTENTION.search("".join(self.pending or ()))
        self.pending = None
        if m:
            self.attention = f"self: {m.group(1)}, masked: {m.group(2)}"

    def line(self, line: str) -> bool:
        """Read `line`; True when it was one of these (nothing else to look for in it)."""
        if self.pending is not None and line.startswith(CONTINUATION):
            if len(self.pending) < history_scan.FOLD_LINES:
                self.pending.append(line.strip())
            else:
                self.done()
            return True
        if "wandb.ai/" in line:
            m = _WANDB.search(line)
            if m:
                self.wandb_url = m.group(1)
            return True
        if "attention backends" in line:
            self.pending = [_SOURCE.sub("", line).strip()]
            return True
        return False

    def to_doc(self) -> StartupDoc:
        return StartupDoc(wandb_url=self.wandb_url, attention=self.attention, pending=self.pending)

    @classmethod
    def from_doc(cls, doc: StartupDoc) -> StartupLines:
        found = cls()
        found.wandb_url, found.attention = doc.wandb_url, doc.attention
        found.pending = None if doc.pending is None else list(doc.pending[: history_scan.FOLD_LINES])
        return found
