"""Byte-preserving YAML patcher: change one scalar value without touching any other byte.

(A section or list can also be set to null as a whole: its own lines go, nothing else moves.)

A round-trip dump (even ruamel's) re-flows flow maps, list indentation and spacing, so the line diff
against the user's shipped config would show lines we never meant to change. Instead we compose the
text with ruamel.yaml, take each key's and value's exact start/end marks (the node-level position
data behind `.lc`, which also knows where a quoted scalar *ends*), and splice only that span.
Anything we cannot splice safely (flow maps, multi-line or block scalars, anchors, tags) raises.
"""

from __future__ import annotations

import difflib
import functools
import json
import math
import re
from typing import Any, Mapping

from ruamel.yaml import YAML
from ruamel.yaml.error import StreamMark, YAMLError
from ruamel.yaml.nodes import CollectionNode, MappingNode, Node, ScalarNode, SequenceNode

from ltx_wizard.core.base.text_edits import apply_edits, edit_between
from ltx_wizard.core.io.yaml_guard import YamlPatchError, yaml_json

# load_yaml is imported from here across the package
from ltx_wizard.core.io.yaml_parse import _compose, _plain_load, load_yaml  # noqa: F401

_MISSING = object()


def get_dotted(data: Mapping[str, Any], path: str, default: Any = _MISSING) -> Any:
    """`get_dotted(cfg, "model.model_path")`; KeyError (or `default`) when any part is absent."""
    node: Any = data
    for part in path.split("."):
        if not isinstance(node, Mapping) or part not in node:
            if default is _MISSING:
                raise KeyError(path)
            return default
        node = node[part]
    return node


def unified_diff(before: str, after: str, from_name: str, to_name: str) -> str:
    """A printable unified diff of two texts (line endings normalised for display)."""
    lines = difflib.unified_diff(before.splitlines(), after.splitlines(), from_name, to_name, lineterm="")
    return "".join(line + "\n" for line in lines)


def patch_yaml_text(text: str, changes: Mapping[str, object]) -> str:
    """Return `text` with each dotted key set to its value; every other byte is kept."""
    original = text
    for path, value in changes.items():
        _check_value(path, value)
    batched = _patch_together(text, changes) if len(changes) > 1 else None
    if batched is not None:
        return batched
    for path, value in changes.items():  # one at a time: each on the text the last one left
        text = _patch_one(text, path, value, _compose(text))
    _verify(original, text, changes)
    return text


def _patch_together(text: str, changes: Mapping[str, object]) -> str | None:
    """All changes found on one composed text (text_edits); None where that cannot be proven
    right (overlapping edits, a refusal, a re-read that differs): then one at a time."""
    try:
        root = _compose(text)
        edits = [edit_between(text, _patch_one(text, path, value, root)) for path, value in changes.items()]
        out = apply_edits(text, edits)
        if out is not None:
            _verify(text, out, changes)
        return out
    except YamlPatchError:  # the one-at-a-time path says the same, or patches it in turn
        return None


# --- one change -------------------------------------------------------------------------------


def _patch_one(text: str, path: str, value: object, root: Node | None) -> str:
    parts = path.split(".")
    if not path or any(not p for p in parts):
        raise YamlPatchError(f"bad config key {path!r}: use dotted names like model.model_path")
    if root is None:  # empty document: the new key is the whole content
        return _insert(text, len(text), 0, parts, value, _indent_unit(None))
    node: Node = root
    for depth, part in enumerate(parts):
        if not isinstance(node, MappingNode):
            where = ".".join(parts[:depth]) or "the top level"
            raise YamlPatchError(f"cannot set {path}: {where} is not a section of keys")
        if node.flow_style:
            raise YamlPatchError(
                f"cannot set {path}: {'.'.join(parts[:depth])} is a flow map ({{...}}); edit it by hand"
            )
        pair = _find_key(node, part, path)
        if pair is None:
            col = node.value[0][0].start_mark.column if node.value else 0
            at = _line_after(text, _content_end(node))
            return _insert(text, at, col, parts[depth:], value, _indent_unit(root))
        key, node = pair
    return _replace_scalar(text, path, key, node, value)


def _find_key(mapping: MappingNode, part: str, path: str) -> tuple[ScalarNode, Node] | None:
    found = [(k, v) for k, v in mapping.value if isinstance(k, ScalarNode) and k.value == part]
    if len(found) > 1:
        raise YamlPatchError(f"cannot set {path}: key {part!r} appears twice in its section")
    return found[0] if found else None


def _replace_scalar(text: str, path: str, key: ScalarNode, node: Node, value: object) -> str:
    if isinstance(value, (list, tuple)):
        return _replace_flow_list(text, path, node, value)
    if isinstance(node, CollectionNode):  # a MappingNode or a SequenceNode
        if value is None:
            return _section_to_null(text, path, key, node)
        raise YamlPatchError(f"cannot set {path}: it holds a section or list, not a single value")
    if not isinstance(node, ScalarNode):  # compose builds no other kind of node
        raise YamlPatchError(f"cannot set {path}: its value is not a single value; edit it by hand")
    start, end = node.start_mark.index, node.end_mark.index
    if start < key.end_mark.index or node.anchor:
        raise YamlPatchError(f"cannot set {path}: its value is an anchor or alias; edit it by hand")
    if start == end and node.value == "":  # `key:` with nothing after it
        colon = text.index(":", key.end_mark.index)
        return text[: colon + 1] + " " + _render(value, None, False) + text[colon + 1 :]
    if text[start] in "!&*":
        raise YamlPatchError(f"cannot set {path}: its value carries a YAML tag or anchor")
    if node.style in ("|", ">") or node.start_mark.line != node.end_mark.line:
        raise YamlPatchError(f"cannot set {path}: its value spans several lines; edit it by hand")
    was_string = str(node.tag).endswith(":str")
    return text[:start] + _render(value, node.style, was_string) + text[end:]


def _replace_flow_list(text: str, path: str, node: Node, value: list[object] | tuple[object, ...]) -> str:
    """A one-line flow list of scalars (`video_dims: [ 960, 544, 89 ]`), kept in its own style."""
    if not (
        isinstance(node, SequenceNode)
        and node.flow_style
        and node.start_mark.line == node.end_mark.line
        and all(isinstance(item, ScalarNode) for item in node.value)
        and not node.anchor
    ):
        raise YamlPatchError(f"cannot set {path}: only a one-line [a, b, c] list can be patched")
    start, end = node.start_mark.index, node.end_mark.index
    old = text[start:end]
    pad = " " if old.startswith("[ ") else ""
    items = ", ".join(_render(item, None, False) for item in value)
    return text[:start] + f"[{pad}{items}{pad}]" + text[end:]


def _section_to_null(text: str, path: str, key: ScalarNode, node: CollectionNode) -> str:
    """`key: null` in place of a whole section or list (e.g. training_strategy.audio: null):
    its lines go, the key's line stays; comments before and after the section are kept."""
    if node.anchor or text[node.start_mark.index] in "!&*":
        raise YamlPatchError(f"cannot set {path}: its value is an anchor or alias; edit it by hand")
    if node.flow_style:
        start, end = node.start_mark.index, node.end_mark.index
        if node.start_mark.line != node.end_mark.line:
            raise YamlPatchError(f"cannot set {path}: its value spans several lines; edit it by hand")
        return text[:start] + "null" + text[end:]
    colon = text.index(":", key.end_mark.index)
    last = _content_end(node).index
    eol = min((i for i in (text.find("\r", last), text.find("\n", last)) if i >= 0), default=len(text))
    return text[: colon + 1] + " null" + text[eol:]


# --- inserting absent keys --------------------------------------------------------------------


def _insert(text: str, at: int, col: int, parts: list[str], value: object, unit: int) -> str:
    eol = "\r\n" if "\r\n" in text else "\n"
    lines = []
    for i, part in enumerate(parts):
        pad = " " * (col + i * unit)
        if i < len(parts) - 1:
            lines.append(f"{pad}{_render_key(part)}:")
        else:
            lines.append(f"{pad}{_render_key(part)}: {_render(value, None, False)}")
    chunk = eol.join(lines)
    if len(parts) > 1 and col == 0 and text.strip():  # a new top-level section: blank line first
        chunk = eol + chunk
    if at >= len(text):
        if text and not text.endswith(("\n", "\r")):
            return text + eol + chunk  # keep "no newline at end of file" as it was
        return text + chunk + eol
    return text[:at] + chunk + eol + text[at:]


def _content_end(node: Node) -> StreamMark:
    """Mark where a node's own text ends (block collections: their last leaf, not what follows)."""
    if isinstance(node, (MappingNode, SequenceNode)) and not node.flow_style and node.value:
        last = node.value[-1]
        if isinstance(last, tuple):
            key, value = last
            if isinstance(value, ScalarNode) and value.start_mark.index == value.end_mark.index:
                end: StreamMark = key.end_mark  # `key:` with no value: its mark sits on the next token
                return end
            return _content_end(value)
        return _content_end(last)
    own_end: StreamMark = node.end_mark
    return own_end


def _line_after(text: str, mark: StreamMark) -> int:
    """Index of the start of the line after `mark` (a mark at column 0 already is one)."""
    if mark.column == 0 and mark.index > 0:
        return mark.index
    nl = text.find("\n", mark.index)
    if nl < 0:
        cr = text.find("\r", mark.index)
        return len(text) if cr < 0 else cr + 1
    return nl + 1


def _indent_unit(root: Node | None) -> int:
    """The file's own nesting step (first nested block map), 2 when it has none."""
    if isinstance(root, MappingNode):
        for key, val in root.value:
            if isinstance(val, MappingNode) and not val.flow_style and val.value:
                step: int = val.value[0][0].start_mark.column - key.start_mark.column
                if step > 0:
                    return step
    return 2


# --- rendering scalars ------------------------------------------------------------------------

_PLAIN_SAFE = re.compile(r"^[A-Za-z0-9_./~+=@-][A-Za-z0-9_./~+=@ ,()-]*$")
_YAML11_WORDS = {"y", "n", "yes", "no", "on", "off", "true", "false", "null", "~", ""}


def _check_value(path: str, value: object) -> None:
    if isinstance(value, (list, tuple)):
        for item in value:
            if isinstance(item, (list, tuple)):
                raise TypeError(f"{path}: only flat lists of scalars can be patched")
            _check_value(path, item)
        return
    if value is not None and not isinstance(value, (str, int, float, bool)):
        raise TypeError(f"{path}: only str/int/float/bool/None values can be patched")
    if isinstance(value, float) and math.isnan(value):
        raise TypeError(f"{path}: NaN is not a config value")


def _render_key(key: str) -> str:
    return key if _PLAIN_SAFE.match(key) and key.lower() not in _YAML11_WORDS else json.dumps(key)


def _render(value: object, style: str | None, was_string: bool) -> str:
    """YAML text for a scalar; strings keep the old value's quoting when it was a string."""
    if value is None:
        return "null"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_render(item, None, False) for item in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _render_float(value)
    assert isinstance(value, str)
    if style == "'" and "\n" not in value:
        return "'" + value.replace("'", "''") + "'"
    if style in (None, "") and was_string and _plain_ok(value):
        return value
    return yaml_json(value)  # a JSON string is a valid YAML "..." scalar


def _render_float(value: float) -> str:
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    text = repr(value)
    mantissa, _, exp = text.partition("e")
    if "." not in mantissa:
        mantissa += ".0"  # YAML 1.1 readers (PyYAML) need the dot to see a float
    if exp and exp[0] not in "+-":
        exp = "+" + exp
    return mantissa + ("e" + exp if exp else "")


@functools.lru_cache(maxsize=256)
def _plain_ok(value: str) -> bool:
    """Plain (unquoted) only when both YAML 1.1 and 1.2 readers read the same string back."""
    if not _PLAIN_SAFE.match(value) or value.lower() in _YAML11_WORDS or value != value.strip():
        return False
    for version in ((1, 1), (1, 2)):
        y = YAML(typ="safe", pure=True)
        y.version = version
        try:
            if y.load(f"k: {value}\n") != {"k": value}:
                return False
        except YAMLError:
            return False
    return True


# --- checks -----------------------------------------------------------------------------------


def _verify(before: str, after: str, changes: Mapping[str, object]) -> None:
    """Re-read both texts: the patched one must equal the original plus exactly these changes."""
    expected = _plain_load(before)  # a fresh plain copy: changing it leaves the parse alone
    for path, value in changes.items():
        node = expected
        *parents, last = path.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[last] = value
    got = _plain_load(after)
    if _typed(got) != _typed(expected):
        bad = next((p for p in changes if _typed(get_dotted(got, p, None)) != _typed(changes[p])), "")
        raise YamlPatchError(f"patching {bad or 'the config'} changed more than asked; edit the file by hand")


def _typed(data: Any) -> Any:
    """Make 1 != True != 1.0 in comparisons (YAML types matter to the trainer's schema)."""
    if isinstance(data, dict):
        return {k: _typed(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [_typed(v) for v in data]
    return (type(data).__name__, data)
