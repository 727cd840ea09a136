"""The byte-preserving patcher: only the patched lines may differ from the user's file."""

from __future__ import annotations

import pytest

from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.demo.lookalike_checkout import LOW_VRAM_TEXT, STANDARD_TEXT
from ltx_wizard.core.io.yaml_patch import (
    YamlPatchError,
    get_dotted,
    load_yaml,
    patch_yaml_text,
    unified_diff,
)

NASTY = """\
---
# header comment\twith a tab
model:   # section comment
  model_path: "/old/ckpt.safetensors"   # the checkpoint \u2014 keep me
  text_encoder_path: '/old/it''s gemma'
  training_mode: lora
  load_checkpoint: ~
  note: "has # hash and \\"quotes\\""
lora:
    rank: 16        # four-space indentation here
    target_modules:
    - "to_k"
    -   - nested
        - list
    extra: { a: 1, b: [2, 3] }
optimization:
  scheduler_params: { }
  steps: 2000
  learning_rate: 1e-4
  empty_value:
  flags: [true, false, null]
validation:
  video_dims: [576, 576, 89]
  samples:
    - prompt: "\u65e5\u672c\u8a9e\u306e\u30d7\u30ed\u30f3\u30d7\u30c8"  # unicode
      seed: 1
# trailing comment about the end
output_dir: outputs/run
"""


def changed_lines(before: str, after: str) -> list[tuple[str, str]]:
    a, b = before.splitlines(), after.splitlines()
    assert len(a) == len(b), "a replacement must not add or remove lines"
    return [(x, y) for x, y in zip(a, b) if x != y]


PATHS = {
    "model.model_path": "/abs/models/ltx.safetensors",
    "model.text_encoder_path": "/abs/models/gemma-3",
    "data.preprocessed_data_root": "/abs/data/.precomputed",
    "output_dir": "/abs/runs/t2v-x/outputs",
}


@pytest.mark.parametrize("text", [STANDARD_TEXT, LOW_VRAM_TEXT])
def test_lookalike_configs_only_patched_lines_change(text):
    out = patch_yaml_text(text, PATHS)
    diff = changed_lines(text, out)
    assert [new for _, new in diff] == [
        '  model_path: "/abs/models/ltx.safetensors"',
        '  text_encoder_path: "/abs/models/gemma-3"',
        '  preprocessed_data_root: "/abs/data/.precomputed"',
        'output_dir: "/abs/runs/t2v-x/outputs"',
    ]
    data = load_yaml(out)
    for key, value in PATHS.items():
        assert get_dotted(data, key) == value


def test_no_changes_is_byte_identical():
    assert patch_yaml_text(NASTY, {}) == NASTY


def test_inline_comment_and_quote_styles_survive():
    out = patch_yaml_text(
        NASTY,
        {
            "model.model_path": "/new/a.safetensors",
            "model.text_encoder_path": "/new/b",
            "model.training_mode": "full",
            "output_dir": "/new/out dir",
        },
    )
    new = [b for _, b in changed_lines(NASTY, out)]
    assert new == [
        '  model_path: "/new/a.safetensors"   # the checkpoint \u2014 keep me',
        "  text_encoder_path: '/new/b'",
        "  training_mode: full",
        "output_dir: /new/out dir",
    ]


def test_value_with_hash_and_escaped_quotes_is_replaced_whole():
    out = patch_yaml_text(NASTY, {"model.note": "plain now"})
    assert changed_lines(NASTY, out) == [('  note: "has # hash and \\"quotes\\""', '  note: "plain now"')]


@pytest.mark.parametrize(
    ("key", "value", "line"),
    [
        ("model.load_checkpoint", None, "  load_checkpoint: null"),
        ("model.load_checkpoint", "/ck/step.safetensors", '  load_checkpoint: "/ck/step.safetensors"'),
        ("optimization.steps", 50, "  steps: 50"),
        ("optimization.steps", None, "  steps: null"),
        ("optimization.learning_rate", 1e-5, "  learning_rate: 1.0e-05"),
        ("optimization.learning_rate", 0.5, "  learning_rate: 0.5"),
        ("lora.rank", True, "    rank: true        # four-space indentation here"),
        ("optimization.empty_value", 3, "  empty_value: 3"),
    ],
)
def test_scalar_rendering(key, value, line):
    out = patch_yaml_text(NASTY, {key: value})
    assert [b for _, b in changed_lines(NASTY, out)] == [line]
    got = get_dotted(load_yaml(out), key)
    assert got == value and type(got) in (type(value), type(None)) or isinstance(got, type(value))


@pytest.mark.parametrize(
    "value",
    [
        "yes",
        "on",
        "1.5",
        "null",
        "a: b",
        "x # y",
        "it's",
        "\u00e9t\u00e9 \U0001f3ac",
        "line\nbreak",
        " pad",
        "~",
    ],
)
def test_strings_that_need_quotes_read_back_exactly(value):
    for key in ("model.training_mode", "model.text_encoder_path", "model.load_checkpoint"):
        out = patch_yaml_text(NASTY, {key: value})
        assert get_dotted(load_yaml(out), key) == value
        assert len(changed_lines(NASTY, out)) == 1


def test_absent_key_is_inserted_after_the_sections_last_key():
    out = patch_yaml_text(NASTY, {"lora.alpha": 16, "model.video_vae_path": "/v.safetensors"})
    lines = out.splitlines()
    # lora's last key holds a flow map; the new key lands right after it at lora's indentation
    assert lines[lines.index("    extra: { a: 1, b: [2, 3] }") + 1] == "    alpha: 16"
    assert lines[lines.index('  note: "has # hash and \\"quotes\\""') + 1] == (
        '  video_vae_path: "/v.safetensors"'
    )
    assert [ln for ln in lines if ln not in NASTY.splitlines()] == [
        '  video_vae_path: "/v.safetensors"',
        "    alpha: 16",
    ]


def test_absent_key_after_a_block_list_goes_after_the_list():
    text = "a:\n  xs:\n    - 1\n    - - 2\n      - 3\n\n  # comment\nb: 1\n"
    out = patch_yaml_text(text, {"a.z": False})
    assert out == "a:\n  xs:\n    - 1\n    - - 2\n      - 3\n  z: false\n\n  # comment\nb: 1\n"


def test_absent_key_after_an_empty_value_stays_in_its_section():
    text = "a:\n  b:\n    c:\n  d: 1\n"
    assert patch_yaml_text(text, {"a.b.e": 2}) == "a:\n  b:\n    c:\n    e: 2\n  d: 1\n"


def test_missing_section_is_appended_with_the_files_indent():
    out = patch_yaml_text(NASTY, {"wandb.enabled": False, "wandb.project": "p"})
    assert out.startswith(NASTY)
    assert out[len(NASTY) :] == '\nwandb:\n  enabled: false\n  project: "p"\n'
    four = "a:\n    b: 1\n"
    assert patch_yaml_text(four, {"c.d": 2}) == "a:\n    b: 1\n\nc:\n    d: 2\n"


def test_crlf_and_missing_trailing_newline_are_kept():
    text = 'model:\r\n  model_path: "/x"  # c\r\n  rank: 1\r\nseed: 42'
    out = patch_yaml_text(text, {"model.model_path": "/y", "model.new": 1, "seed": 7, "top": True})
    assert out == ('model:\r\n  model_path: "/y"  # c\r\n  rank: 1\r\n  new: 1\r\nseed: 7\r\ntop: true')


def test_bom_and_document_markers():
    text = "\ufeff---\nmodel:\n  model_path: x\n...\n"
    out = patch_yaml_text(text, {"model.model_path": "/y", "output_dir": "/o"})
    assert out == '\ufeff---\nmodel:\n  model_path: /y\noutput_dir: "/o"\n...\n'


def test_empty_document_gets_the_keys():
    assert patch_yaml_text("", {"a.b": 1}) == "a:\n  b: 1\n"


@pytest.mark.parametrize(
    ("text", "key", "words"),
    [
        (NASTY, "lora.extra.a", "flow map"),
        (NASTY, "optimization.scheduler_params.x", "flow map"),
        (NASTY, "lora.target_modules", "section or list"),
        (NASTY, "model", "section or list"),
        (NASTY, "model.model_path.deeper", "not a section"),
        ("a:\n  b: |\n    text\n", "a.b", "several lines"),
        ("a:\n  b: one\n    two\n", "a.b", "several lines"),
        ('a:\n  b: "one\n    two"\n', "a.b", "several lines"),
        ("a: &x 1\nb: *x\n", "b", "anchor or alias"),
        ("a: &x 1\n", "a", "anchor"),
        ("a: !!str 5\n", "a", "tag"),
        ("a: {b: 1}\n", "a.b", "flow map"),
        ("a: 1\na: 2\n", "a", "twice"),
        ("a: [1\n", "a", "not valid YAML"),
        ("- 1\n- 2\n", "a", "not a section"),
    ],
)
def test_unsafe_targets_raise_instead_of_corrupting(text, key, words):
    with pytest.raises(YamlPatchError) as err:
        patch_yaml_text(text, {key: 1})
    assert words in err.value.message
    assert isinstance(err.value, WizardError) and "\n" not in err.value.message


def test_flow_maps_and_empty_maps_elsewhere_stay_byte_identical():
    out = patch_yaml_text(NASTY, {"optimization.steps": 10, "lora.rank": 8})
    assert "  scheduler_params: { }\n" in out and "    extra: { a: 1, b: [2, 3] }\n" in out
    assert "  flags: [true, false, null]\n" in out
    assert len(changed_lines(NASTY, out)) == 2


def test_bad_values_and_keys_are_refused():
    with pytest.raises(TypeError):
        patch_yaml_text(NASTY, {"a": [[1], 2]})
    with pytest.raises(TypeError):
        patch_yaml_text(NASTY, {"a": [{"x": 1}]})


def test_flow_lists_keep_their_style_and_block_lists_are_refused():
    text = "validation:\n  video_dims: [ 960, 544, 89 ]  # w, h, f\n  tags:\n    - a\n"
    out = patch_yaml_text(text, {"validation.video_dims": [576, 576, 49]})
    assert out == text.replace("[ 960, 544, 89 ]", "[ 576, 576, 49 ]")
    tight = patch_yaml_text("dims: [1, 2]\n", {"dims": (3, 4)})
    assert tight == "dims: [3, 4]\n"
    with pytest.raises(YamlPatchError, match="one-line"):
        patch_yaml_text(text, {"validation.tags": ["b"]})
    assert patch_yaml_text("a: 1\n", {"b": [1, "x y"]}) == 'a: 1\nb: [1, "x y"]\n'
    with pytest.raises(YamlPatchError):
        patch_yaml_text(NASTY, {"a..b": 1})


def test_get_dotted_and_diff():
    data = load_yaml(NASTY)
    assert get_dotted(data, "lora.rank") == 16
    assert get_dotted(data, "lora.missing", None) is None
    with pytest.raises(KeyError):
        get_dotted(data, "nope.x")
    out = patch_yaml_text(NASTY, {"optimization.steps": 5})
    diff = unified_diff(NASTY, out, "base.yaml", "config.yaml")
    assert diff.startswith("--- base.yaml\n+++ config.yaml\n")
    assert "-  steps: 2000\n+  steps: 5\n" in diff
    assert unified_diff(NASTY, NASTY, "a", "b") == ""


def _scalar_keys(data, prefix=""):
    for key, value in data.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict):
            if getattr(value, "fa", None) is None or not value.fa.flow_style():
                yield from _scalar_keys(value, path + ".")
        elif not isinstance(value, list):
            yield path


@pytest.mark.parametrize("text", [STANDARD_TEXT, LOW_VRAM_TEXT], ids=["standard", "low-vram"])
@pytest.mark.parametrize("value", ["/a b/c", True])
def test_every_scalar_of_the_lookalikes_patches_one_line(text, value):
    data = load_yaml(text)
    keys = list(_scalar_keys(data))
    assert len(keys) > 40
    for key in keys:
        out = patch_yaml_text(text, {key: value})
        diff = changed_lines(text, out)
        same = get_dotted(data, key) is True and value is True
        assert len(diff) == (0 if same else 1), key
        assert all(old.split(":")[0] == new.split(":")[0] for old, new in diff)


STRATEGY = """\
training_strategy:
  name: "flexible"
  video:
    is_generated: true
    latents_dir: "latents"
  # Audio block: generated too
  audio:
    # inner comment goes with the block
    is_generated: true
    latents_dir: "audio_latents"   # trailing

# next section's comment stays
optimization: {steps: 10}
lora:
  target_modules:
    - "to_k"
    - "to_q"
seed: 42
"""


def test_a_section_set_to_null_loses_only_its_own_lines():
    out = patch_yaml_text(STRATEGY, {"training_strategy.audio": None})
    assert out == STRATEGY.replace(
        "  audio:\n    # inner comment goes with the block\n    is_generated: true\n"
        '    latents_dir: "audio_latents"   # trailing\n',
        "  audio: null\n",
    )
    assert get_dotted(load_yaml(out), "training_strategy.audio") is None
    out = patch_yaml_text(STRATEGY, {"lora.target_modules": None})
    assert "  target_modules: null\nseed: 42\n" in out and "to_k" not in out
    out = patch_yaml_text(STRATEGY, {"optimization": None})
    assert "optimization: null\n" in out and out.count("\n") == STRATEGY.count("\n")


def test_a_crlf_section_set_to_null_keeps_crlf():
    text = STRATEGY.replace("\n", "\r\n")
    out = patch_yaml_text(text, {"training_strategy.audio": None})
    assert "  audio: null\r\n\r\n# next section" in out and "\n" not in out.replace("\r\n", "")


def test_a_section_still_cannot_take_a_scalar():
    with pytest.raises(WizardError, match="holds a section or list"):
        patch_yaml_text(STRATEGY, {"training_strategy.audio": "none"})


# One parse per text (yaml_parse): the patch's re-read takes its values from the shared parse
# only where every node has a core tag; anything else goes through the safe loader, as before.


def test_a_custom_tag_elsewhere_in_the_config_is_still_refused():
    with pytest.raises(YamlPatchError) as err:
        patch_yaml_text("a: 1\nb: !python/name:os.system x\nc: 2\n", {"a": 3, "c": 4})
    assert "could not determine a constructor" in err.value.message


def test_a_date_or_an_anchored_flag_beside_the_change_is_kept_as_it_was():
    text = "when: 2001-12-14\nflag: &f true\nsteps: 10\nrate: 1.5e-4\n"
    out = patch_yaml_text(text, {"steps": 20, "rate": 2.0e-4})
    assert out == "when: 2001-12-14\nflag: &f true\nsteps: 20\nrate: 0.0002\n"
    assert patch_yaml_text("flag: &f true\nsteps: 10\n", {"steps": True}) == ("flag: &f true\nsteps: true\n")


def test_a_patch_that_would_turn_an_int_into_a_bool_elsewhere_is_still_caught():
    from ltx_wizard.core.io.yaml_parse import _plain_load

    # 1 and True compare equal in Python; the re-read must still tell them apart
    assert _plain_load("a: 1\nb: true\n") == {"a": 1, "b": True}
    assert [type(v) for v in _plain_load("a: 1\nb: true\nc: 0x10\nd: 1.0\n").values()] == [
        int,
        bool,
        int,
        float,
    ]


def test_an_explicit_core_tag_beside_the_change_is_read_as_the_safe_loader_reads_it():
    from ltx_wizard.core.io.yaml_parse import _plain_load

    # ruamel builds `!!str 5` as a TaggedScalar; the check must still see the string "5"
    assert _plain_load("a: !!str 5\nb: 1\n") == {"a": "5", "b": 1}
    assert patch_yaml_text("a: !!str 5\nb: 1\n", {"b": 2}) == "a: !!str 5\nb: 2\n"
