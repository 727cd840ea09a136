"""Parsing a config text once: the node tree the patcher splices at, the round-trip map every
plan step reads, and the plain values the patch's re-read compares, all from one ruamel compose."""

from __future__ import annotations

import copy
import functools
from typing import Any, NamedTuple

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap
from ruamel.yaml.error import YAMLError
from ruamel.yaml.nodes import MappingNode, Node, SequenceNode
from ruamel.yaml.scalarbool import ScalarBoolean

from ltx_wizard.core.io.yaml_guard import YamlPatchError, _one_line, guard_yaml


# One parse per text: a plan looks at the same config text in each of its steps (recipe, models,
# data, memory, validation, self-check, plan.md), and each ruamel parse costs ~8-15 ms. One compose
# gives both the node tree (whose marks the patcher splices at) and the map built from it, and the
# patch's re-read reuses that map, so each text is parsed once. The parse is shared, so it is
# frozen (FrozenMap, FrozenList: a change raises): every change goes through patch_yaml_text, which
# edits the text (and so gives a new text to parse). A text that does not even compose is not kept (lru_cache keeps no exception).
class _Parse(NamedTuple):
    node: Node | None  # None: an empty document
    data: FrozenMap | None  # None where `problem` says why the text is no config
    plain: bool  # every node has a core tag: `data` converts to what a safe load gives
    problem: str


@functools.lru_cache(maxsize=32)
def _parsed(text: str) -> _Parse:
    guard_yaml(text)
    try:
        node = YAML(typ="rt").compose(text)
    except RecursionError:
        raise YamlPatchError("nests too deeply to be a training config") from None
    except YAMLError as exc:
        raise YamlPatchError(f"not valid YAML: {_one_line(exc)}") from None
    plain = node is None or _core_tags_only(node)
    # A tree that composes can still fail to build (a duplicate key): the patcher still gets the
    # tree, to name the key itself, while loading it as a config says what is wrong.
    try:
        if node is None:
            data = None
        elif plain:
            data = YAML(typ="rt").constructor.construct_document(node)
        else:  # building may rewrite a merge key (<<) in the tree: build from a parse of its own
            data = YAML(typ="rt").load(text)
    except RecursionError:
        return _Parse(node, None, plain, "nests too deeply to be a training config")
    except YAMLError as exc:
        return _Parse(node, None, plain, f"not valid YAML: {_one_line(exc)}")
    if data is None:
        data = CommentedMap()
    if not isinstance(data, dict):
        return _Parse(node, None, plain, "YAML top level is not a mapping of keys")
    return _Parse(node, freeze(data), plain, "")


class FrozenMap(dict[Any, Any]):
    """A parsed config's mapping: read-only, since every reader of the same text shares it.
    `dict(m)` or `copy.deepcopy(m)` gives a mutable copy."""

    def _refuse(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError(
            "a parsed config is read-only: change a copy (dict(...)), or patch the "
            "text with yaml_patch.patch_yaml_text"
        )

    # read-only stand-ins: one refusal in place of each method that changes the map
    __setitem__ = __delitem__ = __ior__ = _refuse  # type: ignore[assignment]
    update = pop = popitem = clear = setdefault = _refuse  # type: ignore[assignment]

    def __deepcopy__(self, memo: dict[int, object]) -> dict[Any, Any]:
        return {copy.deepcopy(k, memo): copy.deepcopy(v, memo) for k, v in self.items()}

    def __copy__(self) -> dict[Any, Any]:
        return dict(self)


class FrozenList(list[Any]):
    """A parsed config's sequence: read-only, as FrozenMap; `list(s)` gives a mutable copy."""

    def _refuse(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("a parsed config is read-only: change a copy (list(...))")

    # as FrozenMap's: list's own signatures differ from the refusal's
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse  # type: ignore[assignment]
    append = extend = insert = remove = pop = clear = sort = reverse = _refuse

    def __deepcopy__(self, memo: dict[int, object]) -> list[Any]:
        return [copy.deepcopy(v, memo) for v in self]

    def __copy__(self) -> list[Any]:
        return list(self)


def freeze(data: Any) -> Any:
    """The parsed document, read-only all the way down (its scalars as ruamel built them)."""
    if isinstance(data, dict):
        frozen = FrozenMap()
        for key, value in data.items():
            dict.__setitem__(frozen, key, freeze(value))
        return frozen
    if isinstance(data, list):
        return FrozenList(freeze(v) for v in data)
    return data


def load_yaml(text: str) -> FrozenMap:
    """The config's values (ruamel's round-trip scalars); an empty document gives an empty map.
    Parsed once per text and shared by every caller, so it is frozen: a change raises."""
    parse = _parsed(text)
    if parse.data is None:
        raise YamlPatchError(parse.problem)
    return parse.data


_CORE_TAGS = frozenset(
    f"tag:yaml.org,2002:{t}" for t in ("str", "int", "float", "bool", "null", "map", "seq")
)


def _core_tags_only(root: Node) -> bool:
    todo = [root]
    while todo:
        node = todo.pop()
        # an explicit tag, even a core one (`!!str 5`), is built as a TaggedScalar: not plain
        if str(node.tag) not in _CORE_TAGS or getattr(node.ctag, "handle", None) is not None:
            return False
        if isinstance(node, MappingNode):
            for key, value in node.value:
                todo += (key, value)
        elif isinstance(node, SequenceNode):
            todo += node.value
    return True


def _compose(text: str) -> Node | None:
    parse = _parsed(text)
    if parse.plain:
        return parse.node
    node: Node | None = YAML(typ="rt").compose(text)  # a tree building may have rewritten (see _parsed)
    return node


def _plain_load(text: str) -> dict[Any, Any]:
    """The text's values as plain Python, as a safe load gives them. From the shared parse where
    every node has a core tag; otherwise (a timestamp, !!binary, a custom tag, a merge key) the
    safe loader itself decides, and refuses what it cannot build, as the trainer's would."""
    parse = _parsed(text)
    if parse.plain and parse.data is not None:
        plain: dict[Any, Any] = _plain(parse.data)
        return plain
    return copy.deepcopy(_safe_load(text))  # shared: the caller may change its copy


def _plain(data: Any) -> Any:
    if isinstance(data, dict):
        return {_plain(k): _plain(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_plain(v) for v in data]
    if isinstance(data, ScalarBoolean):  # an int subclass (bool cannot be subclassed)
        return bool(data)
    for kind in (bool, int, float, str):  # ScalarFloat, ScalarInt, HexInt... are subclasses
        if isinstance(data, kind):
            return kind(data)
    return data


@functools.lru_cache(maxsize=8)
def _safe_load(text: str) -> dict[Any, Any]:
    guard_yaml(text)
    try:
        data = YAML(typ="safe", pure=True).load(text)
    except RecursionError:
        raise YamlPatchError("nests too deeply to be a training config") from None
    except YAMLError as exc:
        raise YamlPatchError(f"not valid YAML: {_one_line(exc)}") from None
    return data if isinstance(data, dict) else {}
