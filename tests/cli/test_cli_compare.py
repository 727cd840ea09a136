"""`ltx-wizard compare RUN` (issue 44, Deliver 6 and 7) on a simulated run that kept five
checkpoints and preprocessed its held-out clips: the health check and the held-out loss run as
children (the simulated trainer environment's stand-ins), their records are read back, and the
checkpoints and the recommendation are printed, or the JSON object with --json."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path

import pytest

from ltx_wizard.cli import main
from ltx_wizard.core.compare import compare_plan
from ltx_wizard.core.launch import accelerate_config
from ltx_wizard.core.prepare.holdout import HOLDOUT_FILE
from ltx_wizard.demo.lookalike_checkout import make_checkout
from ltx_wizard.demo.lookalike_media import make_clip_dataset
from ltx_wizard.demo.lookalike_models import make_checkpoint, make_gemma_dir

SIM = ("--simulate", "a6000")
KEYS = {"step", "path", "held_out_loss", "train_loss", "effect", "health"}


@pytest.fixture(autouse=True)
def _box_env(monkeypatch, tmp_path):
    monkeypatch.setattr(accelerate_config, "accelerate_available", lambda: False)
    monkeypatch.setenv("LTX_WIZARD_SIM_SPEED", "0")


def build_run(box: Path, *, held: int = 2) -> Path:
    """Plan (video only, five checkpoints kept), preprocess (training and held-out clips), train (launch.sh,
    the simulated trainer): the run folder `compare` reads."""
    make_checkout(box / "LTX-2")
    make_checkpoint(box / "models" / "ltx-2-19b.safetensors", params_b=22)
    make_gemma_dir(box / "models" / "gemma")
    dataset = make_clip_dataset(box / "cats", [{}] * (3 + held))
    rows = json.loads(dataset.read_text("utf-8"))
    dataset.write_text(json.dumps(rows[: len(rows) - held], indent=2) + "\n", "utf-8")
    if held:
        text = "".join(json.dumps(r) + "\n" for r in rows[len(rows) - held :])
        (dataset.parent / HOLDOUT_FILE).write_text(text, "utf-8")
    argv = [
        "plan",
        "--trainer-root",
        str(box / "LTX-2"),
        "--checkpoint",
        str(box / "models" / "ltx-2-19b.safetensors"),
    ]
    argv += ["--text-encoder", str(box / "models" / "gemma"), "--dataset", str(dataset)]
    assert main([*argv, "--workspace", str(box / "ws"), "--run-name", "run", "--video-only", *SIM]) == 0
    run = box / "ws" / "run"
    assert main(["preprocess", str(run), "--one-sample", *SIM]) == 0
    assert main(["preprocess", str(run), "--skip-autotune", *SIM]) == 0
    env = {**os.environ, "LTX_WIZARD_SIM_SPEED": "0"}
    done = subprocess.run(
        ["bash", str(run / "launch.sh")], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return run


# One worker runs this module (`--dist loadgroup`), so its costly module fixture runs once.
pytestmark = pytest.mark.xdist_group("cli_compare")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    box = tmp_path_factory.mktemp("compare")
    mp.setattr(accelerate_config, "accelerate_available", lambda: False)
    mp.setenv("LTX_WIZARD_SIM_SPEED", "0")
    try:
        yield build_run(box)
    finally:
        mp.undo()


def checkpoints(run: Path) -> list[Path]:
    return sorted((run / "outputs" / "checkpoints").glob("lora_weights_step_*.safetensors"))


def compare_json(run: Path, capsys, *extra: str) -> dict:
    capsys.readouterr()
    assert main(["compare", str(run), "--yes", "--json", *extra]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def test_compare_twice_gives_the_same_held_out_losses_and_the_json_keys(built, capsys):
    first = compare_json(built, capsys)
    second = compare_json(built, capsys)
    kept = checkpoints(built)
    assert len(kept) >= 5
    assert set(first) == {"checkpoints", "recommended", "held_out_note", "cost", "grid", "contact_sheet"}
    # Deliver 2: measured after, beside plan.md's estimate (a simulated run measures no GPU time)
    cost = first["cost"]
    assert (cost["device"], cost["rendered"], cost["loss_passes"]) == (
        "simulated",
        True,
        (len(kept) + 1) * 20,
    )
    assert cost["whole_s"] > 0
    # planned with --skip-autotune: no duration estimate, so nothing to set the measure beside
    assert (cost["estimated_loss_s"], cost["estimated_whole_s"], cost["train_gpu_s"]) == (None, None, None)
    compare_dir = built / "outputs" / "compare"
    assert (first["grid"], first["contact_sheet"]) == (
        str(compare_dir / "grid.json"),
        str(compare_dir / "contact-sheet.png"),
    )
    assert [set(c) for c in first["checkpoints"]] == [KEYS] * len(kept)
    assert [c["path"] for c in first["checkpoints"]] == [str(p) for p in kept]
    assert all(set(c["health"]) == {"ok", "problems"} for c in first["checkpoints"])
    losses = [c["held_out_loss"] for c in first["checkpoints"]]
    assert all(isinstance(x, float) for x in losses)
    assert losses == [c["held_out_loss"] for c in second["checkpoints"]]
    assert first["held_out_note"] is None
    # the numbers are the records' (the program wrote them; the command only read them)
    from ltx_wizard.core.compare.loss_record import loss_file, read_loss_record

    for entry, path in zip(first["checkpoints"], kept):
        record = read_loss_record(loss_file(built, path))
        assert record is not None and record.held_out.loss == entry["held_out_loss"]
        assert (record.train.loss, record.effect) == (entry["train_loss"], entry["effect"])
    assert read_loss_record(loss_file(built, None)) is not None  # the base model's too
    picked = first["recommended"]
    assert picked["step"] in [c["step"] for c in first["checkpoints"]] and picked["reason"]
    assert f"step {picked['step']:,}" in picked["reason"]
    logs = sorted(p.name for p in (built / "logs").glob("compare-*.log"))
    # Deliver 8: the held-out loss has no process of its own; the tournament's computes it first
    assert logs == ["compare-lora-health.log", "compare-renders.log"]
    render_log = (built / "logs" / "compare-renders.log").read_text("utf-8")
    this_run = render_log[render_log.rfind("=== compare: renders of ") :]
    assert this_run.startswith("=== compare: renders of base, ") and "the held-out loss first\n" in this_run
    said = [line.split(":")[0] for line in this_run.splitlines()[1:] if not line.startswith("===")]
    assert said == ["heldout_loss"] * (len(kept) + 1) + ["tournament_render"] * (len(kept) + 1)
    # what was printed is the record status and run-summary.md read later
    from ltx_wizard.core.compare import compare_record

    written = compare_record.read_compare(built)
    assert written is not None
    made = {"grid": second["grid"], "contact_sheet": second["contact_sheet"]}
    assert json.loads(json.dumps({**compare_record.compare_json(written), **made})) == second


def test_the_table_and_the_cost_line(built, capsys, monkeypatch):
    monkeypatch.delenv("SSH_CONNECTION", raising=False)
    capsys.readouterr()
    assert main(["compare", str(built), "--yes", "--checkpoints", "all"]) == 0
    out = capsys.readouterr().out
    kept = checkpoints(built)
    n = len(kept)
    assert f"= {(n + 1) * 2 * 2 * 5:,} transformer forward passes" in out  # 2 held-out clips, 2 training
    assert "(computed first in the tournament's process, on its one model load)" in out
    assert "2 program(s), 1 transformer load; logs: " in out  # the health check, the tournament
    assert f"- tournament renders: the base and {n} checkpoint(s) x 3 prompt(s)" in out
    assert "one process in the trainer's environment, one model load for every row and, before them, " in out
    assert "recommended: step " in out
    # measured after, beside what plan.md estimated for the same checkpoints and samples
    from ltx_wizard.core.compare.compare_record import read_compare
    from ltx_wizard.core.compare.measured_cost import cost_lines

    written = read_compare(built)
    assert written is not None and written.cost is not None
    (said_cost,) = cost_lines(written.cost)
    assert said_cost in out and said_cost.startswith("cost: simulated GPUs, so no GPU time was measured")
    assert said_cost.endswith(
        "plan.md estimated nothing (autotune left no duration estimate) on the planned GPUs"
    )
    folder = built / "outputs" / "compare"
    said, line = out.splitlines()[-1].split(": ", 1)
    argv = shlex.split(line)
    assert said == "copy it home" and argv[:2] == ["scp", "-r"] and argv[3] == "."
    assert argv[2].endswith(f"@<this-box>:{folder}")  # no SSH_CONNECTION here


def test_a_nan_lora_and_an_audio_module_on_a_video_only_run_are_flagged(built, capsys):
    from tests.lora_files import write_lora

    assert "  audio: null" in (built / "config.yaml").read_text("utf-8")  # a video-only run
    kept = checkpoints(built)
    saved = {p: p.read_bytes() for p in kept[:2]}
    try:
        write_lora(kept[0], nan_in="transformer_blocks.1.attn1.to_q")
        write_lora(kept[1], audio_trained=True)
        out = compare_json(built, capsys)
    finally:
        for path, data in saved.items():
            path.write_bytes(data)
    nan, audio = out["checkpoints"][0]["health"], out["checkpoints"][1]["health"]
    assert not nan["ok"] and any("NaN" in p for p in nan["problems"]), nan
    assert not audio["ok"] and any("trained on a video-only run" in p for p in audio["problems"]), audio
    assert all(c["health"]["ok"] for c in out["checkpoints"][2:])
    assert out["recommended"]["step"] not in (out["checkpoints"][0]["step"], out["checkpoints"][1]["step"])


def test_some_steps_only(built, capsys):
    kept = checkpoints(built)
    steps = [int(p.stem.rsplit("_", 1)[1]) for p in kept]
    out = compare_json(built, capsys, "--checkpoints", f"{steps[-1]},{steps[0]}", "--no-render")
    assert [c["step"] for c in out["checkpoints"]] == [steps[0], steps[-1]]


@pytest.mark.parametrize(
    ("wanted", "said"),
    [("7,abc", "'abc' is not a step"), ("99999", "no checkpoint of step 99999"), ("", "'' is not a step")],
)
def test_a_bad_checkpoints_list_is_one_line_exit_2(built, capsys, wanted, said):
    capsys.readouterr()
    assert main(["compare", str(built), "--yes", "--checkpoints", wanted]) == 2
    err = capsys.readouterr().err
    assert said in err and err.count("\n") == 1


def test_no_terminal_and_no_yes_names_yes(built, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", open(os.devnull))
    assert main(["compare", str(built), "--json"]) == 2
    assert "--yes" in capsys.readouterr().err


def test_a_run_without_checkpoints_is_refused(built, capsys, tmp_path):
    run = tmp_path / "empty"
    run.mkdir()
    (run / "config.yaml").write_text(
        (built / "config.yaml")
        .read_text("utf-8")
        .replace(str(built / "outputs"), str(tmp_path / "no-outputs")),
        "utf-8",
    )
    capsys.readouterr()
    code = main(["compare", str(run), "--yes", *SIM])
    err = capsys.readouterr().err
    assert code == 2 and "kept no checkpoint" in err, err


def test_without_held_out_clips_the_loss_is_null_and_the_note_says_why(tmp_path, capsys):
    run = build_run(tmp_path / "box", held=0)
    capsys.readouterr()
    assert main(["compare", str(run), "--yes", "--json", "--no-render"]) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert out["held_out_note"].startswith("no clips were held out")
    assert all(c[k] is None for c in out["checkpoints"] for k in ("held_out_loss", "train_loss", "effect"))
    assert all(c["health"]["ok"] for c in out["checkpoints"])
    assert out["recommended"]["step"] is not None
    assert "held-out loss: not run: no clips were held out" in captured.err and "1 program(s)" in captured.err
    assert not list((run / "outputs" / "compare").glob("heldout-loss-*.json"))
    assert [p.name for p in (run / "logs").glob("compare-*.log")] == ["compare-lora-health.log"]


def test_a_program_that_fails_is_exit_1_naming_its_log_and_last_lines(built, capsys):
    latents = built / "holdout" / ".precomputed" / "latents"
    latents.rename(latents.with_name("moved"))
    try:
        capsys.readouterr()
        code = main(["compare", str(built), "--yes", "--json"])
    finally:
        latents.with_name("moved").rename(latents)
    captured = capsys.readouterr()
    log = built / "logs" / "compare-renders.log"  # the loss runs in the tournament's process
    assert code == 1 and captured.out == ""
    said = captured.err.splitlines()[-1]  # above it, what compare said it would run
    assert said.startswith(
        "ltx-wizard: the held-out loss failed (no record for the base model, lora_weights_step_"
    )
    assert f"; the last lines of {log}: " in said
    assert said.endswith(f"tournament_render: no latents under {built / 'holdout' / '.precomputed'}")
    assert not list((built / "outputs" / "compare").glob("heldout-loss-*.json"))  # none stale
    assert not (built / "outputs" / "compare" / "grid.json").exists()


def test_without_renders_the_loss_is_its_own_program_and_its_failure_names_its_log(built, capsys):
    latents = built / "holdout" / ".precomputed" / "latents"
    latents.rename(latents.with_name("moved"))
    try:
        capsys.readouterr()
        code = main(["compare", str(built), "--yes", "--json", "--no-render"])
    finally:
        latents.with_name("moved").rename(latents)
    captured = capsys.readouterr()
    log = built / "logs" / "compare-heldout-loss.log"
    assert code == 1 and captured.out == ""
    assert "2 program(s), 1 transformer load; logs: " in captured.err
    said = captured.err.splitlines()[-1]
    assert said.startswith(f"ltx-wizard: the held-out loss failed (exit 2); the last lines of {log}:")
    assert said.endswith(f"heldout_loss: no latents under {built / 'holdout' / '.precomputed'}")


def fake_uv(folder: Path, trainer_dir: Path) -> Path:
    """A `uv` on PATH standing in for the trainer environment's: `uv run python PROGRAM ARGS`,
    from the trainer's folder, runs PROGRAM with this python (torch here) as the real one would."""
    import sys

    folder.mkdir(parents=True, exist_ok=True)
    uv = folder / "uv"
    uv.write_text(
        f"#!{sys.executable}\n"
        "import os, sys\n"
        "assert sys.argv[1:3] == ['run', 'python'], sys.argv\n"
        f"assert os.getcwd() == {str(trainer_dir)!r}, os.getcwd()\n"
        "os.execv(sys.executable, [sys.executable, *sys.argv[3:]])\n",
        encoding="utf-8",
    )
    uv.chmod(0o755)
    return folder


def test_a_real_run_runs_the_real_health_program_in_the_trainer_environment(
    model_tree, capsys, tmp_path, monkeypatch
):
    pytest.importorskip("torch")
    from tests.lora_files import write_lora

    box = model_tree()
    csv = tmp_path / "gpus.csv"
    csv.write_text("name, memory.total [MiB]\nNVIDIA H100 80GB HBM3, 81559 MiB\n", "utf-8")
    assert main(box.args("--from-csv", str(csv), sim=None)) == 0
    run = box.run
    out_dir = Path(str(yaml_value(run, "output_dir")))
    (out_dir / "checkpoints").mkdir(parents=True)
    for step in (100, 200):
        write_lora(out_dir / "checkpoints" / f"lora_weights_step_{step:05d}.safetensors", seed=step)
    trainer = box.checkout / "packages" / "ltx-trainer"
    monkeypatch.setenv("PATH", f"{fake_uv(tmp_path / 'bin', trainer)}{os.pathsep}{os.environ['PATH']}")
    capsys.readouterr()
    assert main(["compare", str(run), "--yes", "--json", "--no-render"]) == 0, capsys.readouterr().err
    out = json.loads(capsys.readouterr().out)
    assert [c["step"] for c in out["checkpoints"]] == [100, 200]
    assert all(c["health"] == {"ok": True, "problems": []} for c in out["checkpoints"]), out
    assert out["held_out_note"] == compare_plan.NO_PREPROCESS_NOTE and out["recommended"]["step"] == 200
    record = json.loads((run / "outputs" / "compare" / "lora-health.json").read_text("utf-8"))
    assert record["torch"] != "simulated"  # the real program measured them


def yaml_value(run: Path, key: str) -> object:
    from ltx_wizard.core.io.yaml_patch import get_dotted, load_yaml

    return get_dotted(load_yaml((run / "config.yaml").read_text("utf-8")), key)


def test_a_folder_that_is_no_run_is_refused(tmp_path, capsys):
    assert main(["compare", str(tmp_path), "--yes"]) == 2
    assert "is not a run folder (no config.yaml)" in capsys.readouterr().err


def test_the_tournament_renders_every_model_at_the_same_prompts(built, capsys):
    """Deliver 4: the grid, keyframes decoded from real renders, the contact sheet, the page."""
    from tests.tournament_checks import check_tournament

    capsys.readouterr()
    (built / "logs" / "compare-renders.log").unlink(missing_ok=True)  # an earlier test's lines
    assert main(["compare", str(built), "--yes", "--json"]) == 0
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    check_tournament(built, doc, captured.err)
    # Deliver 8: one process rendered every row (one model load), each row named in its output
    log = (built / "logs" / "compare-renders.log").read_text("utf-8")
    rows = ["base", *(f"step-{c['step']}" for c in doc["checkpoints"])]
    assert log.count("=== compare: renders of ") == 1 and f"renders of {', '.join(rows)}: " in log
    assert [
        line.split(":")[1].strip() for line in log.splitlines() if line.startswith("tournament_render: ")
    ] == rows
    from ltx_wizard.core.compare.grid_record import read_grid

    grid = read_grid(built)
    assert grid is not None and [p.category for p in grid.prompts] == [
        "in-distribution",
        "out-of-distribution",
        "held-out",
    ]
    assert grid.settings.startswith("17 frames at ") and "15 inference steps, seed 42" in grid.settings
    # the validate-only runs asked for the short clips (the trainer's config keys)
    text = (built / "compare-config.yaml").read_text("utf-8")
    assert "inference_steps: 15" in text and ", 17]" in text.replace("\n", " ")


def test_no_render_leaves_no_grid_and_says_null(built, capsys):
    from ltx_wizard.core.compare.grid_record import grid_path

    grid_path(built).unlink(missing_ok=True)
    out = compare_json(built, capsys, "--no-render")
    assert out["grid"] is None and out["contact_sheet"] is None
    assert not grid_path(built).exists()
