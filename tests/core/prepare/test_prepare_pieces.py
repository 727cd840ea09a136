"""The prepare flow's parts on their own: the source and its staging, the audit's findings and
bucket, the upright copy, the scene split's preview, the captioner choice, the Qwen path against
a local OpenAI-compatible server, the held-out pick, the audio-decode verdict."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.dataset.clip_probe import probe_clip
from ltx_wizard.core.prepare import audio_env, captioner, holdout
from ltx_wizard.core.prepare.audit import audit
from ltx_wizard.core.prepare.captions import caption_args, queue_names, run_captions, spot_clips
from ltx_wizard.core.prepare.rotate import make_rotated_copy
from ltx_wizard.core.prepare.scenes import accept_split, preview_split, scene_names
from ltx_wizard.core.prepare.scripts import ScriptRunner
from ltx_wizard.core.prepare.source import read_source
from ltx_wizard.core.prepare.staging import stage
from ltx_wizard.demo.lookalike_raw_clips import write_video
from ltx_wizard.demo.sim.captioner import FAIL_ENV, start_in_thread
from tests.prepare_kit import H100, SMALL_GPU, checkout, python_runner, snapshot


def _run_dir(tmp_path: Path) -> Path:
    run = tmp_path / "ws" / "run"
    (run / "dataset").mkdir(parents=True)
    return run


# ----- source and staging ------------------------------------------------------------------------
def test_a_folder_stages_clips_as_links_and_its_references_apart(tmp_path):
    write_video(tmp_path / "src" / "sub" / "a.mp4", frames=12)
    write_video(tmp_path / "src" / "sub" / "a_reference.mp4", frames=12)
    (tmp_path / "src" / "notes.txt").write_text("not a clip")
    before = snapshot(tmp_path / "src")
    source = read_source(tmp_path / "src")
    assert [p.name for p in source.media] == ["a.mp4"] and [p.name for p in source.skipped] == ["notes.txt"]
    run = _run_dir(tmp_path)
    staged = stage(source, run / "dataset", run)
    assert staged.rows == (
        {"video": "videos/sub/a.mp4", "reference_video": "references/sub/a_reference.mp4"},
    )
    assert os.readlink(run / "dataset" / "videos" / "sub" / "a.mp4") == str(
        tmp_path / "src" / "sub" / "a.mp4"
    )
    assert stage(source, run / "dataset", run).rows == staged.rows  # again: the same links
    assert snapshot(tmp_path / "src") == before


def test_a_dataset_file_keeps_its_columns_and_links_paths_that_leave_its_folder(tmp_path):
    write_video(tmp_path / "data" / "clips" / "a.mp4", frames=12)
    write_video(tmp_path / "elsewhere" / "b.mp4", frames=12)
    listed = tmp_path / "data" / "list.jsonl"
    listed.write_text(
        json.dumps({"caption": "one", "media_path": "clips/a.mp4"})
        + "\n"
        + json.dumps({"caption": "two", "media_path": "../elsewhere/b.mp4"})
        + "\n"
    )
    run = _run_dir(tmp_path)
    staged = stage(read_source(listed), run / "dataset", run)
    assert staged.video_column == "media_path" and staged.caption_column == "caption"
    assert [r["media_path"] for r in staged.rows] == ["clips/a.mp4", "media/b.mp4"]
    assert os.readlink(run / "dataset" / "media" / "b.mp4") == str(tmp_path / "elsewhere" / "b.mp4")


def test_a_real_file_in_the_way_is_never_overwritten(tmp_path):
    write_video(tmp_path / "src" / "a.mp4", frames=12)
    run = _run_dir(tmp_path)
    (run / "dataset" / "videos").mkdir()
    (run / "dataset" / "videos" / "a.mp4").write_text("mine")
    with pytest.raises(UsageError) as refused:
        stage(read_source(tmp_path / "src"), run / "dataset", run)
    assert "not a link the wizard made" in refused.value.message
    assert (run / "dataset" / "videos" / "a.mp4").read_text() == "mine"


def test_a_source_that_is_not_media_is_named(tmp_path):
    (tmp_path / "x.txt").write_text("hi")
    with pytest.raises(UsageError, match="not a video the trainer's scripts read"):
        read_source(tmp_path / "x.txt")
    (tmp_path / "empty").mkdir()
    with pytest.raises(UsageError, match="holds no clips or images"):
        read_source(tmp_path / "empty")


# ----- audit ---------------------------------------------------------------------------------------
def _facts(tmp_path: Path, **clips) -> list:
    out = []
    for name, spec in clips.items():
        path = write_video(tmp_path / f"{name}.mp4", **spec)
        out.append((f"videos/{name}.mp4", probe_clip(path)))
    return out


def test_the_audit_names_each_problem_with_its_fix_and_suggests_a_bucket(tmp_path):
    facts = _facts(
        tmp_path,
        plain={"frames": 60},
        phone={"frames": 60, "rotation": -90},
        quiet={"frames": 60, "audio": False},
        short={"frames": 30},
        long={"frames": 250},
    )
    report = audit(facts, buckets=None, audio_trained=True, recipe="t2v_lora")
    kinds = {(f.clip, f.kind) for f in report.findings}
    assert ("videos/phone.mp4", "rotated") in kinds and ("videos/quiet.mp4", "no audio") in kinds
    assert report.rotated == (("videos/phone.mp4", 270),)
    assert report.long == ("videos/long.mp4",)
    # the shortest video sets the frames: 30 -> 25 (8k+1); 16:9 clips, never larger than they are
    assert report.bucket == "128x64x25"
    assert "the shortest video has 30" in report.bucket_why
    rotated = report.of("rotated")[0].text
    assert "trains on it sideways" in rotated and "upright copy" in rotated
    judged = audit(facts, buckets="128x64x49", audio_trained=False)
    assert judged.dropped == (
        ("videos/short.mp4", "30 frames, fewer than the bucket's 49: the trainer skips it"),
    )
    assert not judged.of("no audio")  # a recipe without sound does not need it


def test_stills_get_a_one_frame_bucket(tmp_path):
    import struct
    import zlib

    facts = _facts(tmp_path, clip={"frames": 60})
    still = tmp_path / "still.png"  # a real 64x36 grey PNG, written by hand

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    pixels = b"".join(b"\x00" + b"\x80" * 64 for _ in range(36))
    still.write_bytes(
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", 64, 36, 8, 0, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(pixels))
        + chunk(b"IEND", b"")
    )
    facts.append(("videos/still.png", probe_clip(still)))
    report = audit(facts, buckets=None, audio_trained=False)
    assert report.bucket == "128x64x49;128x64x1" and report.images == 1
    assert "with several buckets the trainer's batch size must be 1" in report.bucket_why
    stops = audit(facts, buckets="128x64x49", audio_trained=False)
    assert stops.dropped[0][0] == "videos/still.png"


def test_an_upright_copy_turns_the_frames_and_keeps_the_sound(tmp_path):
    import av

    src = write_video(tmp_path / "phone.mp4", frames=12, width=64, height=32, rotation=90)
    before = (src.read_bytes(), src.stat().st_mtime_ns)
    run = _run_dir(tmp_path)
    dest = make_rotated_copy(src, 90, run / "dataset" / "rotated" / "phone.mp4", run)
    assert (src.read_bytes(), src.stat().st_mtime_ns) == before  # the original is only read
    facts = probe_clip(dest)
    assert (facts.width, facts.height, facts.rotation, facts.has_audio) == (32, 64, 0, True)
    with av.open(str(dest)) as container:
        assert container.streams.video[0].frames == 12


# ----- scenes ------------------------------------------------------------------------------------
async def test_the_scene_count_is_known_before_the_scenes_enter_the_dataset(tmp_path):
    checkout(tmp_path)
    video = write_video(tmp_path / "long.mp4", frames=288, scenes=3)
    run = _run_dir(tmp_path)
    runner = python_runner(tmp_path / "LTX-2" / "packages" / "ltx-trainer", None)
    preview = await preview_split(
        runner, video, "videos/long.mp4", run / "dataset", run, run / "logs" / "split.log", dict(os.environ)
    )
    assert preview.found == 3 and [f for _, _, f in preview.scenes] == [96, 96, 96]
    assert not (run / "dataset" / "scenes").exists()  # nothing in the dataset yet
    assert "--filter-shorter-than 2s" in (run / "logs" / "split.log").read_text()
    rels = accept_split(preview, run / "dataset", run)
    assert rels == [f"scenes/{n}" for n in scene_names("long", 3)]
    assert [probe_clip(run / "dataset" / r).frames for r in rels] == [96, 96, 96]
    assert not (run / "dataset" / ".scenes-pending").exists()


async def test_a_checkout_without_the_split_option_is_refused(tmp_path):
    checkout(tmp_path)
    script = tmp_path / "LTX-2" / "packages" / "ltx-trainer" / "scripts" / "split_scenes.py"
    script.write_text(script.read_text().replace('"--filter-shorter-than"', '"--shorter"'))
    run = _run_dir(tmp_path)
    runner = python_runner(tmp_path / "LTX-2" / "packages" / "ltx-trainer", None)
    with pytest.raises(UsageError, match="has no --filter-shorter-than option"):
        await preview_split(
            runner,
            write_video(tmp_path / "v.mp4", frames=12),
            "v",
            run / "dataset",
            run,
            run / "logs" / "s.log",
            dict(os.environ),
        )


# ----- captions ----------------------------------------------------------------------------------
def test_the_backend_comes_from_what_the_box_has():
    key = captioner.choose_captioner(None, {"GEMINI_API_KEY": "k"}, H100)
    assert key.backend == "gemini_flash" and "GEMINI_API_KEY is set" in key.why
    big = captioner.choose_captioner(None, {}, H100)
    assert (big.backend, big.start_server, big.gpu) == ("qwen_omni", True, 0)
    url = captioner.choose_captioner(None, {}, SMALL_GPU, vllm_url="http://10.0.0.5:8001/v1/")
    assert (url.backend, url.vllm_url, url.start_server) == ("qwen_omni", "http://10.0.0.5:8001/v1", False)
    none = captioner.choose_captioner(None, {}, SMALL_GPU)
    assert none.backend == "none" and "GPU 0 has 22 GiB free" in none.why
    with pytest.raises(UsageError, match="needs a GPU with 40 GiB free"):
        captioner.choose_captioner("qwen_omni", {}, SMALL_GPU)


def test_gemini_runs_five_workers_and_its_key_stays_off_the_command_line(tmp_path):
    choice = captioner.choose_captioner(None, {"GOOGLE_API_KEY": "secret"}, [])
    args = caption_args(tmp_path / "q", tmp_path / "out.json", choice)
    assert args[args.index("--captioner-type") + 1] == "gemini_flash"
    assert args[args.index("--num-workers") + 1] == "5" and "secret" not in " ".join(args)


def test_the_spot_check_takes_first_middle_and_last():
    assert spot_clips([f"c{i}" for i in range(10)]) == ["c0", "c4", "c9"]
    assert spot_clips(["a", "b"]) == ["a", "b"]


async def test_qwen_captions_come_from_a_local_server_and_a_failure_is_named(tmp_path, monkeypatch):
    checkout(tmp_path)
    run = _run_dir(tmp_path)
    clips = {
        name: write_video(run / "dataset" / "videos" / f"{name}.mp4", frames=12, audio=name != "b", colour=i)
        for i, name in enumerate(("a", "b", "c"))
    }
    server, url = start_in_thread()
    monkeypatch.setenv(FAIL_ENV, "c.mp4")
    try:
        choice = captioner.choose_captioner(None, {}, [], vllm_url=url)
        names = queue_names([f"videos/{n}.mp4" for n in clips])
        run_ = await run_captions(
            python_runner(tmp_path / "LTX-2" / "packages" / "ltx-trainer", None),
            choice,
            {n: run / "dataset" / rel for n, rel in names.items()},
            run / "dataset",
            run,
            spot=False,
            log=run / "logs" / "c.log",
            env=dict(os.environ),
        )
    finally:
        server.shutdown()
    by_name = {Path(p).name: c for p, c in run_.captions.items()}
    assert by_name["a.mp4"].startswith("A mostly red scene, 128x72, 12 frames at 24 fps, with")
    assert "in silence" in by_name["b.mp4"]
    assert [n for n, _ in run_.failed] == ["3-c.mp4"] and "500" in run_.failed[0][1]
    assert "Captioned 2/3 media successfully." in (run / "logs" / "c.log").read_text()


async def test_the_started_server_answers_and_is_gone_after_stop(tmp_path):
    checkout(tmp_path)
    runner = python_runner(tmp_path / "LTX-2" / "packages" / "ltx-trainer", None)
    server = captioner.CaptionerServer(runner, tmp_path / "server.log", dict(os.environ), gpu=0)
    url = await server.start()
    assert captioner.server_ready(url)
    pid = server.proc.pid
    await server.stop()
    assert not captioner.server_ready(url, timeout_s=1)
    with pytest.raises(ProcessLookupError):
        os.killpg(pid, 0)


def test_the_server_is_asked_early_then_every_two_seconds():
    """A server whose model is on disk answers in about a second: the first look comes after
    0.1 s, not 2 s; a first start's download is then checked every 2 s."""
    pauses = captioner.poll_pauses()
    assert [next(pauses) for _ in range(8)] == [0.1, 0.2, 0.4, 0.8, 1.6, 2.0, 2.0, 2.0]


# ----- held out ----------------------------------------------------------------------------------
def test_holdout_is_about_ten_percent_bounded_and_asked_for_small_sets():
    assert holdout.plan_holdout(40, None) is None  # tens of samples: the user's call
    assert holdout.plan_holdout(60, None).count == 6  # about 10 %
    assert holdout.plan_holdout(1000, None).count == holdout.MAX_AUTO == 10  # a handful
    assert holdout.plan_holdout(40, 2).count == 2
    with pytest.raises(UsageError, match="at least one must be left"):
        holdout.plan_holdout(3, 3)
    ids = [f"s{i}" for i in range(200)]
    assert holdout.pick(ids, 5) == holdout.pick(list(ids), 5)  # seed 42: the same every run
    assert len(set(holdout.pick(ids, 5))) == 5


# ----- the audio decode check ---------------------------------------------------------------------
def test_missing_ffmpeg_libraries_get_the_ffmpeg_fix():
    verdict = audio_env.judge(
        {
            "torchaudio": "2.9.0",
            "torchcodec": None,
            "ok": False,
            "torchcodec_error": "RuntimeError: Could not load libtorchcodec. "
            "Likely causes: 1. FFmpeg is not properly installed",
            "error": "torchaudio.load: RuntimeError: Could not load libtorchcodec",
        },
        "videos/a.mp4",
    )
    assert not verdict.ok and verdict.fix == audio_env.FFMPEG_FIX
    assert "apt-get install -y ffmpeg" in verdict.describe()
    good = audio_env.judge({"torchaudio": "2.9.0", "torchcodec": "0.8.1", "ok": True}, "a")
    assert good.ok and "torchcodec 0.8.1" in good.describe()


async def test_the_audio_check_runs_in_the_checkouts_python(tmp_path):
    fake = tmp_path / "pkg"
    (fake / "torchaudio").mkdir(parents=True)
    (fake / "torchaudio" / "__init__.py").write_text(
        "__version__ = '2.9.0'\n"
        "def load(path):\n    raise RuntimeError('Could not load libtorchcodec. FFmpeg is not "
        "properly installed')\n"
    )
    runner = ScriptRunner(trainer_dir=tmp_path, prefix=(sys.executable,), env={"PYTHONPATH": str(fake)})
    clip = write_video(tmp_path / "a.mp4", frames=12)
    verdict = await audio_env.check_audio_decode(
        runner, clip, "videos/a.mp4", tmp_path / "check.log", dict(os.environ)
    )
    assert not verdict.ok and verdict.fix == audio_env.FFMPEG_FIX
    assert "Could not load libtorchcodec" in verdict.detail
