"""Versions that fit, read from look-alike checkouts of each shipped ltx-core layout (1.0: LTX-2
19B only, 1.1: + the 22B text path of LTX-2.3, 1.2: + LTX-2.5 and Gemma 4, transformers 5.8-5.14)
against checkpoint headers, Gemma configs and preprocessed data; `plan` stops a misfit with the fix."""

from __future__ import annotations

import json

import pytest

from ltx_wizard.cli import main
from ltx_wizard.core.inputs.checkout_caps import read_caps
from ltx_wizard.core.inputs.checkpoint import inspect_checkpoint
from ltx_wizard.core.inputs.text_encoder import inspect_text_encoder
from ltx_wizard.core.inputs.version_fit import check_fit
from ltx_wizard.core.inputs.version_spec import satisfies
from ltx_wizard.core.dataset.data_fit import data_misfits
from ltx_wizard.demo.lookalike_checkout import make_checkout
from ltx_wizard.demo.lookalike_latents import write_pt
from ltx_wizard.demo.lookalike_layouts import write_venv_package
from ltx_wizard.demo.lookalike_models import (
    make_checkpoint,
    make_gemma_dir,
    make_packed_gemma,
    write_safetensors,
)


def _v2_checkpoint(path, **meta):
    """A 22B checkpoint: the text projection before the connector (LTX-2.3 and later)."""
    config = {
        "transformer": {
            "caption_proj_before_connector": True,
            "caption_projection_first_linear": False,
            "caption_proj_input_norm": False,
            "caption_projection_second_linear": False,
            "num_attention_heads": 32,
            "attention_head_dim": 128,
        },
        "vae": {},
        "audio_vae": {},
        "vocoder": {},
    }
    metadata = {"config": json.dumps(config), **meta}
    return write_safetensors(path, {"model.diffusion_model.x.weight": ("BF16", [4096, 4096])}, metadata)


@pytest.mark.parametrize(
    "layout, v2, gemma4, spec",
    [("1.0", False, False, "~=4.57.0"), ("1.1", True, False, ">=4.52"), ("1.2", True, True, ">=5.8.0,<5.15")],
)
def test_each_layout_says_what_it_loads(tmp_path, layout, v2, gemma4, spec):
    caps = read_caps(make_checkout(tmp_path / "LTX-2", layout=layout))
    assert caps.v2_text_path is v2 and ("gemma4" in caps.gemma_types) is gemma4
    assert caps.gemma_source_rule is gemma4 and caps.transformers_spec == spec
    assert caps.transformers_installed == caps.transformers_locked
    assert ("LTX-2.3 22B" in caps.loads()) is v2 and ("Gemma 4" in caps.loads()) is gemma4


def test_a_22b_checkpoint_on_the_19b_only_checkout_names_the_connector_error(tmp_path):
    caps = read_caps(make_checkout(tmp_path / "LTX-2", layout="1.0"))
    ckpt = inspect_checkpoint(_v2_checkpoint(tmp_path / "ltx-2.3.safetensors", model_version="2.3.0"))
    (misfit,) = check_fit(caps, ckpt, None)
    assert misfit.fix == "pull" and "size mismatch for audio_embeddings_connector" in misfit.message
    assert f"git -C {tmp_path / 'LTX-2'} pull && uv sync" in misfit.message
    assert check_fit(read_caps(make_checkout(tmp_path / "new", layout="1.2")), ckpt, None) == []


def test_gemma4_on_a_gemma3_only_checkout(tmp_path):
    caps = read_caps(make_checkout(tmp_path / "LTX-2", layout="1.1"))
    ckpt = inspect_checkpoint(make_checkpoint(tmp_path / "c.safetensors", gemma_version="3"))
    te = inspect_text_encoder(
        make_packed_gemma(tmp_path / "g4.safetensors", gemma_version="4", model_type="gemma4_unified")
    )
    (misfit,) = check_fit(caps, ckpt, te)
    assert "model_type gemma4_unified (ltx-core there builds gemma3)" in misfit.message


def test_transformers_outside_the_pin_lock_or_rope_read(tmp_path):
    root = make_checkout(tmp_path / "LTX-2", layout="1.2")
    ckpt = inspect_checkpoint(
        make_checkpoint(tmp_path / "c.safetensors", gemma_version="4", model_version="2.5.0")
    )
    te = inspect_text_encoder(
        make_packed_gemma(tmp_path / "g.safetensors", gemma_version="4", model_type="gemma4_unified")
    )
    for old in (root / ".venv").rglob("transformers-*.dist-info"):
        old.rename(old.with_name("transformers-5.15.0.dist-info"))
    (misfit,) = check_fit(read_caps(root), ckpt, te)
    assert (
        "holds transformers 5.15.0 but its ltx-core 1.2.0 needs transformers>=5.8.0,<5.15" in misfit.message
    )
    assert "5.15 cannot build the Gemma 4 encoder" in misfit.message and "uv sync" in misfit.message
    old_root = make_checkout(tmp_path / "old", layout="1.0")
    for info in (old_root / ".venv").rglob("transformers-*.dist-info"):
        info.rename(info.with_name("transformers-4.57.1.dist-info"))
    (lock_misfit,) = check_fit(
        read_caps(old_root), inspect_checkpoint(make_checkpoint(tmp_path / "c3.safetensors")), None
    )
    assert "holds transformers 4.57.1 but its uv.lock pins 4.57.6" in lock_misfit.message
    mid = make_checkout(tmp_path / "mid", layout="1.1")
    (mid / "packages/ltx-core/src/ltx_core/text_encoders/gemma/encoders.py").write_text(
        "def rope(config):\n    return config.rope_local_base_freq\n"
    )
    write_venv_package(mid, "transformers", "5.2.0")
    for info in (mid / ".venv").rglob("transformers-4*.dist-info"):
        for f in info.iterdir():
            f.unlink()
        info.rmdir()
    (rope,) = check_fit(
        read_caps(mid), inspect_checkpoint(make_checkpoint(tmp_path / "c4.safetensors")), None
    )
    assert "'Gemma3TextConfig' object has no attribute 'rope_local_base_freq'" in rope.message


def test_version_spec():
    assert satisfies("5.14.1", ">=5.8.0,<5.15") and not satisfies("5.15.0", ">=5.8.0,<5.15")
    assert satisfies("4.57.6", "~=4.57.0") and not satisfies("4.58.0", "~=4.57.0")
    assert satisfies("2.7.1", "==2.7.*") and satisfies("1.0", "") and satisfies("x", ">=1") is None


def test_latents_from_another_model_must_be_encoded_again(tmp_path):
    ckpt = inspect_checkpoint(_v2_checkpoint(tmp_path / "ltx-2.3.safetensors", model_version="2.3.0"))
    root = tmp_path / ".precomputed"
    write_pt(
        root / "conditions" / "a.pt", {"video_prompt_embeds": (1024, 3840), "prompt_attention_mask": (1024,)}
    )
    (misfit,) = data_misfits(root, "a.pt", ckpt)
    assert (
        misfit.fix == "overwrite"
        and "3840 wide, but this 22B (LTX-2.3 or later) checkpoint reads 4096" in misfit.message
    )
    assert "--overwrite" in misfit.message
    write_pt(root / "conditions" / "a.pt", {"video_prompt_embeds": (1024, 4096)})
    write_pt(root / "latents" / "a.pt", {"latents": (64, 7, 17, 30)})
    (latents,) = data_misfits(root, "a.pt", ckpt)
    assert "video latents of 64 channels, but this checkpoint reads 128" in latents.message
    write_pt(root / "latents" / "a.pt", {"latents": (128, 7, 17, 30)})
    assert data_misfits(root, "a.pt", ckpt) == []


def test_plan_stops_a_misfit_before_anything_is_written(model_tree, tmp_path, capsys):
    box = model_tree()
    make_checkout(box.checkout, layout="1.0")  # the same folder, now the 19B-only release
    ckpt = _v2_checkpoint(tmp_path / "models" / "ltx-2.3-22b.safetensors", model_version="2.3.0")
    args = box.args()
    args[args.index("--checkpoint") + 1] = str(ckpt)
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("ltx-wizard: checkpoint ") and "size mismatch for audio_embeddings_connector" in err
    assert len(err.strip().splitlines()) == 1 and not box.run.exists()


def test_the_paths_check_shows_the_misfit_under_the_checkout(model_tree, tmp_path):
    from ltx_wizard.core.plan.model_checks import run_checks

    box = model_tree()
    make_checkout(box.checkout, layout="1.1")
    gemma4 = make_gemma_dir(tmp_path / "g4", gemma_version="4", model_type="gemma4")
    ckpt = make_checkpoint(tmp_path / "c.safetensors", gemma_version="4", model_version="2.5.0")
    items = {i.name: i for i in run_checks(checkpoint=ckpt, text_encoder=gemma4, trainer_root=box.checkout)}
    assert not items["trainer_root"].ok and "LTX-2.5-era checkpoint" in items["trainer_root"].error
