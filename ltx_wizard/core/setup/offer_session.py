"""Running accepted offers in order: each offer's steps one after another (a failed step stops its
offer), an offer skipped when the one it needs was declined or failed, and everything logged in
one setup log per session.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path
from typing import Callable, Literal, Mapping, Sequence

from ltx_wizard.core.base.records import record
from ltx_wizard.core.setup.run_step import OnLine, run_step
from ltx_wizard.core.setup.survey import Offer


@record
class Outcome:
    key: str
    status: Literal["done", "declined", "failed", "skipped", "cancelled"]
    detail: str = ""


def headline(outcomes: Sequence[Outcome]) -> str:
    """The line above the steps' outcomes, read from them: "done" only when every step ran and
    succeeded; otherwise which failed, were cancelled, skipped or declined."""
    if not outcomes:
        return "Nothing to run."
    if all(o.status == "done" for o in outcomes):
        return "Setup done."
    said = [
        f"{', '.join(o.key for o in outcomes if o.status == status)} {status}"
        for status in ("failed", "cancelled", "skipped", "declined")
        if any(o.status == status for o in outcomes)
    ]
    return f"Setup not done: {'; '.join(said)}."


def log_path(env: Mapping[str, str] | None = None, now: datetime | None = None) -> Path:
    """~/.cache/ltx-wizard/setup-<time>.log ($XDG_CACHE_HOME honoured): a cache, not a config."""
    env = os.environ if env is None else env
    cache = env.get("XDG_CACHE_HOME") or str(Path(env.get("HOME", "~")).expanduser() / ".cache")
    stamp = (now or datetime.now()).strftime("%Y%m%d-%H%M%S")
    return Path(cache) / "ltx-wizard" / f"setup-{stamp}.log"


def step_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment steps run in: the wizard's own virtualenv is not the trainer's (uv would
    warn that VIRTUAL_ENV does not match the checkout's .venv). Git never prompts: its stdin is
    /dev/null (core/proc spawn) and a credential or host-key question fails at once instead of
    waiting on a terminal the user cannot see."""
    out = dict(os.environ if env is None else env)
    out.pop("VIRTUAL_ENV", None)
    out["GIT_TERMINAL_PROMPT"] = "0"
    out["GCM_INTERACTIVE"] = "never"  # Git Credential Manager's own prompt
    # only transports that end on their own: `fd::17` reads a descriptor nobody writes (forever),
    # `ext::` runs a command; what --trainer-repo may name (issue 43) needs none of them
    out.setdefault("GIT_ALLOW_PROTOCOL", "file:git:http:https:ssh")
    if "GIT_SSH_COMMAND" not in out and "GIT_SSH" not in out:
        out["GIT_SSH_COMMAND"] = "ssh -o BatchMode=yes"
    return out


def skip_reason(offer: Offer, outcomes: list[Outcome]) -> str | None:
    if offer.needs is not None:
        before = next((o for o in outcomes if o.key == offer.needs), None)
        if before is not None and before.status != "done":
            return f"needs the {offer.needs} step, which was {before.status}"
    return None


def run_offer(
    offer: Offer,
    log: Path,
    *,
    env: Mapping[str, str] | None = None,
    on_line: OnLine | None = None,
    cancelled: Callable[[], bool] = lambda: False,
) -> Outcome:
    for step in offer.steps:
        program = step.argv[0]
        if os.sep in program and not os.access(program, os.X_OK):
            return Outcome(key=offer.key, status="skipped", detail=f"{program} is not there")
        result = run_step(step, log, env=step_env(env), on_line=on_line, cancelled=cancelled)
        if result.cancelled:
            return Outcome(key=offer.key, status="cancelled", detail=f"{step.label}: cancelled")
        if not result.ok:
            return Outcome(
                key=offer.key,
                status="failed",
                detail=f"{step.label} failed ({result.reason()}); the log has it all: {log}",
            )
    return Outcome(key=offer.key, status="done", detail=", ".join(s.label for s in offer.steps))
