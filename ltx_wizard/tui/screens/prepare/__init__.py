"""Before the paths: your raw clips made into the dataset file the trainer's preprocessing reads
(core/prepare/): staged as links under <run>/dataset/, audited as the trainer reads them, long
videos split into scenes, captioned after a spot check you approve, a held-out set kept aside.

The flow runs in one worker; its questions are dialogs awaited there (rotated copies, scene
splits, the spot check, a small set's held-out count, clips left without a caption); long steps
report progress by message (the audit's threads, the scripts' output), so keys stay live. On
success the dataset file, its bucket, trigger word and recipe go to the Paths screen.
"""

from __future__ import annotations

from typing import Any

import asyncio
from collections import deque
import os
import threading
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Checkbox, Header, Input, ProgressBar, RichLog, Select, Static

from ltx_wizard.core.base import phases
from ltx_wizard.tui.screens.prepare import choices
from ltx_wizard.tui.screens.prepare.help import PREPARE_HELP
from ltx_wizard.tui.screens.prepare.asker import PrepareEnded, PrepareLine, PrepareProgress, ScreenAsker
from ltx_wizard.tui.widgets.footer import Footer
from ltx_wizard.tui.widgets.path_field import PathField
from ltx_wizard.tui.widgets.steps import StepBar
from ltx_wizard.tui.wizard_screen import WizardScreen
from ltx_wizard.core.base.text_safety import clean_block

ABOUT = (
    "Point at your raw clips: a folder of clips or images, one long video, or a dataset "
    "file. Your files are linked, never moved or changed. Already preprocessed, or a "
    "finished dataset.json? F4 skips to the paths."
)
CAPTIONERS = [
    ("Captioner: chosen from this box", "auto"),
    ("qwen_omni (local, or the server URL)", "qwen_omni"),
    ("gemini_flash (GEMINI_API_KEY)", "gemini_flash"),
    ("none: captions from a file", "none"),
]
LOG_LINES = 500


class PrepareScreen(WizardScreen):
    PHASE = phases.PREPARE
    F1_HELP = PREPARE_HELP
    CSS_PATH = "prepare.tcss"
    BINDINGS = [
        Binding("ctrl+n", "next", "Prepare / Continue"),
        Binding("f4", "skip", "Skip: data ready"),
        Binding("escape", "back", "Back / Cancel"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.result: Any = None  # core.prepare.request.PrepareResult once prepared
        self.running = False
        self.said: deque[str] = deque(maxlen=LOG_LINES)  # the lines the log shows
        self._cancel = threading.Event()

    def compose(self) -> ComposeResult:
        request = self.app.state.request
        yield Header()
        yield StepBar(self.phase, id="steps")
        with VerticalScroll(id="body"):
            yield Static(Text("Prepare your clips", style="bold"), id="prep-title")
            note = choices.run_note(self.app)
            yield Static(f"{ABOUT}\n{note}" if note else ABOUT, id="prep-about")
            yield PathField(
                "source", "Your clips (folder, video, or dataset file)", self._demo_source(), "~/clips"
            )
            yield PathField(
                "trainer",
                "LTX-2 trainer checkout (its scripts do the work)",
                "" if request.trainer_root is None else str(request.trainer_root),
                "~/LTX-2",
            )
            with Horizontal(classes="prep-row"):
                yield Input(placeholder="run name (optional)", id="prep-run-name", compact=True)
                yield Select(
                    [(request.recipe, request.recipe)],
                    value=request.recipe,
                    allow_blank=False,
                    id="prep-recipe",
                    compact=True,
                )
            with Horizontal(classes="prep-row"):
                yield Checkbox("Split long videos into scenes", id="prep-split", compact=True)
                yield Select(CAPTIONERS, value="auto", allow_blank=False, id="prep-captioner", compact=True)
            yield Input(
                self.app.options.vllm_url or "",
                placeholder=f"{choices.URL_FIELD} (optional: a Qwen3-Omni server elsewhere, http://host:8001/v1)",
                id="prep-vllm-url",
                compact=True,
            )
            yield Static("", id="prep-url-verdict")
            with Horizontal(classes="prep-row"):
                yield Input(
                    request.lora_trigger or "",
                    placeholder="trigger word (optional)",
                    id="prep-trigger",
                    compact=True,
                )
                yield Input(
                    placeholder="held out: about 10 %, a count, or your file/folder",
                    id="prep-holdout",
                    compact=True,
                )
            yield PathField(
                "captions",
                f"{choices.CAPTIONS_FIELD} (only without a captioner: CSV/JSON/"
                "JSONL with caption and video columns)",
                "",
                "",
            )
        with Vertical(id="prep-run"):
            yield Static("", id="prep-status")
            yield ProgressBar(total=None, show_eta=False, id="prep-progress")
            yield RichLog(max_lines=LOG_LINES, wrap=True, markup=False, id="prep-log")
        with Horizontal(classes="actions"):
            yield Button("Prepare", id="prepare", variant="primary")
            yield Button("Skip (F4)", id="skip")
            yield Button("Back", id="back")
        yield Footer()

    def _demo_source(self) -> str:
        demo = self.app.demo
        return str(demo.root / "raw-clips") if demo is not None else ""

    def on_unmount(self) -> None:
        """Leaving (the app quitting mid-flow): the flow is cancelled, and the scripts and the
        captioner server it started are stopped now: its worker may not get to its cleanup."""
        self._cancel.set()
        if self.running:
            from ltx_wizard.core.proc.registry import stop_all_blocking

            stop_all_blocking()

    def on_mount(self) -> None:
        self.query_one("#input-source", Input).focus()
        self._read_checkout(self.query_one("#field-trainer", PathField).value)

    # ----- the checkout's recipes and the captioner the box gives --------------------------------
    @work(thread=True, exclusive=True, exit_on_error=False, group="prep-read")
    def _read_checkout(self, trainer_root: str) -> None:
        recipes, label = choices.recipes(trainer_root), choices.auto_captioner(self.app, self._url())
        demo = self.app.demo
        if demo is not None and not (demo.root / "raw-clips").is_dir():
            from ltx_wizard.demo.lookalike_raw_clips import write_raw_clips

            write_raw_clips(demo.root / "raw-clips")  # the demo's raw clips, made once
        self.app.call_from_thread(self._show_choices, recipes, label)

    def _show_choices(self, recipes: list[str], label: str) -> None:
        select = self.query_one("#prep-recipe", Select)
        wanted = str(select.value)
        if recipes:
            select.set_options([(r, r) for r in recipes])
            select.value = wanted if wanted in recipes else recipes[0]
        captioner = self.query_one("#prep-captioner", Select)
        chosen = captioner.value
        captioner.set_options([(f"Captioner: {label}", "auto")] + CAPTIONERS[1:])
        captioner.value = chosen
        # the same value: show its new label (Textual types the reactive loosely)
        captioner.mutate_reactive(Select.value)  # type: ignore[arg-type,misc]

    @work(thread=True, exclusive=True, exit_on_error=False, group="prep-captioner")
    def _read_captioner(self, url: str) -> None:
        label = choices.auto_captioner(self.app, url)
        self.app.call_from_thread(self._show_choices, [], label)

    def _url(self) -> str:
        return self.query_one("#prep-vllm-url", Input).value.strip()

    @on(Input.Changed, "#prep-vllm-url")
    def _url_typed(self, event: Input.Changed) -> None:
        """Said at once under the field: a bad URL, else what `auto` now picks with it."""
        problem = choices.url_problem(event.value)
        verdict = self.query_one("#prep-url-verdict", Static)
        verdict.update(Text(f"✗ {problem}", style="bold red") if problem else "")
        verdict.set_class(problem is not None, "-shown")
        if problem is None:
            self._read_captioner(event.value.strip())

    @on(Input.Submitted, "#input-trainer")
    def _trainer_given(self, event: Input.Submitted) -> None:
        self._read_checkout(event.value.strip())

    # ----- running the flow ----------------------------------------------------------------------
    def request(self):
        """The screen's side of the one adapter (core/prepare/prepare_request.py build_prepare_request),
        as commands/prepare.py request_from is the command line's: the fields as typed."""
        from ltx_wizard.core.prepare.prepare_request import build_prepare_request

        return build_prepare_request(
            {
                "source": self.query_one("#field-source", PathField).value,
                "workspace": str(self.app.workspace) if self.app.workspace else None,
                "run_name": self.query_one("#prep-run-name", Input).value,
                "trainer_root": self.query_one("#field-trainer", PathField).value,
                "recipe": str(self.query_one("#prep-recipe", Select).value),
                "captioner": str(self.query_one("#prep-captioner", Select).value),
                "vllm_url": self._url(),
                "captions_file": self.query_one("#field-captions", PathField).value,
                "split_scenes": self.query_one("#prep-split", Checkbox).value,
                "holdout": self.query_one("#prep-holdout", Input).value,
                "lora_trigger": self.query_one("#prep-trigger", Input).value,
            },
            knobs=choices.TUI_KNOBS,
            names=choices.FIELD_NAMES,
        )

    def action_next(self) -> None:
        if self.running:
            return
        if self.result is not None:
            self._continue()
            return
        if not self.query_one("#field-source", PathField).value:
            from ltx_wizard.core.prepare.prepare_request import SOURCE_NEEDED

            self.query_one("#field-source", PathField).show_verdict(False, SOURCE_NEEDED)
            self.query_one("#input-source", Input).focus()
            return
        problem = choices.url_problem(self._url())
        if problem is not None:  # said under the field already: the run does not start
            self.query_one("#prep-vllm-url", Input).focus()
            return
        self.running = True
        self._cancel.clear()
        self.query_one("#prep-log", RichLog).clear()
        self.said.clear()
        self.query_one("#prepare", Button).disabled = True
        self.set_class(False, "-failed")
        self.add_class("-running")
        self._status("Preparing…")
        from ltx_wizard.core.base.errors import WizardError

        try:
            request = self.request()
        except WizardError as exc:  # a typed value the request refuses: said as the CLI says it
            self.post_message(PrepareEnded(None, exc.message))
            return
        self._run(request)

    @work(exclusive=True, exit_on_error=False, group="prepare")
    async def _run(self, request) -> None:
        from ltx_wizard.core.base.errors import WizardError
        from ltx_wizard.core.prepare.prepare_session import PrepareSession

        try:
            session = await asyncio.to_thread(
                PrepareSession,
                request,
                ScreenAsker(self),
                gpus=lambda: choices.gpus(self.app),
                runner=choices.runner(self.app),
                now=self.app.now(),
                cancel=self._cancel,
                audio_probe=choices.audio_probe(self.app),
            )
            self.post_message(PrepareEnded(await session.run(), None))
        except WizardError as exc:
            self.post_message(PrepareEnded(None, exc.message))
        except asyncio.CancelledError:
            self.post_message(
                PrepareEnded(
                    None, "cancelled: what was made is kept in the run folder; Prepare again picks it up"
                )
            )
            raise
        except Exception as exc:  # a bug is shown, not raised into the UI
            self.post_message(PrepareEnded(None, f"prepare failed: {type(exc).__name__}: {exc}"))

    @on(PrepareLine)
    def _line(self, message: PrepareLine) -> None:
        self.said.append(message.text)
        self.query_one("#prep-log", RichLog).write(Text(clean_block(message.text)))

    @on(PrepareProgress)
    def _progress(self, message: PrepareProgress) -> None:
        bar = self.query_one("#prep-progress", ProgressBar)
        if message.total < 0:  # a dialog waits on the user: the bar stands still
            bar.update(total=1, progress=0)
            self._status(message.stage)
        elif message.total:
            bar.update(total=message.total, progress=message.done)
            self._status(f"{message.stage}: {message.done:,} of {message.total:,}")
        else:
            bar.update(total=None)
            self._status(f"{message.stage}…")

    @on(PrepareEnded)
    def _ended(self, message: PrepareEnded) -> None:
        self.running = False
        self.query_one("#prepare", Button).disabled = False
        self.remove_class("-running")
        bar = self.query_one("#prep-progress", ProgressBar)
        if message.error is not None:
            self.add_class("-failed")
            bar.update(total=1, progress=0)
            self._status(
                Text.assemble(
                    ("Not prepared: ", "bold"),
                    message.error,
                    "\nFix it and Prepare again (ctrl+n); Esc goes back.",
                )
            )
            return
        self.result = message.result
        self.add_class("-done")
        self.call_after_refresh(self.query_one("#prep-log", RichLog).scroll_end, animate=False)
        bar.update(total=1, progress=1)
        self.query_one("#prepare", Button).label = "Continue"
        first, held = self.result.lines[:2]
        self._status(
            Text.assemble(
                (first, "bold"), "\n", held, "\nContinue (ctrl+n) takes it to the paths and the plan."
            )
        )

    def _status(self, text) -> None:
        self.query_one("#prep-status", Static).update(text)

    def _continue(self) -> None:
        state = self.app.state
        assert self.result is not None
        plan = self.result.plan  # the fields prepare hands the plan (the CLI prints its line from them)
        # into the draft request, through the one adapter; the run folder is the Summary's target
        state.edit_request(
            data_root=plan.data_root,
            resolution_buckets=plan.resolution_buckets,
            lora_trigger=plan.lora_trigger,
            recipe=plan.recipe,
            video_only=state.request.video_only or plan.video_only,
            trainer_root=self.query_one("#field-trainer", PathField).value or state.request.trainer_root,
        )
        self.app.target_run_dir = plan.run_dir
        self.app.nav.open_paths()

    def action_skip(self) -> None:
        if self.running:
            return
        given = self.query_one("#field-source", PathField).value
        if given and (
            given.lower().endswith((".json", ".jsonl", ".csv"))
            or os.path.basename(given.rstrip("/")) == ".precomputed"
        ):
            self.app.state.edit_request(data_root=given)  # a ready dataset file or data root
        self.app.nav.open_paths()

    def action_back(self) -> None:
        if self.running:
            self._cancel.set()
            self.workers.cancel_group(self, "prepare")
            return
        self.leave()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if not self.is_current:
            return
        {"prepare": self.action_next, "skip": self.action_skip, "back": self.action_back}[
            event.button.id or "back"
        ]()
