"""The run folder: where it goes, what it is called, its layout, its lock, and atomic writes.

Layout (the skill's): `<root>/<run>/{plan.md, config.yaml, autotune.log, dataset/, outputs/,
logs/, overfit/}`. Nothing outside the run folder is ever written.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import tempfile
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Iterator, Mapping, Sequence

from ltx_wizard.core.io import run_folder, safe_fs
from ltx_wizard.core.base.errors import UsageError, WizardError
from ltx_wizard.core.io.pid_records import PidRecord, read_record, record_text
from ltx_wizard.core.io.safe_fs import create_run_dir
from ltx_wizard.core.base.text_safety import clean_text, clip, require_plain_path

ENV_VAR = "LTX_TRAININGS_DIR"
SYSTEM_ROOTS = (Path("/data/ltx-trainings"), Path("/workspace/ltx-trainings"))
LOCAL_ROOT = "projects"
LOCK_NAME = ".ltx-wizard.lock"
SUBFOLDERS = tuple(
    f.rel
    for f in (run_folder.DATASET_DIR, run_folder.OUTPUTS_DIR, run_folder.LOGS_DIR, run_folder.OVERFIT_DIR)
)


def _writable(path: Path) -> bool:
    """True when `path` is a writable folder or could be created under a writable parent."""
    probe = path
    while not probe.exists():
        if probe.parent == probe:
            return False
        probe = probe.parent
    return probe.is_dir() and os.access(probe, os.W_OK | os.X_OK)


def choose_root(
    explicit: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    *,
    system_roots: Sequence[Path] = SYSTEM_ROOTS,
    cwd: str | os.PathLike[str] | None = None,
) -> Path:
    """--workspace, else the first writable of $LTX_TRAININGS_DIR, /data/..., /workspace/..., ./projects."""
    env = os.environ if env is None else env
    base = Path(cwd) if cwd is not None else Path.cwd()
    if explicit is not None:
        require_plain_path(explicit, "--workspace")  # it would reach launch.sh's lines
        root = (base / Path(explicit).expanduser()).resolve()
        require_plain_path(root, "--workspace (where its links lead)")
        if not _writable(root):
            raise UsageError(f"--workspace {root} is not writable: pick a folder you can write to")
        return root
    candidates: list[Path] = []
    if env.get(ENV_VAR):
        candidates.append(base / Path(env[ENV_VAR]).expanduser())
    candidates.extend(system_roots)
    candidates.append(base / LOCAL_ROOT)
    for candidate in candidates:
        if _writable(candidate):
            require_plain_path(candidate.resolve(), "workspace")
            return candidate.resolve()
    raise UsageError(f"no writable workspace (tried {', '.join(map(str, candidates))}): pass --workspace DIR")


_NAME_JUNK = re.compile(r"[^A-Za-z0-9._-]+")


def dataset_name(data_root: str | os.PathLike[str]) -> str:
    """`/data/my-clips/.precomputed` -> `my-clips`: the hidden preprocessing folder is not a name."""
    path = Path(os.path.abspath(data_root))
    while path.name.startswith(".") or path.name in ("precomputed", "latents"):
        if path.parent == path:
            break
        path = path.parent
    name = _NAME_JUNK.sub("-", path.name).strip(".-_")
    return name or "dataset"


def default_run_name(
    data_root: str | os.PathLike[str], now: datetime | None = None, mode: str = "t2v"
) -> str:
    """`<mode>-<dataset-name>-<YYYYMMDD-HHMM>`."""
    now = now or datetime.now()
    return f"{mode}-{dataset_name(data_root)}-{now.strftime('%Y%m%d-%H%M')}"


def validate_run_name(name: str) -> str:
    """A run name is one folder name: no `/`, no `..`, no control characters."""
    bad = None
    if not name or not name.strip():
        bad = "is empty"
    elif "/" in name or "\\" in name:
        bad = "contains a slash"
    elif ".." in name or name in (".",):
        bad = "contains '..'"
    elif any(ord(c) < 32 or ord(c) == 127 for c in name):
        bad = "contains a control character"
    elif len(name.encode("utf-8", "surrogateescape")) > 200:
        bad = "is longer than 200 bytes"
    if bad:  # the name cut and cleaned: a 5,000-character one is not printed whole
        raise UsageError(
            f"run name {clip(clean_text(name), 60)!r} {bad}: use letters, digits, '-', '_' and '.'"
        )
    return name


@dataclass(frozen=True)
class RunFolder:
    """Paths of one run folder; `create()` makes the layout."""

    root: Path

    @property
    def plan(self) -> Path:
        return run_folder.PLAN_MD.path(self.root)

    @property
    def config(self) -> Path:
        return run_folder.CONFIG.path(self.root)

    @property
    def autotune_log(self) -> Path:
        return run_folder.AUTOTUNE_LOG.path(self.root)

    @property
    def plan_record(self) -> Path:
        """What plan decided, as data (core/plan/record.py)."""
        return run_folder.PLAN_RECORD.path(self.root)

    @property
    def autotune_record(self) -> Path:
        """What autotune decided, as data (core/tuning/tune_record.py)."""
        return run_folder.AUTOTUNE_RECORD.path(self.root)

    @property
    def accelerate_config(self) -> Path:
        return run_folder.ACCELERATE.path(self.root)

    @property
    def dataset(self) -> Path:
        return run_folder.DATASET_DIR.path(self.root)

    @property
    def outputs(self) -> Path:
        return run_folder.OUTPUTS_DIR.path(self.root)

    @property
    def logs(self) -> Path:
        return run_folder.LOGS_DIR.path(self.root)

    @property
    def overfit(self) -> Path:
        return run_folder.OVERFIT_DIR.path(self.root)

    @property
    def lock_file(self) -> Path:
        return self.root / LOCK_NAME

    def create(self) -> bool:
        """The run folder (O_EXCL; a planted link refused) and its layout; True if made now."""
        made = create_run_dir(self.root)
        for name in SUBFOLDERS:
            safe_fs.check_inside(self.root, self.root / name / ".keep")
        return made


@dataclass
class RunLock:
    path: Path
    pid: int
    note: str | None = None  # set when a stale lock was taken over


def _holder(path: Path) -> PidRecord:
    """The lock's record: regular file only (a planted FIFO must not block us: it reads as
    stale), pid bounded and plausible (a lock of `-1 5` or 20 digits names no one)."""
    return read_record(path, what="lock")


@contextlib.contextmanager
def _guard(run_dir: Path) -> Iterator[None]:
    """Serialise lock takeovers and releases in this folder: flock() on the run folder itself
    (never removed while in use), released by the kernel when its holder dies, so the guard is
    never stale and leaves no file behind."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(run_dir, flags | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise WizardError(f"cannot lock run folder {run_dir} ({exc.strerror}): check it") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError:  # a filesystem without flock: the O_EXCL link below still holds
            pass
        yield
    finally:
        os.close(fd)  # releases the flock


def _link_lock(run_dir: Path, path: Path, content: str) -> bool:
    """Create the lock with its content in one step: a temp file hard-linked to the lock name.
    link() fails when the name exists, so no reader ever sees an empty or partial lock."""
    try:
        fd, tmp = tempfile.mkstemp(prefix=f"{LOCK_NAME}.", suffix=".new", dir=run_dir)
    except OSError as exc:  # a full disk, a read-only or foreign run folder: one line
        raise _lock_error(run_dir, exc) from None
    try:
        try:
            # a full disk often lets the empty temp file be made and fails its first write
            _write_closing(fd, content.encode("ascii"))
            os.link(tmp, path)
        except FileExistsError:
            return False
        except OSError as exc:
            raise _lock_error(run_dir, exc) from None
        return True
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def _write_closing(fd: int, data: bytes) -> None:
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def _lock_error(run_dir: Path, exc: OSError) -> WizardError:
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return WizardError(f"no space left to lock run folder {run_dir}: free some disk space and try again")
    return UsageError(
        f"cannot lock run folder {run_dir} ({exc.strerror or exc}): it must be a folder you can write to"
    )


def _remove_stale(run_dir: Path, path: Path) -> bool:
    """Remove a stale lock (under the guard); False when it was gone already."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        return False
    except OSError as exc:  # a folder (or something else) planted as the lock: not ours to remove
        raise UsageError(
            f"run folder {run_dir} has {LOCK_NAME} that is not a lock file "
            f"({exc.strerror or exc}): remove {path} and try again"
        ) from None
    return True


@contextlib.contextmanager
def run_lock(run_dir: str | os.PathLike[str]) -> Iterator[RunLock]:
    """One wizard per run folder. The lock holds `pid start-time`; a lock whose process is gone
    (or whose pid now names another process) is stale and is taken over under the guard."""
    run_dir = Path(run_dir)
    create_run_dir(run_dir)
    path = run_dir / LOCK_NAME
    pid = os.getpid()
    content = record_text(pid)
    note = None
    nested = False
    if not _link_lock(run_dir, path, content):
        with _guard(run_dir):
            holder = _holder(path)
            # this wizard holds it already (its Monitor, then autotune again): one wizard, one lock
            nested = holder.pid == pid and holder.alive()
            if not nested:
                note = _take_over(run_dir, path, holder, content)
    lock = RunLock(path=path, pid=pid, note=note)
    try:
        yield lock
    finally:
        if not nested:  # the outer hold releases it
            _release(run_dir, path, lock)


def _take_over(run_dir: Path, path: Path, holder: PidRecord, content: str) -> str | None:
    """Under the guard: refuse a live holder's lock, take over a stale one (the note says so)."""
    if holder.alive():
        raise WizardError(
            f"run folder {run_dir} is in use by another ltx-wizard (pid {holder.pid}): "
            f"wait for it to finish, or remove {path} if that process is not a wizard"
        )
    note = None
    # Stale (or released meanwhile): only a guard holder removes a lock, so nobody can
    # have replaced it between the check above and this unlink.
    if _remove_stale(run_dir, path):
        gone = f"pid {holder.pid} is gone" if holder.pid else holder.problem or "damaged"
        note = f"took over a stale lock in {run_dir} ({gone})"
    if not _link_lock(run_dir, path, content):  # a fresh starter got in first
        raise WizardError(f"run folder {run_dir} is in use by another ltx-wizard: wait for it to finish")
    return note


def _release(run_dir: Path, path: Path, lock: RunLock) -> None:
    with _guard(run_dir):
        if _holder(path).pid == lock.pid:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)


def lock_holder(run_dir: str | os.PathLike[str]) -> PidRecord | None:
    """The live process other than this one that holds the run's lock (pid, start time); None
    when the lock is free, stale or ours."""
    holder = _holder(Path(run_dir) / LOCK_NAME)
    if holder.pid is None or holder.pid == os.getpid() or not holder.alive():
        return None
    return holder


def atomic_write_text(
    path: str | os.PathLike[str], text: str, *, root: str | os.PathLike[str] | None = None
) -> Path:
    """Write through a temp file in the same folder, then rename: readers never see half a file.
    With `root` (the run folder), the path is checked not to leave it through any symlink."""
    return safe_fs.write_text(Path(path), text, root=Path(root) if root is not None else None)
