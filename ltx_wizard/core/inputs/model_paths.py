"""Turn what the user typed into a checked local path, before anything opens it.

Shared by every validator: URLs are refused (the trainer takes local files only), `~` is
expanded, relative paths are made absolute against the working directory, and the kind of file
is established with stat() first, so a FIFO is never opened and /dev/zero never read.
Symlinks are kept as typed (the user recognises their own path in messages).
"""

from __future__ import annotations

import errno
import os
import re
import stat
from pathlib import Path

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.base.text_safety import require_plain_path

# `scheme://...` for any scheme, plus the bare `hf:` / `s3:` / `gs:` forms some tools accept.
_URL_RE = re.compile(r"^(?:[A-Za-z][A-Za-z0-9+.\-]*://|(?:hf|s3|gs|gcs|az|abfs|hdfs):)")

_KIND_NAMES = {
    stat.S_IFIFO: "a FIFO (named pipe)",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
}


def is_url(text: str) -> bool:
    return bool(_URL_RE.match(text.strip()))


_HF_FILE_URL = re.compile(
    r"https?://(?:www\.)?huggingface\.co/([^/\s]+/[^/\s]+)/(?:resolve|blob)/[^/\s]+/(\S+?)(?:\?\S*)?$"
)


def download_hint(url: str) -> str:
    """The next command for a URL: the exact `hf download` line for a Hugging Face file URL."""
    match = _HF_FILE_URL.match(url)
    if match:
        repo, file = match.groups()
        local = f"models/{repo.split('/')[1]}"
        return (
            f"download it first with `hf download {repo} {file} --local-dir {local}` and pass {local}/{file}"
        )
    return (
        "download it first (for Hugging Face files: `hf download REPO FILE --local-dir DIR`) "
        "and pass the local path"
    )


def resolve_user_path(
    text: str | os.PathLike[str], *, what: str, cwd: str | os.PathLike[str] | None = None
) -> Path:
    """`what` names the item in messages ("checkpoint"). Returns an absolute, normalised path."""
    raw = os.fspath(text)
    if not raw.strip():
        raise UsageError(f"{what}: no path given: pass the path of a local file")
    if is_url(raw):
        raise UsageError(
            f"{what} {raw!r} is a URL: local files only (the trainer cannot download); "
            f"{download_hint(raw.strip())}"
        )
    expanded = os.path.expanduser(raw)
    if not os.path.isabs(expanded):
        expanded = os.path.join(os.fspath(cwd) if cwd is not None else os.getcwd(), expanded)
    # normpath, not resolve(): resolving would replace the user's symlinked path in messages.
    path = Path(os.path.normpath(expanded))
    # A control character (typed, or in the folder a link leads to) would reach launch.sh.
    require_plain_path(path, what)
    require_plain_path(os.path.realpath(path), f"{what} (where its links lead)")
    return path


def stat_path(path: Path, *, what: str) -> os.stat_result:
    """stat() following symlinks, with one clear message for each way it can fail."""
    try:
        return os.stat(path)
    except FileNotFoundError:
        if os.path.islink(path):
            target = os.readlink(path)
            raise UsageError(
                f"{what} {path} is a symlink to {target}, which does not exist: fix or remove the link"
            ) from None
        raise UsageError(f"{what} {path} does not exist: check the path (typo? other mount?)") from None
    except NotADirectoryError:
        raise UsageError(
            f"{what} {path}: a parent of this path is a file, not a folder: check the path"
        ) from None
    except PermissionError:
        raise UsageError(
            f"{what} {path} cannot be reached (permission denied on a parent folder): "
            "fix the folder permissions or run as the owning user"
        ) from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UsageError(
                f"{what} {path} is a symlink loop (links that point at each other): point it at the real file"
            ) from None
        if exc.errno == errno.ENAMETOOLONG:
            raise UsageError(f"{what} path is too long: {str(path)[:80]}...") from None
        raise UsageError(
            f"{what} {path} cannot be checked ({exc.strerror}): check the disk or mount"
        ) from None


def _require_readable(path: Path, what: str) -> None:
    if not os.access(path, os.R_OK):
        raise UsageError(
            f"{what} {path} is not readable by this user (permission denied): "
            "fix its permissions (chmod a+r) or run as its owner"
        )


def require_regular_file(path: Path, *, what: str, suffix: str | None = ".safetensors") -> os.stat_result:
    """Stat first: a directory, FIFO or device is refused without ever being opened."""
    st = stat_path(path, what=what)
    if stat.S_ISDIR(st.st_mode):
        hint = f"pass the {suffix} file inside it" if suffix else "pass a file"
        raise UsageError(f"{what} {path} is a directory, not a file: {hint}")
    if not stat.S_ISREG(st.st_mode):
        kind = _KIND_NAMES.get(stat.S_IFMT(st.st_mode), "not a regular file")
        raise UsageError(f"{what} {path} is {kind}, not a regular file: pass the model file itself")
    _require_readable(path, what)
    if suffix and not path.name.lower().endswith(suffix):
        raise UsageError(
            f"{what} {path} is not a {suffix} file: the trainer loads {suffix} only "
            "(convert .ckpt/.bin/.pt weights, or pick the .safetensors download)"
        )
    return st


def require_directory(path: Path, *, what: str) -> os.stat_result:
    st = stat_path(path, what=what)
    if not stat.S_ISDIR(st.st_mode):
        raise UsageError(f"{what} {path} is not a directory: pass the folder")
    if not os.access(path, os.R_OK | os.X_OK):
        raise UsageError(
            f"{what} {path} cannot be listed (permission denied): fix its permissions (chmod a+rx)"
        )
    return st
