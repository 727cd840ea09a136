"""The shipped layouts of the LTX-2 monorepo, as small look-alikes: what each release of ltx-core
says about the models it can load, in the places the wizard reads at run time.

Facts per layout (read off the public repository's history; no trainer text is copied):

* "1.0" (ltx-core 1.0.x, January 2026): LTX-2 19B only (the text projection lives in the
  transformer), Gemma 3 only, the Gemma rope read as `rope_local_base_freq` alone (transformers 4),
  pins `transformers~=4.57.0`, ships uv.lock.
* "1.1" (ltx-core 1.1.x, March to July 2026): adds the 22B text path of LTX-2.3
  (`caption_proj_before_connector`), still Gemma 3 only, rope read either way, pins
  `transformers>=4.52`, ships uv.lock.
* "1.2" (ltx-core 1.2.0, August 2026): adds LTX-2.5 (`gemma_source_checkpoint`, Gemma 4 and its
  unified form), pins `transformers>=5.8.0,<5.15`, ships no uv.lock (uv sync writes one).

`write_layout` writes the ltx-core and ltx-trainer package files of one layout into a look-alike
checkout; `synced` adds the lock and the environment `uv sync` leaves (a transformers dist-info).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Layout:
    core_version: str
    transformers_spec: str
    locked: str  # the transformers version uv.lock pins after a sync
    v2_text_path: bool
    gemma_types: tuple[str, ...]  # the model_type values the encoder code compares against
    gemma_source: bool
    rope_fallback: bool
    ships_lock: bool


LAYOUTS = {
    "1.0": Layout("1.0.0", "~=4.57.0", "4.57.6", False, (), False, False, True),
    "1.1": Layout("1.1.7", ">=4.52", "4.57.6", True, (), False, True, True),
    "1.2": Layout(
        "1.2.0", ">=5.8.0,<5.15", "5.14.1", True, ("gemma3", "gemma4", "gemma4_unified"), True, True, False
    ),
}
LATEST = "1.2"
CORE_SRC = Path("packages/ltx-core/src/ltx_core")


def _core_pyproject(layout: Layout) -> str:
    return (
        "# Look-alike of packages/ltx-core/pyproject.toml (ltx-wizard tests and demo)\n"
        "[project]\n"
        'name = "ltx-core"\n'
        f'version = "{layout.core_version}"\n'
        "dependencies = [\n"
        '    "torch~=2.7",\n'
        "    # the wizard reads this pin against the environment's transformers\n"
        f'    "transformers{layout.transformers_spec}",\n'
        '    "safetensors",\n'
        "]\n"
    )


def _encoder_source(layout: Layout) -> str:
    lines = [
        '"""Look-alike of the Gemma encoder code: the facts the wizard reads, nothing else."""',
        "",
        "",
        "def builder_for(config):",
    ]
    for kind in layout.gemma_types:
        lines.append(f'    if config.model_type == "{kind}":')
        lines.append(f'        return "{kind}"')
    if layout.gemma_source:
        lines.append('    source = config.metadata.get("gemma_source_checkpoint")')
    if layout.rope_fallback:
        lines.append('    return getattr(config, "rope_parameters", None) or config.rope_local_base_freq')
    else:
        lines.append("    return config.rope_local_base_freq")
    return "\n".join(lines) + "\n"


def _transformer_source(layout: Layout) -> str:
    text = '"""Look-alike of the transformer configurator."""\n\n\ndef projections(config):\n'
    if layout.v2_text_path:
        text += '    if config.get("caption_proj_before_connector", False):\n        return None\n'
    return text + '    return "in the transformer"\n'


def lock_text(layout: Layout) -> str:
    return (
        "# Look-alike of uv.lock\nversion = 1\n\n"
        '[[package]]\nname = "safetensors"\nversion = "0.5.3"\n\n'
        f'[[package]]\nname = "transformers"\nversion = "{layout.locked}"\n'
        'source = { registry = "https://pypi.org/simple" }\n'
        f'wheels = [\n    {{ url = "https://files.example/transformers-{layout.locked}-py3-none-any.whl",'
        " size = 11534336 },\n]\n"
    )


def write_venv_package(root: Path, name: str, version: str) -> Path:
    """A package's dist-info as pip and uv leave it in the checkout's .venv."""
    site = root / ".venv" / "lib" / "python3.11" / "site-packages"
    info = site / f"{name}-{version}.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", encoding="utf-8"
    )
    return info


def write_layout(root: Path, name: str = LATEST, *, synced: bool = True) -> Path:
    layout = LAYOUTS[name]
    core = root / CORE_SRC
    (core / "text_encoders" / "gemma").mkdir(parents=True, exist_ok=True)
    (core / "model" / "transformer").mkdir(parents=True, exist_ok=True)
    (root / "packages" / "ltx-core" / "pyproject.toml").write_text(_core_pyproject(layout), "utf-8")
    (core / "__init__.py").write_text("", "utf-8")
    (core / "text_encoders" / "gemma" / "encoders.py").write_text(_encoder_source(layout), "utf-8")
    (core / "model" / "transformer" / "model_configurator.py").write_text(
        _transformer_source(layout), "utf-8"
    )
    trainer_src = root / "packages" / "ltx-trainer" / "src" / "ltx_trainer"
    trainer_src.mkdir(parents=True, exist_ok=True)
    (trainer_src / "__init__.py").write_text('"""Look-alike ltx_trainer package."""\n', "utf-8")
    (root / "packages" / "ltx-trainer" / "pyproject.toml").write_text(
        f'[project]\nname = "ltx-trainer"\nversion = "{layout.core_version}"\n', "utf-8"
    )
    lock = root / "uv.lock"
    if synced or layout.ships_lock:
        lock.write_text(lock_text(layout), "utf-8")
    if synced:
        write_venv_package(root, "transformers", layout.locked)
    return root
