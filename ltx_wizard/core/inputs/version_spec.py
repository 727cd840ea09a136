"""Does a package version satisfy a requirement such as ">=5.8.0,<5.15" or "~=4.57.0"?

The comparisons PEP 440 defines for release numbers (==, !=, <, <=, >, >=, ~=, and "==X.*"),
enough for the pins ltx-core's pyproject has carried; pre-release and local tags are dropped
(5.14.1rc1 reads as 5.14.1). An unreadable requirement answers None: not checked, never "fits".
"""

from __future__ import annotations

import re

_RELEASE = re.compile(r"^\s*v?(\d+(?:\.\d+)*)")
_CLAUSE = re.compile(r"^\s*(~=|==|!=|<=|>=|<|>)\s*([0-9][0-9a-zA-Z.*+!-]*)\s*$")


def release(version: str) -> tuple[int, ...] | None:
    match = _RELEASE.match(version or "")
    return tuple(int(p) for p in match.group(1).split(".")) if match else None


def _pad(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    width = max(len(a), len(b))
    return a + (0,) * (width - len(a)), b + (0,) * (width - len(b))


def _clause(op: str, want: str, have: tuple[int, ...]) -> bool | None:
    if want.endswith(".*") and op in ("==", "!="):
        prefix = release(want[:-2])
        if prefix is None:
            return None
        same = have[: len(prefix)] == prefix
        return same if op == "==" else not same
    target = release(want)
    if target is None:
        return None
    h, t = _pad(have, target)
    if op == "~=":  # compatible release: >= target, == all but its last part
        return len(target) > 1 and h >= t and have[: len(target) - 1] == target[:-1]
    return {"==": h == t, "!=": h != t, "<": h < t, "<=": h <= t, ">": h > t, ">=": h >= t}[op]


def satisfies(version: str, spec: str) -> bool | None:
    """True/False, or None when the version or a clause cannot be read."""
    have = release(version)
    if have is None:
        return None
    if not spec.strip():
        return True
    for part in spec.split(","):
        match = _CLAUSE.match(part)
        if match is None:
            return None
        ok = _clause(match.group(1), match.group(2), have)
        if ok is None:
            return None
        if not ok:
            return False
    return True
