"""`ltx-wizard prepare` on the command line, and the run going on from its dataset file: plan
--dataset, the one-sample preprocess, autotune, all on simulated GPUs with the look-alike
checkout's scripts. Also the gates without a terminal (spot check, small held-out set) and a
trigger word changed after preprocessing."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from ltx_wizard.cli import main
from ltx_wizard.core.launch import accelerate_config
from ltx_wizard.core.preprocess.preprocess_state import read_state
from ltx_wizard.demo.lookalike_models import make_checkpoint, make_gemma_dir
from tests.prepare_kit import checkout, raw_folder, snapshot, uv_on_path
from tests.setup_standins import uv_calls


@pytest.fixture(autouse=True)
def _box_env(monkeypatch, tmp_path):
    # --simulate runs the checkout's scripts in its environment (uv run python): a stand-in uv
    uv_on_path(tmp_path, monkeypatch)
    monkeypatch.setattr(accelerate_config, "accelerate_available", lambda: False)
    monkeypatch.setenv("LTX_WIZARD_SIM_SPEED", "0")
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)


@pytest.fixture
def box(tmp_path):
    checkout(tmp_path)
    make_checkpoint(tmp_path / "models" / "ltx-2-19b.safetensors", params_b=22)
    make_gemma_dir(tmp_path / "models" / "gemma")
    return tmp_path


def prepare(box: Path, source: Path, *extra: str) -> int:
    return main(
        [
            "prepare",
            str(source),
            "--trainer-root",
            str(box / "LTX-2"),
            "--workspace",
            str(box / "ws"),
            "--run-name",
            "run",
            "--simulate",
            "h100",
            *extra,
        ]
    )


def plan_argv(box: Path, plan_args: list[str]) -> list[str]:
    return [
        "plan",
        "--trainer-root",
        str(box / "LTX-2"),
        "--simulate",
        "h100",
        "--checkpoint",
        str(box / "models" / "ltx-2-19b.safetensors"),
        "--text-encoder",
        str(box / "models" / "gemma"),
        *plan_args,
    ]


def test_raw_clips_to_autotune_from_the_command_line(box, capsys):
    raw = raw_folder(box)
    before = snapshot(raw)
    assert (
        prepare(box, raw, "--split-scenes", "--holdout", "1", "--lora-trigger", "sks", "--yes", "--json") == 0
    ), capsys.readouterr().err
    out = json.loads(capsys.readouterr().out)
    run, dataset = Path(out["run_dir"]), Path(out["dataset"])
    rows = json.loads(dataset.read_text())
    held = [json.loads(x) for x in (dataset.parent / "holdout.jsonl").read_text().splitlines()]
    assert len(held) == 1 and out["held_out"] == [held[0]["video"]]
    assert all(r["caption"] for r in rows + held)
    assert sum("long_take-Scene-" in r["video"] for r in rows + held) == 3
    assert snapshot(raw) == before
    # the dataset flows on: plan, the one-sample preprocess, autotune
    assert main(plan_argv(box, out["plan_args"])) == 0, capsys.readouterr().err
    capsys.readouterr()
    assert (run / "plan.md").is_file() and read_state(run).spec.lora_trigger == "sks"
    assert main(["preprocess", str(run), "--one-sample", "--simulate", "h100"]) == 0
    capsys.readouterr()
    assert main(["autotune", str(run), "--simulate", "h100", "--json"]) == 0, capsys.readouterr().err
    assert json.loads(capsys.readouterr().out)["winner"] is not None


def test_the_cli_names_the_rotated_and_the_silent_clip_with_their_fixes(box, capsys):
    raw = raw_folder(box)
    assert prepare(box, raw, "--holdout", "0", "--yes") == 0
    captured = capsys.readouterr()
    assert captured.out.strip().endswith("run/dataset/dataset.json")
    err = captured.err
    assert "videos/phone.mp4: meant to be shown rotated 270 degrees" in err
    assert "fixed by the upright copy rotated/phone.mp4" in err
    assert "videos/quiet.mp4: no audio stream" in err and "plan --video-only" in err
    assert "Spot check: captions of 3 clips" in err and "Approved (--yes)" in err
    # no models in the usual folders: the line says where they go, and that it needs them
    assert "Models: no LTX-2 checkpoint with a matching Gemma text encoder was found" in err
    next_line = next(x for x in err.splitlines() if x.startswith("Next: "))
    assert f"--trainer-root {box / 'LTX-2'} --simulate h100 --checkpoint FILE --text-encoder DIR" in next_line


def test_without_a_terminal_the_spot_check_stops_after_the_samples(box, capsys):
    raw = raw_folder(box)
    assert prepare(box, raw, "--holdout", "0") == 2  # --yes is needed, as for the held-out count
    err = capsys.readouterr().err
    assert err.count("A ") >= 3 and "run again with --yes" in err
    assert "ltx-wizard: stopped at the caption spot check" in err
    dataset = box / "ws" / "run" / "dataset"
    assert not (dataset / "dataset.json").exists()
    # a rerun with --yes reuses the three samples (no new captions for them) and goes on
    assert prepare(box, raw, "--holdout", "0", "--yes") == 0
    assert len(json.loads((dataset / "dataset.json").read_text())) == 4
    spot = (box / "ws" / "run" / "logs" / "prepare-captions-spot.log").read_text()
    assert "Skipping 3 media that already have captions." in spot


def test_a_small_dataset_without_a_terminal_asks_for_holdout_on_the_command_line(box, capsys):
    raw = raw_folder(box)
    assert prepare(box, raw) == 2
    err = capsys.readouterr().err
    assert "the dataset has 4 samples: choose the held-out count with --holdout 1" in err
    assert not (box / "ws" / "run" / "logs" / "prepare-captions-spot.log").exists()


def test_a_changed_trigger_word_reencodes_the_data_root_with_overwrite(box, capsys):
    raw = raw_folder(box)
    assert prepare(box, raw, "--holdout", "0", "--yes", "--lora-trigger", "sks", "--json") == 0
    out = json.loads(capsys.readouterr().out)
    run = Path(out["run_dir"])
    assert main(plan_argv(box, out["plan_args"])) == 0
    assert main(["preprocess", str(run), "--one-sample", "--simulate", "h100"]) == 0
    from ltx_wizard.core.preprocess.preprocess_state import mark_done

    mark_done(run, "one")
    assert main(["preprocess", str(run), "--skip-autotune", "--simulate", "h100"]) == 0
    full_log = run / "logs" / "preprocess.log"
    assert "--overwrite" not in full_log.read_text()
    capsys.readouterr()
    args = [a if a != "sks" else "zxq" for a in out["plan_args"]]
    args[args.index("--run-name") + 1] = "run2"
    assert main(plan_argv(box, args)) == 0
    run2 = run.parent / "run2"
    plan_md = (run2 / "plan.md").read_text()
    assert "encoded with 'sks', this plan uses 'zxq'" in plan_md and "--overwrite" in plan_md
    assert main(["preprocess", str(run2), "--one-sample", "--simulate", "h100"]) == 0
    mark_done(run2, "one")
    assert main(["preprocess", str(run2), "--skip-autotune", "--simulate", "h100"]) == 0
    last = (run2 / "logs" / "preprocess.log").read_text().splitlines()[0]
    assert last.startswith("$ ") and "--lora-trigger zxq" in last and "--overwrite" in last


def _next_line(err: str) -> list[str]:
    line = next(x for x in err.splitlines() if x.startswith("Next: "))
    return shlex.split(line.removeprefix("Next: "))


def test_the_printed_next_line_runs_as_printed(box, capsys, monkeypatch):
    """Item 4 of issue 40: the line named no --simulate (\"no NVIDIA GPU found\") and FILE/DIR."""
    monkeypatch.setenv("LTX_MODELS_DIR", str(box / "models"))  # found as `discover` finds them
    raw = raw_folder(box)
    assert prepare(box, raw, "--holdout", "0", "--yes", "--lora-trigger", "sks") == 0
    captured = capsys.readouterr()
    argv = _next_line(captured.err)
    assert argv[:2] == ["ltx-wizard", "plan"] and "FILE" not in argv
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300)  # no shell
    assert done.returncode == 0, done.stderr
    run = box / "ws" / "run"
    assert done.stdout.strip().splitlines()[0] == str(run)  # the run folder prepare made
    state = read_state(run)
    assert state.spec.lora_trigger == "sks"
    assert state.dataset_file == Path(captured.out.strip())
    assert f"ltx-wizard preprocess {run} --one-sample --simulate h100" in done.stderr  # planned simulated


def test_simulate_runs_the_checkouts_scripts_in_its_own_environment(box, capsys, tmp_path):
    """Item 3 of issue 40: --simulate ran caption_videos.py with the wizard's Python, where the
    checkout's own packages (typer, ltx_trainer) are missing. Here the checkout's script imports
    a package only its environment has; the captioner server (the GPU part) is the stand-in."""
    trainer = box / "LTX-2" / "packages" / "ltx-trainer"
    own = trainer / "src" / "ltx_trainer_env_only"
    own.mkdir(parents=True)
    (own / "__init__.py").write_text("", encoding="utf-8")
    script = trainer / "scripts" / "caption_videos.py"
    script.write_text("import ltx_trainer_env_only  # noqa\n" + script.read_text(), encoding="utf-8")
    raw = raw_folder(box)
    assert prepare(box, raw, "--holdout", "0", "--yes") == 0, capsys.readouterr().err
    rows = json.loads((box / "ws" / "run" / "dataset" / "dataset.json").read_text())
    assert rows and all(r["caption"].startswith("A ") for r in rows)
    calls = [c["argv"] for c in uv_calls(tmp_path / "uv-bin")]
    assert ["run", "python", "scripts/caption_videos.py"] == calls[-1][:3]
    server_log = (box / "ws" / "run" / "logs" / "prepare-captioner-server.log").read_text()
    assert server_log.startswith(f"$ {sys.executable} -m ltx_wizard.demo.sim.captioner --host 127.0.0.1")


def test_readme_help_and_screen_say_the_same_about_simulate(capsys):
    """Issue 40 item 3: the README said --simulate reads your checkout, --help that the scripts
    run with this Python. One sentence now, said by all three."""
    from ltx_wizard.core.prepare.scripts import SIMULATE_SAYS
    from ltx_wizard.tui.screens.prepare.help import PREPARE_HELP

    with pytest.raises(SystemExit):
        main(["prepare", "--help"])
    said = " ".join(capsys.readouterr().out.split())
    readme = " ".join((Path(__file__).resolve().parents[2] / "README.md").read_text().split())
    help_text = " ".join(PREPARE_HELP[1].split())
    for text in (said, readme, help_text):
        assert SIMULATE_SAYS in text
        assert "run with this Python" not in text
    assert "uv run python" in SIMULATE_SAYS and "captioner server" in SIMULATE_SAYS


def test_a_no_at_the_spot_check_exits_130_as_every_stop_by_the_user(box, capsys, monkeypatch):
    """Issue 41 (Deliver 3): the stop exited 3, the code the README keeps for the VRAM gate."""
    from ltx_wizard.commands.prepare import TerminalAsker

    asked = []
    monkeypatch.setattr(TerminalAsker, "_ask", lambda self, q: asked.append(q) or "n")
    raw = raw_folder(box)
    assert prepare(box, raw, "--holdout", "0") == 130
    err = capsys.readouterr().err
    assert asked and asked[-1].strip().startswith("Caption the rest like this?")
    spot = box / "ws" / "run" / "dataset" / "preview-captions.json"
    assert len(json.loads(spot.read_text())) == 3
    assert f"ltx-wizard: stopped at the caption spot check: 3 of the 3 samples captioned, in {spot}" in err
    readme = " ".join((Path(__file__).resolve().parents[2] / "README.md").read_text().split())
    assert "`130` stopped by you" in readme


def test_under_simulate_prepare_says_what_the_simulated_preprocessing_then_does_with_sound(box, capsys):
    """Issue 41: prepare --simulate said "the trainer's environment cannot decode audio ... run
    `uv sync`", then the simulated preprocessing wrote audio latents for every clip with sound."""
    raw = raw_folder(box)
    assert prepare(box, raw, "--holdout", "0", "--yes", "--json") == 0, capsys.readouterr().err
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert "cannot decode audio" not in captured.err
    assert "the simulated trainer's environment decodes audio" in captured.err
    run = Path(out["run_dir"])
    assert main(plan_argv(box, out["plan_args"])) == 0, capsys.readouterr().err
    assert main(["preprocess", str(run), "--one-sample", "--simulate", "h100"]) == 0, capsys.readouterr().err
    written = list((run / "overfit" / ".precomputed" / "audio_latents").rglob("*.pt"))
    assert written  # what happened: the sound was decoded, as prepare said
    assert read_state(run).audio_gate.startswith("decodes audio")


def test_plan_repeats_the_warning_of_a_trigger_word_already_in_the_captions(box, capsys):
    """Issue 41: the word was found only at a caption's start (2 of 3 here), and plan said nothing."""
    raw = raw_folder(box)
    captions = box / "caps.csv"
    said = {"beach": "sks on a beach", "long_take": "a long take of Sks walking", "phone": "a phone, sks."}
    said["quiet"] = "a quiet room"
    captions.write_text("caption,video\n" + "".join(f'"{c}",{n}.mp4\n' for n, c in said.items()))
    assert (
        prepare(
            box,
            raw,
            "--holdout",
            "0",
            "--yes",
            "--captions",
            str(captions),
            "--lora-trigger",
            "sks",
            "--json",
        )
        == 0
    ), capsys.readouterr().err
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    warning = next(line for line in captured.err.splitlines() if "already contain the trigger word" in line)
    assert warning.startswith("3 of 4 caption(s) already contain the trigger word 'sks'")
    assert main(plan_argv(box, out["plan_args"])) == 0, capsys.readouterr().err
    plan_md = (Path(out["run_dir"]) / "plan.md").read_text()
    assert warning in " ".join(plan_md.split())
