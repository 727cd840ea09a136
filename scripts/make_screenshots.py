"""Regenerate screenshots/*.svg: one SVG per wizard screen, taken from the demo flow.

Usage (from the repository root):

    .venv/bin/python scripts/make_screenshots.py [--out screenshots] [--size 110x32]

It drives `ltx-wizard --demo` headless (Textual's run_test + pilot) through every screen with the
real autotune engine on the simulated trainer, and saves each screen with App.save_screenshot.
The demo folder is rebuilt at a fixed path and the clocks are frozen, so the paths shown are the
same on every run; step times come from the simulated trainer and vary a little.
Written files: 01-probe.svg 02-gate.svg 03-vram-ask.svg 04-paths.svg 05-pick.svg 06-summary.svg
07-autotune.svg 08-autotune-done.svg 09-confirm-cancel.svg 10-done.svg 11-existing-run.svg 12-help.svg
13-prepare.svg 14-prepare-spot-check.svg 15-prepare-done.svg
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ltx_wizard.core.plan.host_limits import HostReadings
from ltx_wizard.tui.app import WizardApp, WizardOptions

DEMO_ROOT = Path("/tmp/ltx-wizard-screens")
NOW = datetime(2026, 1, 2, 3, 4)
# A fixed machine for the Summary screen's host RAM/disk lines.
HOST = HostReadings(
    mem_total=256 * 1024**3,
    mem_available=240 * 1024**3,
    swap_free=0,
    disk_free=500 * 1024**3,
    disk_path=Path("/data"),
)


def _app(**overrides) -> WizardApp:
    # demo_data="latents": the screenshots start from the demo's preprocessed data root
    # clock: the running trials' elapsed times read 0:00 on every run, not the machine's speed
    values = dict(
        demo=True,
        demo_root=DEMO_ROOT,
        cursor_blink=False,
        check_delay_s=0,
        now=lambda: NOW,
        clock=lambda: 0.0,
        host_fn=lambda run_dir: HOST,
        demo_data="latents",
    )
    values.update(overrides)
    return WizardApp(WizardOptions.from_args(None, **values))


async def _settle(pilot) -> None:
    for _ in range(2):
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()


async def _until(pilot, condition, limit_s: float = 120.0) -> None:
    for _ in range(int(limit_s / 0.05)):
        if condition():
            return
        await pilot.pause(0.05)
    raise SystemExit("make_screenshots: the demo flow stalled; run the tests to find out why")


def _shot(app: WizardApp, out: Path, name: str) -> None:
    app.save_screenshot(filename=name, path=str(out))
    print(f"  {out / name}")


async def main_flow(out: Path, size: tuple[int, int]) -> None:
    app = _app()
    async with app.run_test(size=size) as pilot:
        await _settle(pilot)
        _shot(app, out, "01-probe.svg")
        await pilot.press("ctrl+n")
        await _settle(pilot)
        await pilot.press("enter")  # a style/character/concept LoRA: asks how it will be used
        await _settle(pilot)
        _shot(app, out, "13-intent.svg")
        await pilot.press("ctrl+s")  # the rest of the tour keeps the Recipe list's default
        await _settle(pilot)
        _shot(app, out, "04-paths.svg")
        await pilot.press("f1")
        await _settle(pilot)
        _shot(app, out, "12-help.svg")
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("f2")
        await pilot.pause()
        _shot(app, out, "05-pick.svg")
        await pilot.press("escape")
        await pilot.press("ctrl+n")
        await _settle(pilot)
        _shot(app, out, "06-summary.svg")
        await pilot.press("a")
        await _until(
            pilot,
            lambda: (
                app.screen.query_one("#trials").row_count >= 2
                and "step 20/" in str(app.screen.query_one("#trial-label").render())
            ),
        )
        app.screen.flush_log()
        await pilot.pause()
        _shot(app, out, "07-autotune.svg")
        await pilot.press("c")
        await pilot.pause()
        _shot(app, out, "09-confirm-cancel.svg")
        await pilot.press("n")
        await _until(pilot, lambda: not app.state.autotune_running)
        await _settle(pilot)
        _shot(app, out, "08-autotune-done.svg")
        await pilot.press("ctrl+n")
        await _settle(pilot)
        _shot(app, out, "10-done.svg")
    run_dir = app.state.run_dir
    app = _app(run_dir=str(run_dir))
    async with app.run_test(size=size) as pilot:
        await _settle(pilot)
        _shot(app, out, "11-existing-run.svg")


async def dialogs(out: Path, size: tuple[int, int]) -> None:
    for name, preset in (("02-gate.svg", "rtx4090"), ("03-vram-ask.svg", "gb10")):
        app = _app(simulate=preset)
        async with app.run_test(size=size) as pilot:
            await _settle(pilot)
            await pilot.press("ctrl+n")
            await pilot.pause()
            _shot(app, out, name)


def _no_network(url: str) -> bytes:
    raise OSError("the screenshots never reach the network")


async def setup_offers(out: Path, size: tuple[int, int]) -> None:
    """A box without the trainer: the setup offers after the probe (this machine's uv and git)."""
    from ltx_wizard.core.gpu.devices import MIB, GpuInfo, ProbeResult

    def probe() -> ProbeResult:
        return ProbeResult(
            source="nvml",
            gpus=(GpuInfo(index=0, name="NVIDIA H100 80GB HBM3", memory_total_bytes=81559 * MIB),),
        )

    app = _app(
        demo=False, probe_fn=probe, trainer_root=str(DEMO_ROOT / "LTX-2"), setup_survey={"fetch": _no_network}
    )
    async with app.run_test(size=size) as pilot:
        await _settle(pilot)
        await pilot.press("ctrl+n")
        await _until(pilot, lambda: "Do it?" in str(app.screen.query_one("#setup-offer").render()))
        await _settle(pilot)
        _shot(app, out, "14-setup.svg")


def _evaluated_run(root: Path) -> Path:
    """A run folder whose post-training evaluation is laid out: two prompts, each rendered with
    and without the LoRA by the simulated trainer's renderer, and prompts.json."""
    from ltx_wizard.core.evaluation.layout import Manifest, Render, eval_dir, write_manifest
    from ltx_wizard.demo.tiny_video import write_render

    run = root / "evaluated-run"
    manifest = Manifest(
        "lora_weights_step_02000.safetensors (the final checkpoint, step 2000)",
        notes=["Held-out evaluation skipped: no held-out set was reserved."],
    )
    for category, name, prompt in (
        ("in-distribution", "01_a-red-kite", "a red kite over a grey beach"),
        ("out-of-distribution", "01_a-cat-in-space", "a cat floats in space"),
    ):
        for on in (True, False):
            file = f"{category}/{name}{'' if on else '.base'}.mp4"
            write_render(eval_dir(run) / file, prompt, 42, "lora.safetensors" if on else None, 89)
            manifest.renders[file] = Render(
                file,
                category,
                prompt,
                42,
                on,
                "trainer validation",
                "int8-quanto (training stack)",
                (960, 544, 89),
                "dataset.json row 2",
            )
    write_manifest(run, manifest)
    return run


async def results(out: Path, size: tuple[int, int]) -> None:
    from ltx_wizard.tui.screens.results import ResultsScreen
    from ltx_wizard.tui.widgets.keyframes import KeyframeStrip

    run = _evaluated_run(DEMO_ROOT)
    app = _app()
    async with app.run_test(size=size) as pilot:
        await _settle(pilot)
        app.push_screen(ResultsScreen(run))
        await _until(
            pilot, lambda: len([s for s in app.screen.query(KeyframeStrip) if s.found is not None]) == 2
        )
        await pilot.pause()
        _shot(app, out, "15-results.svg")


async def prepare_flow(out: Path, size: tuple[int, int]) -> None:
    """The Prepare screen from the demo's raw clips: the form, the spot check, the result."""
    from ltx_wizard.tui.dialogs.confirm import ConfirmDialog
    from ltx_wizard.tui.dialogs.spot_check import SpotCheckDialog

    app = _app(demo_data="raw", first_run_screens=False)  # the intent question has its own shot
    async with app.run_test(size=size) as pilot:
        await _settle(pilot)
        await pilot.press("ctrl+n")
        await _until(pilot, lambda: (DEMO_ROOT / "raw-clips" / "quiet.mp4").is_file())
        await _settle(pilot)
        app.screen.query_one("#prep-split").value = True
        app.screen.query_one("#prep-holdout").value = "1"
        await _settle(pilot)
        _shot(app, out, "16-prepare.svg")
        await pilot.press("ctrl+n")
        for topic in ("scenes", "rotated"):  # the scene split, then the upright copy
            await _until(
                pilot,
                lambda topic=topic: isinstance(app.screen, ConfirmDialog) and topic in app.screen.question,
            )
            await pilot.press("y")
        await _until(pilot, lambda: isinstance(app.screen, SpotCheckDialog))
        await pilot.pause()
        _shot(app, out, "17-prepare-spot-check.svg")
        await pilot.press("a")
        await _until(pilot, lambda: getattr(app.screen, "result", None) is not None)
        await _settle(pilot)
        _shot(app, out, "18-prepare-done.svg")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="screenshots", help="folder for the SVG files")
    parser.add_argument("--size", default="110x32", help="terminal size, COLSxROWS")
    args = parser.parse_args(argv)
    cols, rows = (int(v) for v in args.size.lower().split("x"))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(DEMO_ROOT, ignore_errors=True)
    try:
        asyncio.run(main_flow(out, (cols, rows)))
        asyncio.run(dialogs(out, (cols, rows)))
        asyncio.run(setup_offers(out, (cols, rows)))
        asyncio.run(results(out, (cols, rows)))
        shutil.rmtree(DEMO_ROOT, ignore_errors=True)
        asyncio.run(prepare_flow(out, (cols, rows)))
    finally:
        shutil.rmtree(DEMO_ROOT, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
