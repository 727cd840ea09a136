"""The training run's latest validation samples as keyframes (the Monitor's v), while it trains.

The trainer writes `samples/step_NNNNNN_<index>.<ext>` at every validation round
(ltx_trainer/validation_runner.py ValidationRunner.run); the newest round is shown, each render
labelled with its prompt, found by its index in config.yaml's validation samples.
"""

from __future__ import annotations

import re
from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Static

from ltx_wizard.core.evaluation.checkpoints import output_dir
from ltx_wizard.core.evaluation.job_planning import read_run_config
from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.io.trainer_config import trainer_config
from ltx_wizard.tui.dialogs.once import OnceModal
from ltx_wizard.tui.widgets.keyframes import KeyframeStrip

_SAMPLE = re.compile(r"step_(\d{6})_(\d+)\.(mp4|png|wav)")
MAX_SHOWN = 8


def latest_round(run_dir: Path) -> tuple[int | None, list[tuple[str, Path]]]:
    """(step, [(prompt, file)]) of the newest validation round; (None, []) before the first."""
    try:
        config = read_run_config(run_dir)
    except WizardError:
        return None, []
    folder = output_dir(run_dir, config) / "samples"
    found: dict[int, dict[int, Path]] = {}
    for path in folder.iterdir() if folder.is_dir() else []:
        match = _SAMPLE.fullmatch(path.name)
        if match:
            found.setdefault(int(match.group(1)), {})[int(match.group(2))] = path
    if not found:
        return None, []
    step = max(found)
    samples = trainer_config(config).validation.sample_list()
    out = []
    for index, path in sorted(found[step].items())[:MAX_SHOWN]:
        sample = samples[index - 1] if 0 < index <= len(samples) else {}
        prompt = sample.get("prompt", "?") if isinstance(sample, dict) else "?"
        out.append((" ".join(str(prompt).split()), path))
    return step, out


class SamplesDialog(OnceModal[None]):
    DEFAULT_CSS = "#samples-dialog { width: 110; }"
    BINDINGS = [Binding("escape,v", "close", "Close")]

    def __init__(self, run_dir: Path) -> None:
        super().__init__()
        self.run_dir = Path(run_dir)

    def compose(self) -> ComposeResult:
        step, found = latest_round(self.run_dir)
        with VerticalScroll(classes="dialog", id="samples-dialog"):
            if step is None:
                yield Static("Validation samples", classes="dialog-title")
                yield Static(
                    "No validation sample yet: the trainer writes them every validation.interval steps.",
                    classes="dialog-body",
                )
            else:
                yield Static(f"Validation samples of step {step} ({len(found)})", classes="dialog-title")
                cells = max(24, min(self.app.size.width, 110) - 8)
                for n, (prompt, path) in enumerate(found, start=1):
                    yield KeyframeStrip(path, f"{n}. {prompt} · {path.name}", cells=cells)
            yield Static("Esc closes", classes="dialog-hint", id="samples-hint")

    def on_keyframe_strip_drawn(self, message: KeyframeStrip.Drawn) -> None:
        if message.graphics.note:  # a richer protocol, or the setting that blocks one
            self.query_one("#samples-hint", Static).update(f"Esc closes · {message.graphics.line()}")

    def action_close(self) -> None:
        self.dismiss(None)
