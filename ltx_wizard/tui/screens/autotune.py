"""The autotune sweep, live: trial table, step progress, VRAM per GPU, a bounded log.

The engine runs in a worker owned by the App; this screen only renders what it reports. Log lines
arrive through the App's bounded buffer and are drained here in batches on a timer, so a flood of
trainer output costs one widget update per tick, never one message per line.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, Callable

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.widgets import Button, DataTable, Header, ProgressBar, Static

from ltx_wizard.core.base import phases
from ltx_wizard.core.autotune.outputs import presenter
from ltx_wizard.core.base.text_safety import clean_text
from ltx_wizard.tui import messages
from ltx_wizard.tui.widgets.footer import Footer
from ltx_wizard.tui.widgets.formatting import baseline_problem
from ltx_wizard.tui.widgets.steps import StepBar
from ltx_wizard.tui.widgets.tail_log import TailLog
from ltx_wizard.tui.widgets.trial_phases import TrialPhases
from ltx_wizard.tui.wizard_screen import WizardScreen

if TYPE_CHECKING:
    from ltx_wizard.core.tuning.results import AutotuneSummary, TrialResult
    from ltx_wizard.core.autotune.events import TrialStarted as TrialStartedEvent

LOG_LINES = 400
FLUSH_S = 0.1
# Columns that hold short figures; Change and Reason share what is left of the terminal's width,
# so the Reason column is there at 80 columns too (cut with "…"; the status line and autotune.log
# have the whole reason).
_FIXED = {"#": 1, "Outcome": 9, "s/step": 6, "Peak": 8, "Kept": 4}
_CHANGE_SHARE = 0.42


def column_widths(terminal_width: int) -> dict[str, int]:
    padding = 2 * len(presenter.COLUMNS)  # the table's cell padding, one each side
    free = max(terminal_width - 2 - 1 - padding - sum(_FIXED.values()), 24)  # body padding, scrollbar
    change = max(int(free * _CHANGE_SHARE), 12)
    return {**_FIXED, "Change": change, "Reason": free - change}


def fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(width - 1, 0)] + "…"


def _while_shown(handler: Callable[[Any, Any], None]) -> Callable[[Any, Any], None]:
    """A message that lands while the screen is leaving (after SIGHUP) finds its widgets gone."""

    @functools.wraps(handler)
    def guarded(self: Any, message: Any) -> None:
        try:
            handler(self, message)
        except NoMatches:
            pass

    return guarded


def autotune_help() -> tuple[str, str]:
    """The F1 help, built from the engine's own constants and rules (core/tuning/rules_text.py)."""
    from ltx_wizard.core.tuning import rules_text

    return (
        phases.AUTOTUNE.f1_title,
        f"""\
**What it does.** {rules_text.trials_sentence()} {rules_text.keep_rules()} It stops on
out-of-memory, on no gain, or at the trial limit; the winner gets one confirmation run with its
own validation and is patched into `config.yaml`. A trial that can only be the last (nothing
left to try after it) is its own confirmation: it validates once after its steps, loading the
text encoder. Every trial is logged in `autotune.log`; the
table's Reason column says why each was kept or rejected.

**Choices.** Cancel (c or Esc) asks first, stops the running trial's whole process group and
patches the best result so far into `config.yaml` (without its confirmation run); resuming
autotune goes on from there. Continue (ctrl+n) once it ends.

**If the baseline runs out of memory**, the planned config does not fit this GPU: train on
fewer pixels or frames. For a run planned from your clips, plan again with a smaller bucket
(the wizard preprocesses them); for data you preprocessed yourself, rerun the trainer's
`process_dataset.py` with smaller `--resolution-buckets`, then plan again.

**Next.** Continue runs what training still needs first (for a run planned from your clips: the
preprocess of every clip), then opens the launch step.""",
    )


class AutotuneScreen(WizardScreen):
    PHASE = phases.AUTOTUNE
    F1_HELP = staticmethod(autotune_help)
    BINDINGS = [
        Binding("ctrl+n", "next", "Continue"),
        Binding("c,escape", "cancel", "Cancel autotune"),
    ]

    def compose(self) -> ComposeResult:
        yield Header()
        yield StepBar(self.phase, id="steps")
        with Vertical(id="body"):
            yield Static("Starting autotune…", id="at-status")
            yield DataTable(id="trials", cursor_type="row")
            yield Static("", id="reason-line")  # the selected row's whole reason (its column is cut)
            with Horizontal(id="trial-progress-row"):
                yield Static("", id="trial-label")
                yield ProgressBar(total=50, show_eta=False, id="trial-progress")
            yield TrialPhases(lambda: self.app.autotune.trials.rows(), id="trial-phases")
            yield Static("", id="live")
            yield TailLog(max_lines=LOG_LINES, id="log")
        with Horizontal(classes="actions"):
            yield Button("Continue", id="continue", variant="primary", disabled=True)
            yield Button("Cancel", id="cancel", variant="error")
        yield Footer()

    def help_facts(self) -> str | None:
        """F1's line for this run: what Continue runs next, read from preprocess.json."""
        from ltx_wizard.core.plan.next_steps import after_autotune

        run_dir = self.app.state.run_dir
        return after_autotune(run_dir) if run_dir is not None else None

    def on_mount(self) -> None:
        table = self.query_one("#trials", DataTable)
        self._widths = column_widths(self.app.size.width)
        for label in presenter.COLUMNS:
            table.add_column(label, width=self._widths[label], key=label)
        self._rows: dict[str, object] = {}
        self._reasons: dict[str, tuple[str, str]] = {}  # each row's (label, whole reason)
        self._best: TrialResult | None = None  # the last kept trial: what a cancel patches in
        self._started: dict[int, TrialStartedEvent] = {}  # the last run of each trial number
        self._placed: str | None = None  # the row the screen last put the cursor on
        self._vram_text = ""  # the VRAM line (`_vram` is the handler)
        self._vram_by_gpu: dict[int, tuple[int | None, int | None]] = {}
        self._step = ""
        self.set_interval(FLUSH_S, self.flush_log)
        state = self.app.state
        if state.summary is not None or state.autotune_error is not None:
            self._show_end(state.summary, state.autotune_error)
        elif not state.autotune_running:
            self.app.autotune.start()

    def flush_log(self) -> None:
        """The display tick: held progress first (it lands as messages), then the log's tail."""
        self.app.autotune.flush_held()
        buffer = self.app.autotune.log_buffer
        if not buffer:
            return
        # U+FE0F turns a narrow symbol into a wide emoji in some terminals and not others, which
        # breaks the panel's border; the plain symbol reads the same.
        lines = [line.replace("\ufe0f", "") for line in buffer]
        buffer.clear()
        # Always follow the tail: the full output is in the run folder's logs.
        self.query_one("#log", TailLog).write_tail(lines[-LOG_LINES:])

    # ----- events: the App's autotune controller posts one typed message per engine event ------
    @on(messages.TrialStarted)
    @_while_shown
    def _trial_started(self, message: messages.TrialStarted) -> None:
        event = message.event
        self._started[event.index] = event
        self._show_row(presenter.running_row(event))
        self.query_one("#trial-progress", ProgressBar).update(total=event.total_steps, progress=0)
        self.query_one("#trial-label", Static).update(f"Trial {event.index}  step 0/{event.total_steps}")
        self.query_one("#at-status", Static).update(
            Text.assemble(("Running ", "bold"), presenter.started_text(event))
        )
        self._step = ""
        self._show_phases()

    @on(messages.TrialPhase)
    @_while_shown
    def _trial_phase(self, message: messages.TrialPhase) -> None:
        event = message.event  # only a dropped guess changes the table: its row is not a failure
        started = self._started.get(event.index)
        if event.phase == "dropped" and started is not None:
            self._show_row(presenter.dropped_row(started, event))
        self._show_phases()  # the live rows: a phase changed, or a guess's row goes

    @on(messages.TrialProgress)
    @_while_shown
    def _trial_progress(self, message: messages.TrialProgress) -> None:
        event = message.event
        self.query_one("#trial-progress", ProgressBar).update(total=event.total, progress=event.step)
        self.query_one("#trial-label", Static).update(f"Trial {event.index}  step {event.step}/{event.total}")
        parts = [f"step time {presenter.amount(event.step_time_s, 's')}"]
        if event.loss is not None:
            parts.append(f"loss {event.loss:.4f}")
        self._step = " · ".join(parts)
        self._show_live()
        self._show_phases()

    @on(messages.VramUpdate)
    @_while_shown
    def _vram(self, message: messages.VramUpdate) -> None:
        self._vram_text = presenter.vram_readings(self._vram_by_gpu, message.event)
        self._show_live()

    @on(messages.ConfirmationStarted)
    @_while_shown
    def _confirmation_started(self, message: messages.ConfirmationStarted) -> None:
        event = message.event
        self._show_row(presenter.confirming_row(event))
        self.query_one("#at-status", Static).update(
            Text.assemble(("Confirming ", "bold"), f"trial {event.trial}'s config with its own validation")
        )
        self._show_phases()

    @on(messages.ConfirmationFinished)
    @_while_shown
    def _confirmation_finished(self, message: messages.ConfirmationFinished) -> None:
        self._show_row(presenter.confirmation_row(message.event.confirmation))
        self._show_phases()

    @on(messages.TrialFinished)
    @_while_shown
    def _trial_finished(self, message: messages.TrialFinished) -> None:
        result = message.event.result
        self._show_row(presenter.trial_row(result))
        self._show_phases()
        if result.kept:
            self._best = result
        why = presenter.why_text(result)
        if why:
            self.query_one("#at-status", Static).update(
                Text.assemble(
                    (f"Trial {result.index} {presenter.outcome_label(result.outcome)}: ", "bold"), why
                )
            )

    @on(messages.AutotuneFinished)
    @_while_shown
    def _autotune_finished(self, message: messages.AutotuneFinished) -> None:
        self._show_summary(message.event.summary)

    @on(messages.AutotuneStopped)
    @_while_shown
    def _autotune_stopped(self, message: messages.AutotuneStopped) -> None:
        self.flush_log()
        self._show_phases()
        self._show_end(message.summary, message.error)

    def _show_phases(self) -> None:
        """An event changed the running trials: their rows now, not at the next tick."""
        self.query_one("#trial-phases", TrialPhases).refresh_rows()

    def _show_live(self) -> None:
        self.query_one("#live", Static).update("  ·  ".join(p for p in (self._vram_text, self._step) if p))

    def _show_row(self, row: presenter.Row, *, live: bool = True) -> None:
        table = self.query_one("#trials", DataTable)
        cells = [fit(value, self._widths[label]) for label, value in zip(presenter.COLUMNS, row.cells)]
        self._reasons[row.key] = (row.cells[0], row.cells[-1])
        if row.key not in self._rows:
            self._rows[row.key] = table.add_row(*cells, key=row.key)
            table.sort("#", key=presenter.table_order)
        else:
            for column, value in zip(presenter.COLUMNS, cells):
                table.update_cell(row.key, column, value)
        # The newest row while trials run, and at the end unless the user has moved the cursor
        # since. Every live event was sent while trials ran, whenever it is handled: the state's
        # flag may already say "ended" for the last trial's events, which arrive after it.
        if live or self._cursor_key() == self._placed:
            table.move_cursor(row=table.get_row_index(row.key))
            self._placed = row.key
        self._show_reason()

    @on(DataTable.RowHighlighted, "#trials")
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_reason()

    def _cursor_key(self) -> str | None:
        table = self.query_one("#trials", DataTable)
        return (
            table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value if table.row_count else None
        )

    def _show_reason(self) -> None:
        """The selected row's reason in full: at 80 columns its cell holds a few words of it."""
        line = self.query_one("#reason-line", Static)
        label, reason = self._reasons.get(self._cursor_key() or "", ("", ""))
        line.display = bool(reason)
        line.update(Text.assemble((f"{clean_text(label)}: ", "bold"), clean_text(reason)))

    def _show_summary(self, summary: AutotuneSummary) -> None:
        """The final table and the winner, as soon as the engine reports them."""
        for trial in summary.trials:
            self._show_row(presenter.trial_row(trial), live=False)
        for conf in summary.confirmations:
            self._show_row(presenter.confirmation_row(conf), live=False)
        text = Text("Done. ", style="bold")
        brief = presenter.winner_brief(summary)
        if brief:
            patched = presenter.patched_text(summary)
            text.append(f"Winner: {brief}; {patched}.", style="not bold")
        elif summary.setup_failure:  # not a result: nothing was recorded past the finished trials
            text.append("Stopped by a setup failure; the planned config is kept.", style="not bold")
        else:
            text.append("No trial succeeded; the planned config is kept.", style="not bold")
        if summary.stop_reason:
            text.append(f"\n{summary.stop_reason}", style="not bold")
        problem = baseline_problem(self.app.state)
        if problem:
            text.append(f"\n{problem}", style="not bold")
        self.query_one("#at-status", Static).update(text)

    def _show_end(self, summary: AutotuneSummary | None, error: str | None) -> None:
        """The worker has ended: the result (or why it stopped), and the way on."""
        if error is not None:
            self.query_one("#at-status", Static).update(
                Text.assemble(
                    ("Autotune stopped: ", "bold"),
                    error,
                    "\nThe planned config is unchanged; Continue keeps it.",
                )
            )
        elif summary is not None:
            self._show_summary(summary)
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
                self.app.autotune.cancel()

        self.app.push_screen(
            ConfirmDialog(
                presenter.cancel_promise(self._best),
                yes="Stop autotune",
                no="Keep going",
                title="Cancel autotune",
            ),
            answered,
        )

    def action_next(self) -> None:
        if not self.query_one("#continue", Button).disabled:
            self.app.nav.open_done()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if not self.is_current:  # a burst's late press: this screen is no longer on top
            return
        if event.button.id == "continue":
            self.action_next()
        else:
            self.action_cancel()
