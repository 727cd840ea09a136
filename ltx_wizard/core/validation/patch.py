"""Splices inside `validation.samples`, which yaml_patch.py's dotted keys cannot reach.

The same byte-preserving idea as yaml_patch.py (compose with ruamel, take each node's start/end
marks, replace only that span), for list items: a media path or a prompt (a folded `>-` block in
the shipped files) replaced by a one-line string, a sample's `conditions:` removed, samples after
the first n removed, prompt-only samples appended. The shipped comments around and inside the
samples stay. `samples_text` checks the result against the samples it was asked to write and, when
a shape cannot be spliced (a flow list, a dash on a line of its own), writes the list in flow
style instead, so the result is always right even if less pretty.
"""

from __future__ import annotations

from typing import Any, Sequence

from ruamel.yaml import YAML
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from ltx_wizard.core.io.yaml_guard import yaml_json
from ltx_wizard.core.io.trainer_config import trainer_config
from ltx_wizard.core.io.yaml_patch import YamlPatchError

Path_ = Sequence[str | int]


def _compose(text: str) -> Node:
    node: Node = YAML(typ="rt").compose(text)
    return node


def _node(text: str, path: Path_) -> tuple[ScalarNode | None, Node]:
    """(key node or None for a list item, value node) at `path`."""
    node: Node = _compose(text)
    key = None
    for part in path:
        if isinstance(part, int):
            if not isinstance(node, SequenceNode) or part >= len(node.value):
                raise YamlPatchError(f"no item {part} in the validation samples")
            key, node = None, node.value[part]
        else:
            if not isinstance(node, MappingNode):
                raise YamlPatchError(f"cannot reach {part}: not a section of keys")
            found = [(k, v) for k, v in node.value if isinstance(k, ScalarNode) and k.value == part]
            if not found:
                raise YamlPatchError(f"no key {part}")
            key, node = found[0]
    return key, node


def _leaf_end(text: str, node: Node) -> int:
    """Where a node's own text ends (block collections: their last leaf; trailing blanks cut)."""
    while isinstance(node, (SequenceNode, MappingNode)) and node.value and not node.flow_style:
        last = node.value[-1]
        node = last[1] if isinstance(last, tuple) else last
    end: int = node.end_mark.index
    while end > node.start_mark.index and text[end - 1] in " \t\r\n":
        end -= 1  # a block scalar's end mark runs on over blank lines and the next indent
    return end


def _line_start(text: str, index: int) -> int:
    return text.rfind("\n", 0, index) + 1


def _line_end(text: str, index: int) -> int:
    nl = text.find("\n", index)
    return len(text) if nl < 0 else nl + 1


def set_string(text: str, path: Path_, value: str) -> str:
    """The scalar at `path` (one line, or a block like `>-`) becomes one JSON-quoted line."""
    _, node = _node(text, path)
    if not isinstance(node, ScalarNode) or node.anchor or text[node.start_mark.index] in "!&*":
        raise YamlPatchError("not a plain value")
    start, end = node.start_mark.index, node.end_mark.index
    if node.style in ("|", ">"):
        end = _leaf_end(text, node)
    return text[:start] + yaml_json(value) + text[end:]


def remove_key(text: str, path: Path_) -> str:
    """Remove the key at `path` and its whole value (its lines only)."""
    key, node = _node(text, path)
    if key is None:
        raise YamlPatchError("not a key")
    start = _line_start(text, key.start_mark.index)
    if text[start : key.start_mark.index].strip():
        raise YamlPatchError("the key shares its line with a dash")
    return text[:start] + text[_line_end(text, _leaf_end(text, node)) :]


def keep_items(text: str, path: Path_, count: int) -> str:
    """Remove the items of the block list at `path` after the first `count` (count >= 1)."""
    _, seq = _node(text, path)
    if not isinstance(seq, SequenceNode) or seq.flow_style or count < 1:
        raise YamlPatchError("not a block list")
    if count >= len(seq.value):
        return text
    first = seq.value[count].start_mark.index
    start = _line_start(text, first)
    if text[start:first].strip() != "-":
        raise YamlPatchError("a list item's dash stands on its own line")
    return text[:start] + text[_line_end(text, _leaf_end(text, seq)) :]


def append_prompts(text: str, path: Path_, prompts: Sequence[str]) -> str:
    """Append `- prompt: "..."` items to the block list at `path`, indented as its first item."""
    _, seq = _node(text, path)
    if not isinstance(seq, SequenceNode) or seq.flow_style or not seq.value:
        raise YamlPatchError("not a block list")
    first = seq.value[0].start_mark.index
    dash = text[_line_start(text, first) : first]
    if dash.strip() != "-":
        raise YamlPatchError("a list item's dash stands on its own line")
    eol = "\r\n" if "\r\n" in text else "\n"
    at = _line_end(text, _leaf_end(text, seq))
    lines = "".join(f"{dash}prompt: {yaml_json(p)}{eol}" for p in prompts)
    if at == len(text) and not text.endswith("\n"):
        lines = eol + lines
    return text[:at] + lines + text[at:]


def set_list(text: str, path: str, value: list[Any], *, only_if_set: bool = False) -> str:
    """A whole list in flow style (trial_config.set_list: only that key's value span changes)."""
    from ltx_wizard.core.tuning.trial_config import set_list as flow

    return flow(text, path, value, only_if_set=only_if_set)


def flow_samples(text: str, samples: list[dict[str, Any]]) -> str:
    """The whole samples list in flow style (the fallback when splicing cannot keep the shape)."""
    return set_list(text, "validation.samples", samples)


def _plain(text: str) -> Any:
    return YAML(typ="safe", pure=True).load(text)


def checked(before: str, after: str, samples: list[dict[str, Any]]) -> bool:
    """`after` = `before` with exactly these validation samples."""
    old, new = _plain(before), _plain(after)
    if trainer_config(new).validation.samples != samples:
        return False
    # the rest must read the same: the splice's own target taken out of both
    old.get("validation", {}).pop("samples", None)
    new.get("validation", {}).pop("samples", None)
    return bool(old == new)
