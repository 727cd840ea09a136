"""Gemma text encoders: both forms, and the checkpoint pairing mistakes of LTX-2 issue #214."""

from __future__ import annotations

import json
import re

import pytest

from ltx_wizard.core.inputs.checkpoint import inspect_checkpoint
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.demo.lookalike_models import (
    make_checkpoint,
    make_gemma_dir,
    make_packed_gemma,
    make_vae,
    write_safetensors,
)
from ltx_wizard.core.inputs.text_encoder import check_compatibility, inspect_text_encoder


def test_directory_form(tmp_path):
    info = inspect_text_encoder(make_gemma_dir(tmp_path / "gemma-3"))
    assert (info.form, info.gemma_version, info.model_type) == ("directory", "3", "gemma3")


@pytest.mark.parametrize(
    "victim",
    [
        "config.json",
        "tokenizer.json",
        "tokenizer_config.json",
        "processor_config.json",
        "model-00001-of-00001.safetensors",
    ],
)
def test_directory_missing_a_file(tmp_path, victim):
    root = make_gemma_dir(tmp_path / "gemma")
    (root / victim).unlink()
    shown = "model*.safetensors" if victim.startswith("model") else victim
    with pytest.raises(UsageError, match=rf"lacks {re.escape(shown)}.*incomplete"):
        inspect_text_encoder(root)


def test_directory_lists_every_missing_file(tmp_path):
    root = make_gemma_dir(tmp_path / "gemma")
    (root / "tokenizer.json").unlink()
    (root / "processor_config.json").unlink()
    with pytest.raises(UsageError, match="lacks tokenizer.json, processor_config.json"):
        inspect_text_encoder(root)


def test_nested_root_is_found_as_the_trainer_searches(tmp_path):
    # gemma_assets.py GemmaAssets.from_root searches recursively: a parent folder holding one
    # Gemma is a valid root, and describe() says where the config was found.
    inner = make_gemma_dir(tmp_path / "text_encoders" / "gemma-3-12b")
    info = inspect_text_encoder(tmp_path / "text_encoders")
    assert info.config_path == inner / "config.json" and info.model_type == "gemma3"
    assert "nested: gemma-3-12b" in info.describe()


def test_sidecars_and_weights_may_sit_in_subfolders(tmp_path):
    root = make_gemma_dir(tmp_path / "gemma")
    (root / "_readout_proj").mkdir()
    (root / "processor_config.json").rename(root / "_readout_proj" / "processor_config.json")
    (root / "weights").mkdir()
    (root / "model-00001-of-00001.safetensors").rename(root / "weights" / "model-00001-of-00001.safetensors")
    info = inspect_text_encoder(root)
    assert info.config_path == root / "config.json"
    assert info.param_count == 262208 * 3840  # the shard header, found below the root


def test_two_different_gemmas_below_one_root_are_refused(tmp_path):
    make_gemma_dir(tmp_path / "text_encoders" / "gemma-3", gemma_version="3")
    make_gemma_dir(tmp_path / "text_encoders" / "gemma-4", gemma_version="4", model_type="gemma4")
    with pytest.raises(UsageError, match="more than one Gemma .*whichever it finds first"):
        inspect_text_encoder(tmp_path / "text_encoders")


def test_missing_files_are_searched_for_everywhere_below(tmp_path):
    root = make_gemma_dir(tmp_path / "gemma")
    (root / "tokenizer.json").unlink()
    with pytest.raises(UsageError, match="lacks tokenizer.json \\(searched every folder below it\\)"):
        inspect_text_encoder(root)


def test_config_not_json(tmp_path):
    root = make_gemma_dir(tmp_path / "gemma")
    (root / "config.json").write_text("{oops")
    with pytest.raises(UsageError, match="config.json is unreadable or not JSON"):
        inspect_text_encoder(root)


def test_packed_form(tmp_path):
    info = inspect_text_encoder(
        make_packed_gemma(tmp_path / "g.safetensors", gemma_version="4", model_type="gemma4")
    )
    assert (info.form, info.gemma_version, info.model_type) == ("packed", "4", "gemma4")


def test_packed_without_tokenizer_tensor(tmp_path):
    path = write_safetensors(
        tmp_path / "g.safetensors",
        {"w": ("BF16", [4])},
        {"gemma_config": json.dumps({"model_type": "gemma3"})},
    )
    with pytest.raises(UsageError, match="no `tokenizer_json` tensor"):
        inspect_text_encoder(path)


def test_packed_without_gemma_config(tmp_path):
    path = write_safetensors(tmp_path / "g.safetensors", {"tokenizer_json": ("U8", [4])})
    with pytest.raises(UsageError, match="no `gemma_config` metadata"):
        inspect_text_encoder(path)


def test_a_shard_of_the_directory_points_at_the_folder(tmp_path):
    root = make_gemma_dir(tmp_path / "gemma")
    with pytest.raises(UsageError, match=f"one shard of a Gemma directory: pass the folder {root}"):
        inspect_text_encoder(root / "model-00001-of-00001.safetensors")


def test_ltx_file_passed_as_text_encoder(tmp_path):
    with pytest.raises(UsageError, match="not a text encoder"):
        inspect_text_encoder(make_vae(tmp_path / "vae.safetensors"))


def test_url_and_missing(tmp_path):
    with pytest.raises(UsageError, match="is a URL"):
        inspect_text_encoder("hf://google/gemma-3-12b-it")
    with pytest.raises(UsageError, match="does not exist"):
        inspect_text_encoder(tmp_path / "gemma")


def _pair(tmp_path, ckpt_kwargs, te_kwargs, packed=False):
    ckpt = inspect_checkpoint(make_checkpoint(tmp_path / "c.safetensors", **ckpt_kwargs))
    maker = make_packed_gemma if packed else make_gemma_dir
    te = inspect_text_encoder(maker(tmp_path / ("g.safetensors" if packed else "g"), **te_kwargs))
    return ckpt, te


def test_matching_pair_passes(tmp_path):
    check_compatibility(*_pair(tmp_path, {"gemma_version": "3"}, {"gemma_version": "3"}))


def test_version_spelling_is_compared_exactly_as_ltx_core_does(tmp_path):
    # encoder_configurator.py _check_gemma_version compares with !=: "3.0" is not "3".
    with pytest.raises(UsageError, match="needs gemma_version 3, .* has 3.0"):
        check_compatibility(*_pair(tmp_path, {"gemma_version": "3"}, {"gemma_version": "3.0"}))


def test_mismatch_names_both_versions(tmp_path):
    ckpt, te = _pair(tmp_path, {"gemma_version": "4", "model_version": "2.5.0"}, {"gemma_version": "3"})
    with pytest.raises(UsageError, match="Gemma version mismatch.*needs gemma_version 4.*has 3"):
        check_compatibility(ckpt, te)


def test_vanilla_gemma4_for_ltx_2_5_is_explained(tmp_path):
    ckpt, te = _pair(
        tmp_path,
        {"gemma_version": "4", "model_version": "2.5.0"},
        {"gemma_version": None, "model_type": "gemma4"},
    )
    with pytest.raises(UsageError) as info:
        check_compatibility(ckpt, te)
    msg = info.value.message
    assert "vanilla Gemma 4" in msg and "needs the LTX fine-tuned Gemma 4 root" in msg
    assert str(ckpt.path) in msg and str(te.path) in msg


def test_old_checkpoint_with_gemma4_is_refused(tmp_path):
    ckpt, te = _pair(tmp_path, {"gemma_version": None}, {"gemma_version": "4", "model_type": "gemma4"})
    with pytest.raises(UsageError, match="declares no Gemma version .* use Gemma 3"):
        check_compatibility(ckpt, te)


def test_old_checkpoint_with_gemma3_passes(tmp_path):
    check_compatibility(*_pair(tmp_path, {"gemma_version": None}, {"gemma_version": None}))


def test_split_pack_needs_the_packed_form(tmp_path):
    ckpt, te = _pair(tmp_path, {"split": True}, {})
    with pytest.raises(UsageError, match="is a split pack: it needs the packed Gemma"):
        check_compatibility(ckpt, te)


def test_unified_checkpoint_needs_the_directory_form(tmp_path):
    ckpt, te = _pair(tmp_path, {}, {}, packed=True)
    with pytest.raises(UsageError, match="is unified: it needs a Gemma model directory"):
        check_compatibility(ckpt, te)


def test_split_pack_with_its_packed_gemma_passes(tmp_path):
    check_compatibility(
        *_pair(
            tmp_path,
            {"split": True, "gemma_version": "4"},
            {"gemma_version": "4", "model_type": "gemma4"},
            packed=True,
        )
    )
