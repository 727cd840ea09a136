"""Step 4: the autotune sweep, live: trial table, step progress, VRAM per GPU, a bounded log.

The engine runs in a worker owned by the App; this screen only renders what it reports. Log lines
arrive through the App's bounded buffer and are drained here in batches on a timer, so a flood of
trainer output costs one widget update per tick, never one message per line.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, DataTable, Footer, Header, ProgressBar, Static

from ltx_wizard.tui import messages
from ltx_wizard.tui.widgets.formatting import baseline_problem
from ltx_wizard.tui.widgets.steps import StepBar
from ltx_wizard.tui.widgets.tail_log import TailLog
from ltx_wizard.tui.wizard_screen import WizardScreen

LOG_LINES = 400
FLUSH_S = 0.1
OUTCOME_LABEL = {
    "ok": "ok", "oom": "OOM", "nan": "NaN loss", "crash": "crashed", "timeout": "timed out",
    "cancelled": "cancelled", "skipped": "skipped",
}


def _fmt(value: float | None, unit: str, digits: int = 2) -> str:
    return "—" if value is None else f"{value:.{digits}f} {unit}"


class AutotuneScreen(WizardScreen):
    BINDINGS = [
        Binding("ctrl+n", "next", "Continue"),
        Binding("c,escape", "cancel", "Cancel autotune"),
    ]

    def compose(self) -> ComposeResult:
        yield Header()
        yield StepBar(4, id="steps")
        with Vertical(id="body"):
            yield Static("Starting autotune…", id="at-status")
            yield DataTable(id="trials", cursor_type="none", show_cursor=False)
            with Horizontal(id="trial-progress-row"):
                yield Static("", id="trial-label")
                yield ProgressBar(total=50, show_eta=False, id="trial-progress")
            yield Static("", id="live")
            yield TailLog(max_lines=LOG_LINES, id="log")
        with Horizontal(classes="actions"):
            yield Button("Continue", id="continue", variant="primary", disabled=True)
            yield Button("Cancel", id="cancel", variant="error")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#trials", DataTable)
        table.add_columns("#", "Change", "Outcome", "s/step", "Peak", "Kept")
        self._rows: dict[int | str, object] = {}
        self._vram = ""
        self._step = ""
        self.set_interval(FLUSH_S, self.flush_log)
        state = self.app.state
        if state.summary is not None or state.autotune_error is not None:
            self._show_end(state.summary, state.autotune_error)
        elif not state.autotune_running:
            self.app.start_autotune()

    def flush_log(self) -> None:
        """The display tick: held progress first (it lands as messages), then the log's tail."""
        self.app.post_held_events()
        buffer = self.app.log_buffer
        if not buffer:
            return
        # U+FE0F turns a narrow symbol into a wide emoji in some terminals and not others, which
        # breaks the panel's border; the plain symbol reads the same.
        lines = [line.replace("\ufe0f", "") for line in buffer]
        buffer.clear()
        # Always follow the tail: the full output is in the run folder's logs.
        self.query_one("#log", TailLog).write_tail(lines[-LOG_LINES:])

    # ----- events (forwarded by the App) -----------------------------------------------------
    def handle(self, message: messages.Message) -> None:
        if isinstance(message, messages.AutotuneStopped):
            self.flush_log()
            self._show_end(message.summary, message.error)
            return
        event = message.event  # type: ignore[attr-defined]
        kind = type(event).__name__
        if kind == "TrialStarted":
            self._trial_row(event.index, event.change, "running…", None, None, "")
            bar = self.query_one("#trial-progress", ProgressBar)
            bar.update(total=event.total_steps, progress=0)
            self.query_one("#trial-label", Static).update(f"Trial {event.index}  step 0/{event.total_steps}")
            self.query_one("#at-status", Static).update(
                Text.assemble(("Running ", "bold"), f"trial {event.index}: {event.change}")
            )
            self._step = ""
        elif kind == "TrialProgress":
            self.query_one("#trial-progress", ProgressBar).update(total=event.total, progress=event.step)
            self.query_one("#trial-label", Static).update(f"Trial {event.index}  step {event.step}/{event.total}")
            parts = [f"step time {_fmt(event.step_time_s, 's')}"]
            if event.loss is not None:
                parts.append(f"loss {event.loss:.4f}")
            self._step = " · ".join(parts)
            self._show_live()
        elif kind == "VramUpdate":
            cells = []
            for i, (used, total) in enumerate(zip(event.used_mib, event.total_mib)):
                u = "?" if used is None else f"{used / 1024:.1f}"
                t = "?" if total is None else f"{total / 1024:.0f}"
                cells.append(f"GPU{i} {u}/{t} GiB")
            self._vram = "VRAM " + "  ".join(cells)
            self._show_live()
        elif kind == "ConfirmationStarted":
            self._confirm_row(event.trial, event.gpus, "running…", None)
            self.query_one("#at-status", Static).update(Text.assemble(
                ("Confirming ", "bold"), f"trial {event.trial}'s config with its own validation"))
        elif kind == "ConfirmationFinished":
            c = event.confirmation
            self._confirm_row(c.trial, c.gpus, OUTCOME_LABEL.get(c.outcome, c.outcome), c.peak_vram_gb)
        elif kind == "TrialFinished":
            r = event.result
            self._trial_row(r.index, r.change, OUTCOME_LABEL.get(r.outcome, r.outcome),
                            r.step_time_s, r.peak_vram_gb, "✓" if r.kept else "")
            if r.reason:
                verdict = OUTCOME_LABEL.get(r.outcome, r.outcome)
                self.query_one("#at-status", Static).update(
                    Text.assemble((f"Trial {r.index} {verdict}: ", "bold"), r.reason))

    def _show_live(self) -> None:
        self.query_one("#live", Static).update("  ·  ".join(p for p in (self._vram, self._step) if p))

    def _trial_row(self, index: int, change: str, outcome: str, step: float | None,
                   peak: float | None, kept: str) -> None:
        table = self.query_one("#trials", DataTable)
        cells = (str(index), change, outcome, _fmt(step, "s"), _fmt(peak, "GB", 1), kept)
        key = self._rows.get(index)
        if key is None:
            self._rows[index] = table.add_row(*cells, key=str(index))
        else:
            for column, value in zip(table.columns, cells):
                table.update_cell(str(index), column, value)

    def _confirm_row(self, trial: int | None, gpus: int, outcome: str, peak: float | None) -> None:
        """The confirmation's own row, keyed apart from the trials (a fallback adds another)."""
        table = self.query_one("#trials", DataTable)
        key = f"confirm-{trial}"
        what = f"confirm trial {trial} ({gpus} GPU{'s' if gpus > 1 else ''}, with validation)"
        cells = ("✔", what, outcome, "—", _fmt(peak, "GB", 1), "")
        if key not in self._rows:
            self._rows[key] = table.add_row(*cells, key=key)
        else:
            for column, value in zip(table.columns, cells):
                table.update_cell(key, column, value)

    def _show_end(self, summary, error: str | None) -> None:
        if summary is not None:
            for r in summary.trials:
                self._trial_row(r.index, r.change, OUTCOME_LABEL.get(r.outcome, r.outcome),
                                r.step_time_s, r.peak_vram_gb, "✓" if r.kept else "")
            for c in summary.confirmations:
                self._confirm_row(c.trial, c.gpus, OUTCOME_LABEL.get(c.outcome, c.outcome),
                                  c.peak_vram_gb)
        status = self.query_one("#at-status", Static)
        if error is not None:
            status.update(Text.assemble(("Autotune stopped: ", "bold"), error,
                                        "\nThe planned config is unchanged; Continue keeps it."))
        elif summary is not None:
            text = Text("Done. ", style="bold")
            if summary.winner is not None:
                win = next((t for t in summary.trials if t.index == summary.winner), None)
                what = f"trial {summary.winner}" + (f" ({win.change})" if win else "")
                patched = "config.yaml patched" if summary.config_patched else "config.yaml unchanged"
                text.append(f"Winner: {what}; {patched}.", style="not bold")
            else:
                text.append("No trial succeeded; the planned config is kept.", style="not bold")
            if summary.stop_reason:
                text.append(f"\n{summary.stop_reason}", style="not bold")
            problem = baseline_problem(self.app.state)
            if problem:
                text.append(f"\n{problem}", style="not bold")
            status.update(text)
        self.query_one("#trial-progress-row").display = False
        self.call_after_refresh(self.query_one("#log", TailLog).follow)  # the layout just changed
        self.query_one("#cancel", Button).display = False
        self.refresh_bindings()
        button = self.query_one("#continue", Button)
        button.disabled = False
        button.focus()

    # ----- actions ---------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel":  # the footer offers Cancel only while there is something to cancel
            return self.app.state.autotune_running
        return True

    def action_cancel(self) -> None:
        if not self.app.state.autotune_running:
            return
        from ltx_wizard.tui.dialogs.confirm import ConfirmDialog

        def answered(yes: bool | None) -> None:
            if yes:
                self.query_one("#at-status", Static).update("Cancelling: stopping the running trial…")
                self.app.cancel_autotune()

        self.app.push_screen(
            ConfirmDialog("Stop the running trial and end autotune? Trials done so far are kept in "
                          "autotune.log; the config keeps the best result so far.",
                          yes="Stop autotune", no="Keep going", title="Cancel autotune"),
            answered,
        )

    def action_next(self) -> None:
        if not self.query_one("#continue", Button).disabled:
            self.app.open_done()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "continue":
            self.action_next()
        else:
            self.action_cancel()
