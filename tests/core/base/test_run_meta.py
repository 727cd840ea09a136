"""run.json and preprocess.json: what the plan writes (its version, then byte for byte what the
pydantic models wrote before they became dataclasses), what later commands read back from them,
and that a folder written before the codec (no version) still reads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.io.run_meta import LaunchSpec, RunMeta, read_run_meta
from ltx_wizard.core.launch.script import ensure_run_id, ensure_script
from ltx_wizard.core.preprocess.preprocess_command import PreprocessSpec
from ltx_wizard.core.preprocess.preprocess_state import STATE_FILE, PreprocessState, read_state, write_state

LAUNCH = LaunchSpec(
    argv=["uv", "run", "a\nb", "tab\there", 'q"uote', "back\\slash", "\x1b[31m", "\N{GRINNING FACE}", "\x00"],
    cwd=Path("/c"),
    env={"A": "1", "Ü": "ß", "E": ""},
    simulated=True,
    log=Path("/l.log"),
    pid_file=Path("/p.pid"),
)
META = RunMeta(
    run_id="ab" * 16,
    run_dir=Path("/r/ü é"),
    trainer_root=Path("/t"),
    tier="40-60GB",
    num_gpus=8,
    nodes=2,
    accepted_risk=True,
    recipe="t2v_lora",
    base_config=Path("/b/c.yaml"),
    launch=LAUNCH,
)
# Captured from main's pydantic RunMeta.model_dump_json(indent=2) + "\n" for META.
META_TEXT = """{
  "run_id": "abababababababababababababababab",
  "run_dir": "/r/ü é",
  "trainer_root": "/t",
  "tier": "40-60GB",
  "num_gpus": 8,
  "nodes": 2,
  "accepted_risk": true,
  "recipe": "t2v_lora",
  "base_config": "/b/c.yaml",
  "launch": {
    "argv": [
      "uv",
      "run",
      "a\\nb",
      "tab\\there",
      "q\\"uote",
      "back\\\\slash",
      "\\u001b[31m",
      "\N{GRINNING FACE}",
      "\\u0000"
    ],
    "cwd": "/c",
    "env": {
      "A": "1",
      "Ü": "ß",
      "E": ""
    },
    "simulated": true,
    "log": "/l.log",
    "pid_file": "/p.pid"
  }
}
"""
EMPTY_TEXT = """{
  "run_id": null,
  "run_dir": null,
  "trainer_root": null,
  "tier": null,
  "num_gpus": null,
  "nodes": 1,
  "accepted_risk": false,
  "recipe": null,
  "base_config": null,
  "launch": null
}
"""


def _run(tmp_path: Path, text: str) -> Path:
    run = tmp_path / "run"
    run.mkdir()
    (run / "run.json").write_text(text, encoding="utf-8")
    return run


def _versioned(text: str) -> str:
    return '{\n  "version": 1,\n' + text[2:]


def test_run_json_is_written_as_the_pydantic_model_wrote_it_after_its_version():
    assert META.json_text() == _versioned(META_TEXT)
    assert RunMeta().json_text() == _versioned(EMPTY_TEXT)


def test_a_run_json_written_before_the_codec_reads_as_version_1(tmp_path):
    assert read_run_meta(_run(tmp_path, META_TEXT)) == META


def test_a_written_run_json_reads_back_the_same(tmp_path):
    meta = read_run_meta(_run(tmp_path, META.json_text()))
    assert meta == META
    assert isinstance(meta.run_dir, Path) and isinstance(meta.launch.cwd, Path)
    assert meta.launch.argv == list(LAUNCH.argv) and meta.launch.env == LAUNCH.env


@pytest.mark.parametrize(
    "text",
    [
        "{not json",
        "",
        json.dumps([META.to_json()]),  # not an object
        json.dumps({**META.to_json(), "num_gpus": "many"}),  # wrong type
        json.dumps({**META.to_json(), "num_gpus": 2.5}),
        json.dumps({**META.to_json(), "tier": 40}),
        json.dumps({**META.to_json(), "nodes": None}),
        json.dumps({**META.to_json(), "accepted_risk": "maybe"}),
        json.dumps({**META.to_json(), "run_id": "AB" * 16}),  # not a run id
        json.dumps({**META.to_json(), "run_id": "ab" * 16 + "\n"}),
        json.dumps({**META.to_json(), "launch": {"cwd": "/c"}}),  # missing key
        json.dumps({**META.to_json(), "launch": {"argv": ["uv", 3], "cwd": "/c"}}),
        json.dumps({**META.to_json(), "launch": {"argv": "uv run", "cwd": "/c"}}),
        json.dumps({**META.to_json(), "launch": {"argv": ["uv"], "cwd": "/c", "env": {"A": 1}}}),
        # the pydantic models' lax values, no longer read
        json.dumps({**META.to_json(), "num_gpus": "2"}),
        json.dumps({**META.to_json(), "nodes": 3.0}),
        json.dumps({**META.to_json(), "accepted_risk": "yes"}),
        json.dumps({**META.to_json(), "launch": {**LAUNCH.to_json(), "simulated": 0}}),
        json.dumps({**META.to_json(), "num_gpus": 0}),
        json.dumps({**META.to_json(), "nodes": 10**100}),
        # fields this wizard does not know, another version
        json.dumps({**META.to_json(), "gpu_model": "H100"}),
        json.dumps({**META.to_json(), "launch": {**LAUNCH.to_json(), "nice": 5}}),
        json.dumps({"version": 2, **META.to_json()}),
        json.dumps({"version": "1", **META.to_json()}),
    ],
)
def test_a_damaged_run_json_reads_as_nothing_recorded_and_launching_names_it(tmp_path, text):
    run = _run(tmp_path, text)
    assert read_run_meta(run) == RunMeta()
    with pytest.raises(UsageError) as caught:
        ensure_script(run)
    said = caught.value.message
    assert said.startswith(f"{run} has no launch.sh, and its run record {run / 'run.json'} ")
    assert said.endswith(": plan the run again (ltx-wizard plan ... --force)") and "\n" not in said


def test_a_run_json_without_a_launch_says_so(tmp_path):
    with pytest.raises(UsageError, match="run.json records no launch: plan the run again"):
        ensure_script(_run(tmp_path, json.dumps({"tier": "40-60GB"})))


def test_an_old_run_json_without_the_newer_keys_reads_with_their_defaults(tmp_path):
    meta = read_run_meta(_run(tmp_path, json.dumps({"launch": {"argv": ["x"], "cwd": "/c"}})))
    assert meta.run_id is None and meta.nodes == 1
    assert meta.launch == LaunchSpec(argv=["x"], cwd=Path("/c"))


def test_an_old_folder_gets_its_run_id_written_in_the_same_layout(tmp_path):
    run = _run(tmp_path, json.dumps({"tier": "40-60GB"}))
    run_id = ensure_run_id(run, LaunchSpec(argv=["x"], cwd=run))
    expected = RunMeta(
        run_id=run_id, run_dir=run.resolve(), tier="40-60GB", launch=LaunchSpec(argv=["x"], cwd=run)
    )
    assert (run / "run.json").read_text(encoding="utf-8") == expected.json_text()


STATE = PreprocessState(
    dataset_file=Path("/data/clips/dataset.json"),
    data_root=Path("/data/clips/.precomputed"),
    spec=PreprocessSpec(
        buckets="960x544x49",
        model_path=Path("/models/ltx-2.safetensors"),
        text_encoder_path=Path("/models/gemma"),
        lora_trigger="CATZ",
        skip_audio=True,
    ),
    trainer_dir=Path("/src/LTX-2/packages/ltx-trainer"),
    samples=("videos/a.pt", "videos/é b.pt"),
    silent=("videos/a.pt",),
    reused=True,
)
# Captured from main's pydantic PreprocessState.model_dump_json(indent=2) + "\n" for STATE.
STATE_TEXT = """{
  "dataset_file": "/data/clips/dataset.json",
  "data_root": "/data/clips/.precomputed",
  "spec": {
    "buckets": "960x544x49",
    "model_path": "/models/ltx-2.safetensors",
    "text_encoder_path": "/models/gemma",
    "video_vae_path": null,
    "audio_vae_path": null,
    "lora_trigger": "CATZ",
    "skip_audio": true,
    "load_text_encoder_in_8bit": false
  },
  "trainer_dir": "/src/LTX-2/packages/ltx-trainer",
  "simulate": false,
  "samples": [
    "videos/a.pt",
    "videos/é b.pt"
  ],
  "silent": [
    "videos/a.pt"
  ],
  "one_sample_done": false,
  "full_done": false,
  "reused": true,
  "audio_gate": null,
  "video_only": false
}
"""


def _with_held_out(text: str) -> str:
    """The form written since issue 44: the held-out clips' latents (None until preprocessed)
    after the fields of the form before it, which still reads as version 1 (its default)."""
    return text.removesuffix("\n}\n") + ',\n  "held_out": null\n}\n'


def test_preprocess_json_is_written_as_before_and_reads_back_with_tuples(tmp_path):
    assert STATE_FILE.encode(STATE) == _with_held_out(_versioned(STATE_TEXT))
    write_state(tmp_path, STATE)
    assert (tmp_path / "preprocess.json").read_text(encoding="utf-8") == _with_held_out(
        _versioned(STATE_TEXT)
    )
    back = read_state(tmp_path)
    assert back == STATE and type(back.samples) is tuple and hash(back.samples) == hash(STATE.samples)


def test_a_preprocess_json_written_before_the_codec_reads_as_version_1(tmp_path):
    (tmp_path / "preprocess.json").write_text(STATE_TEXT, encoding="utf-8")
    assert read_state(tmp_path) == STATE


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"samples": "videos/a.pt"}, "is damaged (Expected `array`, got `str` - at `$.samples`)"),
        ({"simulate": 2}, "is damaged (Expected `bool`, got `int` - at `$.simulate`)"),
        ({"spec": None}, "is damaged (Expected `object`, got `null` - at `$.spec`)"),
        ({"trainer_dir": 3}, "is damaged (Expected `Path`, got `int` - at `$.trainer_dir`)"),
        ({"spec": {"buckets": "1x1x1", "nice": 1}}, "is damaged (unknown field `$.spec.nice`)"),
        ({"version": 2}, "is of version 2, written by a newer ltx-wizard; this one reads 1"),
    ],
)
def test_a_damaged_preprocess_json_is_refused_naming_it(tmp_path, change, why):
    (tmp_path / "preprocess.json").write_text(json.dumps({**json.loads(STATE_TEXT), **change}))
    with pytest.raises(UsageError) as caught:
        read_state(tmp_path)
    assert caught.value.message == (
        f"preprocess state {tmp_path / 'preprocess.json'} {why}: plan the run again (ltx-wizard plan ... --force)"
    )
