"""Will ltx-pipelines fit? Its stages, each alone on the GPU, from the checkpoint's header.

The pipelines build each model when its block is called and free it before the next
(ltx_pipelines/utils/blocks.py: "Blocks build a model on each __call__, use it, then free GPU
memory"), so the peak is the largest stage, not their sum:

* PromptEncoder: Gemma, built in bf16 (`_text_encoder_builder.build(dtype=self._dtype)`), counted
  as its weights as stored; then the text connectors (the embeddings processor) alone.
* DiffusionStage: the transformer, 2 bytes a parameter in bf16 (`--quantization fp8-cast` /
  `fp8-scaled-mm` 1, `nvfp4-*` 0.5), and the denoising loop's activations for the render's latent
  tokens (W/32 x H/32 x ((F-1)/8+1)). No gradients: per token about one block's working set (q, k,
  v and the attention output at 4,096 wide, the feed-forward's 16,384 twice, bf16), rounded up to
  128 KiB. An estimate: the guided denoiser's passes run one at a time (`max_batch_size` 1).
* VideoDecoder: after the transformer is freed, decoding in tiles (AUTO_TILING): never the peak.

On top, the headroom model's CUDA context and allocator slack (core/tuning/headroom.py).
`--offload cpu|disk` streams the weights layer by layer: about 5 GB of GPU memory, with about
36 GB of host RAM for `cpu` (ltx_pipelines/utils/types.py OffloadMode), plus the activations. The
figure is compared with 97 % of the smallest GPU as autotune does; the options are offered
cheapest first. A stand-in for ltx-pipelines may run out of memory by this same rule, so that the
check and its render agree.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ltx_wizard.core.base.units import gib
from ltx_wizard.core.tuning.headroom import FIT_FRACTION, GB, OVERHEAD_GB, ModelSize

# ltx_pipelines/utils/args.py --quantization choices, bytes per transformer weight
PIPELINE_BYTES = {
    None: 2.0,
    "fp8-cast": 1.0,
    "fp8-scaled-mm": 1.0,
    "nvfp4-cast": 0.5,
    "nvfp4-prequant": 0.5,
}
OFFLOAD_GPU_GB = 5.0
OFFLOAD_CPU_RAM_GB = 36.0
ACTIVATION_BYTES_PER_TOKEN = 128 * 1024


def latent_tokens(dims: tuple[int, int, int] | None) -> int:
    """The video latent's tokens: 32x spatial, 8x temporal compression (the VAE's scale factors)."""
    if dims is None:
        return 0
    width, height, frames = dims
    return max(1, width // 32) * max(1, height // 32) * ((max(frames, 1) - 1) // 8 + 1)


def activations_gb(dims: tuple[int, int, int] | None) -> float:
    return latent_tokens(dims) * ACTIVATION_BYTES_PER_TOKEN / GB


@dataclass(frozen=True)
class Option:
    quantization: str | None
    offload: str | None
    need_gb: float
    fits: bool
    describe: str  # in words, with the figure
    short_of_ram: bool = False  # --offload cpu: the GPU is fine, the host's RAM is not

    @property
    def flags(self) -> str:
        parts = ([f"--quantization {self.quantization}"] if self.quantization else []) + (
            [f"--offload {self.offload}"] if self.offload else []
        )
        return " ".join(parts) or "no memory option"


def text_encoder_bytes(path: str | None) -> int:
    """The text encoder's weights as stored: a split pack's file, or a Gemma folder's shards."""
    if not path:
        return 0
    root = Path(path)
    if root.is_file():
        return root.stat().st_size
    try:
        return sum(p.stat().st_size for p in root.glob("*.safetensors"))
    except OSError:
        return 0


def need_gb(
    model: ModelSize,
    encoder_bytes: int,
    quantization: str | None,
    offload: str | None,
    dims: tuple[int, int, int] | None = None,
) -> tuple[float, str]:
    """The largest stage per GPU at the render's size, with what it is made of."""
    acts = activations_gb(dims)
    size = f" at {'x'.join(map(str, dims))}" if dims else ""
    if offload:
        host = f", ~{OFFLOAD_CPU_RAM_GB:.0f} GB of host RAM" if offload == "cpu" else ""
        return (
            OFFLOAD_GPU_GB + acts,
            f"weights streamed from {offload}: ~{OFFLOAD_GPU_GB:.0f} GB{host} + activations{size} {acts:.1f}",
        )
    weights = model.transformer_params * PIPELINE_BYTES.get(quantization, 2.0) / GB
    connectors = model.embeddings_params * 2.0 / GB
    encoder = encoder_bytes / GB
    stages = (
        (weights + acts, f"transformer {weights:.1f} + activations{size} {acts:.1f}"),
        (encoder, f"text encoder stage {encoder:.1f}"),
        (connectors, f"text connectors stage {connectors:.1f}"),
    )
    stage, which = max(stages, key=lambda s: s[0])
    return stage + OVERHEAD_GB, f"{which} + overhead {OVERHEAD_GB:.1f}"


def options(
    model: ModelSize,
    encoder_bytes: int,
    gpu_total_gb: float | None,
    host_ram_gb: float | None = None,
    dims: tuple[int, int, int] | None = None,
) -> list[Option]:
    """As planned (bf16), then fp8-cast, then offloading to CPU RAM, then to disk."""
    out = []
    for quantization, offload in ((None, None), ("fp8-cast", None), (None, "cpu"), (None, "disk")):
        need, parts = need_gb(model, encoder_bytes, quantization, offload, dims)
        fits = gpu_total_gb is None or need <= gpu_total_gb * FIT_FRACTION
        short = offload == "cpu" and host_ram_gb is not None and host_ram_gb < OFFLOAD_CPU_RAM_GB
        label = {None: "bf16", "cpu": "offload to CPU RAM", "disk": "offload to disk"}
        name = quantization or label[offload]
        out.append(
            Option(
                quantization,
                offload,
                need,
                fits and not short,
                f"{name}: at least {gib(need)} per GPU ({parts})",
                short,
            )
        )
    return out


def first_fit(found: list[Option]) -> Option | None:
    return next((o for o in found if o.fits), None)


def fit_line(option: Option, gpu_total_gb: float | None, host_ram_gb: float | None = None) -> str:
    if option.short_of_ram:
        return (
            f"{option.describe}: this machine has {gib(host_ram_gb)} of RAM, short of "
            f"~{OFFLOAD_CPU_RAM_GB:.0f} GB"
        )
    if gpu_total_gb is None:
        return f"{option.describe}; GPU memory unknown"
    verdict = "fits" if option.fits else "does not fit"
    return (
        f"{option.describe}: {verdict} in {gib(gpu_total_gb * FIT_FRACTION)} "
        f"({FIT_FRACTION:.0%} of {gib(gpu_total_gb)})"
    )
