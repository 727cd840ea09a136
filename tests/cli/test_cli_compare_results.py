"""Where compare's recommendation shows (issue 44, Deliver 5) and the user's pick: on a simulated run
that kept its checkpoints and held clips out, `compare` runs through the CLI, then `status --json`
carries a `compare` object, run-summary.md a section with each compared checkpoint's numbers and the
recommendation, and `ltx-wizard pick RUN STEP` records the pick, which the summary's render line then
uses (and the line runs as printed)."""

from __future__ import annotations

import msgspec

from ltx_wizard.core.compare.measured_cost import MeasuredCost, cost_lines

import contextlib
import io
import json
import shlex
from pathlib import Path

import pytest

from ltx_wizard.cli import main
from ltx_wizard.core.compare.loss_record import effect_text, loss_text
from ltx_wizard.core.launch import accelerate_config
from tests.cli.test_cli_compare import build_run

SUMMARY = "run-summary.md"


@pytest.fixture(autouse=True)
def _box_env(monkeypatch):
    monkeypatch.setattr(accelerate_config, "accelerate_available", lambda: False)
    monkeypatch.setenv("LTX_WIZARD_SIM_SPEED", "0")


def _status(run: Path, capsys) -> dict:
    capsys.readouterr()
    assert main(["status", str(run), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture(scope="module")
def compared(tmp_path_factory):
    """(run, status --json before compare, compare --json's object)."""
    mp = pytest.MonkeyPatch()
    mp.setattr(accelerate_config, "accelerate_available", lambda: False)
    mp.setenv("LTX_WIZARD_SIM_SPEED", "0")
    try:
        run = build_run(tmp_path_factory.mktemp("results"))
        out = io.StringIO()  # capsys is function-scoped: the commands' output is read by hand
        with contextlib.redirect_stdout(out):
            assert main(["status", str(run), "--json"]) == 0
        before = json.loads(out.getvalue())
        before["summary_text"] = (run / SUMMARY).read_text("utf-8")
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            assert main(["compare", str(run), "--yes", "--json", "--no-render"]) == 0
        yield run, before, json.loads(out.getvalue())
    finally:
        mp.undo()


def test_status_json_carries_the_recommendation_and_null_before_compare(compared, capsys):
    run, before, found = compared
    assert before["state"] == "finished" and before["compare"] is None
    shown = _status(run, capsys)["compare"]
    assert shown["recommended"] == found["recommended"]
    assert shown["recommended"]["step"] in [c["step"] for c in found["checkpoints"]]
    assert Path(shown["path"]) == run / "outputs" / "compare" / "compare.json"
    assert json.loads(Path(shown["path"]).read_text())["recommended"] == found["recommended"]


def test_the_summary_shows_each_compared_checkpoint_and_the_recommendation(compared, capsys):
    run, before, found = compared
    assert "## Which checkpoint" not in before["summary_text"]  # written by status before compare
    summary = run / SUMMARY
    assert main(["status", str(run)]) == 0  # compare.json is newer: the summary is written again
    text = summary.read_text("utf-8")
    section = text.split("## Which checkpoint (compare)", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ") and line[2].isdigit()]
    assert len(rows) == len(found["checkpoints"]) >= 5
    for row, entry in zip(rows, found["checkpoints"]):
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert cells == [
            f"{entry['step']:,}",
            loss_text(entry["held_out_loss"]),
            loss_text(entry["train_loss"]),
            effect_text(entry["effect"]),
            "ok",
        ]
    rec = found["recommended"]
    assert f"**Recommended:** step {rec['step']:,}. Why: {rec['reason']}" in section
    assert "**Picked:** none yet" in section
    # what compare measured it cost, as compare.json holds it (the simulator measures no GPU time)
    assert found["cost"] is not None
    assert f"- {cost_lines(msgspec.convert(found['cost'], MeasuredCost))[0][6:]}" in section.splitlines()


def _render_line(text: str) -> tuple[str, str]:
    section = text.split("## Render with it", 1)[1]
    lines = section.splitlines()
    return lines[2], lines[lines.index("```bash") + 1]


def test_pick_refuses_a_step_that_was_not_compared(compared, capsys):
    run, _, found = compared
    capsys.readouterr()
    assert main(["pick", str(run), "7"]) == 2
    err = capsys.readouterr().err
    steps = ", ".join(f"{c['step']:,}" for c in found["checkpoints"])
    assert f"step 7 is not a compared checkpoint of {run}: pick one of {steps}" in err
    assert err.count("\n") == 1 and not (run / "outputs" / "compare" / "pick.json").exists()


def test_pick_is_recorded_and_the_render_line_uses_it_as_printed(compared, capsys, tmp_path):
    from tests.eval_runs import run_as_printed

    run, _, found = compared
    rec = found["recommended"]["step"]
    other = next(c for c in found["checkpoints"] if c["step"] != rec)
    final = found["checkpoints"][-1]
    capsys.readouterr()
    main(["status", str(run)])
    said, line = _render_line((run / SUMMARY).read_text("utf-8"))
    assert said.startswith(f"It uses the final checkpoint, step {final['step']:,} (no checkpoint picked yet")
    assert f"--lora {final['path']} 1.0" in line
    capsys.readouterr()
    assert main(["pick", str(run), str(other["step"])]) == 0
    out = capsys.readouterr().out
    record = json.loads((run / "outputs" / "compare" / "pick.json").read_text())
    assert (record["step"], record["path"], record["recommended_step"]) == (other["step"], other["path"], rec)
    assert f"Picked: step {other['step']:,}, picked {record['time']}" in out
    assert f"Summary: {run / SUMMARY}" in out
    said, line = _render_line((run / SUMMARY).read_text("utf-8"))
    assert (
        said
        == f"It uses the checkpoint you picked, step {other['step']:,} (picked {record['time']}): `{other['path']}`."
    )
    argv = shlex.split(line)
    assert argv[argv.index("--lora") + 1 : argv.index("--lora") + 3] == [other["path"], "1.0"]
    done = run_as_printed(line, run.parent.parent / "LTX-2", tmp_path / "bin")
    assert done.returncode == 0, done.stderr
    assert Path(argv[argv.index("--output-path") + 1]).is_file()
    shown = _status(run, capsys)["compare"]["pick"]
    assert shown == {k: record[k] for k in ("step", "path", "time", "recommended_step")}


def test_a_damaged_compare_record_is_said_and_status_goes_on(tmp_path, capsys):
    from tests.monitor_runs import make_run, sample_log

    run = make_run(tmp_path, sample_log("ok_single_gpu_cols250"), checkpoints=((50, True),))
    record = run / "outputs" / "compare" / "compare.json"
    record.parent.mkdir(parents=True, exist_ok=True)
    record.write_text("{not json", encoding="utf-8")
    found = _status(run, capsys)
    assert found["state"] == "finished" and set(found["compare"]) == {"error"}
    assert "compare.json" in found["compare"]["error"] and "ltx-wizard compare" in found["compare"]["error"]
    text = (run / SUMMARY).read_text("utf-8")
    section = text.split("## Which checkpoint (compare)", 1)[1]
    assert found["compare"]["error"] in section
    said, _ = _render_line(text)
    assert said.startswith("It uses the final checkpoint, step 50 (no checkpoint picked)")
