"""The winner's confirmation: one run of its config with its own validation, on every GPU of
the plan; when it fails, fall back to the previous winner and confirm that instead.

The engine hands over the sweep (sweep_state.py), the runner on the plan's own launch, and how to tell
that the user cancelled.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Callable

from ltx_wizard.core.io.run_folder import CONFIG
from ltx_wizard.core.autotune.sweep.setup_stop import raise_on_setup_failure
from ltx_wizard.core.autotune.sweep.trial_subset import subset_refusal
from ltx_wizard.core.autotune.trials.leftovers import prune_trial_outputs
from ltx_wizard.core.proc.reaper import stop_tagged
from ltx_wizard.core.io.safe_fs import check_inside
from ltx_wizard.core.io.workspace import atomic_write_text
from ltx_wizard.core.io.yaml_patch import load_yaml
from ltx_wizard.core.autotune.events import ConfirmationFinished, ConfirmationStarted
from ltx_wizard.core.tuning.results import Confirmation
from ltx_wizard.core.tuning.schedule import Candidate
from ltx_wizard.core.tuning.trial_config import confirmation_config_text, has_validation_prompts

if TYPE_CHECKING:
    from ltx_wizard.core.autotune.sweep.sweep_state import Site, Sweep
    from ltx_wizard.core.autotune.trials.trial_runner import TrialRunner


def needs_confirmation(sweep: Sweep) -> bool:
    """A winner to confirm, and validation prompts to confirm it with."""
    return sweep.tuner.winner is not None and has_validation_prompts(sweep.planned)


async def confirm_winner(
    site: Site, sweep: Sweep, runner: TrialRunner, gpus: int, cancelled: Callable[[], bool]
) -> list[Confirmation]:
    """Confirm the winner with its own validation on `runner` (the plan's launch on `gpus` GPUs);
    on failure fall back and confirm again."""
    tuner, logged = sweep.tuner, sweep.logged_confirmations
    done: list[Confirmation] = []
    while tuner.winner is not None:
        winner = tuner.winner
        conf = logged.get(winner) or sweep.fused.get(winner)
        if conf is not None and conf.outcome == "skipped":
            conf = None  # the fused trial failed before validating: confirm on its own
        if conf is None or conf.changes != tuner.winner_changes:
            conf = await _confirm_run(site, sweep, runner, gpus, cancelled)
        if logged.get(winner) is not conf:
            sweep.log.confirmation(conf)
        site.on_event(ConfirmationFinished(confirmation=conf))
        done.append(conf)
        if conf.ok or conf.outcome == "cancelled":
            break
        failed = tuner.winner
        if tuner.fallback() is None:
            tuner.stop_reason += (
                f"; the confirmation of trial {failed} failed ({conf.reason}) "
                "and there is no earlier config to fall back to"
            )
            tuner.best, tuner.winner_changes, tuner.settings = None, {}, tuner.base
            break
        tuner.stop_reason += (
            f"; the confirmation of trial {failed} failed ({conf.reason}): fell back to trial {tuner.winner}"
        )
    return done


async def _confirm_run(
    site: Site, sweep: Sweep, runner: TrialRunner, gpus: int, cancelled: Callable[[], bool]
) -> Confirmation:
    tuner, folder = sweep.tuner, site.folder
    winner = tuner.winner
    if cancelled():
        return Confirmation(
            trial=winner,
            outcome="cancelled",
            reason="cancelled by the user",
            gpus=gpus,
            changes=dict(tuner.winner_changes),
        )
    # The confirmation uses every GPU: the sharded loader then needs batch x GPUs samples.
    refusal = subset_refusal(tuner.settings.batch_size, gpus, sweep.samples)
    if refusal:
        return Confirmation(
            trial=winner, outcome="skipped", reason=refusal, gpus=gpus, changes=dict(tuner.winner_changes)
        )
    site.on_event(ConfirmationStarted(trial=winner, gpus=gpus))
    output_dir = folder.overfit / f"confirm-{winner}"
    output_dir.mkdir(parents=True, exist_ok=True)
    config_path = output_dir / CONFIG.name  # named as the run's own
    atomic_write_text(
        config_path,
        confirmation_config_text(sweep.planned, tuner.winner_changes, sweep.subset, output_dir),
        root=folder.root,
    )
    cand = Candidate(
        winner or 0, "confirmation", f"confirm trial {winner}", {}, tuner.settings, dict(tuner.winner_changes)
    )
    log_path = check_inside(folder.root, folder.logs / f"confirm-{winner}.log")
    await runner.run(cand, config_path, output_dir, log_path, kind="confirm")
    await asyncio.to_thread(stop_tagged, site.tag, 2.0)
    raise_on_setup_failure(
        runner.before_step_one,
        load_yaml(config_path.read_text("utf-8")),
        f"the confirmation of trial {winner}",
    )
    conf = runner.last_confirmation
    assert conf is not None
    try:
        prune_trial_outputs(output_dir, folder.root)
    except OSError:
        pass  # a leftover checkpoint is disk, not a wrong result
    return conf.model_copy(update={"gpus": gpus})
