"""Command-line values checked before any use: text that is UTF-8, paths the system can open,
counts in ASCII digits under a bound. Each refusal is one UsageError naming the option.

A value typed on a terminal with another locale (`$'caf\\xe9'`) arrives as undecodable bytes
(surrogates): printing it later raised UnicodeEncodeError. A path longer than the system takes
(`ENAMETOOLONG`) failed at the first open, far from the option that gave it. `int()` takes `²`
as a digit to `isdigit()` but refuses it, and 5,000 digits exceed its limit.
"""

from __future__ import annotations

import os

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.base.text_safety import clean_text, clip

# Linux: a name (one path component) is at most 255 bytes on ext4, xfs, btrfs and tmpfs; a whole
# path at most PATH_MAX (4096) bytes, its terminating NUL included.
NAME_MAX = 255
PATH_MAX = 4096


def check_text(value: str, option: str) -> str:
    """Refuse text holding bytes that are not UTF-8 (they cannot be printed nor written)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        # the bytes around the first odd one, as typed: \xff for a byte that is not UTF-8
        near = value[max(0, exc.start - 30) : exc.start + 30]
        shown = ("…" if exc.start > 30 else "") + clip(
            clean_text(near.encode("utf-8", "surrogateescape").decode("ascii", "backslashreplace")), 60
        )
        raise UsageError(
            f"{option} {shown}: holds bytes that are not UTF-8 text; type it in UTF-8 "
            "(the terminal's locale, LANG, may be another)"
        ) from None
    return value


def check_path(value: str, option: str) -> str:
    """Refuse a path the system cannot open for its length alone: whole, or one name in it."""
    check_text(value, option)
    data = os.fsencode(value)
    shown = clip(clean_text(value), 60)
    if len(data) >= PATH_MAX:
        raise UsageError(
            f"{option} {shown}: the path is too long, {len(data)} bytes long, over the "
            f"{PATH_MAX - 1} a path may have: shorten it"
        )
    longest = max(data.split(b"/"), key=len)
    if len(longest) > NAME_MAX:
        raise UsageError(
            f"{option} {shown}: a name in the path is too long, {len(longest)} bytes long, over "
            f"the {NAME_MAX} a file or folder name may have: shorten it"
        )
    return value


def parse_count(text: str, option: str, *, most: int) -> int:
    """A whole number from 0 to `most`, in ASCII digits only (no `²`, no `٣`, no sign)."""
    stripped = text.strip()
    if not (stripped.isascii() and stripped.isdigit()):
        raise UsageError(f"{option} {clip(clean_text(text), 40)}: give a whole number from 0 to {most:,}")
    if len(stripped.lstrip("0")) > len(str(most)) or int(stripped) > most:
        raise UsageError(f"{option} {clip(clean_text(text), 40)}: at most {most:,}")
    return int(stripped)


def count_or_path(text: str, option: str, *, most: int) -> str:
    """A value that is a count or else a path (`--holdout 2`, `--holdout mine.jsonl`): one that
    reads as a number (`²`, `٣`, 5,000 digits) is checked as a count, never taken for a path."""
    stripped = text.strip()
    if stripped and all(ch.isdigit() or ch.isnumeric() for ch in stripped):
        parse_count(stripped, option, most=most)
        return text
    return check_path(text, option)
