"""The run folder: where it goes, what it is called, its layout, its lock, and atomic writes.

Layout (the skill's): `<root>/<run>/{plan.md, config.yaml, autotune.log, dataset/, outputs/,
logs/, overfit/}`. Nothing outside the run folder is ever written.
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Iterator, Mapping, Sequence

from ltx_wizard.core.errors import UsageError, WizardError

ENV_VAR = "LTX_TRAININGS_DIR"
SYSTEM_ROOTS = (Path("/data/ltx-trainings"), Path("/workspace/ltx-trainings"))
LOCAL_ROOT = "projects"
LOCK_NAME = ".ltx-wizard.lock"
SUBFOLDERS = ("dataset", "outputs", "logs", "overfit")


def _writable(path: Path) -> bool:
    """True when `path` is a writable folder or could be created under a writable parent."""
    probe = path
    while not probe.exists():
        if probe.parent == probe:
            return False
        probe = probe.parent
    return probe.is_dir() and os.access(probe, os.W_OK | os.X_OK)


def choose_root(
    explicit: str | os.PathLike | None = None,
    env: Mapping[str, str] | None = None,
    *,
    system_roots: Sequence[Path] = SYSTEM_ROOTS,
    cwd: str | os.PathLike | None = None,
) -> Path:
    """--workspace, else the first writable of $LTX_TRAININGS_DIR, /data/..., /workspace/..., ./projects."""
    env = os.environ if env is None else env
    base = Path(cwd) if cwd is not None else Path.cwd()
    if explicit is not None:
        root = (base / Path(explicit).expanduser()).resolve()
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
            return candidate.resolve()
    raise UsageError(
        f"no writable workspace (tried {', '.join(map(str, candidates))}): pass --workspace DIR"
    )


_NAME_JUNK = re.compile(r"[^A-Za-z0-9._-]+")


def dataset_name(data_root: str | os.PathLike) -> str:
    """`/data/my-clips/.precomputed` -> `my-clips`: the hidden preprocessing folder is not a name."""
    path = Path(os.path.abspath(data_root))
    while path.name.startswith(".") or path.name in ("precomputed", "latents"):
        if path.parent == path:
            break
        path = path.parent
    name = _NAME_JUNK.sub("-", path.name).strip(".-_")
    return name or "dataset"


def default_run_name(
    data_root: str | os.PathLike, now: datetime | None = None, mode: str = "t2v"
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
    elif len(name.encode("utf-8")) > 200:
        bad = "is longer than 200 bytes"
    if bad:
        raise UsageError(f"run name {name!r} {bad}: use letters, digits, '-', '_' and '.'")
    return name


@dataclass(frozen=True)
class RunFolder:
    """Paths of one run folder; `create()` makes the layout."""

    root: Path

    @property
    def plan(self) -> Path:
        return self.root / "plan.md"

    @property
    def config(self) -> Path:
        return self.root / "config.yaml"

    @property
    def autotune_log(self) -> Path:
        return self.root / "autotune.log"

    @property
    def accelerate_config(self) -> Path:
        return self.root / "accelerate.yaml"

    @property
    def dataset(self) -> Path:
        return self.root / "dataset"

    @property
    def outputs(self) -> Path:
        return self.root / "outputs"

    @property
    def logs(self) -> Path:
        return self.root / "logs"

    @property
    def overfit(self) -> Path:
        return self.root / "overfit"

    @property
    def lock_file(self) -> Path:
        return self.root / LOCK_NAME

    def create(self) -> None:
        for name in SUBFOLDERS:
            (self.root / name).mkdir(parents=True, exist_ok=True)


@dataclass
class RunLock:
    path: Path
    pid: int
    note: str | None = None  # set when a stale lock was taken over


def pid_alive(pid: int) -> bool:
    """Whether process `pid` exists (the one liveness check: run locks, background training)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    except OSError:
        return False
    return True


def _read_pid(path: Path) -> int | None:
    try:
        return int(path.read_text(encoding="utf-8").split()[0])
    except (OSError, ValueError, IndexError):
        return None


@contextlib.contextmanager
def run_lock(run_dir: str | os.PathLike) -> Iterator[RunLock]:
    """One wizard per run folder: an O_EXCL lock file holding our pid; stale locks are taken over."""
    run_dir = Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    path = run_dir / LOCK_NAME
    note = None
    for _attempt in range(2):
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            holder = _read_pid(path)
            if holder is not None and pid_alive(holder):
                raise WizardError(
                    f"run folder {run_dir} is in use by another ltx-wizard (pid {holder}): "
                    f"wait for it to finish, or remove {path} if that process is not a wizard"
                ) from None
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
            note = f"took over a stale lock in {run_dir} (pid {holder or '?'} is gone)"
            continue
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(f"{os.getpid()}\n")
        break
    else:
        raise WizardError(f"could not lock run folder {run_dir}: remove {path} and retry")
    lock = RunLock(path=path, pid=os.getpid(), note=note)
    try:
        yield lock
    finally:
        if _read_pid(path) == lock.pid:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()


def atomic_write_text(path: str | os.PathLike, text: str) -> Path:
    """Write through a temp file in the same folder, then rename: readers never see half a file.

    newline="" keeps the text's own line endings (a CRLF config stays CRLF).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    return path
