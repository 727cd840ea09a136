"""The clip-check cache's cost to a check, once pruned, against reading an unpruned file whole.

    .venv/bin/python benchmarks/bench_clip_cache.py [--entries 1100000] [--json]

Writes a cache file of --entries lines (each a real line of one clip's facts, its path changed;
1.1M lines is the 311 MB file of issue 43) and times, each in a fresh process, a lookup of 100
clips through core/dataset/clip_cache.py FactsCache:

- unpruned: every line of the file decoded (what a check cost before the cap: 33 s, 1.15 GB);
- first: the first check on that file (reads only its newest MAX_FILE_BYTES, then prunes it);
- pruned: every later check (the file at most PRUNE_TO of its caps).

Ratios are against `unpruned`. Target: `pruned` under 1 s and under 1/10 of `unpruned` at 1.1M.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

LOOKUP = r"""
import json, resource, sys, time
from pathlib import Path
from ltx_wizard.core.dataset.clip_cache import FactsCache, LINE
cache_dir, mode = Path(sys.argv[1]), sys.argv[2]
t = time.perf_counter()
if mode == "unpruned":
    file = cache_dir / "clip-facts-v1.jsonl"
    with open(file, "rb") as f:
        n = sum(1 for line in f if LINE.decode(line, file))
else:
    FactsCache(cache_dir).lookup([Path(f"/clips/c{i}.mp4") for i in range(100)])
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"wall_s": time.perf_counter() - t, "max_rss_mb": rss}))
"""


def _fill(file: Path, entries: int) -> int:
    from ltx_wizard.core.dataset.clip_cache import LINE, CacheLine
    from ltx_wizard.core.dataset.clip_facts import ClipFacts

    facts = ClipFacts(Path("/clips/x.mp4"), "video", 1280, 720, 0, 97, 24.0, False, 4.04, True, "aac", None)
    template = LINE.encode(CacheLine("@PATH@", (1, 2, 3, 4), facts), indent=False) + "\n"
    with open(file, "w", encoding="utf-8") as out:
        for start in range(0, entries, 10_000):
            stop = min(entries, start + 10_000)
            out.write("".join(template.replace("@PATH@", f"/clips/c{i}.mp4") for i in range(start, stop)))
    return file.stat().st_size


def _time(cache_dir: Path, mode: str) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", LOOKUP, str(cache_dir), mode],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, float] = json.loads(out.stdout)
    return result


def measure(entries: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        cache_dir = Path(tmp)
        file = cache_dir / "clip-facts-v1.jsonl"
        size = _fill(file, entries)
        unpruned = _time(cache_dir, "unpruned")
        first = _time(cache_dir, "first")
        pruned_size = file.stat().st_size
        pruned = _time(cache_dir, "pruned")
    base = unpruned["wall_s"]
    return {
        "entries": entries,
        "file_mb": round(size / 2**20, 1),
        "pruned_file_mb": round(pruned_size / 2**20, 1),
        "unpruned": unpruned,
        "first": first,
        "pruned": pruned,
        "first_ratio": round(first["wall_s"] / base, 3),
        "pruned_ratio": round(pruned["wall_s"] / base, 3),
    }


def table(result: dict[str, object]) -> str:
    lines = [f"{result['entries']} entries, {result['file_mb']} MB -> pruned {result['pruned_file_mb']} MB"]
    for name in ("unpruned", "first", "pruned"):
        row = result[name]
        assert isinstance(row, dict)
        ratio = result.get(f"{name}_ratio", 1.0)
        lines.append(f"{name:9} {row['wall_s']:7.2f} s  {row['max_rss_mb']:7.0f} MB  x{ratio}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=1_100_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = measure(args.entries)
    print(json.dumps(result, indent=2) if args.json else table(result))


if __name__ == "__main__":
    main()
