"""Start-up benchmark: the real `ltx-wizard` entry point against a bare Textual app, in a terminal.

Usage: .venv/bin/python benchmarks/bench_startup.py [--repeats 7] [--json]

Each run is a fresh process in a pseudo-terminal (benchmarks/ptyapp.py), timed from just before
it is started until its first screen reaches the terminal (a text of that screen is read back from
the pty), then quit with ctrl+q. Measured, interleaved so machine load hits all alike:
  - bare Textual: Header, Static, DataTable, Footer (what any Textual app costs);
  - `ltx-wizard --demo` and `ltx-wizard --simulate a6000` (the console script, argument parsing
    included), first screen = the probe screen drawn.
Also `ltx-wizard --version` (process wall time), and which modules the wizard imported by its
first screen (one extra run each with PYTHONPROFILEIMPORTTIME): torch and accelerate must not be.
Targets: wizard / bare <= 1.3x, --version < 60 ms, no torch or accelerate.
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

from ptyapp import PtyApp  # noqa: E402

BARE = r"""
from textual.app import App
from textual.widgets import DataTable, Footer, Header, Static
class Bare(App):
    def compose(self):
        yield Header(); yield Static("bare-ready"); yield DataTable(); yield Footer()
    def on_mount(self):
        self.query_one(DataTable).add_columns("#", "GPU", "Memory")
Bare().run()
"""

FORBIDDEN = ("torch", "accelerate")
TARGET_RATIO, TARGET_VERSION_MS = 1.3, 60.0


def entry_point() -> list[str]:
    script = Path(sys.executable).with_name("ltx-wizard")
    return [str(script)] if script.exists() else [sys.executable, "-m", "ltx_wizard"]


def cases() -> dict[str, tuple[list[str], str]]:
    wizard = entry_point()
    return {
        "bare textual": ([sys.executable, "-c", BARE], "bare-ready"),
        "ltx-wizard --demo": ([*wizard, "--demo"], "Re-probe"),
        "ltx-wizard --simulate a6000": ([*wizard, "--simulate", "a6000"], "Re-probe"),
    }


def first_screen_s(argv: list[str], marker: str, env: dict[str, str]) -> float:
    app = PtyApp(argv, env=env, size=(120, 40))
    try:
        seen = app.wait_for(marker, timeout=60)
        if seen is None:
            raise RuntimeError(f"{' '.join(argv)}: the first screen never appeared")
        app.send(b"\x11")  # ctrl+q
        try:
            app.proc.wait(10)
        except subprocess.TimeoutExpired:
            pass
        return seen - app.started
    finally:
        app.close()


# The wizard's main(), with every module it imported written out when it exits (after its first
# screen and ctrl+q): Textual draws on stderr, so -X importtime cannot be read from the pty.
RECORD = r"""
import atexit, os, sys
atexit.register(lambda: open(os.environ["LTX_BENCH_MODULES"], "w").write("\n".join(sys.modules)))
from ltx_wizard.cli import main
sys.exit(main(sys.argv[1:]))
"""


def imported_modules(args: list[str], env: dict[str, str], tmp: Path) -> set[str]:
    out = tmp / "modules.txt"
    first_screen_s([sys.executable, "-c", RECORD, *args], "Re-probe",
                   {**env, "LTX_BENCH_MODULES": str(out)})
    return set(out.read_text().split()) if out.exists() else set()


def version_ms(repeats: int) -> tuple[float, float]:
    """`ltx-wizard --version`, and beside it the floor: this Python running the console script's
    own first line (`import re`), so a loaded machine shows up in both."""
    ours, floor = [], []
    for _ in range(repeats):
        for argv, samples in (([*entry_point(), "--version"], ours),
                              ([sys.executable, "-c", "import re"], floor)):
            t0 = time.perf_counter()
            subprocess.run(argv, capture_output=True, check=True)
            samples.append((time.perf_counter() - t0) * 1000)
    return statistics.median(ours), statistics.median(floor)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="ltx-bench-startup-"))
    env = {"TMPDIR": str(tmp)}  # --demo builds its look-alike files here; removed at the end
    try:
        runs: dict[str, list[float]] = {name: [] for name in cases()}
        for _ in range(args.repeats):  # interleaved, so machine load hits all alike
            for name, (cmd, marker) in cases().items():
                runs[name].append(first_screen_s(cmd, marker, env))
        version, floor = version_ms(max(args.repeats, 11))
        wizard_modules = imported_modules(["--demo"], env, tmp)
        if not wizard_modules:
            raise RuntimeError("could not list the modules the wizard imported")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    base = statistics.median(runs["bare textual"])
    results = {
        name: {"median_ms": round(statistics.median(v) * 1000, 1), "max_ms": round(max(v) * 1000, 1),
               "ratio": round(statistics.median(v) / base, 2)}
        for name, v in runs.items()
    }
    heavy = sorted(m for m in wizard_modules if m.split(".")[0] in FORBIDDEN)
    ok = (all(r["ratio"] <= TARGET_RATIO for n, r in results.items() if n != "bare textual")
          and version < TARGET_VERSION_MS and not heavy)
    if args.json:
        print(json.dumps({"first_screen": results, "version_ms": round(version, 1),
                          "python_floor_ms": round(floor, 1),
                          "forbidden_imported": heavy, "repeats": args.repeats, "targets_met": ok}))
        return 0 if ok else 1
    print(f"{'process start -> first screen drawn':<36} {'median':>9} {'max':>9} {'ratio':>7}  target")
    for name, r in results.items():
        target = "" if name == "bare textual" else f"<= {TARGET_RATIO}x"
        print(f"{name:<36} {r['median_ms']:>6.0f} ms {r['max_ms']:>6.0f} ms {r['ratio']:>6.2f}x  {target}")
    print(f"{'ltx-wizard --version (wall)':<36} {version:>6.0f} ms {'':>9} {'':>7}  < {TARGET_VERSION_MS:.0f} ms")
    floor_name = "  floor: python -c 'import re'"
    print(f"{floor_name:<36} {floor:>6.0f} ms")
    for name in FORBIDDEN:
        hit = any(m.split(".")[0] == name for m in heavy)
        print(f"{name} imported by the first screen: {'YES' if hit else 'no'}")
    print(f"({args.repeats} repeats each, interleaved, in a {120}x{40} pty; "
          f"targets {'met' if ok else 'NOT met'})")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
