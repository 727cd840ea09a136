"""Text from files, devices and the trainer, made safe to show: no control characters.

A GPU name, a safetensors metadata value or a path can carry escape sequences that would move
the cursor or retitle the terminal. `clean_text` drops C0/C1 control characters (keeping tab),
turning newlines into a visible `⏎` so one value never splits a line; `clean_block` is the same
for a block meant to span lines (a caption, a prompt, a log excerpt), keeping its newlines. These
two are the one sanitiser for text the wizard did not write, on screens and on stdout/stderr
alike. The TUI adds Textual markup escaping on top (tui/widgets/formatting.py `safe_markup`);
core stays free of Textual.
"""

from __future__ import annotations

import re

from ltx_wizard.core.base.errors import UsageError

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")


def clean_text(text: object) -> str:
    """One display-safe line: ANSI sequences removed, newlines shown as ⏎, other controls dropped."""
    value = str(text)
    value = _ANSI.sub("", value)
    value = value.replace("\r\n", "\n").replace("\n", "⏎").replace("\r", "⏎")
    return _CONTROL.sub("", value)


def clean_block(text: object) -> str:
    """Display-safe lines: as `clean_text`, but a newline (or a carriage return, which would
    let a line overwrite the one shown before it) stays a line break."""
    value = _ANSI.sub("", str(text))
    lines = value.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return "\n".join(_CONTROL.sub("", line) for line in lines)


def clip(text: object, limit: int = 80) -> str:
    """A value from a file, cut for a message: a 5,000-character version is not printed whole."""
    value = str(text)
    return value if len(value) <= limit else value[: limit - 1] + "…"


# C0 (tab and newline included), DEL, C1, and the Unicode line and paragraph separators: any of
# them in a path would end or split a line of launch.sh or slurm.sbatch, comments included.
_PATH_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def has_control(text: object) -> bool:
    return bool(_PATH_CONTROL.search(str(text)))


def require_plain_path(path: object, what: str) -> None:
    """Refuse a path holding a control character (UsageError naming `what`, the option).

    Generated scripts quote every path, but a newline inside a comment line still ends the
    comment: the rest of the path would run as a shell line. Refused where typed, not escaped."""
    if has_control(path):
        raise UsageError(
            f"{what} {clean_text(path)[:200]!r} contains a control character "
            "(newline, tab or escape): rename it to plain text or pick another"
        )
