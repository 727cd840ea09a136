"""Orphans of an earlier wizard, reaped at start-up. A wizard killed by SIGKILL runs no handler:
its children (each in a session of its own) run on under PID 1. Each carries its owner's pid and
start time (tags.py), so the next wizard finds every tagged process whose owner is dead, stops it
by the stop rule, and says so in one line. Detached children (a training started on purpose) are
never touched, nor children of a wizard that still runs, nor those of a wizard run from another
home (tags.py's scope: another user's, or another test's in the suite).
"""

from __future__ import annotations

from ltx_wizard.core.proc.stop import Graces, take_down_blocking
from ltx_wizard.core.proc.tags import OWNER_ENV, Owner, home_scope, parse_owner
from ltx_wizard.core.proc.table import env_values
from ltx_wizard.core.proc.tree import RankTracker

REAP_GRACES = Graces(interrupt_s=1.0, term_s=3.0, orphan_s=3.0, kill_wait_s=5.0)


def find_orphans() -> dict[int, Owner]:
    """pid -> its dead owner, for every live process a dead wizard started and still owned."""
    found: dict[int, Owner] = {}
    scope = home_scope()
    for pid, value in env_values(OWNER_ENV).items():
        owner = parse_owner(value)
        if owner is not None and owner.kind == "owned" and owner.scope == scope and not owner.alive():
            found[pid] = owner
    return found


def reap_orphans(graces: Graces = REAP_GRACES) -> str | None:
    """Stop every orphan of a dead wizard; the one line that says so, or None when none was found."""
    orphans = find_orphans()
    if not orphans:
        return None
    tree = RankTracker(None)
    tree.adopt(sorted(orphans))
    take_down_blocking(tree, launcher_gone=True, graces=graces)
    owners = sorted({owner.pid for owner in orphans.values()})
    shown = " ".join(map(str, sorted(orphans)[:8])) + (" ..." if len(orphans) > 8 else "")
    return (
        f"stopped {len(orphans)} process(es) an earlier wizard (pid {', '.join(map(str, owners))}) "
        f"left running when it was killed: pid {shown}"
    )
