"""The version-fit gate of `plan` and of the Paths screen's checks: the checkout, checkpoint, text
encoder and preprocessed data that do not fit together are stopped here, before any trial, with
one line each naming what does not fit and the fix (core/inputs/version_fit.py, data_fit.py).
"""

from __future__ import annotations

from pathlib import Path

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.inputs.checkout_caps import read_caps
from ltx_wizard.core.inputs.checkpoint import CheckpointInfo
from ltx_wizard.core.inputs.text_encoder import TextEncoderInfo
from ltx_wizard.core.inputs.version_fit import Misfit, check_fit, gemma_hidden_size
from ltx_wizard.core.dataset.data_fit import data_misfits


def misfits(
    checkout_root: Path,
    ckpt: CheckpointInfo,
    te: TextEncoderInfo | None,
    data_root: Path | None = None,
    sample: str | None = None,
) -> list[Misfit]:
    found = check_fit(read_caps(checkout_root), ckpt, te)
    if data_root is not None:
        found += data_misfits(Path(data_root), sample, ckpt, gemma_hidden_size(te))
    return found


def require_fit(
    checkout_root: Path,
    ckpt: CheckpointInfo,
    te: TextEncoderInfo | None,
    data_root: Path | None = None,
    sample: str | None = None,
) -> None:
    found = misfits(checkout_root, ckpt, te, data_root, sample)
    if found:
        raise UsageError("; and ".join(m.message for m in found))
