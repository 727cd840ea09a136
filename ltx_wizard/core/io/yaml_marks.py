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
    YamlPatchError, _compose, _find_key, _plain_load, _typed,
)
from ruamel.yaml.nodes import MappingNode, Node

MARK = "# ltx-wizard:"
_LINE = re.compile(r"([^\r\n]*)(\r\n|\r|\n|$)")


def mark_changed(text: str, notes: Mapping[str, str]) -> str:
    """`text` with `  # ltx-wizard: NOTE` at the end of each dotted key's value line."""
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
        if earlier >= 0:
            body = body[:earlier]
        lines[row] = (f"{body}  {MARK} {' '.join(note.split())}", eol)
    marked = "".join(body + eol for body, eol in lines)
    if _typed(_plain_load(marked)) != _typed(_plain_load(text)):
        raise YamlPatchError("marking the changed lines would change a value; edit by hand")
    return marked


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
