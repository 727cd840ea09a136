"""The prompts of the evaluation, in the skill's three categories (phases/post-train-validate.md).

- in-distribution: 3 captions of the clips the trainer trains on, drawn with seed 42 (a clip it
  leaves out, e.g. a silent one under an audio recipe, is no training caption);
- out-of-distribution: the user's own prompts verbatim, or three generic ones built around the
  trigger word (describing the sound when the run generates audio);
- held-out: `dataset/holdout.jsonl` (written by the prepare step), all of it up to 5 rows, else 5
  drawn with seed 42; without that file the category is skipped and says so, never invented.
Every prompt renders at seed 42. Captions get the trigger word in front, as the trainer's
preprocessing put it in front of every training caption (scripts/process_captions.py
`lora_trigger`), so the in-distribution prompts are the ones the LoRA saw.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence, TypeVar

from ltx_wizard.core.io.run_folder import DATASET_DIR
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.dataset.rows import MEDIA_ROLES, DatasetFile, read_dataset_file

Row = TypeVar("Row")

IN_DIST, OUT_DIST, HELD_OUT = "in-distribution", "out-of-distribution", "held-out"
CATEGORIES = (IN_DIST, OUT_DIST, HELD_OUT)
TITLES = {IN_DIST: "In-distribution", OUT_DIST: "Out-of-distribution", HELD_OUT: "Held-out"}
SEED = 42  # the skill's seed, for drawing the captions and for every render
IN_DIST_COUNT, HELD_OUT_MAX = 3, 5
HOLDOUT_REL = Path(DATASET_DIR.rel) / "holdout.jsonl"
DATASET_REL = Path(DATASET_DIR.rel) / "dataset.json"
_GENERIC_NOTE = "Out-of-distribution prompts are generic scenes"
HELD_OUT_SKIPPED = (
    "Held-out evaluation skipped: no held-out set was reserved for this run "
    "(no dataset/holdout.jsonl). The evaluation covers in- and "
    "out-of-distribution only."
)
# Generic scenes for the synthesised out-of-distribution prompts, with a sound for audio runs.
_SCENES = (
    (
        "walking through a forest at dawn, soft light between the trees",
        "birdsong and leaves rustling underfoot",
    ),
    (
        "in a busy city street at night, neon light on wet pavement",
        "traffic hum, footsteps and distant voices",
    ),
    ("on a beach at sunset, waves rolling in slowly", "waves breaking and a steady sea wind"),
)


@dataclass(frozen=True)
class EvalPrompt:
    category: str
    text: str
    source: str  # where it came from, in words (shown beside it)
    seed: int = SEED
    media: Mapping[str, str] = field(default_factory=dict)  # role -> file, for conditions


@dataclass(frozen=True)
class PromptSet:
    prompts: tuple[EvalPrompt, ...]
    notes: tuple[str, ...] = ()  # skipped categories and what the user should know

    def of(self, category: str) -> list[EvalPrompt]:
        return [p for p in self.prompts if p.category == category]


def _with_trigger(caption: str, trigger: str | None) -> str:
    # mirrors scripts/process_captions.py: f"{lora_trigger.strip()} " + caption
    return f"{trigger.strip()} {caption}" if trigger and trigger.strip() else caption


def _media(ds: DatasetFile, row: Mapping[str, str]) -> dict[str, str]:
    return {
        role: str(ds.media(row, role))
        for role in MEDIA_ROLES
        if role in ds.roles and str(row.get(ds.roles[role], "")).strip()
    }


def _captioned(ds: DatasetFile) -> list[Mapping[str, str]]:
    column = ds.roles.get("caption")
    if column is None:
        raise UsageError(
            f"dataset file {ds.path} has no caption column: the evaluation draws "
            "its in-distribution prompts from the training captions"
        )
    return [row for row in ds.rows if str(row.get(column, "")).strip()]


def _draw(rows: list[Row], count: int) -> list[Row]:
    """`count` rows drawn with the skill's seed, in the file's order; all of them when fewer."""
    if len(rows) <= count:
        return list(rows)
    picked = sorted(random.Random(SEED).sample(range(len(rows)), count))
    return [rows[i] for i in picked]


def _from_file(
    ds: DatasetFile, category: str, count: int, trigger: str | None, keep: frozenset[str] | None = None
) -> list[EvalPrompt]:
    """`keep`: the samples (.pt names) the trainer trains on; None keeps every captioned row."""
    rows = [r for r in _captioned(ds) if keep is None or ds.output_rel(r) in keep]
    numbered = {id(row): n for n, row in enumerate(ds.rows, start=1)}
    out = []
    for row in _draw(rows, count):
        caption = str(row[ds.roles["caption"]]).strip()
        out.append(
            EvalPrompt(
                category,
                _with_trigger(caption, trigger),
                f"{ds.path.name} row {numbered[id(row)]}",
                media=_media(ds, row),
            )
        )
    return out


def synthesised(trigger: str | None, audio: bool) -> list[str]:
    """The skill's "default": three generic scenes around the trigger word."""
    subject = trigger.strip() if trigger and trigger.strip() else "the subject"
    return [
        f"{subject} {scene}" + (f", with the sound of {sound}" if audio else "") for scene, sound in _SCENES
    ]


def out_of_distribution(
    user: Sequence[str],
    trigger: str | None,
    audio: bool,
    holdout: DatasetFile | None,
    media: Sequence[Mapping[str, str]] = (),
) -> tuple[list[EvalPrompt], list[str]]:
    """The user's prompts verbatim, else the synthesised ones; conditioning media, where the mode
    needs some, come from the held-out rows (the skill: keep the out-of-distribution test out of
    the training set), else from `media` (the training rows', when the run has no file of its
    own to condition on)."""
    rows = list(holdout.rows) if holdout is not None else []
    texts = [t.strip() for t in user if t.strip()]
    notes = []
    if texts:
        source = "your prompt"
        if audio and not any("sound" in t.lower() or "audio" in t.lower() for t in texts):
            notes.append(
                "This run generates audio and your out-of-distribution prompts do not "
                "describe the sound: the audio may come out weak without it."
            )
    else:
        texts, source = synthesised(trigger, audio), "synthesised (generic scene)"
        notes.append(
            _GENERIC_NOTE
            + (f" around the trigger word {trigger.strip()!r}" if trigger else "")
            + ": your own prompts (--prompt, or edit them here) make a stronger test."
        )
    given: list[Mapping[str, str]] = [_media(holdout, row) for row in rows] if holdout is not None else []
    given = given or list(media)
    prompts = [
        EvalPrompt(OUT_DIST, text, source, media=given[i % len(given)] if given else {})
        for i, text in enumerate(texts)
    ]
    return prompts, notes


@dataclass(frozen=True)
class Sources:
    """Where the prompts come from: the training dataset file, the held-out file, the trigger."""

    dataset: Path | None
    holdout: Path | None
    trigger: str | None
    # the samples (.pt names) the trainer trains on, from preprocess.json; None: not recorded
    trained: frozenset[str] | None = None


def find_sources(run_dir: Path, dataset: Path | None = None, trigger: str | None = None) -> Sources:
    """The run's dataset file: the one given, else the prepared `dataset/dataset.json`, else the
    one the plan preprocessed (preprocess.json); the trigger word likewise."""
    from ltx_wizard.core.preprocess.preprocess_state import read_state

    state = read_state(run_dir) if dataset is None or trigger is None else None
    if dataset is None:
        prepared = run_dir / DATASET_REL
        dataset = prepared if prepared.is_file() else (state.dataset_file if state else None)
    if trigger is None and state is not None:
        trigger = state.spec.lora_trigger
    holdout = run_dir / HOLDOUT_REL
    return Sources(dataset, holdout if holdout.is_file() else None, trigger, _trained(run_dir, dataset))


def _trained(run_dir: Path, dataset: Path | None) -> frozenset[str] | None:
    """The samples of `dataset` the trainer trains on, as preprocess.json records them: each
    kept row's sample less those without sound (no audio latents written), which the trainer
    leaves out of an audio recipe (datasets.py PrecomputedDataset._discover_samples keeps a
    sample only when every folder its strategy reads has its file); the plan records clips
    without sound only for such a recipe. None when the run did not preprocess this file."""
    from ltx_wizard.core.preprocess.preprocess_state import read_state

    state = read_state(run_dir)
    if state is None or dataset is None or Path(state.dataset_file).resolve() != Path(dataset).resolve():
        return None
    return frozenset(state.samples) - frozenset(state.silent)


def collect(
    sources: Sources, user: Sequence[str] = (), *, audio: bool = False, rows_for_ood: bool = False
) -> PromptSet:
    """The three categories. Raises UsageError when there is no training caption to draw from.
    `rows_for_ood`: the run has no conditioning file of its own, so out-of-distribution prompts
    without a held-out row take the in-distribution rows' inputs (a reference, a first frame)."""
    if sources.dataset is None:
        raise UsageError(
            "no training captions found for this run (no dataset/dataset.json, no "
            "dataset file in preprocess.json): pass the dataset file with --dataset"
        )
    ds = read_dataset_file(sources.dataset)
    holdout = read_dataset_file(sources.holdout) if sources.holdout is not None else None
    prompts = _from_file(ds, IN_DIST, IN_DIST_COUNT, sources.trigger, sources.trained)
    if not prompts and sources.trained is not None:
        raise UsageError(
            f"dataset file {ds.path}: none of its captioned clips is one the trainer trains on "
            "(preprocess.json): pass the training dataset file with --dataset"
        )
    rows = [p.media for p in prompts] if rows_for_ood else []
    ood, notes = out_of_distribution(user, sources.trigger, audio, holdout, rows)
    prompts += ood
    if holdout is None:
        notes.append(HELD_OUT_SKIPPED)
    else:
        prompts += _from_file(holdout, HELD_OUT, HELD_OUT_MAX, sources.trigger)
    return PromptSet(tuple(prompts), tuple(notes))


def edited(prompts: PromptSet, category: str, texts: Sequence[str]) -> PromptSet:
    """The set with one category's prompts replaced by the user's edit (blank lines dropped); the
    media of the n-th prompt stay with the n-th line."""
    old = prompts.of(category)
    new = [
        EvalPrompt(
            category,
            text.strip(),
            old[i].source if i < len(old) and old[i].text == text.strip() else "edited",
            media=old[i % len(old)].media if old else {},
        )
        for i, text in enumerate(t for t in texts if t.strip())
    ]
    kept = [p for p in prompts.prompts if p.category != category]
    order = {c: n for n, c in enumerate(CATEGORIES)}
    merged = sorted(kept + new, key=lambda p: order[p.category])  # stable: order within kept
    notes = prompts.notes
    if category == OUT_DIST and any(p.source == "edited" for p in new):
        notes = tuple(n for n in notes if not n.startswith(_GENERIC_NOTE))
    return PromptSet(tuple(merged), notes)
