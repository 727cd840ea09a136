"""Does this Gemma belong with this checkpoint? ltx-core's own rule, case for case.

The rule mirrors ltx_core/text_encoders/gemma/encoders/encoder_configurator.py
`_check_gemma_version` (with `parse_model_version` from ltx_core/loader/helpers.py). Its inputs are
taken the way ltx-core takes them, because the rule compares values exactly:

* checkpoint metadata values are JSON-decoded when they parse and kept as raw text otherwise
  (ltx_core/loader/sft_loader.py `SafetensorsModelStateDictLoader.metadata`), so
  `gemma_source_checkpoint` is a dict and `model_version` "2.5.0" stays text;
* the Gemma side is the `gemma_version` and `model_type` of its config.json (or of the packed
  file's `gemma_config`) exactly as JSON gives them: "4", "4.0" and 4 are three different values.

Outcomes: ok, a warning where ltx-core only logs one (a 2.4.0+ checkpoint and a Gemma that both
declare nothing), or an error where it raises.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from ltx_wizard.core.base.text_safety import clip

# mirrors encoder_configurator.py _GEMMA_SOURCE_CHECKPOINT_REQUIRED_SINCE
REQUIRED_SINCE = (2, 4, 0)
# mirrors encoder_configurator.py get_gemma_ops: the model types ltx-core can build
SUPPORTED_MODEL_TYPES = ("gemma3", "gemma4", "gemma4_unified")


@dataclass(frozen=True)
class GemmaVerdict:
    level: Literal["ok", "warning", "error"]
    message: str = ""


def loader_value(raw: str | None) -> Any:
    """A metadata string as ltx-core's loader hands it on: JSON when it parses, else the text."""
    if raw is None:
        return None
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):  # a hostile, deeply nested value is just text here
        return raw


def parse_model_version(version: Any) -> tuple[int, ...] | None:
    """mirrors ltx_core/loader/helpers.py parse_model_version: leading integer parts only.

    None means ltx-core would crash on it (a JSON number such as 2.5 has no .split).
    """
    if not version:
        return ()
    if not isinstance(version, str):
        return None
    parts: list[int] = []
    for part in version.split("."):
        if not part.isdigit():
            break
        try:
            parts.append(int(part))
        except ValueError:  # 4,301+ digits, or a digit int() refuses ('²'): ltx-core raises too
            return None
    return tuple(parts)


def show(value: Any) -> str:
    """A JSON value as the user would read it; text plain, anything else with its type."""
    if value is None:
        return "none"
    if isinstance(value, str):
        return clip(value)
    kind = "a number" if isinstance(value, (int, float)) else type(value).__name__
    try:
        text = json.dumps(value)
    except (ValueError, RecursionError):  # a huge int, or a value nested past the limit
        text = type(value).__name__
    return f"{clip(text)} ({kind})"


def check_gemma_version(
    source: Any,
    model_version: Any,
    gemma_version: Any,
    model_type: Any,
    *,
    checkpoint: str,
    text_encoder: str,
) -> GemmaVerdict:
    """mirrors encoder_configurator.py _check_gemma_version, one branch per branch.

    `source`, `model_version`: the checkpoint's metadata values as loader_value() gives them;
    `gemma_version`, `model_type`: the Gemma config's values as JSON gives them (None if absent).
    """
    if source is not None:
        return _declared(source, gemma_version, model_type, checkpoint, text_encoder)

    parsed = parse_model_version(model_version)
    if parsed is None:
        return GemmaVerdict(
            "error",
            (
                f"checkpoint {checkpoint}: its model_version metadata is {show(model_version)}; "
                "ltx-core reads it as text and fails on a number: the file is damaged or hand-made"
            ),
        )
    if model_version is not None and parsed >= REQUIRED_SINCE:
        if gemma_version is None:
            return GemmaVerdict(
                "warning",
                (
                    f"checkpoint {checkpoint} (model_version {show(model_version)}) does not declare "
                    f"which Gemma it needs and text encoder {text_encoder} declares no gemma_version: "
                    "the trainer skips its version check here, so make sure this is the Gemma that "
                    "ships with the checkpoint"
                ),
            )
        return GemmaVerdict(
            "error",
            (
                f"checkpoint {checkpoint} has model_version {show(model_version)} but no "
                f"gemma_source_checkpoint.gemma_version, which ltx-core requires from 2.4.0 on, while "
                f"text encoder {text_encoder} declares gemma_version {show(gemma_version)}: the "
                "trainer refuses this pair; use a checkpoint that declares its Gemma"
            ),
        )

    if model_type != "gemma3":  # older checkpoints: only a Gemma 3 config is accepted
        return GemmaVerdict(
            "error",
            (
                f"Gemma version mismatch: checkpoint {checkpoint} declares no Gemma version (model_version"
                f" {show(model_version)}, a Gemma 3 era checkpoint), so ltx-core wants a config with "
                f"model_type gemma3, but text encoder {text_encoder} has model_type {show(model_type)}:"
                " use Gemma 3"
            ),
        )
    return GemmaVerdict("ok")


def _declared(
    source: Any, gemma_version: Any, model_type: Any, checkpoint: str, text_encoder: str
) -> GemmaVerdict:
    """The branch where the checkpoint names its Gemma (gemma_source_checkpoint)."""
    if not isinstance(source, dict):  # ltx-core would fail on .get(); say so plainly
        return GemmaVerdict(
            "error",
            (
                f"checkpoint {checkpoint}: its gemma_source_checkpoint metadata is {show(source)},"
                " not a JSON object: the file is damaged; download the checkpoint again"
            ),
        )
    expected = source.get("gemma_version")
    if expected != gemma_version:  # exact compare, as ltx-core does: no normalising
        return GemmaVerdict("error", _mismatch(expected, gemma_version, model_type, checkpoint, text_encoder))
    return GemmaVerdict("ok")


def _mismatch(expected: Any, found: Any, model_type: Any, checkpoint: str, text_encoder: str) -> str:
    head = (
        f"Gemma version mismatch: checkpoint {checkpoint} needs gemma_version {show(expected)},"
        f" text encoder {text_encoder} has {show(found)} (model_type {show(model_type)})"
    )
    if (
        found is None
        and isinstance(model_type, str)
        and isinstance(expected, str)
        and (model_type.removeprefix("gemma").split("_")[0] == expected)
    ):
        return (
            f"{head}: this is Google's vanilla Gemma {expected}, which declares no "
            f"gemma_version; the checkpoint needs the LTX fine-tuned Gemma {expected} root "
            "that ships with it"
        )
    if found is not None and expected is not None and str(found).strip() != str(expected).strip():
        return f"{head}: use the Gemma {show(expected)} text encoder that ships with this checkpoint"
    if found is not None and expected is not None:
        return (
            f"{head}: ltx-core compares the two values exactly (text vs number), so they "
            "differ; use the text encoder that ships with this checkpoint"
        )
    return f"{head}: use the Gemma text encoder that ships with this checkpoint"
