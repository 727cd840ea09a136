"""A tiny LTX-2 model in the trainer's on-disk format, for test_heldout_real_trainer.py: run with a
real checkout's packages/ltx-core/src and ltx-trainer/src on the path (and peft, einops,
transformers installed). It builds, with random weights, the transformer (LTXModelConfigurator) and
the embeddings processor (EmbeddingsProcessorConfigurator) from a small `config` metadata, saved in
one safetensors file under the names the real loaders map (model.diffusion_model.*,
text_embedding_projection.*); a Gemma root holding only a tiny config; training and held-out latents
as preprocessing writes them; config.yaml from the checkout's own t2v_lora.yaml (paths set, audio
null); and three LoRA checkpoints (small, larger, all zeros) saved as LtxvTrainer._save_checkpoint
saves them, over the LoRA the program itself sets up.

    python real_tiny_ltx.py RUN CHECKOUT/packages/ltx-trainer/configs
"""

import importlib.util
import json
import sys
from pathlib import Path

import torch
import yaml
from ltx_core.model.transformer.model_configurator import LTXModelConfigurator
from ltx_core.text_encoders.gemma import EmbeddingsProcessorConfigurator
from peft import get_peft_model_state_dict
from safetensors.torch import save_file

H = 16  # the tiny Gemma's hidden size: the precomputed text features' width
CHECKPOINT_SCALES = {100: 0.02, 200: 0.05, 300: 0.0}
TRANSFORMER = {
    **dict(num_attention_heads=2, attention_head_dim=8, in_channels=128, out_channels=128, num_layers=1),
    **dict(cross_attention_dim=16, audio_num_attention_heads=2, audio_attention_head_dim=4),
    **dict(audio_in_channels=128, audio_out_channels=128, audio_cross_attention_dim=8, caption_channels=H),
    **dict(connector_num_attention_heads=2, connector_attention_head_dim=8, connector_num_layers=1),
    # the values LTXModelConfigurator.from_metadata checks (check_config_value)
    **dict(dropout=0.0, attention_bias=True, num_vector_embeds=None, activation_fn="gelu-approximate"),
    **dict(num_embeds_ada_norm=1000, use_linear_projection=False, only_cross_attention=False),
    **dict(cross_attention_norm=True, double_self_attention=False, upcast_attention=False),
    **dict(standardization_norm="rms_norm", norm_elementwise_affine=False, qk_norm="rms_norm"),
    **dict(positional_embedding_type="rope", use_audio_video_cross_attention=True, share_ff=False),
    **dict(av_cross_ada_norm=True, use_middle_indices_grid=True),
}
CONFIG = {"transformer": TRANSFORMER, "vae": {}}  # a monolith (a VAE section): default 32x32x8 factors
# the inverse of ltx_core's EMBEDDINGS_PROCESSOR_KEY_OPS
EMBEDDING_NAMES = {
    "feature_extractor.": "text_embedding_projection.",
    "video_connector.": "model.diffusion_model.video_embeddings_connector.",
    "audio_connector.": "model.diffusion_model.audio_embeddings_connector.",
}


def _random(module: torch.nn.Module, gen: torch.Generator) -> dict[str, torch.Tensor]:
    module = module.to_empty(device="cpu")
    with torch.no_grad():
        for name, t in module.state_dict().items():
            if t.dim() > 1:
                t.copy_(torch.randn(t.shape, generator=gen) * 0.05)
            else:
                t.fill_(0.0 if "bias" in name else 0.1)
    return module.state_dict()


def write_gemma(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    text = dict(model_type="gemma3_text", hidden_size=H, num_hidden_layers=1, num_attention_heads=2)
    text.update(num_key_value_heads=1, head_dim=8, intermediate_size=32, vocab_size=64)
    vision = dict(model_type="siglip_vision_model", hidden_size=8, num_hidden_layers=1, num_attention_heads=1)
    vision.update(intermediate_size=8, patch_size=14, image_size=28)
    config = {"model_type": "gemma3", "text_config": text, "vision_config": vision}
    (root / "config.json").write_text(json.dumps(config))
    for name in ("tokenizer.json", "tokenizer_config.json", "processor_config.json"):
        (root / name).write_text("{}")
    save_file({"x": torch.zeros(1)}, str(root / "model-00001-of-00001.safetensors"))
    return root


def write_model(path: Path, gemma: Path, gen: torch.Generator) -> Path:
    metadata = {"config": CONFIG}
    weights = {
        f"model.diffusion_model.{k}": v
        for k, v in _random(LTXModelConfigurator.from_metadata(metadata), gen).items()
    }
    processor = EmbeddingsProcessorConfigurator.with_gemma_model_path(str(gemma)).from_metadata(metadata)
    for key, value in _random(processor, gen).items():
        prefix = next(p for p in EMBEDDING_NAMES if key.startswith(p))
        weights[EMBEDDING_NAMES[prefix] + key[len(prefix) :]] = value
    weights = {k: v.to(torch.bfloat16).contiguous() for k, v in weights.items()}
    save_file(weights, str(path), metadata={"config": json.dumps(CONFIG), "model_version": "2.0.0-tiny"})
    return path


def write_latents(root: Path, count: int, gen: torch.Generator) -> None:
    for sub in ("latents", "conditions"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    for i in range(count):
        latent = {
            "latents": torch.randn(128, 2, 2, 3, generator=gen),
            "num_frames": 2,
            "height": 2,
            "width": 3,
        }
        torch.save({**latent, "fps": 24.0}, root / "latents" / f"clip{i:03d}.pt")
        # 128 tokens: the connector's learnable registers (128) must divide the prompt length
        text = {k: torch.randn(128, H, generator=gen).to(torch.bfloat16) for k in ("video", "audio")}
        mask = torch.tensor([True] * 100 + [False] * 28)
        cond = {"video_prompt_embeds": text["video"], "audio_prompt_embeds": text["audio"]}
        torch.save({**cond, "prompt_attention_mask": mask}, root / "conditions" / f"clip{i:03d}.pt")


def write_config(run: Path, shipped: Path) -> Path:
    cfg = yaml.safe_load((shipped / "t2v_lora.yaml").read_text())
    cfg["model"].update(model_path=str(run / "tiny-ltx.safetensors"), text_encoder_path=str(run / "gemma"))
    cfg["lora"].update(rank=4, alpha=4)
    cfg["training_strategy"]["audio"] = None
    cfg["data"].update(preprocessed_data_root=str(run / "data" / ".precomputed"), num_dataloader_workers=0)
    cfg["output_dir"] = str(run / "outputs")
    (run / "config.yaml").write_text(yaml.safe_dump(cfg))
    return run / "config.yaml"


def write_checkpoints(run: Path, gen: torch.Generator) -> None:
    program = Path(__file__).parents[2] / "ltx_wizard" / "trainer_side" / "heldout_loss.py"
    spec = importlib.util.spec_from_file_location("heldout_loss", program)
    hl = importlib.util.module_from_spec(spec)
    sys.modules["heldout_loss"] = hl
    spec.loader.exec_module(hl)
    model = hl._load(run / "config.yaml", "cpu").model
    (run / "outputs" / "checkpoints").mkdir(parents=True, exist_ok=True)
    for step, scale in CHECKPOINT_SCALES.items():
        with torch.no_grad():
            for name, p in model.named_parameters():
                if "lora_" in name:
                    p.copy_(torch.randn(p.shape, generator=gen) * scale)
        state = get_peft_model_state_dict(model)  # LtxvTrainer._save_checkpoint's names, then ComfyUI's
        state = {f"diffusion_model.{k.replace('base_model.model.', '', 1)}": v for k, v in state.items()}
        state = {k: v.to(torch.bfloat16).contiguous() for k, v in state.items()}
        save_file(state, str(run / "outputs" / "checkpoints" / f"lora_weights_step_{step:05d}.safetensors"))


def main(run: Path, shipped: Path) -> None:
    gen = torch.Generator().manual_seed(0)
    torch.manual_seed(0)
    gemma = write_gemma(run / "gemma")
    write_model(run / "tiny-ltx.safetensors", gemma, gen)
    write_latents(run / "data" / ".precomputed", 6, gen)
    write_latents(run / "heldout" / ".precomputed", 3, gen)
    write_config(run, shipped)
    write_checkpoints(run, gen)


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
