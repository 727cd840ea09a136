"""Journey e: a conditioned recipe (IC-LoRA, image-to-video) from a folder of raw clips to its
evaluation, with no validation media given, on simulated GPUs, as a user runs the CLI: prepare,
plan, preprocess, autotune, `bash launch.sh`, status, eval. At each step what is printed is read
against what is on disk; at the end the evaluation went through the mode's own entry point with
each row's own input and said so, and run-summary.md's render line is the mode's own, with its
inputs, and runs as printed (a `uv` on PATH runs the simulated trainer and pipelines:
tests/eval_runs.py sim_uv)."""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

import pytest

from ltx_wizard.cli import main
from ltx_wizard.core.io.yaml_patch import load_yaml
from ltx_wizard.core.launch import accelerate_config
from ltx_wizard.demo.lookalike_models import make_checkpoint, make_gemma_dir
from ltx_wizard.demo.lookalike_pipelines import load_parser
from ltx_wizard.demo.lookalike_raw_clips import write_video
from tests.eval_runs import run_as_printed, sim_env, write_weights
from tests.prepare_kit import checkout, uv_on_path

RELEASE = ("ltx-2.3-22b-distilled-1.1.safetensors", "ltx-2.3-spatial-upscaler-x2-1.1.safetensors")


@pytest.fixture(autouse=True)
def _box_env(monkeypatch, tmp_path):
    # prepare --simulate runs the checkout's scripts in its own environment (`uv run python`), as
    # the real flow does: the recorded stand-in uv runs them here
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
    for name in RELEASE:  # the release's files beside the checkpoint, as `hf download` puts them
        write_weights(tmp_path / "models" / name)
    return tmp_path


def _cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _raw(box: Path, silent: int | None = None) -> Path:
    folder = box / "raw"
    for i in range(5):
        write_video(folder / f"clip_{i}.mp4", frames=60, colour=i, audio=i != silent)
    return folder


def _rows(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))


def _row_of(run: Path, prompt: dict) -> dict:
    """The dataset row a prompt was drawn from, by the `dataset.json row N` it names (two clips
    may share a caption)."""
    source = prompt["source"]
    assert source.startswith("dataset.json row "), source
    return _rows(run / "dataset/dataset.json")[int(source.rsplit(" ", 1)[1]) - 1]


def _walk_to_a_finished_run(
    box: Path, capsys, recipe: str, *, silent: int | None = None, canny: bool = False
) -> tuple[Path, dict]:
    """prepare -> plan (no validation media) -> preprocess -> autotune -> launch.sh -> status."""
    code, out, err = _cli(
        capsys,
        *("prepare", str(_raw(box, silent)), "--trainer-root", str(box / "LTX-2")),
        *("--workspace", str(box / "ws"), "--run-name", "run", "--simulate", "h100", "--recipe", recipe),
        *("--holdout", "1", "--yes", "--json"),
        *(["--canny"] if canny else []),
    )
    assert code == 0, err
    prepared = json.loads(out)
    run, dataset = Path(prepared["run_dir"]), Path(prepared["dataset"])
    assert dataset == run / "dataset/dataset.json" and len(_rows(dataset)) == 4  # one held out
    code, out, err = _cli(
        capsys,
        *("plan", "--trainer-root", str(box / "LTX-2"), "--simulate", "h100"),
        *(
            "--checkpoint",
            str(box / "models/ltx-2-19b.safetensors"),
            "--text-encoder",
            str(box / "models/gemma"),
        ),
        *prepared["plan_args"],
    )
    assert code == 0, err
    assert "no validation media given" in out + err
    config = load_yaml((run / "config.yaml").read_text(encoding="utf-8"))
    assert all("conditions" not in s for s in config["validation"]["samples"])  # prompts only
    for step in (("preprocess", "--one-sample"), ("autotune",), ("preprocess",)):
        code, out, err = _cli(capsys, step[0], str(run), *step[1:], "--simulate", "h100")
        assert code == 0, err
    done = subprocess.run(
        ["bash", str(run / "launch.sh")],
        env=sim_env(box / "bin"),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    code, out, err = _cli(capsys, "status", str(run), "--json")
    assert code == 0, err
    status = json.loads(out)
    assert status["state"] == "finished" and (run / "run-summary.md").is_file()
    return run, status


def _eval(capsys, run: Path) -> str:
    code, out, err = _cli(capsys, "eval", str(run), "--yes", "--simulate", "h100", "--production", "yes")
    assert code == 0, err
    return out


def _render_line(run: Path) -> str:
    summary = (run / "run-summary.md").read_text(encoding="utf-8")
    section = summary.split("## Render with it")[1]
    return section.split("```bash\n")[1].split("\n```")[0]


def _check_render_line(box: Path, run: Path, module: str):
    """run-summary.md's command: the mode's module, parsed by its entry point's own parser (the
    look-alike checkout's copy of the real one), then run as printed from the checkout."""
    line = _render_line(run)
    argv = shlex.split(line)
    assert argv[:5] == ["uv", "run", "python", "-m", module]
    args = load_parser(box / "LTX-2", module).parse_args(argv[5:])
    done = run_as_printed(line, box / "LTX-2", box / "bin")
    assert done.returncode == 0, done.stderr
    assert Path(args.output_path).is_file()
    return args


def test_ic_lora_judged_through_ic_lora_with_each_rows_own_reference(box, capsys):
    run, _ = _walk_to_a_finished_run(box, capsys, "v2v_ic_lora", canny=True)
    out = _eval(capsys, run)
    job = json.loads((run / "logs/eval-job.json").read_text(encoding="utf-8"))
    # the job's record: the mode's own entry point, conditioned on the strategy's reference
    assert job["production"]["module"] == "ltx_pipelines.ic_lora"
    assert job["conditions"] == [{"type": "reference", "video": ""}]
    assert "Production inference: ltx_pipelines.ic_lora (IC-LoRA (video-to-video))" in out
    note = next(n for n in job["notes"] if n.startswith("config.yaml validates without conditioning media"))
    assert f"Note: {note}" in out and "its own dataset row's reference video" in note
    # each prompt is fed its own row's reference, as printed, in the trainer's samples and in
    # the production renders
    samples = load_yaml((run / "eval-config.yaml").read_text(encoding="utf-8"))["validation"]["samples"]
    renders = json.loads((run / "outputs/eval/prompts.json").read_text(encoding="utf-8"))["renders"]
    in_dist = [p for p in job["prompts"] if p["category"] == "in-distribution"]
    assert len(in_dist) == 3
    for index, prompt in enumerate(in_dist):
        reference = str(run / "dataset" / _row_of(run, prompt)["reference_video"])
        assert samples[index]["conditions"] == [{"type": "reference", "video": reference}]
        assert f"{prompt['text']!r}  [{prompt['source']}]\n     fed reference video: {reference}\n" in out
        made = [
            r for r in renders.values() if r["source"] == prompt["source"] and r["made_by"] == "ltx-pipelines"
        ]
        assert made and {r["conditioning"] for r in made} == {f"reference video: {reference}"}
        assert {r["pipeline"] for r in made} == {"ltx_pipelines.ic_lora"}
        assert f"conditioning on reference video {reference}" in (run / "logs/eval.log").read_text()
    # run-summary.md, written again after the evaluation: its note, and the mode's own render line
    summary = (run / "run-summary.md").read_text(encoding="utf-8")
    assert f"- {note}" in summary
    # two clips share a caption here (the captioner names colours coarsely): still three prompts
    assert len({p["text"] for p in in_dist}) < 3 and "### In-distribution (3 prompts)" in summary
    args = _check_render_line(box, run, "ltx_pipelines.ic_lora")
    first = in_dist[0]
    assert args.prompt == first["text"]
    assert args.video_conditioning == [(str(run / "dataset" / _row_of(run, first)["reference_video"]), 1.0)]
    assert args.distilled_checkpoint_path == str(box / "models" / RELEASE[0])


def test_image_to_video_judged_on_each_clips_first_frame_and_never_on_a_clip_it_skipped(box, capsys):
    # clip_4 has no sound: the i2v recipe trains audio, so the trainer leaves it out (no audio
    # latents), and its caption is no in-distribution prompt
    run, _ = _walk_to_a_finished_run(box, capsys, "i2v_lora", silent=4)
    state = json.loads((run / "preprocess.json").read_text(encoding="utf-8"))
    assert state["silent"] == ["videos/clip_4.pt"]
    out = _eval(capsys, run)
    job = json.loads((run / "logs/eval-job.json").read_text(encoding="utf-8"))
    assert job["production"]["module"] == "ltx_pipelines.ti2vid_one_stage"
    assert job["conditions"] == [{"type": "first_frame", "image_or_video": ""}]
    assert "ltx_pipelines.ti2vid_one_stage (image-to-video)" in out
    assert "each prompt is fed its own dataset row's first frame (frame 0 of its clip)" in out
    rows = _rows(run / "dataset/dataset.json")
    silent = next(r for r in rows if r["video"] == "videos/clip_4.mp4")
    in_dist = [p for p in job["prompts"] if p["category"] == "in-distribution"]
    assert silent not in [_row_of(run, p) for p in in_dist] and len(in_dist) == 3
    samples = load_yaml((run / "eval-config.yaml").read_text(encoding="utf-8"))["validation"]["samples"]
    for index, prompt in enumerate(in_dist):
        clip = str(run / "dataset" / _row_of(run, prompt)["video"])
        assert samples[index]["conditions"] == [{"type": "first_frame", "image_or_video": clip}]
        assert f"     fed first frame: {clip}\n" in out
    args = _check_render_line(box, run, "ltx_pipelines.ti2vid_one_stage")
    # a still, as --image takes it: the first prompt's clip's frame 0, the evaluation's own PNG
    png = run / "outputs/eval/inputs/in-distribution" / Path(args.images[0][0]).name
    assert args.images == [(str(png), 0, 1.0, None)] and png.name.startswith("01_") and png.is_file()
    assert args.prompt == in_dist[0]["text"]
