"""Stand-ins for the tools `ltx-wizard setup` runs, so its tests need no network: a local git
repository as the trainer's remote (a look-alike checkout of a given ltx-core layout, committed),
a recorded stand-in `uv` (a script that answers `uv sync` and `uv run python -c` as uv does on a
pipe, and records each call), a stand-in pip for the uv install, and a fake `wandb` package."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from ltx_wizard.core.inputs.checkout import CONFIGS_REL, OLD_TIER_CONFIGS, TIER_CONFIGS
from ltx_wizard.demo.lookalike_checkout import make_checkout
from ltx_wizard.demo.lookalike_layouts import write_layout

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "init.defaultBranch=main"]

UV_SCRIPT = r'''#!{python}
"""Stand-in uv: records its argv, then does what uv does on a pipe for sync and run."""
import json, os, re, subprocess, sys
from pathlib import Path
here = Path(__file__).resolve().parent
with open(here / "uv-calls.log", "a") as log:
    log.write(json.dumps({{"argv": sys.argv[1:], "cwd": os.getcwd()}}) + "\n")
args = sys.argv[1:]
root = Path.cwd()
while not (root / "packages").is_dir() and root.parent != root:
    root = root.parent
if args[:1] == ["sync"]:
    if os.environ.get("STANDIN_UV_FAIL") == "dns":  # no name server: uv's chain of causes
        for line in ("Resolved 3 packages in 12ms",
                     "error: Failed to fetch: `https://pypi.org/simple/torch/`",
                     "  Caused by: Request failed after 3 retries",
                     "  Caused by: error sending request for url (https://pypi.org/simple/torch/)",
                     "  Caused by: client error (Connect)",
                     "  Caused by: dns error: failed to lookup address information: "
                     "Temporary failure in name resolution",
                     "  Caused by: failed to lookup address information: "
                     "Temporary failure in name resolution"):
            print(line, file=sys.stderr)
        sys.exit(2)
    if os.environ.get("STANDIN_UV_FAIL"):
        print("error: Failed to fetch: `https://pypi.org/simple/torch/`", file=sys.stderr)
        sys.exit(2)
    lock = root / "uv.lock"
    text = lock.read_text() if lock.is_file() else ""
    m = re.search(r'name = "transformers"\s*\nversion = "([^"]+)"', text)
    version = m.group(1) if m else "5.14.1"
    if not m:
        lock.write_text('version = 1\n\n[[package]]\nname = "transformers"\nversion = "%s"\n' % version)
    for line in ("Resolved 3 packages in 12ms", "Downloading torch (800.0MiB)",
                 "Downloading nvidia-cudnn-cu13 (700.0MiB)", " Downloaded nvidia-cudnn-cu13",
                 " Downloaded torch", "Prepared 3 packages in 1.2s"):
        print(line, file=sys.stderr, flush=True)
    site = root / ".venv" / "lib" / "python3.11" / "site-packages"
    for old in site.glob("transformers-*.dist-info") if site.is_dir() else ():
        for f in old.iterdir():
            f.unlink()
        old.rmdir()
    info = site / ("transformers-%s.dist-info" % version)
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text("Name: transformers\nVersion: %s\n" % version)
    print("Installed 3 packages in 5ms", file=sys.stderr)
    print(" + transformers==%s" % version, file=sys.stderr)
    sys.exit(0)
if args[:1] == ["run"]:
    rest = [a for a in args[1:] if a != "--no-sync"]
    if rest[:1] == ["python"]:
        paths = [str(root / "packages" / "ltx-trainer" / "src"), os.environ.get("STANDIN_PYTHONPATH", "")]
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in paths if p))
        sys.exit(subprocess.call([{python!r}] + rest[1:], env=env))
print("stand-in uv: unknown command " + " ".join(args), file=sys.stderr)
sys.exit(2)
'''


def write_uv(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "uv"
    path.write_text(UV_SCRIPT.format(python=sys.executable), encoding="utf-8")
    path.chmod(0o755)
    return path


def uv_calls(folder: Path) -> list[dict]:
    import json

    log = folder / "uv-calls.log"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


PIP_SCRIPT = r'''#!{python}
"""Stand-in for `python -m pip install uv`: puts the stand-in uv where pip would."""
import shutil, sys
print("Collecting uv", flush=True)
print("Installing collected packages: uv", flush=True)
shutil.copy({uv!r}, {target!r})
print("Successfully installed uv-0.9.0")
'''


def write_pip(folder: Path, uv_source: Path, target_dir: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "pip-standin"
    path.write_text(
        PIP_SCRIPT.format(python=sys.executable, uv=str(uv_source), target=str(target_dir / "uv")),
        encoding="utf-8",
    )
    path.chmod(0o755)
    return path


def git(*args: str, cwd: Path | None = None) -> str:
    return subprocess.run([*GIT, *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def make_remote(path: Path, layout: str = "1.2", *, before_rename: bool = False) -> Path:
    """A git repository holding a look-alike checkout (unsynced: no .venv, as on GitHub; no
    uv.lock where its release shipped none). `before_rename`: as LTX-2 was before 2026-06-17,
    its tier configs under their old names and no per-mode recipe configs yet."""
    from ltx_wizard.demo.lookalike_layouts import LAYOUTS

    make_checkout(path, synced=False, layout=layout, recipes=not before_rename)
    if not LAYOUTS[layout].ships_lock:  # ltx-core 1.2.0 took uv.lock out of the repository
        (path / "uv.lock").unlink(missing_ok=True)
    if before_rename:
        for new, old in zip(TIER_CONFIGS, OLD_TIER_CONFIGS):
            (path / CONFIGS_REL / new).rename(path / CONFIGS_REL / old)
    (path / ".gitignore").write_text(".venv\n", encoding="utf-8")
    git("init", "-q", str(path))
    git("add", "-A", cwd=path)
    git("commit", "-q", "-m", f"ltx-core {layout}", cwd=path)
    return path


def advance_remote(path: Path, layout: str) -> None:
    """A newer release lands on the remote (the user's clone is now behind); tier configs under
    their old names get the names they have had since 2026-06-17."""
    from ltx_wizard.demo.lookalike_layouts import LAYOUTS

    write_layout(path, layout, synced=False)
    if not LAYOUTS[layout].ships_lock:  # as ltx-core 1.2.0 did: uv.lock left the repository
        (path / "uv.lock").unlink(missing_ok=True)
    for new, old in zip(TIER_CONFIGS, OLD_TIER_CONFIGS):
        if (path / CONFIGS_REL / old).is_file():
            git("mv", str(CONFIGS_REL / old), str(CONFIGS_REL / new), cwd=path)
    git("add", "-A", cwd=path)
    git("commit", "-q", "-m", f"ltx-core {layout}", cwd=path)


def fake_wandb(folder: Path) -> Path:
    pkg = folder / "wandb"
    pkg.mkdir(parents=True, exist_ok=True)
    (pkg / "__init__.py").write_text(
        "import os\n"
        "class Api:\n"
        "    def __init__(self):\n"
        "        if os.environ.get('FAKE_WANDB_ERROR'):\n"
        "            raise RuntimeError(os.environ['FAKE_WANDB_ERROR'])\n"
        "        self.api_key = os.environ.get('FAKE_WANDB_KEY') or None\n",
        encoding="utf-8",
    )
    return folder


def path_with(tmp: Path, *folders: Path) -> str:
    """PATH with these folders and a folder holding git alone (so a uv installed on the
    developer's machine beside git is never found by accident)."""
    import shutil

    git_bin = tmp / "git-only-bin"
    git_bin.mkdir(exist_ok=True)
    if not (git_bin / "git").exists():
        (git_bin / "git").symlink_to(
            shutil.which("git") or shutil.which("git", path="/usr/local/bin:/usr/bin:/bin")
        )
    return os.pathsep.join([*(str(f) for f in folders), str(git_bin)])
