"""Finished run folders for the evaluation's tests: planned by `ltx-wizard plan` on the look-alike
box, with the captions the prepare step writes (dataset/dataset.json, dataset/holdout.jsonl) and
the final checkpoint the trainer saves, named as it names it."""

from __future__ import annotations

import json
from pathlib import Path

from ltx_wizard.cli import main
from ltx_wizard.core.io.yaml_patch import load_yaml
from ltx_wizard.demo.lookalike_models import make_checkpoint

CAPTIONS = [f"a tabby cat number {i} naps on a red sofa" for i in range(8)]
HELD = [f"a grey cat {i} jumps onto a shelf" for i in range(7)]
_HEADER = b'{"__metadata__":{"format":"pt"}}'


def write_weights(path: Path) -> Path:
    header = _HEADER + b" " * (-len(_HEADER) % 8)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(len(header).to_bytes(8, "little") + header)
    return path


def finished_run(box, capsys, *, holdout: int = 7, params_b: float | None = None) -> Path:
    """A planned run (simulated launch, as the wizard's --demo records it) whose training ended
    with its final checkpoint."""
    if params_b is not None:
        make_checkpoint(box.ckpt, params_b=params_b)
    assert main(box.args()) == 0, capsys.readouterr().err
    capsys.readouterr()
    run = box.run
    (run / "dataset").mkdir(exist_ok=True)
    rows = [{"caption": c, "video": f"clips/c{i}.mp4"} for i, c in enumerate(CAPTIONS)]
    (run / "dataset" / "dataset.json").write_text(json.dumps(rows), encoding="utf-8")
    if holdout:
        (run / "dataset" / "holdout.jsonl").write_text(
            "".join(
                json.dumps({"caption": c, "video": f"clips/h{i}.mp4"}) + "\n"
                for i, c in enumerate(HELD[:holdout])
            ),
            encoding="utf-8",
        )
    write_weights(final_checkpoint(run))
    return run


def config_of(run: Path) -> dict:
    return dict(load_yaml((run / "config.yaml").read_text(encoding="utf-8")))


def final_checkpoint(run: Path) -> Path:
    config = config_of(run)
    steps = config["optimization"]["steps"]
    return Path(config["output_dir"]) / "checkpoints" / f"lora_weights_step_{steps:05d}.safetensors"


def tree(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def laid_out_run(root: Path) -> Path:
    """A finished run (the trainer's real log) whose evaluation is laid out: two prompts, each
    with and without the LoRA, tiny real renders, and prompts.json."""
    from ltx_wizard.core.evaluation.layout import Manifest, Render, eval_dir, write_manifest
    from ltx_wizard.demo.tiny_video import write_render
    from tests.monitor_runs import make_run, sample_log

    run = make_run(root, sample_log("ok_single_gpu_cols250"), checkpoints=((50, True),))
    lora = str(run / "outputs/checkpoints/lora_weights_step_00050.safetensors")
    manifest = Manifest(
        "lora_weights_step_00050.safetensors (the final checkpoint, step 50)",
        notes=["Held-out evaluation skipped: no held-out set was reserved."],
    )
    for category, name, prompt, source in (
        ("in-distribution", "01_a-red-kite", "a red kite over a grey beach", "dataset.json row 2"),
        ("out-of-distribution", "01_a-cat-in-space", "a cat floats in space", "your prompt"),
    ):
        for on in (True, False):
            file = f"{category}/{name}{'' if on else '.base'}.mp4"
            write_render(eval_dir(run) / file, prompt, 42, lora if on else None, 89)
            manifest.renders[file] = Render(
                file,
                category,
                prompt,
                42,
                on,
                "trainer validation",
                "int8-quanto (training stack)",
                (960, 544, 89),
                source,
            )
    write_manifest(run, manifest)
    return run


def finished_recipe_run(
    box,
    capsys,
    recipe: str,
    *,
    with_reference: bool = False,
    with_audio: bool = False,
    validation_media: bool = True,
    clip_sound: bool = False,
) -> Path:
    """A planned run of one of the look-alike checkout's recipes (`plan --recipe`, its validation
    media real tiny files; without them, as `plan` does by default, validation on the prompts
    only, when `validation_media` is False), finished with its final checkpoint, whose dataset.json rows point at
    real tiny clips (and references or sounds) under dataset/clips, as the prepare step lays out;
    `clip_sound`: each clip carries its own soundtrack (no audio column, as prepare writes it)."""
    from ltx_wizard.core.dataset.sources import required_folders
    from ltx_wizard.core.inputs.recipes import find_recipe
    from ltx_wizard.demo.lookalike_models import make_data_root
    from ltx_wizard.demo.lookalike_recipes import media_names, write_medium
    from ltx_wizard.demo.tiny_video import write_render

    configs = box.checkout / "packages/ltx-trainer/configs"
    folders = list(required_folders(find_recipe(configs, recipe).strategy))
    data = make_data_root(box.ws.parent / recipe / ".precomputed", 3, folders=folders)
    media = box.ws.parent / "media"
    names = media_names((configs / f"{recipe}.yaml").read_text("utf-8"))
    extra = [a for n in names for a in ("--validation-media", str(write_medium(media / n)))]
    extra = extra if validation_media else []
    args = [
        "plan",
        "--trainer-root",
        str(box.checkout),
        "--checkpoint",
        str(box.ckpt),
        "--text-encoder",
        str(box.gemma),
        "--data-root",
        str(data),
        "--workspace",
        str(box.ws),
        "--run-name",
        "run",
        "--recipe",
        recipe,
        "--simulate",
        "h100",
        *extra,
    ]
    assert main(args) == 0, capsys.readouterr().err
    capsys.readouterr()
    run = box.run
    clips = run / "dataset" / "clips"
    rows = []
    from ltx_wizard.demo.lookalike_raw_clips import write_video

    for i, caption in enumerate(CAPTIONS[:3]):
        clip = clips / f"c{i}.mp4"
        made = (
            write_video(clip, frames=24, colour=i)
            if clip_sound
            else write_render(clip, f"clip {i}", 7, None, 9)
        )
        row = {"caption": caption, "video": made.name}
        if with_reference:
            row["reference_video"] = write_render(clips / f"r{i}.mp4", f"ref {i}", 7, None, 9).name
        if with_audio:
            row["audio"] = write_render(clips / f"a{i}.wav", f"sound {i}", 7, None, 9, video=False).name
        rows.append({k: (f"clips/{v}" if k != "caption" else v) for k, v in row.items()})
    (run / "dataset" / "dataset.json").write_text(json.dumps(rows), encoding="utf-8")
    write_weights(final_checkpoint(run))
    return run


def sim_uv(folder: Path) -> Path:
    """A `uv` on PATH that runs what the user's `uv run python ...` would, on the simulator:
    `-m ltx_pipelines.X ARGS` through the simulated ltx-pipelines (demo/sim/pipelines.py: the
    checkout's look-alike parser, then a tiny render) and `scripts/train.py CONFIG ...` through
    the simulated trainer, so a printed command runs as printed from the look-alike checkout."""
    import sys

    folder.mkdir(parents=True, exist_ok=True)
    uv = folder / "uv"
    uv.write_text(
        f"#!{sys.executable}\n"
        "import os, sys\n"
        "args = sys.argv[1:]\n"
        "assert args[:2] == ['run', 'python'], args\n"
        "rest = args[2:]\n"
        "if rest[:1] == ['-m']:\n"
        "    module, rest = 'ltx_wizard.demo.sim.pipelines', rest[1:]\n"
        "else:\n"
        "    assert rest[0] == 'scripts/train.py', rest\n"
        "    module, rest = 'ltx_wizard.demo.sim.trainer', rest[1:]\n"
        "os.environ.setdefault('LTX_WIZARD_SIM_GPU', 'h100')\n"
        "os.execv(sys.executable, [sys.executable, '-m', module, *rest])\n",
        encoding="utf-8",
    )
    uv.chmod(0o755)
    return uv


def sim_env(bin_dir: Path) -> dict[str, str]:
    """This environment with the `uv` above first on PATH."""
    import os

    sim_uv(bin_dir)
    return {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}


def run_as_printed(line: str, cwd: Path, bin_dir: Path):
    """The printed command, split as a shell splits it, run from `cwd` with the `uv` above."""
    import shlex
    import subprocess

    return subprocess.run(
        shlex.split(line), cwd=cwd, env=sim_env(bin_dir), capture_output=True, text=True, timeout=120
    )
