"""What is left to do for a run folder, from its records (not from a log pattern): the commands in
the trainer team's order, each with the options the run needs (the simulated GPUs it was planned
on), then how to come back to it. `plan`, `autotune` and the wizard's quit message print these.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.io.workspace import RunFolder
from ltx_wizard.core.launch.script import copy_line


def gpu_options(simulate: str | None) -> list[str]:
    """The GPU source later commands need to see the GPUs this run was planned on."""
    return ["--simulate", simulate] if simulate else []


def _command(*words: str) -> str:
    return shlex.join(["ltx-wizard", *words])


def is_tuned(run_dir: Path) -> bool:
    """Autotune has ended here (its record is written then; a damaged one is autotune's to name)."""
    return RunFolder(Path(run_dir)).autotune_record.is_file()


def _preprocessed(run_dir: Path) -> tuple[bool, bool] | None:
    """(one sample done, all done) from preprocess.json; None for a run planned from data that
    was preprocessed already. Read as plain JSON: `plan` prints these and imports no pydantic
    (preprocess commands check the file whole, and name what is wrong)."""
    from ltx_wizard.core.io.bounded import JSON_MAX_BYTES, loads_json, read_bytes
    from ltx_wizard.core.preprocess.preprocess_state import state_path

    path = state_path(run_dir)
    if not path.is_file():
        return None
    try:
        data = loads_json(
            read_bytes(path, what="preprocess state", limit=JSON_MAX_BYTES), what="preprocess state"
        )
    except (WizardError, OSError):
        return (False, False)
    if not isinstance(data, dict):
        return (False, False)
    reused = data.get("reused") is True
    return (reused or data.get("one_sample_done") is True, reused or data.get("full_done") is True)


def remaining_steps(run_dir: Path, simulate: str | None = None, *, tuning: bool = True) -> list[str]:
    """The commands still to run before training, then the one that trains. `tuning`: with the
    autotune steps (the skill's order after a plan); without, only what training needs."""
    run, gpus = str(Path(run_dir)), gpu_options(simulate)
    tuned = is_tuned(run_dir)
    done = _preprocessed(Path(run_dir))
    steps: list[str] = []
    if tuning and not tuned and done is not None and not done[0]:
        steps.append(_command("preprocess", run, "--one-sample", *gpus))
    if tuning and not tuned:
        steps.append(_command("autotune", run, *gpus))
    if done is not None and not done[1]:
        steps.append(_command("preprocess", run, *gpus))
    steps.append(copy_line(Path(run_dir)))
    return steps


def pending_preprocess(run_dir: Path) -> str | None:
    """The command that writes the data root, while the run's preprocess.json says it was never
    written (a run planned from clips); None otherwise."""
    done = _preprocessed(Path(run_dir))
    if done is None or done[1]:
        return None
    simulate = None
    try:
        from ltx_wizard.core.plan.record import read_record

        rec = read_record(Path(run_dir))
        simulate = rec.simulate if rec is not None else None
    except (WizardError, OSError):
        pass
    return _command("preprocess", str(Path(run_dir)), *gpu_options(simulate))


def come_back(run_dir: Path, simulate: str | None = None) -> list[str]:
    """How to reopen the run in the wizard, and read its training's state."""
    run = str(Path(run_dir))
    return [_command(*gpu_options(simulate), "--run-dir", run), _command("status", run)]


def after_autotune(run_dir: Path) -> str:
    """What Continue runs once autotune has ended, from preprocess.json: the full preprocess
    first while it has not run (a run planned from clips), then the launch step."""
    done = _preprocessed(Path(run_dir))
    if done is not None and not done[1]:
        return (
            "Continue first preprocesses every clip into the data root (the trainer's "
            "`process_dataset.py`, run by the wizard: preprocess.json says it has not run yet), "
            "then opens the launch step."
        )
    return "Continue opens the launch step: the data root is preprocessed already."


def smaller_clips_advice(from_clips: bool) -> str:
    """After a baseline OOM: how to train on fewer pixels. A run planned from a dataset file is
    preprocessed by the wizard, so the bucket is given to the plan; a data root the user
    preprocessed came from the trainer's own script."""
    if from_clips:
        return (
            "Try smaller clips first: plan again with a smaller bucket (fewer pixels or frames: "
            "the Paths screen's bucket field, or `ltx-wizard plan --resolution-buckets WxHxF`); "
            "the wizard preprocesses the clips at that bucket"
        )
    return (
        "Try smaller clips first: rerun the trainer's scripts/process_dataset.py with smaller "
        "--resolution-buckets (fewer pixels or frames), then plan again"
    )
