"""How the wizard was started (`WizardOptions`): the command line's choices and the injection
points tests and the screenshot script use. Its own module so screens can name it without the App.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass, field, fields
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from ltx_wizard.core.gpu.devices import ProbeResult


@dataclass(frozen=True)
class WizardOptions:
    """How the wizard was started; tests build it with from_args(None, **overrides)."""

    from_csv: str | None = None
    simulate: str | None = None
    vram_gb: float | None = None
    demo: bool = False
    trainer_root: str | None = None
    trainer_repo: str | None = None  # --trainer-repo: where the Setup screen clones the trainer from
    workspace: str | None = None
    run_dir: str | None = None
    trainer_cmd: str | None = None
    nodes: int = 1  # --nodes: the plan is for this many machines like this one (Slurm)
    graphics: str | None = None  # --graphics: kitty, sixel, halfblocks, auto (tui/images/choice.py)
    vllm_url: str | None = None  # --vllm-url: the Prepare screen's captioner server URL, filled in
    # cli.py's start-up line on the orphans of a wizard killed by SIGKILL that it stopped: shown on
    # the first screen and printed again on the way out (exit_report.py)
    orphans_reaped: str | None = None
    # `ltx-wizard monitor RUN [--read-only]`: the Monitor at once; read-only even when the lock is free
    open_monitor: bool = False
    read_only: bool = False
    # Injection points for tests and the screenshot script.
    now: Callable[[], datetime] = datetime.now
    clock: Callable[[], float] = time.monotonic  # the Autotune screen's elapsed times
    demo_root: Path | None = None
    probe_fn: Callable[[], ProbeResult] | None = None
    cursor_blink: bool = True
    check_delay_s: float = 0.4  # debounce of live path validation
    engine_factory: Callable[..., Any] | None = None  # replaces AutotuneEngine (scripted tests)
    sim_env: dict[str, str] = field(default_factory=dict)  # more env for simulated trials (tests)
    host_fn: Callable[[Path], Any] | None = None  # run folder -> host_limits.HostReadings
    demo_data: str = "clips"  # --demo starts from "clips" (dataset.json), "latents" or "raw"
    # After the probe: the setup offers and the intent question (screens/setup.py, intent.py);
    # False goes straight to Paths (tests of the later screens start there).
    first_run_screens: bool = True
    setup_survey: dict[str, Any] = field(default_factory=dict)  # core/setup survey() keywords (tests)

    @classmethod
    def from_args(cls, args: argparse.Namespace | None = None, **overrides: Any) -> "WizardOptions":
        values: dict[str, Any] = {}
        if args is not None:
            for f in fields(cls):
                if hasattr(args, f.name) and getattr(args, f.name) is not None:
                    values[f.name] = getattr(args, f.name)
        values.update(overrides)
        return cls(**values)
