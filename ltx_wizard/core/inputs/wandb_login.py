"""Is the user logged in to W&B, as wandb itself resolves credentials (environment variable, netrc,
settings file)? Asked inside the trainer's environment, the skill's way (SKILL.md Phase 2, "W&B
login state": `uv run python -c "import wandb; print(bool(wandb.Api().api_key))"`, never
`wandb status`). Only when the planned config enables W&B; the shipped configs do not.

Logged out: W&B is turned off in config.yaml and plan.md says so. Anything else (uv or wandb
missing, an error, output that is neither True nor False): the user is asked; W&B is never turned
off silently on a guess.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Literal, Mapping

from ltx_wizard.core.base.errors import UsageError, WizardError
from ltx_wizard.core.base.records import record
from ltx_wizard.core.proc.spawn import run_captured

CHECK = "import wandb; print('ltx-wizard-wandb', bool(wandb.Api().api_key))"
TIMEOUT_S = 120.0


class WandbUnknown(UsageError):
    """The login could not be read: the caller asks (--wandb on|off, or a dialog)."""


@record
class WandbLogin:
    state: Literal["in", "out", "error"]
    detail: str = ""


def check_login(
    uv: str | None, trainer_dir: Path, env: Mapping[str, str] | None = None, timeout_s: float = TIMEOUT_S
) -> WandbLogin:
    if not uv:
        return WandbLogin(
            state="error", detail="uv is not installed, so the trainer's environment cannot be asked"
        )
    argv = [uv, "run", "--no-sync", "python", "-c", CHECK]
    try:
        done = run_captured(
            argv, cwd=trainer_dir, env=None if env is None else dict(env), timeout_s=timeout_s
        )
    except WizardError as exc:
        return WandbLogin(state="error", detail=exc.message)
    except subprocess.TimeoutExpired as exc:
        return WandbLogin(state="error", detail=f"{type(exc).__name__}: {exc}")
    for line in done.stdout.splitlines():
        if line.startswith("ltx-wizard-wandb "):
            answer = line.split()[-1]
            if answer in ("True", "False"):
                return WandbLogin(state="in" if answer == "True" else "out")
    last = (done.stderr.strip().splitlines() or ["no answer"])[-1]
    return WandbLogin(state="error", detail=f"exit {done.returncode}: {last[:200]}")


@record
class WandbDecision:
    disable: bool  # wandb.enabled -> false in config.yaml
    note: str  # for plan.md ("" when W&B is not enabled at all)


def decide(enabled: object, choice: str | None, login: WandbLogin | None, base: str) -> WandbDecision:
    """`enabled`: the config's wandb.enabled; `choice`: the user's answer ("on"/"off") or None."""
    if enabled is not True:
        return WandbDecision(disable=False, note="")
    if choice == "off":
        return WandbDecision(disable=True, note=f"W&B: enabled in {base}, turned off as you chose.")
    if choice == "on":
        return WandbDecision(disable=False, note="W&B: kept on as you chose (login not confirmed).")
    if login is None or login.state == "error":
        why = login.detail if login is not None else "not checked"
        raise WandbUnknown(
            f"{base} enables W&B, and the login could not be checked in the "
            f"trainer's environment ({why}): answer with --wandb on or --wandb off"
        )
    if login.state == "in":
        return WandbDecision(
            disable=False,
            note="W&B: on; logged in (wandb's own credential check in the trainer's environment).",
        )
    return WandbDecision(
        disable=True,
        note=(
            f"W&B: {base} enables it, but wandb finds no login in the trainer's environment, so it is "
            "turned off in config.yaml (run `wandb login` there and set wandb.enabled: true to use it)."
        ),
    )
