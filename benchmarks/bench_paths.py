"""Benchmark: model-path validation reads headers only; discovery stays bounded on big trees.

Run: .venv/bin/python benchmarks/bench_paths.py [--files 100000]
Prints one table; the ratios are measured side by side in this one run, so they hold on any box.
Targets: validating a sparse 40 GB checkpoint costs about the same as a 1 MB one (ratio near 1),
and discovery over a 100k-file tree finishes inside its default 3 s budget without timing out.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ltx_wizard.core.checkpoint import inspect_checkpoint  # noqa: E402
from ltx_wizard.core.discovery import discover  # noqa: E402
from ltx_wizard.core.lookalike_models import make_checkpoint, make_gemma_dir  # noqa: E402
from ltx_wizard.core.model_checks import run_checks  # noqa: E402


def _median_ms(fn, repeat: int = 50) -> float:
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1000)
    return statistics.median(samples)


def _tree(root: Path, n_files: int) -> None:
    per_dir = 500
    for i in range(0, n_files, per_dir):
        shard = root / f"shard{i // 50_000}"
        seed = shard / "seed.txt"  # one link target per shard: ext4 caps a file at 65k links
        if not seed.exists():
            shard.mkdir(parents=True)
            seed.write_text("x")
        folder = shard / f"d{i // per_dir:04d}"
        folder.mkdir(parents=True, exist_ok=True)
        for j in range(min(per_dir, n_files - i)):
            os.link(seed, folder / f"clip_{j:04d}.txt")  # hard links: real entries, cheap to make


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=100_000)
    args = parser.parse_args()
    rows: list[tuple[str, str, str]] = []
    with tempfile.TemporaryDirectory(prefix="ltx-bench-") as tmp:
        root = Path(tmp)
        small = make_checkpoint(
            root / "small" / "ltx-2-small.safetensors", params_b=0.0005
        )  # ~1 MB
        big = make_checkpoint(
            root / "big" / "ltx-2-big.safetensors", params_b=20.0
        )  # ~40 GB, sparse
        gemma = make_gemma_dir(root / "big" / "gemma")
        t_small = _median_ms(lambda: inspect_checkpoint(small))
        t_big = _median_ms(lambda: inspect_checkpoint(big))
        t_all = _median_ms(lambda: run_checks(checkpoint=big, text_encoder=gemma))
        size_small, size_big = small.stat().st_size, big.stat().st_size
        rows.append(
            (f"validate {size_small / 1e6:.1f} MB checkpoint", f"{t_small:.3f} ms", "1.00x")
        )
        rows.append(
            (
                f"validate {size_big / 1e9:.0f} GB sparse checkpoint",
                f"{t_big:.3f} ms",
                f"{t_big / t_small:.2f}x",
            )
        )
        rows.append(
            ("run_checks (40 GB ckpt + Gemma dir)", f"{t_all:.3f} ms", f"{t_all / t_small:.2f}x")
        )

        tree = root / "tree"
        t0 = time.perf_counter()
        _tree(tree, args.files)
        build_s = time.perf_counter() - t0
        make_checkpoint(tree / "shard0" / "d0003" / "ltx-2.safetensors")
        empty = root / "empty"
        empty.mkdir()
        t_empty = _median_ms(lambda: discover([empty], env={}, system_roots=()), repeat=20)
        result = discover([tree], env={}, system_roots=())
        t_tree = result.elapsed_s * 1000
        rows.append(("discover: empty folder", f"{t_empty:.3f} ms", "1.00x"))
        rows.append(
            (
                f"discover: {args.files:,}-file tree ({result.dirs_scanned} dirs)",
                f"{t_tree:.1f} ms",
                f"{t_tree / t_empty:.0f}x",
            )
        )
        found = len(result.of_kind("checkpoint"))
        verdict = "ok" if found == 1 and not result.timed_out else "CHECK"
        rows.append(
            ("discover: found / timed out / budget", f"{found} / {result.timed_out} / 3 s", verdict)
        )
    width = max(len(r[0]) for r in rows)
    print(f"{'case':<{width}}  {'median time':>14}  {'ratio':>8}")
    for name, value, ratio in rows:
        print(f"{name:<{width}}  {value:>14}  {ratio:>8}")
    print(f"(tree built in {build_s:.1f} s; ratios are against the first row of each group)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
