"""What the Monitor screen's keys do once the user has said yes: stop the run with every rank,
resume it from its latest checkpoint, apply a proposed fix, start it again.

Each writes or signals only after a dialog's explicit yes (the safe answer is the default), and
none chains into the next by itself: patching config.yaml and starting the run are two questions
(the train-model skill: "Ask the user to confirm both the patch and the launch").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ltx_wizard.core.io.run_folder import LAUNCH_SCRIPT
from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.base.text_safety import clean_text
from ltx_wizard.tui.widgets.formatting import safe_markup

if TYPE_CHECKING:  # for types only: the Monitor screen imports this module
    from ltx_wizard.tui.screens.monitor import MonitorScreen


def ask_stop(screen: MonitorScreen) -> None:
    from ltx_wizard.core.monitor.trainer_process import stop_trainer
    from ltx_wizard.core.monitor.saved_checkpoints import kept_on_stop
    from ltx_wizard.tui.dialogs.confirm import ConfirmDialog

    status = screen.status
    if status is None or status.process is None:
        screen.notify("No live training process to stop", severity="warning")
        return
    proc, out_dir = status.process, status.output_dir
    # the checkpoints folder as it is now, not as the last refresh saw it: a save may have landed since
    question = f"Stop the training run (pid {proc.pid}) and every rank it started? {kept_on_stop(out_dir)}"

    async def stop() -> None:
        await stop_trainer(proc)
        # read again once stopped: a save may have landed while the dialog was open
        screen.notify(f"Training pid {proc.pid} stopped. {kept_on_stop(out_dir, stopped=True)}", timeout=10)
        screen.refresh_status()

    def answered(yes: bool | None) -> None:
        if yes:
            screen.pings.hush()  # stopped here: no desktop notification for it
            screen.run_worker(stop(), group="monitor-stop", exclusive=True, exit_on_error=False)

    screen.app.push_screen(
        ConfirmDialog(question, yes="Stop training", no="Keep it running", title="Stop training"), answered
    )


def ask_start(screen: MonitorScreen, why: str) -> None:
    """The second question: start launch.sh again (in the background)."""
    from ltx_wizard.core.launch.background import start_training
    from ltx_wizard.tui.dialogs.confirm import ConfirmDialog

    def answered(yes: bool | None) -> None:
        if not yes:
            screen.notify(
                "config.yaml is patched; start training again whenever you are ready: "
                f"bash {safe_markup(LAUNCH_SCRIPT.path(screen.run_dir))}",
                timeout=10,
            )
            return
        try:
            pid, _log = start_training(screen.run_dir)
        except WizardError as exc:
            screen.notify(safe_markup(exc.message), severity="error", timeout=10)
            return
        screen.notify(f"Training runs in the background again: pid {pid}")
        screen.refresh_status()

    screen.app.push_screen(
        ConfirmDialog(
            f"{why} Start training again now (bash launch.sh in the background)?",
            yes="Start training",
            no="Not now",
            title="Start training",
        ),
        answered,
    )


def _failure(exc: Exception) -> str:
    """One line for anything a user file could make an action raise."""
    if isinstance(exc, WizardError):
        return exc.message
    return f"could not read the run's files ({type(exc).__name__}: {clean_text(exc)[:200]})"


def ask_resume(screen: MonitorScreen) -> None:
    from ltx_wizard.core.monitor.resume import apply_resume, plan_resume
    from ltx_wizard.tui.dialogs.config_change import ConfigChangeDialog

    status = screen.status
    if status is None or not status.resumable:
        screen.notify(
            "Resume needs a run that is not running, with a checkpoint saved while the loss was finite",
            severity="warning",
        )
        return
    usable = status.usable_checkpoint
    try:
        plan = plan_resume(screen.run_dir, upto_step=usable.step if usable else None)
    except Exception as exc:  # noqa: BLE001 - a user file must not take the screen down
        screen.notify(_failure(exc), severity="error", timeout=10)
        return

    def answered(yes: bool | None) -> None:
        if not yes:
            return
        try:
            backup, aside = apply_resume(screen.run_dir, plan)
        except Exception as exc:  # noqa: BLE001 - a user file must not take the screen down
            screen.notify(_failure(exc), severity="error", timeout=10)
            return
        moved = f" The earlier samples of step {plan.start_step} are in {aside}." if aside else ""
        ask_start(
            screen,
            f"config.yaml now loads {plan.checkpoint.path.name} (the previous "
            f"config is kept as {backup.name}).{moved}",
        )

    screen.app.push_screen(
        ConfigChangeDialog("Resume training", plan.sentence(), plan.diff, yes="Patch config.yaml"), answered
    )


def ask_fix(screen: MonitorScreen) -> None:
    from ltx_wizard.core.monitor.fix import apply_fix, plan_fix
    from ltx_wizard.tui.dialogs.config_change import ConfigChangeDialog

    status = screen.status
    diagnosis = status.diagnosis if status is not None else None
    if diagnosis is None or not diagnosis.changes or status.state == "live":
        screen.notify("No proposed fix for this run", severity="warning")
        return
    try:
        plan = plan_fix(screen.run_dir, diagnosis.changes)
    except Exception as exc:  # noqa: BLE001 - a user file must not take the screen down
        screen.notify(f"cannot patch config.yaml: {_failure(exc)}", severity="error", timeout=10)
        return

    def answered(yes: bool | None) -> None:
        if not yes:
            return
        try:
            backup = apply_fix(screen.run_dir, plan)
        except Exception as exc:  # noqa: BLE001 - a user file must not take the screen down
            screen.notify(_failure(exc), severity="error", timeout=10)
            return
        done = f"config.yaml patched (the old one: {backup.name})."
        if status.resumable and "output_dir" not in plan.changes:
            screen.notify(f"{done} Resume (r) continues from the latest checkpoint.", timeout=10)
            return
        ask_start(screen, done)

    sentence = (
        f"The run failed ({diagnosis.kind}): {diagnosis.cause}\nThe trainer's advice, "
        "cheapest first, starts with this change to config.yaml:"
    )
    if plan.notes:
        sentence += "\n" + " ".join(plan.notes)
    screen.app.push_screen(ConfigChangeDialog("Apply the proposed fix", sentence, plan.diff), answered)
