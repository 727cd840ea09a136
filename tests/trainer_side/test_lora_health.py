"""trainer_side/lora_health.py run as the wizard runs it (a file, by a python with torch: here the
test venv's, which has torch and safetensors like the trainer's environment), on tiny real LoRA
files in the trainer's format (tests/lora_files.py), its record read back through the codec and
judged by the core's verdict."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ltx_wizard.core.compare.health_record import SCRIPT, health_argv, health_path, read_health
from ltx_wizard.core.compare.health_verdict import Trained, verdict
from tests.lora_files import DEFAULT_TARGETS, write_lora

BOUND_S = 120  # a bound on a hang, not a wait for time: each run ends in seconds


def _run(argv: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, timeout=BOUND_S, check=False)


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    (tmp_path / "run").mkdir()
    return tmp_path / "run"


def _with_a_lone_tensor(path: Path) -> Path:
    """A healthy LoRA plus an A matrix without its B, holding an Inf."""
    import torch
    from safetensors.torch import load_file, save_file

    tensors = load_file(str(write_lora(path)))
    tensors["diffusion_model.proj_out.lora_A.weight"] = torch.tensor(
        [[float("inf"), 1.0]], dtype=torch.bfloat16
    )
    save_file(tensors, str(path))
    return path


def test_healthy_nan_zero_and_audio_loras_through_the_script_and_the_verdict(run_dir, tmp_path):
    files = (
        write_lora(tmp_path / "lora_weights_step_00100.safetensors"),
        write_lora(tmp_path / "nan.safetensors", nan_in="transformer_blocks.2.attn1.to_v"),
        write_lora(tmp_path / "zero.safetensors", zero_b=True),
        write_lora(tmp_path / "audio.safetensors", audio_trained=True),
        _with_a_lone_tensor(tmp_path / "lone.safetensors"),
    )
    done = _run(health_argv(sys.executable, run_dir, (*files, files[0])))
    assert done.returncode == 0, done.stderr
    record = read_health(run_dir)
    assert record is not None and [c.path for c in record.checkpoints] == [str(f) for f in (*files, files[0])]
    video_only = Trained(DEFAULT_TARGETS, audio=False)
    healthy, nan, zero, audio, lone, again = (verdict(c, video_only) for c in record.checkpoints)
    assert healthy.ok and healthy.problems == ()
    assert not nan.ok and nan.problems == ("video attention: 1 NaN and 0 Inf values in 1 of 32 modules",)
    assert zero.problems == ("nothing learned: all 32 B matrices of the trained modules are zero",)
    assert not audio.ok and len(audio.problems) == 2
    assert audio.problems[0].startswith("audio attention: 32 of 32 modules trained on a video-only run")
    assert verdict(record.checkpoints[3], Trained(DEFAULT_TARGETS, audio=True)).ok
    assert lone.problems == (
        "0 NaN and 1 Inf values in 1 tensors outside the LoRA pairs (first: diffusion_model.proj_out.lora_A.weight)",
    )
    assert record.checkpoints[4].others[0].inf == 1 and len(record.checkpoints[4].modules) == 96
    assert record.checkpoints[0].dtypes == ("BF16",)
    assert record.checkpoints[-1].modules == record.checkpoints[0].modules  # same file, same facts
    assert again == healthy


def test_a_nan_in_a_float32_lora_and_the_norms_match_torch(run_dir, tmp_path):
    import torch
    from safetensors.torch import load_file

    path = write_lora(
        tmp_path / "f32.safetensors", dtype=torch.float32, nan_in="transformer_blocks.1.attn2.to_q"
    )
    assert _run(health_argv(sys.executable, run_dir, (path,))).returncode == 0
    facts = read_health(run_dir).checkpoints[0]
    tensors = load_file(str(path))
    name = "diffusion_model.transformer_blocks.0.attn2.to_k"
    a, b = tensors[name + ".lora_A.weight"].double(), tensors[name + ".lora_B.weight"].double()
    module = next(m for m in facts.modules if m.name == name)
    assert module.delta_norm == pytest.approx(
        float(torch.linalg.matrix_norm(b @ a)), rel=1e-6
    )  # float32 sums
    assert module.a_norm == pytest.approx(float(a.norm())) and module.rank == 4
    assert facts.dtypes == ("F32",)
    hit = next(m for m in facts.modules if m.name.endswith("blocks.1.attn2.to_q"))
    assert (hit.nan, hit.delta_norm, hit.b_norm) == (1, None, None)
    assert (
        verdict(facts, Trained()).problems[0] == "video attention: 1 NaN and 0 Inf values in 1 of 32 modules"
    )


def _not_safetensors(path: Path) -> None:
    path.write_text("version https://git-lfs.github.com/spec/v1\noid sha256:0\nsize 42\n")


def _truncated(path: Path) -> None:
    write_lora(path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) - 100])


def _mismatched_pair(path: Path) -> None:
    import torch
    from safetensors.torch import save_file

    name = "diffusion_model.transformer_blocks.0.attn1.to_k"
    save_file(
        {f"{name}.lora_A.weight": torch.ones(4, 16), f"{name}.lora_B.weight": torch.ones(16, 2)}, str(path)
    )


def _negative_offsets(path: Path) -> None:
    header = b'{"t":{"dtype":"F32","shape":[2],"data_offsets":[-8,0]}}'
    path.write_bytes(len(header).to_bytes(8, "little") + header + bytes(8))


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _empty(path: Path) -> None:
    path.write_bytes(b"")


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (_not_safetensors, "is not a safetensors file (its 64 bytes hold no header)"),
        (_truncated, "is truncated: its tensors need"),
        (_fifo, "is a FIFO, not a checkpoint file"),
        (
            _mismatched_pair,
            "is damaged (module diffusion_model.transformer_blocks.0.attn1.to_k: A is [4, 16], B is [16, 2]",
        ),
        (_negative_offsets, "is not a safetensors file (tensor t is described wrongly)"),
        (_empty, "is not a safetensors file (its 0 bytes hold no header)"),
        (lambda p: p.mkdir(), "is a directory, not a checkpoint file"),
        (lambda p: None, "cannot be opened (No such file or directory)"),
    ],
    ids=[
        "not-safetensors",
        "truncated",
        "fifo",
        "mismatched-pair",
        "negative-offsets",
        "empty",
        "directory",
        "missing",
    ],
)
def test_an_unreadable_checkpoint_is_named_in_one_line_and_nothing_is_written(run_dir, tmp_path, make, said):
    good = write_lora(tmp_path / "good.safetensors")
    bad = tmp_path / "bad.safetensors"
    make(bad)
    out = health_path(run_dir)
    out.parent.mkdir(parents=True)
    out.write_text("the earlier record")
    done = _run(health_argv(sys.executable, run_dir, (good, bad)))
    assert done.returncode == 2
    assert done.stderr.startswith(f"lora_health: {bad} {said}") and done.stderr.count("\n") == 1
    assert out.read_text() == "the earlier record" and sorted(p.name for p in out.parent.iterdir()) == [
        out.name
    ]


def test_the_script_is_a_file_of_the_package_and_is_never_imported():
    assert SCRIPT.is_file() and SCRIPT.parent.name == "trainer_side"
    assert "ltx_wizard.trainer_side.lora_health" not in sys.modules
