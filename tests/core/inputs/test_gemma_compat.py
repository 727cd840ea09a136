"""ltx-core's Gemma version rule, case for case, on real look-alike files.

Each row is one checkpoint/Gemma pair and what ltx-core's `_check_gemma_version`
(text_encoders/gemma/encoders/encoder_configurator.py) does with it, read off that function:
it compares gemma_source_checkpoint.gemma_version with the config's gemma_version exactly (no
normalising, JSON types kept); without gemma_source_checkpoint, a model_version of 2.4.0 or more
must declare one (only a warning when the Gemma declares nothing either), and anything older
needs model_type "gemma3" exactly.
"""

from __future__ import annotations

import json

import pytest

from ltx_wizard.core.inputs.checkpoint import inspect_checkpoint
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.inputs.gemma_compat import check_gemma_version, parse_model_version
from ltx_wizard.demo.lookalike_models import _section_config, write_safetensors
from ltx_wizard.core.inputs.text_encoder import check_compatibility, inspect_text_encoder

ABSENT = object()

# (case, checkpoint gemma_source_checkpoint metadata (raw text or ABSENT), model_version metadata
#  (raw text or ABSENT), Gemma config gemma_version (JSON value or ABSENT), Gemma model_type,
#  expected level)
CASES = [
    ("same string", '{"gemma_version": "4"}', "2.5.0", "4", "gemma4_unified", "ok"),
    ("4 vs 4.0 is a mismatch", '{"gemma_version": "4"}', "2.5.0", "4.0", "gemma4_unified", "error"),
    ("text vs number is a mismatch", '{"gemma_version": "4"}', "2.5.0", 4, "gemma4", "error"),
    (
        "vanilla Gemma 4 under a declaring checkpoint",
        '{"gemma_version": "4"}',
        "2.5.0",
        ABSENT,
        "gemma4",
        "error",
    ),
    ("declared gemma 3 pair", '{"gemma_version": "3"}', "2.3.0", "3", "gemma3", "ok"),
    ("source without a version, Gemma without one", "{}", "2.5.0", ABSENT, "gemma4", "ok"),
    ("old checkpoint, gemma3", ABSENT, "2.3.0", ABSENT, "gemma3", "ok"),
    ("old checkpoint, no model_version, gemma3", ABSENT, ABSENT, ABSENT, "gemma3", "ok"),
    ("old checkpoint, Gemma 4 config", ABSENT, "2.3.0", "4", "gemma4", "error"),
    ("2.4.0+ undeclared, vanilla Gemma 4: warning", ABSENT, "2.5.0", ABSENT, "gemma4", "warning"),
    ("2.4.0 exactly, undeclared, Gemma declares 4", ABSENT, "2.4.0", "4", "gemma4", "error"),
    ("2.4.0.rc1 parses to 2.4.0", ABSENT, "2.4.0.rc1", ABSENT, "gemma3", "warning"),
    ("2.4-rc2 parses to (2,): old rule", ABSENT, "2.4-rc2", ABSENT, "gemma3", "ok"),
    ("2.3.rc1 with gemma4: old rule", ABSENT, "2.3.rc1", ABSENT, "gemma4", "error"),
    ("model_version stored as a JSON number", ABSENT, "3", ABSENT, "gemma3", "error"),
]


def _files(tmp_path, source, model_version, gemma_version, model_type):
    meta = {"config": _section_config(["transformer", "vae", "audio_vae", "vocoder"])}
    if source is not ABSENT:
        meta["gemma_source_checkpoint"] = source
    if model_version is not ABSENT:
        meta["model_version"] = model_version
    ckpt = write_safetensors(
        tmp_path / "ltx.safetensors", {"model.diffusion_model.x.weight": ("BF16", [8, 8])}, meta
    )
    gemma = tmp_path / "gemma"
    gemma.mkdir()
    config = {"model_type": model_type}
    if gemma_version is not ABSENT:
        config["gemma_version"] = gemma_version
    (gemma / "config.json").write_text(json.dumps(config))
    for name in ("tokenizer.json", "tokenizer_config.json", "processor_config.json"):
        (gemma / name).write_text("{}")
    write_safetensors(gemma / "model.safetensors", {"w": ("BF16", [4, 4])})
    return inspect_checkpoint(ckpt), inspect_text_encoder(gemma)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_the_trainer_rule_case_for_case(tmp_path, case):
    _, source, model_version, gemma_version, model_type, expected = case
    ckpt, te = _files(tmp_path, source, model_version, gemma_version, model_type)
    if expected == "error":
        with pytest.raises(UsageError) as info:
            check_compatibility(ckpt, te)
        assert str(ckpt.path) in info.value.message  # the Gemma too where it is at fault
    elif expected == "warning":
        warning = check_compatibility(ckpt, te)
        assert warning and "skips its version check" in warning
    else:
        assert check_compatibility(ckpt, te) is None


def test_exact_mismatch_says_why_the_spellings_differ(tmp_path):
    ckpt, te = _files(
        tmp_path,
        '{"gemma_version": "4"}',
        "2.5.0",
        4,
        "gemma4",
    )
    with pytest.raises(UsageError, match=r"needs gemma_version 4, .* has 4 \(a number\).*exactly"):
        check_compatibility(ckpt, te)


def test_unsupported_model_types_are_refused_before_the_version_rule(tmp_path):
    # gemma3_text and a missing model_type: ltx-core cannot build them (get_gemma_ops).
    ckpt, te = _files(tmp_path, ABSENT, "2.3.0", ABSENT, "gemma3_text")
    with pytest.raises(UsageError, match="model_type gemma3_text; the trainer loads only gemma3"):
        check_compatibility(ckpt, te)


def test_parse_model_version_keeps_leading_integers_only():
    assert parse_model_version("2.5.0") == (2, 5, 0)
    assert parse_model_version("2.3.rc1") == (2, 3)
    assert parse_model_version(None) == ()
    assert parse_model_version(2.5) is None  # ltx-core would crash on .split


def test_verdict_is_pure_and_names_both_files():
    verdict = check_gemma_version(None, "2.5.0", None, "gemma4", checkpoint="C", text_encoder="T")
    assert verdict.level == "warning" and "C" in verdict.message and "T" in verdict.message


def test_check_passes_a_warned_pair_and_says_why(tmp_path):
    from ltx_wizard.core.plan.model_checks import run_checks

    ckpt, te = _files(tmp_path, ABSENT, "2.5.0", ABSENT, "gemma4")
    items = {i.name: i for i in run_checks(ckpt.path, te.path)}
    assert items["text_encoder"].ok
    assert "warning:" in items["text_encoder"].summary
    assert "skips its version check" in items["text_encoder"].summary
