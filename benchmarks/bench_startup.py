"""Start-up benchmark: the real `ltx-wizard` entry point against a bare Textual app, in a terminal.

Usage: .venv/bin/python benchmarks/bench_startup.py [--repeats 7] [--json]

Each run is a fresh process in a pseudo-terminal (benchmarks/ptyapp.py), timed from just before
it is started until a text of its first screen is read back from the pty, then quit with ctrl+q.
Two moments of each run: the first paint ("Re-probe", a button and a footer key) and the first
*useful* screen, the GPU table and tier filled (the tier's line, "Tier: 40–60GB tier  (48 GB per
GPU)"). After an untimed round (it writes the bytecode caches), measured, interleaved so machine
load hits all alike:
  - bare Textual: the probe screen's widgets (Header, a Static step bar, a VerticalScroll with a
    status Static, a DataTable, the tier and notes Statics, three Buttons, a Footer with the same
    keys), filled in on_mount with the same rows and texts: what Textual alone costs;
  - `ltx-wizard --demo` and `ltx-wizard --simulate a6000` (the console script, argument parsing
    included).
Also `ltx-wizard --version` (process wall time), and which modules the wizard had imported when it
drew the tier text (one extra run, with a hook on Textual's driver): torch and accelerate must not
be (pydantic is reported too).
Targets: wizard / bare <= 1.3x at the tier text (and so at first paint), --version < 60 ms,
no torch or accelerate.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ptyapp import PtyApp

from ltx_wizard.demo.builder import DEMO_PRESET

PRESET = DEMO_PRESET  # --simulate the preset --demo uses: every case shows the same screen
FIRST_PAINT = "Re-probe"

# The wizard's probe screen with Textual's own widgets and the layout rules of app.tcss that
# place them; its texts come in as JSON (argv[1]), computed by the wizard's core (screen_texts).
BARE = r"""
import json, sys
from rich.text import Text
from textual.app import App
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, DataTable, Footer, Header, Static
T = json.loads(sys.argv[1])
class Bare(App):
    CSS = '''
    #steps { height: 1; padding: 0 1; background: $panel; }
    #body { height: 1fr; padding: 0 1; }
    .actions { height: 3; dock: bottom; padding: 0 1; margin-bottom: 1; }
    .actions Button { margin-right: 1; }
    #probe-status { margin-top: 1; }
    #gpus { height: auto; max-height: 10; margin: 1 0; }
    #tier, #notes { height: auto; }
    '''
    TITLE = T["title"]
    BINDINGS = [Binding("ctrl+q", "quit", "Quit", priority=True), Binding("f1", "help", "Help"),
                Binding("ctrl+n", "next", "Continue"), Binding("ctrl+r", "reprobe", "Re-probe")]
    def compose(self):
        yield Header()
        yield Static(Text(T["steps"]), id="steps")
        with VerticalScroll(id="body"):
            yield Static("Probing GPUs…", id="probe-status")
            yield DataTable(id="gpus", cursor_type="none", show_cursor=False)
            yield Static("", id="tier")
            yield Static("", id="notes")
        with Horizontal(classes="actions"):
            yield Button("Continue", id="continue", variant="primary")
            yield Button("Re-probe", id="reprobe")
            yield Button("Quit", id="quit")
        yield Footer()
    def on_mount(self):
        self.query_one("#probe-status").update(T["status"])
        table = self.query_one(DataTable)
        table.add_columns("#", "GPU", "Memory", "Nominal")
        for row in T["rows"]:
            table.add_row(*row)
        self.query_one("#tier").update(Text(T["tier"]))
        self.query_one("#notes").update(Text(T["notes"]))
        self.query_one("#continue").focus()
Bare().run()
"""

FORBIDDEN = ("torch", "accelerate")
TARGET_RATIO, TARGET_VERSION_MS = 1.3, 60.0


def screen_texts() -> dict:
    """What the wizard's probe screen shows for PRESET, from the wizard's own core (in this
    process, outside any timing): the bare app draws the same rows and texts."""
    from ltx_wizard.core.gpu.assessment import assess
    from ltx_wizard.core.tuning.rules_text import levers_sentence
    from ltx_wizard.core.gpu.presets import simulated_probe
    from ltx_wizard.core.gpu.tiers import nominal_gb
    from ltx_wizard.core.base.units import bytes_to_gib, gib
    from ltx_wizard.tui.widgets.steps import PHASES

    a = assess(simulated_probe(PRESET))
    tier_line = f"Tier: {a.tier.display_name}  ({a.per_gpu_vram_gb} GB per GPU)"
    return {
        "title": "LTX-2 training wizard",
        "steps": " › ".join(f"[{n} {p}]" if n == 1 else f"{n} {p}" for n, p in enumerate(PHASES, start=1)),
        "status": f"{len(a.probe.gpus)} GPU visible to training (source: {a.probe.source})",
        "rows": [
            (
                str(g.index),
                g.name,
                gib(bytes_to_gib(g.memory_total_bytes)),
                f"{nominal_gb(g.memory_total_bytes)} GB",
            )
            for g in a.probe.gpus
        ],
        "tier_line": tier_line,
        "tier": "\n".join(
            [tier_line, f"Base config: {a.policy.base_config}", a.policy.summary, levers_sentence(a.tier)]
        ),
        "notes": "".join(f"• {note}\n" for note in a.notes),
    }


def entry_point() -> list[str]:
    script = Path(sys.executable).with_name("ltx-wizard")
    return [str(script)] if script.exists() else [sys.executable, "-m", "ltx_wizard"]


def cases(texts: dict) -> dict[str, list[str]]:
    wizard = entry_point()
    return {
        "bare textual": [sys.executable, "-c", BARE, json.dumps(texts)],
        "ltx-wizard --demo": [*wizard, "--demo"],
        f"ltx-wizard --simulate {PRESET}": [*wizard, "--simulate", PRESET],
    }


def screen_times(argv: list[str], tier_line: str, env: dict[str, str]) -> tuple[float, float]:
    """Seconds from the start to the first paint and to the tier text."""
    app = PtyApp(argv, env=env, size=(120, 40))
    try:
        tier = app.wait_for(tier_line, timeout=60)
        painted = app.wait_for(FIRST_PAINT, timeout=1)  # drawn by then: only looked up
        if tier is None or painted is None:
            raise RuntimeError(f"{' '.join(argv[:3])}: the tier text never appeared")
        app.send(b"\x11")  # ctrl+q
        try:
            app.proc.wait(10)
        except subprocess.TimeoutExpired:
            pass
        return painted - app.started, tier - app.started
    finally:
        app.close()


# The wizard's main(), with every module it had imported written out when it hands Textual's
# driver the frame with the tier text (what --demo's worker imports after that is not counted):
# Textual draws on stderr, so -X importtime cannot be read from the pty.
RECORD = r"""
import os, re, sys
from textual.drivers.linux_driver import LinuxDriver
write = LinuxDriver.write
marker, out = os.environ["LTX_BENCH_MARKER"], os.environ["LTX_BENCH_MODULES"]
def recording(self, data):
    if not os.path.exists(out) and marker in re.sub(r"\x1b\[[0-?]*[ -/]*[@-~]", "", data):
        open(out, "w").write("\n".join(sys.modules))
    return write(self, data)
LinuxDriver.write = recording
from ltx_wizard.cli import main
sys.exit(main(sys.argv[1:]))
"""


def imported_modules(args: list[str], tier_line: str, env: dict[str, str], tmp: Path) -> set[str]:
    out = tmp / "modules.txt"
    screen_times(
        [sys.executable, "-c", RECORD, *args],
        tier_line,
        {**env, "LTX_BENCH_MODULES": str(out), "LTX_BENCH_MARKER": tier_line},
    )
    return set(out.read_text().split()) if out.exists() else set()


def version_ms(repeats: int) -> tuple[float, float]:
    """`ltx-wizard --version`, and beside it the floor: this Python running the console script's
    own first line (`import re`), so a loaded machine shows up in both."""
    ours, floor = [], []
    for _ in range(repeats):
        for argv, samples in (
            ([*entry_point(), "--version"], ours),
            ([sys.executable, "-c", "import re"], floor),
        ):
            t0 = time.perf_counter()
            subprocess.run(argv, capture_output=True, check=True)
            samples.append((time.perf_counter() - t0) * 1000)
    return statistics.median(ours), statistics.median(floor)


def summarize(runs: dict[str, list[tuple[float, float]]]) -> dict[str, dict]:
    """Per case and moment: median and max in ms, and the median's ratio to the bare app's."""
    base = {
        m: statistics.median(r[i] for r in runs["bare textual"])
        for i, m in enumerate(("first_paint", "tier_text"))
    }
    results: dict[str, dict] = {}
    for name, samples in runs.items():
        results[name] = {}
        for i, moment in enumerate(("first_paint", "tier_text")):
            values = [s[i] for s in samples]
            results[name][moment] = {
                "median_ms": round(statistics.median(values) * 1000, 1),
                "max_ms": round(max(values) * 1000, 1),
                "ratio": round(statistics.median(values) / base[moment], 2),
            }
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args(argv)
    texts = screen_texts()
    tmp = Path(tempfile.mkdtemp(prefix="ltx-bench-startup-"))
    # --demo builds its look-alike files in TMPDIR (removed at the end). Bytecode is cached as a
    # user's Python caches it (textual's came with its install), even where the caller's
    # environment says PYTHONDONTWRITEBYTECODE; the untimed first round writes it.
    env = {"TMPDIR": str(tmp), "PYTHONDONTWRITEBYTECODE": ""}
    try:
        for cmd in cases(texts).values():
            screen_times(cmd, texts["tier_line"], env)
        runs: dict[str, list[tuple[float, float]]] = {name: [] for name in cases(texts)}
        for _ in range(args.repeats):  # interleaved, so machine load hits all alike
            for name, cmd in cases(texts).items():
                runs[name].append(screen_times(cmd, texts["tier_line"], env))
        version, floor = version_ms(max(args.repeats, 11))
        wizard_modules = imported_modules(["--demo"], texts["tier_line"], env, tmp)
        if not wizard_modules:
            raise RuntimeError("could not list the modules the wizard imported")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    results = summarize(runs)
    heavy = sorted(m for m in wizard_modules if m.split(".")[0] in FORBIDDEN)
    ok = (
        all(
            r[m]["ratio"] <= TARGET_RATIO
            for n, r in results.items()
            if n != "bare textual"
            for m in ("first_paint", "tier_text")
        )
        and version < TARGET_VERSION_MS
        and not heavy
    )
    if args.json:
        print(
            json.dumps(
                {
                    "startup": results,
                    "version_ms": round(version, 1),
                    "python_floor_ms": round(floor, 1),
                    "forbidden_imported": heavy,
                    "pydantic_imported": "pydantic" in wizard_modules,
                    "repeats": args.repeats,
                    "targets_met": ok,
                }
            )
        )
        return 0 if ok else 1
    print(f"{'process start -> text on screen':<30} {'first paint':>24}   {'tier text':>24}")
    print(f"{'':<30} {'median':>8} {'max':>7} {'ratio':>7}   {'median':>8} {'max':>7} {'ratio':>7}")
    for name, r in results.items():
        cells = "   ".join(
            f"{r[m]['median_ms']:>5.0f} ms {r[m]['max_ms']:>4.0f} ms {r[m]['ratio']:>6.2f}x"
            for m in ("first_paint", "tier_text")
        )
        print(f"{name:<30} {cells}")
    print(f"{'ltx-wizard --version (wall)':<30} {version:>5.0f} ms  (target < {TARGET_VERSION_MS:.0f} ms)")
    floor_name = "  floor: python -c 'import re'"
    print(f"{floor_name:<30} {floor:>5.0f} ms")
    for name in (*FORBIDDEN, "pydantic"):
        hit = any(m.split(".")[0] == name for m in wizard_modules)
        print(f"{name} imported by the tier text: {'YES' if hit else 'no'}")
    print(
        f"({args.repeats} repeats each, interleaved, in a 120x40 pty; target: wizard / bare "
        f"<= {TARGET_RATIO}x at both moments; targets {'met' if ok else 'NOT met'})"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
