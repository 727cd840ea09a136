"""What does the user want the model to learn? The skill's Phase 1, as data: one question in plain
words, its answers (the rows of the trainer team's mode selector,
.claude/skills/train-model/references/mode-selector.md "Decision Table"), the one follow-up where an
answer is ambiguous ("Disambiguation Questions"), and the shipped config each answer maps to.

A plain concept or style LoRA asks how the result will be used (SKILL.md Phase 1): text alone,
from a starting image, or both / not sure; both and the image map to i2v_lora, whose first-frame
condition with probability 0.5 trains image-to-video and text-to-video in one run.
Words typed in the user's own phrasing are matched to an answer by keywords; no match is said so,
never turned into the nearest recipe (the skill's Escape Hatch).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

QUESTION = "What do you want the model to learn?"


@dataclass(frozen=True)
class Choice:
    key: str
    label: str  # the answer as the user reads it
    recipe: str | None = None  # None: the follow-up decides
    follow_up: str | None = None  # the key of FOLLOW_UPS
    video_only: bool = False


@dataclass(frozen=True)
class FollowUp:
    question: str
    choices: tuple[Choice, ...]  # the first is the default


ANSWERS = (
    Choice(
        "concept",
        'A LoRA of a specific style, character or concept ("train a LoRA on my cat")',
        follow_up="usage",
    ),
    Choice("t2v", "Generate videos from text", follow_up="t2v_audio"),
    Choice("i2v", "Generate videos from a starting image", "i2v_lora"),
    Choice("extend", "Extend a video in time", follow_up="extend"),
    Choice("inpaint", "Fill in masked regions", follow_up="inpaint"),
    Choice("outpaint", "Expand a video beyond its borders (outpainting)", "video_outpainting_lora"),
    Choice(
        "reference",
        "Control with a reference (depth, pose, edges, style transfer: IC-LoRA)",
        follow_up="reference",
    ),
    Choice("v2a", "Add sound to a silent video (foley)", "v2a_lora"),
    Choice("a2v", "Generate video to match an audio track", "a2v_lora"),
    Choice("t2a", "Generate audio from text", "t2a_lora"),
    Choice("audio_extend", "Extend audio in time", follow_up="audio_extend"),
)

FOLLOW_UPS = {
    "usage": FollowUp(
        "Will you generate from text alone, from a starting image, or both?",
        (
            Choice("both", "Both / not sure (learns both in one run)", "i2v_lora"),
            Choice("image", "From a starting image", "i2v_lora"),
            Choice("text", "From text alone", "t2v_lora"),
        ),
    ),
    "t2v_audio": FollowUp(
        "Video with its sound, or video only?",
        (
            Choice("av", "Video and sound together", "t2v_lora"),
            Choice("video", "Video only (no sound)", "t2v_lora", video_only=True),
        ),
    ),
    "extend": FollowUp(
        "Forward or backward in time?",
        (
            Choice("forward", "Forward (continue after the end)", "video_extend_lora"),
            Choice("backward", "Backward (lead up to the start)", "video_suffix_lora"),
        ),
    ),
    "inpaint": FollowUp(
        "Regions of the video (masked frames) or of the audio (masked time)?",
        (
            Choice("video", "Video regions", "video_inpainting_lora"),
            Choice("audio", "Audio regions", "audio_inpainting_lora"),
        ),
    ),
    "reference": FollowUp(
        "A video reference, an audio reference, or both together?",
        (
            Choice("video", "A video reference (depth, pose, edges, a styled video)", "v2v_ic_lora"),
            Choice("audio", "An audio reference", "a2a_ic_lora"),
            Choice("both", "Video and audio together", "av2av_ic_lora"),
        ),
    ),
    "audio_extend": FollowUp(
        "Forward or backward in time?",
        (
            Choice("forward", "Forward", "audio_extend_lora"),
            Choice("backward", "Backward", "audio_suffix_lora"),
        ),
    ),
}

# How each recipe is named back to the user when the mode is stated for confirmation.
MODE_NAMES = {
    "t2v_lora": "a text-to-video (T2V) LoRA",
    "i2v_lora": "an image-to-video (I2V) LoRA, usable for both image-to-video and text-to-video",
    "video_extend_lora": "a video-extension LoRA (forward in time)",
    "video_suffix_lora": "a video-extension LoRA (backward in time)",
    "video_inpainting_lora": "a video-inpainting LoRA",
    "audio_inpainting_lora": "an audio-inpainting LoRA",
    "video_outpainting_lora": "a video-outpainting LoRA",
    "v2v_ic_lora": "a video-to-video IC-LoRA (video reference)",
    "a2a_ic_lora": "an audio-to-audio IC-LoRA (audio reference)",
    "av2av_ic_lora": "an audio+video IC-LoRA (reference for both)",
    "v2a_lora": "a video-to-audio (foley) LoRA",
    "a2v_lora": "an audio-to-video LoRA",
    "t2a_lora": "a text-to-audio LoRA",
    "audio_extend_lora": "an audio-extension LoRA (forward in time)",
    "audio_suffix_lora": "an audio-extension LoRA (backward in time)",
}

# Words of the user's own phrasing -> an answer key; the first rule that matches wins.
_RULES = (
    ("outpaint", r"outpaint|beyond (its|the) (border|edge|frame)|expand"),
    ("inpaint", r"inpaint|mask|fill in|remove (an |the )?object"),
    ("reference", r"reference|ic-?lora|depth|pose|canny|edge|control|style transfer"),
    ("v2a", r"foley|sound effects?|add (sound|audio)|silent video|v2a|video.to.audio"),
    ("a2v", r"match (an |the )?audio|audio.to.video|a2v|music video|lip.?sync"),
    ("audio_extend", r"extend (the )?audio|continue (the )?audio"),
    ("t2a", r"text.to.audio|t2a|generate (audio|sound|speech|music)"),
    ("extend", r"extend|continue|longer|prefix|suffix|backward|forward in time"),
    ("i2v", r"starting image|from an? (image|picture|photo)|image.to.video|i2v|animate"),
    ("t2v", r"text.to.video|t2v|from (a )?text|from prompts?"),
    ("concept", r"lora|style|character|concept|person|face|product|my (cat|dog)|look of|like"),
)


def match_answer(text: str) -> Choice | None:
    """The answer the user's own words name, or None (then they pick one from the list)."""
    low = " ".join(text.lower().split())
    if not low:
        return None
    for key, pattern in _RULES:
        if re.search(pattern, low):
            return next(c for c in ANSWERS if c.key == key)
    return None


def follow_up(choice: Choice) -> FollowUp | None:
    return FOLLOW_UPS.get(choice.follow_up) if choice.follow_up else None


def statement(recipe: str, video_only: bool = False) -> str:
    """The mode stated back for confirmation (SKILL.md Phase 1, "Confirm the mode")."""
    name = MODE_NAMES.get(recipe, recipe)
    only = ", video only (no sound)" if video_only else ""
    return f"I'll train {name}{only}, from the trainer's configs/{recipe}.yaml."


def missing_recipe(recipe: str, offered: list[str]) -> str | None:
    """Said when the checkout ships no such config (never replaced by a near one)."""
    if not offered or recipe in offered:
        return None
    return (
        f"your checkout has no configs/{recipe}.yaml (it ships {len(offered)} configs): "
        "update it (git pull), or pick another recipe on the next screen"
    )
