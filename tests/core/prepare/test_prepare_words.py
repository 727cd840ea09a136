"""Issue 41, prepare: each statement read from what happened (the spot check's output file, the
dataset's clips and their sound, the captions, the scenes' source videos, prepare.json), on real
tiny clips through the look-alike checkout's scripts and the stand-in captioner server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ltx_wizard.core.base.errors import EXIT_STOPPED, UsageError, WizardError
from ltx_wizard.core.dataset.clip_probe import probe_clip
from ltx_wizard.core.prepare.prepare_request import SpotCheckStop
from ltx_wizard.demo.lookalike_raw_clips import write_video
from tests.prepare_kit import SMALL_GPU, Asker, checkout, raw_folder, session


def _record(tmp_path: Path) -> dict:
    return json.loads((tmp_path / "ws" / "run" / "dataset" / "prepare.json").read_text())


async def test_a_spot_check_whose_captions_all_failed_offers_nothing_and_says_none_were_made(
    tmp_path, monkeypatch
):
    """It offered "Caption the rest like this?" over three failures, then said the samples were
    captioned, and exited 3."""
    checkout(tmp_path)
    raw = raw_folder(tmp_path)
    monkeypatch.setenv("LTX_WIZARD_SIM_CAPTION_FAIL", ".mp4")  # the server fails every clip
    asker = Asker(spot=[False])
    with pytest.raises(WizardError) as failed:
        await session(tmp_path, raw, asker, holdout="0").run()
    assert asker.shown == []  # nothing to approve: never asked
    assert not isinstance(failed.value, SpotCheckStop) and failed.value.exit_code == 1
    said = failed.value.message
    assert "captioned none of the 3 spot-check clips" in said and "500" in said
    assert "prepare-captions-spot.log" in said and "only the samples were captioned" not in said
    spot = tmp_path / "ws" / "run" / "dataset" / "preview-captions.json"
    assert not spot.exists() or json.loads(spot.read_text()) == []  # what happened: none


async def test_a_no_at_the_spot_check_is_a_stop_by_the_user_counting_what_its_file_holds(
    tmp_path, monkeypatch
):
    checkout(tmp_path)
    raw = raw_folder(tmp_path)
    monkeypatch.setenv("LTX_WIZARD_SIM_CAPTION_FAIL", "quiet")  # one of the three samples fails
    asker = Asker(spot=[False])
    with pytest.raises(SpotCheckStop) as stop:
        await session(tmp_path, raw, asker, holdout="0").run()
    assert stop.value.exit_code == EXIT_STOPPED == 130  # the README's user stop, never the gate's 3
    spot = tmp_path / "ws" / "run" / "dataset" / "preview-captions.json"
    held = json.loads(spot.read_text())
    assert len(asker.shown[0]) == 3 and len(held) == 2
    assert f"{len(held)} of the 3 samples captioned, in {spot}" in stop.value.message


async def test_without_anyone_to_ask_the_spot_check_stops_for_yes(tmp_path):
    checkout(tmp_path)
    with pytest.raises(UsageError) as refused:
        await session(tmp_path, raw_folder(tmp_path), Asker(spot=[None]), holdout="0").run()
    assert "3 of the 3 samples captioned" in refused.value.message and "--yes" in refused.value.message


async def test_the_count_says_how_many_the_trainer_trains_on_when_a_clip_is_silent(tmp_path):
    """ "Prepared 4 training samples" when the trainer trains on 3: one has no sound and t2v_lora
    trains sound (no audio latents: the trainer leaves it out)."""
    checkout(tmp_path)
    raw = raw_folder(tmp_path)
    result = await session(tmp_path, raw, Asker(), holdout="0").run()
    rows = json.loads(result.dataset_file.read_text())
    dataset = result.dataset_file.parent
    sounding = [r["video"] for r in rows if probe_clip(dataset / r["video"]).has_audio]
    silent = [r["video"] for r in rows if r["video"] not in sounding]
    record = _record(tmp_path)
    assert (record["samples"], record["trained"], record["silent_in_training"]) == (
        len(rows),
        len(sounding),
        silent,
    )
    assert result.lines[0].startswith(
        f"Prepared {len(rows)} training samples (+ 0 held out) for t2v_lora. The trainer trains on "
        f"{len(sounding)} of them: 1 clip(s) without sound (videos/quiet.mp4) get no audio latents"
    )


async def test_the_sound_check_under_simulated_gpus_is_the_one_the_preprocessing_gate_makes(tmp_path):
    """Under --simulate prepare said the trainer's environment cannot decode audio (this Python
    has no torchaudio), then the stand-in preprocessing wrote audio latents for every clip."""
    from ltx_wizard.demo.sim.prepare_runs import audio_probe as simulated_audio_probe
    from ltx_wizard.demo.sim.stand_in import SimulatedTrainer

    checkout(tmp_path)
    raw = raw_folder(tmp_path)
    made = session(
        tmp_path, raw, Asker(), holdout="0", audio_probe=simulated_audio_probe(SimulatedTrainer("h100"))
    )
    result = await made.run()
    gate = await SimulatedTrainer("h100").audio_decode(raw / "beach.mp4")  # what preprocess asks
    assert gate.ok
    said = _record(tmp_path)["audio_decode"]
    assert said.startswith("the simulated trainer's environment decodes audio")
    assert not any("cannot decode audio" in line for line in result.lines)


async def test_a_trigger_word_anywhere_in_a_caption_is_found(tmp_path):
    checkout(tmp_path)
    raw = raw_folder(tmp_path)
    captions = tmp_path / "caps.csv"
    said = {
        "beach": "sks on a beach",
        "long_take": "a long take of SKS walking",
        "phone": "a phone clip, sks.",
        "quiet": "a quiet room (no trigger here, nor sksx)",
    }
    captions.write_text("caption,video\n" + "".join(f'"{c}",{n}.mp4\n' for n, c in said.items()))
    result = await session(
        tmp_path, raw, Asker(), gpus=SMALL_GPU, holdout="0", captions_file=str(captions), lora_trigger="sks"
    ).run()
    record = _record(tmp_path)
    rows = json.loads(result.dataset_file.read_text())
    holding = sorted(r["video"] for r in rows if "sks" in r["caption"].lower().replace("sksx", ""))
    assert sorted(record["captions_with_trigger"]) == holding and len(holding) == 3
    assert any(
        line.startswith("3 of 4 caption(s) already contain the trigger word 'sks'") for line in result.lines
    )


async def test_a_held_out_sample_comes_from_another_source_video_where_there_is_one(tmp_path):
    checkout(tmp_path)
    raw = raw_folder(tmp_path)
    result = await session(tmp_path, raw, Asker(), split_scenes=True, holdout="3").run()
    assert len(result.held_out) == 3 and not any(h.startswith("scenes/") for h in result.held_out)
    assert _record(tmp_path)["held_out_shared_source"] == []
    assert "Not unseen footage" not in result.lines[1]


async def test_a_held_out_scene_of_a_trained_video_is_said_where_it_is_announced(tmp_path):
    checkout(tmp_path)
    one = write_video(tmp_path / "long_take.mp4", frames=288, scenes=3)
    result = await session(tmp_path, one, Asker(), holdout="1").run()
    (held,) = result.held_out
    trained = [r["video"] for r in json.loads(result.dataset_file.read_text())]
    record = _record(tmp_path)
    source = next(clip for clip, scenes in record["split"].items() if held in scenes)
    same = [t for t in trained if t in record["split"][source]]
    assert record["held_out_shared_source"] == [
        {"sample": held, "source": source, "training_samples": len(same)}
    ]
    assert (
        f"Not unseen footage: {held} is a scene of {source}, as {len(same)} training sample(s) are"
        in (result.lines[1])
    )
