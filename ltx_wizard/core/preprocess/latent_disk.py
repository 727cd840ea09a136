"""How much disk the preprocessing of a dataset file will write, per sample at its bucket, and
where (the data root beside dataset.json, or --precomputed-dir).

Per sample (scripts/process_videos.py and process_captions.py of the trainer):
* latents/: the video VAE's output in bf16 (the encoder is loaded in bf16 and the latents kept in
  its dtype): 128 channels x ((F - 1) / 8 + 1) x H / 32 x W / 32 x 2 bytes;
* conditions/: 1024 tokens (ltx-core gemma_assets.py TOKENIZER_MAX_LENGTH) x the text path's
  widths (version_fit.py checkpoint_needs: video + audio) x 2 bytes (bf16), and the int64 mask;
* audio_latents/ (recipes that train audio): the audio VAE runs in fp32: 8 channels x 25 steps a
  second x 16 bins x 4 bytes, the clip's duration taken as F / 25 s (the bucket at 25 fps);
plus ~2 KB of torch.save's zip and pickle per file. The largest bucket is counted for every
sample (an upper bound when there are several).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ltx_wizard.core.dataset.buckets import Bucket

TOKENS = 1024
FILE_OVERHEAD = 2048


@dataclass(frozen=True)
class LatentDisk:
    samples: int  # samples still to be written
    per_sample: int  # bytes
    root: Path  # where they are written
    free: int | None  # free bytes on that disk
    device: int | None  # its st_dev: the same disk as the run folder adds up with it

    @property
    def total(self) -> int:
        return self.samples * self.per_sample


def per_sample_bytes(bucket: Bucket, video_width: int, audio_width: int, audio: bool) -> int:
    frames, height, width = bucket.latent_shape()
    video = 128 * frames * height * width * 2
    text = TOKENS * (video_width + (audio_width if audio else 0)) * 2 + TOKENS * 8
    sound = 8 * bucket.frames * 16 * 4 if audio else 0  # 25 steps a second over F / 25 s
    files = 3 if audio else 2
    return video + text + sound + files * FILE_OVERHEAD


def latent_disk(
    root: Path, samples: int, buckets: tuple[Bucket, ...], video_width: int, audio_width: int, audio: bool
) -> LatentDisk | None:
    if samples <= 0 or not buckets:
        return None
    largest = max(buckets, key=lambda b: b.width * b.height * b.frames)
    where = Path(os.path.abspath(root))
    while not where.exists() and where.parent != where:
        where = where.parent
    try:
        st = os.statvfs(where)
        free: int | None = st.f_bavail * st.f_frsize
        device: int | None = os.stat(where).st_dev
    except OSError:
        free = device = None
    return LatentDisk(
        samples=samples,
        per_sample=per_sample_bytes(largest, video_width, audio_width, audio),
        root=Path(root),
        free=free,
        device=device,
    )
