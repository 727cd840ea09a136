"""Step 2: model, data and trainer paths, each checked live as the user types.

Checks read safetensors headers and walk folders, so they run in a thread worker, debounced;
discovery of candidates runs once in another. Continue is refused until every field passes.
"""

from __future__ import annotations

from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.timer import Timer
from textual.widgets import Button, Checkbox, Header, Input, Select, Static, TextArea

from ltx_wizard.tui.messages import ChecksFinished, DiscoveryFinished
from ltx_wizard.tui.widgets.dataset_options import dataset_options, is_dataset
from ltx_wizard.tui.widgets.footer import Footer
from ltx_wizard.tui.widgets.path_field import PathField
from ltx_wizard.tui.widgets.steps import StepBar
from ltx_wizard.tui.widgets.validation_panel import ValidationChecked, ValidationPanel
from ltx_wizard.tui.wizard_screen import WizardScreen

FIELDS = (
    ("checkpoint", "LTX-2 checkpoint (.safetensors)", "/models/ltx-2.safetensors"),
    ("text_encoder", "Gemma text encoder (folder, or packed .safetensors for a split pack)", "/models/gemma"),
    ("video_vae", "Video VAE (split pack only)", ""),
    ("audio_vae", "Audio VAE (split pack only)", ""),
    ("data_root", "Preprocessed data root, or your clips' dataset file (.json, .jsonl, .csv)", ""),
    ("trainer_root", "LTX-2 trainer checkout", "~/LTX-2"),
)
REQUIRED = ("checkpoint", "text_encoder", "data_root", "trainer_root")
EMPTY_HINT = {
    "checkpoint": "required: type the path of the LTX .safetensors, or F2 to pick one found on disk "
                  "(none yet? F3 downloads the ones the trainer's docs name)",
    "text_encoder": "required: type the Gemma folder that matches the checkpoint, or F2 to pick one",
    "data_root": "required: the .precomputed folder the trainer's scripts/process_dataset.py wrote, "
                 "or the dataset.json of your clips (preprocessed after approval)",
    "trainer_root": "required: your LTX-2 clone (git clone https://github.com/Lightricks/LTX-2, "
                    "then uv sync in it)",
    "video_vae": "required for a split pack: type its video VAE .safetensors, or F2",
    "audio_vae": "required for a split pack: type its audio VAE .safetensors, or F2",
}
VAE_FIELDS = ("video_vae", "audio_vae")
# The choice offered when the data has no audio but the shipped config trains it (plan --video-only).
VIDEO_ONLY_LABEL = "Train video only (this data has no audio): training_strategy.audio: null"
VIDEO_ONLY_OPTION = "the Video only box below"
DEFAULT_RECIPE = "t2v_lora"  # core/inputs/recipes.py DEFAULT_RECIPE (not imported: start-up stays light)


def recipe_label(name: str, modes: str) -> str:
    return f"{name} · {modes}" if modes else name


class PathsScreen(WizardScreen):
    BINDINGS = [
        Binding("ctrl+n", "next", "Continue"),
        Binding("f2", "pick", "Pick found"),
        Binding("f3", "download", "Download"),
        Binding("escape", "back", "Back"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self._timer: Timer | None = None
        self._checked: dict[str, str] | None = None  # values the last results belong to
        self._results: dict[str, object] = {}
        self._candidates: dict[str, list] = {}
        self._partial: str | None = None  # discovery was cut short: said here and in F2's list
        self._continue_when_checked = False
        self._recipes: tuple[tuple[str, str], ...] = ()  # what the Recipe list offers now
        self._validation_error: str | None = None  # plan's refusal of the validation section

    def compose(self) -> ComposeResult:
        paths = self.app.state.paths
        yield Header()
        yield StepBar(2, id="steps")
        with VerticalScroll(id="body"):
            for name, label, placeholder in FIELDS:
                yield PathField(name, label, getattr(paths, name), placeholder)
                if name == "data_root":
                    box = Checkbox(VIDEO_ONLY_LABEL, paths.video_only, id="video-only", compact=True)
                    box.display = paths.video_only  # offered once the data shows it has no audio
                    yield box
                    yield from dataset_options(paths)
            yield Static("Training mode", classes="field-label")
            yield Select(
                [("LoRA (recommended)", "lora"), ("Full fine-tune (multi-GPU, 80GB+)", "full")],
                value="full" if paths.training_mode == "full" else "lora",
                allow_blank=False,
                id="mode",
                compact=True,
            )
            yield Static("Recipe (a shipped config of the checkout; the data root must hold its "
                         "folders)", classes="field-label")
            yield Select([(paths.recipe, paths.recipe)], value=paths.recipe, allow_blank=False,
                         id="recipe", compact=True)
            yield ValidationPanel(paths)
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
            self.notify(self._partial[0].upper() + self._partial[1:] + ".", severity="warning",
                        timeout=12)
        for name, cands in by_kind.items():
            self.query_one(f"#field-{name}", PathField).show_candidates(len(cands))
        best = next((c for c in by_kind.get("checkpoint", []) if c.usable), None)
        if best is not None and not self.values()["checkpoint"]:
            self._fill_from_checkpoint(best)
        lacking = [what for what, kind in (("LTX checkpoint", "checkpoint"),
                                           ("Gemma text encoder", "text_encoder"))
                   if not by_kind.get(kind) and not self.values()[kind]]
        if lacking:  # the skill's onboarding: offer the download, never start one unasked
            self.notify(f"No {' or '.join(lacking)} found on disk: F3 offers the files the "
                        "trainer's docs name (asking before each), as does `ltx-wizard models`.",
                        timeout=12)

    def _fill_from_checkpoint(self, cand) -> None:
        self.query_one("#field-checkpoint", PathField).set_value(str(cand.path))
        for name in ("text_encoder", "video_vae", "audio_vae"):
            found = getattr(cand, name, None)
            field = self.query_one(f"#field-{name}", PathField)
            if found is not None and not field.value:
                field.set_value(str(found))

    def action_pick(self) -> None:
        focused = self.focused
        name = focused.id.removeprefix("input-") if isinstance(focused, Input) and focused.id else "checkpoint"
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

        self.app.push_screen(PickDialog(f"Found on disk: {name.replace('_', ' ')}", cands,
                                        note=self._partial), picked)

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
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        delay = self.app.options.check_delay_s
        if delay <= 0:
            self._check(self.values())
        else:
            self._timer = self.set_timer(delay, lambda: self._check(self.values()))

    @work(thread=True, exclusive=True, exit_on_error=False, group="checks")
    def _check(self, values: dict[str, str]) -> None:
        from ltx_wizard.core.inputs.checkpoint import inspect_checkpoint
        from ltx_wizard.core.plan.model_checks import run_checks, shipped_strategy

        recipes = _checkout_recipes(values["trainer_root"])

        info = None
        if values["checkpoint"]:
            try:
                info = inspect_checkpoint(values["checkpoint"])
            except Exception:  # run_checks reports the same error under the field
                info = None
        split = info is not None and info.is_split_pack
        items = run_checks(
            checkpoint=values["checkpoint"] or None,
            text_encoder=values["text_encoder"] or None,
            video_vae=(values["video_vae"] or None) if split else None,
            audio_vae=(values["audio_vae"] or None) if split else None,
            data_root=values["data_root"] or None,
            trainer_root=values["trainer_root"] or None,
            # the data is read as the chosen recipe's shipped config reads it (its training_strategy)
            strategy=shipped_strategy(values["trainer_root"] or None, self._base_config(),
                                      recipe=values["recipe"]),
            video_only_choice=bool(values["video_only"]),
            video_only_option=VIDEO_ONLY_OPTION,
            inspected=info,  # read once above; run_checks does not read it again
            resolution_buckets=values["resolution_buckets"] or None,
        )
        # first: Continue, waiting on ChecksFinished, must see this section's verdict too
        self.post_message(ValidationChecked(_validation_form(values), values))
        self.post_message(ChecksFinished(items, values, info, recipes))

    def _base_config(self) -> str | None:
        assessment = self.app.state.assessment
        return assessment.policy.base_config if assessment is not None else None

    @on(ChecksFinished)
    def _checked_msg(self, message: ChecksFinished) -> None:
        split = message.inspected is not None and message.inspected.is_split_pack
        self.app.state.split_pack = split
        self._show_vae_fields(split)
        results = {item.name: item for item in message.items}
        for name, _, _ in FIELDS:
            field = self.query_one(f"#field-{name}", PathField)
            item = results.get(name)
            empty = not message.values[name]
            if empty and (name in REQUIRED or (item is not None and not item.ok)):
                # The checks speak in CLI flags ("pass --checkpoint FILE"); here it is a field.
                field.show_verdict(False, EMPTY_HINT[name])
            elif item is not None:
                field.show_verdict(item.ok, item.summary if item.ok else (item.error or "not usable"),
                                   item.warning)
            else:
                field.show_verdict(None, "")
        self._offer_recipes(message.recipes)
        data = results.get("data_root")
        box = self.query_one("#video-only", Checkbox)
        box.display = box.value or (data is not None and data.video_only_data)
        self.query_one("#dataset-options").display = is_dataset(message.values["data_root"])
        self._results = results
        self._checked = message.values
        if self._continue_when_checked and message.values == self.values():
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
        wanted = chosen if chosen in names else (DEFAULT_RECIPE if DEFAULT_RECIPE in names
                                                 else names[0])
        if select.value == wanted:
            select.mutate_reactive(Select.value)  # same value: show its new label (with modes)
        else:
            select.value = wanted

    @on(ValidationChecked)
    def _validation_checked(self, message: ValidationChecked) -> None:
        self.query_one(ValidationPanel).show(message.form)
        shown = bool(message.form.slots) and message.values == self.values()
        self._validation_error = message.form.error if shown else None

    def _problems(self) -> list[str]:
        values = self._checked or {}
        bad = [n for n, item in self._results.items() if not item.ok]
        bad += ["validation"] if self._validation_error else []
        bad += [n for n in REQUIRED if not values.get(n) and n not in bad]
        return bad

    # ----- navigation ------------------------------------------------------------------------
    def action_next(self) -> None:
        values = self.values()
        if self._checked != values:
            self._continue_when_checked = True
            if self._timer is not None:
                self._timer.stop()
                self._timer = None
            self._check(values)
            return
        problems = self._problems()
        if problems:
            names = ", ".join(p.replace("_", " ") for p in problems)
            self.notify(f"Fix the fields marked ✗ first: {names}", severity="warning")
            first = "#validation-media" if problems[0] == "validation" else f"#input-{problems[0]}"
            self.query_one(first, Input).focus()
            return
        paths = self.app.state.paths
        for name, value in values.items():
            if name == "video_only":
                paths.video_only = bool(value)
                continue
            if name.startswith("validation"):
                continue
            plain = name in ("training_mode", "recipe", "resolution_buckets", "lora_trigger",
                             "precomputed_dir")
            setattr(paths, name, value if plain else str(Path(value).expanduser()) if value else "")
        paths.validation_media = ValidationPanel.media(values)
        paths.validation_prompts = ValidationPanel.prompts(values)
        panel_shown = self.query_one(ValidationPanel).display
        paths.validation = values["validation"] if panel_shown else None  # type: ignore[assignment]
        self.app.open_summary()

    def action_back(self) -> None:
        self.leave()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if not self.is_current:  # a burst's late press: this screen is no longer on top
            return
        if event.button.id == "continue":
            self.action_next()
        elif event.button.id == "back":
            self.action_back()


def _validation_form(values: dict[str, str]):
    """What the validation section shows for these values (core/validation/form.py)."""
    from ltx_wizard.core.validation.form import ValidationForm, validation_form

    try:
        return validation_form(values["trainer_root"], values["recipe"], values["data_root"],
                               ValidationPanel.media(values), ValidationPanel.prompts(values),
                               values["validation"])  # type: ignore[arg-type]
    except Exception as exc:  # the section must not break the form: say it in its line
        return ValidationForm(error=f"cannot read the recipe's validation: {exc}")


def _checkout_recipes(trainer_root: str) -> tuple[tuple[str, str], ...]:
    """(name, modes) of the checkout's recipes, t2v first; () while no checkout is readable."""
    if not trainer_root:
        return ()
    from ltx_wizard.core.inputs.checkout import find_checkout
    from ltx_wizard.core.base.errors import WizardError
    from ltx_wizard.core.inputs.recipes import list_recipes

    try:
        checkout = find_checkout(trainer_root)
    except (WizardError, OSError):
        return ()
    return tuple((r.name, r.modes) for r in list_recipes(checkout.trainer_dir / "configs"))
