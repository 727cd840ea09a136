"""What the wizard leaves behind and says on the way out: the run folder, how to start training,
the log and any running pid; and the --demo folder removed (unless its training still runs)."""

from __future__ import annotations

import shutil
from typing import TYPE_CHECKING

from ltx_wizard.core.io.run_folder import PLAN_MD
from ltx_wizard.core.launch.background import running_pid
from ltx_wizard.core.launch.script import launch_files

if TYPE_CHECKING:  # pragma: no cover
    from ltx_wizard.tui.app import WizardApp  # for types only: the App imports this module


def remove_demo_folder(app: WizardApp) -> str | None:
    """Remove the --demo temporary folder, unless a training run started from it still writes
    there; say which. Test folders (demo_root given) are never ours to remove."""
    demo = app.demo
    if demo is None or app.options.demo_root is not None:
        return None
    run_dir = app.state.run_dir
    if run_dir is not None and running_pid(run_dir) is not None:
        return (
            f"Demo folder kept while the simulated training runs: {demo.root} "
            f"(remove it later: rm -rf {demo.root})"
        )
    shutil.rmtree(demo.root, ignore_errors=True)
    return f"Demo: its temporary folder {demo.root} was removed."


def exit_report(app: WizardApp) -> tuple[list[str], list[str]]:
    """(lines for stdout, lines for stderr), printed once the terminal is restored."""
    out: list[str] = []
    # the orphans this start stopped (cli.py): said on the first screen, and here where it stays
    err = [app.options.orphans_reaped] if app.options.orphans_reaped else []
    err += app.exit_errors
    run_dir = app.state.run_dir
    pid = running_pid(run_dir) if run_dir is not None else None
    note = remove_demo_folder(app)  # first: a removed demo run folder is not reported
    if run_dir is not None and PLAN_MD.path(run_dir).exists():
        from ltx_wizard.core.plan.next_steps import come_back, is_tuned, remaining_steps

        out.append(f"Run folder: {run_dir}")
        if pid is None:  # what training needs, in order, with the options this run needs
            steps = remaining_steps(run_dir, app.simulate, tuning=False)
            out.append("Next, in order:" if len(steps) > 1 else f"Start training: {steps[0]}")
            out += [f"  {step}" for step in steps] if len(steps) > 1 else []
        out.append(f"Log: {launch_files(run_dir)[0]}")
        if pid is None and not is_tuned(run_dir):
            tune = remaining_steps(run_dir, app.simulate)[: -len(steps)] or []
            if tune:
                out.append("Not tuned yet; to tune it first: " + " && ".join(tune))
        if pid is not None:
            out.append(
                f"Training runs as pid {pid}: tail -f {launch_files(run_dir)[0]}; stop it with kill -- -{pid}"
            )
    if run_dir is not None and PLAN_MD.path(run_dir).exists():
        out.append("Come back to it: " + " or ".join(come_back(run_dir, app.simulate)))
    if note:
        out.append(note)
    return out, err
