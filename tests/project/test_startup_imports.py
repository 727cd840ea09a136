"""What start-up imports: the wizard's first screen and `--version` must not wait for heavy modules.

Each check runs in a fresh interpreter (an import already made by another test would hide one).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HEAVY = (
    "torch",
    "accelerate",
    "pydantic",
    "ruamel",
    "ltx_wizard.commands.plan",
    "ltx_wizard.commands.autotune",
    "ltx_wizard.core.plan.run_plan",
    "ltx_wizard.core.autotune",
)


def _loaded_after(code: str) -> set[str]:
    probe = code + "\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))\n"
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    return set(json.loads(out.strip().splitlines()[-1]))


def _heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY))


def test_parsing_the_wizards_own_options_imports_no_command_module():
    modules = _loaded_after(
        "from ltx_wizard.cli import build_parser\n"
        "args = build_parser(['--demo', '--simulate', 'a6000']).parse_args(['--demo', '--simulate', 'a6000'])\n"
        "assert args.command is None and args.demo\n"
    )
    assert _heavy(modules) == []
    assert not any(
        m.startswith("ltx_wizard.commands.") and m != "ltx_wizard.commands.common" for m in modules
    )


def test_a_command_imports_only_its_own_module():
    modules = _loaded_after(
        "from ltx_wizard.cli import build_parser\n"
        "args = build_parser(['probe', '--simulate', 'h100']).parse_args(['probe', '--simulate', 'h100'])\n"
        "assert args.command == 'probe'\n"
    )
    assert "ltx_wizard.commands.probe" in modules
    assert "ltx_wizard.commands.plan" not in modules and "ltx_wizard.commands.autotune" not in modules


def test_the_first_screen_is_built_without_pydantic_or_the_autotune_code():
    modules = _loaded_after(
        "from ltx_wizard.cli import make_app\n"
        "from ltx_wizard.tui.screens.probe import ProbeScreen\n"
        "make_app(None, simulate='a6000')\n"
    )
    assert _heavy(modules) == []


def test_a_presets_gpu_table_and_tier_are_shown_before_pydantic_is_imported():
    # The first useful screen: a simulated preset is probed on the loop, from plain dataclasses,
    # and the tier's levers sentence needs the autotune rules only (not its events or configs).
    modules = _loaded_after(
        "import asyncio\n"
        "from ltx_wizard.cli import make_app\n"
        "from ltx_wizard.tui.screens.probe import ProbeScreen\n"
        "async def shown():\n"
        "    app = make_app(None, simulate='a6000')\n"
        "    async with app.run_test() as pilot:\n"
        "        for _ in range(100):\n"
        "            if isinstance(app.screen, ProbeScreen) and app.screen.is_mounted:\n"
        "                break\n"
        "            await pilot.pause()\n"
        "        tier = str(app.screen.query_one('#tier').render())\n"
        "        assert 'Tier: 40–60GB tier' in tier and 'Autotune tries' in tier, tier\n"
        "        assert app.screen.query_one('#gpus').row_count == 1\n"
        "asyncio.run(shown())\n"
    )
    # the package and its rules modules are in (the levers sentence); pydantic and ruamel are not
    heavy = [m for m in _heavy(modules) if not m.startswith("ltx_wizard.core.autotune")]
    assert heavy == []
    assert (
        not {
            "ltx_wizard.core.tuning.results",
            "ltx_wizard.core.autotune.events",
            "ltx_wizard.core.tuning.trial_config",
            "ltx_wizard.core.autotune.sweep.engine",
        }
        & modules
    )


def test_version_is_answered_without_argparse():
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys\nfrom ltx_wizard.cli import main\ncode = main(['--version'])\n"
            "print('argparse' in sys.modules, code)",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    lines = result.stdout.strip().splitlines()
    assert lines[0].startswith("ltx-wizard ") and lines[1] == "False 0"


def test_the_real_entry_point_draws_its_first_screen_in_a_terminal(tmp_path):
    # Headless tests skip what only a real terminal runs (the terminal watch, signal handlers).
    import os
    import select
    import time

    master, slave = os.openpty()
    env = {**os.environ, "TERM": "xterm-256color", "TMPDIR": str(tmp_path)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "ltx_wizard", "--simulate", "a6000"],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        cwd=ROOT,
        start_new_session=True,
    )
    os.close(slave)
    seen, deadline = b"", time.monotonic() + 120  # generous: only turns a hang into a failure
    try:
        while b"Re-probe" not in seen and proc.poll() is None and time.monotonic() < deadline:
            if select.select([master], [], [], 1)[0]:
                try:
                    seen += os.read(master, 1 << 16)
                except OSError:
                    break
        assert b"Re-probe" in seen, seen[-2000:].decode("utf-8", "replace")
        os.write(master, b"\x11")  # ctrl+q
        assert proc.wait(60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)


def _plan_argv(demo, run_name: str, data_root: Path) -> list[str]:
    # benchmarks/bench_scale.py plan_case: the demo's inputs, planned for a simulated machine
    return [
        "plan",
        "--trainer-root",
        str(demo.checkout),
        "--checkpoint",
        str(demo.checkpoint),
        "--text-encoder",
        str(demo.text_encoder),
        "--data-root",
        str(data_root),
        "--workspace",
        str(demo.workspace),
        "--run-name",
        run_name,
        "--simulate",
        demo.simulate,
    ]


def _planned_modules(argv: list[str]) -> set[str]:
    return _loaded_after(
        "import contextlib, io, sys\n"
        "from ltx_wizard.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
        f"    assert main({argv!r}) == 0\n"
    )


def test_plan_writes_a_run_folder_without_importing_pydantic(tmp_path):
    # About 0.1 s of plan's 0.25 s budget (issue #24): the models on its path are dataclasses.
    from ltx_wizard.demo.builder import build_demo

    demo = build_demo(tmp_path)
    modules = _planned_modules(_plan_argv(demo, "quick", demo.data_root))
    assert (demo.workspace / "quick" / "run.json").is_file()
    assert "ltx_wizard.core.plan.run_plan" in modules
    assert not any(m == "pydantic" or m.startswith(("pydantic.", "pydantic_core")) for m in modules)


def test_plan_from_a_dataset_file_writes_preprocess_json_without_importing_pydantic(tmp_path):
    from ltx_wizard.demo.builder import build_demo

    demo = build_demo(tmp_path)
    modules = _planned_modules(_plan_argv(demo, "from-clips", demo.dataset_file))
    assert (demo.workspace / "from-clips" / "preprocess.json").is_file()
    assert not any(m == "pydantic" or m.startswith(("pydantic.", "pydantic_core")) for m in modules)
