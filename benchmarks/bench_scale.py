"""The user's scale, through the real entry point: `ltx-wizard discover` on folders of 50 and 200
real-sized checkpoints, and `ltx-wizard plan` on the demo's inputs, each in a fresh process.

Used by bench_paths.py (its table and --json). Each case is one child process; its wall time is
measured around it and its peak RSS read from os.wait4, so one case never inflates another.
`code` runs the same cases against another copy of the code (e.g. `git archive main` unpacked),
so before and after are measured side by side on the same box and load.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

# discover is bounded by work (folders walked, headers read), not by a clock: every checkpoint
# found, nothing left unsearched; its time is shown, and at load in bench_paths.py's load table
TARGET_RSS_PER_CKPT_MIB = 0.5
TARGET_PLAN_S = 0.25


def copies(first: Path, root: Path, n: int) -> list[Path]:
    """`n` checkpoints like `first` under root/m<i>/, each its header then a hole (sparse:
    a 44 GB look-alike costs its 840 KB header on disk, never 44 GB of zeros)."""
    size = first.stat().st_size
    with open(first, "rb") as fh:
        head = fh.read(8)
        head += fh.read(int.from_bytes(head, "little"))
    made = []
    for i in range(n):
        path = root / f"m{i:03d}" / first.name
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "wb") as fh:
            fh.write(head)
            fh.truncate(size)
        made.append(path)
    return made


def run_child(argv: list[str], code: Path | None) -> tuple[float, float, int, str]:
    """(wall s, peak RSS MiB, exit code, stdout) of `python -m ltx_wizard ARGV`."""
    env = dict(os.environ)
    if code is not None:
        env["PYTHONPATH"] = str(code)
    env["NO_COLOR"] = "1"
    t0 = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-m", "ltx_wizard", *argv],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd="/",
    )
    out = child.stdout.read() if child.stdout else b""
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - t0
    child.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait again
    return wall, usage.ru_maxrss / 1024, child.returncode, out.decode("utf-8", "replace")


def discover_case(folder: Path, code: Path | None) -> dict:
    wall, rss, rc, out = run_child(["discover", "--models-dir", str(folder), "--json"], code)
    try:
        data = json.loads(out)
    except ValueError:
        data = {}
    found = sum(1 for c in data.get("candidates", ()) if c.get("kind") == "checkpoint")
    return {
        "wall_s": wall,
        "rss_mib": rss,
        "rc": rc,
        "found": found,
        "timed_out": data.get("timed_out"),
        "elapsed_s": data.get("elapsed_s"),
    }


def plan_case(demo, run_name: str, code: Path | None) -> dict:
    argv = [
        "plan",
        "--trainer-root",
        str(demo.checkout),
        "--checkpoint",
        str(demo.checkpoint),
        "--text-encoder",
        str(demo.text_encoder),
        "--data-root",
        str(demo.data_root),
        "--workspace",
        str(demo.workspace),
        "--run-name",
        run_name,
        "--simulate",
        demo.simulate,
    ]
    wall, rss, rc, _ = run_child(argv, code)
    return {"wall_s": wall, "rss_mib": rss, "rc": rc}


_TIMED_MAIN = (
    "import sys, time; from ltx_wizard.cli import main; t = time.perf_counter(); "
    "rc = main(sys.argv[1:]); print(f'\\nplan_s {time.perf_counter() - t}'); "
    "sys.exit(rc)"
)


def plan_inside_case(demo, run_name: str, code: Path | None) -> dict:
    """The same plan in a fresh interpreter, timed around cli.main() alone: plan's own work
    (its lazy imports included), without the interpreter's start-up."""
    env = dict(os.environ, **({"PYTHONPATH": str(code)} if code is not None else {}))
    argv = [
        "plan",
        "--trainer-root",
        str(demo.checkout),
        "--checkpoint",
        str(demo.checkpoint),
        "--text-encoder",
        str(demo.text_encoder),
        "--data-root",
        str(demo.data_root),
        "--workspace",
        str(demo.workspace),
        "--run-name",
        run_name,
        "--simulate",
        demo.simulate,
    ]
    done = subprocess.run(
        [sys.executable, "-c", _TIMED_MAIN, *argv],
        env=env,
        cwd="/",
        capture_output=True,
        text=True,
        timeout=120,
    )
    line = next((x for x in reversed(done.stdout.splitlines()) if x.startswith("plan_s ")), "")
    return {"wall_s": float(line.split()[1]) if line else float("nan"), "rc": done.returncode}


def scale_rows(root: Path, first_ckpt: Path, code: Path | None, label: str) -> tuple[list, dict]:
    """The table rows and the --json figures of the scale cases for one copy of the code."""
    from ltx_wizard.demo.builder import build_demo

    empty = root / "empty-models"
    empty.mkdir(exist_ok=True)
    base = discover_case(empty, code)
    cases = {"empty": base}
    for n in (50, 200):
        folder = root / f"models-{n}"
        if not folder.exists():
            copies(first_ckpt, folder, n)
        cases[str(n)] = discover_case(folder, code)
    demo = build_demo(root / f"demo-{label}")
    plan = min((plan_case(demo, f"bench-{i}", code) for i in range(3)), key=lambda c: c["wall_s"])
    inside = min((plan_inside_case(demo, f"inside-{i}", code) for i in range(3)), key=lambda c: c["wall_s"])
    rows = [
        (
            f"[{label}] discover: empty folder (fresh process)",
            f"{base['wall_s']:.2f} s",
            f"{base['rss_mib']:.0f} MiB",
            "",
        )
    ]
    figures: dict = {"discover": cases}
    for n in (50, 200):
        c = cases[str(n)]
        growth = (c["rss_mib"] - base["rss_mib"]) / n
        whole = c["found"] == n and c["timed_out"] is False and c["rc"] == 0
        c["rss_growth_mib_per_ckpt"] = growth
        ok = whole and growth < TARGET_RSS_PER_CKPT_MIB
        rows.append(
            (
                f"[{label}] discover: {n} real-sized checkpoints (840 KB headers), found "
                f"{c['found']}/{n}, search {c['elapsed_s'] or 0:.2f} s, "
                f"+{growth:.2f} MiB/ckpt, exit {c['rc']}",
                f"{c['wall_s']:.2f} s",
                f"{c['rss_mib']:.0f} MiB",
                "ok" if ok else "MISSED",
            )
        )
    work = inside["wall_s"]
    rows.append(
        (
            f"[{label}] plan on the demo's inputs, whole CLI process (exit {plan['rc']})",
            f"{plan['wall_s']:.2f} s",
            f"{plan['rss_mib']:.0f} MiB",
            "",
        )
    )
    rows.append(
        (
            f"[{label}]   plan's own work: cli.main() timed inside a fresh process (exit {inside['rc']})",
            f"{work:.2f} s",
            "",
            "ok" if work < TARGET_PLAN_S and inside["rc"] == 0 else "MISSED",
        )
    )
    figures.update(plan=plan, plan_main=inside, plan_work_s=work)
    return rows, figures
