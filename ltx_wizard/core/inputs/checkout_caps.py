"""What the user's checkout can load, read from its files at run time (never from a table of
releases): ltx-core's version and its `transformers` pin, the version uv.lock pins and the one the
checkout's .venv holds, and from ltx-core's own source which text paths and Gemma kinds it builds.

Markers in ltx-core's source (packages/ltx-core/src/ltx_core):
* `caption_proj_before_connector`: model/transformer/model_configurator.py
  `_build_caption_projections` knows the 22B text path of LTX-2.3 and later; without it a 22B
  checkpoint fails to load ("size mismatch for audio_embeddings_connector").
* `model_type == "gemma..."`: text_encoders/gemma/encoders/encoder_configurator.py `get_gemma_ops`
  (1.2.0) names each Gemma kind it builds; releases that compare none build Gemma 3 alone.
* `gemma_source_checkpoint`: encoder_configurator.py `_check_gemma_version`, the LTX-2.5 rule.
* `rope_local_base_freq` without `rope_parameters`: the Gemma rope read that transformers 5
  removed ('Gemma3TextConfig' object has no attribute 'rope_local_base_freq').
"""

from __future__ import annotations

import re
from pathlib import Path

from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.base.records import record
from ltx_wizard.core.io.bounded import read_text

CORE_REL = Path("packages/ltx-core")
CORE_SRC_REL = CORE_REL / "src" / "ltx_core"
# Where the markers live; the rest of ltx-core is never read.
SCANNED = ("text_encoders", "model/transformer", "loader")
MAX_FILES = 400
MAX_FILE_BYTES = 2 * 2**20

_VERSION = re.compile(r'^version\s*=\s*"([^"]+)"', re.M)
_TRANSFORMERS_PIN = re.compile(r'"transformers\s*([^";]*)"')
_LOCKED = re.compile(r'^name = "transformers"\s*\nversion = "([^"]+)"', re.M)
_MODEL_TYPE = re.compile(r'model_type\s*==\s*["\'](gemma[\w]*)["\']')


@record
class CheckoutCaps:
    root: Path
    core_version: str | None = None
    transformers_spec: str | None = None  # ltx-core's requirement, e.g. ">=5.8.0,<5.15"
    transformers_locked: str | None = None  # uv.lock
    transformers_installed: str | None = None  # the checkout's .venv
    source_read: bool = False  # ltx-core's source was found and read
    v2_text_path: bool = False
    gemma_types: tuple[str, ...] = ()
    gemma_source_rule: bool = False
    rope_local_only: bool = False

    def loads(self) -> str:
        """ "LTX-2 19B, LTX-2.3 22B, LTX-2.5 (Gemma 3, Gemma 4)"-style summary of what it loads."""
        if not self.source_read:
            return "unknown (ltx-core's source not found)"
        models = ["LTX-2 19B"] + (["LTX-2.3 22B"] if self.v2_text_path else [])
        models += ["LTX-2.5"] if self.gemma_source_rule else []
        kinds = ", ".join(sorted({_gemma_name(t) for t in self.gemma_types}))
        return f"{', '.join(models)} (text encoders: {kinds})"

    def describe(self) -> str:
        core = f"ltx-core {self.core_version}" if self.core_version else "ltx-core (no version)"
        tf = [
            f"pins transformers{self.transformers_spec}" if self.transformers_spec else None,
            f"uv.lock {self.transformers_locked}" if self.transformers_locked else None,
            f".venv holds {self.transformers_installed}"
            if self.transformers_installed
            else ".venv holds no transformers",
        ]
        return f"{core}, loads {self.loads()}; " + ", ".join(t for t in tf if t)


def _gemma_name(model_type: str) -> str:
    return "Gemma 4" if model_type.startswith("gemma4") else "Gemma 3"


def _read(path: Path, what: str, limit: int = MAX_FILE_BYTES) -> str | None:
    try:
        return read_text(path, what=what, limit=limit)
    except (WizardError, OSError):
        return None


def core_version(root: Path) -> str | None:
    """ltx-core's version, from its pyproject.toml (None when unreadable)."""
    found = _VERSION.search(_read(Path(root) / CORE_REL / "pyproject.toml", "ltx-core pyproject.toml") or "")
    return found.group(1) if found else None


def installed_version(root: Path, package: str) -> str | None:
    """The version of `package` in the checkout's .venv, from its dist-info folder's name."""
    venv = Path(root) / ".venv"
    prefix = package.replace("-", "_").lower() + "-"
    try:
        for site in sorted(venv.glob("lib/python*/site-packages")):
            for entry in site.iterdir():
                name = entry.name.lower()
                if name.startswith(prefix) and name.endswith(".dist-info"):
                    return entry.name[len(prefix) : -len(".dist-info")]
    except OSError:
        return None
    return None


def _scan_source(src: Path) -> str:
    """The text of ltx-core's files that hold the markers (bounded)."""
    parts: list[str] = []
    for sub in SCANNED:
        folder = src / sub
        if not folder.is_dir():
            continue
        for path in sorted(folder.rglob("*.py"))[:MAX_FILES]:
            text = _read(path, "ltx-core source")
            if text is not None:
                parts.append(text)
    return "\n".join(parts)


def read_caps(root: str | Path) -> CheckoutCaps:
    """Everything above, from the checkout at `root`; what cannot be read stays unknown."""
    root = Path(root)
    pyproject = _read(root / CORE_REL / "pyproject.toml", "ltx-core pyproject.toml") or ""
    version = _VERSION.search(pyproject)
    pin = _TRANSFORMERS_PIN.search(pyproject)
    lock = _read(root / "uv.lock", "uv.lock", limit=16 * 2**20) or ""
    locked = _LOCKED.search(lock)
    source = _scan_source(root / CORE_SRC_REL)
    types = tuple(sorted(set(_MODEL_TYPE.findall(source))))
    return CheckoutCaps(
        root=root,
        core_version=version.group(1) if version else None,
        transformers_spec=pin.group(1).strip() if pin else None,
        transformers_locked=locked.group(1) if locked else None,
        transformers_installed=installed_version(root, "transformers"),
        source_read=bool(source),
        v2_text_path="caption_proj_before_connector" in source,
        # releases whose encoder code compares no model_type build Gemma 3 alone
        gemma_types=types or (("gemma3",) if source else ()),
        gemma_source_rule="gemma_source_checkpoint" in source,
        rope_local_only="rope_local_base_freq" in source and "rope_parameters" not in source,
    )
