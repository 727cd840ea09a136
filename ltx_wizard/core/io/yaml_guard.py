"""What makes a YAML text safe to load at all, and the patcher's one error type (re-exported by
yaml_patch, where its users import it from)."""

from __future__ import annotations

import json
import re

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError
from ruamel.yaml.events import AliasEvent

from ltx_wizard.core.base.errors import WizardError


class YamlPatchError(WizardError):
    """The YAML cannot be patched in place without rewriting other bytes."""


YAML_MAX_CHARS = 2 * 2**20  # the shipped configs are ~15 KB; a hand-edited one stays small
YAML_MAX_DEPTH = 64  # the shipped configs nest 3 levels
_BRACKETS = re.compile(r"[\[\]{}]")


def guard_yaml(text: str) -> None:
    """Refuse what would make loading unbounded: a huge text, or anchors/aliases (a billion-laughs
    document expands exponentially). The trainer's shipped configs use neither (checked across
    packages/ltx-trainer/configs/*.yaml and accelerate/*.yaml)."""
    if len(text) > YAML_MAX_CHARS:
        raise YamlPatchError(
            f"is {len(text)} characters, over the {YAML_MAX_CHARS // 2**20} MB "
            "limit for a config: not a training config"
        )
    depth = deepest = 0
    for bracket in _BRACKETS.finditer(text):  # flow nesting: the parser would recurse per level
        depth = depth + 1 if bracket.group() in "[{" else max(depth - 1, 0)
        deepest = max(deepest, depth)
    if deepest > YAML_MAX_DEPTH:
        raise YamlPatchError("nests too deeply to be a training config")
    if "*" not in text:
        return  # no alias can occur without '*': the common case costs one scan
    try:
        for event in YAML(typ="safe", pure=True).parse(text):
            if isinstance(event, AliasEvent):
                raise YamlPatchError(
                    "uses a YAML anchor or alias (*name), which the wizard does not "
                    "expand: write the values out in full"
                )
    except YAMLError as exc:
        raise YamlPatchError(f"not valid YAML: {_one_line(exc)}") from None
    except RecursionError:
        raise YamlPatchError("nests too deeply to be a training config") from None


def _one_line(exc: Exception) -> str:
    return " ".join(str(exc).split())[:200]


# JSON leaves these raw with ensure_ascii=False, but YAML does not take them raw: C1 controls and
# DEL are not printable to YAML, NEL, U+2028 and U+2029 break a line inside "...", a BOM or
# U+FFFE/U+FFFF is refused by the reader. Written as \uXXXX, a YAML escape as well as a JSON one.
_YAML_RAW_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]")


def yaml_json(value: object) -> str:
    """`value` (a string, or a flow list or mapping of them) as JSON text that YAML reads back
    exactly as `value`: the unsafe characters, which only occur inside strings, escaped."""
    return _YAML_RAW_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", json.dumps(value, ensure_ascii=False))
