"""Start-up benchmark: time to the first interactive screen, the wizard against a bare Textual app.

Usage: .venv/bin/python benchmarks/bench_startup.py [--repeats 7]

Each repeat is a fresh interpreter (no warm imports). "first screen" is measured inside it from
before the first import until the first screen is mounted and its first worker has reported (for
the wizard: the probe, on --simulate h100, so no driver is touched); headless via run_test, so
terminal I/O is the same for both. Both apps run side by side in the same benchmark run, and the
table gives medians and the wizard/bare ratio. It also lists what the wizard imported at start
and fails if torch or accelerate is among them.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time

WIZARD = r"""
import time; t0 = time.perf_counter()
import asyncio, json, sys
from ltx_wizard.tui.app import WizardApp, WizardOptions
async def main():
    app = WizardApp(WizardOptions.from_args(None, simulate="h100", cursor_blink=False))
    async with app.run_test(size=(80, 24)) as pilot:
        while app.state.assessment is None or type(app.screen).__name__ != "ProbeScreen":
            await pilot.pause(0.001)
        await pilot.pause()
        t1 = time.perf_counter()
    print(json.dumps({"first_screen_s": t1 - t0, "modules": sorted(sys.modules)}))
asyncio.run(main())
"""

BARE = r"""
import time; t0 = time.perf_counter()
import asyncio, json, sys
from textual.app import App
from textual.widgets import Footer, Header, Static
class Bare(App):
    def compose(self):
        yield Header(); yield Static("hello"); yield Footer()
async def main():
    app = Bare()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        t1 = time.perf_counter()
    print(json.dumps({"first_screen_s": t1 - t0, "modules": sorted(sys.modules)}))
asyncio.run(main())
"""

FORBIDDEN = ("torch", "accelerate")


def run_once(code: str) -> tuple[float, float, list[str]]:
    started = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    wall = time.perf_counter() - started
    data = json.loads(out.stdout.strip().splitlines()[-1])
    return data["first_screen_s"], wall, data["modules"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="wizard vs bare Textual start-up")
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args(argv)
    results: dict[str, list[tuple[float, float]]] = {"bare textual": [], "ltx-wizard": []}
    modules: list[str] = []
    bare_modules: list[str] = []
    for _ in range(args.repeats):  # interleaved, so machine load hits both alike
        first, wall, bare_modules = run_once(BARE)
        results["bare textual"].append((first, wall))
        first, wall, modules = run_once(WIZARD)
        results["ltx-wizard"].append((first, wall))
    base_first = statistics.median(f for f, _ in results["bare textual"])
    base_wall = statistics.median(w for _, w in results["bare textual"])
    print(f"{'app':<14} {'first screen (median)':>22} {'process wall (median)':>22} {'ratio':>7}")
    for name, runs in results.items():
        first = statistics.median(f for f, _ in runs)
        wall = statistics.median(w for _, w in runs)
        print(f"{name:<14} {first * 1000:>19.0f} ms {wall * 1000:>19.0f} ms {first / base_first:>6.2f}x")
    print(f"(process wall ratio {statistics.median(w for _, w in results['ltx-wizard']) / base_wall:.2f}x; "
          f"{args.repeats} repeats each, interleaved)")
    ours = sorted({m.split(".")[0] for m in set(modules) - set(bare_modules)})
    print(f"modules imported at start: {len(modules)} (bare Textual: {len(bare_modules)}); "
          f"top-level packages beyond bare Textual: {', '.join(ours)}")
    bad = [m for m in modules if m.split(".")[0] in FORBIDDEN]
    for name in FORBIDDEN:
        print(f"{name} imported at start: {'YES' if any(m.split('.')[0] == name for m in bad) else 'no'}")
    if bad:
        print(f"FAIL: heavy modules imported at start: {', '.join(sorted(bad)[:10])}")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
