"""Long videos split into scenes by the trainer's scripts/split_scenes.py (PySceneDetect).

The script detects and writes in one go and has no dry run, so each video is split into a
scratch folder of the run (`dataset/.scenes-pending/<name>/`); the count and the scene list it
printed ("Found N scenes:", "Scene i: ... (F frames)") are shown, and only an approved split
moves into `dataset/scenes/`, replacing the video's own row. No cut found gives "Found 0
scenes" (the detector's scene list is empty without a cut): the video is kept whole. Scenes
all shorter than --filter-shorter-than give 0 too: that video is left out, and said so.
The script's ffmpeg splitter logs a failed cut and carries on (exit 0), so the files it promised
are counted before anything is accepted.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from dataclasses import dataclass, field
from typing import Callable, Mapping

from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.base.records import record
from ltx_wizard.core.io.safe_fs import check_inside
from ltx_wizard.core.prepare.scripts import ScriptRunner, flags_of, require_options, run_script

SCRIPT = "split_scenes.py"
SCENES = "scenes"  # the skill's output folder under dataset/
PENDING = ".scenes-pending"
MIN_SCENE = "2s"  # the skill's --filter-shorter-than
LONG_CLIP_S = 10.0  # a folder's clip this long or longer is split when asked (--split-scenes)
_FOUND = re.compile(r"^Found (\d+) scenes:")
_SCENE = re.compile(r"^Scene (\d+): (\S+) to (\S+) \((\d+) frames\)")
_FILTERED = re.compile(r"^Filtered out (\d+) scenes shorter")


@record
class ScenePreview:
    video: str  # the video's row path under dataset/ (or its original, for a split source)
    pending: Path  # the scratch folder the script wrote into
    found: int
    filtered: int = 0  # scenes under the minimum length the script dropped
    scenes: tuple[tuple[str, str, int], ...] = ()  # (start, end, frames) as it printed them
    files: tuple[Path, ...] = ()  # the scene files it wrote, in order

    def describe(self) -> str:
        if self.found == 0 and self.filtered:
            return (
                f"{self.video}: every scene was shorter than {MIN_SCENE} ({self.filtered} "
                "dropped by the splitter): left out; split it yourself or keep it whole"
            )
        if self.found == 0:
            return f"{self.video}: no cut found (0 scenes): kept whole as one clip"
        frames = ", ".join(str(f) for _, _, f in self.scenes[:6])
        more = f", +{len(self.scenes) - 6} more" if len(self.scenes) > 6 else ""
        dropped = f"; {self.filtered} shorter than {MIN_SCENE} dropped" if self.filtered else ""
        return f"{self.video}: {self.found} scenes ({frames}{more} frames){dropped}"


@dataclass
class _Printed:
    """What the splitter printed, as its lines come."""

    found: int | None = None
    filtered: int = 0
    scenes: list[tuple[str, str, int]] = field(default_factory=list)


def split_args(video: Path, out: Path) -> list[str]:
    return [str(video), str(out), "--filter-shorter-than", MIN_SCENE, "--detector", "content"]


def scene_names(stem: str, count: int) -> list[str]:
    """The files split_video_ffmpeg writes: `$VIDEO_NAME-Scene-$SCENE_NUMBER.mp4`, numbered
    from 1 with at least three digits (scenedetect/video_splitter.py)."""
    digits = max(3, len(str(count)))
    return [f"{stem}-Scene-{i:0{digits}d}.mp4" for i in range(1, count + 1)]


async def preview_split(
    runner: ScriptRunner,
    video: Path,
    label: str,
    dataset_dir: Path,
    run_dir: Path,
    log: Path,
    env: Mapping[str, str],
    on_line: Callable[[str], None] = lambda line: None,
) -> ScenePreview:
    """Run the splitter on `video` into a scratch folder; what it found, nothing accepted yet."""
    pending = dataset_dir / PENDING / Path(label).stem
    check_inside(run_dir, pending / ".keep")
    shutil.rmtree(pending, ignore_errors=True)
    pending.mkdir(parents=True)
    args = split_args(video, pending)
    require_options(runner, SCRIPT, flags_of(args))
    seen = _Printed()

    def read(line: str) -> None:
        on_line(line)
        text = line.strip()
        if m := _FOUND.match(text):
            seen.found = int(m.group(1))
        elif m := _SCENE.match(text):
            seen.scenes.append((m.group(2), m.group(3), int(m.group(4))))
        elif m := _FILTERED.match(text):
            seen.filtered = int(m.group(1))

    code = await run_script(
        runner.argv(SCRIPT, args), cwd=runner.trainer_dir, env={**env, **runner.env}, log=log, on_line=read
    )
    found = seen.found
    if code != 0 or found is None:
        raise WizardError(
            f"scripts/{SCRIPT} failed on {label} (exit {code}"
            f"{', no scene count printed' if code == 0 else ''}); its output is in "
            f"{log}"
        )
    files = tuple(pending / n for n in scene_names(video.stem, found))
    missing = [f.name for f in files if not f.is_file()]
    if missing:
        raise WizardError(
            f"scripts/{SCRIPT} found {found} scenes in {label} but wrote "
            f"{len(files) - len(missing)} (first missing: {missing[0]}; its ffmpeg "
            f"split logs failures and carries on); see {log}"
        )
    return ScenePreview(
        video=label,
        pending=pending,
        found=found,
        filtered=seen.filtered,
        scenes=tuple(seen.scenes),
        files=files,
    )


def accept_split(preview: ScenePreview, dataset_dir: Path, run_dir: Path) -> list[str]:
    """Move an approved split into dataset/scenes/; the scene paths relative to dataset/."""
    out = []
    for path in preview.files:
        rel = f"{SCENES}/{path.name}"
        check_inside(run_dir, dataset_dir / rel)
        path.replace(dataset_dir / rel)
        out.append(rel)
    discard(preview)
    return out


def discard(preview: ScenePreview) -> None:
    shutil.rmtree(preview.pending, ignore_errors=True)
    with_parent = preview.pending.parent
    if with_parent.name == PENDING and not any(with_parent.iterdir()):
        with_parent.rmdir()
