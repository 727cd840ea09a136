"""The tags every child of the wizard carries in its environment, which its descendants inherit
(a rank that left its group by its own setsid carries them still):

- LTX_WIZARD_TAG=<session>/<child>: whose child it is. A session (autotune's, or the wizard's
  own) groups children; `tagged_pids(session)` finds every process of one, `tagged_pids(tag)`
  every process of one child.
- LTX_WIZARD_OWNER=<pid>:<start time>:<kind>:<scope>: the wizard process that started it, so
  that a next wizard can tell a child whose owner is dead (an orphan, orphans.py) from one whose
  owner lives; kind "owned" (stopped with the wizard) or "detached" (a training the user started
  on purpose: never reaped); scope, a short hash of the owner's home folder: a wizard reaps only
  the orphans of wizards of the same home (one user's, on a shared box; one test's, in the suite).
"""

from __future__ import annotations

import hashlib
import os
import uuid
from dataclasses import dataclass
from typing import Literal

from ltx_wizard.core.proc.table import env_values, pid_alive, process_start_time

TAG_ENV = "LTX_WIZARD_TAG"
OWNER_ENV = "LTX_WIZARD_OWNER"
Kind = Literal["owned", "detached"]
_SESSION: list[str] = []  # this process's default session, made on first use


def new_tag() -> str:
    """A fresh session tag: our pid and a random part (unique across wizards on one box)."""
    return f"{os.getpid()}-{uuid.uuid4().hex[:12]}"


def default_session() -> str:
    """The wizard's own session, for children started without one (made once per process)."""
    if not _SESSION or not _SESSION[0].startswith(f"{os.getpid()}-"):  # a fork has its own
        _SESSION[:] = [new_tag()]
    return _SESSION[0]


def child_tag(session: str | None = None) -> str:
    return f"{session or default_session()}/{uuid.uuid4().hex[:8]}"


def home_scope() -> str:
    """This wizard's scope: a short hash of its home folder ($HOME, as the shell gives it)."""
    home = os.environ.get("HOME") or os.path.expanduser("~")
    return hashlib.sha256(home.encode("utf-8", "surrogateescape")).hexdigest()[:12]


def owner_token(kind: Kind = "owned") -> str:
    return f"{os.getpid()}:{process_start_time(os.getpid()) or '-'}:{kind}:{home_scope()}"


def tag_env(tag: str, kind: Kind = "owned") -> dict[str, str]:
    """The environment entries a child is started with."""
    return {TAG_ENV: tag, OWNER_ENV: owner_token(kind)}


def in_session(value: str, session: str) -> bool:
    return value == session or value.startswith(session + "/")


def tagged_pids(session: str) -> list[int]:
    """Live processes (never ourselves) whose tag is `session` or one of its children's."""
    return sorted(pid for pid, value in env_values(TAG_ENV).items() if in_session(value, session))


@dataclass(frozen=True)
class Owner:
    pid: int
    started: str | None
    kind: str
    scope: str

    def alive(self) -> bool:
        """The owning wizard still runs (same pid and start time: a recycled pid is no owner)."""
        if not pid_alive(self.pid):
            return False
        return self.started is None or process_start_time(self.pid) in (None, self.started)


def parse_owner(value: str) -> Owner | None:
    parts = value.split(":")
    if len(parts) != 4 or not parts[0].isdigit() or len(parts[0]) > 7:
        return None
    return Owner(int(parts[0]), None if parts[1] == "-" else parts[1], parts[2], parts[3])
