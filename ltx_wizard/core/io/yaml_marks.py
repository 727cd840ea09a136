"""End-of-line marks on the config lines the wizard changed (`  # ltx-wizard: autotune (was 1)`).

A comment appended at the end of a value's own line changes no value and keeps the shipped
comment before it, so the file stays the user's shipped config plus visible edits. Only one-line
values are marked (the byte-preserving patcher writes no other kind); a second tuning replaces
the wizard's earlier mark on that line instead of adding another.
"""

from __future__ import annotations

import re
from typing import Mapping

from ltx_wizard.core.io.yaml_patch import (
    YamlPatchError,
    _compose,
    _find_key,
    _plain_load,
    _typed,
)
from ruamel.yaml.nodes import MappingNode, Node

MARK = "# ltx-wizard:"
_LINE = re.compile(r"([^\r\n]*)(\r\n|\r|\n|$)")
_KEPT_WORDS = "shipped comment, about the old value: "
_KEPT = re.compile(re.escape(_KEPT_WORDS) + r'"[^"]*"')


def mark_changed(text: str, notes: Mapping[str, str], was: Mapping[str, str] | None = None) -> str:
    """`text` with `  # ltx-wizard: NOTE` at the end of each dotted key's value line. `was`: the
    value each key had, as shown; a shipped comment that names it is said to be about it."""
    if not notes:
        return text
    root = _compose(text)
    lines = [(m.group(1), m.group(2)) for m in _LINE.finditer(text) if m.group(0)]
    for path, note in notes.items():
        node = _value_node(root, path)
        if node is None or node.start_mark.line != node.end_mark.line:
            continue  # a section or a multi-line value: no single line to mark
        row = node.start_mark.line
        body, eol = lines[row]
        earlier = body.find("  " + MARK)
        kept = None
        if earlier >= 0:  # an earlier tuning's mark: replaced, the shipped comment it held kept
            kept = _KEPT.search(body[earlier:])
            body = body[:earlier]
        if kept:
            note = f"{note}; {kept.group(0)}"
        old = (was or {}).get(path)
        if old:
            body, note = _shipped_comments(lines, row, body, node.end_mark.column, note, old)
        lines[row] = (f"{body}  {MARK} {' '.join(note.split())}", eol)
    marked = "".join(body + eol for body, eol in lines)
    if _typed(_plain_load(marked)) != _typed(_plain_load(text)):
        raise YamlPatchError("marking the changed lines would change a value; edit by hand")
    return marked


def _tokens(value: str) -> set[str]:
    """What a comment naming `value` would contain: `adamw8bit` -> adamw8bit, 8bit; `int8-quanto`
    -> int8quanto, int8, quanto (compared without case, spaces or punctuation)."""
    low = value.lower()
    found = {re.sub(r"[^a-z0-9]", "", low)} | set(re.split(r"[^a-z0-9]+", low))
    found |= set(re.findall(r"\d+bit", low))
    return {t for t in found if len(t) >= 3}


def _names(comment: str, value: str) -> bool:
    flat = re.sub(r"[^a-z0-9]", "", comment.lower())
    return any(token in flat for token in _tokens(value))


def _shipped_comments(
    lines: list[tuple[str, str]], row: int, body: str, end: int, note: str, old: str
) -> tuple[str, str]:
    """A shipped comment that names the old value describes it, not the new one: one after the
    value moves into the mark (quoted, still there to read), and one right above the key is
    said to describe the shipped value, so neither reads as if it described the new value."""
    trailing = body[end:]
    hash_at = trailing.find("#")
    if hash_at >= 0 and trailing[:hash_at].strip() == "" and _names(trailing[hash_at:], old):
        said = trailing[hash_at + 1 :].strip()
        body = body[:end]
        note = f'{note}; {_KEPT_WORDS}"{said.replace(chr(34), chr(39))}"'
    above = row - 1
    block = []
    while above >= 0 and lines[above][0].strip().startswith("#") and MARK not in lines[above][0]:
        block.append(lines[above][0])
        above -= 1
    if any(_names(line, old) for line in block):
        note = f"{note}; the comment above describes the shipped {old}"
    return body, note


def _value_node(root: Node | None, path: str) -> Node | None:
    node = root
    for part in path.split("."):
        if not isinstance(node, MappingNode):
            return None
        pair = _find_key(node, part, path)
        if pair is None:
            return None
        node = pair[1]
    return node
