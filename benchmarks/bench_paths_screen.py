"""The Paths screen as a user drives it: type a dataset file's path, then edit another field, then
let a select re-post its unchanged value. Counts the check passes (plan's own data step) and the
clips read in each, and times the verdict, against a bare PyAV loop over the same clips.

Targets (issue #36): one pass per typed path, no clip read again for an unrelated edit, no pass
at all for a re-posted unchanged value.

    .venv/bin/python benchmarks/bench_paths_screen.py [--clips N] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def bare_loop(paths: list[Path]) -> float:
    """A bare PyAV loop reading each clip's stream facts: the floor for reading them at all."""
    import av

    t0 = time.perf_counter()
    for path in paths:
        with av.open(str(path)) as container:
            stream = container.streams.video[0]
            _ = (
                stream.frames,
                stream.codec_context.width,
                stream.average_rate,
                bool(container.streams.audio),
            )
    return time.perf_counter() - t0


class Counter:
    def __init__(self) -> None:
        self.passes = 0
        self.probes = 0

    def install(self) -> None:
        from ltx_wizard.core.dataset import clip_probe
        from ltx_wizard.core.plan import plan_steps as steps

        real_probe, real_data = clip_probe.probe_clip, steps.inspect_data

        def probe(*args, **kwargs):
            self.probes += 1
            return real_probe(*args, **kwargs)

        def data(*args, **kwargs):
            self.passes += 1
            return real_data(*args, **kwargs)

        clip_probe.probe_clip, steps.inspect_data = probe, data

    def take(self) -> tuple[int, int]:
        out = (self.passes, self.probes)
        self.passes = self.probes = 0
        return out


async def drive(root: Path, dataset: Path, counter: Counter) -> dict:
    from textual.widgets import Input, Select

    from ltx_wizard.cli import build_parser, make_app
    from ltx_wizard.tui.screens.paths import PathsScreen

    app = make_app(
        build_parser().parse_args(["--demo"]),
        demo_root=root / "demo",
        first_run_screens=False,
        demo_data="latents",
        cursor_blink=False,
    )
    rows: dict = {}
    async with app.run_test(size=(120, 40)) as pilot:

        async def settled(draft_test) -> float:
            t0 = time.perf_counter()
            while True:
                await pilot.pause()
                screen = app.screen
                busy = [w for w in app.workers if w.group == "checks" and w.is_running]
                if (
                    isinstance(screen, PathsScreen)
                    and screen._checked is not None
                    and draft_test(screen._checked[0])
                    and not busy
                    and screen._checked == screen._form()
                ):
                    return time.perf_counter() - t0
                if time.perf_counter() - t0 > 300:
                    raise TimeoutError("the Paths screen never settled")

        t0 = time.perf_counter()
        while not isinstance(app.screen, PathsScreen):  # the probe (and demo files) first
            await pilot.pause()
            await pilot.press("ctrl+n")
            if time.perf_counter() - t0 > 120:
                raise TimeoutError(f"stuck on {type(app.screen).__name__}")
        await settled(lambda d: True)
        counter.take()
        field = app.screen.query_one("#input-data_root", Input)
        field.focus()
        field.value = ""
        for ch in str(dataset):  # typed key by key, as a user types it
            await pilot.press(ch if ch != " " else "space")
        wall = await settled(lambda d: d.data_root == dataset)
        rows["typed path"] = (*counter.take(), wall)
        trigger = app.screen.query_one("#trigger", Input)
        trigger.focus()
        for ch in "CATZ":
            await pilot.press(ch)
        wall = await settled(lambda d: d.lora_trigger == "CATZ")
        rows["another field edited"] = (*counter.take(), wall)
        recipe = app.screen.query_one("#recipe", Select)
        recipe.value = recipe.value  # a select re-posting its unchanged value
        recipe.post_message(Select.Changed(recipe, recipe.value))
        wall = await settled(lambda d: True)
        rows["unchanged value re-posted"] = (*counter.take(), wall)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clips", type=int, default=300)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    from ltx_wizard.demo.lookalike_media import make_clip_dataset

    with tempfile.TemporaryDirectory(prefix="bench-paths-screen-") as tmp:
        root = Path(tmp)
        dataset = make_clip_dataset(
            root / "clips", [{"frames": 49, "width": 320, "height": 192}] * args.clips
        )
        clips = sorted((root / "clips" / "videos").glob("*.mp4"))
        import os

        os.environ["LTX_WIZARD_CACHE_DIR"] = str(root / "cache")  # a cold cache: first reads
        bare = bare_loop(clips)
        counter = Counter()
        counter.install()
        rows = asyncio.run(drive(root, dataset, counter))
    table = [("case", "passes", "clips read", "read / clips", "verdict s", "bare PyAV s", "ratio")]
    for name, (passes, probes, wall) in rows.items():
        table.append(
            (
                name,
                str(passes),
                str(probes),
                f"{probes / args.clips:.2f}x",
                f"{wall:.2f}",
                f"{bare:.2f}",
                f"{wall / bare:.2f}x" if bare else "-",
            )
        )
    ok = (
        rows["typed path"][0] == 1
        and rows["another field edited"][1] == 0
        and rows["unchanged value re-posted"][0] == 0
    )
    if args.json:
        print(
            json.dumps(
                {
                    "clips": args.clips,
                    "bare_pyav_s": bare,
                    "ok": ok,
                    "cases": {
                        k: {"passes": v[0], "clips_read": v[1], "verdict_s": v[2]} for k, v in rows.items()
                    },
                },
                indent=2,
            )
        )
    else:
        widths = [max(len(r[i]) for r in table) for i in range(len(table[0]))]
        for r in table:
            print("  ".join(c.ljust(w) for c, w in zip(r, widths)))
        print(
            f"target: one pass per typed path, no clip read again for another field, no pass "
            f"for a re-posted value: {'met' if ok else 'MISSED'}"
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
