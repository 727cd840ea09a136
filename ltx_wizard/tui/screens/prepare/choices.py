"""What the Prepare screen (screens/prepare/__init__.py) reads off the box for its choices: the checkout's
recipes, each GPU's free memory, the captioner `auto` picks (with a server URL typed or not),
the runner of the checkout's data scripts, and how the core's advice names the screen's fields.
"""

from __future__ import annotations

import os
from typing import Any, Callable

from ltx_wizard.core.prepare.captioner import Knobs
from ltx_wizard.core.prepare.scripts import SIMULATE_SAYS

URL_FIELD = "Captioner server URL"
CAPTIONS_FIELD = "Your captions file"
# The advice the core gives (a captioner this box cannot run) names these fields, not the flags
TUI_KNOBS = Knobs(
    url=f'the "{URL_FIELD}" field',
    gemini='Captioner "gemini_flash"',
    captions=f'the "{CAPTIONS_FIELD}" field',
)
# how a refused value names the field it was typed in (core/prepare/prepare_request.py _typed)
FIELD_NAMES = {
    "source": '"Your clips"',
    "trainer_root": '"LTX-2 trainer checkout"',
    "captions_file": f'"{CAPTIONS_FIELD}"',
    "run_name": '"run name"',
    "holdout": '"held out"',
    "vllm_url": f'"{URL_FIELD}"',
    "lora_trigger": '"trigger word"',
    "workspace": "the workspace",
}
SIMULATE_NOTE = SIMULATE_SAYS
DEMO_NOTE = "Demo: the look-alike checkout's scripts run with the wizard's own Python."


def recipes(trainer_root: str) -> list[str]:
    if not trainer_root:
        return []
    from ltx_wizard.core.base.errors import WizardError
    from ltx_wizard.core.inputs.checkout import find_checkout
    from ltx_wizard.core.inputs.recipes import list_recipes

    try:
        checkout = find_checkout(trainer_root)
    except (WizardError, OSError):
        return []
    return [r.name for r in list_recipes(checkout.trainer_dir / "configs")]


def gpus(app: Any) -> list[Any]:
    from ltx_wizard.core.prepare.gpu_free import free_memory

    probe = app.state.probe
    return free_memory(probe) if probe is not None else []


def auto_captioner(app: Any, url: str = "") -> str:
    """The label of `auto`: what the core would choose here, with the typed URL if any."""
    from ltx_wizard.core.base.errors import WizardError
    from ltx_wizard.core.prepare.captioner import choose_captioner

    try:
        choice = choose_captioner(None, os.environ, gpus(app), vllm_url=url or None, knobs=TUI_KNOBS)
    except WizardError as exc:
        return exc.message
    return choice.label


def url_problem(url: str) -> str | None:
    """What is wrong with a typed server URL (None: empty, or a good one)."""
    from ltx_wizard.core.base.errors import UsageError
    from ltx_wizard.core.prepare.captioner import check_server_url

    if not url.strip():
        return None
    try:
        check_server_url(url, knobs=TUI_KNOBS)
    except UsageError as exc:
        return exc.message
    return None


def runner(app: Any) -> Callable[..., Any]:
    """The data scripts' runner, as `ltx-wizard prepare` picks it (demo/sim/prepare_runs.py)."""
    from ltx_wizard.demo.sim.prepare_runs import scripts_runner

    return scripts_runner(demo=bool(app.options.demo), simulate=app.simulate)


def audio_probe(app: Any) -> Callable[..., Any] | None:
    """The audio check prepare makes, as `ltx-wizard prepare` picks it (the demo's too)."""
    from ltx_wizard.demo.sim.prepare_runs import audio_probe as simulated_probe

    return simulated_probe(app.stand_ins.chosen)


def run_note(app: Any) -> str:
    """How the scripts run here, for the screen to say (the same words as prepare --help)."""
    if app.options.demo:
        return DEMO_NOTE
    return SIMULATE_NOTE if app.simulate else ""
