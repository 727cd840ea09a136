"""The held-out set the skill keeps aside for the post-training evaluation (phases/
prepare-dataset.md, Step 5): never seen in training, written to `dataset/holdout.jsonl` (one
JSON object per line, the same columns as dataset.json) and removed from dataset.json.

A set the user supplied is used as it is. Otherwise about 10 % is reserved, at least one and at
most MAX_AUTO (a handful is enough to judge generalisation); a dataset of tens of samples is the
user's call (reserve 1-2, or skip), asked, never decided for them. The pick is seeded (42) so a
rerun holds out the same samples, and takes samples whose source video gave no other sample first
(a scene of a video whose other scenes train is not unseen footage); where it must take such a
scene, the held-out line and prepare.json say so.
"""

from __future__ import annotations

import random
from collections import Counter

from ltx_wizard.core.base.arguments import count_or_path
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.base.records import record

SEED = 42
FRACTION = 0.10
MAX_AUTO = 10
SMALL = 50  # fewer samples: ask (the skill: "tens of samples or fewer")
HOLDOUT_FILE = "holdout.jsonl"
MAX_HOLDOUT = 1_000_000


@record
class HoldoutPlan:
    count: int  # samples to hold out (0: none)
    why: str


def parse_holdout(text: str | None) -> int | str | None:
    """--holdout: a count (0 skips), or a file/folder of your own held-out samples."""
    if text is None:
        return None
    stripped = count_or_path(text, "--holdout", most=MAX_HOLDOUT).strip()
    if stripped.isdigit():  # ASCII digits under the bound, once count_or_path let it through
        return int(stripped)
    if not stripped:
        raise UsageError("--holdout: give a count (0 skips) or your held-out file or folder")
    return stripped


def plan_holdout(total: int, asked: int | None) -> HoldoutPlan | None:
    """How many to hold out of `total` samples; None: a small set, so the user must choose."""
    if asked is not None:
        if asked >= total:
            raise UsageError(
                f"--holdout {asked}: the dataset has {total} samples; at least one must be left to train on"
            )
        return HoldoutPlan(count=asked, why="as asked" if asked else "skipped, as asked")
    if total < 2:
        return HoldoutPlan(count=0, why=f"skipped: {total} sample cannot spare one")
    if total < SMALL:
        return None
    count = min(max(1, round(total * FRACTION)), MAX_AUTO)
    return HoldoutPlan(count=count, why=f"about {FRACTION:.0%} of {total}, at most {MAX_AUTO}, seed {SEED}")


def small_question(total: int) -> str:
    return (
        f"The dataset has {total} samples. Reserving a holdout meaningfully reduces what is "
        "left to train on. Reserve 1 or 2 for the post-training evaluation, or skip it (the "
        "evaluation then only renders in-distribution prompts)?"
    )


def pick(ids: list[str], count: int, sources: dict[str, str] | None = None) -> list[str]:
    """`count` ids chosen with seed 42, in dataset order. `sources`: a scene's source video
    (scene -> the clip it was split from). A held-out sample is meant to be footage the model
    never saw, so samples that share no source with another are taken first; scenes only when
    there are too few of those (shared_sources says which, and with how many)."""
    if count <= 0:
        return []
    rng = random.Random(SEED)
    share = Counter((sources or {}).get(i, i) for i in ids)
    alone = [k for k, i in enumerate(ids) if share[(sources or {}).get(i, i)] == 1]
    if len(alone) == len(ids):  # nothing split: the same pick as ever
        chosen = set(rng.sample(range(len(ids)), count))
    elif len(alone) >= count:
        chosen = {alone[k] for k in rng.sample(range(len(alone)), count)}
    else:
        rest = [k for k in range(len(ids)) if k not in set(alone)]
        chosen = set(alone) | {rest[k] for k in rng.sample(range(len(rest)), count - len(alone))}
    return [ids[i] for i in sorted(chosen)]


def shared_sources(held: list[str], train: list[str], sources: dict[str, str]) -> list[dict[str, object]]:
    """Each held-out scene whose source video also gave training samples: the record's
    `held_out_shared_source` entries (sample, source, how many training samples share it)."""
    out: list[dict[str, object]] = []
    for sample in held:
        source = sources.get(sample)
        same = sum(sources.get(t) == source for t in train) if source else 0
        if same:
            out.append({"sample": sample, "source": source, "training_samples": same})
    return out


def shared_note(shared: list[dict[str, object]]) -> str:
    """What the held-out line adds, read from the record's `held_out_shared_source`."""
    said = "; ".join(
        f"{s['sample']} is a scene of {s['source']}, as {s['training_samples']} training sample(s) are"
        for s in shared
    )
    return f" Not unseen footage: {said} (no held-out choice from other source videos was left)."


def skip_note() -> str:
    return (
        "Skipping holdout: the post-training evaluation will only render in-distribution "
        "prompts; true generalisation is not testable for this run."
    )
