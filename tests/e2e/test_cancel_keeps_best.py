"""Cancel does what its dialog says: config.yaml keeps the best result so far, and a resume
still tunes from the plan (finished trials are not run again, nothing is patched twice)."""

from __future__ import annotations

from ltx_wizard.core.autotune.events import TrialFinished, TrialStarted
from ltx_wizard.core.io.yaml_patch import load_yaml, patch_yaml_text
from tests.core.autotune.test_autotune_engine import _engine, plan_run


def _value(text: str, key: str):
    node = load_yaml(text)
    for part in key.split("."):
        node = node[part]
    return node


async def test_cancel_patches_the_best_so_far_and_resume_starts_from_the_plan(tmp_path):
    run_dir = plan_run(tmp_path, "a6000")
    planned = (run_dir / "config.yaml").read_text()
    events: list = []
    # batch trials allowed: on the a6000 the last change that runs by default is the first kept
    # one (AdamW); with the batch trials after it there is a trial to cancel.
    engine = _engine(run_dir, "a6000", events, allow_batch_change=True)
    kept: list = []

    def on_event(event):
        events.append(event)
        if isinstance(event, TrialFinished) and event.result.kept and event.result.index > 1:
            kept.append(event.result)
        if isinstance(event, TrialStarted) and kept:
            engine.cancel()  # the trial after the first kept change

    engine.on_event = on_event
    summary = await engine.run()
    assert kept, "the demo's a6000 keeps a change (quantization off or AdamW)"
    assert summary.stop_reason == "cancelled" and summary.config_patched
    assert summary.winner == kept[-1].index
    written = (run_dir / "config.yaml").read_text()
    assert written != planned
    for key, value in kept[-1].changes.items():
        assert _value(written, key) == value  # the best so far is in config.yaml

    resumed: list = []
    summary2 = await _engine(run_dir, "a6000", resumed, allow_batch_change=True).run()
    started = [e.index for e in resumed if isinstance(e, TrialStarted)]
    assert not set(started) & {t.index for t in kept} and 1 not in started  # not run again
    final = (run_dir / "config.yaml").read_text()
    assert summary2.stop_reason != "cancelled"
    if summary2.winner_changes:  # the winner over the plan, not over the cancel's patch
        expected = patch_yaml_text(planned, summary2.winner_changes)
        assert all(_value(final, k) == _value(expected, k) for k in summary2.winner_changes)
    else:
        assert final == planned


async def test_cancel_before_any_change_is_kept_leaves_config_yaml_as_planned(tmp_path):
    run_dir = plan_run(tmp_path, "a6000")
    planned = (run_dir / "config.yaml").read_text()
    engine = _engine(run_dir, "a6000", [])

    def on_event(event):
        if isinstance(event, TrialStarted):
            engine.cancel()  # the baseline itself

    engine.on_event = on_event
    summary = await engine.run()
    assert summary.stop_reason == "cancelled" and not summary.config_patched
    assert (run_dir / "config.yaml").read_text() == planned


async def test_a_cancel_during_the_last_trials_validation_holds_at_demo_speed(tmp_path):
    # on one GPU the last trial carries the confirmation (fused): it trains 40 steps, then
    # validates. A cancel while it validates once let it count as a kept trial and patched its
    # change into config.yaml, against what the cancel dialog had said.
    from ltx_wizard.core.autotune.events import TrialPhase

    run_dir = plan_run(tmp_path, "a6000")
    planned = (run_dir / "config.yaml").read_text()
    engine = _engine(run_dir, "a6000", [])
    best_before: list = []
    results: list = []

    def on_event(event):
        if isinstance(event, TrialFinished):
            results.append(event.result)
        if (
            isinstance(event, TrialPhase)
            and event.phase == "validating"
            and not event.confirmation
            and not best_before
        ):
            best_before.append(([r.index for r in results if r.kept], event.index))
            engine.cancel()

    engine.on_event = on_event
    summary = await engine.run()
    assert best_before, "the last trial on the a6000 validates after its step 40"
    kept_before, running = best_before[0]
    last = next(t for t in summary.trials if t.index == running)
    assert summary.stop_reason == "cancelled" and last.outcome == "cancelled" and not last.kept
    assert summary.winner in kept_before + [None, 1]
    if summary.config_patched:  # the best *before* the cancel, nothing of the cancelled trial
        written = (run_dir / "config.yaml").read_text()
        for key, value in last.changes.items():
            assert _value(written, key) != value or _value(planned, key) == value
