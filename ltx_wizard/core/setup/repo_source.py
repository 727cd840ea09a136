"""Where `--trainer-repo` may clone from: https://, ssh://, git@host:path, file:// or a local
path, and nothing else.

git reads a value that starts with `-` as an option (`--upload-pack=...` runs a command), and
treats `ext::CMD` and `fd::N` as transports that run a command or wait on a descriptor forever
(git-remote-ext(1), git-remote-fd(1)); `host:path` is ssh in git's scp-like syntax. Each is
refused here, before git is asked, with one line naming the option.
"""

from __future__ import annotations

import re

from ltx_wizard.core.base.arguments import PATH_MAX, check_path, check_text
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.base.text_safety import clean_text, clip

OPTION = "--trainer-repo"
_URL = re.compile(r"^(https|ssh|file)://[^\s]+$")
_SCP = re.compile(r"^git@[A-Za-z0-9.-]+:[^\s]+$")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*(://|::)")
TAKES = "https://, ssh://, git@host:path, file:// or a local folder"


def check_repo_source(value: str) -> str:
    """The value as given, once it is one of the forms git clones from without surprises."""
    check_text(value, OPTION)
    shown = clip(clean_text(value), 60)
    if value.startswith("-"):
        raise UsageError(
            f"{OPTION} {shown}: starts with '-', which git would read as an option; take {TAKES}"
        )
    if len(value) >= PATH_MAX:
        raise UsageError(
            f"{OPTION} {shown}: too long, {len(value)} characters long, over the {PATH_MAX - 1} it may have"
        )
    if _URL.match(value):
        if value.startswith("file://"):  # a local folder after all: the same bounds as one
            check_path(value[len("file://") :], OPTION)
        return value
    if _SCP.match(value):
        return value
    if _SCHEME.match(value) or "::" in value:
        raise UsageError(f"{OPTION} {shown}: git would use another transport for it; take {TAKES}")
    head = value.split("/", 1)[0]
    if ":" in head:  # git's scp-like syntax: ssh to `head` with another user than git
        raise UsageError(f"{OPTION} {shown}: git would read it as host:path (ssh); take {TAKES}")
    return check_path(value, OPTION)
