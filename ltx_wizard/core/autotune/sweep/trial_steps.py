"""One trial step of the sweep and what it leaves: its config and log, its pruned outputs, a
dropped guess set aside (side by side, trials/side_by_side.py) so that the trial taking its number
has files of its own.

The engine calls these with the sweep's Site and Sweep (sweep_state.py); the side-by-side pool starts
its trials and guesses through `starter`.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from ltx_wizard.core.io.run_folder import CONFIG
from ltx_wizard.core.proc.reaper import stop_tagged
from ltx_wizard.core.autotune.trials.log_file import trial_log_path
from ltx_wizard.core.autotune.trials.leftovers import prune_trial_outputs, set_aside_guess
from ltx_wizard.core.autotune.trials.phase import PHASE_LABEL
from ltx_wizard.core.autotune.sweep.setup_stop import raise_on_setup_failure
from ltx_wizard.core.autotune.trials.trial_runner import TrialRunner
from ltx_wizard.core.io.safe_fs import check_inside
from ltx_wizard.core.io.workspace import atomic_write_text
from ltx_wizard.core.io.yaml_patch import load_yaml
from ltx_wizard.core.autotune.events import LogLine, TrialPhase
from ltx_wizard.core.tuning.results import TrialResult
from ltx_wizard.core.tuning.schedule import Candidate
from ltx_wizard.core.tuning.trial_config import confirmation_config_text, trial_config_text

if TYPE_CHECKING:
    from ltx_wizard.core.autotune.sweep.sweep_state import Site, Sweep
    from ltx_wizard.core.autotune.trials.side_by_side import StartTrial


def dropped_label(ahead_of: int | None, set_aside: str | None) -> str:
    """What a person reads when a guess is dropped: why, and where its files went."""
    why = (
        f"run ahead in case trial {ahead_of} was kept; it was not"
        if ahead_of is not None
        else "run ahead; no trial asked for it"
    )
    where = f"; its files are in overfit/{set_aside}/" if set_aside else ""
    return f"{PHASE_LABEL['dropped']}: {why}{where}"


def starter(site: Site, sweep: Sweep) -> StartTrial:
    """The pool's way to start a trial (or a guess, ahead_of set) on one runner."""
    return lambda runner, cand, ahead_of: run_trial(site, sweep, runner, cand, ahead_of=ahead_of)


async def run_trial(
    site: Site,
    sweep: Sweep,
    runner: TrialRunner,
    cand: Candidate,
    fused: bool = False,
    ahead_of: int | None = None,
) -> TrialResult:
    """One trial on `runner`: its config and log written, run, and a setup failure stopping the
    sweep (SetupStopped); a fused trial's confirmation is kept in `sweep.fused`."""
    if not runner.claim():  # dropped before it began: nothing is written for it
        return runner.not_started(cand)
    try:
        return await _claimed_run(site, sweep, runner, cand, fused, ahead_of)
    finally:
        runner.release()


async def _claimed_run(
    site: Site, sweep: Sweep, runner: TrialRunner, cand: Candidate, fused: bool, ahead_of: int | None
) -> TrialResult:
    folder = site.folder
    output_dir = folder.overfit / f"trial-{cand.index}"
    config_path = output_dir / CONFIG.name  # named as the run's own
    if fused:
        text = confirmation_config_text(
            sweep.planned, cand.config_changes, sweep.subset, output_dir, fused=True
        )
    else:
        text = trial_config_text(sweep.planned, cand.config_changes, sweep.subset, output_dir)
    atomic_write_text(config_path, text, root=folder.root)
    log_path = check_inside(folder.root, trial_log_path(folder.logs, cand.index))
    result = await runner.run(
        cand, config_path, output_dir, log_path, kind="fused" if fused else "trial", ahead_of=ahead_of
    )
    if sweep.pool is None:  # side by side, the session tag also marks the other trials
        await asyncio.to_thread(stop_tagged, site.tag, 2.0)  # a setsid grandchild left behind
    raise_on_setup_failure(runner.before_step_one, load_yaml(text), f"trial {cand.index} ({cand.change})")
    if fused and runner.last_confirmation is not None:
        sweep.fused[cand.index] = runner.last_confirmation
    return result


def prune_trial(site: Site, index: int) -> None:
    """The recorded trial's checkpoints go (a full fine-tune's are ~44 GB); its log stays."""
    try:
        prune_trial_outputs(site.folder.overfit / f"trial-{index}", site.folder.root)
    except OSError as exc:  # the result is recorded; a leftover is worth a line, not a stop
        site.on_event(LogLine(text=f"ltx-wizard: could not delete trial {index}'s checkpoints: {exc}"))


def set_aside(site: Site, cand: Candidate, ahead_of: int | None) -> None:
    """A dropped guess has ended (trials/side_by_side.py): its files move to trial-N.guess, its
    number is free for the real trial N."""
    folder = site.folder
    try:
        name = set_aside_guess(folder.overfit, folder.logs, cand.index, folder.root)
    except OSError as exc:  # the real trial then writes over it: say so, do not stop
        name = None
        site.on_event(
            LogLine(text=f"ltx-wizard: could not set aside the dropped guess of trial {cand.index}: {exc}")
        )
    else:
        if name is None:
            return  # it never started: nothing was shown or written for it
    label = dropped_label(ahead_of, name)
    site.on_event(TrialPhase(index=cand.index, phase="dropped", label=label))
    site.on_event(LogLine(text=f"ltx-wizard: trial {cand.index} ({cand.change}) {label}"))
