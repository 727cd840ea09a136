"""Where discovery looks: the usual model folders and every Hugging Face cache snapshot."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Mapping, Sequence

SYSTEM_ROOTS = ("/models",)


def hf_hub_cache(env: Mapping[str, str]) -> Path | None:
    """Where `hf download` (without --local-dir) puts files."""
    # mirrors huggingface_hub/constants.py: HF_HUB_CACHE, else $HF_HOME/hub, else
    # $XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub.
    if env.get("HF_HUB_CACHE"):
        return Path(os.path.expanduser(env["HF_HUB_CACHE"]))
    if env.get("HF_HOME"):
        return Path(os.path.expanduser(env["HF_HOME"])) / "hub"
    base = env.get("XDG_CACHE_HOME") or (str(Path(env["HOME"]) / ".cache") if env.get("HOME") else None)
    return Path(os.path.expanduser(base)) / "huggingface" / "hub" if base else None


def hf_snapshot_dirs(hub: Path) -> list[Path]:
    """<hub>/models--<org>--<name>/snapshots/<revision>: one search root per downloaded revision
    (the files there are links into blobs/, whose names say nothing)."""
    found: list[Path] = []
    try:
        repos = sorted(e.path for e in os.scandir(hub) if e.name.startswith("models--"))
        for repo in repos:
            snapshots = Path(repo) / "snapshots"
            if snapshots.is_dir():
                found += sorted(Path(e.path) for e in os.scandir(snapshots) if e.is_dir())
    except OSError:  # absent or unreadable cache: nothing to add
        pass
    return found


def search_roots(
    extra_dirs: Sequence[str | os.PathLike[str]] = (),
    *,
    env: Mapping[str, str] | None = None,
    system_roots: Sequence[str] = SYSTEM_ROOTS,
) -> list[Path]:
    env = os.environ if env is None else env
    roots = [Path(r) for r in system_roots]
    if env.get("HOME"):
        roots.append(Path(env["HOME"]) / "models")
    if env.get("LTX_MODELS_DIR"):
        roots.append(Path(os.path.expanduser(env["LTX_MODELS_DIR"])))
    hub = hf_hub_cache(env)
    if hub is not None:
        roots += hf_snapshot_dirs(hub)
    roots += [Path(os.path.abspath(os.path.expanduser(os.fspath(d)))) for d in extra_dirs]
    unique: list[Path] = []
    for r in roots:
        if r not in unique:
            unique.append(r)
    return unique
