"""Check every model/data/trainer path at once: one item per input, bad input never raises.

Shared by `ltx-wizard check`, the TUI's live validation under each field, and `plan`. Each failed
item carries the one-line error (which names the path and the fix) instead of an exception.
"""

from __future__ import annotations

import os
from typing import Callable, Mapping

from pydantic import BaseModel, ConfigDict

from ltx_wizard.core.inputs.checkout import TIER_CONFIGS, find_checkout
from ltx_wizard.core.inputs.checkpoint import CheckpointInfo, inspect_checkpoint, inspect_vae
from ltx_wizard.core.dataset.sources import SHIPPED_T2V_STRATEGY, video_only
from ltx_wizard.core.dataset.data_root import VIDEO_ONLY_FLAG, VideoOnlyData, inspect_data_root
from ltx_wizard.core.dataset.checks import check_dataset_file
from ltx_wizard.core.dataset.rows import is_dataset_file
from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.inputs.model_paths import resolve_user_path
from ltx_wizard.core.inputs.text_encoder import check_compatibility, inspect_text_encoder

PathLike = str | os.PathLike


class CheckItem(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str  # checkpoint, text_encoder, video_vae, audio_vae, data_root, trainer_root
    ok: bool
    path: str | None  # absolute when it could be resolved, else as given
    summary: str = ""
    error: str | None = None
    warning: str | None = None  # usable, but something must be fixed before training (e.g. no uv)
    video_only_data: bool = False  # data_root: video-only data under a config that trains audio


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
    audio_vae_reason: str | None = "the shipped configs generate audio in validation",
    strategy: Mapping | None = None,
    video_only_choice: bool = False,
    video_only_option: str = VIDEO_ONLY_FLAG,
    cwd: PathLike | None = None,
    env: Mapping[str, str] | None = None,
    inspected: CheckpointInfo | None = None,
    resolution_buckets: str | None = None,
    on_progress: Callable[[str, int, int], None] | None = None,
    cancelled=None,
) -> list[CheckItem]:
    """Checkpoint and text encoder always get an item; VAEs when given or needed; others if given.

    The data root is read under `strategy` (a config's `training_strategy` block); without one,
    under the shipped t2v config of the checkout (`shipped_strategy`). `video_only_choice` drops
    its audio, as `training_strategy.audio: null` would. `inspected`: the checkpoint as the
    caller already read it (the TUI does, to show the VAE fields), so it is not read again.
    A split pack needs its video VAE always and its audio VAE only when `audio_vae_reason` says
    why the run loads it (see split_pack.audio_vae_reason; None: the run never does).
    A dataset file's clips are read with `on_progress(what, done, total)` reports and stop
    (ProbeCancelled) once `cancelled` (an Event or a callable) is set (core/dataset/checks.py).
    """
    items, ckpt = _model_items(checkpoint, text_encoder, cwd, inspected)
    split = ckpt is not None and ckpt.is_split_pack
    items += _vae_items(ckpt, split, video_vae, audio_vae, cwd, audio_vae_reason)
    if data_root is not None:
        if strategy is None:
            strategy = shipped_strategy(trainer_root, cwd=cwd, env=env)
        items.append(_data_item(data_root, strategy, video_only_choice, video_only_option, cwd,
                                resolution_buckets, on_progress, cancelled))
    if trainer_root is not None:
        items.append(_checkout_item(trainer_root, cwd, env))
    return items


def _model_items(checkpoint: PathLike | None, text_encoder: PathLike | None,
                 cwd: PathLike | None, inspected: CheckpointInfo | None):
    """The checkpoint and text encoder items, and the checkpoint as read (None if unreadable)."""
    items: list[CheckItem] = []
    ckpt: list[CheckpointInfo] = []

    def do_checkpoint() -> str:
        usable = inspected is not None and os.fspath(inspected.path) == _shown_path(
            checkpoint, "checkpoint", cwd)
        info = inspected if usable else inspect_checkpoint(checkpoint, cwd=cwd)  # type: ignore[arg-type]
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
    return items, (ckpt[0] if ckpt else None)


def _vae_items(ckpt: CheckpointInfo | None, split: bool, video_vae: PathLike | None,
               audio_vae: PathLike | None, cwd: PathLike | None,
               audio_vae_reason: str | None) -> list[CheckItem]:
    items: list[CheckItem] = []
    for name, raw, kind, flag in (
        ("video_vae", video_vae, "video", "--video-vae FILE"),
        ("audio_vae", audio_vae, "audio", "--audio-vae FILE"),
    ):
        if raw is None:
            if split and ckpt is not None and (kind == "video" or audio_vae_reason):
                why = "" if kind == "video" else f" ({audio_vae_reason})"
                items.append(
                    _missing(
                        name, flag, f"checkpoint {ckpt.path} is a split pack, which needs it{why}"
                    )
                )
            continue
        note = "" if split or ckpt is None else " (the unified checkpoint already holds one)"
        items.append(
            _item(
                name,
                raw,
                cwd,
                lambda raw=raw, kind=kind: inspect_vae(raw, kind, cwd=cwd).describe() + note,
            )
        )
    return items


def _data_item(data_root: PathLike, strategy: Mapping, video_only_choice: bool,
               video_only_option: str, cwd: PathLike | None,
               buckets: str | None = None, on_progress=None, cancelled=None) -> CheckItem:
    if video_only_choice:
        strategy = video_only(strategy)
    video_only_data: list[bool] = []
    warnings: list[str] = []

    def do_data() -> str:
        try:
            if is_dataset_file(data_root):  # clips to preprocess: core/dataset/checks.py
                report = check_dataset_file(data_root, strategy, buckets, cwd=cwd,
                                            on_progress=on_progress, cancelled=cancelled)
                warnings.extend(report.warnings)
                return "; ".join([report.describe(), *report.warnings])
            info = inspect_data_root(
                data_root, strategy=strategy, cwd=cwd, option=video_only_option
            )
        except VideoOnlyData:
            video_only_data.append(True)
            raise
        return info.describe() + (" (video only)" if video_only_choice else "")

    item = _item("data_root", data_root, cwd, do_data)
    return item.model_copy(update={"video_only_data": bool(video_only_data),
                                   "warning": "; ".join(warnings) or None})


def _checkout_item(trainer_root: PathLike, cwd: PathLike | None,
                   env: Mapping[str, str] | None) -> CheckItem:
    found: list = []

    def do_checkout() -> str:
        checkout = find_checkout(trainer_root, cwd=cwd, env=env)
        found.append(checkout)
        return checkout.describe()

    item = _item("trainer_root", trainer_root, cwd, do_checkout)
    if found and found[0].notes:  # e.g. uv missing: the launch starts with `uv run`
        item = item.model_copy(update={"warning": "; ".join(found[0].notes)})
    return item


def all_ok(items: list[CheckItem]) -> bool:
    return all(item.ok for item in items)


def recipe_strategy(
    trainer_root: PathLike | None,
    recipe: str,
    *,
    cwd: PathLike | None = None,
    env: Mapping[str, str] | None = None,
) -> Mapping:
    """The `training_strategy` block of a named recipe of the checkout (`check --recipe`); an
    unknown recipe or a missing checkout is the user's to fix, so it raises."""
    from ltx_wizard.core.inputs.recipes import find_recipe

    checkout = find_checkout(trainer_root, cwd=cwd, env=env)
    return find_recipe(checkout.trainer_dir / "configs", recipe).strategy


def shipped_strategy(
    trainer_root: PathLike | None,
    base_config: str | None = None,
    *,
    recipe: str | None = None,
    cwd: PathLike | None = None,
    env: Mapping[str, str] | None = None,
) -> Mapping:
    """The `training_strategy` block of the checkout's shipped config (`base_config`, else the
    first tier config found; the recipe's own file for a recipe other than t2v): what `plan` will
    train. Falls back to the block the shipped t2v configs hold when no checkout or config can be
    read (the plan reads the file itself)."""
    from ltx_wizard.core.inputs.recipes import DEFAULT_RECIPE
    from ltx_wizard.core.io.yaml_patch import get_dotted, load_yaml

    if recipe and recipe != DEFAULT_RECIPE:
        # Every tier keeps the recipe's strategy block (the low-VRAM keys never touch it).
        try:
            return recipe_strategy(trainer_root, recipe, cwd=cwd, env=env)
        except (WizardError, OSError):
            pass
    try:
        checkout = find_checkout(trainer_root, cwd=cwd, env=env)
        for name in (base_config,) if base_config else TIER_CONFIGS:
            path = checkout.config_path(name)
            if path.is_file():
                block = get_dotted(load_yaml(path.read_text(encoding="utf-8")), "training_strategy", None)
                return block if block is not None else {}  # {}: the trainer's default
    except (WizardError, OSError, UnicodeDecodeError):
        pass
    return SHIPPED_T2V_STRATEGY
