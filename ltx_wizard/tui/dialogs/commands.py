"""What the wizard ran for this run (`@` from any screen that knows its run folder; the App's
`show_commands` action): every command of logs/commands.jsonl, newest last, its outcome coloured;
the selected one shown whole below the table (selectable where OSC 52 is not), and copied with
Enter or c. `ltx-wizard commands RUN` prints the same lines.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import DataTable, Static

from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.base.text_safety import clean_text
from ltx_wizard.core.io.commands_file import Command, read_commands
from ltx_wizard.tui.dialogs.once import OnceModal


@dataclass
class CommandsRead(Message):
    commands: list[Command]
    error: str | None


def _outcome(command: Command) -> Text:
    style = {True: "green", False: "bold red", None: "yellow"}[command.ok]
    return Text(command.outcome, style=style)


# This dialog's F1 help (dialogs/help.py shows it).
COMMANDS_HELP = (
    "Commands run",
    """\
**What it shows.** Every external command the wizard started for this run (uv, git, the trainer's
scripts, accelerate, the pipelines, the captioner server, compare's programs), from
`logs/commands.jsonl`, oldest first: when it started, how it ended (exit 0 in green, another exit
or a signal in red, no end seen in yellow) and its program. Below the table, the selected command
as one shell line, `cd DIR && env K=V ... argv`, that reruns it by hand; a secret's value (a name
with TOKEN, KEY or SECRET) is read from your own environment (`HF_TOKEN="$HF_TOKEN"`).

**Choices.** Copy line (c), or Enter: the selected line to your clipboard (OSC 52; under tmux,
`set-clipboard on`); where the terminal does not take it, select the line shown. Close (Esc).
`ltx-wizard commands RUN` prints the same lines.""",
)


class CommandsDialog(OnceModal[None]):
    F1_HELP = COMMANDS_HELP
    DEFAULT_CSS = """
    #commands-dialog { width: 100%; height: 100%; max-height: 100%; max-width: 100%; padding: 0 1; }
    #commands-table { height: 1fr; }
    #commands-line { height: auto; max-height: 6; margin-top: 1; }
    """
    BINDINGS = [
        Binding("escape", "close", "Close"),
        Binding("c", "copy", "Copy line"),
    ]

    def __init__(self, run_dir: Path) -> None:
        super().__init__()
        self.run_dir = Path(run_dir)
        self.commands: list[Command] = []

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="commands-dialog"):
            yield Static(f"Commands run for {clean_text(self.run_dir)}", classes="dialog-title")
            yield DataTable(id="commands-table", cursor_type="row", zebra_stripes=True)
            yield Static("Reading logs/commands.jsonl ...", id="commands-line")
            yield Static("Enter or c copies the selected line · Esc closes", classes="dialog-hint")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("Started", "Outcome", "Command")
        self.load()

    @work(thread=True, exit_on_error=False, group="commands-read")
    def load(self) -> None:
        try:
            self.post_message(CommandsRead(read_commands(self.run_dir), None))
        except WizardError as exc:
            self.post_message(CommandsRead([], exc.message))

    @on(CommandsRead)
    def _show(self, message: CommandsRead) -> None:
        self.commands = message.commands
        table = self.query_one(DataTable)
        table.clear()
        for command in self.commands:  # newest last, as they ran
            table.add_row(command.when, _outcome(command), Text(clean_text(" ".join(command.start.argv))))
        line = self.query_one("#commands-line", Static)
        if message.error is not None:
            line.update(Text(clean_text(message.error), style="bold red"))
        elif not self.commands:
            line.update("No command recorded for this run yet.")
        else:
            table.move_cursor(row=len(self.commands) - 1)
            table.focus()
            self._describe(len(self.commands) - 1)

    @on(DataTable.RowHighlighted)
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._describe(event.cursor_row)

    @on(DataTable.RowSelected)
    def _selected(self, event: DataTable.RowSelected) -> None:
        self.action_copy()

    def _describe(self, row: int) -> None:
        if 0 <= row < len(self.commands):
            self.query_one("#commands-line", Static).update(Text(clean_text(self.commands[row].line)))

    def selected(self) -> Command | None:
        row = self.query_one(DataTable).cursor_row
        return self.commands[row] if 0 <= row < len(self.commands) else None

    def action_copy(self) -> None:
        command = self.selected()
        if command is None:
            self.notify("No command to copy", severity="warning")
            return
        self.app.copy_to_clipboard(command.line)
        self.notify("Sent the command line to the clipboard (OSC 52; tmux needs set-clipboard on)")

    def action_close(self) -> None:
        self.dismiss(None)
