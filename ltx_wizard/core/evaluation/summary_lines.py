"""run-summary.md's evaluation section, from prompts.json: per category, each prompt with its seed
and the files made of it (with and without the LoRA, by which path). It lists; it judges nothing.
"""

from __future__ import annotations

from pathlib import Path

from ltx_wizard.core.evaluation.layout import PIPELINES, Render, eval_dir, read_manifest
from ltx_wizard.core.evaluation.prompts import CATEGORIES, HELD_OUT, TITLES


def _variant(render: Render) -> str:
    lora = "with the LoRA" if render.lora else "without the LoRA"
    size = "x".join(map(str, render.video_dims))
    made = f"{render.made_by} `{render.pipeline}`" if render.pipeline else render.made_by
    fed = f"; fed {render.conditioning}" if render.conditioning else ""
    return f"`{render.file}` ({lora}, {made}, {size}, {render.quantization}{fed})"


def _category(renders: list[Render]) -> list[str]:
    by_prompt: dict[tuple[str, int], list[Render]] = {}
    for render in renders:
        by_prompt.setdefault((render.prompt, render.seed), []).append(render)
    lines = []
    for n, ((prompt, seed), made) in enumerate(by_prompt.items(), start=1):
        flat = " ".join(prompt.split()).replace("`", "'")
        lines.append(f'{n}. Seed {seed}: "{flat}"')
        made.sort(key=lambda r: (r.made_by == PIPELINES, not r.lora))
        lines += [f"   - {_variant(r)}" for r in made]
    return lines


def evaluation_lines(run_dir: Path) -> list[str]:
    """The section's lines; none when the run was never evaluated."""
    manifest = read_manifest(run_dir)
    if manifest is None:
        return []
    lines = [
        "## Post-training evaluation",
        "",
        f"Checkpoint: {manifest.checkpoint}. Files in `{eval_dir(run_dir)}`; "
        "`prompts.json` there maps each file to its prompt.",
        "",
    ]
    for category in CATEGORIES:
        renders = manifest.of(category)
        skipped = [n for n in manifest.notes if category == HELD_OUT and n.startswith("Held-out")]
        if not renders and not skipped:
            continue
        lines.append(f"### {TITLES[category]} ({len({r.prompt for r in renders})} prompts)")
        lines += [""] + (_category(renders) if renders else skipped) + [""]
    others = [n for n in manifest.notes if not n.startswith("Held-out")]
    if others:
        lines += [f"- {n}" for n in others] + [""]
    return lines
