"""The hostile world in a sandbox: look-alike files, a tree snapshot, a process census.

Every case runs against its own tmp_path sandbox and proves four things a user would notice:
the one-line `ltx-wizard: ...` message (never "internal error", never a traceback), the exit
code, that nothing outside the run folder changed (a before/after snapshot of the sandbox), and
that no process it started is left (every descendant carries the sandbox marker in its
environment, found in /proc even after a setsid).
"""

from __future__ import annotations

import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from ltx_wizard.cli import main
from ltx_wizard.core.launch import accelerate_config
from ltx_wizard.demo.lookalike_checkout import make_checkout
from ltx_wizard.demo.lookalike_models import make_checkpoint, make_data_root, make_gemma_dir

MARKER = "LTX_WIZARD_RELIABILITY_SANDBOX"
CONFIGS = "packages/ltx-trainer/configs"


def snapshot(root: Path, skip: Path | None = None, *also: Path) -> dict[str, tuple]:
    """Every entry under root (links not followed): kind, size, mtime, link target."""
    found: dict[str, tuple] = {}
    skipped = [p for p in (skip, *also) if p is not None]
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            if any(path == s or s in path.parents for s in skipped):
                continue
            st = os.lstat(path)
            target = os.readlink(path) if os.path.islink(path) else None
            if os.path.isdir(path) and not target:  # a folder: its entries are checked one by one
                found[str(path.relative_to(root))] = (st.st_mode, None, None, None)
            else:
                found[str(path.relative_to(root))] = (st.st_mode, st.st_size, st.st_mtime_ns, target)
    return found


def marked_pids(marker: str) -> list[int]:
    needle = f"\0{MARKER}={marker}\0".encode()
    pids = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as fh:
                env = b"\0" + fh.read() + b"\0"
            with open(f"/proc/{name}/stat", "rb") as fh:
                state = fh.read().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if needle in env and state != b"Z":
            pids.append(int(name))
    return pids


def wait_until(predicate, timeout_s: float = 20.0) -> bool:
    """Poll an observable condition (a process gone, a file written) until it holds."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


@dataclass
class Result:
    code: int
    out: str
    err: str


@dataclass
class Sandbox:
    root: Path
    checkout: Path
    ckpt: Path
    gemma: Path
    data: Path
    ws: Path
    capsys: object

    @property
    def run(self) -> Path:
        return self.ws / "run"

    def plan_args(self, *extra: str, run_name: str = "run", **override: str) -> list[str]:
        values = {
            "--trainer-root": str(self.checkout),
            "--checkpoint": str(self.ckpt),
            "--text-encoder": str(self.gemma),
            "--data-root": str(self.data),
            "--workspace": str(self.ws),
        }
        values.update({f"--{k.replace('_', '-')}": v for k, v in override.items()})
        args = ["plan"]
        for key, value in values.items():
            args += [key, value]
        return [*args, "--run-name", run_name, "--simulate", "h100", *extra]

    def cli(self, *argv: str) -> Result:
        self.capsys.readouterr()
        try:
            code = main(list(argv))
        except SystemExit as exc:  # argparse
            code = exc.code if isinstance(exc.code, int) else 2
        captured = self.capsys.readouterr()
        return Result(code, captured.out, captured.err)

    def planned(self) -> Path:
        """A run folder written by `plan`, ready for autotune."""
        result = self.cli(*self.plan_args())
        assert result.code == 0, result.err
        return self.run

    def freeze(self, skip: Path | None = None, *also: Path):
        """Snapshot the sandbox minus the run folder (or `skip`, and `also`: a fake tool's
        record); call the result to compare."""
        skip = skip or self.run
        before = snapshot(self.root, skip, *also)

        def unchanged() -> None:
            after = snapshot(self.root, skip, *also)
            changed = sorted(set(before.items()) ^ set(after.items()))
            assert not changed, f"changed outside the run folder: {changed[:6]}"

        return unchanged

    def shipped(self, name: str = "t2v_lora.yaml") -> Path:
        return self.checkout / CONFIGS / name


def refused(result: Result, code: int, *words: str, one_line: bool = True) -> None:
    """The refusal a user sees: one `ltx-wizard:` line naming the problem, and its exit code."""
    err = result.err
    assert "internal error" not in err and "Traceback" not in err, err
    assert result.code == code, (result.code, err)
    last = err.strip().splitlines()[-1] if err.strip() else ""
    assert last.startswith("ltx-wizard: "), err
    if one_line:
        assert err.strip().count("\n") == 0, err
    for word in words:
        assert word in last, (word, last)
    assert "\x1b" not in err


@pytest.fixture(autouse=True)
def _no_accelerate(monkeypatch):
    monkeypatch.setattr(accelerate_config, "accelerate_available", lambda: False)


@pytest.fixture
def box(tmp_path, capsys, monkeypatch):
    """A sandbox; afterwards no process started in it may be alive."""
    marker = f"{os.getpid()}-{tmp_path.name}"
    monkeypatch.setenv(MARKER, marker)
    sandbox = Sandbox(
        root=tmp_path,
        checkout=make_checkout(tmp_path / "LTX-2"),
        ckpt=make_checkpoint(tmp_path / "models" / "ltx-2.safetensors"),
        gemma=make_gemma_dir(tmp_path / "models" / "gemma-3"),
        data=make_data_root(tmp_path / "cats" / ".precomputed", 5),
        ws=tmp_path / "ws",
        capsys=capsys,
    )
    sandbox.ws.mkdir()
    yield sandbox
    wait_until(lambda: not marked_pids(marker), 10)  # a reaper may still be finishing its job
    left = marked_pids(marker)
    for pid in left:  # clean up before failing, so one failure does not poison the machine
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    assert not left, f"processes left behind: {left}"
