"""Journey a: the demo from raw clips, keyboard only at 80x24, as a new user walks it: probe →
intent → prepare → paths → plan → autotune → launch → Monitor → stop → resume → eval →
run-summary.md. At every step what the screen shows is read against what is on disk (dataset.json
and holdout.jsonl, plan.md and plan.json, autotune.json and config.yaml, launch.sh, train.log and
the checkpoints, prompts.json and the renders, run-summary.md).

The simulated trainer runs as a real process (launch.sh in the background): the walk waits for
its real progress (a checkpoint file, step lines in train.log), stops it with the Monitor's s,
resumes it with r and evaluates with e, each behind its own dialog answered by key.

Only keys reach the app, built as `ltx-wizard --demo --demo-data raw` builds it (the demo's folder of
raw clips: the Prepare screen after the intent question).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
from pathlib import Path

import pytest

from ltx_wizard.cli import build_parser
from ltx_wizard.cli import make_app as cli_make_app
from ltx_wizard.core.evaluation.job import read_state
from ltx_wizard.tui.dialogs.config_change import ConfigChangeDialog
from ltx_wizard.tui.dialogs.confirm import ConfirmDialog
from ltx_wizard.tui.screens.monitor import MonitorScreen
from ltx_wizard.tui.screens.results import ResultsScreen
from tests.journeys.demo_walk import (
    answer,
    wait_until,
    approve_and_autotune,
    config,
    continue_to_done,
    continue_to_paths_and_plan,
    flat,
    intent_text_to_video,
    monitor_reads,
    prepare_raw_clips,
    probe_to_intent,
    read_json,
    shown,
    start_training,
    steps_in,
)
from tests.tui.helpers import FIXED_HOST, settle


@pytest.fixture(autouse=True)
def _demo_env(monkeypatch):
    # The simulated preprocessor, autotune trials and captioner fast (the launches set their own
    # speed below); keyframes in half blocks whatever terminal runs the tests.
    monkeypatch.setenv("LTX_WIZARD_SIM_SPEED", "500")
    monkeypatch.setenv("LTX_WIZARD_GRAPHICS", "halfblocks")
    for name in ("GEMINI_API_KEY", "GOOGLE_API_KEY", "TMUX", "SSH_CONNECTION"):
        monkeypatch.delenv(name, raising=False)


ARGV = ["--demo", "--demo-data", "raw"]


def _pid(run: Path) -> int | None:
    text = (run / "logs/train.pid").read_text() if (run / "logs/train.pid").is_file() else ""
    return int(text.split()[0]) if text.split() else None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}").is_dir() and "zombie" not in Path(f"/proc/{pid}/status").read_text().lower()


async def test_the_demo_by_keyboard_at_80x24_shows_what_its_files_hold(tmp_path, monkeypatch):
    demo_root = tmp_path / "demo"
    # As the user starts it (`ltx-wizard --demo --demo-data raw`), with the cursor still and the
    # host's RAM and disk fixed (the Summary's host check reads this machine otherwise).
    args = build_parser(ARGV).parse_args(ARGV)
    app = cli_make_app(
        args, demo_root=demo_root, cursor_blink=False, check_delay_s=0, host_fn=lambda run_dir: FIXED_HOST
    )
    trainer_pids: list[int] = []
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            # 1. probe → intent: the picked recipe is the checkout's own file
            tier = await probe_to_intent(pilot)
            assert "40–60GB tier" in tier and "t2v_lora_low_vram.yaml" in tier
            said = await intent_text_to_video(pilot)
            assert "configs/t2v_lora.yaml" in said
            assert (app.demo.checkout / "packages/ltx-trainer/configs/t2v_lora.yaml").is_file()

            # 2. prepare: the questions by key; the counts and IDs said are the files'
            asked, status = await prepare_raw_clips(pilot)
            assert [q.split(":")[0] for q in asked] == ["confirm", "holdout", "spot check"], asked
            assert "phone.mp4 (270°)" in asked[0]
            dataset = Path(re.search(r"Saved to ?(\S+?dataset\.json)", status).group(1))
            run = dataset.parents[1]
            rows = read_json(dataset)
            held = [json.loads(line) for line in (dataset.parent / "holdout.jsonl").read_text().splitlines()]
            assert f"Prepared {len(rows)} training samples (+ {len(held)} held out)" in status
            assert (len(rows), len(held)) == (4, 1)
            assert f"Held-out IDs: {held[0]['video']}." in status
            spot = asked[2].removeprefix("spot check: ").split(" | ")
            captions = {row["caption"] for row in rows + held}
            assert spot and all(c in captions for c in spot)  # the spot check showed the captions kept

            # 3. paths → plan: the dataset prepared is the data the plan reads
            paths, head = await continue_to_paths_and_plan(pilot)
            assert str(dataset) in paths
            assert f"Run folder: {run}" in head

            # 4. approve → one-sample preprocess → autotune: the table is autotune.json's
            at_status = await approve_and_autotune(pilot)
            plan = read_json(run / "plan.json")
            plan_md = (run / "plan.md").read_text()
            assert plan["run_dir"] == str(run) and plan["recipe"] == "t2v_lora"
            # the clips without sound, as preprocessing recorded them: the plan leaves them out
            silent = [str(Path(p).with_suffix(".mp4")) for p in read_json(run / "preprocess.json")["silent"]]
            assert silent == ["videos/quiet.mp4"]
            assert f"Data: {len(rows)} clips listed, {len(rows) - len(silent)} to train on" in head
            assert f"{len(rows)} clips listed; the trainer will train on {len(rows) - len(silent)}" in plan_md
            summary = read_json(run / "autotune.json")["summary"]
            winner = next(t for t in summary["trials"] if t["index"] == summary["winner"])
            assert f"Winner: trial {winner['index']} ({winner['change']}); config.yaml patched" in at_status
            for key, value in winner["changes"].items():
                section, name = key.split(".")
                assert config(run)[section][name] == value  # the winner's change is in config.yaml
            table = app.screen.query_one("#trials")
            cells = [" ".join(str(c) for c in table.get_row_at(i)) for i in range(table.row_count)]
            for trial in summary["trials"]:
                if trial["step_time_s"] is not None:
                    assert any(f"{trial['step_time_s']:.2f} s" in row for row in cells), (trial, cells)

            # 5. continue → full preprocess → Done: the winner and the launch line as written
            done = await continue_to_done(pilot)
            assert f"winner trial {winner['index']} ({winner['change']})" in done
            assert f"{winner['step_time_s']:.2f} s/step, {winner['peak_vram_gb']:.1f} GiB peak" in done
            assert f"bash {run / 'launch.sh'}" in done and (run / "launch.sh").is_file()
            assert read_json(run / "preprocess.json")["full_done"] is True

            # 6. t → launch.sh in the background → Monitor; wait for a real checkpoint
            # The first launch trains slowly (speed 200: step 250's checkpoint after ~6 s, the
            # other 1750 steps of ~4.4 simulated s take ~40 s more), so that it is surely live when
            # s is pressed after that checkpoint, however loaded the machine (its pace is sleeps);
            # the resumed launch finishes fast.
            monkeypatch.setenv("LTX_WIZARD_SIM_SPEED", "200")
            question = await start_training(pilot)
            assert str(run / "logs/train.log") in question
            first_pid = _pid(run)
            assert first_pid is not None
            trainer_pids.append(first_pid)
            every = config(run)["checkpoints"]["interval"]
            total = config(run)["optimization"]["steps"]
            first_ckpt = run / f"outputs/checkpoints/lora_weights_step_{every:05d}.safetensors"
            await wait_until(pilot, first_ckpt.is_file)
            await monitor_reads(pilot, lambda s: s.state == "live" and bool(s.checkpoints))
            assert f"live: pid {first_pid}" in shown(app, "#monitor-head")
            assert first_ckpt.name in flat(shown(app, "#monitor-files"))

            # 7. s → stop after yes; the step and the loss shown are train.log's last
            await pilot.press("s")
            stop = await answer(pilot, ConfirmDialog, "y")
            assert f"checkpoint of step {every} stays" in flat(stop.question)
            await monitor_reads(pilot, lambda s: s.state == "stopped")
            assert not _alive(first_pid)  # the Monitor said stopped: the trainer is gone
            before = steps_in(run / "logs/train.log")
            step, of, loss = before[-1]
            assert every <= step < total == of
            assert f"Step {step} / {total}" in shown(app, "#monitor-head")
            assert f"→ {loss:.4f} at step {step}" in shown(app, "#loss-title")
            assert not (run / f"outputs/checkpoints/lora_weights_step_{total:05d}.safetensors").exists()

            monkeypatch.setenv("LTX_WIZARD_SIM_SPEED", "2000")  # the resumed launch and eval: fast
            # 8. r → resume after yes, then start after yes: config.yaml loads the checkpoint shown
            await pilot.press("r")
            resume = await answer(pilot, ConfigChangeDialog, "y")
            assert f"Resume from step {every} of {total}" in resume.sentence
            assert str(first_ckpt) in config(run)["model"]["load_checkpoint"]
            again = await answer(pilot, ConfirmDialog, "y")
            assert "Start training again" in flat(again.question)
            await wait_until(pilot, lambda: _pid(run) not in (None, first_pid))
            trainer_pids.append(_pid(run))
            await wait_until(
                pilot, lambda: f"Resuming from step {every}" in (run / "logs/train.log").read_text()
            )
            await monitor_reads(pilot, lambda s: s.state == "finished", limit_s=240)
            final = run / f"outputs/checkpoints/lora_weights_step_{total:05d}.safetensors"
            assert final.is_file()
            assert f"Step {total} / {total}" in shown(app, "#monitor-head")
            resumed = steps_in(run / "logs/train.log")
            assert resumed[: len(before)] == before and resumed[-1][0] == total
            assert every < resumed[len(before)][0] <= every + 20  # it went on from the checkpoint

            # 9. e → Results; s starts the evaluation; its renders are prompts.json's
            await pilot.press("e")
            await wait_until(pilot, lambda: isinstance(app.screen, ResultsScreen))
            results = app.screen
            await wait_until(pilot, lambda: results.prompts is not None)
            await settle(pilot)
            assert f"step {total}" in flat(shown(app, "#results-head"))
            await pilot.press("s")
            await wait_until(
                pilot,
                lambda: (read_state(run) or None) is not None and read_state(run).state == "done",
                limit_s=240,
            )
            await wait_until(pilot, lambda: not results.has_class("planning"))
            await settle(pilot)
            manifest = read_json(run / "outputs/eval/prompts.json")
            renders = manifest["renders"]
            assert renders and all((run / "outputs/eval" / name).is_file() for name in renders)
            listed = [str(o.prompt) for o in results.query_one("#results-list")._options]
            head = flat(shown(app, "#results-head"))
            assert manifest["checkpoint"] == f"{final.name} (the final checkpoint, step {total})"
            assert manifest["checkpoint"] in head
            sources = {r["source"] for r in renders.values()}
            assert "holdout.jsonl row 1" in sources  # the held-out clip prepare set aside
            trained = {f"dataset.json row {i}" for i, r in enumerate(rows, 1) if r["video"] not in silent}
            assert {src for src in sources if src.startswith("dataset.json")} == trained  # not the silent one
            for render in renders.values():  # every prompt rendered is listed on the screen
                assert any(render["prompt"][:30] in flat(line) for line in listed), (render, listed)

            # 10. back on the Monitor: run-summary.md, which names the final checkpoint and the renders
            await pilot.press("escape")
            await wait_until(pilot, lambda: isinstance(app.screen, MonitorScreen))
            await settle(pilot)
            # the evaluation's process refreshes run-summary.md just after it writes "done"
            await wait_until(
                pilot, lambda: "## Post-training evaluation" in (run / "run-summary.md").read_text()
            )
            summary_md = (run / "run-summary.md").read_text()
            assert f"**Final checkpoint:** `{final}` (step {total})" in summary_md
            assert f"**Steps:** {total} of {total}" in summary_md
            assert f"Run summary: {run / 'run-summary.md'}" in flat(shown(app, "#monitor-files"))
            evaluation = summary_md.split("## Post-training evaluation", 1)[1]
            assert f"Checkpoint: {manifest['checkpoint']}." in evaluation
            assert all(Path(name).name in evaluation for name in renders)  # each render listed
            assert f"--lora {final} 1.0" in summary_md.split("## Render with it", 1)[1]
    finally:
        for pid in trainer_pids:  # a failed walk leaves no simulated trainer behind
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)
