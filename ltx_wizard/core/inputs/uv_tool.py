"""Where uv and git are, and how uv gets installed when it is nowhere (core/setup offers it).

uv is looked for on PATH, then in the wizard's own environment (where the install below puts it),
then where astral's installer puts it (~/.local/bin, ~/.cargo/bin: installed, but the shell that
started the wizard predates it). The wizard runs the uv it found by its full path, so no new shell
is needed.

The install: `python -m pip install uv` with the wizard's own Python, into its own environment.
Why this way: no `curl | sh` (nothing is piped to a shell), pip checks the wheel against the hash
the package index publishes, nothing outside that environment changes (no shell rc file, no
~/.local), and removing the wizard's environment removes it. The `uv` package on the index is
astral's own build of the same binary.
"""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig
from pathlib import Path
from typing import Mapping

from ltx_wizard.core.base.records import record

UV_PACKAGE = "uv"


@record
class Found:
    path: str
    how: str  # "on PATH", "in the wizard's environment", "in ~/.local/bin"


def own_scripts_dir() -> Path:
    """The wizard's environment's bin folder (where pip puts console scripts)."""
    return Path(sysconfig.get_path("scripts"))


def find_uv(env: Mapping[str, str] | None = None, *, scripts: Path | None = None) -> Found | None:
    env = os.environ if env is None else env
    on_path = shutil.which("uv", path=env.get("PATH"))
    if on_path:
        return Found(path=on_path, how="on PATH")
    places = [(scripts or own_scripts_dir(), "in the wizard's environment")]
    home = env.get("HOME")
    if home:
        places += [
            (Path(home) / ".local" / "bin", "in ~/.local/bin (not on this shell's PATH)"),
            (Path(home) / ".cargo" / "bin", "in ~/.cargo/bin (not on this shell's PATH)"),
        ]
    for folder, how in places:
        candidate = folder / "uv"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return Found(path=str(candidate), how=how)
    return None


def find_git(env: Mapping[str, str] | None = None) -> str | None:
    env = os.environ if env is None else env
    return shutil.which("git", path=env.get("PATH"))


def uv_install_argv(python: str | None = None) -> tuple[str, ...]:
    """pip with the wizard's own Python; --disable-pip-version-check keeps the log to the point."""
    return (python or sys.executable, "-m", "pip", "install", "--disable-pip-version-check", UV_PACKAGE)


def pip_available(python: str | None = None) -> bool:
    """pip is importable in the wizard's environment (a `uv tool` environment has none, but then
    uv is there already)."""
    exe = Path(python or sys.executable)
    lib = Path(sysconfig.get_path("purelib"))
    return exe.exists() and ((lib / "pip").is_dir() or any(lib.glob("pip-*.dist-info")))
