"""Checkpoint validation: every way a user gets the path or the file wrong gets its own message."""

from __future__ import annotations

import json
import os
import threading

import pytest

from ltx_wizard.core.inputs.checkpoint import inspect_checkpoint, inspect_vae
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.demo.lookalike_models import (
    make_checkpoint,
    make_packed_gemma,
    make_vae,
    write_safetensors,
)

ODD_NAMES = [
    "with space.safetensors",
    'quote\'s "x".safetensors',
    "$(touch pwned).safetensors",
    "ltx-2-模型-é.safetensors",
]


def _refused(path, match):
    with pytest.raises(UsageError, match=match) as info:
        inspect_checkpoint(path)
    assert "\n" not in info.value.message
    return info.value.message


def test_describes_a_22b_checkpoint_from_its_header(tmp_path):
    info = inspect_checkpoint(make_checkpoint(tmp_path / "ltx-2.safetensors", params_b=22.0))
    assert info.describe() == "22.0 B params, bf16, 44 GB"
    assert info.transformer_param_count == 22_000_000_000
    assert info.param_count > info.transformer_param_count  # the VAEs and vocoder ride along
    assert info.model_version == "2.0.0"
    assert info.gemma_version == "3"
    assert info.is_split_pack is False
    assert {"transformer", "vae", "audio_vae", "vocoder"} <= set(info.config_sections)


def test_split_pack_and_gemma_version_are_read(tmp_path):
    path = make_checkpoint(tmp_path / "t.safetensors", split=True, gemma_version="4", model_version="2.5.0")
    info = inspect_checkpoint(path)
    assert info.is_split_pack is True
    assert info.gemma_version == "4"
    assert info.model_version == "2.5.0"
    assert "split pack" in info.summary()


def test_checkpoint_without_gemma_version(tmp_path):
    info = inspect_checkpoint(make_checkpoint(tmp_path / "old.safetensors", gemma_version=None))
    assert info.gemma_version is None
    assert "Gemma 3 era" in info.summary()


def test_dtype_mix_is_described(tmp_path):
    path = write_safetensors(
        tmp_path / "mix.safetensors",
        {
            "model.diffusion_model.a": ("BF16", [990_000]),
            "model.diffusion_model.b": ("F32", [10_000]),
        },
        {"config": json.dumps({"transformer": {}})},
    )
    assert inspect_checkpoint(path).describe().startswith("1.0 M params, bf16 + fp32 (1.0%), ")


@pytest.mark.parametrize(
    "url",
    [
        "http://example.com/ltx-2.safetensors",
        "https://huggingface.co/Lightricks/LTX-2/x.safetensors",
        "hf://Lightricks/LTX-2/ltx-2.safetensors",
        "s3://bucket/ltx.safetensors",
        "gs://b/ltx.safetensors",
        "file:///models/ltx-2.safetensors",
        "hf:Lightricks/LTX-2",
    ],
)
def test_urls_are_refused(url):
    msg = _refused(url, "is a URL: local files only")
    assert url in msg


def test_tilde_is_expanded(tmp_path):
    home = os.environ["HOME"]
    make_checkpoint(os.path.join(home, "models", "ltx-2.safetensors"))
    info = inspect_checkpoint("~/models/ltx-2.safetensors")
    assert str(info.path) == os.path.join(home, "models", "ltx-2.safetensors")


def test_relative_path_resolves_against_cwd(tmp_path, monkeypatch):
    make_checkpoint(tmp_path / "sub" / "ltx-2.safetensors")
    monkeypatch.chdir(tmp_path / "sub")
    info = inspect_checkpoint("./../sub/ltx-2.safetensors")
    assert info.path == tmp_path / "sub" / "ltx-2.safetensors"
    assert info.path.is_absolute()


def test_missing(tmp_path):
    _refused(tmp_path / "nope.safetensors", r"nope.safetensors does not exist")


def test_directory(tmp_path):
    _refused(tmp_path, "is a directory, not a file: pass the .safetensors file inside it")


def test_fifo_is_refused_without_opening_it(tmp_path):
    fifo = tmp_path / "pipe.safetensors"
    os.mkfifo(fifo)
    errors = []
    worker = threading.Thread(
        target=lambda: errors.append(pytest.raises(UsageError, inspect_checkpoint, fifo))
    )
    worker.daemon = True
    worker.start()
    worker.join(10)  # opening a FIFO with no writer would block forever
    assert not worker.is_alive(), "the FIFO was opened"
    assert "FIFO" in errors[0].value.message


def test_character_device_is_never_read():
    _refused("/dev/zero", "/dev/zero is a character device, not a regular file")


def test_no_read_permission(tmp_path, monkeypatch):
    path = make_checkpoint(tmp_path / "locked.safetensors")
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: False if str(p) == str(path) else real_access(p, mode))
    _refused(path, "locked.safetensors is not readable by this user.*chmod")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_no_read_permission_for_real(tmp_path):
    path = make_checkpoint(tmp_path / "locked.safetensors")
    path.chmod(0)
    _refused(path, "not readable")


def test_parent_is_a_file(tmp_path):
    (tmp_path / "f").write_text("x")
    _refused(tmp_path / "f" / "ltx.safetensors", "a parent of this path is a file")


@pytest.mark.parametrize("name", ["ltx-2.ckpt", "ltx-2.bin", "ltx-2.pt"])
def test_not_safetensors(tmp_path, name):
    path = tmp_path / name
    path.write_bytes(b"\0" * 64)
    _refused(path, "is not a .safetensors file")


def test_git_lfs_pointer_stub(tmp_path):
    path = tmp_path / "ltx-2.safetensors"
    path.write_text("version https://git-lfs.github.com/spec/v1\noid sha256:abc\nsize 44000000000\n")
    _refused(path, "git-lfs pointer stub.*git lfs pull")


def test_header_length_beyond_file(tmp_path):
    path = tmp_path / "ltx-2.safetensors"
    path.write_bytes((4096).to_bytes(8, "little") + b'{"a":1}')
    _refused(path, "4096-byte header but the file has only 15 bytes")


def test_header_above_sane_bound(tmp_path):
    path = tmp_path / "ltx-2.safetensors"
    path.write_bytes((500 * 2**20).to_bytes(8, "little") + b"{}")
    _refused(path, "limit 100 MB")


def test_header_not_json(tmp_path):
    path = tmp_path / "ltx-2.safetensors"
    path.write_bytes((8).to_bytes(8, "little") + b"\xc3\x28 nope!")
    _refused(path, "not UTF-8 JSON")


def test_tensor_offsets_outside_file(tmp_path):
    path = make_checkpoint(tmp_path / "ltx-2.safetensors")
    with open(path, "r+b") as fh:
        fh.truncate(path.stat().st_size // 2)
    _refused(path, "the data section has only .* truncated")


def test_empty_file(tmp_path):
    path = tmp_path / "ltx-2.safetensors"
    path.touch()
    _refused(path, "is empty")


def test_symlink_loop(tmp_path):
    (tmp_path / "a.safetensors").symlink_to(tmp_path / "b.safetensors")
    (tmp_path / "b.safetensors").symlink_to(tmp_path / "a.safetensors")
    _refused(tmp_path / "a.safetensors", "is a symlink loop")


def test_dangling_symlink(tmp_path):
    (tmp_path / "ltx.safetensors").symlink_to(tmp_path / "gone.safetensors")
    _refused(tmp_path / "ltx.safetensors", "is a symlink to .*gone.safetensors, which does not exist")


def test_symlinked_checkpoint_keeps_the_users_path(tmp_path):
    real = make_checkpoint(tmp_path / "store" / "blob")
    real = real.rename(tmp_path / "store" / "blob.safetensors")
    (tmp_path / "ltx-2.safetensors").symlink_to(real)
    assert inspect_checkpoint(tmp_path / "ltx-2.safetensors").path == tmp_path / "ltx-2.safetensors"


def test_file_without_ltx_config(tmp_path):
    path = write_safetensors(tmp_path / "lora.safetensors", {"lora_A": ("BF16", [16, 64])})
    _refused(path, "no LTX `config` in its metadata")


def test_vae_passed_as_checkpoint(tmp_path):
    _refused(make_vae(tmp_path / "vae.safetensors"), "holds vae but no transformer")


def test_packed_gemma_passed_as_checkpoint(tmp_path):
    _refused(
        make_packed_gemma(tmp_path / "gemma.safetensors"),
        "packed Gemma text encoder.*--text-encoder",
    )


def test_no_tensors(tmp_path):
    path = write_safetensors(tmp_path / "ltx-2.safetensors", {}, {"config": '{"transformer": {}}'})
    _refused(path, "holds no tensors")


@pytest.mark.parametrize("name", ODD_NAMES)
def test_odd_characters_in_paths(tmp_path, name):
    folder = tmp_path / "my models (v2) $HOME"
    path = make_checkpoint(folder / name)
    assert inspect_checkpoint(str(path)).path == path
    (folder / name).unlink()
    assert str(path) in _refused(str(path), "does not exist")
    assert not (tmp_path / "pwned").exists()


def test_vaes_validate_and_swaps_are_named(tmp_path):
    video = make_vae(tmp_path / "video_vae.safetensors", "video")
    audio = make_vae(tmp_path / "audio_vae.safetensors", "audio")
    assert inspect_vae(video, "video").kind == "video"
    assert inspect_vae(audio, "audio").describe().startswith("audio VAE")
    with pytest.raises(UsageError, match="is the audio VAE: swap --video-vae and --audio-vae"):
        inspect_vae(audio, "video")
    with pytest.raises(UsageError, match="transformer checkpoint, not a VAE"):
        inspect_vae(make_checkpoint(tmp_path / "t.safetensors", split=True), "audio")
