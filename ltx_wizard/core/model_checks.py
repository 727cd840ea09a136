"""Check every model/data/trainer path at once: one item per input, bad input never raises.

Shared by `ltx-wizard check`, the TUI's live validation under each field, and `plan`. Each failed
item carries the one-line error (which names the path and the fix) instead of an exception.
"""

from __future__ import annotations

import os
from typing import Callable, Mapping

from pydantic import BaseModel, ConfigDict

from ltx_wizard.core.checkout import find_checkout
from ltx_wizard.core.checkpoint import CheckpointInfo, inspect_checkpoint, inspect_vae
from ltx_wizard.core.dataset import inspect_data_root
from ltx_wizard.core.errors import WizardError
from ltx_wizard.core.model_paths import resolve_user_path
from ltx_wizard.core.text_encoder import check_compatibility, inspect_text_encoder

PathLike = str | os.PathLike


class CheckItem(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str  # checkpoint, text_encoder, video_vae, audio_vae, data_root, trainer_root
    ok: bool
    path: str | None  # absolute when it could be resolved, else as given
    summary: str = ""
    error: str | None = None


def _shown_path(raw: PathLike | None, what: str, cwd: PathLike | None) -> str | None:
    if raw is None:
        return None
    try:
        return str(resolve_user_path(raw, what=what, cwd=cwd))
    except WizardError:
        return os.fspath(raw)


def _item(
    name: str, raw: PathLike | None, cwd: PathLike | None, fn: Callable[[], str]
) -> CheckItem:
    path = _shown_path(raw, name, cwd)
    try:
        return CheckItem(name=name, ok=True, path=path, summary=fn())
    except WizardError as exc:
        return CheckItem(name=name, ok=False, path=path, error=exc.message)
    except OSError as exc:  # a disk or mount failure between checks
        return CheckItem(
            name=name, ok=False, path=path, error=f"{name} {path}: {exc.strerror or exc}"
        )
    except Exception as exc:  # noqa: BLE001 - a validator bug must not take down the UI
        return CheckItem(
            name=name, ok=False, path=path, error=f"{name} {path}: internal error: {exc}"
        )


def _missing(name: str, flag: str, why: str) -> CheckItem:
    return CheckItem(name=name, ok=False, path=None, error=f"{name} not given: {why}; pass {flag}")


def run_checks(
    checkpoint: PathLike | None = None,
    text_encoder: PathLike | None = None,
    video_vae: PathLike | None = None,
    audio_vae: PathLike | None = None,
    data_root: PathLike | None = None,
    trainer_root: PathLike | None = None,
    *,
    with_audio: bool = False,
    audio_vae_reason: str | None = "the shipped configs generate audio in validation",
    cwd: PathLike | None = None,
    env: Mapping[str, str] | None = None,
) -> list[CheckItem]:
    """Checkpoint and text encoder always get an item; VAEs when given or needed; others if given.

    A split pack needs its video VAE always and its audio VAE only when `audio_vae_reason` says
    why the run loads it (see split_pack.audio_vae_reason; None: the run never does).
    """
    items: list[CheckItem] = []
    ckpt: list[CheckpointInfo] = []

    def do_checkpoint() -> str:
        info = inspect_checkpoint(checkpoint, cwd=cwd)  # type: ignore[arg-type]
        ckpt.append(info)
        return info.summary()

    if checkpoint is None:
        items.append(
            _missing("checkpoint", "--checkpoint FILE", "the LTX-2 .safetensors is required")
        )
    else:
        items.append(_item("checkpoint", checkpoint, cwd, do_checkpoint))

    def do_text_encoder() -> str:
        te = inspect_text_encoder(text_encoder, cwd=cwd)  # type: ignore[arg-type]
        if ckpt:
            warning = check_compatibility(ckpt[0], te)
            if warning:
                return f"{te.describe()}; warning: {warning}"
            return f"{te.describe()}; matches the checkpoint"
        return te.describe()

    if text_encoder is None:
        items.append(
            _missing("text_encoder", "--text-encoder PATH", "the Gemma text encoder is required")
        )
    else:
        items.append(_item("text_encoder", text_encoder, cwd, do_text_encoder))

    split = bool(ckpt) and ckpt[0].is_split_pack
    for name, raw, kind, flag in (
        ("video_vae", video_vae, "video", "--video-vae FILE"),
        ("audio_vae", audio_vae, "audio", "--audio-vae FILE"),
    ):
        if raw is None:
            if split and (kind == "video" or audio_vae_reason):
                why = "" if kind == "video" else f" ({audio_vae_reason})"
                items.append(
                    _missing(
                        name, flag, f"checkpoint {ckpt[0].path} is a split pack, which needs it{why}"
                    )
                )
            continue
        note = "" if split or not ckpt else " (the unified checkpoint already holds one)"
        items.append(
            _item(
                name,
                raw,
                cwd,
                lambda raw=raw, kind=kind: inspect_vae(raw, kind, cwd=cwd).describe() + note,
            )
        )

    if data_root is not None:
        items.append(
            _item(
                "data_root",
                data_root,
                cwd,
                lambda: inspect_data_root(data_root, with_audio=with_audio, cwd=cwd).describe(),
            )
        )
    if trainer_root is not None:
        items.append(
            _item(
                "trainer_root",
                trainer_root,
                cwd,
                lambda: find_checkout(trainer_root, cwd=cwd, env=env).describe(),
            )
        )
    return items


def all_ok(items: list[CheckItem]) -> bool:
    return all(item.ok for item in items)
