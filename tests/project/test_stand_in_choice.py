"""The stand-in (core/base/stand_in.py StandIns) is chosen once, at start-up: cli.py for a command,
the App's start for the TUI, both through demo/sim/stand_in.py choose_stand_ins, and handed down
as a value. The same inputs choose the same stand-in either way; nothing else chooses one; and the
TUI imports no command module (the Results screen once chose its own through commands/eval_plan.py)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "ltx_wizard"
CHOOSER = PACKAGE / "demo" / "sim" / "stand_in.py"
STARTS = {PACKAGE / "cli.py", PACKAGE / "tui" / "app.py"}  # the two start-ups


def _calls(tree: ast.AST, name: str) -> int:
    def called(node: ast.Call) -> str | None:
        f = node.func
        return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None

    return sum(1 for n in ast.walk(tree) if isinstance(n, ast.Call) and called(n) == name)


def _imported_names(tree: ast.AST) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
    return found


def _sources() -> dict[Path, ast.AST]:
    return {p: ast.parse(p.read_text(encoding="utf-8")) for p in sorted(PACKAGE.rglob("*.py"))}


def test_nothing_but_the_two_start_ups_chooses_a_stand_in():
    builds, choices = [], []
    for path, tree in _sources().items():
        rel = str(path.relative_to(ROOT))
        if path != CHOOSER and (_calls(tree, "SimulatedTrainer") or _calls(tree, "stand_in_for")):
            builds.append(rel)
        if path != CHOOSER and any(n.endswith(".SimulatedTrainer") for n in _imported_names(tree)):
            builds.append(rel)
        if _calls(tree, "choose_stand_ins"):
            choices.append(rel)
    assert builds == []
    assert sorted(choices) == sorted(str(p.relative_to(ROOT)) for p in STARTS)
    assert _calls(ast.parse(CHOOSER.read_text(encoding="utf-8")), "choose_stand_ins") == 0


def test_no_tui_module_imports_a_command_module():
    found = [
        f"{path.relative_to(ROOT)}: {name}"
        for path, tree in _sources().items()
        if path.is_relative_to(PACKAGE / "tui")
        for name in sorted(_imported_names(tree))
        if name == "ltx_wizard.commands" or name.startswith("ltx_wizard.commands.")
    ]
    assert found == []
    contracts = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'id = "tui-not-commands"' in contracts  # lint-imports holds it too (test_core_purity)


def _described(stand_in) -> tuple | None:
    if stand_in is None:
        return None
    return (type(stand_in).__name__, stand_in.preset, stand_in.time_scale, dict(stand_in.env))


def _cli_choice(argv: list[str], monkeypatch) -> object:
    """What cli.main hands a command: the probe command's run is replaced by one that keeps it."""
    from ltx_wizard import cli
    from ltx_wizard.commands import probe

    seen = []
    monkeypatch.setattr(probe, "run", lambda args: seen.append(args.stand_ins) or 0)
    assert cli.main(argv) == 0
    return seen[0]


@pytest.mark.parametrize("gpus", [["--simulate", "8xh100"], ["--simulate", "rtx5090"], []])
def test_the_same_inputs_choose_the_same_stand_in_in_the_cli_and_the_tui(gpus, monkeypatch):
    from ltx_wizard.cli import build_parser, make_app
    from ltx_wizard.demo.sim.stand_in import GPU_ENV

    command = _cli_choice([*gpus, "probe"], monkeypatch)
    app = make_app(build_parser(gpus).parse_args(gpus))
    assert _described(command.chosen) == _described(app.stand_ins.chosen)
    assert (_described(command.chosen) is None) == (not gpus)
    # a run recorded as planned on simulated GPUs: resumed on the preset its launch recorded
    for launch_env in ({GPU_ENV: "a6000"}, {}):
        cli_run = command.for_simulated_run(launch_env)
        tui_run = app.stand_ins.for_simulated_run(launch_env)
        assert _described(cli_run) == _described(tui_run) is not None
        if not gpus:
            assert cli_run.preset == (launch_env.get(GPU_ENV) or "h100")


def test_the_demo_chooses_the_demo_preset_once():
    from ltx_wizard.cli import make_app
    from ltx_wizard.demo import DEMO_PRESET

    app = make_app(None, demo=True)
    assert app.stand_ins.chosen is not None and app.stand_ins.chosen.preset == DEMO_PRESET
