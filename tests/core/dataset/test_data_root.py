"""The preprocessed data root: what the trainer will count as samples, and what it will skip,
under the strategy of the config (the shipped t2v configs' flexible video + audio by default)."""

from __future__ import annotations

import pytest

from ltx_wizard.core.dataset.sources import SHIPPED_T2V_STRATEGY, video_only
from ltx_wizard.core.dataset.data_root import VideoOnlyData, inspect_data_root
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.demo.lookalike_models import make_data_root


def test_counts_samples(tmp_path):
    info = inspect_data_root(make_data_root(tmp_path / "data", 3))
    assert info.sample_count == 3
    assert info.samples == ("sample_0000.pt", "sample_0001.pt", "sample_0002.pt")
    assert info.orphans == ()
    # the shipped t2v configs' flexible strategy, in get_data_sources' order
    assert info.folders == ("conditions", "latents", "audio_latents")
    assert info.describe() == "3 samples in conditions, latents, audio_latents"


def test_orphans_are_reported_not_counted(tmp_path):
    root = make_data_root(tmp_path / "data", 2, orphans=2)
    (root / "conditions" / "only_here.pt").write_bytes(b"x")
    info = inspect_data_root(root)
    assert info.sample_count == 2
    assert info.orphans == (
        "conditions/only_here.pt",
        "latents/orphan_0000.pt",
        "latents/orphan_0001.pt",
    )
    assert "3 orphan file(s)" in info.describe()


def test_nested_relative_paths_must_match(tmp_path):
    root = make_data_root(tmp_path / "data", 0)
    for folder in ("latents", "conditions", "audio_latents"):
        (root / folder / "clips" / "a").mkdir(parents=True)
        (root / folder / "clips" / "a" / "one.pt").write_bytes(b"x")
    (root / "latents" / "clips" / "two.pt").write_bytes(b"x")
    (root / "audio_latents" / "clips" / "two.pt").write_bytes(b"x")
    (root / "conditions" / "two.pt").write_bytes(b"x")  # same name, other folder level: not a sample
    info = inspect_data_root(root)
    assert info.samples == ("clips/a/one.pt",)
    assert info.orphans == ("audio_latents/clips/two.pt", "conditions/two.pt", "latents/clips/two.pt")


def test_non_pt_files_are_ignored(tmp_path):
    root = make_data_root(tmp_path / "data", 1)
    (root / "latents" / "notes.txt").write_text("x")
    assert inspect_data_root(root).orphans == ()


def test_video_only_data_under_an_audio_config_names_the_folder_and_the_option(tmp_path):
    root = make_data_root(tmp_path / "data", 2, audio=False)
    with pytest.raises(VideoOnlyData, match=r"has no audio_latents/, but the config trains audio") as err:
        inspect_data_root(root)
    assert "--video-only (writes training_strategy.audio: null" in err.value.message
    assert err.value.exit_code == 2 and err.value.folder == "audio_latents"
    (root / "audio_latents").mkdir()  # there, but empty: still video-only data
    with pytest.raises(VideoOnlyData, match=r"has no \.pt file in audio_latents/"):
        inspect_data_root(root, option="the Video only box")
    info = inspect_data_root(root, strategy=video_only(SHIPPED_T2V_STRATEGY))
    assert info.sample_count == 2 and info.folders == ("conditions", "latents")


def test_partial_audio_counts_only_the_clips_with_audio(tmp_path):
    root = make_data_root(tmp_path / "data", 5)
    for i in (1, 3):
        (root / "audio_latents" / f"sample_{i:04d}.pt").unlink()
    info = inspect_data_root(root)
    assert info.samples == ("sample_0000.pt", "sample_0002.pt", "sample_0004.pt")
    assert info.lacking == (("audio_latents", 2),)
    assert "2 latents/ file(s) have no audio_latents/ file" in info.describe()
    assert "conditions/sample_0001.pt" in info.orphans


def test_legacy_latent_names_pair_with_condition_names(tmp_path):
    root = make_data_root(tmp_path / "data", 0)
    (root / "latents" / "clips").mkdir()
    for name in ("latent_a.pt", "clips/latent_b.pt"):
        (root / "latents" / name).write_bytes(b"x")
        (root / "audio_latents" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "audio_latents" / name).write_bytes(b"x")
    # the trainer looks for condition_X.pt at the top of conditions/, whatever the latent's folder
    (root / "conditions" / "condition_a.pt").write_bytes(b"x")
    (root / "conditions" / "condition_b.pt").write_bytes(b"x")
    info = inspect_data_root(root)
    assert info.samples == ("clips/latent_b.pt", "latent_a.pt")
    assert info.files("clips/latent_b.pt") == [
        ("conditions", "condition_b.pt"),
        ("latents", "clips/latent_b.pt"),
        ("audio_latents", "clips/latent_b.pt"),
    ]
    assert info.orphans == ()


def test_the_strategy_names_the_folders(tmp_path):
    root = make_data_root(tmp_path / "data", 2, audio=False)
    (root / "reference_latents").mkdir()
    (root / "reference_latents" / "sample_0001.pt").write_bytes(b"x")
    v2v = {"name": "video_to_video"}
    info = inspect_data_root(root, strategy=v2v)
    assert info.folders == ("latents", "conditions", "reference_latents")
    assert info.samples == ("sample_0001.pt",)
    assert inspect_data_root(root, strategy=None).folders == ("latents", "conditions")


def test_missing_conditions(tmp_path):
    root = make_data_root(tmp_path / "data", 2)
    for f in (root / "conditions").iterdir():
        f.unlink()
    (root / "conditions").rmdir()
    with pytest.raises(UsageError, match=r"has no conditions/: run the trainer's preprocessing"):
        inspect_data_root(root)


def test_parent_of_precomputed_gets_a_hint(tmp_path):
    make_data_root(tmp_path / "dataset" / ".precomputed", 1)
    with pytest.raises(UsageError, match=r"did you mean .*dataset/\.precomputed\?"):
        inspect_data_root(tmp_path / "dataset")


def test_latents_folder_itself_gets_a_hint(tmp_path):
    root = make_data_root(tmp_path / "data", 1)
    with pytest.raises(UsageError, match=f"pass its parent {root}"):
        inspect_data_root(root / "latents")


def test_zero_complete_samples(tmp_path):
    root = make_data_root(tmp_path / "data", 0, orphans=3)
    with pytest.raises(
        UsageError,
        match=r"no complete sample \(.pt files per folder: conditions/ 0, latents/ 3, audio_latents/ 0\)",
    ):
        inspect_data_root(root)


def test_not_a_directory_and_missing(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(UsageError, match="is not a directory"):
        inspect_data_root(tmp_path / "file")
    with pytest.raises(UsageError, match="does not exist"):
        inspect_data_root(tmp_path / "gone")


def test_symlinked_folder_loop_does_not_hang(tmp_path):
    root = make_data_root(tmp_path / "data", 1)
    (root / "latents" / "loop").symlink_to(root / "latents")
    assert inspect_data_root(root).sample_count == 1


def test_relative_and_odd_paths(tmp_path, monkeypatch):
    make_data_root(tmp_path / "my data $(x) 'q' é", 2)
    monkeypatch.chdir(tmp_path)
    info = inspect_data_root("my data $(x) 'q' é")
    assert info.path == tmp_path / "my data $(x) 'q' é" and info.sample_count == 2
