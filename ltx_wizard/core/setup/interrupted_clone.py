"""A `git clone` stopped before it finished (the wizard killed, the machine lost), told apart
from a folder that is not a checkout, and the steps that finish it.

git writes `.git/config` with the `origin` remote first, fetches, and writes `.git/index` only
once it checks the files out (builtin/clone.c cmd_clone, then checkout()): a `.git` with that
remote and no index is a clone that never got its files. Finishing it fetches again (what was
fetched is kept), points origin/HEAD at the remote's default branch, and checks that out; there
is nothing of the user's in such a folder to lose. A folder with an index is somebody's checkout
and is left alone.
"""

from __future__ import annotations

from pathlib import Path

from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.io.bounded import read_text

CONFIG_MAX = 64 << 10  # a clone's .git/config is a few hundred bytes


def interrupted_clone(root: Path) -> bool:
    git_dir = root / ".git"
    if not git_dir.is_dir() or git_dir.is_symlink() or (git_dir / "index").exists():
        return False
    try:
        config = read_text(git_dir / "config", what=".git/config", limit=CONFIG_MAX)
    except WizardError:
        return False
    return '[remote "origin"]' in config


def finish_argvs(git: str, root: Path) -> tuple[tuple[str, ...], ...]:
    """The git commands that finish the clone in `root`, in order (no shell)."""
    at = (git, "-C", str(root))
    return (
        (*at, "fetch", "--progress", "origin"),
        (*at, "remote", "set-head", "origin", "--auto"),
        (*at, "reset", "--hard", "origin/HEAD"),
    )


def remove_line(root: Path) -> str:
    """What removes it instead, as the user would type it."""
    import shlex

    return f"rm -rf -- {shlex.quote(str(root))}"
