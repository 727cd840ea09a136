"""The live checks of a draft request: one item per input, bad input never raises.

Shared by `ltx-wizard check` and the Paths screen. Each item runs the same step `plan` runs for
that input (core/plan/plan_steps.py: the checkout, the recipe's shipped file, the checkpoint, the
Gemma, the split pack's VAEs, the data as that recipe reads it), so what the form accepts, plan
accepts. A failed item carries the step's one-line error instead of an exception.
"""

from __future__ import annotations

import os
import threading
from types import EllipsisType
from typing import Any, Callable, Literal, Mapping

from pydantic import BaseModel, ConfigDict

from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.dataset.data_root import VIDEO_ONLY_FLAG, DataRootInfo, VideoOnlyData
from ltx_wizard.core.dataset.clip_probe import ProbeCancelled
from ltx_wizard.core.dataset.sources import SHIPPED_T2V_STRATEGY
from ltx_wizard.core.gpu.tiers import Tier
from ltx_wizard.core.inputs.checkout import CheckoutInfo, find_checkout
from ltx_wizard.core.inputs.checkpoint import CheckpointInfo, inspect_checkpoint, inspect_vae
from ltx_wizard.core.inputs.model_paths import resolve_user_path
from ltx_wizard.core.inputs.split_pack import audio_vae_reason as audio_reason_of
from ltx_wizard.core.inputs.text_encoder import TextEncoderInfo
from ltx_wizard.core.io.trainer_config import trainer_config
from ltx_wizard.core.io.yaml_patch import load_yaml
from ltx_wizard.core.plan import plan_steps as steps
from ltx_wizard.core.plan.plan_request import PlanRequest, lenient_request

PathLike = str | os.PathLike[str]


class CheckItem(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str  # checkpoint, text_encoder, video_vae, audio_vae, data_root, trainer_root
    ok: bool
    path: str | None  # absolute when it could be resolved, else as given
    summary: str = ""
    error: str | None = None
    warning: str | None = None  # usable, but something must be fixed before training (e.g. no uv)
    video_only_data: bool = False  # data_root: video-only data under a config that trains audio


class Cancelled(Exception):
    """A newer draft replaced this one: its checks stop between items."""


def _shown_path(raw: PathLike | None, what: str) -> str | None:
    if raw is None:
        return None
    try:
        return str(resolve_user_path(raw, what=what))
    except WizardError:
        return os.fspath(raw)


def _item(name: str, raw: PathLike | None, fn: Callable[[], tuple[str, str | None]]) -> CheckItem:
    path = _shown_path(raw, name)
    try:
        summary, warning = fn()
        return CheckItem(name=name, ok=True, path=path, summary=summary, warning=warning)
    except VideoOnlyData as exc:
        return CheckItem(name=name, ok=False, path=path, error=exc.message, video_only_data=True)
    except WizardError as exc:
        return CheckItem(name=name, ok=False, path=path, error=exc.message)
    except OSError as exc:  # a disk or mount failure between checks
        return CheckItem(name=name, ok=False, path=path, error=f"{name} {path}: {exc.strerror or exc}")
    except Exception as exc:  # noqa: BLE001 - a validator bug must not take down the UI
        return CheckItem(name=name, ok=False, path=path, error=f"{name} {path}: internal error: {exc}")


def _missing(name: str, flag: str, why: str) -> CheckItem:
    return CheckItem(name=name, ok=False, path=None, error=f"{name} not given: {why}; pass {flag}")


class _Draft:
    """One run of the checks over a draft: what earlier items found, handed to later ones."""

    def __init__(
        self, request: PlanRequest, tier: Tier, env: Mapping[str, str] | None, cancel: threading.Event | None
    ) -> None:
        self.request, self.tier, self.env, self.cancel = request, tier, env, cancel
        self.ckpt: CheckpointInfo | None = None
        self.te: TextEncoderInfo | None = None
        self.checkout: CheckoutInfo | None = None
        self.data: DataRootInfo | None = None
        self.on_progress: Callable[[str, int, int], None] | None = None

    def step(self) -> None:
        if self.cancel is not None and self.cancel.is_set():
            raise Cancelled

    def base(self) -> tuple[str, str] | None:
        """(name, text) of the recipe's shipped file as the plan reads it; None without one."""
        if self.checkout is None:
            return None
        try:
            start = steps.recipe_base(self.checkout, self.request, self.tier)
        except (WizardError, OSError):
            return None
        return start.base.source, start.base.text


def check_request(
    request: PlanRequest,
    *,
    tier: Tier | None = None,
    env: Mapping[str, str] | None = None,
    inspected: CheckpointInfo | None = None,
    audio_vae_reason: str | None | EllipsisType = ...,
    strategy: Mapping[str, Any] | None = None,
    video_only_option: str = VIDEO_ONLY_FLAG,
    cancel: threading.Event | None = None,
    problems: Mapping[str, str] | None = None,
    on_progress: Callable[[str, int, int], None] | None = None,
) -> list[CheckItem]:
    """Checkpoint and text encoder always get an item; VAEs when given or needed; others if given.

    `tier`: the probed one (the recipe's low-VRAM keys never touch the data's folders; None reads
    the recipe as shipped). `inspected`: the checkpoint as the caller already read it. The data
    is read as the recipe's shipped file reads it (`strategy` overrides, for `check --recipe`);
    without a checkout, as the shipped t2v configs do. `audio_vae_reason`: why a split pack needs
    its audio VAE (default: from the recipe's file). `cancel`: set by a newer draft; the checks
    stop between items and inside the clip reading (raises Cancelled). `problems`: fields the
    request could not hold (core/plan/plan_request.py lenient_request), each reported as that
    field's failure. `on_progress(what, done, total)`: a dataset file's clips as they are read."""
    d = _Draft(request, tier or Tier.T80, env, cancel)
    d.on_progress = on_progress
    items = [_checkpoint_item(d, inspected), _text_encoder_item(d)]
    if request.trainer_root is not None or request.data_root is not None:
        d.step()
        checkout = _checkout_item(d)
        base = d.base()
        if request.data_root is not None:
            items.append(_data_item(d, base, strategy, video_only_option))
        if request.trainer_root is not None:
            items.append(checkout)
    else:
        base = None
    if isinstance(audio_vae_reason, EllipsisType):  # not given: the recipe's file says
        audio_vae_reason = (
            audio_reason_of(load_yaml(base[1]))
            if base
            else ("the shipped configs generate audio in validation")
        )
    vae = _vae_items(d, audio_vae_reason)
    return _with_problems(_with_misfits(items[:2] + vae + items[2:], d), problems or {})


ORDER = ("checkpoint", "text_encoder", "video_vae", "audio_vae", "data_root", "trainer_root")


def _with_misfits(items: list[CheckItem], d: _Draft) -> list[CheckItem]:
    """What does not fit together, under the field whose fix it is (plan stops on the same)."""
    if d.checkout is None or d.ckpt is None:
        return items
    try:
        found = steps.misfits(d.checkout, d.ckpt, d.te, d.data)
    except (WizardError, OSError):
        return items  # the items themselves say what could not be read
    by_name = {item.name: item for item in items}
    for misfit in found:
        item = by_name.get(misfit.part)
        if item is not None and item.ok:
            by_name[misfit.part] = item.model_copy(update={"ok": False, "error": misfit.message})
    return [by_name[item.name] for item in items]


def _with_problems(items: list[CheckItem], problems: Mapping[str, str]) -> list[CheckItem]:
    by_name = {item.name: item for item in items}
    for name, message in problems.items():
        by_name[name] = CheckItem(name=name, ok=False, path=None, error=message)
    return sorted(
        by_name.values(), key=lambda item: ORDER.index(item.name) if item.name in ORDER else len(ORDER)
    )


def _checkpoint_item(d: _Draft, inspected: CheckpointInfo | None) -> CheckItem:
    raw = d.request.checkpoint
    if raw is None:
        return _missing("checkpoint", "--checkpoint FILE", "the LTX-2 .safetensors is required")

    def read() -> tuple[str, str | None]:
        d.step()
        usable = inspected is not None and os.fspath(inspected.path) == _shown_path(raw, "checkpoint")
        ckpt = inspected if usable and inspected is not None else inspect_checkpoint(raw)
        d.ckpt = ckpt
        return ckpt.summary(), None

    return _item("checkpoint", raw, read)


def _text_encoder_item(d: _Draft) -> CheckItem:
    raw = d.request.text_encoder
    if raw is None:
        return _missing("text_encoder", "--text-encoder PATH", "the Gemma text encoder is required")

    def read() -> tuple[str, str | None]:
        d.step()
        te, warning = steps.read_text_encoder(d.request, d.ckpt)
        d.te = te
        if d.ckpt is None:
            return te.describe(), None
        if warning:  # usable, as ltx-core only warns: the item's warning, not just its summary
            return f"{te.describe()}; warning: {warning}", warning
        return f"{te.describe()}; matches the checkpoint", None

    return _item("text_encoder", raw, read)


def _vae_items(d: _Draft, audio_reason: str | None) -> list[CheckItem]:
    ckpt, items = d.ckpt, []
    split = ckpt is not None and ckpt.is_split_pack
    vaes: tuple[tuple[str, PathLike | None, Literal["video", "audio"], str], ...] = (
        ("video_vae", d.request.video_vae, "video", "--video-vae FILE"),
        ("audio_vae", d.request.audio_vae, "audio", "--audio-vae FILE"),
    )
    for name, raw, kind, flag in vaes:
        if raw is None:
            if split and (kind == "video" or audio_reason):
                why = "" if kind == "video" else f" ({audio_reason})"
                items.append(
                    _missing(
                        name,
                        flag,
                        f"checkpoint {ckpt.path} is a split pack, "  # type: ignore[union-attr]  # split: ckpt read
                        f"which needs it{why}",
                    )
                )
            continue
        note = "" if split or ckpt is None else " (the unified checkpoint already holds one)"

        def read(
            raw: PathLike = raw, kind: Literal["video", "audio"] = kind, note: str = note
        ) -> tuple[str, str | None]:
            return inspect_vae(raw, kind).describe() + note, None

        items.append(_item(name, raw, read))
    return items


def _checkout_item(d: _Draft) -> CheckItem:
    def read() -> tuple[str, str | None]:
        d.checkout = find_checkout(d.request.trainer_root, env=d.env)
        # e.g. uv missing: the launch starts with `uv run`
        return d.checkout.describe(), "; ".join(d.checkout.notes) or None

    return _item("trainer_root", d.request.trainer_root, read)


def _data_item(
    d: _Draft, base: tuple[str, str] | None, strategy: Mapping[str, Any] | None, option: str
) -> CheckItem:
    name = base[0] if base is not None else "t2v_lora.yaml"
    config = dict(load_yaml(base[1])) if base is not None else {}
    if strategy is not None or base is None:  # read as given, else as the shipped t2v configs
        config["training_strategy"] = strategy if strategy is not None else SHIPPED_T2V_STRATEGY
    models = {
        "checkpoint": d.request.checkpoint,
        "text_encoder": d.request.text_encoder,
        "video_vae": d.request.video_vae,
        "audio_vae": d.request.audio_vae,
    }

    some_silent = False

    def read() -> tuple[str, str | None]:
        nonlocal some_silent
        d.step()
        notes = steps.Notes()
        try:
            data, _, dataset = steps.inspect_data(
                d.request,
                name,
                config,
                notes,
                models,
                option=option,
                on_progress=d.on_progress,
                cancelled=d.cancel,
            )
        except ProbeCancelled:
            raise Cancelled from None
        d.data = data
        if dataset is not None:  # clips: what the trainer keeps of them
            some_silent = bool(dataset.report.silent_samples)
            warnings = list(notes.warnings)
            return "; ".join([dataset.report.describe(), *warnings]), "; ".join(warnings) or None
        video_only = " (video only)" if d.request.video_only else ""
        return data.describe() + video_only, "; ".join(notes.warnings) or None

    item = _item("data_root", d.request.data_root, read)
    # Some clips without sound under a recipe that trains audio: usable, and the warning advises
    # --video-only, so the screens offer it as they do for data with no sound at all.
    return item.model_copy(update={"video_only_data": True}) if item.ok and some_silent else item


def run_checks(
    checkpoint: PathLike | None = None,
    text_encoder: PathLike | None = None,
    video_vae: PathLike | None = None,
    audio_vae: PathLike | None = None,
    data_root: PathLike | None = None,
    trainer_root: PathLike | None = None,
    **options: Any,
) -> list[CheckItem]:
    """check_request over raw paths (a request built by the one adapter)."""
    extra: dict[str, Any] = {
        k: options.pop(k) for k in ("video_only", "recipe", "resolution_buckets") if k in options
    }
    request, problems = lenient_request(
        dict(
            checkpoint=checkpoint,
            text_encoder=text_encoder,
            video_vae=video_vae,
            audio_vae=audio_vae,
            data_root=data_root,
            trainer_root=trainer_root,
            **extra,
        )
    )
    return check_request(request, problems=problems, **options)


def all_ok(items: list[CheckItem]) -> bool:
    return all(item.ok for item in items)


def recipe_strategy(
    trainer_root: PathLike | None, recipe: str, *, env: Mapping[str, str] | None = None
) -> Mapping[str, Any]:
    """The `training_strategy` block of a named recipe of the checkout (`check --recipe`); an
    unknown recipe or a missing checkout is the user's to fix, so it raises."""
    from ltx_wizard.core.inputs.recipes import find_recipe

    checkout = find_checkout(trainer_root, env=env)
    return find_recipe(checkout.trainer_dir / "configs", recipe).strategy


def config_strategy(text: str) -> Mapping[str, Any] | None:
    return trainer_config(load_yaml(text)).training_strategy
