"""The plan for approval: tier, base config, key choices, GPUs, launch line, warnings,
plan.md and the config diff. Approve writes the run folder (never over an existing one silently).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from rich.syntax import Syntax
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import (
    Button,
    Checkbox,
    DataTable,
    Header,
    Markdown,
    Static,
    TabbedContent,
    TabPane,
)

from ltx_wizard.core.base import phases
from ltx_wizard.core.io.run_folder import CONFIG, PLAN_MD
from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.base.text_safety import clean_block, clean_text
from ltx_wizard.tui.messages import PlanPrepared
from ltx_wizard.tui.heap import settle_heap
from ltx_wizard.tui.widgets.footer import Footer
from ltx_wizard.tui.widgets.formatting import gpu_row, yaml_value
from ltx_wizard.tui.widgets.steps import StepBar
from ltx_wizard.tui.wizard_screen import WizardScreen
from ltx_wizard.tui.widgets.formatting import safe_markup

if TYPE_CHECKING:  # for types only: the plan's modules load with its first draft
    from ltx_wizard.core.plan.draft import PlanDraft


# This screen's F1 help (dialogs/help.py shows it): what it does and what comes next.
SUMMARY_HELP = (
    phases.PLAN.f1_title,
    """\
**What it shows.** The tier, the base config and its key choices, the run folder, the launch
command, any warnings, `plan.md` (p) and the diff against the shipped config (d). Scroll with
the arrow keys, PageUp/PageDown, Home/End.

**Choices.**
- *Approve + autotune* (a): writes the run folder, then runs a few short trials on your GPU
  (for a run planned from your clips, after one clip is preprocessed for them).
- *Approve, skip* (s): writes the run folder, runs what training still needs (for a run
  planned from your clips: their preprocessing), then opens the launch step.
- *Back* (Esc): change the paths.

**What gets written.** The run folder's files and folders, listed for this run below (and in
plan.md's Outputs); `config.yaml` differs from the shipped file only by the keys the Config diff
(d) shows, named below. An existing plan is never overwritten without asking.""",
)


class SummaryScreen(WizardScreen):
    PHASE = phases.PLAN
    F1_HELP = SUMMARY_HELP
    BINDINGS = [
        Binding("a", "approve(True)", "Approve"),
        Binding("s", "approve(False)", "Skip autotune"),
        Binding("p", "tab('plan')", "Plan"),
        Binding("d", "tab('diff')", "Diff"),
        Binding("b", "toggle_batch", "Batch change", show=False),  # the checkbox says (b)
        Binding("escape", "back", "Back"),
        # The focus sits on a button: these scroll the whole plan, to its last line.
        Binding("pagedown", "scroll_body('page_down')", "Page down", show=False),
        Binding("pageup", "scroll_body('page_up')", "Page up", show=False),
        Binding("down", "scroll_body('scroll_down')", "Scroll down", show=False),
        Binding("up", "scroll_body('scroll_up')", "Scroll up", show=False),
        Binding("end", "scroll_body('scroll_end')", "End", show=False),
        Binding("home", "scroll_body('scroll_home')", "Home", show=False),
    ]
    draft: PlanDraft | None = None  # the plan shown, once drafted: what the approvals write
    _refused: str | None = None  # why the plan could not be drafted, when it could not

    def compose(self) -> ComposeResult:
        yield Header()
        yield StepBar(self.phase, id="steps")
        with VerticalScroll(id="body"):
            yield Static("Preparing the plan…", id="summary-head")
            yield Static("Key choices of the base config", classes="section-title")
            yield DataTable(id="choices", cursor_type="none", show_cursor=False)
            yield Static("Launch command", classes="section-title")
            yield Static("", id="launch")
            yield Static("", id="warnings")
            yield Static("Memory and disk", classes="section-title")
            yield Static("", id="host")
            yield Static("Autotune", classes="section-title")
            # Off: a larger batch is tried only where lower accumulation keeps the effective batch.
            yield Checkbox(
                "Allow a batch change (b): steps rescaled to keep the samples seen",
                value=self.app.state.allow_batch_change,
                id="allow-batch",
            )
            with TabbedContent(id="summary-tabs"):
                with TabPane("Plan (plan.md)", id="plan"):
                    yield Markdown("", id="plan-preview")
                with TabPane("Config diff", id="diff"):
                    yield Static("", id="config-diff")
        with Horizontal(classes="actions"):
            yield Button("Approve + autotune", id="approve", variant="primary", disabled=True)
            yield Button("Approve, skip", id="skip", disabled=True)
            yield Button("Back", id="back")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#choices", DataTable)
        table.add_columns("Key", "Value")
        for choice in self.app.state.assessment.policy.key_choices:
            table.add_row(choice.key, yaml_value(choice.value))
        self._prepare()

    @work(thread=True, exclusive=True, exit_on_error=False, group="plan")
    def _prepare(self) -> None:
        from ltx_wizard.core.plan.run_plan import prepare_plan
        from ltx_wizard.core.inputs.wandb_login import WandbUnknown
        from ltx_wizard.demo.sim.stand_in import plan_simulation

        app = self.app
        state = app.state
        target = app.target_run_dir
        try:
            # the Paths screen's request, plus what the other screens decided
            request = replace(
                state.request,
                video_vae=state.request.video_vae if state.split_pack else None,
                audio_vae=state.request.audio_vae if state.split_pack else None,
                workspace=target.parent if target is not None else app.workspace,
                run_name=target.name if target is not None else None,
                accept_risk=state.accept_risk,
                nodes=app.options.nodes,
            )
            draft = prepare_plan(
                request,
                app.state.assessment,
                now=app.now(),
                host=app.options.host_fn,
                **plan_simulation(app.stand_ins),  # the one launch.sh rule, shared with `plan`
            )
            error = None
        except WandbUnknown as exc:  # asked, never silently off (dialogs/wandb_ask.py)
            from ltx_wizard.tui.dialogs.wandb_ask import WandbAsk

            self.post_message(WandbAsk(exc.message))
            return
        except WizardError as exc:
            draft, error = None, exc.message
        except Exception as exc:  # a planner bug is shown, not raised into the UI
            draft, error = None, f"planning failed: {type(exc).__name__}: {exc}"
        self.post_message(PlanPrepared(draft, error))

    def on_wandb_ask(self, message) -> None:  # dialogs/wandb_ask.py WandbAsk
        from ltx_wizard.tui.dialogs.wandb_ask import ask_wandb

        ask_wandb(self, message.question)

    def prepare_again(self) -> None:
        self._prepare()

    @on(PlanPrepared)
    def _prepared(self, message: PlanPrepared) -> None:
        head = self.query_one("#summary-head", Static)
        self._refused = message.error
        if message.error is not None:
            self.draft = None  # an earlier draft is no plan for what the screen asked now
            for button in ("#approve", "#skip"):
                self.query_one(button, Button).disabled = True
            said = clean_text(message.error)  # the plan's refusal may quote a file it read
            head.update(Text.assemble(("Cannot plan: ", "bold"), said, "\nEsc goes back to fix it."))
            return
        from ltx_wizard.core.plan.plan_words import data_words

        draft = message.draft
        self.draft = draft
        self.call_after_refresh(settle_heap, self.app)  # the plan's imports are in: a phase boundary
        assessment = self.app.state.assessment
        text = Text()
        text.append(draft.tier.display_name, style="bold")
        text.append(f" · base config {draft.base_config}")
        if self.app.state.accept_risk:
            text.append("  AT YOUR OWN RISK", style="bold reverse")
        text.append(f"\nRecipe: {draft.recipe}" + (f" ({draft.recipe_modes})" if draft.recipe_modes else ""))
        for line in draft.applied:
            text.append(f"\n  {line.replace('`', '')}")
        text.append(f"\nRun folder: {draft.run_dir}")
        for gpu in assessment.probe.gpus:
            index, name, _, nominal = gpu_row(gpu)
            text.append(f"\nGPU {index}: {name} ({nominal})")
        text.append(
            f"\nData: {data_words(draft.record.data)} · mode {draft.record.training_mode}"
            + (" · video only (training_strategy.audio: null)" if draft.record.request.video_only else "")
        )
        multi = draft.multinode
        if multi is not None:
            per = f"{multi.gpus_per_node} GPU" + ("s" if multi.gpus_per_node != 1 else "")
            text.append(
                f"\nNodes: {multi.nodes} x {per} = {multi.total_gpus} GPUs"
                f" · effective batch {multi.effective_batch}",
                style="bold",
            )
            text.append(
                f"\nWrites {multi.sbatch_path.name} for Slurm (untested on a real cluster);"
                " autotune runs on one node"
            )
        head.update(text)
        self._show_choices(draft)
        self._offer_batch_change(draft)
        self.query_one("#launch", Static).update(Text(draft.shell_line()))
        warnings = Text()
        for warning in draft.warnings:
            warnings.append("! ", style="bold")
            warnings.append(warning + "\n")
        self.query_one("#warnings", Static).update(warnings)
        lines = draft.memory_lines or ("(not checked)",)
        self.query_one("#host", Static).update(Text("\n".join(lines)))
        self.query_one("#plan-preview", Markdown).update(clean_block(draft.plan_text))  # it names files
        diff = draft.diff or "(no changes: the config is the shipped file)"
        # the diff quotes the checkout's shipped config: cleaned, as `plan` prints it
        shown = Syntax(clean_block(diff), "diff", theme="ansi_dark", word_wrap=True)
        self.query_one("#config-diff", Static).update(shown)
        for button in ("#approve", "#skip"):
            self.query_one(button, Button).disabled = False
        self.query_one("#approve", Button).focus()

    def _show_choices(self, draft) -> None:
        """The tier's keys as config.yaml sets them (a recipe may ship other values)."""
        from ltx_wizard.core.io.trainer_config import trainer_config, value_at, written_keys
        from ltx_wizard.core.io.yaml_patch import load_yaml

        config = load_yaml(draft.config_text)  # the plan has read it through the view already
        keys, written = trainer_config(config), written_keys(config)
        table = self.query_one("#choices", DataTable)
        table.clear()
        for choice in self.app.state.assessment.policy.key_choices:
            shown = yaml_value(value_at(keys, choice.key)) if choice.key in written else "(not in the recipe)"
            table.add_row(choice.key, shown)

    def help_facts(self) -> str | None:
        """F1's lines for this plan: what each approve runs before the next screen."""
        draft = self.draft
        if draft is None:
            return None
        from ltx_wizard.core.plan.run_files import config_claim, written_lines

        data = draft.record.data
        if data.from_clips and not data.reused:
            first = (
                f"Both approvals preprocess first: *Approve + autotune* encodes one sample "
                f"for the trials, then after autotune all {data.listed} listed clips into "
                f"`{data.root}` (the trainer trains on {data.samples}); *Approve, skip* runs both steps (the one "
                "sample, then all the clips) before the launch step."
            )
        else:
            first = (
                f"The data is preprocessed already ({data.samples} samples in `{data.root}`): "
                "*Approve, skip* goes straight to the launch step."
            )
        return "\n\n".join(
            (first, config_claim(draft.record), "Written:\n" + "\n".join(written_lines(draft.record)))
        )

    def _offer_batch_change(self, draft) -> None:
        """The batch choice only where a batch trial can run on this plan's trial data."""
        from ltx_wizard.core.plan.trial_sample_count import batch_change_refusal

        refusal = batch_change_refusal(draft.record)
        box = self.query_one("#allow-batch", Checkbox)
        if refusal is not None:
            box.value = False
            box.disabled = True
            box.label = f"No batch change: {refusal}"

    # ----- actions ---------------------------------------------------------------------------
    def action_tab(self, tab: str) -> None:
        tabs = self.query_one("#summary-tabs", TabbedContent)
        tabs.active = tab
        self.query_one("#body", VerticalScroll).scroll_to_widget(tabs, top=True)

    def action_scroll_body(self, how: str) -> None:
        body = self.query_one("#body", VerticalScroll)
        if how in ("scroll_end", "scroll_home"):
            getattr(body, how)(animate=False)
        else:
            getattr(body, f"action_{how}")()

    def action_approve(self, autotune: bool) -> None:
        if self.draft is None:  # nothing to approve yet, or the plan was refused
            self.notify(
                "No plan to approve: Esc goes back to fix what it says above"
                if self._refused
                else "The plan is still being drafted: approve it once it shows here",
                severity="warning",
            )
            return
        self._write(autotune, force=False)

    def _write(self, autotune: bool, force: bool) -> None:
        from ltx_wizard.core.plan.run_plan import write_plan

        draft = self.draft
        if not force and any((draft.run_dir / n).exists() for n in (PLAN_MD.rel, CONFIG.rel)):
            self._ask_existing(autotune)
            return
        try:
            folder = write_plan(draft, force=force, on_note=lambda note: self.notify(note))
        except WizardError as exc:
            self.notify(safe_markup(exc.message), severity="error", timeout=10)
            return
        state = self.app.state
        state.draft = draft
        state.allow_batch_change = self.query_one("#allow-batch", Checkbox).value
        state.run_dir = folder.root
        state.summary = None
        state.autotune_error = None
        if autotune:
            self.app.nav.open_autotune()
        else:
            self.app.nav.open_done()

    def _ask_existing(self, autotune: bool) -> None:
        """The run folder holds a plan already (this session's own after Back, or an older one):
        a new folder beside it is the way forward; overwriting is asked for by name."""
        from ltx_wizard.tui.dialogs.choice import ChoiceDialog

        draft = self.draft
        fresh = _free_name(draft.run_dir)
        mine = self.app.state.run_dir == draft.run_dir
        whose = "this wizard wrote earlier in this session" if mine else "is there already"
        question = (
            f"{draft.run_dir} holds a plan.md or config.yaml that {whose}. Plan into a "
            f"new folder, {fresh.name} (nothing there is touched), or overwrite it?"
        )

        def answered(key: str | None) -> None:
            if key == "o":
                self._write(autotune, force=True)
            elif key == "f":
                self.app.target_run_dir = fresh
                self.draft = None  # the approvals wait for the plan of the new folder
                for button in ("#approve", "#skip"):
                    self.query_one(button, Button).disabled = True
                self.notify(f"Planned again into {safe_markup(fresh.name)}: approve to write it.", timeout=8)
                self._prepare()

        self.app.push_screen(
            ChoiceDialog(
                "Run folder exists", question, [("f", f"New folder {fresh.name}"), ("o", "Overwrite")]
            ),
            answered,
        )

    def action_toggle_batch(self) -> None:
        box = self.query_one("#allow-batch", Checkbox)
        if box.disabled:
            self.notify(str(box.label), timeout=6)
            return
        box.toggle()
        # the box sits below the plan's first screen: say what the key did
        self.notify(
            "Batch change allowed: a larger batch may run, optimization.steps rescaled to "
            "keep the samples seen"
            if box.value
            else "Batch change not allowed: the approved schedule is kept",
            timeout=6,
        )

    def action_back(self) -> None:
        self.leave()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if not self.is_current:  # a burst's late press: this screen is no longer on top
            return
        if event.button.id == "approve":
            self.action_approve(True)
        elif event.button.id == "skip":
            self.action_approve(False)
        else:
            self.action_back()


def _free_name(run_dir: Path) -> Path:
    """`run-2`, `run-3`, ...: the first sibling of the run folder that does not exist."""
    n = 2
    while (run_dir.with_name(f"{run_dir.name}-{n}")).exists():
        n += 1
    return run_dir.with_name(f"{run_dir.name}-{n}")
