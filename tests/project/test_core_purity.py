"""The core must import without textual, rich, torch or accelerate (a fresh interpreter proves it)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

FORBIDDEN = {"textual", "rich", "torch", "accelerate"}
ROOT = Path(__file__).resolve().parents[2]


def test_every_core_module_is_pure():
    code = (
        "import importlib, json, pkgutil, sys\n"
        "import ltx_wizard.core as core\n"
        "names = [m.name for m in pkgutil.walk_packages(core.__path__, 'ltx_wizard.core.')]\n"
        "for name in names: importlib.import_module(name)\n"
        "print(json.dumps({'modules': names, 'loaded': sorted({m.split('.')[0] for m in sys.modules})}))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    data = json.loads(out)
    assert "ltx_wizard.core.gpu.probe" in data["modules"]
    assert not FORBIDDEN & set(data["loaded"]), FORBIDDEN & set(data["loaded"])


def test_headless_cli_does_not_load_the_tui():
    code = (
        "import sys\n"
        "from ltx_wizard.cli import build_parser\n"
        "build_parser()\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'textual','rich','torch','accelerate'}))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


def test_import_contracts_hold(tmp_path):
    # The static form of the rule above (pyproject.toml [tool.importlinter]): it also sees
    # imports inside functions, which the run-time check cannot. The project's contracts read
    # run-time imports only; the core's hold for its TYPE_CHECKING imports too (a second run).
    config = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    typed = tmp_path / "typed.toml"
    # ... and no circle runs through the core even by a type-only import (the TUI's screens and
    # App name each other for types on purpose, so this one is the core's alone)
    core_circles = (
        '\n[[tool.importlinter.contracts]]\nid = "core-no-circles"\nname = "no circles in the core"\n'
        'type = "acyclic_siblings"\nancestors = ["ltx_wizard.core"]\n'
    )
    typed.write_text(
        config.replace("exclude_type_checking_imports = true", "exclude_type_checking_imports = false")
        + core_circles,
        encoding="utf-8",
    )
    assert typed.read_text(encoding="utf-8") != config
    core = ("pure-core", "core-layers", "autotune-wings", "core-no-circles")
    code = (
        "import sys; from importlinter.cli import lint_imports; "
        f"sys.exit(lint_imports(no_cache=True) or lint_imports({str(typed)!r}, {core!r}, "
        "no_cache=True))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert done.stdout.count("0 broken") == 2


def _demo_imports(path: Path) -> list[str]:
    import ast

    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = (
            [a.name for a in node.names]
            if isinstance(node, ast.Import)
            else [f"{node.module}.{a.name}" for a in node.names]
            if isinstance(node, ast.ImportFrom) and node.module
            else []
        )
        found += [n for n in names if n.startswith("ltx_wizard.demo")]
    return found


def test_production_core_imports_nothing_of_the_demo_package():
    # Also inside functions and under TYPE_CHECKING, which the run-time check above cannot see:
    # the look-alikes build from the real checkout's constants (checkout.py), never the reverse.
    core = ROOT / "ltx_wizard" / "core"
    offenders = {str(p.relative_to(core)): _demo_imports(p) for p in core.rglob("*.py")}
    assert {k: v for k, v in offenders.items() if v} == {}


def test_look_alikes_simulator_and_demo_builder_live_outside_the_core():
    core = ROOT / "ltx_wizard" / "core"
    demo = ROOT / "ltx_wizard" / "demo"
    assert not list(core.glob("lookalike_*.py")) and not (core / "sim").exists()
    assert not (core / "demo.py").exists()
    assert {p.name for p in demo.glob("lookalike_*.py")} == {
        "lookalike_checkout.py",
        "lookalike_models.py",
        "lookalike_recipes.py",
        "lookalike_media.py",
        "lookalike_latents.py",
        "lookalike_layouts.py",
        "lookalike_pipelines.py",
        "lookalike_raw_clips.py",
        "lookalike_prepare_scripts.py",
        "lookalike_caption_scripts.py",
    }
    assert (demo / "sim" / "trainer.py").is_file() and (demo / "builder.py").is_file()


def test_the_core_knows_nothing_of_the_simulator():
    # The demo injects its trainer command and memory readings (core/base/stand_in.py): no module
    # name, variable or file of the simulator appears in the core, not even in a string.
    core = ROOT / "ltx_wizard" / "core"
    marks = ("ltx_wizard.demo", "LTX_WIZARD_SIM", ".sim-vram", "demo/sim", "sim_env", "sim_speed")
    found = {
        str(p.relative_to(core)): [m for m in marks if m in p.read_text(encoding="utf-8")]
        for p in core.rglob("*.py")
    }
    assert {k: v for k, v in found.items() if v} == {}
