"""ValidationRunner by its real name, constructor and run() (ltx_trainer/validation_runner.py):
each sample is denoised by the transformer it is handed (LoRA and all) from noise seeded by
`sample.seed or config.seed`, the prompt standing in for its Gemma embedding, and written where the
real one writes it: OUTPUT_DIR/samples/step_{step:06d}_{index + 1}.mp4 (png for one frame)."""

import zlib
from pathlib import Path

import torch

from ltx_trainer.model_loader import CHANNELS, CONTEXT
from ltx_trainer.training_strategies import Modality

SPATIAL, TEMPORAL = 32, 8  # read_video_scale_factors' (8, 32, 32)


class ValidationRunner:
    def __init__(
        self,
        config,
        model_path,
        text_encoder_path,
        video_vae_path=None,
        audio_vae_path=None,
        load_text_encoder_in_8bit=False,
    ):
        self._config = config
        for i, sample in enumerate(config.samples):  # _validate_sample_geometry
            width, height, frames = sample.video_dims or config.video_dims
            if width % SPATIAL or height % SPATIAL or (frames - 1) % TEMPORAL:
                raise ValueError(
                    f"Validation sample {i}: dimensions {width}x{height}x{frames} do not fit the VAE"
                )

    @torch.no_grad()
    def run(self, transformer, step, output_dir, device, progress, wandb_run=None, work_items=None):
        samples = self._config.samples
        work_items = work_items if work_items is not None else [(i, True) for i in range(len(samples))]
        ctx = progress.start_sampling(num_prompts=len(work_items), num_steps=self._config.inference_steps)
        samples_dir = Path(output_dir) / "samples"
        samples_dir.mkdir(exist_ok=True, parents=True)
        results = []
        for local_i, (index, save) in enumerate(work_items):
            ctx.start_video(local_i)
            sample = samples[index]
            video = self._generate_sample(sample, transformer, device)
            if save:
                frames = (sample.video_dims or self._config.video_dims)[2]
                out = samples_dir / f"step_{step:06d}_{index + 1}.{'png' if frames == 1 else 'mp4'}"
                _save_video(video, out, self._config.frame_rate)
                results.append((index, out))
        ctx.cleanup()
        return results

    def _generate_sample(self, sample, transformer, device):
        width, height, frames = sample.video_dims or self._config.video_dims
        seed = sample.seed or self._config.seed
        generator = torch.Generator(device="cpu").manual_seed(seed)
        f, h, w = (frames - 1) // TEMPORAL + 1, height // SPATIAL, width // SPATIAL
        x = torch.randn(1, f * h * w, CHANNELS, generator=generator).to(device)
        words = torch.Generator().manual_seed(zlib.crc32(sample.prompt.encode()))
        context = torch.randn(1, 4, CONTEXT, generator=words).to(device)
        sigmas = torch.linspace(1.0, 0.0, self._config.inference_steps + 1)
        for sigma, after in zip(sigmas[:-1], sigmas[1:]):  # Euler steps on the predicted velocity
            t = torch.full((1, x.shape[1]), float(sigma), device=device)
            video = Modality(True, x, t[:, 0], t, None, context, torch.ones(1, 4, device=device))
            # the tiny model's bf16 weights beside PEFT's fp32 LoRA (the real one casts inside)
            with torch.autocast(torch.device(device).type, dtype=torch.bfloat16):
                velocity, _ = transformer(video=video, audio=None, perturbations=None)
            x = x + (after - sigma) * velocity.float()
        # the "decoder": three channels as colour, each token a SPATIAL-pixel block, each latent
        # frame TEMPORAL pixel frames
        rgb = torch.sigmoid(x.float()[0, :, :3]).reshape(f, h, w, 3)
        rgb = rgb.repeat_interleave(SPATIAL, 1).repeat_interleave(SPATIAL, 2)
        return rgb.repeat_interleave(TEMPORAL, 0)[:frames]  # F H W C in [0, 1]


def _save_video(video, path: Path, fps: float) -> None:
    import av

    pixels = (video * 255).round().to(torch.uint8).numpy()
    tmp = path.with_name(f".{path.name}.tmp{path.suffix}")
    with av.open(str(tmp), "w", format="image2" if path.suffix == ".png" else "mp4") as container:
        stream = container.add_stream("png" if path.suffix == ".png" else "libx264", rate=int(fps))
        stream.width, stream.height = pixels.shape[2], pixels.shape[1]
        stream.pix_fmt = "rgb24" if path.suffix == ".png" else "yuv420p"
        for image in pixels:
            for packet in stream.encode(av.VideoFrame.from_ndarray(image, format="rgb24")):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
    tmp.replace(path)
