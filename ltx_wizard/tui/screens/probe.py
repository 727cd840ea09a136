"""Which GPUs training will see, what tier that makes, and anything odd about them."""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, DataTable, Header, Static

from ltx_wizard.core.base import phases
from ltx_wizard.tui.messages import DemoReady, ProbeFinished
from ltx_wizard.tui.heap import settle_heap
from ltx_wizard.tui.widgets.footer import Footer
from ltx_wizard.tui.widgets.formatting import gpu_row
from ltx_wizard.tui.widgets.steps import StepBar
from ltx_wizard.tui.wizard_screen import WizardScreen
from ltx_wizard.core.base.text_safety import clean_text


# This screen's F1 help (dialogs/help.py shows it): what it does and what comes next.
PROBE_HELP = (
    phases.PROBE.f1_title,
    """\
**What it does.** Reads the GPUs training will see (NVML, else `nvidia-smi`), honouring
`CUDA_VISIBLE_DEVICES` as CUDA does, and picks the tier of the *smallest* one.

**The tier** decides the base config, one of the trainer's own shipped files:
- 32GB tier: `t2v_lora_low_vram.yaml` (INT8 quantization, 8-bit AdamW, lower LoRA rank)
- 40–60GB tier: the same low-VRAM file; autotune relaxes it on measured headroom
- 80GB+ tier: `t2v_lora.yaml`

{levers}

**Choices.** Continue (ctrl+n) goes on; Re-probe (ctrl+r) reads the GPUs again.
`CUDA_VISIBLE_DEVICES` comes from the shell that started the wizard: to change it, quit
and start the wizard again with the new value.

**If the probe fails** inside a container, NVML is often missing: start the container with
`--gpus all` (NVIDIA Container Toolkit), or plan for another box with
`ltx-wizard probe --from-csv FILE`.

**Next.** Below 32 GB a gate asks whether to go on at your own risk; unknown memory (GB10,
MIG) is asked for; on a real box where the trainer lacks something, the setup offers; then
what the model should learn, and your clips (when no data was given yet) or the model paths.""",
)


def tier_levers_text() -> str:
    """What autotune tries on each tier, from the engine's own rules (core/tuning/rules_text.py)."""
    from ltx_wizard.core.gpu.tiers import Tier
    from ltx_wizard.core.tuning import rules_text

    lines = [
        f"- {tier.display_name}: {rules_text.levers_list(tier) or 'the baseline only'}"
        for tier in (Tier.T32, Tier.T40_60, Tier.T80)
    ]
    return (
        "**What autotune tries** on each tier's base config, in order, each on the best so "
        "far:\n" + "\n".join(lines)
    )


def probe_help() -> tuple[str, str]:
    """The F1 help, its `{levers}` filled in when shown."""
    title, body = PROBE_HELP
    return title, body.replace("{levers}", tier_levers_text())


class ProbeScreen(WizardScreen):
    PHASE = phases.PROBE
    F1_HELP = staticmethod(probe_help)
    BINDINGS = [
        Binding("ctrl+n", "next", "Continue"),
        Binding("ctrl+r", "reprobe", "Re-probe"),
    ]

    def compose(self) -> ComposeResult:
        yield Header()
        yield StepBar(self.phase, id="steps")
        with VerticalScroll(id="body"):
            yield Static("Probing GPUs…", id="probe-status")
            yield DataTable(id="gpus", cursor_type="none", show_cursor=False)
            yield Static("", id="tier")
            yield Static("", id="notes")
        with Horizontal(classes="actions"):
            yield Button("Continue", id="continue", variant="primary", disabled=True)
            yield Button("Re-probe", id="reprobe")
            yield Button("Quit", id="quit")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#gpus", DataTable)
        table.add_columns("#", "GPU", "Memory", "Nominal")
        table.display = False
        if not self._probe_preset():
            # Probe once the screen is drawn: the worker's imports would otherwise hold the GIL
            # while the first screen is being painted.
            self.call_after_refresh(self.action_reprobe)

    def action_reprobe(self) -> None:
        if self._probe_preset():
            return
        self.query_one("#probe-status", Static).update("Probing GPUs…")
        self.query_one("#continue", Button).disabled = True
        self._probe()

    def _probe_preset(self) -> bool:
        """A simulated preset is pure data: shown at once, so the first frame already holds the
        GPU table and tier. --demo's files are written after it by a worker; Continue waits."""
        finished = self.app.nav.preset_probe()
        if finished is None:
            return False
        self._probed(finished)
        if finished.error is None and not self.app.demo_ready:
            self.call_after_refresh(self._write_demo)  # the worker would hold the GIL mid-frame
        return True

    @work(thread=True, exclusive=True, exit_on_error=False, group="probe")
    def _probe(self) -> None:
        # NVML and nvidia-smi can block for seconds: never on the event loop.
        self.post_message(self.app.nav.probe_finished())

    @work(thread=True, exclusive=True, exit_on_error=False, group="probe")
    def _write_demo(self) -> None:
        self.post_message(self.app.nav.demo_written())

    @on(ProbeFinished)
    def _probed(self, message: ProbeFinished) -> None:
        if message.error is not None:
            self._show_failure(message.error)
            return
        self.app.nav.set_probe(message.result)
        self.show_assessment()

    @on(DemoReady)
    def _demo_ready(self, message: DemoReady) -> None:
        if message.error is not None:
            self._show_failure(message.error)
            return
        self._update_continue()

    def _show_failure(self, error: str) -> None:
        self.query_one("#probe-status", Static).update(
            Text.assemble(
                ("Probe failed: ", "bold"), error, "\nPress ctrl+r to probe again, or ctrl+q to quit."
            )
        )
        self.query_one("#gpus", DataTable).display = False
        self.query_one("#tier", Static).update("")
        self.query_one("#notes", Static).update("")
        self.query_one("#continue", Button).disabled = True

    def show_assessment(self) -> None:
        assessment = self.app.state.assessment
        if assessment is None:
            return
        probe = assessment.probe
        count = len(probe.gpus)
        self.query_one("#probe-status", Static).update(
            f"{count} GPU{'s' if count != 1 else ''} visible to training (source: {clean_text(probe.source)})"
        )
        table = self.query_one("#gpus", DataTable)
        table.clear()
        for gpu in probe.gpus:
            table.add_row(*gpu_row(gpu))
        table.display = True
        tier = Text()
        tier.append("Tier: ", style="bold")
        tier.append(assessment.tier.display_name, style="bold")
        if assessment.per_gpu_vram_gb is not None:
            tier.append(f"  ({assessment.per_gpu_vram_gb} GB per GPU")
            tier.append(", stated)" if assessment.vram_stated else ")")
        if assessment.policy.base_config:
            tier.append(f"\nBase config: {assessment.policy.base_config}")
        tier.append(f"\n{assessment.policy.summary}")
        if assessment.policy.base_config:  # the levers as the engine's own rules pick them
            from ltx_wizard.core.tuning.rules_text import levers_sentence

            tier.append(f"\n{levers_sentence(assessment.tier)}")
        if self.app.state.accept_risk:
            tier.append("\nBelow the minimum: going on AT YOUR OWN RISK.", style="bold")
        self.query_one("#tier", Static).update(tier)
        notes = Text()
        for note in assessment.notes:
            notes.append("• ", style="bold")
            notes.append(note + "\n")
        self.query_one("#notes", Static).update(notes)
        self._update_continue()

    def _update_continue(self) -> None:
        """Continue once GPUs are shown and --demo's files are written (Paths reads them)."""
        button = self.query_one("#continue", Button)
        assessment = self.app.state.assessment
        if not self.app.demo_ready or assessment is None:
            button.disabled = True
            return
        self.call_after_refresh(settle_heap, self.app)  # the probe's and demo's imports are in: a boundary
        button.disabled = not assessment.probe.gpus
        if not button.disabled:
            button.focus()

    def action_next(self) -> None:
        if not self.query_one("#continue", Button).disabled:
            self.app.nav.proceed_from_probe()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if not self.is_current:  # a burst's late press: this screen is no longer on top
            return
        if event.button.id == "continue":
            self.action_next()
        elif event.button.id == "reprobe":
            self.action_reprobe()
        else:
            self.app.exit(0, return_code=0)
