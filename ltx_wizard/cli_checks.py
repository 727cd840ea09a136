"""Every command-line value checked as argparse reads it (cli.py's parser adds these to each
option): text in UTF-8, a path of a length the system takes, --trainer-repo one of the forms
git clones from safely. A refusal is argparse's one line naming the option, exit 2.

Beside cli.py, not under commands/: parsing the wizard's own options imports no command module.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

# metavars that name a file or a folder (a positional's too): their values are paths
PATH_METAVARS = frozenset({"DIR", "FILE", "PATH", "SOURCE", "RUN", "RUN_DIR"})
# checked later by their own code, with more to say: plan's validation prompts and media (the
# prompt's index, the byte), and `check`, which reports each path as an item of its table
OWN_CHECKS = frozenset({"--validation-prompt", "--validation-media"})
OWN_COMMANDS = frozenset({"ltx-wizard check"})
_NO_VALUE = frozenset(
    {"store_true", "store_false", "store_const", "append_const", "count", "help", "version"}
)


def _repo(text: str) -> str:
    from ltx_wizard.core.setup.repo_source import check_repo_source

    return check_repo_source(text)


def _checker(names: tuple[str, ...], metavar: object) -> Callable[[str], str]:
    from ltx_wizard.core.base.arguments import check_path, check_text, count_or_path

    option = _option(names, metavar)
    if option == "--trainer-repo":
        return _repo
    if metavar == "N|PATH":  # prepare --holdout: the bound is the one parse_holdout holds to

        def holdout(text: str) -> str:
            from ltx_wizard.core.prepare.holdout import MAX_HOLDOUT

            return count_or_path(text, option, most=MAX_HOLDOUT)

        return holdout
    if metavar in PATH_METAVARS:
        return lambda text: check_path(text, option)
    return lambda text: check_text(text, option)


def _option(names: tuple[str, ...], metavar: object) -> str:
    return next((n for n in names if n.startswith("--")), str(metavar or (names or ("value",))[0]))


def checked(prog: str, names: tuple[str, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    """add_argument's keywords with the value's check put before its own type."""
    if kwargs.get("action") in _NO_VALUE or not isinstance(kwargs.get("action", "store"), str):
        return kwargs
    if prog in OWN_COMMANDS or OWN_CHECKS.intersection(names):
        return kwargs
    check, option = _checker(names, kwargs.get("metavar")), _option(names, kwargs.get("metavar"))
    then = kwargs.get("type") or str

    def typed(text: str) -> object:
        from ltx_wizard.core.base.errors import UsageError

        try:
            check(text)
        except UsageError as exc:  # argparse names the option already: "argument --x: ..."
            raise argparse.ArgumentTypeError(exc.message.removeprefix(f"{option} ")) from None
        return then(text)

    typed.__name__ = getattr(then, "__name__", "value")  # argparse names a failed type by it
    return {**kwargs, "type": typed}
