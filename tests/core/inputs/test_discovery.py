"""Discovery: what is found where, how it is ranked and why, and that the search stays bounded."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from ltx_wizard.cli import main
from ltx_wizard.core.inputs import discovery as discovery_mod
from ltx_wizard.core.inputs.discovery import discover, search_roots
from ltx_wizard.demo.lookalike_models import (
    make_checkpoint,
    make_gemma_dir,
    make_packed_gemma,
    make_vae,
    write_safetensors,
)


def _run(*dirs, **kw):
    kw.setdefault("env", {})
    kw.setdefault("system_roots", ())
    return discover(list(dirs), **kw)


def _names(result, kind=None):
    return [c.path.name for c in result.candidates if kind is None or c.kind == kind]


def _split_pack(folder: Path, gemma_version="4"):
    make_checkpoint(
        folder / "ltx-2.5-transformer.safetensors",
        split=True,
        gemma_version=gemma_version,
        model_version="2.5.0",
    )
    make_packed_gemma(folder / "gemma-packed.safetensors", gemma_version=gemma_version, model_type="gemma4")
    make_vae(folder / "video_vae.safetensors", "video")
    make_vae(folder / "audio_vae.safetensors", "audio")


def test_unified_checkpoint_with_matching_gemma_ranks_first(tmp_path):
    models = tmp_path / "models"
    _split_pack(models / "split")
    make_checkpoint(models / "LTX2-unified.safetensors", gemma_version="3")
    make_gemma_dir(models / "gemma-3-12b", gemma_version="3")
    make_checkpoint(models / "ltx-2-lonely.safetensors", gemma_version="4", model_version="2.5.0")
    result = _run(models)
    ckpts = result.of_kind("checkpoint")
    assert [c.path.name for c in ckpts] == [
        "LTX2-unified.safetensors",
        "ltx-2.5-transformer.safetensors",
        "ltx-2-lonely.safetensors",
    ]
    assert ckpts[0].rank == 1 and ckpts[0].text_encoder == models / "gemma-3-12b"
    assert "unified checkpoint with a matching Gemma" in ckpts[0].reason
    assert "split pack with its packed Gemma and both VAEs" in ckpts[1].reason
    assert ckpts[1].video_vae == models / "split" / "video_vae.safetensors"
    assert ckpts[1].audio_vae == models / "split" / "audio_vae.safetensors"
    assert "no matching Gemma text encoder found (needs gemma_version 4)" in ckpts[2].reason
    assert result.best.path == models / "LTX2-unified.safetensors"
    assert [c.rank for c in result.candidates] == list(range(1, len(result.candidates) + 1))


def test_incomplete_split_pack_says_what_is_missing(tmp_path):
    _split_pack(tmp_path / "m")
    (tmp_path / "m" / "audio_vae.safetensors").unlink()
    (ckpt,) = _run(tmp_path / "m").of_kind("checkpoint")
    assert ckpt.reason == "split pack missing its audio VAE"


def test_vanilla_gemma_is_explained(tmp_path):
    make_checkpoint(tmp_path / "m" / "ltx-2.5.safetensors", gemma_version="4", model_version="2.5.0")
    make_gemma_dir(tmp_path / "m" / "gemma-4-google", gemma_version=None, model_type="gemma4")
    result = _run(tmp_path / "m")
    (te,) = result.of_kind("text_encoder")
    assert "Google's vanilla release?" in te.reason
    assert result.best is None


def test_metadata_marks_ltx_even_with_an_odd_name(tmp_path):
    make_checkpoint(tmp_path / "m" / "weights-final.safetensors")
    write_safetensors(tmp_path / "m" / "some-lora.safetensors", {"lora_A": ("BF16", [4, 4])})
    assert _names(_run(tmp_path / "m")) == ["weights-final.safetensors"]


def test_ltx_named_file_that_is_broken_is_listed_unusable(tmp_path):
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "LTX-2-dev.safetensors").write_text("version https://git-lfs.github.com/spec/v1\n")
    (cand,) = _run(tmp_path / "m").candidates
    assert not cand.usable and "git-lfs pointer" in cand.summary


def test_gemma_shards_are_not_candidates_of_their_own(tmp_path):
    make_gemma_dir(tmp_path / "m" / "gemma")
    result = _run(tmp_path / "m")
    assert [(c.kind, c.path.name) for c in result.candidates] == [("text_encoder", "gemma")]


def test_default_roots_home_and_env(tmp_path):
    home = Path(os.environ["HOME"])
    make_checkpoint(home / "models" / "ltx-2-home.safetensors")
    make_checkpoint(tmp_path / "envdir" / "ltx-2-env.safetensors")
    result = discover(
        env={"HOME": str(home), "LTX_MODELS_DIR": str(tmp_path / "envdir")},
        system_roots=(str(tmp_path / "no-such-models"),),
    )
    assert sorted(_names(result)) == ["ltx-2-env.safetensors", "ltx-2-home.safetensors"]
    assert result.missing_roots == (tmp_path / "no-such-models",)
    roots = search_roots(["~/x"], env={"HOME": str(home)})
    assert roots[0] == Path("/models") and roots[-1] == home / "x"


def test_symlink_loops_end(tmp_path):
    models = tmp_path / "m"
    make_checkpoint(models / "a" / "ltx-2.safetensors")
    (models / "a" / "back").symlink_to(models)  # a folder loop
    (models / "self.safetensors").symlink_to(models / "self.safetensors")  # a file loop
    result = _run(models, max_depth=10)
    assert _names(result) == ["ltx-2.safetensors"]
    assert not result.timed_out


def test_depth_bound_is_reported(tmp_path):
    deep = tmp_path / "m" / "1" / "2" / "3"
    make_checkpoint(deep / "ltx-2.safetensors")
    shallow = _run(tmp_path / "m", max_depth=2)
    assert shallow.candidates == () and shallow.depth_limited
    assert _names(_run(tmp_path / "m", max_depth=3)) == ["ltx-2.safetensors"]


def _hang(monkeypatch, folder: Path) -> threading.Event:
    """A network mount at `folder` that never answers, until the event is set."""
    release = threading.Event()
    real_scandir = os.scandir

    def scandir(path):
        if Path(path) == folder:
            release.wait(30)
        return real_scandir(path)

    monkeypatch.setattr(discovery_mod.os, "scandir", scandir)
    return release


def test_a_hung_mount_does_not_stall_discovery(tmp_path, monkeypatch):
    make_checkpoint(tmp_path / "fast" / "ltx-2.safetensors")
    (tmp_path / "nfs").mkdir()
    (tmp_path / "later").mkdir()
    release = _hang(monkeypatch, tmp_path / "nfs")
    try:
        result = _run(tmp_path / "fast", tmp_path / "nfs", tmp_path / "later", time_budget_s=0.5)
    finally:
        release.set()
    assert result.timed_out
    assert _names(result) == ["ltx-2.safetensors"]  # what was found before the stall is kept
    # where it was stuck, then what it never reached
    assert result.unsearched == (tmp_path / "nfs", tmp_path / "later")


def test_discover_says_plainly_that_a_cut_short_search_is_partial(tmp_path, monkeypatch, capsys):
    make_checkpoint(tmp_path / "fast" / "ltx-2.safetensors")
    (tmp_path / "nfs").mkdir()
    release = _hang(monkeypatch, tmp_path / "nfs")
    try:
        rc = main(
            [
                "discover",
                "--models-dir",
                str(tmp_path / "fast"),
                "--models-dir",
                str(tmp_path / "nfs"),
                "--time-budget",
                "0.5",
            ]
        )
    finally:
        release.set()
    out, err = capsys.readouterr()
    assert rc == 1 and "ran out of time" in err
    assert "PARTIAL RESULT" in out and "ltx-2.safetensors" in out
    assert out.split("not searched (", 1)[1].splitlines()[1].strip() == str(tmp_path / "nfs")


def test_50k_file_tree_within_bounds(tmp_path):
    root = tmp_path / "big"
    root.mkdir()
    seed = root / "seed.txt"
    seed.write_text("x")
    for d in range(100):
        folder = root / f"d{d // 10}" / f"e{d}"
        folder.mkdir(parents=True)
        for f in range(500):
            os.link(seed, folder / f"f{f}.txt")  # hard links: 50k real entries, created cheaply
    make_checkpoint(root / "d3" / "e35" / "ltx-2.safetensors")
    make_checkpoint(root / "d4" / "e41" / "x" / "y" / "z" / "ltx-2-too-deep.safetensors")
    result = _run(root, time_budget_s=60)
    assert not result.timed_out and result.depth_limited
    assert _names(result) == ["ltx-2.safetensors"]
    assert result.dirs_scanned == 1 + 10 + 100 + 2  # root, d*, e*, then x/ and y/ under e41


def _hf_snapshot(hub: Path, repo: str, rev: str = "0123abc") -> Path:
    """The layout `hf download` leaves: snapshot files are links into blobs/."""
    org, name = repo.split("/")
    base = hub / f"models--{org}--{name}"
    snap = base / "snapshots" / rev
    snap.mkdir(parents=True)
    (base / "blobs").mkdir()
    return snap


def test_the_hugging_face_cache_is_searched_where_hf_download_puts_files(tmp_path):
    home = tmp_path / "home"
    hub = home / ".cache" / "huggingface" / "hub"
    snap = _hf_snapshot(hub, "Lightricks/LTX-2")
    blob = make_checkpoint(hub / "models--Lightricks--LTX-2" / "blobs" / "9f8e7d")
    (snap / "ltx-2-19b-dev.safetensors").symlink_to(os.path.relpath(blob, snap))
    gemma_snap = _hf_snapshot(hub, "google/gemma-3-12b-it")
    make_gemma_dir(gemma_snap / "gemma")
    result = discover(env={"HOME": str(home)}, system_roots=())
    assert result.hf_cache == hub
    assert snap in result.roots and gemma_snap in result.roots
    best = result.best
    assert best is not None and best.path == snap / "ltx-2-19b-dev.safetensors"  # the link, not the blob
    assert best.text_encoder == gemma_snap / "gemma"


def test_hf_home_and_hf_hub_cache_move_the_cache(tmp_path):
    snap = _hf_snapshot(tmp_path / "hfhome" / "hub", "Lightricks/LTX-2")
    make_checkpoint(snap / "ltx-2.safetensors")
    assert snap in search_roots(env={"HF_HOME": str(tmp_path / "hfhome")}, system_roots=())
    other = _hf_snapshot(tmp_path / "elsewhere", "Lightricks/LTX-2")
    roots = search_roots(
        env={"HF_HOME": str(tmp_path / "hfhome"), "HF_HUB_CACHE": str(tmp_path / "elsewhere")},
        system_roots=(),
    )
    assert other in roots and snap not in roots
