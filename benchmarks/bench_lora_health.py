"""The LoRA health check's cost on a checkpoint of realistic size: rank 32 on LTX-2's default
attention targets, with the real key count and shapes (tests/lora_files.py computes them from
ltx-core's block definition: 48 blocks x 24 modules = 1,152 A/B pairs, 213.9 M parameters, 428 MB
in bfloat16), run as the wizard runs it (trainer_side/lora_health.py, a process of its own).

    .venv/bin/python benchmarks/bench_lora_health.py [--rank 32] [--ff] [--rounds 3] [--json]

Reports the median wall time of a whole run (python and torch start-up included), its CPU time,
the program's own read time (its `seconds`), and the child's peak resident memory (it reads one A/B pair at a
time: the peak stays near torch's own footprint, not the file's size). Targets: under 30 s a
checkpoint on one CPU core, peak memory under 512 MB (one of each kept checkpoint is checked after
training; the held-out loss and the renders cost minutes each).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.lora_files import DEFAULT_TARGETS, FF_TARGETS, LTX2, lora_params, modules  # noqa: E402

SCRIPT = ROOT / "ltx_wizard" / "trainer_side" / "lora_health.py"
TARGET_S = 30.0
TARGET_RSS_MB = 512.0


def _run(argv: list[str]) -> resource.struct_rusage:
    """The child's own resource use (its peak memory, not the largest of every child so far)."""
    child = subprocess.Popen(argv)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"{SCRIPT.name} exited {child.returncode}")
    return usage


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rank", type=int, default=32)
    parser.add_argument("--ff", action="store_true", help="also the feed-forward targets")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    targets = DEFAULT_TARGETS + (FF_TARGETS if args.ff else ())
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "lora_weights_step_02000.safetensors"
        # built by a child: a fork of a process that held the 428 MB of tensors would carry its
        # memory into the measured child's peak (ru_maxrss survives exec)
        build = f"from pathlib import Path; from tests.lora_files import *; write_lora(Path({str(path)!r}), dims=LTX2, rank={args.rank}, targets={targets!r})"
        subprocess.run([sys.executable, "-c", build], check=True, cwd=ROOT)
        out = Path(tmp) / "health.json"
        walls, reads, usages = [], [], []
        for _ in range(args.rounds):
            started = time.perf_counter()
            usages.append(_run([sys.executable, str(SCRIPT), "--out", str(out), str(path)]))
            walls.append(time.perf_counter() - started)
            reads.append(json.loads(out.read_text())["checkpoints"][0]["seconds"])
        result = {
            "rank": args.rank,
            "modules": len(modules(LTX2, targets)),
            "params": lora_params(LTX2, args.rank, targets),
            "file_mb": round(path.stat().st_size / 2**20, 1),
            "wall_s": round(statistics.median(walls), 2),
            "read_s": round(statistics.median(reads), 2),
            # CPU seconds a run: the wall time on a loaded box is mostly waiting for a core
            "cpu_s": round(statistics.median(u.ru_utime + u.ru_stime for u in usages), 2),
            "peak_rss_mb": round(max(u.ru_maxrss for u in usages) / 1024, 1),  # kB on Linux
            "record_kb": round(out.stat().st_size / 1024, 1),
        }
    ok = result["wall_s"] <= TARGET_S and result["peak_rss_mb"] <= TARGET_RSS_MB
    print(json.dumps(result) if args.json else "\n".join(f"{k}: {v}" for k, v in result.items()))
    print(f"targets (wall <= {TARGET_S:.0f} s, peak <= {TARGET_RSS_MB:.0f} MB): {'met' if ok else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
