"""Short garbage-collection pauses for a long-running TUI.

A full (generation 2) collection walks every tracked object. Textual, pydantic, ruamel and the
autotune engine leave about 170,000 of them, nearly all alive for the whole run (modules,
classes, schemas, widgets); on this project's 2-core test box each full collection then froze the
screen for 40-220 ms, and during a flood of trainer output one comes every few seconds.
Freezing what exists at a phase boundary moves it out of every later collection. A collection
first, so that what is frozen is what is alive (frozen garbage in a cycle would never be freed).
"""

from __future__ import annotations

import gc

from textual.app import App


def settle_heap(app: App) -> None:
    """Call at a phase boundary, never while keys are expected (the collection takes a moment).

    Only where a screen is drawn: a headless App (the pilot tests, the screenshot script) has no
    one to see a pause, and in a test process the heap holds every earlier test's objects as well,
    so each collection there cost ~0.35 s, some 15 % of the suite's CPU time."""
    if not drawn(app):
        return
    gc.collect()
    gc.freeze()


def drawn(app: App) -> bool:
    return not app.is_headless


def release_heap() -> None:
    """When the App ends: what was frozen can be collected again (tests run many Apps in one
    process; without this, every App's widget cycles would stay in memory for good)."""
    gc.unfreeze()
