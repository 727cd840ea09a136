"""The evaluation's files: `outputs/eval/<category>/NN_<slug>[variant].<ext>` and `prompts.json`.

The trainer names a validation render `samples/step_NNNNNN_<index>.<ext>` (index from 1, in
`validation.samples` order; png for one frame, wav without video: ltx_trainer/validation_runner.py
ValidationRunner.run), so the prompt is not in the name: each render is mapped back by its index.
Renders are moved (never copied) into the category folders, then the validate-only run's cruft is
removed (`samples/`, the forced final `checkpoints/`, `training_config.yaml`). One manifest,
`prompts.json`, says for every file its prompt, category, seed, whether the LoRA was on, which
path made it (and which entry point), what it was conditioned on and the quantization it ran
under. The production renders' first frames are written to `inputs/` (render_conditioning.py). Nothing is written outside `outputs/eval`, and no
link is followed.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from ltx_wizard.core.evaluation.eval_config import EVAL_OUTPUT_REL
from ltx_wizard.core.evaluation.prompts import CATEGORIES, EvalPrompt
from ltx_wizard.core.io import run_folder
from ltx_wizard.core.io.run_codec import declare
from ltx_wizard.core.io.safe_fs import check_inside

MANIFEST = run_folder.EVAL_MANIFEST.name
TRAINER, PIPELINES = "trainer validation", "ltx-pipelines"
# the file name's variant, per (path, LoRA on)
_VARIANT = {
    (TRAINER, True): "",
    (TRAINER, False): ".base",
    (PIPELINES, True): ".pipelines",
    (PIPELINES, False): ".pipelines-base",
}
CRUFT = ("samples", "checkpoints", "training_config.yaml")
INPUTS = "inputs"  # the first frames fed to ltx-pipelines (render_conditioning.py)
_SAMPLE = re.compile(r"step_(\d{6})_(\d+)\.(mp4|png|wav)")


def eval_dir(run_dir: Path) -> Path:
    return Path(run_dir) / EVAL_OUTPUT_REL


def slug(text: str, limit: int = 40) -> str:
    """`A cat, on a sofa!` -> `a-cat-on-a-sofa`: lower case, letters and digits joined by '-'."""
    words = re.findall(r"[a-z0-9]+", text.lower())
    out = ""
    for word in words:
        if len(out) + len(word) + 1 > limit:
            break
        out = f"{out}-{word}" if out else word
    return out or "prompt"


def stems(prompts: Sequence[EvalPrompt]) -> list[str]:
    """`<category>/NN_<slug>` per prompt, numbered from 01 within its category."""
    counts: dict[str, int] = {}
    out = []
    for prompt in prompts:
        counts[prompt.category] = counts.get(prompt.category, 0) + 1
        out.append(f"{prompt.category}/{counts[prompt.category]:02d}_{slug(prompt.text)}")
    return out


def file_name(stem: str, path: str, lora: bool, ext: str) -> str:
    return f"{stem}{_VARIANT[(path, lora)]}.{ext}"


@dataclass(frozen=True)
class Render:
    file: str  # relative to outputs/eval
    category: str
    prompt: str
    seed: int
    lora: bool
    made_by: str  # TRAINER or PIPELINES
    quantization: str  # in words: "int8-quanto (the training stack)", "none (bf16)", ...
    video_dims: tuple[int, int, int]  # the file's own width, height, frames (file_dims)
    source: str = ""
    pipeline: str = ""  # the entry point that made it, e.g. ltx_pipelines.ic_lora
    conditioning: str = ""  # what it was fed besides the prompt, in words
    asked_dims: tuple[int, int, int] | None = None  # the size asked for, where the file differs

    def size_label(self) -> str:
        """The file's size as read from it, and what was asked where that differs."""
        if self.file.endswith(".wav"):
            return "sound only"
        size = "x".join(map(str, self.video_dims))
        asked = f" (asked for {'x'.join(map(str, self.asked_dims))})" if self.asked_dims else ""
        return size + asked


Dims = tuple[int, int, int]


def file_dims(path: Path, asked: Dims) -> tuple[Dims, Dims | None]:
    """(the file's width, height and frames, the asked size where it differs), read from the
    file as the trainer reads clips (core/dataset/clip_probe.py); the asked size alone where the
    file cannot be read (no picture, no reader)."""
    from ltx_wizard.core.dataset.clip_probe import probe_clip

    asked = (int(asked[0]), int(asked[1]), int(asked[2]))
    facts = probe_clip(path)
    if not facts.readable or not (facts.width and facts.height and facts.frames):
        return asked, None
    found = (facts.width, facts.height, facts.frames)
    return found, (None if found == asked else asked)


@dataclass
class Manifest:
    checkpoint: str
    renders: dict[str, Render] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> str:
        return MANIFEST_FILE.encode(self)

    def of(self, category: str) -> list[Render]:
        return [r for r in self.renders.values() if r.category == category]


def _named(doc: dict[str, Any]) -> dict[str, Any]:
    """A manifest written before each render carried its own name: the name is its key."""
    renders = doc.get("renders")
    if isinstance(renders, dict):
        for name, entry in renders.items():
            if isinstance(entry, dict):
                entry.setdefault("file", name)
    return doc


MANIFEST_FILE = declare(run_folder.EVAL_MANIFEST, Manifest, upgrade=_named)


def read_manifest(run_dir: Path) -> Manifest | None:
    """prompts.json as written; None when absent or not one of ours."""
    return MANIFEST_FILE.quietly(run_dir)


def write_manifest(run_dir: Path, manifest: Manifest) -> Path:
    return MANIFEST_FILE.write(run_dir, manifest)


def trainer_samples(run_dir: Path, step: int = 0, *, out_dir: Path | None = None) -> dict[int, Path]:
    """The trainer's renders of `step`, by sample index (from 0, as in validation.samples), in
    the validate-only run's output_dir (`out_dir`, else outputs/eval)."""
    folder = (out_dir or eval_dir(run_dir)) / "samples"
    found: dict[int, Path] = {}
    if folder.is_symlink() or not folder.is_dir():
        return found
    for entry in os.scandir(folder):
        match = _SAMPLE.fullmatch(entry.name)
        if match and int(match.group(1)) == step and entry.is_file(follow_symlinks=False):
            found[int(match.group(2)) - 1] = Path(entry.path)
    return found


def move_render(run_dir: Path, source: Path, name: str) -> Path:
    """Move one render to `outputs/eval/<name>` (same file system: a rename)."""
    target = check_inside(Path(run_dir), eval_dir(run_dir) / name)
    os.replace(source, target)
    return target


def remove_cruft(run_dir: Path, out_dir: Path | None = None) -> list[str]:
    """Delete what the validate-only run leaves besides the renders in its output_dir (`out_dir`,
    else outputs/eval); returns what went. A link is removed itself, never followed."""
    removed = []
    for name in CRUFT:
        path = (out_dir or eval_dir(run_dir)) / name
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            continue
        if stat.S_ISDIR(mode):
            shutil.rmtree(path)
        else:
            os.unlink(path)
        removed.append(name)
    return removed


def clear_inputs(run_dir: Path) -> None:
    """The first frames an earlier evaluation wrote go (a link is removed, never followed)."""
    path = eval_dir(run_dir) / INPUTS
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if stat.S_ISDIR(mode):
        shutil.rmtree(path)
    else:
        os.unlink(path)


def clear_category_files(run_dir: Path, made_by: str) -> None:
    """Before a new evaluation: the renders an earlier one left by the same path go, so the
    folders hold only what the manifest lists."""
    variants = [v for (path, _lora), v in _VARIANT.items() if path == made_by]
    for category in CATEGORIES:
        folder = eval_dir(run_dir) / category
        if folder.is_symlink() or not folder.is_dir():
            continue
        for entry in os.scandir(folder):
            stem = entry.name.rsplit(".", 1)[0]
            variant = "." + stem.split(".", 1)[1] if "." in stem else ""
            if variant in variants and entry.is_file(follow_symlinks=False):
                os.unlink(entry.path)
