"""After training: the post-training evaluation, run and seen in the terminal (the skill's Phase 9).

Before an evaluation: the checkpoint, the prompts of the three categories (e edits them), the
quantization and the production path's memory line; s starts it in the background (`ltx-wizard
eval RUN --job`, its own log and pid, so it survives the wizard). While it runs: its stage, read
from logs/eval-state.json every second; x stops it. After: one line per prompt, and for the one
selected its renders as keyframe contact sheets, with the LoRA and without, by each path, with the
quantization beside them; p / b play the render with / without the LoRA where a terminal player
is installed, c copies the scp line. Nothing here judges a render. Once `compare` ran, the head
shows its recommendation and the pick, g the tournament's grid, and k picks a checkpoint
(compare_part.py).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import Header, OptionList, Static

from ltx_wizard.core.base import phases
from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.base.text_safety import clean_text
from ltx_wizard.core.evaluation.layout import PIPELINES, Manifest, Render, eval_dir, read_manifest
from ltx_wizard.core.evaluation.prompts import PromptSet
from ltx_wizard.tui.screens.results import compare_part
from ltx_wizard.tui.screens.results.grid_view import GridView
from ltx_wizard.tui.screens.results.prompt_sheet import label, plan_options, prompt_options, sheet_title
from ltx_wizard.tui.screens.results.clip_access import evaluated_checkpoint, no_player_text, player, scp_line
from ltx_wizard.tui.screens.results.f1_help import RESULTS_HELP
from ltx_wizard.tui.widgets.footer import Footer
from ltx_wizard.tui.widgets.formatting import safe_markup
from ltx_wizard.tui.widgets.keyframes import KeyframeStrip
from ltx_wizard.tui.wizard_screen import WizardScreen

if TYPE_CHECKING:
    from ltx_wizard.core.evaluation.job import EvalState

REFRESH_S = 1.0


@dataclass
class Loaded(Message):
    manifest: Manifest | None
    state: Any
    setup: Any
    lines: list[str]
    error: str | None
    compare: Any = None  # compare_part.py CompareState


class ResultsScreen(WizardScreen):
    PHASE = phases.RESULTS
    F1_HELP = RESULTS_HELP
    CSS_PATH = "results.tcss"
    BINDINGS = [
        Binding("s", "start", "Start"),
        Binding("x", "stop", "Stop"),
        Binding("e", "edit", "Edit prompts"),
        Binding("p", "play(True)", "Play"),
        Binding("b", "play(False)", "Play base"),
        Binding("c", "copy", "Copy scp line"),
        Binding("g", "grid", "Grid"),  # the tournament's grid (compare_part.py)
        Binding("k", "pick", "Pick checkpoint"),  # of those compare compared (compare_part.py)
        Binding("escape", "back", "Back"),
    ]

    def __init__(self, run_dir: Path, *, refresh_s: float = REFRESH_S) -> None:
        super().__init__()
        self.run_dir = Path(run_dir)
        self.refresh_s = refresh_s
        self.manifest: Manifest | None = None
        self.state: EvalState | None = None
        self.setup: tuple[Any, Any] | None = None  # (the evaluation's setup, its production)
        self.prompts: PromptSet | None = None
        self.production_lines: list[str] = []
        self._shown: str | None = None  # the prompt whose sheet is drawn
        self._drawn_count = 0  # how many of its renders the sheet holds
        self._error: str | None = None
        self.running = False
        self.graphics = None  # images/choice.py Graphics: what the first sheet was drawn with
        self.compare = compare_part.CompareState()  # compare.json, the pick, grid.json (compare_part.py)

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(Text(f"Reading {clean_text(self.run_dir)} ..."), id="results-head")
        yield OptionList(id="results-list")
        with VerticalScroll(id="results-sheet"):
            yield Static("", id="sheet-title")
        yield Static("", id="results-copy")
        yield Footer()

    def on_mount(self) -> None:
        self.load()
        self.set_interval(self.refresh_s, self._tick)

    # -- reading -------------------------------------------------------------------------------

    @work(thread=True, exit_on_error=False, group="results-read", exclusive=True)
    def load(self, with_setup: bool = True) -> None:
        from ltx_wizard.core.evaluation.job import read_state

        manifest, state = read_manifest(self.run_dir), read_state(self.run_dir)
        setup, lines, error = None, [], None
        if with_setup:
            try:
                setup, lines = self._setup()
            except WizardError as exc:
                error = exc.message
        self.post_message(Loaded(manifest, state, setup, lines, error, compare_part.read_state(self.run_dir)))

    def _setup(self):
        from ltx_wizard.core.evaluation.request import preview

        seen = preview(self.run_dir, self.app.stand_ins)  # the core decides; this screen shows it
        return (seen.setup, seen.production.production), seen.production.lines

    def _tick(self) -> None:
        from ltx_wizard.core.evaluation.job import read_state
        from ltx_wizard.core.evaluation.job_process import eval_pid

        state = read_state(self.run_dir)
        if state is not None and state != self.state:
            if self.running and state.state != "running":  # it finished while shown: say how
                from ltx_wizard.core.evaluation.eval_lines import state_line

                failed = state.state == "failed"
                self.notify(
                    state_line(state), title="Evaluation", severity="error" if failed else "information"
                )
            self.state = state
            self._head()
            self.load(with_setup=False)  # a finished stage: its renders are in prompts.json
        elif state is not None and state.state == "running" and eval_pid(self.run_dir) is None:
            self._head(lost=True)

    @on(Loaded)
    def _loaded(self, message: Loaded) -> None:
        self.manifest, self.state = message.manifest, message.state or self.state
        self.compare = message.compare
        if message.setup is not None:
            self.setup = message.setup
            self.prompts = self.setup[0].prompts if self.prompts is None else self.prompts
            self.production_lines = message.lines
        self._error = message.error
        self._head()
        self._list()
        if self._shown is not None and len(self._renders(self._shown)) != self._drawn_count:
            self._sheet(self._shown)  # a render of the prompt on view came in meanwhile

    # -- drawing -------------------------------------------------------------------------------

    def _head(self, lost: bool = False) -> None:
        if self.has_class("grid"):  # the grid's own short head (compare_part.py)
            text = Text("\n".join(compare_part.grid_head(self.compare)), no_wrap=True, overflow="ellipsis")
            self.query_one("#results-head", Static).update(text)
            return
        text = Text("Post-training evaluation: ", style="bold")
        found = self.setup[0] if self.setup else None
        if self.manifest is not None:
            text.append(f"{clean_text(self.manifest.checkpoint)}\n", style="not bold")
        elif found is not None:
            text.append(f"{clean_text(found.choice.note)}\n", style="not bold")
        else:
            text.append("\n")
        if getattr(self, "_error", None) and self.manifest is None:
            text.append(f"Cannot evaluate yet: {clean_text(self._error)}\n", style="bold")
        state = self.state
        if state is not None:
            from ltx_wizard.core.evaluation.eval_lines import state_line

            text.append(state_line(state, lost) + "  (log: logs/eval.log)\n")
        elif found is not None:
            text.append("Not run yet: s starts it in the background (e edits the prompts)\n")
        for line in compare_part.head_lines(self.compare):  # compare.json, the pick, grid.json
            text.append(line + "\n")
        if self.graphics is not None and self.graphics.note:  # a richer protocol, or why not
            text.append(self.graphics.line() + "\n", style="dim")
        self.query_one("#results-head", Static).update(text)
        self.running = state is not None and state.state == "running" and not lost

    def refresh_head(self) -> None:
        self._head()

    def _list(self) -> None:
        options = self.query_one("#results-list", OptionList)
        highlighted = options.highlighted
        options.clear_options()
        planning = self.manifest is None or not self.manifest.renders
        self.set_class(planning, "planning")  # the plan takes the sheet's room (results.tcss)
        if not planning:
            options.add_options(prompt_options(self.manifest))
            options.highlighted = highlighted if highlighted is not None else 0
        elif self.prompts is not None:
            options.add_options(plan_options(self.prompts, self.production_lines))

    @on(KeyframeStrip.Drawn)
    def _drawn(self, message: KeyframeStrip.Drawn) -> None:
        if self.graphics is None:
            self.graphics = message.graphics
            self._head()

    @on(OptionList.OptionHighlighted, "#results-list")
    def _highlight(self, event: OptionList.OptionHighlighted) -> None:
        if event.option.id is not None and event.option.id != self._shown:
            self._sheet(event.option.id)

    def _renders(self, prompt: str) -> list[Render]:
        found = [r for r in self.manifest.renders.values() if r.prompt == prompt] if self.manifest else []
        return sorted(found, key=lambda r: (r.made_by == PIPELINES, not r.lora))

    def _sheet(self, prompt: str) -> None:
        """Per path a row: with the LoRA on the left, without it on the right."""
        self._shown = prompt
        sheet = self.query_one("#results-sheet", VerticalScroll)
        sheet.query(".sheet-row").remove()
        renders = self._renders(prompt)
        self._drawn_count = len(renders)
        if not renders:
            return
        self.query_one("#sheet-title", Static).update(Text(sheet_title(renders, prompt)))
        width = sheet.size.width or self.app.size.width - 2
        cells = max(20, (width - 4) // 2)
        count = 3 if cells < 50 else 4
        for path in (r.made_by for r in renders if r.lora):
            pair = [r for r in renders if r.made_by == path]
            row = Horizontal(
                *(
                    KeyframeStrip(
                        eval_dir(self.run_dir) / r.file,
                        label(r),
                        cells=cells,
                        count=count,
                        graphics=self.graphics,
                    )
                    for r in pair
                ),
                classes="sheet-row",
            )
            sheet.mount(row)
        self.query_one("#results-copy", Static).update(
            Text(
                "c copies: " + clean_text(self._copy_line(renders)),
                style="dim",
                no_wrap=True,
                overflow="ellipsis",
            )
        )

    # -- actions -------------------------------------------------------------------------------

    def _selected(self, lora: bool) -> Render | None:
        if self._shown is None:
            return None
        return next((r for r in self._renders(self._shown) if r.lora == lora), None)

    def action_play(self, lora: bool = True) -> None:
        render = self._selected(lora)
        if render is None:
            self.notify("No render selected", severity="warning")
            return
        command = player(eval_dir(self.run_dir) / render.file)
        if command is None:
            self.notify(no_player_text(), timeout=8)
            return
        import subprocess

        from textual.app import SuspendNotSupported

        try:
            with self.app.suspend():  # the player has the terminal; the wizard comes back after
                subprocess.run(command, check=False)
        except SuspendNotSupported:
            self.notify(
                f"this terminal cannot be handed to {Path(command[0]).name}: "
                + no_player_text().split("; ", 1)[1],
                timeout=8,
            )
        self.refresh()

    def _copy_line(self, renders: list[Render]) -> str:
        """The scp line of a prompt's renders and the checkpoint they were made with."""
        checkpoint = evaluated_checkpoint(self.run_dir)
        paths = [eval_dir(self.run_dir) / r.file for r in renders]
        return scp_line(paths + ([checkpoint] if checkpoint is not None else []))

    def action_copy(self) -> None:
        if self._shown is None or not self._renders(self._shown):
            self.notify("No render selected", severity="warning")
            return
        line = self._copy_line(self._renders(self._shown))
        self.app.copy_to_clipboard(line)
        # OSC 52 asks the terminal; nothing reports back whether it did: the line is shown whole
        self.notify(
            f"Sent to your clipboard with OSC 52, where the terminal allows it (tmux: set -g "
            f"set-clipboard on); else select it here: {line}",
            title="Copied",
            timeout=20,
        )

    def action_edit(self) -> None:
        from ltx_wizard.core.evaluation.prompts import edited
        from ltx_wizard.tui.dialogs.eval_prompts import EvalPromptsDialog

        if self.prompts is None:
            self.notify(
                safe_markup(getattr(self, "_error", None) or "Reading the run..."), severity="warning"
            )
            return

        def answered(found: dict[str, list[str]] | None) -> None:
            if found is None or self.prompts is None:
                return
            for category, lines in found.items():
                self.prompts = edited(self.prompts, category, lines)
            self.manifest = None  # the list shows the plan again, with the edit
            self._list()

        self.app.push_screen(EvalPromptsDialog(self.prompts), answered)

    def action_start(self) -> None:
        from ltx_wizard.core.evaluation.job import write_job
        from ltx_wizard.core.evaluation.job_process import start_job
        from ltx_wizard.core.evaluation.job_planning import job

        if self.setup is None or self.prompts is None:
            self.notify(
                safe_markup(getattr(self, "_error", None) or "Reading the run..."), severity="warning"
            )
            return
        try:
            write_job(self.run_dir, job(self.setup[0], self.prompts, production_path=self.setup[1]))
            pid, _log = start_job(
                self.run_dir, [sys.executable, "-m", "ltx_wizard", "eval", str(self.run_dir), "--job"]
            )
        except WizardError as exc:
            self.notify(safe_markup(exc.message), severity="error", timeout=10)
            return
        self.notify(f"Evaluation runs in the background: pid {pid}")

    def action_stop(self) -> None:
        from ltx_wizard.core.evaluation.job_process import stop_job
        from ltx_wizard.tui.dialogs.confirm import ConfirmDialog

        async def stop() -> None:
            await stop_job(self.run_dir)
            self.notify("Evaluation stopped; what it finished stays laid out")

        def answered(yes: bool | None) -> None:
            if yes:
                self.run_worker(stop(), group="results-stop", exclusive=True, exit_on_error=False)

        self.app.push_screen(
            ConfirmDialog(
                "Stop the evaluation and the process it runs?", yes="Stop it", no="Let it run", title="Stop"
            ),
            answered,
        )

    def action_pick(self) -> None:
        compare_part.ask_pick(self)

    def action_grid(self) -> None:
        compare_part.toggle_grid(self)

    @on(GridView.Opened)
    def _open_cell(self, message: GridView.Opened) -> None:
        compare_part.open_cell(self, message)

    def action_back(self) -> None:
        self.leave()
