"""Step 5: what was written, the winner, the launch command (copy over SSH), and a background start."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Footer, Header, Static

from ltx_wizard.core.errors import WizardError
from ltx_wizard.tui.widgets.steps import StepBar


class DoneScreen(Screen):
    BINDINGS = [
        Binding("c", "copy", "Copy command"),
        Binding("t", "train", "Start training"),
        Binding("q", "quit_app", "Quit", show=False),
        Binding("escape", "back", "Back"),
    ]

    def compose(self) -> ComposeResult:
        yield Header()
        yield StepBar(5, id="steps")
        with VerticalScroll(id="body"):
            yield Static("", id="files")
            yield Static("", id="winner")
            yield Static("Launch command", classes="section-title")
            yield Static("", id="launch-line")
            yield Static("", id="train-status")
        with Horizontal(classes="actions"):
            yield Button("Copy command", id="copy", variant="primary")
            yield Button("Start training", id="train")
            yield Button("Quit", id="quit")
        yield Footer()

    def on_mount(self) -> None:
        state = self.app.state
        run_dir: Path = state.run_dir  # type: ignore[assignment]
        files = Text("Run folder: ", style="bold")
        files.append(f"{run_dir}\n", style="not bold")
        for name in ("plan.md", "config.yaml", "autotune.log", "slurm.sbatch"):
            if (run_dir / name).exists():
                files.append(f"  ✓ {name}\n")
        self.query_one("#files", Static).update(files)
        self.query_one("#winner", Static).update(self._winner_text())
        self.query_one("#launch-line", Static).update(Text(self.launch_line()))
        from ltx_wizard.tui.background import running_pid

        pid = running_pid(run_dir)
        if pid is not None:
            self._show_started(pid, run_dir / "logs" / "train.log")
        self.query_one("#copy", Button).focus()

    def _winner_text(self) -> Text:
        state = self.app.state
        text = Text("Autotune: ", style="bold")
        summary = state.summary
        if summary is None:
            text.append(state.autotune_error or "skipped; the planned config is used as is.", style="not bold")
            return text
        win = next((t for t in summary.trials if t.index == summary.winner), None)
        if win is None:
            text.append("no trial succeeded; the planned config is used as is.", style="not bold")
            return text
        step = f"{win.step_time_s:.2f} s/step" if win.step_time_s is not None else "step time n/a"
        peak = f"{win.peak_vram_gb:.1f} GB peak" if win.peak_vram_gb is not None else "peak n/a"
        patched = "patched into config.yaml" if summary.config_patched else "config.yaml unchanged"
        text.append(f"winner trial {win.index} ({win.change}), {step}, {peak}; {patched}", style="not bold")
        return text

    def launch_line(self) -> str:
        state = self.app.state
        # The planned real command first: under --simulate/--demo the engine's line is the
        # simulated trainer's, which is not what the user would run on a GPU box.
        if state.draft is not None:
            return state.draft.shell_line()
        if state.summary is not None and state.summary.launch_line and not self.app.simulate:
            return state.summary.launch_line
        return self.app.launch_line_from_run_dir()

    def action_copy(self) -> None:
        # OSC 52: the terminal (even at the far end of SSH/tmux with set-clipboard on) copies it.
        self.app.copy_to_clipboard(self.launch_line())
        self.notify("Launch command copied to the clipboard (OSC 52).")

    def action_train(self) -> None:
        from ltx_wizard.tui.dialogs.confirm import ConfirmDialog

        run_dir: Path = self.app.state.run_dir  # type: ignore[assignment]
        simulated = " (GPUs are simulated: the simulated trainer runs the planned config)" if self.app.simulate else ""

        def answered(yes: bool | None) -> None:
            if yes:
                self._start()

        self.app.push_screen(
            ConfirmDialog(
                f"Start the full training run in the background? It keeps running after you quit; "
                f"output goes to {run_dir / 'logs' / 'train.log'}{simulated}.",
                yes="Start training", no="Not now", title="Start training",
            ),
            answered,
        )

    def _start(self) -> None:
        from ltx_wizard.tui.background import start_training

        run_dir: Path = self.app.state.run_dir  # type: ignore[assignment]
        argv, cwd, env = self.app.training_command()
        try:
            pid, log_path = start_training(argv, cwd=cwd, run_dir=run_dir, env=env)
        except WizardError as exc:
            self.notify(exc.message, severity="error", timeout=10)
            return
        self._show_started(pid, log_path)

    def _show_started(self, pid: int, log_path: Path) -> None:
        text = Text("Training runs in the background: ", style="bold")
        text.append(f"pid {pid}\nFollow it with: tail -f {log_path}\nStop it with:   kill {pid}", style="not bold")
        self.query_one("#train-status", Static).update(text)
        self.query_one("#train", Button).disabled = True
        self.query_one("#body", VerticalScroll).scroll_end(animate=False)

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_quit_app(self) -> None:
        self.app.exit(0, return_code=0)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        {"copy": self.action_copy, "train": self.action_train, "quit": self.action_quit_app}[event.button.id or "quit"]()
