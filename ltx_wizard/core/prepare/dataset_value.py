"""The prepare flow's state as one frozen value: the staged layout, the dataset's rows (typed), and
what each stage found (clip facts, scene splits, upright copies, caption failures, the audio
check). Each stage takes a `PrepData` and returns a new one (dataclasses.replace); none changes
the value it was given, so a stage can be read, tested and rerun alone.
"""

from __future__ import annotations

from dataclasses import field, replace
from pathlib import Path
from typing import Mapping

from ltx_wizard.core.base.records import record
from ltx_wizard.core.dataset.clip_facts import ClipFacts
from ltx_wizard.core.prepare.audio_env import AudioDecode
from ltx_wizard.core.prepare.staging import Staged


@record
class Row:
    """One dataset row: its clip, its caption and the other columns (references, masks, ...)."""

    video: str  # the clip, relative to dataset/ (the video column's value)
    caption: str | None = None  # None: the row has no caption column at all
    others: tuple[tuple[str, str], ...] = ()  # the other columns, (name, value), in order

    @property
    def captioned(self) -> bool:
        return bool((self.caption or "").strip())

    def get(self, column: str, default: str = "") -> str:
        return dict(self.others).get(column, default)

    def as_dict(self, video_column: str, caption_column: str) -> dict[str, str]:
        """As the trainer's dataset file holds it (column -> value)."""
        out = {video_column: self.video}
        if self.caption is not None:
            out[caption_column] = self.caption
        return {**out, **dict(self.others)}


def row_of(values: Mapping[str, str], video_column: str, caption_column: str) -> Row:
    """A dataset file's row (column -> value) as a typed row."""
    caption = values.get(caption_column)
    return Row(
        video=values[video_column],
        caption=None if caption is None else str(caption),
        others=tuple((k, str(v)) for k, v in values.items() if k not in (video_column, caption_column)),
    )


@record
class PrepData:
    staged: Staged  # what was linked from where, and the columns' roles (its rows are `rows`)
    rows: tuple[Row, ...]  # the training rows, in dataset order
    supplied: tuple[Row, ...] = ()  # your own held-out rows (--holdout FILE), under dataset/holdout/
    facts: Mapping[str, ClipFacts] = field(default_factory=dict)  # clip -> what the audit read of it
    rotated: Mapping[str, str] = field(default_factory=dict)  # clip -> its upright copy
    # clip -> the scenes it was split into
    split_from: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    failed: tuple[tuple[str, str], ...] = ()  # (clip, why) of the clips the captioner failed on
    audio_check: AudioDecode | None = None

    @property
    def video_column(self) -> str:
        return self.staged.video_column

    @property
    def caption_column(self) -> str:
        return self.staged.caption_column

    def clips(self, dataset_dir: Path) -> dict[str, Path]:
        return {r.video: dataset_dir / r.video for r in self.rows}

    def dicts(self, rows: tuple[Row, ...] | list[Row]) -> list[dict[str, str]]:
        return [r.as_dict(self.video_column, self.caption_column) for r in rows]

    def with_captions(self, captions: Mapping[str, str]) -> PrepData:
        """Rows and supplied rows with these captions (clip -> caption) set."""

        def cap(rows: tuple[Row, ...]) -> tuple[Row, ...]:
            return tuple(replace(r, caption=captions[r.video]) if r.video in captions else r for r in rows)

        return replace(self, rows=cap(self.rows), supplied=cap(self.supplied))


def initial(staged: Staged) -> PrepData:
    """The value the flow starts from: the staged rows, nothing found yet."""
    rows = tuple(row_of(r, staged.video_column, staged.caption_column) for r in staged.rows)
    return PrepData(staged=replace(staged, rows=()), rows=rows)  # the rows have one owner: `rows`
