"""Journey b of issue 40: the command line on `--simulate rtx5090` (32 GB: the local captioner
server does not fit), from a folder of real tiny clips, with a look-alike checkout run through a
stand-in uv (its scripts in "the checkout's environment", as the real flow runs them) and a
captioner on 127.0.0.1 (`--vllm-url`: the stand-in vLLM server, demo/sim/captioner.py, answering
the chat completions route caption_videos.py calls, counting what it is asked).

prepare -> the printed Next line, run verbatim -> each step plan prints, run verbatim (preprocess
one sample, autotune, the full preprocess) -> `bash launch.sh` -> `ltx-wizard status`. Every
command runs as a user runs it: its own process, no shell, the wizard found on PATH. At each step
what is printed is checked against what is on disk."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from ltx_wizard.demo.lookalike_models import make_checkpoint, make_gemma_dir
from ltx_wizard.demo.sim.captioner import start_in_thread
from ltx_wizard.core.tuning.duration import clock
from tests.prepare_kit import checkout, raw_folder
from tests.setup_standins import uv_calls, write_uv
from tests.tournament_checks import check_tournament

PRESET = "rtx5090"


@pytest.fixture
def server():
    httpd, url = start_in_thread()
    yield httpd, url
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def box(tmp_path):
    checkout(tmp_path)
    make_checkpoint(tmp_path / "models" / "ltx-2-19b.safetensors", params_b=22)
    make_gemma_dir(tmp_path / "models" / "gemma")
    write_uv(tmp_path / "uv-bin")
    return tmp_path


def _env(box: Path) -> dict[str, str]:
    here = Path(__file__).resolve().parents[2]  # this checkout of the wizard
    env = {k: v for k, v in os.environ.items() if k not in ("GEMINI_API_KEY", "GOOGLE_API_KEY")}
    path = os.pathsep.join([str(box / "uv-bin"), str(Path(sys.executable).parent), env.get("PATH", "")])
    return {
        **env,
        "PATH": path,
        "PYTHONPATH": os.pathsep.join(p for p in (str(here), env.get("PYTHONPATH", "")) if p),
        "STANDIN_PYTHONPATH": str(here),
        "LTX_MODELS_DIR": str(box / "models"),  # where a user keeps them; prepare finds them
        "LTX_WIZARD_SIM_SPEED": "0",
    }


def _run(argv: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{shlex.join(argv)}\n{done.stdout}\n{done.stderr}"
    return done


def _printed(text: str, prefix: str) -> list[str]:
    line = next(x for x in text.splitlines() if x.startswith(prefix))
    return shlex.split(line.removeprefix(prefix))


def _prepare(box: Path, url: str, env: dict[str, str]) -> tuple[Path, list[str]]:
    argv = ["ltx-wizard", "prepare", str(raw_folder(box)), "--trainer-root", str(box / "LTX-2")]
    argv += ["--workspace", str(box / "ws"), "--run-name", "run", "--simulate", PRESET]
    argv += ["--vllm-url", url, "--holdout", "1", "--yes"]
    done = _run(argv, env, box)
    dataset = Path(done.stdout.strip())
    assert dataset == box / "ws" / "run" / "dataset" / "dataset.json" and dataset.is_file()
    assert f"Captioner: qwen_omni (the Qwen3-Omni server at {url})" in done.stderr
    return dataset, _printed(done.stderr, "Next: ")


def test_raw_clips_to_a_finished_run_on_the_command_line(box, server):
    httpd, url = server
    env = _env(box)
    dataset, next_argv = _prepare(box, url, env)
    # the captions came from the server on 127.0.0.1, through the checkout's environment
    rows = json.loads(dataset.read_text())
    asked = [p for p in httpd.requests if p.rstrip("/") == "/v1/chat/completions"]
    held = [json.loads(line) for line in (dataset.parent / "holdout.jsonl").read_text().splitlines()]
    assert len(asked) == len(rows) + len(held) == 4 and len(held) == 1  # --holdout 1: one clip kept apart
    assert held[0]["video"] not in [r["video"] for r in rows]
    assert all(r["caption"].startswith("A ") and " frames at " in r["caption"] for r in rows)
    scripts = [c["argv"][2] for c in uv_calls(box / "uv-bin") if c["argv"][:2] == ["run", "python"]]
    assert "scripts/caption_videos.py" in scripts
    assert not (box / "ws" / "run" / "logs" / "prepare-captioner-server.log").exists()
    # the Next line, verbatim: the checkout, the simulated GPUs and the models found
    assert next_argv[:2] == ["ltx-wizard", "plan"] and "FILE" not in next_argv
    assert next_argv[next_argv.index("--simulate") + 1] == PRESET
    assert next_argv[next_argv.index("--dataset") + 1] == str(dataset)
    assert next_argv[next_argv.index("--checkpoint") + 1] == str(box / "models" / "ltx-2-19b.safetensors")
    planned = _run(next_argv, env, box)
    run = Path(planned.stdout.strip().splitlines()[0])
    assert run == dataset.parent.parent and (run / "plan.md").is_file() and (run / "config.yaml").is_file()
    steps = _indented_after(planned.stderr, "in the trainer team's order:")
    assert [s[1] for s in steps[:3]] == ["preprocess", "autotune", "preprocess"]
    assert steps[-1] == ["bash", str(run / "launch.sh")]
    _walk(steps, env, box, run)


def _walk(steps: list[list[str]], env: dict[str, str], box: Path, run: Path) -> None:
    one, tune = steps[0], steps[1]
    assert one == ["ltx-wizard", "preprocess", str(run), "--one-sample", "--simulate", PRESET]
    _run(one, env, box)
    state = json.loads((run / "preprocess.json").read_text())
    assert state["one_sample_done"] is True and state["full_done"] is False
    tuned = _run(tune, env, box)
    summary = json.loads((run / "autotune.json").read_text())["summary"]
    winner = summary["winner"]
    assert f"Winner: trial {winner} " in tuned.stdout and (run / "autotune.log").is_file()
    # what is left, as autotune prints it now: the full preprocess, then the launch
    full, launch = _indented_after(tuned.stdout, "Next, in order:")[:2]
    assert full == ["ltx-wizard", "preprocess", str(run), "--simulate", PRESET]
    assert launch == ["bash", str(run / "launch.sh")]
    _run(full, env, box)
    state = json.loads((run / "preprocess.json").read_text())
    assert state["full_done"] is True
    # the held-out clip prepare reserved, encoded into the run's own holdout/.precomputed (issue 44)
    held = state["held_out"]
    assert held["done"] and held["root"] == str(run / "holdout" / ".precomputed")
    assert len(held["samples"]) == 1 and held["encoded"] == held["samples"]
    assert list((run / "holdout" / ".precomputed" / "latents").rglob("*.pt"))
    latents = sorted(p.stem for p in (Path(state["data_root"]) / "latents").rglob("*.pt"))
    assert latents == sorted(Path(s).stem for s in state["samples"])  # one per kept clip
    _launch_and_status(launch, env, box, run)


def _indented_after(text: str, heading: str) -> list[list[str]]:
    lines = text.splitlines()
    start = next(i for i, x in enumerate(lines) if x.endswith(heading))
    steps = []
    for line in lines[start + 1 :]:
        if not line.startswith("  ") or line.strip().startswith("("):
            break
        steps.append(shlex.split(line.strip()))
    return steps


def _launch_and_status(launch: list[str], env: dict[str, str], box: Path, run: Path) -> None:
    # a CLI-planned --simulate run trains the simulated trainer, as the TUI's does (issue 40 item 5)
    assert "ltx_wizard.demo.sim" in (run / "launch.sh").read_text()
    _run(launch, env, box)  # in the foreground: it returns when training ends
    status = _run(["ltx-wizard", "status", str(run), "--json"], env, box)
    found = json.loads(status.stdout)
    assert found["state"] == "finished", found
    assert found["step"] == found["total_steps"] and Path(found["log"]).is_file()
    assert found["checkpoints"] and all(Path(c["path"]).is_file() for c in found["checkpoints"])
    _compare(env, box, run, found)


def _compare(env: dict[str, str], box: Path, run: Path, status: dict) -> None:
    """Which checkpoint (issue 44), asked as a user asks it; prepare held one clip out (--holdout 1),
    so each checkpoint has a held-out loss, and the recommendation rests on the lowest.
    The tournament renders too: the grid, the contact sheet and the page, checked against the
    renders the simulated trainer wrote, and the scp line printed last."""
    argv = ["ltx-wizard", "compare", str(run), "--yes", "--json"]
    done = _run(argv, env, box)
    found = json.loads(done.stdout)
    check_tournament(run, found, done.stderr)
    grid = json.loads((run / "outputs" / "compare" / "grid.json").read_text())
    assert [p["category"] for p in grid["prompts"]] == ["in-distribution", "out-of-distribution", "held-out"]
    steps = [c["step"] for c in found["checkpoints"]]
    assert len(steps) >= 5 and steps == sorted(steps)
    assert [Path(c["path"]) for c in found["checkpoints"]] == sorted(
        (Path(c["path"]) for c in status["checkpoints"]), key=lambda p: p.name
    )
    assert all(isinstance(c["held_out_loss"], float) and c["health"]["ok"] for c in found["checkpoints"])
    assert found["held_out_note"] is None
    picked = found["recommended"]
    assert picked["step"] in steps and f"step {picked['step']:,}: lowest held-out loss" in picked["reason"]
    written = json.loads((run / "outputs" / "compare" / "compare.json").read_text())
    assert written["recommended"] == picked and written["held_out_note"] is None
    # the cost measured after (Deliver 2), beside the estimate plan.md printed before launch
    cost = found["cost"]
    assert cost == written["cost"] and (cost["device"], cost["rendered"]) == ("simulated", True)
    assert cost["loss_passes"] == (len(steps) + 1) * 2 * 1 * 5  # one held-out clip, five sigmas
    plan_md = (run / "plan.md").read_text("utf-8")
    loss_line = next(line for line in plan_md.splitlines() if line.startswith("- held-out loss: "))
    assert f" = {clock(cost['estimated_loss_s'])}, " in loss_line, loss_line
