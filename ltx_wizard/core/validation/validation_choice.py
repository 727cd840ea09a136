"""What config.yaml validates with: the user's media and prompts, prompts only, or nothing.

The recipe's shipped `validation.samples` say what each sample reads (validation_media.py). The
plan then writes one of three validations, each stated in plan.md:
- media: the user's files fill the samples' media slots in order (checked as the trainer will
  read them); samples left without media are dropped;
- prompts only: every sample's `conditions` removed, so validation generates from the prompts
  alone and reads no file;
- off: `validation.samples: []`, `validation.interval: null` and both `generate_*` false, so the
  trainer neither validates nor loads the text encoder or the decoders for it (trainer.py
  LtxvTrainer.train, validation_runner.py _cache_prompt_embeddings, _load_decoder_components).
The user's prompts, when given, replace the shipped ones. A shipped placeholder (`/path/to/`) never
survives into config.yaml.
"""

from __future__ import annotations

import copy
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Mapping, Sequence

from ltx_wizard.core.validation import patch as vp
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.base.text_safety import clean_text, clip
from ltx_wizard.core.inputs.model_paths import is_url
from ltx_wizard.core.io.bounded import path_length_problem
from ltx_wizard.core.validation.validation_media import (
    MediaSlot,
    check_medium,
    expected_reader,
    media_slots,
    slot_problems,
)
from ltx_wizard.core.io.trainer_config import trainer_config
from ltx_wizard.core.io.yaml_patch import YamlPatchError, load_yaml, patch_yaml_text

Mode = Literal["media", "prompts-only", "off"]
MEDIA_FLAG, PROMPT_FLAG = "--validation-media", "--validation-prompt"
PROMPTS_ONLY_FLAG, OFF_FLAG = "--no-validation-media", "--no-validation"


@dataclass
class ValidationPlan:
    text: str  # the config text with the validation written in
    mode: Mode
    notes: list[str] = field(default_factory=list)  # plan.md assumptions, in words
    warnings: list[str] = field(default_factory=list)


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def needs_media(config_text: str) -> list[MediaSlot]:
    """The media slots of a config's validation samples (empty: the recipe needs none)."""
    return media_slots(load_yaml(config_text))


def describe_slots(slots: Sequence[MediaSlot]) -> str:
    """`sample 1: image; sample 2: image` for messages and the Paths screen."""
    by_sample: dict[int, list[str]] = {}
    for slot in slots:
        by_sample.setdefault(slot.sample, []).append(slot.kind)
    return "; ".join(f"sample {i + 1}: {' + '.join(kinds)}" for i, kinds in by_sample.items())


def _fill(slots: list[MediaSlot], media: Sequence[Path], samples: list[dict[str, Any]]) -> int:
    """Write each medium into its slot (checked as the trainer reads it); the samples filled."""
    if len(media) > len(slots):
        raise UsageError(
            f"{MEDIA_FLAG} given {len(media)} times, but the recipe's validation "
            f"samples read only {len(slots)} files ({describe_slots(slots)})"
        )
    for slot, medium in zip(slots, media):
        require_local_medium(medium)
        path = str(Path(medium).expanduser().resolve())
        problem = check_medium(path, expected_reader(slot, path))
        if problem:
            raise UsageError(f"{MEDIA_FLAG} {medium}: {problem} (for {slot.where}: {slot.kind})")
        samples[slot.sample]["conditions"][slot.condition][slot.key] = path
    last = slots[len(media) - 1].sample
    partial = [s for s in slots[len(media) :] if s.sample == last]
    if partial:
        raise UsageError(
            f"{MEDIA_FLAG}: sample {last + 1} also needs a {partial[0].kind} "
            f"({describe_slots(slots)}): give it, or leave that sample's files out"
        )
    filled = last + 1
    return filled


# `https://x` after a trip through Path (which folds `//` into `/`): `https:/x`
_FOLDED_URL = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):/(?!/)(.+)$")


def require_local_medium(medium: str | os.PathLike[str]) -> None:
    """A URL or a path longer than the system takes: one line, echoing what was typed (a URL
    that became a Path on the way is given back its `//`)."""
    raw = os.fspath(medium)
    folded = _FOLDED_URL.match(raw) if isinstance(medium, os.PathLike) else None
    typed = f"{folded.group(1)}://{folded.group(2)}" if folded else raw
    if is_url(typed):
        raise UsageError(
            f"{MEDIA_FLAG} {clip(typed)!r} is a URL: validation reads local files "
            "only; download it first and pass the file's path"
        )
    problem = path_length_problem(raw)
    if problem:
        raise UsageError(f"{MEDIA_FLAG} {clip(raw, 60)!r}: {problem}: shorten it")


def require_text_prompts(prompts: Sequence[str]) -> None:
    """A prompt holding bytes that are not UTF-8 (argv gives them as lone surrogates) could not
    be written into config.yaml, which the trainer reads as UTF-8."""
    for number, prompt in enumerate(prompts, start=1):
        bad = next((c for c in prompt if "\ud800" <= c <= "\udfff"), None)
        if bad is not None:
            where = prompt.index(bad)
            raise UsageError(
                f"{PROMPT_FLAG} {number} holds a byte that is not UTF-8 text "
                f"(0x{ord(bad) & 0xFF:02x} after {clean_text(prompt[:where])[-30:]!r}"
                "): type it again as UTF-8 text"
            )


def _prompts(
    samples: list[dict[str, Any]], prompts: Sequence[str], conditioned: bool
) -> list[dict[str, Any]]:
    """The user's prompts replace the shipped ones; with conditions, one prompt per sample."""
    if not prompts:
        return samples
    if conditioned and len(prompts) != len(samples):
        raise UsageError(
            f"{PROMPT_FLAG} given {len(prompts)} times for {len(samples)} validation "
            f"sample(s) with media: give one prompt per sample, or none to keep the "
            "shipped prompts"
        )
    out = [dict(s, prompt=p) for s, p in zip(samples, prompts)]
    return out + [{"prompt": p} for p in prompts[len(samples) :]]


def target_samples(
    shipped: list[dict[str, Any]],
    slots: list[MediaSlot],
    media: Sequence[Path],
    prompts: Sequence[str],
    mode: Mode,
) -> list[dict[str, Any]]:
    """The samples config.yaml will hold."""
    samples = copy.deepcopy(shipped)
    if mode == "off":
        return []
    if mode == "media" and slots and media:
        samples = samples[: _fill(slots, media, samples)]
    elif slots and mode == "prompts-only":
        for sample in samples:
            sample.pop("conditions", None)
    return _prompts(samples, prompts, conditioned=mode == "media" and bool(slots))


def _splice(text: str, shipped: list[dict[str, Any]], target: list[dict[str, Any]]) -> str:
    """`text` with `validation.samples` = target, spliced so the shipped comments stay."""
    base = ("validation", "samples")
    kept = min(len(shipped), len(target))
    if kept:
        text = vp.keep_items(text, base, kept)
    for i in range(kept):
        old, new = shipped[i], target[i]
        if "conditions" in old and "conditions" not in new:
            text = vp.remove_key(text, (*base, i, "conditions"))
        for j, cond in enumerate(new.get("conditions") or []):
            for key, value in cond.items():
                if value != old["conditions"][j].get(key):
                    text = vp.set_string(text, (*base, i, "conditions", j, key), value)
        if new.get("prompt") != old.get("prompt"):
            text = vp.set_string(text, (*base, i, "prompt"), new["prompt"])
    if len(target) > kept:
        text = vp.append_prompts(text, base, [s["prompt"] for s in target[kept:]])
    return text


def write_samples(text: str, shipped: list[dict[str, Any]], target: list[dict[str, Any]]) -> str:
    if target == shipped:
        return text
    try:
        if target and shipped:
            spliced = _splice(text, shipped, target)
            if vp.checked(text, spliced, target):
                return spliced
    except YamlPatchError:
        pass  # a shape the splices do not know: the flow-style list below is always right
    return vp.flow_samples(text, target)


def _mode(
    slots: list[MediaSlot], media: Sequence[Path], prompts: Sequence[str], mode: Mode | None, shipped_ok: bool
) -> Mode:
    if mode == "off" and (media or prompts):
        raise UsageError(f"{OFF_FLAG} turns validation off: drop {MEDIA_FLAG} and {PROMPT_FLAG}")
    if media and mode == "prompts-only":
        raise UsageError(f"{PROMPTS_ONLY_FLAG} validates without media: drop {MEDIA_FLAG}")
    if media and not slots:
        raise UsageError(
            f"{MEDIA_FLAG}: this recipe's validation samples read no media (they are prompts only): drop it"
        )
    if mode == "media" and slots and not media and not shipped_ok:
        raise UsageError(f"validation with media needs {MEDIA_FLAG} FILE ({describe_slots(slots)})")
    if mode is not None:
        return mode
    # shipped files the trainer can read (a config the user filled in) are kept as they are
    return "media" if media or not slots or shipped_ok else "prompts-only"


def plan_validation(
    text: str,
    media: Sequence[Path] = (),
    prompts: Sequence[str] = (),
    mode: Mode | None = None,
    recipe: str = "the recipe",
    offered: Sequence[Path] = (),
) -> ValidationPlan:
    """Write the chosen validation into `text` (a config), with what plan.md says about it."""
    require_text_prompts(prompts)
    data = load_yaml(text)
    slots = media_slots(data)
    chosen = _mode(slots, media, prompts, mode, not slot_problems(data))
    shipped = _plain(trainer_config(data).validation.samples or [])
    target = target_samples(shipped, slots, media, prompts, chosen)
    out = ValidationPlan(write_samples(text, shipped, target), chosen)
    if chosen == "off":
        # validation_runner.py ValidationRunner.__init__ loads the VAE decoder (generate_video)
        # and the audio decoder and vocoder (generate_audio) whether or not there are samples;
        # config.py validate_output_modality_requirements allows both off without samples
        out.text = patch_yaml_text(
            out.text,
            {
                "validation.interval": None,
                "validation.generate_video": False,
                "validation.generate_audio": False,
            },
        )
        # the deprecated list would become samples again (config.py convert_legacy_format)
        out.text = vp.set_list(out.text, "validation.prompts", [], only_if_set=True)
        out.notes.append(
            f"Validation off ({OFF_FLAG}): `validation.samples: []`, "
            "`validation.interval: null`, and `generate_video: false`, "
            "`generate_audio: false`, so no validation videos are made, no "
            "validation media are read, and the trainer loads neither the video "
            "decoder nor the audio decoder and vocoder for it."
        )
    else:
        _describe(out, slots, target, media, prompts, mode, recipe, offered)
    left = slot_problems(load_yaml(out.text))
    assert not left, f"a validation medium the trainer cannot read reached config.yaml: {left[0]}"
    return out


def _describe(
    out: ValidationPlan,
    slots: list[MediaSlot],
    target: list[dict[str, Any]],
    media: Sequence[Path],
    prompts: Sequence[str],
    asked: Mode | None,
    recipe: str,
    offered: Sequence[Path],
) -> None:
    count = f"{len(target)} validation sample{'s' if len(target) != 1 else ''}"
    said = "your prompts" if prompts else "the shipped prompts"
    if out.mode == "media" and slots:
        files = f"your media ({len(media)} file(s)" if media else "the config's own media (all"
        out.notes.append(f"Validation: {count} with {files}, checked as the trainer reads them) and {said}.")
        dropped = len({s.sample for s in slots}) - len(target)
        if dropped > 0:
            out.notes.append(f"{dropped} shipped validation sample(s) had no media given and were left out.")
    elif slots:
        out.notes.append(
            f"Validation without conditioning media: {count} from {said} only "
            f"(each sample's `conditions` removed; {recipe} ships "
            f"{describe_slots(slots)})."
        )
        if asked is None:
            out.warnings.append(
                f"no validation media given: {recipe}'s samples read files ({describe_slots(slots)}) "
                f"so validation runs on the prompts only; pass {MEDIA_FLAG} FILE for each, or "
                f"{OFF_FLAG} to turn validation off"
                + (
                    f" (the dataset file beside the data root names {', '.join(map(str, offered[:3]))}"
                    f"{' ...' if len(offered) > 3 else ''})"
                    if offered
                    else ""
                )
            )
    else:
        out.notes.append(f"Validation: {count} from {said} (this recipe's samples read no media).")
