"""How big each setup step is, said before it is offered, from a source that knows.

* the uv wheel: the package index's JSON API (pypi.org/pypi/uv/json: each file's size), the wheel
  for this machine's architecture;
* the clone: a GitHub repository's size from its API (the packed size the clone fetches); a local
  path or file:// URL, the size of its files on disk;
* `uv sync`: the sizes of the wheels uv.lock names (uv records each wheel's size) for this
  platform, read when the offer is shown (after the clone, from the clone); a checkout without
  uv.lock (LTX-2 since ltx-core 1.2.0) has no such list, and the offer says so.
Every network read has a short timeout, and `fetch` is injectable (tests never reach a network).
"""

from __future__ import annotations

import json
import os
import platform
import re
import sys
from pathlib import Path
from typing import Callable
from urllib.parse import urlparse

from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.io.bounded import read_text

Fetch = Callable[[str], bytes]
TIMEOUT_S = 5.0
MAX_JSON = 8 * 2**20
UNKNOWN = "size not known"


def fetch_url(url: str) -> bytes:
    from urllib.request import Request, urlopen

    request = Request(url, headers={"Accept": "application/json", "User-Agent": "ltx-wizard"})
    with urlopen(request, timeout=TIMEOUT_S) as response:  # noqa: S310 - https URLs we build
        body: bytes = response.read(MAX_JSON)
        return body


def mb(n: int) -> str:
    return f"{n / 1e9:.1f} GB" if n >= 1e9 else f"{n / 1e6:.0f} MB" if n >= 1e6 else f"{n / 1e3:.0f} KB"


def _arch_tags() -> tuple[str, ...]:
    machine = platform.machine().lower()
    return {"amd64": ("x86_64",), "arm64": ("aarch64", "arm64")}.get(machine, (machine,))


def uv_wheel_size(fetch: Fetch | None = None) -> str:
    fetch = fetch or fetch_url
    try:
        doc = json.loads(fetch("https://pypi.org/pypi/uv/json"))
        files = doc.get("urls") or []
    except Exception as exc:  # noqa: BLE001 - offline or another index: the size is not known
        return f"{UNKNOWN} (pypi.org not reached: {type(exc).__name__})"
    system = "linux" if sys.platform.startswith("linux") else sys.platform
    for entry in files:
        name = str(entry.get("filename", ""))
        if (
            name.endswith(".whl")
            and system[:5] in name.replace("macosx", "darwin")
            and any(tag in name for tag in _arch_tags())
            and isinstance(entry.get("size"), int)
        ):
            return f"{mb(entry['size'])} download (uv {doc.get('info', {}).get('version', '')})"
    return f"{UNKNOWN} (no uv wheel for this machine listed)"


def _tree_size(root: Path, limit: int = 200_000) -> int:
    total = 0
    for count, (folder, _dirs, files) in enumerate(os.walk(root)):
        if count > limit:
            break
        for name in files:
            try:
                total += os.lstat(os.path.join(folder, name)).st_size
            except OSError:
                continue
    return total


def repo_size(url: str, fetch: Fetch | None = None) -> str:
    fetch = fetch or fetch_url
    parsed = urlparse(url)
    if parsed.scheme in ("", "file"):
        local = Path(parsed.path if parsed.scheme else url).expanduser()
        if local.is_dir():
            return f"about {mb(_tree_size(local))} (the repository on disk)"
        return UNKNOWN
    match = re.fullmatch(r"/([^/]+)/([^/]+?)(?:\.git)?/?", parsed.path or "")
    if parsed.hostname != "github.com" or match is None:
        return f"{UNKNOWN} (not a GitHub repository)"
    try:
        kb = json.loads(fetch(f"https://api.github.com/repos/{match.group(1)}/{match.group(2)}"))["size"]
        return f"about {mb(int(kb) * 1024)} (GitHub's packed size)"
    except Exception as exc:  # noqa: BLE001 - offline, or no such repo: the size is not known
        return f"{UNKNOWN} (GitHub not reached: {type(exc).__name__})"


_WHEEL = re.compile(r'\{[^{}]*url = "([^"]+\.whl)"[^{}]*size = (\d+)[^{}]*\}')


def lock_download_size(root: Path) -> str:
    """The wheels of uv.lock for this machine, summed (one per package: the first that fits),
    read from the checkout as it is when asked: before the clone there is nothing to read."""
    if not (root / "packages").is_dir():
        return "known after the clone, from its uv.lock if it ships one (with CUDA torch: several GB)"
    if not (root / "uv.lock").is_file():
        return (
            f"not known: {root} has no uv.lock to read it from (uv resolves the packages as it "
            "syncs; with CUDA torch they come to several GB)"
        )
    try:
        text = read_text(root / "uv.lock", what="uv.lock", limit=16 * 2**20)
    except (WizardError, OSError) as exc:
        return f"not known: {root / 'uv.lock'} could not be read ({type(exc).__name__})"
    total = 0
    system = "manylinux" if sys.platform.startswith("linux") else "macosx"
    for block in text.split("[[package]]")[1:]:
        for url, size in _WHEEL.findall(block):
            name = url.rsplit("/", 1)[-1]
            if name.endswith("-none-any.whl") or (system in name and any(t in name for t in _arch_tags())):
                total += int(size)
                break
    return f"about {mb(total)} of wheels (from uv.lock)" if total else UNKNOWN
