"""The App's autotune role: runs the engine in a worker the App owns (popping the screen never
kills a trial), turns each typed engine event into the screen's typed message, and bounds what a
flood of trainer output can cost.

Log lines go to a bounded buffer the screen drains on its display tick; progress and VRAM
readings are held until that tick and posted once per trial (per GPUs) then, so a trainer printing
thousands of step lines a second costs a few messages, not one each (a pilot test counts them);
everything else is posted at once, after what was held, so that order is kept. Readings posted
faster than the screen handles them give way to newer ones in its queue (the messages'
`can_replace`).
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import TYPE_CHECKING, Any

from ltx_wizard.core.autotune.outputs.live_rows import RunningTrials
from ltx_wizard.core.autotune import events
from ltx_wizard.core.tuning import results
from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.tui import messages
from ltx_wizard.tui.heap import settle_heap
from ltx_wizard.tui.screens.autotune import AutotuneScreen

if TYPE_CHECKING:
    from ltx_wizard.tui.app import WizardApp  # for types only: the App imports this module

LOG_BUFFER_LINES = 2000  # a flood of trainer output is dropped here, not queued as messages
MESSAGE_FOR: dict[type, type[messages.AutotuneMessage]] = {
    events.TrialStarted: messages.TrialStarted,
    events.TrialProgress: messages.TrialProgress,
    events.TrialPhase: messages.TrialPhase,  # the live rows, and a dropped guess's row
    events.VramUpdate: messages.VramUpdate,
    events.TrialFinished: messages.TrialFinished,
    events.ConfirmationStarted: messages.ConfirmationStarted,
    events.ConfirmationFinished: messages.ConfirmationFinished,
    events.AutotuneFinished: messages.AutotuneFinished,
}


class AutotuneController:
    def __init__(self, app: WizardApp) -> None:
        self.app = app
        self.log_buffer: deque[str] = deque(maxlen=LOG_BUFFER_LINES)
        self._held: dict[tuple[type, object], events.AutotuneEvent] = {}
        self._engine: Any | None = None
        # fed every event here, not on the screen: the rows survive the screen being popped
        self.trials = RunningTrials(clock=app.options.clock)

    @property
    def running(self) -> bool:
        return self.app.state.autotune_running

    def start(self) -> None:
        state = self.app.state
        if state.autotune_running or state.run_dir is None:
            return
        state.summary = None
        state.autotune_error = None
        state.autotune_running = True
        self.log_buffer.clear()
        self._held.clear()
        self.trials = RunningTrials(clock=self.app.options.clock)
        settle_heap(self.app)  # before the trials' output: later full collections skip all that lives now
        self.app.run_worker(self._run(), group="autotune", exclusive=True, exit_on_error=False)

    def cancel(self) -> None:
        if self._engine is not None:
            self._engine.cancel()

    async def stopped(self, timeout_s: float) -> None:
        """Until the autotune worker has ended (after cancel()), at most `timeout_s`."""
        workers = [w for w in self.app.workers if w.group == "autotune" and not w.is_finished]
        if workers:
            try:
                await asyncio.wait_for(
                    asyncio.gather(*(w.wait() for w in workers), return_exceptions=True), timeout_s
                )
            except TimeoutError:
                pass

    def _make_engine(self) -> Any:
        app, state, options = self.app, self.app.state, self.app.options
        if options.engine_factory is not None:
            factory = options.engine_factory
        else:
            from ltx_wizard.core.autotune.sweep.engine import AutotuneEngine as factory
        from ltx_wizard.core.autotune.trials.trial_command import split_trainer_cmd

        assert state.run_dir is not None and state.probe is not None
        trainer_root = state.request.trainer_root
        return factory(
            state.run_dir,
            probe=state.probe,
            assessment=state.assessment,
            trainer_cmd=split_trainer_cmd(options.trainer_cmd) if options.trainer_cmd else None,
            stand_in=app.stand_ins.chosen,
            trainer_root=trainer_root,
            on_event=self.on_event,
            allow_batch_change=state.allow_batch_change,
        )

    async def _run(self) -> None:
        summary: results.AutotuneSummary | None = None
        error: str | None = None
        try:
            self._engine = self._make_engine()
            summary = await self._engine.run()
        except WizardError as exc:
            error = exc.message
        except Exception as exc:  # the UI must survive an engine bug and say so in one line
            error = f"autotune failed: {type(exc).__name__}: {exc}"
        finally:
            self._engine = None
            self.trials.clear()  # an engine that stopped on an error ends no trial itself
        state = self.app.state
        state.autotune_running = False
        state.summary = summary
        state.autotune_error = error
        self.flush_held()
        self.post(messages.AutotuneStopped(summary, error))
        if state.run_dir is not None:  # a desktop notification: autotune takes a while
            from ltx_wizard.core.monitor.notify_ending import autotune_ending
            from ltx_wizard.tui.notify import send_ping

            send_ping(self.app, autotune_ending(state.run_dir, summary, error))
        self.toast_outcome(summary, error)

    def toast_outcome(self, summary: results.AutotuneSummary | None, error: str | None) -> None:
        """A long action finished: its outcome as a toast, on whatever screen is up."""
        from ltx_wizard.core.autotune.outputs import presenter

        if error is not None:
            self.app.notify(f"Autotune stopped: {error}", title="Autotune", severity="error", timeout=12)
        elif summary is not None:
            self.app.notify(f"Autotune finished: {presenter.winner_sentence(summary)}", title="Autotune")

    def on_event(self, event: events.AutotuneEvent) -> None:
        """The engine's sink, called on the event loop."""
        if isinstance(event, events.LogLine):
            self.log_buffer.append(event.text)
            return
        self.trials.feed(event)  # every progress event, before any is held back below
        # held to the tick, the newest kept: per trial for progress, per GPUs for VRAM
        if isinstance(event, events.TrialProgress):
            self._held[(type(event), event.index)] = event
        elif isinstance(event, events.VramUpdate):
            self._held[(type(event), event.gpus)] = event
        else:
            self.flush_held()
            self.post(MESSAGE_FOR[type(event)](event))

    def flush_held(self) -> None:
        """Post the held progress and VRAM events; the Autotune screen calls this every tick."""
        held, self._held = self._held, {}
        for event in held.values():
            self.post(MESSAGE_FOR[type(event)](event))

    def post(self, message: messages.AutotuneMessage | messages.AutotuneStopped) -> None:
        """To the Autotune screen, when one is shown; otherwise the App's state has it all."""
        for screen in reversed(self.app.screen_stack):
            if isinstance(screen, AutotuneScreen) and screen.is_mounted:
                screen.post_message(message)
                return
