"""The Results screen's words for its prompt list and its sheet, from the evaluation's manifest and
prompt set: one option per rendered prompt, the plan's lines before anything rendered, a sheet's
title and each keyframe strip's label."""

from __future__ import annotations

from textual.widgets.option_list import Option

from ltx_wizard.core.base.text_safety import clean_text
from ltx_wizard.core.evaluation.layout import Manifest, Render
from ltx_wizard.core.evaluation.prompts import CATEGORIES, TITLES, PromptSet
from ltx_wizard.tui.widgets.formatting import plain


def prompt_options(manifest: Manifest) -> list[Option]:
    """One option per prompt rendered, by category, its id the prompt (the sheet it opens)."""
    options = []
    for category in CATEGORIES:
        seen: list[str] = []
        for render in manifest.of(category):
            if render.prompt not in seen:
                seen.append(render.prompt)
                text = plain(f"{TITLES[category]} {len(seen)}: {render.prompt}")
                options.append(Option(text, id=render.prompt))
    return options


def plan_options(prompts: PromptSet, production_lines: list[str]) -> list[Option]:
    """Before anything rendered: the prompts the evaluation will render, and the plan's notes."""
    options = [
        Option(plain(f"{TITLES[category]} {n}: {prompt.text}  [{prompt.source}]"), disabled=True)
        for category in CATEGORIES
        for n, prompt in enumerate(prompts.of(category), start=1)
    ]
    lines = production_lines + [f"Note: {n}" for n in prompts.notes]
    return options + [Option(plain(line), disabled=True) for line in lines]


def sheet_title(renders: list[Render], prompt: str) -> str:
    """The sheet's head: the category, seed, size and source of its first render, and what
    ltx-pipelines was fed where it was."""
    first = renders[0]
    title = clean_text(
        f"{TITLES[first.category]}, seed {first.seed}, {first.size_label()} ({first.source}): {prompt}"
    )
    fed = next((r.conditioning for r in renders if r.conditioning), "")
    return title + (f"\nltx-pipelines fed {clean_text(fed)}" if fed else "")


def label(render: Render) -> str:
    lora = "LoRA" if render.lora else "no LoRA"
    made = render.made_by
    if render.pipeline:  # which entry point: ltx_pipelines.ic_lora -> ic_lora
        made += f" {render.pipeline.rpartition('.')[2]}"
    return clean_text(f"{lora} · {made} · {render.quantization}")
