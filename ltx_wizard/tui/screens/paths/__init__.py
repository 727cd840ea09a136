"""Model, data and trainer paths, each checked live as the user types.

The form edits a draft PlanRequest (core/plan/plan_request.py, built by the one adapter the CLI uses
too) and its checks run the plan's own inspect steps on it (core/plan/model_checks.py). They read
safetensors headers and walk folders, so they run in a thread worker, debounced, once per changed
draft (a widget re-posting an unchanged value starts nothing; a newer draft cancels the older
check's work). Discovery of candidates runs once in another worker. Continue is refused until
every field passes.
"""

from __future__ import annotations

import threading
from dataclasses import replace
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.timer import Timer
from textual.widgets import Button, Checkbox, Header, Input, Select, Static, TextArea

from ltx_wizard.core.base import phases
from ltx_wizard.core.plan.plan_request import DEFAULT_RECIPE, PlanRequest
from ltx_wizard.tui.messages import ChecksFinished, DiscoveryFinished
from ltx_wizard.tui.screens.paths.fields import (
    FIELDS,
    PATHS_HELP,
    VAE_FIELDS,
    VIDEO_ONLY_LABEL,
    VIDEO_ONLY_OPTION,
)
from ltx_wizard.tui.screens.paths.checks import (
    ClipsProgress,
    ClipsProgressReporter,
    checkout_recipes,
    form_text,
    validation_form_for,
)
from ltx_wizard.tui.screens.paths.refusal import refuse_continue
from ltx_wizard.tui.screens.paths.form import (
    field_verdict,
    form_request,
    missing_models_note,
    problem_fields,
    recipe_label,
)
from ltx_wizard.tui.widgets.dataset_options import dataset_options, is_dataset
from ltx_wizard.tui.widgets.footer import Footer
from ltx_wizard.tui.widgets.path_field import PathField
from ltx_wizard.tui.widgets.steps import StepBar
from ltx_wizard.tui.widgets.validation_panel import ValidationChecked, ValidationPanel
from ltx_wizard.tui.wizard_screen import WizardScreen

if TYPE_CHECKING:
    from ltx_wizard.core.plan.model_checks import CheckItem


class PathsScreen(WizardScreen):
    PHASE = phases.PATHS
    F1_HELP = PATHS_HELP
    DEFAULT_CSS = "PathsScreen #form-end { height: 3; }"
    BINDINGS = [
        Binding("ctrl+n", "next", "Continue"),
        Binding("f2", "pick", "Pick found"),
        Binding("f3", "download", "Download"),
        Binding("escape", "back", "Back"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self._timer: Timer | None = None
        # (draft, fields it could not hold): what the last results belong to, and what the
        # running (or last) check reads
        self._checked: tuple[PlanRequest, dict[str, str]] | None = None
        self._started: tuple[PlanRequest, dict[str, str]] | None = None
        self._cancel = threading.Event()  # set when a newer draft replaces the running check
        self._results: dict[str, CheckItem] = {}
        self._candidates: dict[str, list] = {}
        self._partial: str | None = None  # discovery was cut short: said here and in F2's list
        self._continue_when_checked = False
        self._recipes: tuple[tuple[str, str], ...] = ()  # what the Recipe list offers now
        self._validation_error: str | None = None  # plan's refusal of the validation section

    def compose(self) -> ComposeResult:
        request = self.app.state.request
        yield Header()
        yield StepBar(self.phase, id="steps")
        with VerticalScroll(id="body"):
            for name, label, placeholder in FIELDS:
                yield PathField(name, label, form_text(getattr(request, name)), placeholder)
                if name == "data_root":
                    box = Checkbox(VIDEO_ONLY_LABEL, request.video_only, id="video-only", compact=True)
                    box.display = request.video_only  # offered once the data shows no audio
                    yield box
                    yield from dataset_options(request)
            yield Static("Training mode", classes="field-label")
            yield Select(
                [("LoRA (recommended)", "lora"), ("Full fine-tune (multi-GPU, 80GB+)", "full")],
                value="full" if request.training_mode == "full" else "lora",
                allow_blank=False,
                id="mode",
                compact=True,
            )
            yield Static(
                "Recipe (a shipped config of the checkout; the data root must hold its folders)",
                classes="field-label",
            )
            yield Select(
                [(request.recipe, request.recipe)],
                value=request.recipe,
                allow_blank=False,
                id="recipe",
                compact=True,
            )
            yield ValidationPanel(request)
            # Room under the last field: its ✗ line scrolls up above the toast that names it.
            yield Static("", id="form-end")
        with Horizontal(classes="actions"):
            yield Button("Continue", id="continue", variant="primary")
            yield Button("Back", id="back")
        yield Footer()

    def on_mount(self) -> None:
        self._show_vae_fields(self.app.state.split_pack)
        self.query_one("#input-checkpoint", Input).focus()
        self._discover()
        self._schedule_checks()

    # ----- values ----------------------------------------------------------------------------
    def values(self) -> dict[str, str]:
        out = {name: self.query_one(f"#field-{name}", PathField).value for name, _, _ in FIELDS}
        out["training_mode"] = str(self.query_one("#mode", Select).value)
        out["recipe"] = str(self.query_one("#recipe", Select).value)
        out["video_only"] = "yes" if self.query_one("#video-only", Checkbox).value else ""
        out["resolution_buckets"] = self.query_one("#buckets", Input).value.strip()
        out["lora_trigger"] = self.query_one("#trigger", Input).value.strip()
        out["precomputed_dir"] = self.query_one("#precomputed-dir", Input).value.strip()
        return {**out, **self.query_one(ValidationPanel).values()}

    def draft(self, values: dict[str, str] | None = None) -> PlanRequest:
        """The request the form says now (the one adapter, as the CLI's)."""
        return self._form(values)[0]

    def _form(self, values: dict[str, str] | None = None) -> tuple[PlanRequest, dict[str, str]]:
        """(the draft, fields it could not hold with why: a URL typed for a file)."""
        values = self.values() if values is None else values
        return form_request(values, self.app.state.request)

    def _show_vae_fields(self, split: bool) -> None:
        for name in VAE_FIELDS:
            self.query_one(f"#field-{name}", PathField).display = split

    # ----- discovery -------------------------------------------------------------------------
    @work(thread=True, exclusive=True, exit_on_error=False, group="discovery")
    def _discover(self) -> None:
        from ltx_wizard.core.inputs.discovery import discover

        demo = self.app.demo
        extra = [demo.root / "models"] if demo is not None else []
        try:
            result = discover(extra)  # bounded by work; the clock only guards a hung mount
        except Exception:  # discovery only helps; a failure leaves the fields as typed
            result = None
        self.post_message(DiscoveryFinished(result))

    @on(DiscoveryFinished)
    def _discovered(self, message: DiscoveryFinished) -> None:
        if message.result is None:
            return
        by_kind: dict[str, list] = {}
        for cand in message.result.candidates:
            by_kind.setdefault(cand.kind, []).append(cand)
        self._candidates = by_kind
        self._partial = message.result.partial_note()
        if self._partial:
            self.notify(self._partial[0].upper() + self._partial[1:] + ".", severity="warning", timeout=12)
        for name, cands in by_kind.items():
            self.query_one(f"#field-{name}", PathField).show_candidates(len(cands))
        best = next((c for c in by_kind.get("checkpoint", []) if c.usable), None)
        if best is not None and not self.values()["checkpoint"]:
            self._fill_from_checkpoint(best)
        note = missing_models_note(by_kind, self.values())
        if note is not None:  # the skill's onboarding: offer the download, never start one unasked
            self.notify(note, timeout=12)

    def _fill_from_checkpoint(self, cand) -> None:
        self.query_one("#field-checkpoint", PathField).set_value(str(cand.path))
        for name in ("text_encoder", "video_vae", "audio_vae"):
            found = getattr(cand, name, None)
            field = self.query_one(f"#field-{name}", PathField)
            if found is not None and not field.value:
                field.set_value(str(found))

    def action_pick(self) -> None:
        focused = self.focused
        name = (
            focused.id.removeprefix("input-") if isinstance(focused, Input) and focused.id else "checkpoint"
        )
        cands = self._candidates.get(name, [])
        if not cands:
            self.notify(f"Nothing found on disk for {name.replace('_', ' ')}; type the path.")
            return
        from ltx_wizard.tui.dialogs.pick import PickDialog

        def picked(path: str | None) -> None:
            if path is None:
                return
            chosen = next((c for c in cands if str(c.path) == path), None)
            if name == "checkpoint" and chosen is not None:
                self._fill_from_checkpoint(chosen)
            else:
                self.query_one(f"#field-{name}", PathField).set_value(path)

        self.app.push_screen(
            PickDialog(f"Found on disk: {name.replace('_', ' ')}", cands, note=self._partial), picked
        )

    def action_download(self) -> None:
        """Models offered for download, one file at a time (dialogs/download.py)."""
        from ltx_wizard.tui.dialogs.download import DownloadDialog

        def done(got: dict | None) -> None:
            for role, path in (got or {}).items():  # checked as typed paths are
                self.query_one(f"#field-{role}", PathField).set_value(path)

        self.app.push_screen(DownloadDialog(), done)

    # ----- live validation -------------------------------------------------------------------
    @on(Input.Changed)
    @on(Select.Changed)
    @on(Checkbox.Changed)
    @on(TextArea.Changed)
    def _changed(self) -> None:
        self._schedule_checks()

    @on(Input.Submitted)
    def _submitted(self) -> None:
        if not self.is_current:  # a burst's late press: this screen is no longer on top
            return
        self.focus_next()

    def _schedule_checks(self) -> None:
        form = self._form()
        if form == self._started:  # nothing the checks read has changed: no second pass
            return
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        delay = self.app.options.check_delay_s
        if delay <= 0:
            self._start_check(form)
        else:
            self._timer = self.set_timer(delay, lambda: self._start_check(self._form()))

    def _start_check(self, form: tuple[PlanRequest, dict[str, str]]) -> None:
        if form == self._started:
            return
        self._cancel.set()  # the older check stops between items (and its clip probes)
        self._cancel = threading.Event()
        self._started = form
        self._check(*form, self._cancel)

    @work(thread=True, exclusive=True, exit_on_error=False, group="checks")
    def _check(self, draft: PlanRequest, problems: dict[str, str], cancel: threading.Event) -> None:
        from ltx_wizard.core.inputs.checkpoint import inspect_checkpoint
        from ltx_wizard.core.plan.model_checks import Cancelled, check_request

        recipes = checkout_recipes(form_text(draft.trainer_root))
        info = None
        if draft.checkpoint is not None:
            try:
                info = inspect_checkpoint(draft.checkpoint)
            except Exception:  # check_request reports the same error under the field
                info = None
        split = info is not None and info.is_split_pack
        checked = draft if split else replace(draft, video_vae=None, audio_vae=None)
        assessment = self.app.state.assessment
        try:
            items = check_request(
                checked,
                tier=assessment.tier if assessment else None,
                inspected=info,  # read once above, not again
                video_only_option=VIDEO_ONLY_OPTION,
                cancel=cancel,
                problems=problems,
                on_progress=ClipsProgressReporter(self, cancel),
            )
        except Cancelled:
            return
        # first: Continue, waiting on ChecksFinished, must see this section's verdict too
        self.post_message(ValidationChecked(validation_form_for(draft), (draft, problems)))
        self.post_message(ChecksFinished(items, (draft, problems), info, recipes))

    def _base_config(self) -> str | None:
        assessment = self.app.state.assessment
        return assessment.policy.base_config if assessment is not None else None

    @on(ClipsProgress)
    def _clips_progress(self, message: ClipsProgress) -> None:
        """A large dataset file's reading, under its field while it lasts."""
        if message.cancel is self._cancel:  # a newer check's, not an older one's
            self.query_one("#field-data_root", PathField).show_verdict(None, message.text)

    @on(ChecksFinished)
    def _checked_msg(self, message: ChecksFinished) -> None:
        draft, problems = message.draft
        split = message.inspected is not None and message.inspected.is_split_pack
        self.app.state.split_pack = split
        self._show_vae_fields(split)
        results = {item.name: item for item in message.items}
        for name, _, _ in FIELDS:
            verdict = field_verdict(name, results.get(name), draft, problems)
            self.query_one(f"#field-{name}", PathField).show_verdict(*verdict)
        self._offer_recipes(message.recipes)
        data = results.get("data_root")
        box = self.query_one("#video-only", Checkbox)
        box.display = box.value or (data is not None and data.video_only_data)
        self.query_one("#dataset-options").display = is_dataset(self.values()["data_root"])
        self._results = results
        self._checked = message.draft
        if self._continue_when_checked and message.draft == self._form():
            self._continue_when_checked = False
            self.action_next()

    @property
    def offered_recipes(self) -> list[str]:
        """The recipe names the Recipe list offers (empty until a checkout was read)."""
        return [name for name, _ in self._recipes]

    def _offer_recipes(self, recipes: tuple[tuple[str, str], ...]) -> None:
        """List the checkout's recipes; keep the choice when the new checkout has it, else t2v."""
        if not recipes or recipes == self._recipes:
            return
        self._recipes = recipes
        select = self.query_one("#recipe", Select)
        chosen = str(select.value)
        names = [name for name, _ in recipes]
        select.set_options([(recipe_label(name, modes), name) for name, modes in recipes])
        # A changed value re-runs the checks (Select.Changed): the data is read for it.
        wanted = chosen if chosen in names else (DEFAULT_RECIPE if DEFAULT_RECIPE in names else names[0])
        if select.value == wanted:
            # same value: show its new label (with modes); Textual's own idiom, its descriptor
            # read through the class, which its annotations do not cover
            select.mutate_reactive(Select.value)  # type: ignore[arg-type,misc]
        else:
            select.value = wanted

    @on(ValidationChecked)
    def _validation_checked(self, message: ValidationChecked) -> None:
        self.query_one(ValidationPanel).show(message.form)
        shown = bool(message.form.slots) and message.draft == self._form()
        self._validation_error = message.form.error if shown else None

    def _problems(self) -> list[str]:
        draft = self._checked[0] if self._checked else PlanRequest()
        return problem_fields(draft, self._results, self._validation_error)

    # ----- navigation ------------------------------------------------------------------------
    def action_next(self) -> None:
        form = self._form()
        if self._checked != form:
            self._continue_when_checked = True
            if self._timer is not None:
                self._timer.stop()
                self._timer = None
            if form != self._started:
                self._start_check(form)
            return
        draft = form[0]
        problems = self._problems()
        if problems:  # the first one focused, its ✗ line in view (screens/paths/refusal.py)
            refuse_continue(self, problems)
            return
        # validation is asked only while the recipe's samples read media (the panel is shown)
        shown = self.query_one(ValidationPanel).display
        self.app.state.request = draft if shown else replace(draft, validation=None)
        self.app.nav.open_summary()

    def action_back(self) -> None:
        self.leave()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if not self.is_current:  # a burst's late press: this screen is no longer on top
            return
        if event.button.id == "continue":
            self.action_next()
        elif event.button.id == "back":
            self.action_back()
