"""Will ltx-pipelines fit? The headroom model's figures (core/tuning/headroom.py) for inference.

No optimizer, gradients or LoRA copies here: the transformer's weights at the pipeline's precision
(bf16, 2 bytes a parameter; `--quantization fp8-cast` / `fp8-scaled-mm` 1 byte), the text
connectors beside it, and the headroom model's CUDA context and allocator slack. The text encoder
runs in its own stage before the transformer (its weights as stored), so the larger of the two
stages counts. `--offload cpu|disk` streams the weights layer by layer: about 5 GB of GPU memory,
with about 36 GB of host RAM for `cpu` (the pipeline's own figures, ltx_pipelines/utils/types.py
OffloadMode). The figure is a floor (activations come on top), compared with 97 % of the smallest
GPU as autotune does; the options are offered cheapest first.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ltx_wizard.core.base.units import gib
from ltx_wizard.core.tuning.headroom import FIT_FRACTION, GB, OVERHEAD_GB, ModelSize

PIPELINE_BYTES = {None: 2.0, "fp8-cast": 1.0, "fp8-scaled-mm": 1.0}
OFFLOAD_GPU_GB = 5.0
OFFLOAD_CPU_RAM_GB = 36.0


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
    model: ModelSize, encoder_bytes: int, quantization: str | None, offload: str | None
) -> tuple[float, str]:
    """The floor per GPU, with what it is made of."""
    if offload:
        host = f", ~{OFFLOAD_CPU_RAM_GB:.0f} GB of host RAM" if offload == "cpu" else ""
        return OFFLOAD_GPU_GB, f"weights streamed from {offload}: ~{OFFLOAD_GPU_GB:.0f} GB{host}"
    weights = model.transformer_params * PIPELINE_BYTES.get(quantization, 2.0) / GB
    connectors = model.embeddings_params * 2.0 / GB
    encoder = encoder_bytes / GB
    stage = max(weights + connectors, encoder)
    which = (
        f"transformer {weights:.1f} + text connectors {connectors:.1f}"
        if weights + connectors >= encoder
        else f"text encoder stage {encoder:.1f}"
    )
    return stage + OVERHEAD_GB, f"{which} + overhead {OVERHEAD_GB:.1f}"


def options(
    model: ModelSize, encoder_bytes: int, gpu_total_gb: float | None, host_ram_gb: float | None = None
) -> list[Option]:
    """As planned (bf16), then fp8-cast, then offloading to CPU RAM, then to disk."""
    out = []
    for quantization, offload in ((None, None), ("fp8-cast", None), (None, "cpu"), (None, "disk")):
        need, parts = need_gb(model, encoder_bytes, quantization, offload)
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
