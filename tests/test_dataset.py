"""The preprocessed data root: what the trainer will count as samples, and what it will skip."""

from __future__ import annotations

import pytest

from ltx_wizard.core.dataset import inspect_data_root
from ltx_wizard.core.errors import UsageError
from ltx_wizard.core.lookalike_models import make_data_root


def test_counts_samples(tmp_path):
    info = inspect_data_root(make_data_root(tmp_path / "data", 3))
    assert info.sample_count == 3
    assert info.samples == ("sample_0000.pt", "sample_0001.pt", "sample_0002.pt")
    assert info.orphans == ()
    assert info.folders == ("latents", "conditions")
    assert info.describe() == "3 samples in latents, conditions"


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
    for folder in ("latents", "conditions"):
        (root / folder / "clips" / "a").mkdir(parents=True)
        (root / folder / "clips" / "a" / "one.pt").write_bytes(b"x")
    (root / "latents" / "clips" / "two.pt").write_bytes(b"x")
    (root / "conditions" / "two.pt").write_bytes(
        b"x"
    )  # same name, other folder level: not a sample
    info = inspect_data_root(root)
    assert info.samples == ("clips/a/one.pt",)
    assert info.orphans == ("conditions/two.pt", "latents/clips/two.pt")


def test_non_pt_files_are_ignored(tmp_path):
    root = make_data_root(tmp_path / "data", 1)
    (root / "latents" / "notes.txt").write_text("x")
    assert inspect_data_root(root).orphans == ()


def test_audio_latents_required_when_generating_audio(tmp_path):
    root = make_data_root(tmp_path / "data", 2)
    with pytest.raises(UsageError, match="has no audio_latents/"):
        inspect_data_root(root, with_audio=True)
    info = inspect_data_root(make_data_root(tmp_path / "av", 2, audio=True), with_audio=True)
    assert info.sample_count == 2 and "audio_latents" in info.folders


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
        UsageError, match=r"no complete sample \(.pt files per folder: latents/ 3, conditions/ 0\)"
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
