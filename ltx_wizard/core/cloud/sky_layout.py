"""Where everything lies on a rented node, the accelerator's SkyPilot name, and each model file's
source: the Hub file the wizard resolved (core/inputs/model_download.py RELEASES), else an upload.

Every node has the same layout under one root, so the trainer config the node reads names fixed
paths. The root is `$LTX_SKY_ROOT` when set (the tests run the scripts on this machine), else /ltx.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.inputs.checkout import TRAINER_REL
from ltx_wizard.core.inputs.model_download import RELEASES
from ltx_wizard.core.io import run_folder

ROOT = PurePosixPath("/ltx")
RUN = ROOT / "run"  # the run folder, copied up (config, dataset, sky/)
OUTPUTS = ROOT / run_folder.OUTPUTS_DIR.rel  # the bucket or volume: checkpoints outlive the node
SMOKE_OUTPUTS = OUTPUTS / "smoke"  # the smoke task's own: the real run never resumes from it
DATA = ROOT / "data"  # the data root, when it lies outside the run folder
MODELS = ROOT / "models"
MEDIA = ROOT / "media"  # validation media named by absolute path
CHECKOUT = ROOT / "LTX-2"
TRAINER_DIR = CHECKOUT / TRAINER_REL.as_posix()
LOG_REL = run_folder.TRAIN_LOG.rel  # under the outputs: a local copy of them is read by `status`


def on_node(entry: run_folder.RunFile) -> PurePosixPath:
    """A file of the run folder, in the node's copy of it."""
    return RUN / entry.rel


# nvidia-smi's names to SkyPilot's accelerator names (`sky show-gpus`); the first match wins.
_ACCELERATORS = (
    (r"GH200", "GH200"),
    (r"B200", "B200"),
    (r"H200", "H200"),
    (r"H100", "H100"),
    (r"A100.*80", "A100-80GB"),
    (r"A100", "A100"),
    (r"L40S", "L40S"),
    (r"L40\b", "L40"),
    (r"\bL4\b", "L4"),
    (r"A10G", "A10G"),
    (r"\bA10\b", "A10"),
    (r"RTX A6000", "RTXA6000"),
    (r"RTX 6000 Ada", "RTX6000-Ada"),
    (r"RTX 5090", "RTX5090"),
    (r"RTX 4090", "RTX4090"),
    (r"V100.*32", "V100-32GB"),
    (r"V100", "V100"),
)
_GPU_LINE = re.compile(r"\d+: (.+?) \(")


def accelerator_name(gpu_lines: tuple[str, ...]) -> str:
    """The SkyPilot name of the GPU the plan was made for (its gpu_lines, as plan.md shows them)."""
    names = [m.group(1) for line in gpu_lines if (m := _GPU_LINE.match(line))]
    for name in names[:1]:
        for pattern, sky in _ACCELERATORS:
            if re.search(pattern, name):
                return sky
    shown = names[0] if names else "no GPU"
    raise UsageError(
        f"the plan's GPU ({shown}) has no SkyPilot name the wizard knows: pass --accelerator NAME "
        "(a name `sky show-gpus` lists, for a GPU of the same memory)"
    )


@dataclass(frozen=True)
class ModelSource:
    """One model path of the config: where it lies on the node, and how it gets there."""

    key: str  # the config key (model.model_path, ...)
    local: Path
    remote: PurePosixPath
    repo: str | None = None  # a Hub download: repo id, and file (None: the whole repository)
    filename: str | None = None
    local_dir: PurePosixPath | None = None  # hf download's --local-dir: the file lands at its repo path below

    @property
    def download(self) -> bool:
        return self.repo is not None


def model_source(key: str, local: Path) -> ModelSource:
    """A file the wizard resolved from the Hub is downloaded on the node by the same repo id and
    file; any other is uploaded with the task (file_mounts)."""
    posix = local.as_posix()
    for files in RELEASES.values():
        for f in files:
            if f.filename is not None and posix.endswith("/" + f.filename):
                # as `ltx-wizard models` downloads it (model_download.py: local_dir=<models>/<folder>)
                folder = MODELS / f.folder
                return ModelSource(key, local, folder / f.filename, f.repo, f.filename, folder)
            if f.filename is None and local.is_dir() and local.name == f.folder:
                return ModelSource(key, local, MODELS / f.folder, f.repo, None, MODELS / f.folder)
    return ModelSource(key, local, MODELS / "upload" / key.rsplit(".", 1)[-1] / local.name)
