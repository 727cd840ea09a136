"""The prepare flow end to end on real tiny clips, against the look-alike checkout's data scripts
(the trainer's options, run with this Python) and the stand-in Qwen3-Omni server the look-alike
serve_captioner.py starts on 127.0.0.1: staged links, audit, scene split, upright copies,
captions after the spot check, the held-out split."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ltx_wizard.core.base.errors import UsageError, WizardError
from ltx_wizard.core.dataset.clip_probe import probe_clip
from ltx_wizard.core.prepare.prepare_request import SpotCheckStop
from tests.prepare_kit import SMALL_GPU, Asker, checkout, raw_folder, session, snapshot


def _rows(path: Path) -> list[dict]:
    return json.loads(path.read_text())


def _holdout(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


async def test_raw_folder_becomes_a_captioned_dataset_with_scenes_upright_copy_and_holdout(tmp_path):
    checkout(tmp_path)
    raw = raw_folder(tmp_path)
    before = snapshot(raw)
    asker = Asker()
    result = await session(tmp_path, raw, asker, split_scenes=True, holdout="1", lora_trigger="sks").run()
    dataset = tmp_path / "ws" / "run" / "dataset"
    assert result.dataset_file == dataset / "dataset.json"
    rows, held = _rows(result.dataset_file), _holdout(dataset / "holdout.jsonl")
    clips = [r["video"] for r in rows + held]
    # the long one split into its three scenes, the phone clip replaced by its upright copy
    assert sorted(c for c in clips if c.startswith("scenes/")) == [
        "scenes/long_take-Scene-001.mp4",
        "scenes/long_take-Scene-002.mp4",
        "scenes/long_take-Scene-003.mp4",
    ]
    assert "rotated/phone.mp4" in clips and "videos/phone.mp4" not in clips
    assert "videos/long_take.mp4" not in clips
    assert len(held) == 1 and held[0]["video"] not in [r["video"] for r in rows]
    assert result.held_out == (held[0]["video"],)
    # a caption for every clip, from the server, describing the clip itself; no trigger word
    for row in rows + held:
        assert row["caption"].startswith("A ") and "sks" not in row["caption"]
        assert (dataset / row["video"]).is_file()
    upright = probe_clip(dataset / "rotated" / "phone.mp4")
    assert (upright.width, upright.height, upright.rotation) == (72, 128, 0)
    # the staged clips are links to the user's files, which are unchanged
    assert os.readlink(dataset / "videos" / "beach.mp4") == str(raw / "beach.mp4")
    assert snapshot(raw) == before
    # the rotated and the silent clip named with their fixes
    assert any(
        "videos/phone.mp4: was stored rotated; fixed by the upright copy rotated/phone.mp4" in line
        for line in result.lines
    )
    silent = next(line for line in asker.lines if line.startswith("videos/quiet.mp4: no audio"))
    assert "plan --video-only" in silent
    assert [t for t, _ in asker.asked] == ["scenes", "rotate"]
    assert len(asker.shown) == 1 and len(asker.shown[0]) == 3  # the spot check, in full
    record = json.loads((dataset / "prepare.json").read_text())
    assert record["lora_trigger"] == "sks" and record["held_out"] == list(result.held_out)
    assert record["split"] == {"videos/long_take.mp4": [c for c in clips if "Scene" in c]}
    assert result.plan.lora_trigger == "sks" and result.plan.data_root == result.dataset_file


async def test_the_captioner_server_is_stopped_when_captioning_ends(tmp_path, monkeypatch):
    from ltx_wizard.core.proc.table import group_alive
    from tests.prepare_kit import record_servers

    servers = record_servers(monkeypatch)
    checkout(tmp_path)
    raw = raw_folder(tmp_path)
    asker = Asker()
    await session(tmp_path, raw, asker, holdout="0").run()
    log = (tmp_path / "ws" / "run" / "logs" / "prepare-captioner-server.log").read_text()
    assert "serve_captioner.py --host 127.0.0.1 --port" in log
    assert len(servers) == 1 and not group_alive(servers[0])  # the server and its workers are gone
    assert "Captioner server stopped (its GPU memory is free for preprocessing)" in asker.lines


async def test_declined_offers_keep_the_clips_as_they_are(tmp_path):
    checkout(tmp_path)
    raw = raw_folder(tmp_path)
    asker = Asker(scenes=False, rotate=False)
    result = await session(tmp_path, raw, asker, split_scenes=True, holdout="0").run()
    clips = [r["video"] for r in _rows(result.dataset_file)]
    assert "videos/long_take.mp4" in clips and "videos/phone.mp4" in clips
    dataset = tmp_path / "ws" / "run" / "dataset"
    assert not (dataset / "scenes").exists() and not (dataset / ".scenes-pending").exists()
    assert any("(declined: it trains sideways)" in line for line in result.lines)


async def test_a_video_without_cuts_is_kept_whole(tmp_path):
    checkout(tmp_path)
    from ltx_wizard.demo.lookalike_raw_clips import write_video

    one = write_video(tmp_path / "one_take.mp4", frames=264)  # 11 s, one colour
    asker = Asker()
    result = await session(tmp_path, one, asker, holdout="0").run()
    assert [r["video"] for r in _rows(result.dataset_file)] == ["videos/one_take.mp4"]
    assert "videos/one_take.mp4: no cut found (0 scenes): kept whole as one clip" in asker.lines
    assert ("scenes",) not in [(t,) for t, _ in asker.asked]


async def test_stopping_at_the_spot_check_captions_only_the_samples(tmp_path):
    checkout(tmp_path)
    raw = raw_folder(tmp_path)
    with pytest.raises(SpotCheckStop) as stop:
        await session(tmp_path, raw, Asker(spot=[False]), holdout="0").run()
    assert stop.value.exit_code == 130  # a stop by the user (the README's list)
    dataset = tmp_path / "ws" / "run" / "dataset"
    assert len(json.loads((dataset / "preview-captions.json").read_text())) == 3
    assert not (dataset / "captions.json").exists() and not (dataset / "dataset.json").exists()


async def test_an_instruction_after_the_spot_check_recaptions_the_same_three(tmp_path):
    checkout(tmp_path)
    raw = raw_folder(tmp_path)
    asker = Asker(spot=["less about colour", True])
    result = await session(tmp_path, raw, asker, holdout="0").run()
    first, second = asker.shown
    assert [c for c, _ in first] == [c for c, _ in second]
    assert all("(less about colour)" in caption for _, caption in second)
    assert all("(less about colour)" in r["caption"] for r in _rows(result.dataset_file))


async def test_a_failed_caption_is_named_and_only_left_out_when_the_user_says_so(tmp_path, monkeypatch):
    checkout(tmp_path)
    raw = raw_folder(tmp_path)
    monkeypatch.setenv("LTX_WIZARD_SIM_CAPTION_FAIL", "beach")
    with pytest.raises(WizardError) as refused:
        await session(tmp_path, raw, Asker(**{"leave-out": False}), holdout="0").run()
    assert "videos/beach.mp4" in refused.value.message and "run prepare again" in refused.value.message
    asker = Asker(**{"leave-out": True})
    result = await session(tmp_path, raw, asker, holdout="0").run()
    assert "videos/beach.mp4" not in [r["video"] for r in _rows(result.dataset_file)]
    assert any(line.startswith("videos/beach.mp4: no caption (") and "500" in line for line in asker.lines)


async def test_existing_captions_are_kept_and_no_captioner_runs(tmp_path):
    checkout(tmp_path)
    raw = raw_folder(tmp_path)
    mine = tmp_path / "mine.json"
    mine.write_text(
        json.dumps(
            [{"caption": f"my words for {p.name}", "video": f"raw/{p.name}"} for p in sorted(raw.iterdir())]
        )
    )
    asker = Asker()
    result = await session(tmp_path, mine, asker, gpus=SMALL_GPU, holdout="0").run()
    assert {r["caption"] for r in _rows(result.dataset_file)} == {
        f"my words for {p.name}" for p in raw.iterdir()
    }
    assert asker.shown == [] and not (tmp_path / "ws" / "run" / "logs" / "prepare-captions.log").exists()
    assert "Captions: every clip has one (4); none made" in asker.lines


async def test_no_captioner_and_no_captions_is_refused_before_anything_is_written(tmp_path):
    checkout(tmp_path)
    raw = raw_folder(tmp_path)
    with pytest.raises(UsageError) as refused:
        session(tmp_path, raw, Asker(), gpus=SMALL_GPU)
    assert "no captioner on this box" in refused.value.message
    assert "GPU 0 has 22 GiB free" in refused.value.message and "--captions FILE" in refused.value.message
    assert not (tmp_path / "ws").exists()


async def test_captions_from_a_file_when_no_captioner_runs(tmp_path):
    checkout(tmp_path)
    raw = raw_folder(tmp_path)
    captions = tmp_path / "caps.csv"
    captions.write_text(
        "caption,video\n" + "".join(f"about {p.stem},{p.name}\n" for p in sorted(raw.iterdir()))
    )
    result = await session(
        tmp_path, raw, Asker(), gpus=SMALL_GPU, holdout="0", captions_file=str(captions)
    ).run()
    assert sorted(r["caption"] for r in _rows(result.dataset_file)) == [
        "about beach",
        "about long_take",
        "about phone",
        "about quiet",
    ]


async def test_a_small_dataset_asks_for_its_holdout_and_a_skip_is_said(tmp_path):
    checkout(tmp_path)
    raw = raw_folder(tmp_path)
    asker = Asker(holdout=0)
    result = await session(tmp_path, raw, asker).run()
    assert ("holdout",) == (asker.asked[-1][0],) and "The dataset has 4 samples" in asker.asked[-1][1]
    assert result.held_out == () and not (tmp_path / "ws" / "run" / "dataset" / "holdout.jsonl").exists()
    assert any(line.startswith("Skipping holdout") for line in result.lines)


async def test_your_own_held_out_folder_is_honoured(tmp_path):
    from ltx_wizard.demo.lookalike_raw_clips import write_video

    checkout(tmp_path)
    raw = raw_folder(tmp_path)
    mine = tmp_path / "held"
    write_video(mine / "unseen.mp4", frames=60, colour=4)
    result = await session(tmp_path, raw, Asker(), holdout=str(mine)).run()
    held = _holdout(tmp_path / "ws" / "run" / "dataset" / "holdout.jsonl")
    assert [r["video"] for r in held] == ["holdout/videos/unseen.mp4"] and held[0]["caption"]
    assert len(_rows(result.dataset_file)) == 4  # none of the clips taken out


async def test_the_trigger_word_is_refused_inside_an_instruction(tmp_path):
    checkout(tmp_path)
    with pytest.raises(UsageError) as refused:
        session(
            tmp_path,
            raw_folder(tmp_path),
            Asker(),
            lora_trigger="sks",
            instruction="Start every caption with sks.",
        )
    assert "prepended at preprocessing (--lora-trigger)" in refused.value.message


async def test_a_reference_recipe_needs_references_and_canny_only_when_asked(tmp_path):
    from ltx_wizard.demo.lookalike_raw_clips import write_video

    checkout(tmp_path)
    folder = tmp_path / "pairs"
    write_video(folder / "a.mp4", frames=60)
    write_video(folder / "b.mp4", frames=60, colour=2)
    with pytest.raises(UsageError) as refused:
        await session(tmp_path, folder, Asker(), recipe="v2v_ic_lora", holdout="0").run()
    assert "needs a reference video per clip" in refused.value.message
    assert "--canny" in refused.value.message
    result = await session(
        tmp_path, folder, Asker(), recipe="v2v_ic_lora", holdout="0", canny=True, run_name="canny"
    ).run()
    rows = _rows(result.dataset_file)
    assert [r["reference_video"] for r in rows] == ["videos/a_reference.mp4", "videos/b_reference.mp4"]
    assert all((result.dataset_file.parent / r["reference_video"]).is_file() for r in rows)


async def test_references_beside_their_clips_are_paired_and_a_short_one_is_named(tmp_path):
    from ltx_wizard.demo.lookalike_raw_clips import write_video

    checkout(tmp_path)
    folder = tmp_path / "pairs"
    write_video(folder / "a.mp4", frames=60)
    write_video(folder / "a_reference.mp4", frames=60, colour=1)
    write_video(folder / "b.mp4", frames=60, colour=2)
    write_video(folder / "b_reference.mp4", frames=20, colour=3)
    with pytest.raises(UsageError) as refused:
        await session(tmp_path, folder, Asker(), recipe="v2v_ic_lora", holdout="0").run()
    assert "references/b_reference.mp4 has 20 frames, fewer than the bucket's 49" in refused.value.message
