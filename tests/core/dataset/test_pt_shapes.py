"""Latent shapes read from .pt files without torch (checked against torch.save when installed)."""

from __future__ import annotations

import pytest

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.dataset.pt_shapes import TensorShape, latent_size, read_pt
from ltx_wizard.demo.lookalike_latents import video_latents, write_pt


def test_lookalike_latents_read_back(tmp_path):
    path = write_pt(tmp_path / "a.pt", video_latents(49, 544, 960))
    assert latent_size(path) == (128, 7, 17, 30)
    assert read_pt(path)["num_frames"] == 7 and read_pt(path)["fps"] == 25.0


def test_real_torch_save_reads_the_same(tmp_path):
    torch = pytest.importorskip("torch")
    path = tmp_path / "b.pt"
    torch.save(
        {
            "latents": torch.zeros(128, 7, 17, 30, dtype=torch.bfloat16),
            "num_frames": 7,
            "height": 17,
            "width": 30,
            "fps": 25.0,
        },
        path,
    )
    got = read_pt(path)
    assert got["latents"] == TensorShape((128, 7, 17, 30), "BFloat16Storage")
    assert got["width"] == 30


def test_a_pickle_that_runs_code_is_refused(tmp_path):
    import pickle
    import zipfile

    class Evil:
        def __reduce__(self):
            return (print, ("pwned",))

    path = tmp_path / "evil.pt"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("evil/data.pkl", pickle.dumps({"latents": Evil()}))
    with pytest.raises(UsageError, match="not a latents file"):
        read_pt(path)


def test_not_a_zip_is_one_line(tmp_path):
    path = tmp_path / "c.pt"
    path.write_bytes(b"PK\x03\x04 look-alike tensor\n")
    with pytest.raises(UsageError, match="cannot be read"):
        latent_size(path)
