"""From clips and a dataset.json to a tuned config on the CLI, in the skill's order: plan (checks
the dataset), the one-sample preprocess, autotune on it, the full preprocess, then launch."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from ltx_wizard.cli import main
from ltx_wizard.core.launch import accelerate_config
from ltx_wizard.core.preprocess.preprocess_command import preprocess_args, script_options, PreprocessSpec
from ltx_wizard.core.dataset.pt_shapes import latent_size
from ltx_wizard.core.io.yaml_patch import get_dotted, load_yaml
from ltx_wizard.demo.lookalike_checkout import load_parser, make_checkout
from ltx_wizard.demo.lookalike_latents import (
    audio_latents,
    condition_embeddings,
    video_latents,
    write_pt,
)
from ltx_wizard.demo.lookalike_media import make_clip_dataset
from ltx_wizard.demo.lookalike_models import make_checkpoint, make_gemma_dir

SCRIPT = "packages/ltx-trainer/scripts/process_dataset.py"


@pytest.fixture(autouse=True)
def _box_env(monkeypatch, tmp_path):
    monkeypatch.setattr(accelerate_config, "accelerate_available", lambda: False)
    monkeypatch.setenv("LTX_WIZARD_SIM_SPEED", "0")


@pytest.fixture
def box(tmp_path):
    make_checkout(tmp_path / "LTX-2")
    make_checkpoint(tmp_path / "models" / "ltx-2-19b.safetensors", params_b=22)
    make_gemma_dir(tmp_path / "models" / "gemma")
    return tmp_path


def plan(box: Path, clips, *extra) -> tuple[int, Path, Path]:
    dataset = make_clip_dataset(box / "cats", clips)
    code = main(
        [
            "plan",
            "--trainer-root",
            str(box / "LTX-2"),
            "--checkpoint",
            str(box / "models" / "ltx-2-19b.safetensors"),
            "--text-encoder",
            str(box / "models" / "gemma"),
            "--dataset",
            str(dataset),
            "--workspace",
            str(box / "ws"),
            "--run-name",
            "run",
            "--simulate",
            "a6000",
            *extra,
        ]
    )
    return code, box / "ws" / "run", dataset


def test_clips_to_tuned_config_one_sample_before_full(box, capsys):
    code, run, dataset = plan(box, [{}, {"frames": 40}, {}], "--lora-trigger", "CATZ")
    assert code == 0, capsys.readouterr().err
    err = capsys.readouterr().err
    assert f"ltx-wizard preprocess {run} --one-sample" in err
    data_root = dataset.parent / ".precomputed"
    config = load_yaml((run / "config.yaml").read_text())
    assert get_dotted(config, "data.preprocessed_data_root") == str(data_root)
    assert "clip_01.mp4: 40 frames, fewer than the bucket's 49" in (run / "plan.md").read_text()
    assert not data_root.exists()  # nothing heavy before approval

    # autotune refuses before the one-sample preprocess; the full one refuses before autotune
    assert main(["autotune", str(run), "--simulate", "a6000"]) == 2
    assert "--one-sample" in capsys.readouterr().err
    assert main(["preprocess", str(run)]) == 2
    capsys.readouterr()

    assert main(["preprocess", str(run), "--one-sample", "--simulate", "a6000"]) == 0
    out, err = capsys.readouterr()
    assert "videos 1/1 (100%)" in err and f"Next: ltx-wizard autotune {run}" in out
    one = run / "overfit" / ".precomputed"
    assert sorted(p.name for p in one.iterdir()) == ["audio_latents", "conditions", "latents"]
    assert latent_size(one / "latents" / "videos" / "clip_00.pt") == (128, 7, 17, 30)
    assert not (dataset.parent / "_one_sample.json").exists()  # scratch removed
    log = (run / "logs" / "preprocess-one-sample.log").read_text()
    assert "--lora-trigger CATZ" in log and "_one_sample.json" in log
    assert "--overwrite" in log  # the run's own scratch is regenerated, never trusted
    assert not data_root.exists()

    assert main(["autotune", str(run), "--simulate", "a6000", "--json"]) == 0
    tuned = json.loads(capsys.readouterr().out)
    assert tuned["winner"] is not None
    assert (run / "overfit" / ".precomputed" / "latents").is_dir()  # trials trained on it

    assert main(["preprocess", str(run), "--simulate", "a6000"]) == 0
    out, err = capsys.readouterr()
    assert "full preprocess: done, verified" in out
    assert "clip_01.mp4 (40 frames)" in err  # the script's skip, reconciled
    assert sorted(p.name for p in (data_root / "latents" / "videos").iterdir()) == [
        "clip_00.pt",
        "clip_02.pt",
    ]
    assert "--overwrite" not in (run / "logs" / "preprocess.log").read_text()  # the user's data
    assert main(["preprocess", str(run)]) == 0  # done: not run again
    assert "already done" in capsys.readouterr().out


def test_bad_dataset_is_one_line_naming_file_and_fix(box, capsys):
    code, _, dataset = plan(box, [{"frames": 20}, {"frames": 30}])
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("ltx-wizard: dataset file ")
    assert str(dataset) in err[0] and "--resolution-buckets 960x544x17" in err[0]


def test_existing_matching_precomputed_is_verified_and_reused(box, capsys):
    dataset = make_clip_dataset(box / "cats", 2)
    root = dataset.parent / ".precomputed"
    written = {
        "latents": video_latents(49, 544, 960),
        "audio_latents": audio_latents(1.96),
        "conditions": condition_embeddings(),
    }
    for folder, tensors in written.items():
        for i in range(2):
            write_pt(root / folder / "videos" / f"clip_{i:02d}.pt", tensors)
    before = {p: p.stat().st_mtime_ns for p in root.rglob("*.pt")}
    code, run, _ = plan(box, 2)
    assert code == 0, capsys.readouterr().err
    assert "reused as it is" in (run / "plan.md").read_text()
    assert main(["autotune", str(run), "--simulate", "a6000", "--json"]) == 0  # from the data
    capsys.readouterr()
    assert main(["preprocess", str(run)]) == 0
    assert "verified and reused" in capsys.readouterr().out
    assert {p: p.stat().st_mtime_ns for p in root.rglob("*.pt")} == before


def test_existing_precomputed_at_another_bucket_is_never_overwritten(box, capsys):
    dataset = make_clip_dataset(box / "cats", 2)
    root = dataset.parent / ".precomputed"
    for folder in ("latents", "conditions", "audio_latents"):
        write_pt(root / folder / "videos" / "clip_00.pt", video_latents(97, 512, 512))
    code, run, _ = plan(box, 2)
    err = capsys.readouterr().err
    assert code == 2 and "does not match this plan" in err and "--precomputed-dir" in err
    assert "7x17x30" in err and not run.exists()
    code, run, _ = plan(box, 2, "--precomputed-dir", str(box / "fresh"))
    assert code == 0


def test_arguments_parse_with_the_trainer_scripts_parser(box):
    """Pinned against the look-alike of process_dataset.py's parser, read from the file."""
    script = box / "LTX-2" / SCRIPT
    spec = PreprocessSpec(
        buckets="960x544x49;512x512x49",
        model_path=Path("/m/ckpt.safetensors"),
        text_encoder_path=Path("/m/gemma"),
        video_vae_path=Path("/m/v.st"),
        audio_vae_path=Path("/m/a.st"),
        lora_trigger="CATZ",
        skip_audio=True,
        load_text_encoder_in_8bit=True,
    )
    argv = preprocess_args(spec, Path("/d/dataset.json"), Path("/d/.precomputed"), script_options(script))
    ns = load_parser(script).parse_args(argv)
    assert (ns.dataset_path, ns.resolution_buckets, ns.model_path, ns.text_encoder_path) == (
        "/d/dataset.json",
        "960x544x49;512x512x49",
        "/m/ckpt.safetensors",
        "/m/gemma",
    )
    assert (ns.video_vae_path, ns.audio_vae_path, ns.output_dir, ns.lora_trigger) == (
        "/m/v.st",
        "/m/a.st",
        "/d/.precomputed",
        "CATZ",
    )
    assert ns.skip_audio and ns.load_text_encoder_in_8bit and not ns.overwrite


def test_script_options_are_read_from_the_checkout(box):
    script = box / "LTX-2" / SCRIPT
    parser = load_parser(script)
    declared = {s for a in parser._actions for s in a.option_strings if s.startswith("--")}
    options = script_options(script)
    assert options.flags == declared - {"--help"}
    assert options.required == {"--model-path", "--text-encoder-path"}
    # an older script without --lora-trigger: refused before anything runs
    script.write_text(script.read_text().replace('"--lora-trigger"', '"--trigger"'))
    with pytest.raises(Exception, match="no --lora-trigger option"):
        preprocess_args(
            PreprocessSpec(
                buckets="960x544x49", model_path=Path("/m"), text_encoder_path=Path("/g"), lora_trigger="x"
            ),
            Path("/d.json"),
            Path("/o"),
            script_options(script),
        )


def test_simulated_preprocessor_refuses_what_the_script_refuses(box, tmp_path, monkeypatch):
    from ltx_wizard.demo.sim.preprocess import main as sim_main

    monkeypatch.setenv("LTX_WIZARD_SIM_SCRIPT", str(box / "LTX-2" / SCRIPT))
    dataset = make_clip_dataset(tmp_path / "d", 1)
    base = [str(dataset), "--model-path", "m", "--text-encoder-path", "g"]
    assert sim_main([*base, "--resolution-buckets", "960x544x48"]) == 2  # frames not 8k+1
    assert sim_main([*base, "--resolution-buckets", "961x544x49"]) == 2  # side not 32k
    with pytest.raises(SystemExit) as exited:
        sim_main([*base, "--resolution-buckets", "960x544x49", "--no-such-option"])
    assert exited.value.code == 2
    with pytest.raises(SystemExit):
        sim_main([str(dataset), "--resolution-buckets", "960x544x49"])  # --model-path required
    (tmp_path / "d" / "videos" / "clip_00.mp4").unlink()
    assert sim_main([*base, "--resolution-buckets", "960x544x49"]) == 1  # invalid paths


def test_check_reads_a_dataset_file(box, capsys):
    dataset = make_clip_dataset(box / "cats", [{}, {"frames": 30}, {"audio": False}])
    base = [
        "check",
        "--checkpoint",
        str(box / "models" / "ltx-2-19b.safetensors"),
        "--text-encoder",
        str(box / "models" / "gemma"),
        "--dataset",
        str(dataset),
    ]
    assert main(base) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if "data_root" in x)
    # what the trainer trains on: the short clip is skipped, the silent one left out of audio
    assert (
        line.startswith("warn") and "1 of 3 clips usable at 960x544x49 (1 skipped, 1 without sound)" in line
    )
    assert "clip_01.mp4: 30 frames" in line and "clip_02.mp4" in line
    assert main([*base, "--resolution-buckets", "960x544x50"]) == 2
    assert "multiple of 8 plus 1" in capsys.readouterr().out


def test_partly_written_data_root_is_resumed_not_overwritten(box, capsys):
    from ltx_wizard.core.preprocess.preprocess_state import mark_done

    dataset = make_clip_dataset(box / "cats", 3)
    root = dataset.parent / ".precomputed"
    done = root / "latents" / "videos" / "clip_00.pt"
    write_pt(done, video_latents(49, 544, 960))
    before = done.stat().st_mtime_ns
    code, run, _ = plan(box, 3)
    assert code == 0, capsys.readouterr().err
    assert "partly written" in (run / "plan.md").read_text() and "resumes it" in (run / "plan.md").read_text()
    mark_done(run, "one")  # (autotune ran: its own tests cover it)
    assert main(["preprocess", str(run), "--skip-autotune", "--simulate", "a6000"]) == 0
    assert done.stat().st_mtime_ns == before  # the script skipped what was written
    assert len(list((root / "latents" / "videos").iterdir())) == 3


def test_a_failed_step_names_its_log_and_a_rerun_resumes(box, capsys):
    code, run, dataset = plan(box, 2)
    assert code == 0
    clip = dataset.parent / "videos" / "clip_00.mp4"
    saved = clip.read_bytes()
    clip.unlink()  # gone after planning: the script stops on the missing path
    assert main(["preprocess", str(run), "--one-sample", "--simulate", "a6000"]) == 1
    err = capsys.readouterr().err
    assert "one-sample preprocess failed (exit 1)" in err
    assert str(run / "logs" / "preprocess-one-sample.log") in err
    assert "invalid paths" in (run / "logs" / "preprocess-one-sample.log").read_text()
    assert not (dataset.parent / "_one_sample.json").exists()
    clip.write_bytes(saved)
    assert main(["preprocess", str(run), "--one-sample", "--simulate", "a6000"]) == 0


def test_plan_json_lists_the_steps_in_order(box, capsys):
    code, run, _ = plan(box, 2, "--json")
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    # planned on simulated GPUs: every later command needs them too (it would probe real ones)
    assert data["preprocess_steps"] == [
        f"ltx-wizard preprocess {run} --one-sample --simulate a6000",
        f"ltx-wizard autotune {run} --simulate a6000",
        f"ltx-wizard preprocess {run} --simulate a6000",
    ]


def test_on_two_gpus_the_first_preprocess_encodes_a_batch_for_each_so_the_confirmation_runs(box, capsys):
    # the trainer's loader gives nothing to fewer than batch x GPUs samples: one clip first
    # would leave autotune's confirmation on both GPUs with no batch at all
    clips = [{}, {"audio": False}, {}, {}]
    dataset = make_clip_dataset(box / "cats", clips)
    assert (
        main(
            [
                "plan",
                "--trainer-root",
                str(box / "LTX-2"),
                "--checkpoint",
                str(box / "models" / "ltx-2-19b.safetensors"),
                "--text-encoder",
                str(box / "models" / "gemma"),
                "--dataset",
                str(dataset),
                "--workspace",
                str(box / "ws"),
                "--run-name",
                "run",
                "--simulate",
                "2xa6000",
            ]
        )
        == 0
    )
    run = box / "ws" / "run"
    capsys.readouterr()
    assert main(["preprocess", str(run), "--one-sample", "--simulate", "2xa6000"]) == 0
    assert "videos 2/2 (100%)" in capsys.readouterr().err
    one = run / "overfit" / ".precomputed" / "latents" / "videos"
    assert sorted(p.name for p in one.iterdir()) == ["clip_00.pt", "clip_02.pt"]  # with sound
    assert main(["autotune", str(run), "--simulate", "2xa6000", "--json"]) == 0
    tuned = json.loads(capsys.readouterr().out)
    assert tuned["winner"] is not None and "refused" not in json.dumps(tuned)


def test_plan_md_counts_clips_before_any_is_encoded_and_follows_the_preprocessing(box, capsys):
    # the demo's plan.md once said "4 preprocessed samples" before anything was encoded
    code, run, dataset = plan(box, [{}, {"frames": 40}, {}])
    assert code == 0, capsys.readouterr().err
    dataset_section = (run / "plan.md").read_text().split("## Dataset")[1].split("## ")[0]
    assert "3 clips listed; the trainer will train on 2 of them" in dataset_section
    assert "preprocessed sample" not in dataset_section and "Nothing is preprocessed yet" in (dataset_section)
    assert main(["preprocess", str(run), "--one-sample", "--simulate", "a6000"]) == 0
    out = capsys.readouterr().out
    assert f"Next: ltx-wizard autotune {run} --simulate a6000" in out  # the GPUs it was planned on
    assert "One sample is preprocessed for autotune" in (run / "plan.md").read_text()
    assert main(["autotune", str(run), "--simulate", "a6000", "--json"]) == 0
    assert main(["preprocess", str(run), "--simulate", "a6000"]) == 0
    plan_md = (run / "plan.md").read_text()
    assert f"Preprocessed into `{dataset.parent / '.precomputed'}`: 2 samples" in plan_md
    assert "## Autotune results" in plan_md  # rendered from every record, autotune's too


def test_full_preprocess_is_refused_before_autotune_and_runs_as_the_refusal_prints(box, capsys):
    """The skill's order held: after the one sample, the full preprocess waits for autotune
    (exit 2, nothing encoded); the refusal names both ways on, each runnable as printed."""
    code, run, dataset = plan(box, 2)
    assert code == 0, capsys.readouterr().err
    assert main(["preprocess", str(run), "--one-sample", "--simulate", "a6000"]) == 0
    capsys.readouterr()
    assert main(["preprocess", str(run), "--simulate", "a6000"]) == 2
    err = capsys.readouterr().err
    assert "autotune comes before the full preprocess" in err
    autotune = f"ltx-wizard autotune {run} --simulate a6000"
    skip = f"ltx-wizard preprocess {run} --skip-autotune --simulate a6000"
    assert f"`{autotune}`" in err and f"`{skip}`" in err
    data_root = dataset.parent / ".precomputed"
    assert not data_root.exists() and not (run / "logs" / "preprocess.log").exists()
    assert main(shlex.split(skip)[1:]) == 0  # the untuned way on, run as printed
    assert "full preprocess: done, verified" in capsys.readouterr().out
    assert sorted(p.name for p in (data_root / "latents" / "videos").iterdir()) == [
        "clip_00.pt",
        "clip_01.pt",
    ]


def test_the_first_full_preprocess_says_what_it_wrote_never_that_it_reused(box, capsys):
    """Issue 41: the first full run printed "done, verified (... reused as it is)", the plan's
    verdict on a folder that did not exist, when it had just written every file."""
    code, run, dataset = plan(box, 3)
    assert code == 0, capsys.readouterr().err
    data_root = dataset.parent / ".precomputed"
    assert main(["preprocess", str(run), "--one-sample", "--simulate", "a6000"]) == 0
    capsys.readouterr()
    assert not data_root.exists()
    assert main(["preprocess", str(run), "--skip-autotune", "--simulate", "a6000"]) == 0
    out = capsys.readouterr().out
    written = sorted(p.name for p in (data_root / "latents" / "videos").iterdir())
    assert len(written) == 3  # what happened: three samples encoded now
    said = next(line for line in out.splitlines() if line.startswith("full preprocess:"))
    assert said.startswith(
        f"full preprocess: done, verified: {len(written)} sample(s) encoded into {data_root}"
    )
    assert "latents/, " in said and "audio_latents/" in said and "conditions/" in said
    assert "reused" not in out
    assert main(["preprocess", str(run), "--simulate", "a6000"]) == 0  # done: not run again
    assert "full preprocess: already done" in capsys.readouterr().out
