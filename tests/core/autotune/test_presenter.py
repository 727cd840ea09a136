"""One trial presenter: the log, the CLI and both screens read a result the same way, and every
engine event reaches the TUI as its own typed message (never dispatched by a class-name string)."""

from __future__ import annotations

import ast
import typing
from pathlib import Path

from ltx_wizard.core.autotune import events

from ltx_wizard.core.autotune.outputs import presenter
from ltx_wizard.core.tuning.results import AutotuneSummary, Confirmation, TrialResult

ROOT = Path(__file__).resolve().parents[3] / "ltx_wizard"
OOM = TrialResult(
    index=3, change="optimizer_type -> adamw", outcome="oom", peak_vram_gb=47.94, reason="CUDA out of memory"
)
WIN = TrialResult(
    index=2, change="quantization -> null", outcome="ok", step_time_s=1.914, peak_vram_gb=44.06, kept=True
)
SUMMARY = AutotuneSummary(trials=[OOM.model_copy(update={"index": 1}), WIN], winner=2, config_patched=True)


def test_a_table_row_labels_the_outcome_and_marks_missing_readings():
    assert presenter.trial_row(OOM).cells == (
        "3",
        "optimizer_type -> adamw",
        "OOM",
        "—",
        "47.9 GiB",
        "✗",
        "CUDA out of memory",
    )
    assert presenter.trial_row(WIN).cells[2:6] == ("ok", "1.91 s", "44.1 GiB", "✓")
    conf = Confirmation(trial=2, outcome="nan", gpus=4)
    row = presenter.confirmation_row(conf)
    assert row.key == "confirm-2" and row.cells[1] == "confirm trial 2 (4 GPUs, with validation)"
    assert row.cells[2] == "NaN loss"


def test_the_log_line_keeps_the_outcome_word_and_the_reason():
    line = presenter.human_line(OOM)
    assert line.startswith("trial 3  optimizer_type -> adamw")
    assert " oom " in line and "47.9 GiB peak" in line and line.endswith("(CUDA out of memory)")
    assert "-" in line.split("oom", 1)[1].split("47.9")[0]  # no step time: a dash


def test_the_winner_reads_the_same_on_every_surface():
    assert presenter.winner_brief(SUMMARY) == "trial 2 (quantization -> null)"
    sentence = presenter.winner_sentence(SUMMARY)
    assert sentence == (
        "winner trial 2 (quantization -> null), 1.91 s/step, 44.1 GiB peak; patched into config.yaml"
    )
    end = presenter.progress_line(events.AutotuneFinished(summary=SUMMARY))
    assert end == "autotune finished: winner trial 2 (quantization -> null)"
    none = SUMMARY.model_copy(update={"winner": None, "config_patched": False})
    assert presenter.winner_brief(none) == ""
    assert presenter.winner_sentence(none).startswith("no trial succeeded")
    assert presenter.progress_line(events.AutotuneFinished(summary=none)).endswith("no winner")


def test_the_cli_prints_each_trial_event_and_skips_log_and_vram_lines():
    started = events.TrialStarted(index=1, change="baseline", total_steps=40, config_path="t.yaml")
    assert presenter.progress_line(started) == "trial 1: baseline ..."
    step = events.TrialProgress(index=1, step=20, total=40, step_time_s=2.5)
    assert presenter.progress_line(step) == "  step 20/40, 2.50 s/step"
    assert presenter.progress_line(events.TrialFinished(result=OOM)) == "  " + presenter.human_line(OOM)
    assert presenter.progress_line(events.LogLine(text="x")) is None
    assert presenter.progress_line(events.VramUpdate(used_mib=[1], total_mib=[2])) is None


def test_every_engine_event_but_log_lines_has_its_own_screen_message():
    from ltx_wizard.tui import messages
    from ltx_wizard.tui.autotune_controller import MESSAGE_FOR

    kinds = set(typing.get_args(events.AutotuneEvent))
    assert set(MESSAGE_FOR) == kinds - {events.LogLine}
    assert len(set(MESSAGE_FOR.values())) == len(MESSAGE_FOR)  # one message class each
    assert all(issubclass(m, messages.AutotuneMessage) for m in MESSAGE_FOR.values())


def test_nothing_dispatches_autotune_events_by_their_class_name():
    names = {cls.__name__ for cls in typing.get_args(events.AutotuneEvent)}
    found = []
    for path in ROOT.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Compare):
                consts = [c.value for c in [node.left, *node.comparators] if isinstance(c, ast.Constant)]
                if any(c in names for c in consts):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert found == []


def test_the_cancel_dialog_promises_what_the_engine_does():
    kept = WIN.model_copy(update={"changes": {"acceleration.quantization": None}})
    assert "config.yaml gets the best so far, trial 2 (quantization -> null)" in presenter.cancel_promise(
        kept
    )
    assert "config.yaml stays as planned" in presenter.cancel_promise(None)
    assert "config.yaml stays as planned" in presenter.cancel_promise(WIN)  # baseline-like: no change


def test_a_skipped_trial_says_why_once():
    from ltx_wizard.core.tuning.results import TrialResult
    from ltx_wizard.core.autotune.outputs.presenter import why_text

    why = "no-op: quantization is already off"
    skipped = TrialResult(
        index=2,
        change="quantization off (already null)",
        changes={},
        outcome="skipped",
        reason=why,
        decision=f"not run: {why}",
    )
    assert why_text(skipped) == f"not run: {why}"
