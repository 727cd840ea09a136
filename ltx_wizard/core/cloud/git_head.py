"""The commit a checkout has checked out, read from its .git files: HEAD, a loose ref or packed-refs.

Read, not asked of git: no child process for one line, and a checkout without git installed still
answers. A worktree's `.git` file (`gitdir: ...`) is followed; its refs live in the common dir.
"""

from __future__ import annotations

import re
from pathlib import Path

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.io.bounded import read_text

_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_REF = re.compile(r"ref: (refs/[^\s]+)")
MAX_BYTES = 4 * 1024 * 1024  # packed-refs of a big clone


def _git_dir(checkout: Path) -> Path | None:
    dot = checkout / ".git"
    if dot.is_dir():
        return dot
    if dot.is_file():
        text = read_text(dot, what="the .git file", limit=4096).strip()
        if text.startswith("gitdir: "):
            target = Path(text[len("gitdir: ") :])
            return target if target.is_absolute() else checkout / target
    return None


def _common_dir(git_dir: Path) -> Path:
    common = git_dir / "commondir"
    if common.is_file():
        target = Path(read_text(common, what="git commondir", limit=4096).strip())
        return target if target.is_absolute() else git_dir / target
    return git_dir


def _ref_sha(git_dir: Path, ref: str) -> str | None:
    for where in (git_dir, _common_dir(git_dir)):
        loose = where / ref
        if loose.is_file():
            text = read_text(loose, what="a git ref", limit=256).strip()
            return text if _SHA.fullmatch(text) else None
        packed = where / "packed-refs"
        if packed.is_file():
            for line in read_text(packed, what="packed-refs", limit=MAX_BYTES).splitlines():
                sha, _, name = line.partition(" ")
                if name == ref and _SHA.fullmatch(sha):
                    return sha
    return None


def head_commit(checkout: Path) -> str:
    """The full commit id of HEAD; a UsageError saying why when there is none to read."""
    git_dir = _git_dir(Path(checkout))
    if git_dir is None:
        raise UsageError(
            f"{checkout} is not a git clone: the rented machine clones the trainer at the commit the "
            "plan used, so plan with a git clone of https://github.com/Lightricks/LTX-2"
        )
    head = (
        read_text(git_dir / "HEAD", what="git HEAD", limit=4096).strip()
        if (git_dir / "HEAD").is_file()
        else ""
    )
    if _SHA.fullmatch(head):
        return head
    match = _REF.fullmatch(head)
    sha = _ref_sha(git_dir, match.group(1)) if match else None
    if sha is None:
        raise UsageError(f"{checkout}: its HEAD names no commit (an empty clone?): check out a commit first")
    return sha
