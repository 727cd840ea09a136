"""Opening a run folder that already has a plan: resume autotune, read the plan, or start anew.

Nothing here writes: a new run gets its own folder name, and approving over an existing folder
asks first.
"""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, Header, Markdown, Static

from ltx_wizard.core.base import phases
from ltx_wizard.core.io.run_folder import CONFIG, PLAN_MD
from ltx_wizard.core.io import run_folder as rf
from ltx_wizard.core.io.bounded import read_text
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.launch.script import copy_line
from ltx_wizard.tui.messages import ProbeFinished
from ltx_wizard.tui.widgets.footer import Footer
from ltx_wizard.tui.wizard_screen import WizardScreen
from ltx_wizard.tui.widgets.formatting import safe_markup


def has_training(run_dir: Path) -> bool:
    """A training log or a live trainer: the Monitor has something to show."""
    from ltx_wizard.core.launch.background import running_pid
    from ltx_wizard.core.launch.script import launch_files

    return launch_files(run_dir)[0].exists() or running_pid(run_dir) is not None


# This screen's F1 help (dialogs/help.py shows it): what it does and what comes next.
EXISTING_RUN_HELP = (
    phases.EXISTING_RUN.f1_title,
    """\
**What it does.** This folder already holds a plan; nothing here writes.

**Choices.**
- *Resume autotune* (r): probes the GPUs and continues from `autotune.log`; finished trials
  are not run again.
- *View plan* (v): shows `plan.md` below.
- *New run* (n): starts the wizard over and plans a new folder; this one is left as it is.
- *Monitor training* (m): the Monitor of this folder's training run (its log, status, loss).
- *Open file* (o): plan.md, config.yaml or run-summary.md, those that exist, in `$VISUAL`/`$EDITOR`,
  else read-only here.

To start training from this folder without the wizard: `bash <run>/launch.sh`.""",
)


class ExistingRunScreen(WizardScreen):
    PHASE = phases.EXISTING_RUN
    F1_HELP = EXISTING_RUN_HELP
    BINDINGS = [
        Binding("r", "resume", "Resume autotune"),
        Binding("v", "view", "View plan"),
        Binding("n", "new", "New run"),
        Binding("m", "monitor", "Monitor training"),
        Binding("o", "open_file", "Open file"),  # plan.md, config.yaml, run-summary.md
    ]

    def __init__(self, run_dir: Path) -> None:
        super().__init__()
        self.run_dir = run_dir

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="body"):
            yield Static("", id="existing-body")
            yield Markdown("", id="plan-view")
        with Horizontal(classes="actions"):
            yield Button("Resume autotune", id="resume", variant="primary")
            yield Button("View plan", id="view")
            yield Button("New run", id="new")
        yield Footer()

    def on_mount(self) -> None:
        text = Text("This run folder already has a plan.\n", style="bold")
        text.append(f"{self.run_dir}\n", style="not bold")
        for name in (f.rel for f in (rf.PLAN_MD, rf.CONFIG, rf.LAUNCH_SCRIPT, rf.AUTOTUNE_LOG, rf.TRAIN_LOG)):
            mark = "✓" if (self.run_dir / name).exists() else "·"
            text.append(f"  {mark} {name}\n", style="not bold")
        text.append(
            "\nResume autotune continues from autotune.log: finished trials are not run "
            "again, and a finished autotune shows its result. New run plans a fresh "
            "folder (this one is left as it is). To train without the wizard: "
            f"{copy_line(self.run_dir)}",
            style="not bold",
        )
        self.query_one("#existing-body", Static).update(text)
        self.query_one("#plan-view", Markdown).display = False
        self.query_one("#resume", Button).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "monitor":  # offered only when there is a training to watch
            return has_training(self.run_dir)
        return True

    def action_monitor(self) -> None:
        self.app.nav.open_monitor(self.run_dir)

    def action_view(self) -> None:
        view = self.query_one("#plan-view", Markdown)
        if view.display:
            view.display = False
            return
        try:
            view.update(read_text(PLAN_MD.path(self.run_dir), what="plan"))
        except UsageError as exc:  # missing, not a file, too big, not UTF-8
            self.notify(safe_markup(exc.message), severity="error")
            return
        view.display = True
        body = self.query_one("#body", VerticalScroll)
        self.call_after_refresh(body.scroll_to_widget, view, top=True)

    def action_new(self) -> None:
        if not self.is_current:
            return
        self.app.state.run_dir = None
        self.app.target_run_dir = None  # never plan into the folder that already has one
        self.app.pop_screen()
        self.app.nav.start_probe_screen()

    def action_resume(self) -> None:
        if not CONFIG.path(self.run_dir).exists():
            self.notify(f"{self.run_dir} has no config.yaml to tune: start a new run (n)", severity="error")
            return
        self.query_one("#resume", Button).disabled = True
        self._probe()

    @work(thread=True, exclusive=True, exit_on_error=False, group="probe")
    def _probe(self) -> None:
        # Autotune samples GPU memory and checks headroom: it needs this machine's GPUs.
        self.post_message(self.app.nav.probe_finished())

    @on(ProbeFinished)
    def _probed(self, message: ProbeFinished) -> None:
        self.query_one("#resume", Button).disabled = False
        if message.error is not None:
            self.notify(safe_markup(message.error), severity="error", timeout=10)
            return
        assessment = self.app.nav.set_probe(message.result)
        if assessment.per_gpu_vram_gb is None or assessment.gate_blocked:
            self.notify(
                "GPU memory unknown or below the minimum: start a new run (n) to decide", severity="warning"
            )
            return
        self.app.state.run_dir = self.run_dir
        self.app.state.summary = None
        self.app.state.autotune_error = None
        self.app.nav.open_autotune()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if not self.is_current:  # a burst's late press: this screen is no longer on top
            return
        {"resume": self.action_resume, "view": self.action_view, "new": self.action_new}[
            event.button.id or "new"
        ]()

    def action_open_file(self) -> None:
        from ltx_wizard.tui.run_file_open import ask_run_file

        run_dir = getattr(self, "run_dir", None) or self.app.state.run_dir
        ask_run_file(self.app, None if run_dir is None else Path(run_dir))
