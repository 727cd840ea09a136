"""The health check against the real trainer's code: with LTX_WIZARD_REAL_CHECKOUT naming a real
LTX-2 checkout (and peft and einops importable, as in the trainer's environment), a tiny model of
ltx-core's own BasicAVTransformerBlock gets its LoRA from PEFT as ltx_trainer/trainer.py
`LtxvTrainer._setup_lora` makes it, is saved as `LtxvTrainer._save_checkpoint` saves it, and
trainer_side/lora_health.py plus the core's verdict must name the same modules and the same
problems as the look-alike files of tests/lora_files.py."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ltx_wizard.core.compare.health_record import health_argv, read_health
from ltx_wizard.core.compare.health_verdict import Trained, targeted, verdict
from tests.lora_files import DEFAULT_TARGETS, TINY, modules

REAL = os.environ.get("LTX_WIZARD_REAL_CHECKOUT")
pytestmark = pytest.mark.skipif(not REAL, reason="set LTX_WIZARD_REAL_CHECKOUT to a real LTX-2 checkout")


def _tiny_model(torch, checkout: Path):
    """TINY's sizes (tests/lora_files.py) in ltx-core's own blocks."""
    sys.path.insert(0, str(checkout / "packages" / "ltx-core" / "src"))
    from ltx_core.model.transformer.transformer import BasicAVTransformerBlock, TransformerConfig

    video = TransformerConfig(dim=TINY.video, heads=2, d_head=TINY.video // 2, context_dim=TINY.video_context)
    audio = TransformerConfig(dim=TINY.audio, heads=2, d_head=TINY.audio // 2, context_dim=TINY.audio_context)
    model = torch.nn.Module()
    model.transformer_blocks = torch.nn.ModuleList(
        BasicAVTransformerBlock(video=video, audio=audio) for _ in range(TINY.blocks)
    )
    return model


def _save_as_the_trainer(torch, model, path: Path, targets, *, nan: str | None, audio_moved: bool) -> None:
    from peft import LoraConfig, get_peft_model, get_peft_model_state_dict
    from safetensors.torch import save_file

    # trainer.py _setup_lora
    config = LoraConfig(
        r=4, lora_alpha=4, target_modules=list(targets), lora_dropout=0.0, init_lora_weights=True
    )
    peft_model = get_peft_model(model, config)
    with torch.no_grad():  # "training": video B matrices move; audio ones only if asked
        for name, param in peft_model.named_parameters():
            audio_side = any(
                f".{p}." in name
                for p in (
                    "audio_attn1",
                    "audio_attn2",
                    "audio_ff",
                    "audio_to_video_attn",
                    "video_to_audio_attn",
                )
            )
            if "lora_B" in name and (audio_moved or not audio_side):
                param.normal_(std=1e-3)
            if nan is not None and f"{nan}.lora_B" in name:
                param[0, 0] = float("nan")
    # trainer.py _save_checkpoint
    state_dict = get_peft_model_state_dict(peft_model)
    state_dict = {k.replace("base_model.model.", "", 1): v for k, v in state_dict.items()}
    state_dict = {f"diffusion_model.{k}": v for k, v in state_dict.items()}
    state_dict = {k: v.to(torch.bfloat16).contiguous() for k, v in state_dict.items()}
    save_file(state_dict, str(path), metadata={})


@pytest.mark.parametrize(
    ("nan", "audio_moved", "problem"),
    [
        (None, False, None),
        (
            "transformer_blocks.1.attn1.to_k",
            False,
            "video attention: 1 NaN and 0 Inf values in 1 of 32 modules",
        ),
        (
            None,
            True,
            "audio attention: 32 of 32 modules trained on a video-only run (the config gives the model no audio)",
        ),
    ],
    ids=["healthy", "nan", "audio-on-video-only"],
)
def test_a_real_peft_lora_saved_as_the_trainer_saves_it(tmp_path, nan, audio_moved, problem):
    torch = pytest.importorskip("torch")
    pytest.importorskip("peft")
    pytest.importorskip("einops")
    path = tmp_path / "lora_weights_step_00010.safetensors"
    model = _tiny_model(torch, Path(REAL))
    _save_as_the_trainer(torch, model, path, DEFAULT_TARGETS, nan=nan, audio_moved=audio_moved)
    done = subprocess.run(
        health_argv(sys.executable, tmp_path, (path,)), capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    facts = read_health(tmp_path).checkpoints[0]
    names = {m.name.removeprefix("diffusion_model.") for m in facts.modules}
    assert names == set(modules(TINY, DEFAULT_TARGETS))  # the look-alike's names are the real ones
    assert all(targeted(n, DEFAULT_TARGETS) for n in names) and facts.others == ()
    result = verdict(facts, Trained(DEFAULT_TARGETS, audio=False))
    assert result.ok is (problem is None)
    assert (result.problems[0] if result.problems else None) == problem
