"""A partial check against the real trainer (LTX-2 400fd31), run by test_heldout_real_trainer.py
with the checkout's packages/ltx-core/src and ltx-trainer/src on the path and peft installed: the
real FlexibleStrategy under the program's fixed sigma and seeding, and real PEFT under the program's
LoRA loading (the trainer's saved names). A tiny LTXModel with its Gemma config and connectors is
not built here (see the report of issue 44's heldout part)."""

import importlib.util
import sys
from pathlib import Path

import torch
from ltx_trainer.training_strategies import FlexibleStrategyConfig, get_training_strategy
from peft import get_peft_model_state_dict
from safetensors.torch import save_file
from torch import nn

spec = importlib.util.spec_from_file_location(
    "hl", str(Path(__file__).parents[2] / "ltx_wizard" / "trainer_side" / "heldout_loss.py")
)
hl = importlib.util.module_from_spec(spec)
sys.modules["hl"] = hl
spec.loader.exec_module(hl)


cfg = FlexibleStrategyConfig(
    name="flexible",
    video={
        "is_generated": True,
        "latents_dir": "latents",
        "conditions": [{"type": "first_frame", "probability": 0.5}],
    },
    audio=None,
)
strategy = get_training_strategy(cfg)
g = torch.Generator().manual_seed(0)
batch = {
    "video_latents": {
        "latents": torch.randn(2, 128, 3, 4, 6, generator=g),
        "num_frames": torch.tensor([3, 3]),
        "height": torch.tensor([4, 4]),
        "width": torch.tensor([6, 6]),
        "fps": torch.tensor([24.0, 24.0]),
    },
    "conditions": {
        "video_prompt_embeds": torch.randn(2, 5, 32, generator=g),
        "prompt_attention_mask": torch.ones(2, 5, dtype=torch.bool),
    },
}


class R:
    pass


run = R()
run.strategy = strategy
outs = []
for seed in (7, 7, 8):
    inp = hl._inputs(run, batch, 0.5, seed)
    pred = torch.zeros_like(inp.video_targets)
    outs.append(
        (inp.video.latent, inp.video_loss_mask, inp.video.sigma, strategy.compute_loss(pred, None, inp))
    )
print(
    "real FlexibleStrategy: sigma",
    outs[0][2].tolist(),
    "timesteps sample",
    inp.video.timesteps[0, :3].tolist(),
)
print(
    "same seed -> identical noisy latents, mask, loss:",
    all(torch.equal(a, b) for a, b in zip(outs[0], outs[1])),
)
print(
    "other seed -> different noisy latents:",
    not torch.equal(outs[0][0], outs[2][0]),
    "loss",
    outs[0][3].tolist(),
    outs[2][3].tolist(),
)


class Tiny(nn.Module):
    def __init__(s):
        super().__init__()
        s.to_q = nn.Linear(8, 8)
        s.audio_attn = nn.Module()
        s.audio_attn.to_q = nn.Linear(8, 8)

    def forward(s, x):
        return s.to_q(x)


def wrapped(seed):
    torch.manual_seed(0)
    m = Tiny().to(torch.bfloat16)
    m.requires_grad_(False)
    conf = type("C", (), {})()
    conf.lora = type("L", (), dict(rank=4, alpha=4, target_modules=["to_q"], dropout=0.1))()
    return hl.lora_model.with_lora(m, conf)  # the program's sibling, as it imports it


trained = wrapped(0)
with torch.no_grad():
    for n, p in trained.named_parameters():
        if "lora_" in n:
            p.copy_(torch.randn_like(p) * 0.1)
# ltx_trainer/trainer.py _save_checkpoint's names
sd = {
    f"diffusion_model.{k.replace('base_model.model.', '', 1)}": v.to(torch.bfloat16).contiguous()
    for k, v in get_peft_model_state_dict(trained).items()
}

save_file(sd, sys.argv[1])
fresh = wrapped(0).eval()
hl.lora_model.load_lora(fresh, Path(sys.argv[1]))
x = torch.randn(3, 8).to(torch.bfloat16)
with torch.no_grad():
    on = fresh(x)
    with fresh.disable_adapter():
        off = fresh(x)
torch.manual_seed(0)
base = Tiny().to(torch.bfloat16)
print(
    "peft keys",
    sorted(sd)[:2],
    "LoRA loaded (on != off):",
    not torch.equal(on, off),
    "off == base model:",
    torch.equal(off, base(x)),
)
print("effect", hl._relative_change((on, None), (off, None)))
