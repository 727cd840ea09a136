"""Continue refused on the Paths screen: the first field that keeps it refused is focused and its
whole block (label, input and the ✗ line under it) scrolled to the middle of the form, so that at
80x24 neither the buttons docked below the form nor the toast over them hide the reason."""

from __future__ import annotations

from textual.containers import VerticalScroll
from textual.geometry import Region
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input

# What the form scrolls into view for a field: from the input to the line that says why.
_VALIDATION = ("#validation-media", "#validation-status")
# the dataset options' inputs, whose ✗ is said under the data field above them (form.py)
OPTION_INPUTS = {
    "resolution_buckets": "#buckets",
    "lora_trigger": "#trigger",
    "precomputed_dir": "#precomputed-dir",
}


def refuse_continue(screen: Screen, problems: list[str]) -> None:
    """Say which fields keep Continue refused, and show the first one with its ✗ line."""
    names = ", ".join(p.replace("_", " ") for p in problems)
    screen.notify(f"Fix the fields marked ✗ first: {names}", severity="warning")
    first, last = (f"#field-{problems[0]}",) * 2
    entry = f"#input-{problems[0]}"
    if problems[0] in ("validation", "validation_media"):
        (first, last), entry = _VALIDATION, "#validation-media"
    elif problems[0] in OPTION_INPUTS:
        first, last, entry = "#field-data_root", "#dataset-options", OPTION_INPUTS[problems[0]]
    screen.query_one(entry, Input).focus(scroll_visible=False)
    body = screen.query_one("#body", VerticalScroll)
    # after the next layout: the checks that refused may have shown or hidden rows above
    screen.call_after_refresh(_center, body, screen.query_one(first), screen.query_one(last))


def _center(body: VerticalScroll, first: Widget, last: Widget) -> None:
    span = _in_body(body, first).union(_in_body(body, last))
    body.scroll_to_region(span, animate=False, center=True, force=True, x_axis=False)


def _in_body(body: Widget, widget: Widget) -> Region:
    """The widget's region in the form's scrolled space (the nesting of its containers added)."""
    region = widget.virtual_region
    node = widget.parent
    while isinstance(node, Widget) and node is not body:
        region = region.translate(node.virtual_region.offset)
        node = node.parent
    return region
