"""The training run after launch: progress, loss, ETA, GPUs, files, failure, resume.

The status is read in a thread worker every REFRESH_S (the log incrementally from its last
offset, the process, the files, NVML) and posted as one message; widgets change only on the
event loop. The loss plot is Textual's own Sparkline: it ships with the pinned Textual (no new
dependency), buckets any number of points into the width it has, and draws with block characters
that survive SSH, tmux and a Linux console. Writes happen only after the user says yes: stop,
resume (config.yaml patched), a proposed fix; run-summary.md is written once the run finishes.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from statistics import mean

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import Button, Header, ProgressBar, Sparkline, Static

from ltx_wizard.core.base import phases
from ltx_wizard.core.io.run_folder import RUN_SUMMARY
from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.monitor import report
from ltx_wizard.core.monitor.notify_record import PingWatch
from ltx_wizard.core.monitor.attach import Attachment
from ltx_wizard.core.monitor.status import RunMonitor, RunStatus
from ltx_wizard.core.base.text_safety import clean_text
from ltx_wizard.tui.widgets.footer import Footer
from ltx_wizard.tui.widgets.steps import StepBar
from ltx_wizard.tui.widgets.tail_log import TailLog
from ltx_wizard.tui.wizard_screen import WizardScreen

REFRESH_S = 2.0
# The action buttons, each named for its action and saying its key (the footer leaves these out).
BUTTONS = (
    ("Copy path (y)", "copy"),
    ("Stop (s)", "stop"),
    ("Resume (r)", "resume"),
    ("Apply fix (f)", "fix"),
    ("Compare (c)", "compare"),
)


@dataclass
class StatusRead(Message):
    status: RunStatus | None
    error: str | None
    summary: Path | None


# This screen's F1 help (dialogs/help.py shows it): what it does and what comes next.
MONITOR_HELP = (
    phases.MONITOR.f1_title,
    """\
**What it shows.** The training run of this folder, read again every 2 seconds: live (pid and
start time) or finished, failed, stopped; step and progress; the recent loss and a plot of the
loss over the whole run (NaN said as NaN); the pace in s/step and an ETA, each saying its
source: steady steps (no save or validation in them) or the trainer's own projection (its
`Total Time`, saves and validation included; used when every printed step saved a checkpoint,
and on long runs) or, before the first step line, autotune's estimate as plan.md states it; memory and utilisation of the run's GPUs; the latest checkpoint and
validation samples; the attention backend and the W&B URL when the log names them; the log's
last lines. `ltx-wizard status RUN` prints the same (`--json`, `--watch`). When the run ends
while this screen watches it (done, out of memory, NaN, a crash) or stalls, the terminal shows a
desktop notification (once per ending; `status RUN --watch --notify` does the same).

**Choices.** The first five are buttons, each shown while it applies (its key in brackets; the
key pressed at another time says why it does nothing). Copy path (y): the latest checkpoint (after a NaN loss, the last one saved while
the loss was finite). Stop (s): asks, then stops the trainer and every rank. Resume (r), for a
run that is not running and has such a checkpoint (a finished one once optimization.steps is
raised): says what its training state restores, shows the change to `model.load_checkpoint`
(a new `output_dir` when restarted step numbers would overwrite a checkpoint; the earlier
samples of the resume step moved aside), writes it only after yes (the old config kept as a
numbered `config.before-resume.yaml`), then asks before starting. Apply fix (f), after a
failure: the next of the trainer's fixes for that kind of failure that config.yaml does not
have, as a diff; nothing restarts by itself. Samples (v): the latest round of validation
samples as keyframes, each with its prompt (v or Esc closes them). Evaluate (e): the evaluation
screen, which renders prompts with a saved checkpoint's LoRA and without it. Compare (c), once
training is over and two checkpoints are kept: asks, then runs `ltx-wizard compare RUN --yes` in
the background (log `logs/compare.log`); its recommendation then shows here and on the evaluation
screen, where k picks the checkpoint to use. Open file (o): plan.md, config.yaml or run-summary.md
in `$VISUAL`/`$EDITOR`, else read-only here. Back (Esc) returns to the
screen you came from; q quits (the training goes on).

**Read-only.** While its Monitor is open this wizard holds the run (its lock). A second wizard
opened on the same run (`ltx-wizard monitor RUN`, from another SSH session) shows everything but
offers no Stop, Resume, Apply fix or Compare, and says which wizard holds the run (pid, start time);
`--read-only` makes it so in any case. The commands the wizard ran for this run are one key away (@).

**When it finishes.** `run-summary.md` is written into the run folder.""",
)


class MonitorScreen(WizardScreen):
    PHASE = phases.MONITOR
    F1_HELP = MONITOR_HELP
    BINDINGS = [
        # Each of these five has a button that names its key, shown while it applies (_buttons);
        # the footer says the others, which at 80 columns it could not fit beside them. A key
        # pressed where its button is not shown says why it does nothing.
        Binding("y", "copy", "Copy checkpoint path", show=False),
        Binding("s", "stop", "Stop", show=False),
        Binding("r", "resume", "Resume", show=False),
        Binding("f", "fix", "Apply fix", show=False),
        Binding("c", "compare", "Compare", show=False),  # the kept checkpoints (monitor/compare_offer.py)
        Binding("v", "samples", "Samples"),  # the validation samples (tui/dialogs/samples.py)
        Binding("e", "results", "Evaluate"),  # the post-training evaluation (screens/results/__init__.py)
        Binding("o", "open_file", "Open file"),  # plan.md, config.yaml, run-summary.md
        Binding("escape", "back", "Back"),
        Binding("q", "quit_app", "Quit", show=False),
    ]

    def __init__(self, run_dir: Path, *, refresh_s: float = REFRESH_S) -> None:
        super().__init__()
        self.run_dir = Path(run_dir)
        self.refresh_s = refresh_s
        self.monitor: RunMonitor | None = None
        self.status: RunStatus | None = None
        self.summary_path: Path | None = None
        self._tail_seen: list[str] = []
        self._reading = threading.Lock()
        self.pings = PingWatch(self.run_dir)  # the run's ending, notified once (tui/notify.py)
        self.attachment: Attachment | None = None  # the run's lock held, or read-only (attach.py)

    def compose(self) -> ComposeResult:
        yield Header()
        yield StepBar(self.phase, id="steps")
        with VerticalScroll(id="body"):
            yield Static("", id="monitor-readonly")  # who holds the run, when not this wizard
            yield Static("", id="monitor-head")
            yield ProgressBar(total=None, show_eta=False, id="monitor-progress")
            yield Static("", id="monitor-pace")
            yield Static("", id="monitor-failure")  # above the plot: what to do comes first
            yield Static("Loss over the run", classes="section-title", id="loss-title")
            yield Sparkline([], summary_function=mean, id="loss-plot")
            yield Static("", id="monitor-files")
            yield Static("Log tail", classes="section-title")
            yield TailLog(id="monitor-tail", max_lines=200)
        with Horizontal(classes="actions"):
            for label, name in BUTTONS:
                button = Button(label, id=name, variant="primary" if name == "copy" else "default")
                button.display = False  # until a status says it applies (_buttons)
                yield button
        yield Footer()

    def on_mount(self) -> None:
        from ltx_wizard.core.monitor.attach import attach

        self.attachment = attach(self.run_dir, read_only=self.app.options.read_only)
        said = self.query_one("#monitor-readonly", Static)
        said.update(Text(self.attachment.line(), style="bold"))
        said.display = self.attachment.read_only
        self.query_one("#monitor-head", Static).update(Text(f"Reading {self.run_dir} ..."))
        self.refresh_status()
        self.set_interval(self.refresh_s, self.refresh_status)

    def on_unmount(self) -> None:
        if self.attachment is not None:
            self.attachment.release()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return not (self.attachment is not None and self.attachment.refuses(action))

    def read_only(self) -> bool:
        return self.attachment is not None and self.attachment.read_only

    def _refused(self, action: str) -> bool:
        """A read-only Monitor's Stop, Resume, Apply fix or Compare, forced (a palette, a script): refused."""
        if self.attachment is None or not self.attachment.refuses(action):
            return False
        self.notify(self.attachment.line(), severity="warning")
        return True

    # -- reading -------------------------------------------------------------------------

    @work(thread=True, exit_on_error=False, group="monitor-read")
    def refresh_status(self) -> None:
        """Read the run again (a thread: files, /proc, NVML). A read still going on when the next
        tick comes is not doubled: the RunMonitor keeps one log offset and is not shared."""
        from ltx_wizard.core.monitor.summary import ensure_summary

        if not self._reading.acquire(blocking=False):
            return
        try:
            if self.monitor is None:
                self.monitor = RunMonitor(self.run_dir)
            status = self.monitor.status()
            summary = ensure_summary(status)
            ping = self.pings.due(status)
        except WizardError as exc:
            self.post_message(StatusRead(None, exc.message, None))
            return
        except Exception as exc:  # noqa: BLE001 - whatever a run's files hold, the screen stays
            self.post_message(
                StatusRead(
                    None,
                    f"could not read {self.run_dir}: {type(exc).__name__}: {clean_text(exc)[:200]}",
                    None,
                )
            )
            return
        finally:
            self._reading.release()
        self.post_message(StatusRead(status, None, summary))
        if ping is not None:
            from ltx_wizard.tui.notify import send_ping

            self.app.call_from_thread(send_ping, self.app, ping)

    @on(StatusRead)
    def _show(self, message: StatusRead) -> None:
        if message.status is None:
            self.query_one("#monitor-head", Static).update(
                Text(clean_text(message.error or ""), style="bold")
            )
            return
        status = self.status = message.status
        if message.summary is not None:
            self.summary_path = message.summary
        lines = report.block(status)
        head = Text(f"Training: {report.process_line(status)}\n", style="bold")
        head.append(report.step_line(status), style="not bold")
        self.query_one("#monitor-head", Static).update(head)
        bar = self.query_one("#monitor-progress", ProgressBar)
        bar.update(total=status.total or None, progress=status.step or 0)
        self.query_one("#monitor-pace", Static).update(Text(self._pace(status)))
        self._plot(status)
        self.query_one("#monitor-files", Static).update(self._files(status, lines))
        self.query_one("#monitor-failure", Static).update(self._failure(status))
        self._tail(status.tail)
        self._buttons(status)

    def _pace(self, status: RunStatus) -> str:
        text = report.pace_line(status)
        if status.gpus:
            text += "\n" + "\n".join(clean_text(g.line()) for g in status.gpus)
        elif status.gpu_note:
            text += "\n" + clean_text(status.gpu_note)
        return text

    def _plot(self, status: RunStatus) -> None:
        self.query_one("#loss-plot", Sparkline).data = [loss for _, loss in status.points]
        title = "Loss over the run"
        if status.points:
            (s0, l0), (s1, l1) = status.points[0], status.points[-1]
            low = min(loss for _, loss in status.points)
            title += f": {l0:.4f} at step {s0} → {l1:.4f} at step {s1} (lowest {low:.4f})"
        elif not status.nan:
            title += ": no loss yet"
        if status.nan:  # the plot holds finite losses only: say what follows them
            title += f"{';' if status.points else ':'} NaN from step {status.nan_step}"
        self.query_one("#loss-title", Static).update(Text(title))

    def _files(self, status: RunStatus, lines: list[str]) -> Text:
        from ltx_wizard.tui.screens.monitor.compare_offer import running_line

        keep = ("Latest checkpoint", "Latest validation", "Attention", "W&B", "Log:", "Compare:", "Picked:")
        shown = [line for line in lines if line.startswith(keep)]
        running = running_line(self)  # a comparison started here, while it runs
        text = Text("\n".join(shown + ([running] if running else [])))
        if len(status.checkpoints) > 1:
            older = ", ".join(f"step {c.step}" for c in status.checkpoints[1:4])
            text.append(f"\nOlder checkpoints: {older}", style="dim")
        if self.summary_path is not None or RUN_SUMMARY.path(self.run_dir).exists():
            text.append(f"\nRun summary: {RUN_SUMMARY.path(self.run_dir)}", style="bold")
        return text

    def _failure(self, status: RunStatus) -> Text:
        d = status.diagnosis
        if d is None:
            return Text("")
        text = Text(f"! Failure ({d.kind}): ", style="bold")
        text.append(clean_text(d.cause) + "\n", style="not bold")
        text.append("Advice (cheapest first): " + "; ".join(d.advice))
        if d.changes:
            text.append(
                "\nProposed fix (f shows the diff): "
                + ", ".join(report.show_change(k, v) for k, v in d.changes.items()),
                style="bold",
            )
        return text

    def _tail(self, tail: list[str]) -> None:
        if tail == self._tail_seen:
            return
        log = self.query_one("#monitor-tail", TailLog)
        # only what is new since the last refresh (the tail is a sliding window of the log)
        overlap = 0
        for size in range(min(len(tail), len(self._tail_seen)), 0, -1):
            if self._tail_seen[-size:] == tail[:size]:
                overlap = size
                break
        if overlap == 0:
            log.clear()
        log.write_tail(tail[overlap:])
        self._tail_seen = list(tail)

    def _buttons(self, status: RunStatus) -> None:
        """Only the buttons that apply now: at 80 columns five do not fit in one row."""
        from ltx_wizard.tui.screens.monitor.compare_offer import compare_offered

        d = status.diagnosis
        live = status.state == "live"
        applies = {
            "copy": bool(status.checkpoints),
            "stop": live,
            "resume": status.resumable,
            "fix": d is not None and bool(d.changes) and not live,
            "compare": compare_offered(self),  # from two kept, once training is over
        }
        for name, shown in applies.items():  # a read-only Monitor offers no Stop, Resume, fix, Compare
            refused = self.attachment is not None and self.attachment.refuses(name)
            self.query_one(f"#{name}", Button).display = shown and not refused

    # -- actions (each asks first) -------------------------------------------------------

    def action_copy(self) -> None:
        if self.status is None or not self.status.checkpoints:
            self.notify("No checkpoint yet: the trainer saves one every checkpoints.interval steps")
            return
        usable = self.status.usable_checkpoint
        if usable is None:  # every checkpoint was saved after the loss turned NaN
            self.notify(
                "No checkpoint was saved while the loss was finite: none worth copying", severity="warning"
            )
            return
        path = str(usable.path)
        self.app.copy_to_clipboard(path)
        self.notify(f"Sent {path} to the clipboard (OSC 52; tmux needs set-clipboard on)")

    def action_stop(self) -> None:
        from ltx_wizard.tui.screens.monitor.actions import ask_stop

        if not self._refused("stop"):
            ask_stop(self)

    def action_resume(self) -> None:
        from ltx_wizard.tui.screens.monitor.actions import ask_resume

        if not self._refused("resume"):
            ask_resume(self)

    def action_fix(self) -> None:
        from ltx_wizard.tui.screens.monitor.actions import ask_fix

        if not self._refused("fix"):
            ask_fix(self)

    def action_samples(self) -> None:
        from ltx_wizard.tui.dialogs.samples import SamplesDialog

        self.app.push_screen(SamplesDialog(self.run_dir))

    def action_compare(self) -> None:
        from ltx_wizard.tui.screens.monitor.compare_offer import ask_compare

        if not self._refused("compare"):
            ask_compare(self)

    def action_results(self) -> None:
        self.app.nav.open_results(self.run_dir)

    def action_back(self) -> None:
        if len(self.app.screen_stack) > 2:
            self.app.pop_screen()

    def action_quit_app(self) -> None:
        self.app.exit(0, return_code=0)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        actions = {
            "copy": self.action_copy,
            "stop": self.action_stop,
            "resume": self.action_resume,
            "fix": self.action_fix,
            "compare": self.action_compare,
        }
        actions[event.button.id or "copy"]()

    def action_open_file(self) -> None:
        from ltx_wizard.tui.run_file_open import ask_run_file

        run_dir = getattr(self, "run_dir", None) or self.app.state.run_dir
        ask_run_file(self.app, None if run_dir is None else Path(run_dir))
