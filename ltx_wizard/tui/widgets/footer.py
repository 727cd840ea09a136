"""The key footer, without the leak of Textual's own (8.2.8).

Textual's Footer rebuilds its keys whenever the screen's bindings change (every dialog opened or
closed, every Cancel hidden), and each new FooterKey watches the Footer's `compact` reactive.
Textual drops the watchers of removed widgets only when the watched value changes, and `compact`
never does: every rebuild kept its old keys alive, with their render caches (about 8 widgets and
700 caches per dialog opened and closed). The heap grew without bound and each full garbage
collection took longer, up to 220 ms of frozen screen after 20 dialogs (measured; see
tests/tui/test_long_session.py).

It also rebuilds them when nothing it shows changed: every focus move and every screen's
refresh_bindings (the Monitor's and Autotune's ticks) signal a change, and each rebuild mounts
and styles every key again (measured: 13 % of a pilot test's CPU). Here a rebuild happens only
when the keys it would show differ from those it shows.
"""

from __future__ import annotations

from typing import Any

from textual.widgets import Footer as TextualFooter

# Where textual.reactive keeps an object's watchers: Textual has no public way to drop a watcher
# (its own check runs only when the value changes).
_WATCHERS = "__watchers"


class Footer(TextualFooter):
    def __init__(self, *children: Any, show_command_palette: bool = False, **kwargs: Any) -> None:
        # ctrl+p is said in each screen's F1 help and the All keys panel, not docked at the right:
        # at 80 columns the footer's own keys need the room.
        super().__init__(*children, show_command_palette=show_command_palette, **kwargs)

    _composed: tuple[Any, ...] | None = None  # what the last rebuild showed

    async def recompose(self) -> None:
        if not self.is_attached or self._pruning:  # Widget.recompose's own guard: no screen to read
            return
        shown = self._keys_shown()
        if shown == self._composed:
            return
        await super().recompose()
        self._composed = shown
        self.drop_stale_watchers()

    def _keys_shown(self) -> tuple[Any, ...]:
        """Everything compose() reads to draw the keys, in its order."""
        if not self._bindings_ready:
            return ()
        keys = tuple(
            (b.key, self.app.get_key_display(b), b.description, b.action, enabled, tooltip, b.group)
            for _node, b, enabled, tooltip in self.screen.active_bindings.values()
            if b.show
        )
        return (*keys, self.show_command_palette, self.compact, self.combine_groups)

    def drop_stale_watchers(self) -> None:
        """Forget the watchers of keys that are no longer shown: recompose has awaited their
        removal, and a removed widget is detached from the DOM (`is_attached` turns False)."""
        for watchers in getattr(self, _WATCHERS, {}).values():
            watchers[:] = [(node, callback) for node, callback in watchers if node.is_attached]
