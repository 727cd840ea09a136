"""How prepare runs the trainer's data scripts, chosen once for `ltx-wizard prepare` and the TUI's
Prepare screen alike: the checkout's own environment (`uv run python`); on simulated GPUs the same,
with only the GPU-bound captioner server replaced by the stand-in; the demo's look-alike checkout
with this Python. On simulated GPUs the audio check is the stand-in's too, the one the
preprocessing gate asks (core/prepare/audio_gate_check.py), so prepare never says the sound cannot be
decoded and then sees audio latents written for every clip."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable


def scripts_runner(*, demo: bool, simulate: str | None) -> Callable[..., Any]:
    if demo:
        from ltx_wizard.demo.sim.captioner import lookalike_runner

        return lookalike_runner
    if simulate:
        from ltx_wizard.demo.sim.captioner import simulated_gpu_runner

        return simulated_gpu_runner
    from ltx_wizard.core.prepare.scripts import uv_runner

    return uv_runner


def audio_probe(stand_in: Any) -> Callable[..., Any] | None:
    """The stand-in's audio check on simulated GPUs (the one chosen at start-up, handed down);
    None (the real check) otherwise."""
    if stand_in is None:
        return None

    async def probe(clip: Any, label: str, log: Any) -> Any:
        found = await stand_in.audio_decode(clip)
        return replace(found, clip=label, where="the simulated trainer's environment")

    return probe
