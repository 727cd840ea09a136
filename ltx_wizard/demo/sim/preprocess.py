"""Simulated `scripts/process_dataset.py`: same arguments, same refusals, same output layout and
shapes, no GPU. The user's media are real and read for real (PyAV, as the trainer reads them,
through the wizard's clip probe): frames, size and sound decide what is kept and every shape.

Run as `python -m ltx_wizard.demo.sim.preprocess DATASET [options]` with LTX_WIZARD_SIM_SCRIPT
naming the checkout's (look-alike) process_dataset.py: its parser is the one used, so an option
the script lacks is refused here too (exit 2, as typer does). What it refuses or skips mirrors
the real scripts: a bad bucket (exit 2), no caption or media column, any media path that is not
a file (exit 1), clips shorter than the smallest bucket or unreadable (skipped, logged), clips
without sound (no audio latents, counted), an image with no 1-frame bucket (it stops, exit 1).
Latents are written atomically with the shapes the VAE makes (demo/lookalike_latents.py); an
existing output is kept unless --overwrite.
LTX_WIZARD_SIM_SPEED (default 50) divides the simulated seconds per item (0: no waiting).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from ltx_wizard.core.dataset.buckets import Bucket, parse_buckets
from ltx_wizard.core.dataset.clip_facts import IMAGE_SUFFIXES, ClipFacts
from ltx_wizard.core.dataset.clip_probe import probe_clip
from ltx_wizard.core.dataset.clip_problems import pick_bucket
from ltx_wizard.core.dataset.rows import read_dataset_file
from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.demo.sim.stand_in import AUDIO_DECODE_ENV, SCRIPT_ENV as SIM_SCRIPT_ENV
from ltx_wizard.demo.lookalike_checkout import load_parser
from ltx_wizard.demo.lookalike_latents import (
    audio_latents,
    condition_embeddings,
    video_latents,
    write_pt,
)
from ltx_wizard.demo.sim.clock import float_env

SECONDS_PER_ITEM = {"captions": 0.5, "videos": 2.0}


def _log(level: str, text: str) -> None:
    print(f"{level:<8} {text}", flush=True)


def _bar(title: str, done: int, total: int, end: str = "\r") -> None:
    pct = int(100 * done / total) if total else 100
    print(f"{title} {'━' * (pct // 5):<20} {pct:3d}% {done}/{total} 0:00:00 0:00:00", end=end, flush=True)


def _wait(kind: str) -> None:
    speed = float_env("LTX_WIZARD_SIM_SPEED", 50.0)
    if speed > 0:
        time.sleep(SECONDS_PER_ITEM[kind] / speed)


def _save(path: Path, obj: dict, overwrite: bool) -> None:
    if overwrite or not path.is_file():
        write_pt(path, obj)


def _captions(ds, out: Path, overwrite: bool) -> None:
    rows = ds.rows
    _log("INFO", f"Loaded {len(rows):,} captions")
    for i, row in enumerate(rows):
        _bar("Processing captions", i, len(rows))
        _wait("captions")
        # process_captions.py: the audio features too, from the model's audio connector
        _save(
            out / "conditions" / ds.output_rel(row),
            {**condition_embeddings(), "audio_prompt_embeds": (1024, 2048)},
            overwrite,
        )
    _bar("Processing captions", len(rows), len(rows), end="\n")


def _kept_videos(ds, buckets: tuple[Bucket, ...], role: str = "video") -> list[tuple[dict, ClipFacts]]:
    bad = [ds.media(r, role) for r in ds.rows if not ds.media(r, role).is_file()]
    if bad:  # mirrors MediaDataset._load_video_paths
        raise ValueError(f"Found {len(bad)} invalid paths in '{ds.roles[role]}'. First few: {bad[:5]}")
    need = min(b.frames for b in buckets)
    kept = []
    for row in ds.rows:
        path = ds.media(row, role)
        facts = probe_clip(path, fallback=False)  # PyAV only: what the trainer's reader sees
        if path.suffix.lower() in IMAGE_SUFFIXES:  # mirrors _filter_valid_videos: kept unread
            kept.append((row, facts))
        elif facts.error is not None or facts.frames is None:
            _log("WARNING", f"Failed to read video at {path}: {facts.error}")
        elif facts.frames < need:
            _log(
                "WARNING",
                f"Skipping video at {path} - has {facts.frames} frames, which is "
                f"less than the minimum required frames ({need})",
            )
        else:
            kept.append((row, facts))
    if len(kept) < len(ds.rows):
        _log(
            "WARNING",
            f"Filtered out {len(ds.rows) - len(kept)} videos with insufficient "
            f"frames. Proceeding with {len(kept)} valid videos.",
        )
    return kept


def _bucket_of(buckets: tuple[Bucket, ...], facts: ClipFacts) -> tuple[Bucket, float]:
    """(bucket, fps) as MediaDataset.__getitem__ finds them; raises where it raises."""
    if facts.error is not None or not facts.width or not facts.height:
        # __getitem__ opens the still with PIL (or decodes the clip) and fails on it
        raise ValueError(
            f"cannot identify image file '{facts.path}'"
            if facts.kind == "image"
            else f"Failed to read video at {facts.path}: {facts.error}"
        )
    frames = 1 if facts.kind == "image" else int(facts.frames or 0)
    bucket = pick_bucket(buckets, frames, facts.width, facts.height)
    if bucket is None:  # mirrors _get_resolution_bucket_for_item
        shown = [(b.frames, b.height, b.width) for b in buckets]
        raise ValueError(f"No resolution buckets have <= {frames} frames. Available: {shown}")
    return bucket, (1.0 if facts.kind == "image" else float(facts.fps or 24))


def _scaled(bucket: Bucket, factor: int) -> Bucket:
    # mirrors process_videos.py compute_scaled_resolution_buckets (its checks and messages)
    for side, size in (("Height", bucket.height), ("Width", bucket.width)):
        if size % factor:
            raise ValueError(
                f"{side} {size} is not evenly divisible by scale factor {factor}. "
                f"Choose a scale factor that divides {size} evenly."
            )
        if size // factor % 32:
            raise ValueError(
                f"Scaled {side.lower()} {size // factor} (from {size} / {factor}) is "
                "not divisible by 32. Choose a different scale factor or adjust "
                "your resolution buckets."
            )
    return Bucket(bucket.width // factor, bucket.height // factor, bucket.frames)


def _references(ds, buckets: tuple[Bucket, ...], factor: int, out: Path, overwrite: bool) -> None:
    # mirrors process_dataset.py: compute_latents again on the reference column, its buckets
    # scaled down by --reference-downscale-factor, named after the main video
    if factor > 1 and len(buckets) > 1:
        raise ValueError(
            "When using --reference-downscale-factor > 1, only a single resolution bucket is supported."
        )
    scaled = tuple(_scaled(b, factor) for b in buckets)
    for row, facts in _kept_videos(ds, scaled, role="reference_video"):
        b, fps = _bucket_of(scaled, facts)
        _save(
            out / "reference_latents" / ds.output_rel(row),
            video_latents(b.frames, b.height, b.width, fps),
            overwrite,
        )


def _videos(ds, buckets, out: Path, args) -> None:
    kept = _kept_videos(ds, buckets)
    _log("INFO", f"Loaded {len(kept)} valid media files")
    auto_audio = not args.skip_audio and "audio" not in ds.roles
    decodes = os.environ.get(AUDIO_DECODE_ENV) != "0"  # process_videos.py swallows a failed load
    with_audio = without = 0
    for i, (row, facts) in enumerate(kept):
        _bar("Processing videos", i, len(kept))
        _wait("videos")
        b, fps = _bucket_of(buckets, facts)
        rel = ds.output_rel(row)
        _save(out / "latents" / rel, video_latents(b.frames, b.height, b.width, fps), args.overwrite)
        if auto_audio and facts.has_audio and decodes:
            _save(out / "audio_latents" / rel, audio_latents(b.frames / fps), args.overwrite)
            with_audio += 1
        elif auto_audio:
            without += 1
    _bar("Processing videos", len(kept), len(kept), end="\n")
    _log("INFO", f"Processed {len(kept)} videos -> {out / 'latents'}")
    if auto_audio:
        _log(
            "INFO",
            f"Audio processing: {with_audio} videos with audio, {without} videos without audio (skipped)",
        )
    if "reference_video" in ds.roles:
        _references(ds, buckets, args.reference_downscale_factor, out, args.overwrite)
    if "video_mask" in ds.roles:
        _masks(ds, out, args.overwrite)


def _masks(ds, out: Path, overwrite: bool) -> None:
    # mirrors process_videos.py compute_video_masks: one mask per sample that has target
    # latents, {"mask": [F', H', W']} at the latents' size (others skipped with a warning)
    from ltx_wizard.core.dataset.pt_shapes import read_pt

    for row in ds.rows:
        rel = ds.output_rel(row)
        target = out / "latents" / rel
        if not target.is_file():
            _log(
                "WARNING", f"No target latent found at {target}, skipping mask {ds.media(row, 'video_mask')}"
            )
            continue
        meta = read_pt(target)
        _save(
            out / "video_masks" / rel,
            {"mask": (meta["num_frames"], meta["height"], meta["width"])},
            overwrite,
        )


def preprocess(args) -> None:
    dataset = Path(args.dataset_path)
    if not dataset.exists():  # mirrors process_dataset.py _validate_dataset_file
        raise FileNotFoundError(f"Dataset file does not exist: {dataset}")
    ds = read_dataset_file(dataset)
    if "caption" not in ds.roles:
        raise ValueError(f"No caption column found. Dataset has columns: {set(ds.columns)}.")
    if "video" not in ds.roles:
        raise ValueError(f"No media column found. Dataset has columns: {set(ds.columns)}.")
    if not args.resolution_buckets:
        raise ValueError("--resolution-buckets is required when the dataset has a video column.")
    buckets = parse_buckets(args.resolution_buckets)
    out = Path(args.output_dir) if args.output_dir else dataset.parent / ".precomputed"
    if args.lora_trigger:
        _log("INFO", f'LoRA trigger word "{args.lora_trigger}" will be prepended to all captions')
    for role in sorted(ds.roles):
        _log("INFO", f"Detected column '{ds.roles[role]}' → {role}")
    _captions(ds, out, args.overwrite)
    _videos(ds, buckets, out, args)
    _log("INFO", f"Dataset preprocessing complete! Results saved to {out}")


def _parser(script: Path):
    """The look-alike's own parser; for a real checkout's typer script (--simulate on a real
    box), one built from the options core/preprocess/preprocess_command.py reads from it: the same flags, the same
    required ones, nothing the script would not take."""
    import argparse

    try:
        return load_parser(script)
    except Exception:  # noqa: BLE001 - the real script imports typer and the trainer
        from ltx_wizard.core.preprocess.preprocess_command import script_options

        options = script_options(script)
        parser = argparse.ArgumentParser(prog="process_dataset.py")
        parser.add_argument("dataset_path")
        for flag in sorted(options.flags):
            if flag.startswith("--no-"):
                continue
            if f"--no-{flag[2:]}" in options.flags:
                parser.add_argument(flag, action=argparse.BooleanOptionalAction, default=False)
            else:
                whole = "factor" in flag or "size" in flag  # the script's int options, default 1
                parser.add_argument(
                    flag,
                    required=flag in options.required,
                    default=1 if whole else None,
                    type=int if whole else str,
                )
        return parser


def main(argv: list[str] | None = None) -> int:
    script = os.environ.get(SIM_SCRIPT_ENV)
    if not script or not Path(script).is_file():
        print(
            f"simulated preprocessor: set {SIM_SCRIPT_ENV} to the checkout's scripts/process_dataset.py",
            file=sys.stderr,
        )
        return 2
    args = _parser(Path(script)).parse_args(argv)  # exits 2 on a bad option, as typer does
    try:
        if args.resolution_buckets:
            parse_buckets(args.resolution_buckets)
    except WizardError as exc:  # typer.BadParameter in the real script: exit 2
        print(f"Error: Invalid value for '--resolution-buckets': {exc.message}", file=sys.stderr)
        return 2
    try:
        preprocess(args)
    except (ValueError, FileNotFoundError, WizardError) as exc:
        print("Traceback (most recent call last):\n  ...", file=sys.stderr)
        print(f"{type(exc).__name__}: {getattr(exc, 'message', exc)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
