"""The wizard's own commands in the command palette (ctrl+p), and where each one applies.

Decided here, from plain facts about the run and the screen on top (the TUI gathers them and
shows the answer), so that the palette never offers what the screen would refuse: a command that
maps to a screen's action is offered only on that screen, and only while its own key would act
(Stop while the trainer is live, Resume while the run can resume, ...). The screens keep the logic;
the palette calls their actions.
"""

from __future__ import annotations

from dataclasses import dataclass

from ltx_wizard.core.base.phases import BY_ID, EXISTING_RUN, MONITOR, RESULTS


@dataclass(frozen=True)
class PaletteFacts:
    current: str | None = None  # the phase id of the screen on top (None: a dialog, no phase)
    below: tuple[str, ...] = ()  # the phases under it, bottom first: the ones that have run
    run_files: tuple[str, ...] = ()  # the run folder's readable files that exist (plan.md, ...)
    training: bool = False  # the run folder holds a training (a log or a pid)
    live: bool = False  # the Monitor's last read: the trainer is running
    resumable: bool = False  # the Monitor's last read: the run can resume from a checkpoint
    eval_running: bool = False  # the Results screen's last read: an evaluation is running
    render_selected: bool = False  # the Results screen shows a render: its scp line exists
    compare_offered: bool = False  # the screen on top offers compare now (the Monitor: two kept, not live)


@dataclass(frozen=True)
class PaletteCommand:
    id: str  # `goto:<phase>`, `open:<file>`, or the screen action's name (`stop`, `resume`, ...)
    title: str
    help: str


def palette_commands(facts: PaletteFacts) -> tuple[PaletteCommand, ...]:
    """Every command that applies now, in the palette's order: places, files, then actions. None
    over a dialog: it waits for its answer, and leaving it unanswered would strand what asked."""
    if facts.current is None:
        return ()
    return (*_places(facts), *_files(facts), *_actions(facts))


def _places(facts: PaletteFacts) -> list[PaletteCommand]:
    """Back to any phase under the one on top (nearest first): Esc's way, in one step."""
    found: list[PaletteCommand] = []
    for phase_id in reversed(facts.below):
        phase = BY_ID.get(phase_id)
        if phase is not None and phase_id != facts.current and all(c.id != f"goto:{phase_id}" for c in found):
            found.append(PaletteCommand(f"goto:{phase_id}", f"Go to {phase.bar_label}", phase.f1_title))
    return found


def _files(facts: PaletteFacts) -> list[PaletteCommand]:
    return [
        PaletteCommand(
            f"open:{name}", f"Open {name}", f"the run folder's {name} in $EDITOR, else read-only here (o)"
        )
        for name in facts.run_files
    ]


def _actions(facts: PaletteFacts) -> list[PaletteCommand]:
    """Each the screen's own key would do now: (command, the screen's action) pairs."""
    on = facts.current
    wanted = (
        (on == EXISTING_RUN.id and facts.training, "monitor", "Monitor training", "the Monitor (m)"),
        (on == MONITOR.id and facts.live, "stop", "Stop training", "asks first, then stops every rank (s)"),
        (on == RESULTS.id and facts.eval_running, "stop", "Stop the evaluation", "asks first (x)"),
        (on == MONITOR.id and facts.resumable, "resume", "Resume training", "from the latest checkpoint (r)"),
        (
            on == MONITOR.id and facts.training,
            "evaluate",
            "Evaluate",
            "renders with and without the LoRA (e)",
        ),
        (facts.compare_offered, "compare", "Compare checkpoints", "which checkpoint to use"),
        (on == RESULTS.id and facts.render_selected, "copy_scp", "Copy the scp line", "OSC 52 (c)"),
    )
    return [PaletteCommand(cid, title, help) for applies, cid, title, help in wanted if applies]
