"""The trainer's data scripts, run as the skill runs them: `uv run python scripts/<name>.py` in
the checkout's packages/ltx-trainer folder, each argument checked against the options the
user's copy of the script declares (read without running it, core/preprocess/preprocess_command.py), so an
older checkout is refused before anything runs. Output goes to a log in the run folder; lines are
handed on as they arrive (rich redraws its bars with a carriage return: each is a line here).
"""

from __future__ import annotations

from dataclasses import field
from pathlib import Path
from typing import Callable, Mapping

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.base.records import record
from ltx_wizard.core.io.child_log import run_to_log
from ltx_wizard.core.preprocess.preprocess_command import script_options
from ltx_wizard.core.preprocess.preprocess_progress import PROGRESS_ENV
from ltx_wizard.core.proc.stop import Graces

# What --simulate does to these scripts, said in the same words by `prepare --help`, the Prepare
# screen and the README (tests/cli/test_cli_prepare.py holds them together)
SIMULATE_SAYS = (
    "With --simulate the GPUs are simulated, and what runs on them: the checkout's scripts run in "
    "its own environment (uv run python), as without it; the local captioner server, which needs the "
    "GPU, is a stand-in (no model), and the sound check asks the simulated preprocessing, which "
    "preprocess --simulate runs."
)
GRACES = Graces(interrupt_s=5.0, term_s=10.0)


@record
class ScriptRunner:
    """`prefix` runs a Python file in the checkout's environment: ("uv", "run", "python"), or for
    the demo's look-alike checkout the wizard's own interpreter. `stand_ins`: the scripts that need
    a real GPU, replaced where the GPUs are simulated (script name -> the command run in its
    place with the script's own arguments); every other script still runs in the checkout's
    environment, as without --simulate."""

    trainer_dir: Path
    prefix: tuple[str, ...]
    env: dict[str, str] = field(default_factory=dict)
    stand_ins: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def script(self, name: str) -> Path:
        return self.trainer_dir / "scripts" / name

    def argv(self, name: str, args: list[str]) -> list[str]:
        if name in self.stand_ins:
            return [*self.stand_ins[name], *args]
        return [*self.prefix, str(Path("scripts") / name), *args]

    def python(self, args: list[str]) -> list[str]:
        return [*self.prefix, *args]


def uv_runner(trainer_dir: Path, uv_path: str | None) -> ScriptRunner:
    if uv_path is None:
        raise UsageError(
            "uv is not on PATH, so the trainer's data scripts cannot run: install uv "
            "(curl -LsSf https://astral.sh/uv/install.sh | sh), then `uv sync` in "
            "your LTX-2 checkout"
        )
    return ScriptRunner(trainer_dir=trainer_dir, prefix=(uv_path, "run", "python"))


def require_options(runner: ScriptRunner, name: str, flags: list[str]) -> None:
    """Refuse a checkout whose scripts/<name> lacks an option the wizard would pass."""
    script = runner.script(name)
    if not script.is_file():
        raise UsageError(f"the checkout has no scripts/{name} ({script}): update it (git pull, uv sync)")
    options = script_options(script)
    lacking = [f for f in flags if f.startswith("--") and f not in options.flags]
    if lacking:
        raise UsageError(
            f"the checkout's scripts/{name} has no {lacking[0]} option (an older "
            "trainer?): update the checkout (git pull, uv sync)"
        )


def flags_of(args: list[str]) -> list[str]:
    return [a for a in args if a.startswith("--")]


async def run_script(
    argv: list[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    log: Path,
    on_line: Callable[[str], None] = lambda line: None,
) -> int:
    """Run `argv` through core/proc's line streaming (its own session, tagged, registered): the
    command and its output appended to `log`, its lines handed to `on_line`; cancelling stops it
    by the one stop rule."""
    log.parent.mkdir(parents=True, exist_ok=True)
    return await run_to_log(
        argv, cwd=cwd, env={**env, **PROGRESS_ENV}, log=log, on_line=on_line, graces=GRACES
    )
