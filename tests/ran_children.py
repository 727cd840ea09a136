"""A child of core/proc run to its end in a test and let go of, so the registry holds no leftover
(later tests on the same worker check that it is empty)."""

from __future__ import annotations

from typing import Any, Sequence

from ltx_wizard.core.proc.spawn import AsyncSpawned, Spawned, spawn


def ran(argv: Sequence[str], **kwargs: Any) -> int:
    child = spawn(argv, **kwargs)
    code = child.popen.wait()
    child.release()
    return code


def let_go(child: Spawned | AsyncSpawned) -> None:
    """A child already waited for: out of the registry."""
    child.release()
