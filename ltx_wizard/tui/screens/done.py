"""What was written, the winner, how to start training (`bash <run>/launch.sh`), and a
background start of that same script.
"""

from __future__ import annotations

import os
import shlex
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Header, Static

from ltx_wizard.core.base import phases
from ltx_wizard.core.io.run_folder import LAUNCH_SCRIPT
from ltx_wizard.core.autotune.outputs import presenter
from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.base.text_safety import clean_block, clean_text
from ltx_wizard.core.launch.background import running_pid, start_training
from ltx_wizard.core.launch.script import copy_line, launch_files
from ltx_wizard.core.io import run_folder as rf
from ltx_wizard.core.io.run_meta import LaunchSpec, read_run_meta
from ltx_wizard.tui.widgets.footer import Footer
from ltx_wizard.tui.widgets.formatting import baseline_problem
from ltx_wizard.tui.widgets.steps import StepBar
from ltx_wizard.tui.wizard_screen import WizardScreen
from ltx_wizard.tui.widgets.formatting import safe_markup

if TYPE_CHECKING:
    from ltx_wizard.core.cloud.sky_launch import SkyLaunch

UV_INSTALL = "curl -LsSf https://astral.sh/uv/install.sh | sh"


# This screen's F1 help (dialogs/help.py shows it): what it does and what comes next.
DONE_HELP = (
    phases.DONE.f1_title,
    """\
**What it shows.** The run folder and `bash <run>/launch.sh`, the one command that starts the
full run: it changes to the trainer folder, sets the environment, appends output to
`logs/train.log` and writes the trainer's pid to `logs/train.pid`.

**Choices.**
- *Copy command* (c): sends the line to your clipboard with OSC 52. Over SSH this needs a
  terminal that allows it; inside tmux add `set -g set-clipboard on` to `~/.tmux.conf`.
  Selecting the line with the mouse works too.
- *Start training* (t): runs `launch.sh` in the background; it keeps running after you quit
  or lose the SSH connection. Follow it with `tail -f <run>/logs/train.log`.
- *Rented GPUs* (r): writes `<run>/sky/` for SkyPilot (task.yaml, a 20-step smoke.yaml, README.md),
  checked by SkyPilot's own parser, and shows the three commands to run; outputs stay on the
  node's disk (`ltx-wizard launch RUN --target skypilot --bucket NAME` keeps them).
- *Open file* (o): plan.md or config.yaml (1, 2) in `$VISUAL`/`$EDITOR`, else read-only here.
- *Quit* (q or ctrl+q): prints the run folder, the command, the log path and any pid.
- *Back* (Esc): the screen before this one. PageDown, PageUp, Home and End scroll the text.

**After training.** LoRA weights land in `<run>/outputs/checkpoints/lora_weights_step_*.safetensors`.
Starting it opens the Monitor (step 6), which also resumes a stopped run.""",
)


def sky_words(done: SkyLaunch) -> str:
    """The files' paths and the three commands, as sky/README.md has them."""
    cmds = done.commands
    lines = ["Wrote " + ", ".join(p.name for p in done.written) + f" in {done.readme.parent}"]
    lines.append("SkyPilot accepts both task files. Run, in order (smoke run, real run, its log):")
    lines += [f"  {shlex.join(argv)}" for argv in cmds.three()]
    lines += [f"Note: {w}" for w in done.request.warnings]
    lines.append(f"What it costs after the end, and how results come home: {done.readme}")
    return "\n".join(lines)


class DoneScreen(WizardScreen):
    PHASE = phases.DONE
    F1_HELP = DONE_HELP
    BINDINGS = [
        Binding("c", "copy", "Copy command"),
        Binding("t", "train", "Start training"),
        Binding("r", "sky", "Rented GPUs"),
        Binding("o", "open_file", "Open file"),  # plan.md, config.yaml (dialogs/run_files.py)
        Binding("q", "quit_app", "Quit", show=False),
        Binding("escape", "back", "Back"),
        # The body scrolls from the default focus (a button, which takes no scroll keys).
        Binding("pagedown", "scroll_body('page_down')", show=False),
        Binding("pageup", "scroll_body('page_up')", show=False),
        Binding("end", "scroll_body('scroll_end')", show=False),
        Binding("home", "scroll_body('scroll_home')", show=False),
    ]

    def compose(self) -> ComposeResult:
        # Filled here, not in on_mount: under key mashing the screen can be popped before its
        # Mount event is handled, and a query of a removed child raised NoMatches.
        yield Header()
        yield StepBar(self.phase, id="steps")
        with VerticalScroll(id="body"):
            yield Static(self._files_text(), id="files")
            yield Static(self._winner_text(), id="winner")
            yield Static("Start training with", classes="section-title")
            # Wrapped, folding a long path mid-word, so the whole command shows at 80 columns
            # (a scrolled box hid its end); c copies it as one line.
            with Vertical(id="launch-box"):
                yield Static(Text(self.launch_line(), overflow="fold"), id="launch-line")
            yield Static(self._about(), id="launch-about")
            yield Static("", id="train-status")
            yield Static("", id="sky-status")
        with Horizontal(classes="actions"):
            yield Button("Copy command", id="copy", variant="primary")
            yield Button("Start training", id="train")
            yield Button("Rented GPUs", id="sky")
            yield Button("Quit", id="quit")
        yield Footer()

    def on_mount(self) -> None:
        if not self.is_current:  # popped again before its Mount event was handled
            return
        run_dir: Path = self.app.state.run_dir
        pid = running_pid(run_dir)
        if pid is not None:
            self._show_started(pid, launch_files(run_dir, self._spec())[0])
        self.query_one("#copy", Button).focus()

    def _files_text(self) -> Text:
        run_dir: Path = self.app.state.run_dir
        files = Text("Run folder: ", style="bold")
        files.append(f"{run_dir}\n", style="not bold")
        for name in (f.rel for f in (rf.PLAN_MD, rf.CONFIG, rf.LAUNCH_SCRIPT, rf.AUTOTUNE_LOG, rf.SBATCH)):
            if (run_dir / name).exists():
                files.append(f"  ✓ {name}\n")
        return files

    def _winner_text(self) -> Text:
        state = self.app.state
        text = Text("Autotune: ", style="bold")
        summary = state.summary
        if summary is None:
            text.append(
                state.autotune_error or "skipped; the planned config is used as is.", style="not bold"
            )
            return text
        text.append(presenter.winner_sentence(summary), style="not bold")
        if summary.schedule_note:  # an allowed batch change: the steps and duration it gave
            text.append(f"\nSchedule: {summary.schedule_note}", style="not bold")
        problem = baseline_problem(state)
        if problem:
            text.append("\n! " + problem, style="bold")
        return text

    def launch_line(self) -> str:
        return copy_line(self.app.state.run_dir)

    def _spec(self) -> LaunchSpec | None:
        """The plan's start: in memory after planning, from run.json when reopened."""
        draft = self.app.state.draft
        return draft.start if draft is not None else read_run_meta(self.app.state.run_dir).launch

    def _about(self) -> Text:
        run_dir: Path = self.app.state.run_dir
        spec = self._spec()
        log, pid_file = launch_files(run_dir, spec)
        text = Text()
        if spec is not None and spec.simulated:
            text.append(
                "GPUs are simulated: it runs the simulated trainer on the planned config "
                "(plan.md has the command for the GPU box).\n"
            )
        elif spec is not None:
            env = " ".join(f"{k}={shlex.quote(v)}" for k, v in sorted(spec.env.items()))
            text.append(f"It runs in {spec.cwd}:\n  {(env + ' ') if env else ''}{shlex.join(spec.argv)}\n")
            if spec.argv and spec.argv[0] == "uv" and shutil.which("uv") is None:
                text.append(
                    f"! uv is not on PATH and launch.sh starts with `uv run`: install it with\n"
                    f"  {UV_INSTALL}\n  then run `uv sync` in your LTX-2 checkout.\n",
                    style="bold",
                )
        text.append(f"Log:      {log}\nPid file: {pid_file}")
        return text

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(self.launch_line())
        # OSC 52 asks the terminal to set the clipboard; nothing reports back whether it did.
        tmux = " (you are inside tmux)" if os.environ.get("TMUX") else ""
        self.notify(
            "Sent the line in the box to your clipboard with OSC 52. It arrives only if "
            f"the terminal allows it; tmux needs `set -g set-clipboard on`{tmux}. "
            "Selecting the line with the mouse works too.",
            timeout=12,
        )

    def action_train(self) -> None:
        from ltx_wizard.tui.dialogs.confirm import ConfirmDialog

        run_dir: Path = self.app.state.run_dir
        simulated = (
            " (GPUs are simulated: the simulated trainer runs the planned config)"
            if self.app.simulate
            else ""
        )
        problem = baseline_problem(self.app.state)
        warning = f"WARNING: {problem}\n\n" if problem else ""

        def answered(yes: bool | None) -> None:
            if yes:
                self._start()

        self.app.push_screen(
            ConfirmDialog(
                f"{warning}Start the full training run in the background (bash {LAUNCH_SCRIPT.path(run_dir)})? "
                f"It keeps running after you quit; output goes to {launch_files(run_dir, self._spec())[0]}{simulated}.",
                yes="Start anyway" if problem else "Start training",
                no="Not now",
                title="Start training",
            ),
            answered,
        )

    def _start(self) -> None:
        run_dir: Path = self.app.state.run_dir
        try:
            pid, log = start_training(run_dir)
        except WizardError as exc:
            self.notify(safe_markup(exc.message), severity="error", timeout=10)
            return
        self._show_started(pid, log)
        self.app.nav.open_monitor(run_dir)  # step 6 watches the run it started

    def _show_started(self, pid: int, log: Path) -> None:
        if not self.is_attached:  # left already: nothing to show it in
            return
        text = Text("Training runs in the background: ", style="bold")
        text.append(
            f"pid {pid}\nFollow it with: tail -f {log}\n"
            f"Stop it with:   kill -- -{pid}   (the trainer and its workers: one process group)",
            style="not bold",
        )
        self.query_one("#train-status", Static).update(text)
        self.query_one("#train", Button).disabled = True
        self.query_one("#body", VerticalScroll).scroll_end(animate=False)

    def action_sky(self) -> None:
        """Run it on rented GPUs (SkyPilot): the files written and checked off the event loop."""
        run_dir: Path = self.app.state.run_dir
        self.query_one("#sky-status", Static).update(
            "Writing the SkyPilot task and checking it with SkyPilot..."
        )
        self.query_one("#sky", Button).disabled = True
        self.run_worker(lambda: self._sky_files(run_dir), thread=True, exit_on_error=False, group="sky")

    def _sky_files(self, run_dir: Path) -> None:
        from ltx_wizard.core.cloud.sky_launch import launch_sky
        from ltx_wizard.core.cloud.sky_request import SkyOptions

        try:
            done: SkyLaunch | str = launch_sky(run_dir, SkyOptions())
        except WizardError as exc:
            done = exc.message
        self.app.call_from_thread(self._show_sky, done)

    def _show_sky(self, done: SkyLaunch | str) -> None:
        if not self.is_attached:
            return
        self.query_one("#sky", Button).disabled = False
        text = Text("Run it on rented GPUs (SkyPilot)\n", style="bold")
        if isinstance(done, str):
            text.append(f"! {clean_text(done)}", style="not bold")
        else:
            text.append(clean_block(sky_words(done)), style="not bold")
        self.query_one("#sky-status", Static).update(text)
        self.query_one("#body", VerticalScroll).scroll_end(animate=False)

    def action_back(self) -> None:
        self.leave()

    def action_scroll_body(self, how: str) -> None:
        body = self.query_one("#body", VerticalScroll)
        moves = {"page_down": body.scroll_page_down, "page_up": body.scroll_page_up}
        moves.update(scroll_end=body.scroll_end, scroll_home=body.scroll_home)
        moves[how](animate=False)

    def action_quit_app(self) -> None:
        self.app.exit(0, return_code=0)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if not self.is_current:  # a burst's late press: this screen is no longer on top
            return
        actions = {"copy": self.action_copy, "train": self.action_train, "sky": self.action_sky}
        {**actions, "quit": self.action_quit_app}[event.button.id or "quit"]()

    def action_open_file(self) -> None:
        from ltx_wizard.tui.run_file_open import ask_run_file

        run_dir = getattr(self, "run_dir", None) or self.app.state.run_dir
        ask_run_file(self.app, None if run_dir is None else Path(run_dir))
