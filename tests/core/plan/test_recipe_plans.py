"""`plan --recipe` per recipe family and tier, against a look-alike checkout shaped like the real one.

Each written config.yaml must pass the simulated trainer schema (the trainer's field names, typed
conditions, `extra="forbid"`) and differ from the recipe's shipped file in exactly the intended
keys: the paths, plus on the 32GB and 40–60GB tiers the keys where t2v_lora_low_vram.yaml differs
from t2v_lora.yaml.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ltx_wizard.cli import main
from ltx_wizard.core.launch import accelerate_config
from ltx_wizard.core.tuning.results import TrialResult
from ltx_wizard.core.tuning.schedule import Context, Tuner
from ltx_wizard.core.tuning.trial_config import settings_from_config
from ltx_wizard.core.dataset.sources import required_folders
from ltx_wizard.demo.builder import build_demo
from ltx_wizard.demo.lookalike_checkout import make_checkout
from ltx_wizard.demo.lookalike_models import make_checkpoint, make_data_root, make_gemma_dir
from ltx_wizard.demo.lookalike_recipes import RECIPES, media_names, write_medium
from ltx_wizard.core.inputs.recipes import find_recipe
from ltx_wizard.demo.sim.schema import LtxTrainerConfig
from ltx_wizard.core.gpu.tiers import Tier
from ltx_wizard.core.io.yaml_patch import load_yaml

CONFIGS = "packages/ltx-trainer/configs"
PATH_KEYS = {"model.model_path", "model.text_encoder_path", "data.preprocessed_data_root", "output_dir"}
# The look-alike t2v pair differs in these (its validation sizes are equal).
LOW_VRAM_KEYS = {
    "lora.rank": 16,
    "lora.alpha": 16,
    "optimization.optimizer_type": "adamw8bit",
    "acceleration.quantization": "int8-quanto",
    "acceleration.load_text_encoder_in_8bit": True,
    "acceleration.offload_optimizer_during_validation": True,
}
FAMILIES = {  # recipe -> the folders its data root must hold, beside conditions/
    "i2v_lora": {"latents", "audio_latents"},
    "v2v_ic_lora": {"latents", "reference_latents"},
    "a2v_lora": {"latents", "audio_latents"},
    "t2a_lora": {"audio_latents"},
    "video_inpainting_lora": {"latents", "video_masks"},
}
TIERS = {"rtx5090": True, "a6000": True, "h100": False}  # preset -> low-VRAM keys applied


@pytest.fixture(autouse=True)
def _no_accelerate(monkeypatch):
    monkeypatch.setattr(accelerate_config, "accelerate_available", lambda: False)


@pytest.fixture
def box(tmp_path):
    class Box:
        checkout = make_checkout(tmp_path / "LTX-2")
        ckpt = make_checkpoint(tmp_path / "models" / "ltx-2.safetensors")
        gemma = make_gemma_dir(tmp_path / "models" / "gemma-3")
        ws = tmp_path / "ws"

        def data_for(self, recipe: str, *, drop: str | None = None) -> Path:
            folders = list(required_folders(find_recipe(self.configs, recipe).strategy))
            return make_data_root(
                tmp_path / recipe / ".precomputed", 3, folders=[f for f in folders if f != drop]
            )

        @property
        def configs(self) -> Path:
            return self.checkout / CONFIGS

        def args(self, recipe: str, data: Path, *extra: str, sim: str = "h100") -> list[str]:
            return [
                "plan",
                "--trainer-root",
                str(self.checkout),
                "--checkpoint",
                str(self.ckpt),
                "--text-encoder",
                str(self.gemma),
                "--data-root",
                str(data),
                "--workspace",
                str(self.ws),
                "--recipe",
                recipe,
                "--simulate",
                sim,
                "--json",
                *extra,
            ]

    return Box()


def _leaves(data, prefix=""):
    if isinstance(data, dict):
        for key, value in data.items():
            yield from _leaves(value, f"{prefix}{key}.")
    else:
        yield prefix[:-1], data


def media_args(configs: Path, recipe: str, folder: Path) -> list[str]:
    """`--validation-media FILE` for each media slot of the recipe's shipped samples, in order."""
    names = media_names((configs / f"{recipe}.yaml").read_text("utf-8"))
    return [arg for name in names for arg in ("--validation-media", str(write_medium(folder / name)))]


def _plan(box, capsys, recipe: str, *extra: str, sim: str = "h100", data: Path | None = None):
    data = data or box.data_for(recipe)
    assert main(box.args(recipe, data, *extra, sim=sim)) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("sim", sorted(TIERS))
@pytest.mark.parametrize("recipe", sorted(FAMILIES))
def test_written_config_passes_the_schema_with_exactly_the_intended_differences(box, capsys, recipe, sim):
    media = box.ws.parent / "media"
    out = _plan(box, capsys, recipe, *media_args(box.configs, recipe, media), sim=sim)
    written_text = Path(out["config"]).read_text(encoding="utf-8")
    written = load_yaml(written_text)
    LtxTrainerConfig(**json.loads(json.dumps(written)))  # the trainer's field names, strict
    shipped_text = (box.configs / f"{recipe}.yaml").read_text("utf-8")
    shipped = dict(_leaves(load_yaml(shipped_text)))
    now = dict(_leaves(written))
    differs = {k: now[k] for k in now if shipped.get(k, object()) != now[k]}
    assert set(now) == set(shipped)  # no key added, none dropped
    intended = LOW_VRAM_KEYS if TIERS[sim] else {}
    kept = {}
    if shipped["checkpoints.keep_last_n"] == 3:  # the last 3 only: five kept for comparison, spread
        kept = {"checkpoints.interval": 600, "checkpoints.keep_last_n": 6}  # over 3,000 steps
    assert {k: v for k, v in differs.items() if k not in PATH_KEYS | {"validation.samples"}} == {
        **intended,
        **kept,
    }
    # the samples differ only where a placeholder stood: the user's files, in order
    filled = shipped_text.replace('"/path/to/', f'"{media.resolve()}/')
    assert now["validation.samples"] == load_yaml(filled)["validation"]["samples"]
    assert out["base_config"] == f"{recipe}.yaml" and out["recipe"] == recipe
    assert len(out["applied"]) == len(intended)
    assert all(line.endswith("(from t2v_lora_low_vram.yaml)") for line in out["applied"])


@pytest.mark.parametrize("recipe", sorted(FAMILIES))
def test_data_root_is_checked_against_the_recipes_own_folders(box, capsys, recipe):
    assert set(required_folders(find_recipe(box.configs, recipe).strategy)) == (
        FAMILIES[recipe] | {"conditions"}
    )
    missing = sorted(FAMILIES[recipe])[-1]
    data = box.data_for(recipe, drop=missing)
    assert main(box.args(recipe, data)) == 2
    err = capsys.readouterr().err
    assert f"{missing}/" in err and err.startswith("ltx-wizard: ")
    assert not list(box.ws.glob("*/config.yaml"))


def test_plan_md_and_the_diff_list_each_applied_key(box, capsys):
    out = _plan(box, capsys, "v2v_ic_lora", sim="rtx5090")
    plan = Path(out["plan"]).read_text(encoding="utf-8")
    assert "Low-VRAM keys applied to the recipe" in plan
    for key in LOW_VRAM_KEYS:
        assert f"- `{key}: " in plan
    assert plan.count("(from t2v_lora_low_vram.yaml)") == len(LOW_VRAM_KEYS)
    diff = plan.split("## Config changes vs the shipped file", 1)[1]
    assert "v2v_ic_lora.yaml" in diff
    assert '+  optimizer_type: "adamw8bit"' in diff and "+  rank: 16" in diff
    assert "Recipe `v2v_ic_lora`: video generated (reference, first_frame)" in plan
    assert Path(out["run_dir"]).name.startswith("v2v-ic-")  # the run name's mode follows the recipe


def test_t2v_keeps_its_own_low_vram_file_verbatim(box, capsys):
    out = _plan(box, capsys, "t2v_lora", sim="rtx5090", data=box.data_for("t2v_lora"))
    assert out["base_config"] == "t2v_lora_low_vram.yaml" and out["applied"] == []
    assert "Low-VRAM keys applied" not in Path(out["plan"]).read_text(encoding="utf-8")


def test_a_key_the_recipe_lacks_is_listed_not_invented(box, capsys):
    path = box.configs / "i2v_lora.yaml"
    path.write_text(
        path.read_text("utf-8").replace("  offload_optimizer_during_validation: false\n", ""), "utf-8"
    )
    out = _plan(box, capsys, "i2v_lora", sim="a6000")
    written = load_yaml(Path(out["config"]).read_text("utf-8"))
    assert "offload_optimizer_during_validation" not in written["acceleration"]
    plan = Path(out["plan"]).read_text(encoding="utf-8")
    assert (
        "- `acceleration.offload_optimizer_during_validation` (i2v_lora.yaml has no such key, "
        "so it is not added)"
    ) in plan
    assert len(out["applied"]) == len(LOW_VRAM_KEYS) - 1


def test_forced_full_finetune_sets_its_own_keys_over_the_applied_ones(box, capsys):
    out = _plan(box, capsys, "i2v_lora", "--training-mode", "full", "--force-full", sim="rtx5090")
    written = load_yaml(Path(out["config"]).read_text("utf-8"))
    assert written["acceleration"]["quantization"] is None  # full fine-tune's rule wins
    assert not any("quantization" in line for line in out["applied"])
    assert any("acceleration.quantization" in w and "set again" in w for w in out["warnings"])


def test_video_only_applies_to_recipes_that_generate_audio(box, capsys):
    data = box.data_for("video_inpainting_lora")  # latents, conditions, video_masks: no audio
    out = _plan(box, capsys, "i2v_lora", "--video-only", data=data)
    assert load_yaml(Path(out["config"]).read_text("utf-8"))["training_strategy"]["audio"] is None
    data_a2v = box.data_for("a2v_lora")
    out = _plan(box, capsys, "a2v_lora", "--video-only", data=data_a2v)
    assert any("nothing was changed" in w for w in out["warnings"])  # audio is an input there


def test_a_recipe_planned_without_media_validates_from_its_prompts_and_says_so(box, capsys):
    out = _plan(box, capsys, "i2v_lora")
    (warning,) = [w for w in out["warnings"] if "no validation media given" in w]
    assert "sample 1: image; sample 2: image" in warning and "--validation-media" in warning
    written = Path(out["config"]).read_text("utf-8")
    assert "/path/to/" not in written  # a placeholder never reaches config.yaml
    samples = load_yaml(written)["validation"]["samples"]
    assert [sorted(s) for s in samples] == [["prompt"], ["prompt"]]  # conditions removed
    plan = Path(out["plan"]).read_text("utf-8")
    assert "Validation without conditioning media: 2 validation samples" in plan
    assert "# replace with your own image" not in written  # went with its condition
    assert "# frame 0 stays clean" in written  # the other shipped comments stay


def test_unknown_recipe_is_bad_input_naming_those_found(box, capsys):
    assert main(box.args("x2y_lora", box.data_for("t2v_lora"))) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("ltx-wizard: recipe 'x2y_lora' is not in") and "i2v_lora" in err
    assert not box.ws.exists() or not list(box.ws.iterdir())


def test_check_recipe_reads_the_data_as_that_recipe_does(box, capsys):
    data = box.data_for("t2v_lora")  # latents, conditions, audio_latents
    base = [
        "check",
        "--trainer-root",
        str(box.checkout),
        "--checkpoint",
        str(box.ckpt),
        "--text-encoder",
        str(box.gemma),
        "--data-root",
        str(data),
    ]
    assert main([*base, "--recipe", "i2v_lora"]) == 0
    capsys.readouterr()
    assert main([*base, "--recipe", "v2v_ic_lora"]) == 2
    out = capsys.readouterr().out
    assert "FAIL  data_root" in out and "reference_latents/" in out


def _sim(config: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LTX_")}
    env.update(
        PYTHONPATH=str(Path(__file__).resolve().parents[3]), PYTHONUNBUFFERED="1", LTX_WIZARD_SIM_SPEED="0"
    )
    return subprocess.run(
        [sys.executable, "-m", "ltx_wizard.demo.sim.trainer", str(config), "--disable-progress-bars"],
        cwd=config.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_simulated_trainer_reads_the_recipes_folders_and_validation_media(box, capsys, tmp_path):
    clip = write_medium(tmp_path / "ref.mp4")
    out = _plan(box, capsys, "v2v_ic_lora", "--validation-media", str(clip), sim="rtx5090")
    config = Path(out["config"])
    text = config.read_text("utf-8")
    assert f'video: "{clip}"' in text and "# replace with your own clip" in text
    ran = _sim(config)
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert "Loaded dataset with 3 samples" in ran.stdout + ran.stderr
    # The shipped placeholder, or a file that is no video, stops it at start-up, as the trainer.
    config.write_text(text.replace(str(clip), "/path/to/reference_1.mp4"), "utf-8")
    failed = _sim(config)
    assert failed.returncode == 1
    assert "FileNotFoundError" in failed.stderr and "/path/to/reference_1.mp4" in failed.stderr
    (tmp_path / "notes.mp4").write_text("not a video")
    config.write_text(text.replace(str(clip), str(tmp_path / "notes.mp4")), "utf-8")
    failed = _sim(config)
    assert failed.returncode == 1 and "av.error.InvalidDataError" in failed.stderr
    config.write_text(text, "utf-8")
    # Without the recipe's reference latents the trainer's own data check stops it.
    data = Path(load_yaml(config.read_text("utf-8"))["data"]["preprocessed_data_root"])
    (data / "reference_latents").rename(data / "elsewhere")
    refused = _sim(config)
    assert refused.returncode != 0 and "reference_latents" in refused.stdout + refused.stderr


@pytest.mark.parametrize("recipe", [r.name for r in RECIPES])
def test_the_demo_can_plan_and_run_every_recipe(tmp_path, capsys, recipe):
    demo = build_demo(tmp_path / "demo")
    argv = [
        "plan",
        "--trainer-root",
        str(demo.checkout),
        "--checkpoint",
        str(demo.checkpoint),
        "--text-encoder",
        str(demo.text_encoder),
        "--data-root",
        str(demo.data_root),
        "--workspace",
        str(demo.workspace),
        "--recipe",
        recipe,
        "--simulate",
        demo.simulate,
        "--json",
    ]
    assert main(argv) == 0, capsys.readouterr().err
    out = json.loads(capsys.readouterr().out)
    assert not [w for w in out["warnings"] if "validation media" in w]
    ran = _sim(Path(out["config"]))
    assert ran.returncode == 0, ran.stderr[-2000:]


def test_autotune_relaxes_the_applied_keys_of_a_recipe(box, capsys):
    out = _plan(box, capsys, "i2v_lora", sim="a6000")
    tuner = Tuner(
        settings_from_config(Path(out["config"]).read_text("utf-8")),
        Context(tier=Tier.T40_60, gpu_total_gb=None, transformer_params=None, subset_samples=4),
    )
    first = tuner.next()
    assert first.stage == "baseline"
    tuner.record(
        TrialResult(index=first.index, change=first.change, outcome="ok", step_time_s=2.0, peak_vram_gb=30.0)
    )
    second = tuner.next()  # the applied int8-quanto is the first lever, as for t2v
    assert second.changes == {"acceleration.quantization": None}
    tuner.record(
        TrialResult(
            index=second.index,
            change=second.change,
            changes=second.changes,
            outcome="ok",
            step_time_s=1.5,
            peak_vram_gb=40.0,
        )
    )
    assert tuner.next().changes == {"optimization.optimizer_type": "adamw"}  # then adamw8bit
