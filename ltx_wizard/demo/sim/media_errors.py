"""The exception the real trainer raises on a validation medium it cannot read, as its last line.

mirrors ltx_trainer/validation_runner.py ValidationRunner._encode_conditioning_media: every
sample's condition media are read when the trainer starts, each with the reader its condition
(and, for first frames and masks, the suffix) picks; core/validation/validation_media.py says which. The
lines are those the readers print: PIL (`open_image_as_srgb`), PyAV (video_utils.read_video),
torchaudio (`_encode_audio`) and torch.load (`_load_audio_mask`).
"""

from __future__ import annotations

from pathlib import Path

from ltx_wizard.core.validation.validation_media import AUDIO, IMAGE, TORCH, VIDEO


def media_error(reader: str, path: str) -> str:
    """The exception line for `path` read by `reader` (missing, or not a container it opens)."""
    if not Path(path).exists():
        if reader == VIDEO:
            return f"av.error.FileNotFoundError: [Errno 2] No such file or directory: '{path}'"
        if reader == AUDIO:
            return f'RuntimeError: Failed to open the input "{path}" (No such file or directory).'
        return f"FileNotFoundError: [Errno 2] No such file or directory: '{path}'"
    if not Path(path).is_file():
        return f"IsADirectoryError: [Errno 21] Is a directory: '{path}'"
    return {
        IMAGE: f"PIL.UnidentifiedImageError: cannot identify image file '{path}'",
        VIDEO: "av.error.InvalidDataError: [Errno 1094995529] Invalid data found when processing "
        f"input: '{path}'",
        AUDIO: f'RuntimeError: Failed to open the input "{path}" (Invalid data found when processing input).',
        TORCH: "_pickle.UnpicklingError: invalid load key, 'l'.",
    }[reader]
