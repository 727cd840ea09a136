"""run-summary.md's evaluation section, from prompts.json: per category, each prompt with its seed
and the files made of it (with and without the LoRA, by which path). It lists; it judges nothing.
"""

from __future__ import annotations

from pathlib import Path

from ltx_wizard.core.evaluation.layout import PIPELINES, Render, eval_dir, read_manifest
from ltx_wizard.core.evaluation.prompts import CATEGORIES, HELD_OUT, TITLES


def _variant(render: Render) -> str:
    lora = "with the LoRA" if render.lora else "without the LoRA"
    size = render.size_label()
    made = f"{render.made_by} `{render.pipeline}`" if render.pipeline else render.made_by
    fed = f"; fed {render.conditioning}" if render.conditioning else ""
    return f"`{render.file}` ({lora}, {made}, {size}, {render.quantization}{fed})"


def _category(renders: list[Render]) -> list[str]:
    # grouped by the file's stem (`<category>/NN_<slug>`), not its text: two clips may share a caption
    by_prompt: dict[str, list[Render]] = {}
    for render in renders:
        by_prompt.setdefault(render.file.split(".")[0], []).append(render)
    lines = []
    for n, (_, made) in enumerate(sorted(by_prompt.items()), start=1):
        flat = " ".join(made[0].prompt.split()).replace("`", "'")
        lines.append(f'{n}. Seed {made[0].seed}: "{flat}"')
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
        count = len({r.file.split(".")[0] for r in renders})
        lines.append(f"### {TITLES[category]} ({count} prompt{'' if count == 1 else 's'})")
        lines += [""] + (_category(renders) if renders else skipped) + [""]
    others = [n for n in manifest.notes if not n.startswith("Held-out")]
    if others:
        lines += [f"- {n}" for n in others] + [""]
    return lines
