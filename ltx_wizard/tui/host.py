"""What screens, dialogs and the App's roles may ask of the App: `WizardHost`, a typed interface.

Screens depend on this, not on app.py, so the App can import every screen without a circle
(tests/project/test_core_purity.py checks `tui/` has none, and that WizardApp provides every member).
The Textual members listed are only those the wizard's code calls.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Protocol, runtime_checkable

if TYPE_CHECKING:
    from collections import deque
    from contextlib import AbstractContextManager

    from textual.geometry import Size
    from textual.screen import Screen
    from textual.worker import Worker
    from textual.worker_manager import WorkerManager

    from ltx_wizard.core.autotune.outputs.live_rows import RunningTrials
    from ltx_wizard.core.gpu.assessment import Assessment
    from ltx_wizard.core.gpu.devices import ProbeResult
    from ltx_wizard.tui.messages import DemoReady, ProbeFinished
    from ltx_wizard.tui.options import WizardOptions
    from ltx_wizard.tui.state import WizardState


class AutotuneRole(Protocol):
    """The App's autotune worker, as the Autotune screen drives it (autotune_controller.py)."""

    log_buffer: deque[str]
    trials: RunningTrials  # the running trials' rows (core/autotune/outputs/live_rows.py)

    @property
    def running(self) -> bool: ...

    def start(self) -> None: ...

    def cancel(self) -> None: ...

    def flush_held(self) -> None: ...

    async def stopped(self, timeout_s: float) -> None: ...


@runtime_checkable
class WizardHost(Protocol):
    options: WizardOptions
    state: WizardState
    demo: Any  # demo.builder.DemoSetup in --demo mode, else None
    target_run_dir: Path | None
    exit_errors: list[str]

    @property
    def simulate(self) -> str | None: ...

    @property
    def workspace(self) -> Path | None: ...

    @property
    def autotune(self) -> AutotuneRole: ...

    def now(self) -> datetime: ...

    # the flow between phases (navigation.py)
    def start_probe_screen(self) -> None: ...

    def probe_finished(self) -> ProbeFinished: ...

    def preset_probe(self) -> ProbeFinished | None: ...

    def demo_written(self) -> DemoReady: ...

    @property
    def demo_ready(self) -> bool: ...

    def set_probe(self, probe: ProbeResult, vram_gb: float | None = None) -> Assessment: ...

    def proceed_from_probe(self) -> None: ...

    def open_paths(self) -> None: ...

    def open_prepare(self) -> None: ...

    def open_data_step(self) -> None: ...

    def open_summary(self) -> None: ...

    def open_autotune(self) -> None: ...

    def open_done(self) -> None: ...

    def open_monitor(self, run_dir: Path) -> None: ...

    def build_demo(self) -> None: ...

    def remove_demo_folder(self) -> str | None: ...

    def action_show_help_panel(self) -> None: ...

    # the Textual App members the wizard calls
    @property
    def screen_stack(self) -> list[Screen[Any]]: ...

    @property
    def workers(self) -> WorkerManager: ...

    @property
    def size(self) -> Size: ...

    @property
    def is_headless(self) -> bool: ...

    def push_screen(self, screen: Any, callback: Any = None, wait_for_dismiss: bool = False) -> Any: ...

    def pop_screen(self) -> Any: ...

    def exit(self, result: Any = None, return_code: int = 0, message: Any = None) -> None: ...

    def notify(self, message: str, *, markup: bool = True, **kwargs: Any) -> None: ...

    def call_from_thread(self, callback: Any, *args: Any, **kwargs: Any) -> Any: ...

    def suspend(self) -> AbstractContextManager[None]: ...

    def run_worker(self, work: Any, *args: Any, **kwargs: Any) -> Worker[Any]: ...

    def call_after_refresh(self, callback: Callable[..., Any], *args: Any, **kwargs: Any) -> bool: ...

    def copy_to_clipboard(self, text: str) -> None: ...
