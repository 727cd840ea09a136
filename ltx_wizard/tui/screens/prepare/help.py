"""The Prepare screen's F1 help (dialogs/help.py shows it): what it does and what comes next."""

from __future__ import annotations

from ltx_wizard.core.base import phases
from ltx_wizard.core.prepare.scripts import SIMULATE_SAYS

PREPARE_HELP = (
    phases.PREPARE.f1_title,
    """\
**What it does.** Makes your raw clips into the dataset file the trainer's preprocessing reads,
in a run folder: `<run>/dataset/dataset.json`. Your files are linked there, never moved or
changed; everything made (scenes, upright copies, captions) stays in the run folder.

**In order.**
- *Audit*: every clip read as the trainer reads it (PyAV): frames and rate, size and the share
  the bucket's center crop keeps, rotation (a phone clip would train sideways: an upright copy is
  offered), sound (a clip without it is left out by an audio recipe), and whether the trainer's
  environment can decode sound at all. A bucket is suggested from the clips.
- *Scenes*: with the box ticked (or one video given), long videos go through the trainer's
  `scripts/split_scenes.py`; the scene count is shown before they replace the video.
- *Captions*: `scripts/caption_videos.py` with a Qwen3-Omni server elsewhere when you type its
  *Captioner server URL* (`http://host:port/v1`: for a GPU with under 40 GiB free), else Gemini
  (a GEMINI_API_KEY), else the local Qwen3-Omni server on a GPU with 40 GiB free (started, then
  stopped before preprocessing), else your captions file. Three captions come first, in full:
  approve them, give an instruction, or stop. A clip the captioner fails on is named.
- *Held out*: about 10 % kept aside in `holdout.jsonl` for the evaluation after training (for a
  small set you choose 1, 2 or none), or your own held-out file or folder.

**The trigger word** is never written into the captions: preprocessing prepends it.

**Simulated GPUs.** @SIMULATE@ With --demo the look-alike checkout's scripts run with the
wizard's own Python.

**Keys.** ctrl+n prepares, then continues to the paths with the dataset file, its bucket and
trigger word filled in. F4 skips (your data is ready: a dataset file or a `.precomputed` folder).
Esc cancels a running step (what was made is kept), else goes back.""".replace("@SIMULATE@", SIMULATE_SAYS),
)
