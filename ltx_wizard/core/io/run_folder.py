"""The run folder's table: every file the wizard writes into a run folder and reads back, by name and
place, and for each JSON file the fix a refused one needs. Every module that builds one of these
paths takes it from here; the JSON files' models are declared once each, beside their owner, through
core/io/run_codec.py (a test checks that every JSON entry here has exactly one declaration).

The clip-check cache is not in a run folder (it is the wizard's cache folder's, shared by every
run) but is listed here too, so the one place that names the wizard's files names it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ltx_wizard.core.base.errors import UsageError

Kind = Literal["json", "jsonl", "text", "image", "folder"]


@dataclass(frozen=True)
class RunFile:
    """One file: its path relative to the run folder, what it holds (the word a refusal names it
    by), and for a JSON file what to do when it is refused."""

    rel: str
    what: str
    kind: Kind = "json"
    fix: str = ""

    @property
    def name(self) -> str:
        return Path(self.rel).name

    def path(self, run_dir: str | Path) -> Path:
        return Path(run_dir) / self.rel


_PLAN_AGAIN = "plan the run again (ltx-wizard plan ... --force)"

RUN_META = RunFile("run.json", "run record", fix=_PLAN_AGAIN)
PLAN_RECORD = RunFile("plan.json", "plan record", fix=_PLAN_AGAIN)
PREPROCESS_STATE = RunFile("preprocess.json", "preprocess state", fix=_PLAN_AGAIN)
AUTOTUNE_RECORD = RunFile("autotune.json", "autotune record", fix="run `ltx-wizard autotune RUN_DIR` again")
PREPARE_RECORD = RunFile("dataset/prepare.json", "prepare record", fix="run prepare again")
EVAL_JOB = RunFile("logs/eval-job.json", "eval job", fix="start the evaluation again")
EVAL_STATE = RunFile("logs/eval-state.json", "eval state", fix="start the evaluation again")
EVAL_MANIFEST = RunFile("outputs/eval/prompts.json", "eval manifest", fix="run the evaluation again")
# the held-out loss of the base model, written by trainer_side/heldout_loss.py; one per kept checkpoint
# beside it, named by core/compare/loss_record.py's loss_file (issue 44)
HELDOUT_LOSS = RunFile(
    "outputs/compare/heldout-loss-base.json", "held-out loss record", fix="run the held-out loss again"
)
LORA_HEALTH = RunFile(
    "outputs/compare/lora-health.json", "LoRA health record", fix="run the LoRA health check again"
)
# the checkpoints compared and the one recommended (core/compare/compare_record.py), for `compare --json`
COMPARE_RECORD = RunFile(
    "outputs/compare/compare.json", "compare record", fix="run `ltx-wizard compare RUN_DIR` again"
)
# the tournament's step x prompt grid of renders and keyframes (core/compare/grid_record.py), beside
# the renders folder, the contact sheet and the HTML page that show it off the terminal
COMPARE_GRID = RunFile(
    "outputs/compare/grid.json", "compare grid", fix="run `ltx-wizard compare RUN_DIR` again"
)
COMPARE_RENDERS = RunFile("outputs/compare/renders", "compare renders folder", kind="folder")
CONTACT_SHEET = RunFile("outputs/compare/contact-sheet.png", "contact sheet", kind="image")
COMPARE_PAGE = RunFile("outputs/compare/index.html", "compare page", kind="text")
CURSOR_SUFFIX = ".status-cursor.json"  # beside the log it marks (core/monitor/cursor_store.py)
STATUS_CURSOR = RunFile(
    "logs/train.log" + CURSOR_SUFFIX, "status cursor", fix="the log is read from its start"
)
# the endings a desktop notification was sent for (core/monitor/notify_record.py), once each
NOTIFIED = RunFile(
    "logs/notified.json", "notification record", fix="remove it: the next ending is sent again"
)
CLIP_CACHE = RunFile("clip-facts-v1.jsonl", "clip-check cache", kind="jsonl", fix="the clip is read again")
# the files that are not JSON records: named here so their paths are built once
PLAN_MD = RunFile("plan.md", "plan", kind="text")
CONFIG = RunFile("config.yaml", "training config", kind="text")


def require_config(run_dir: str | Path) -> Path:
    """RUN/config.yaml, which every run folder has; a UsageError naming the folder where there is none."""
    path = CONFIG.path(run_dir)
    if not path.is_file():
        raise UsageError(
            f"{run_dir} is not a run folder (no config.yaml): pass the folder that "
            "`ltx-wizard plan` or the wizard wrote"
        )
    return path


ACCELERATE = RunFile("accelerate.yaml", "accelerate config", kind="text")
LAUNCH_SCRIPT = RunFile("launch.sh", "launch script", kind="text")
SBATCH = RunFile("slurm.sbatch", "Slurm job", kind="text")
AUTOTUNE_LOG = RunFile("autotune.log", "autotune log", kind="text")
# `ltx-wizard launch RUN --target skypilot` (core/cloud/): the task files and what the node runs
SKY_DIR = RunFile("sky", "SkyPilot folder", kind="folder")
SKY_TASK = RunFile("sky/task.yaml", "SkyPilot task", kind="text")
SKY_SMOKE = RunFile("sky/smoke.yaml", "SkyPilot smoke task", kind="text")
SKY_CONFIG = RunFile("sky/config.yaml", "training config on the node", kind="text")
SKY_SMOKE_CONFIG = RunFile("sky/smoke-config.yaml", "smoke config on the node", kind="text")
SKY_SETUP = RunFile("sky/setup.sh", "SkyPilot setup script", kind="text")
SKY_RUN = RunFile("sky/run.sh", "SkyPilot run script", kind="text")
SKY_README = RunFile("sky/README.md", "SkyPilot instructions", kind="text")
SKY_IGNORE = RunFile(".skyignore", "SkyPilot upload exclusions", kind="text")  # read by SkyPilot's upload
SKY_RESUME = RunFile("sky/resume.yaml", "resume config on the node", kind="text")  # run.sh writes it there
# the node's training log, in the mounted outputs: `status` reads it from a local copy of them
SKY_LOG = RunFile("outputs/logs/train.log", "training log (SkyPilot)", kind="text")

TRAIN_LOG = RunFile("logs/train.log", "training log", kind="text")
TRAIN_PID = RunFile("logs/train.pid", "train.pid", kind="text")
EVAL_LOG = RunFile("logs/eval.log", "eval log", kind="text")
EVAL_PID = RunFile("logs/eval.pid", "eval.pid", kind="text")
EVAL_LOCK = RunFile("logs/eval.lock", "evaluation lock", kind="text")
RUN_SUMMARY = RunFile("run-summary.md", "run summary", kind="text")
# the run folder's sub-folders, made with it (core/io/workspace.py)
DATASET_DIR = RunFile("dataset", "dataset folder", kind="folder")
OUTPUTS_DIR = RunFile("outputs", "outputs folder", kind="folder")
LOGS_DIR = RunFile("logs", "logs folder", kind="folder")
OVERFIT_DIR = RunFile("overfit", "overfit folder", kind="folder")
# the held-out clips' latents (core/preprocess/held_out.py), never the training data root
HOLDOUT_DIR = RunFile("holdout", "held-out latents folder", kind="folder")

TABLE: tuple[RunFile, ...] = (
    RUN_META,
    PLAN_RECORD,
    PREPROCESS_STATE,
    AUTOTUNE_RECORD,
    PREPARE_RECORD,
    EVAL_JOB,
    EVAL_STATE,
    EVAL_MANIFEST,
    HELDOUT_LOSS,
    LORA_HEALTH,
    COMPARE_RECORD,
    COMPARE_GRID,
    STATUS_CURSOR,
    NOTIFIED,
    CLIP_CACHE,
    PLAN_MD,
    CONFIG,
    ACCELERATE,
    LAUNCH_SCRIPT,
    SBATCH,
    AUTOTUNE_LOG,
    SKY_DIR,
    SKY_TASK,
    SKY_SMOKE,
    SKY_CONFIG,
    SKY_SMOKE_CONFIG,
    SKY_SETUP,
    SKY_RUN,
    SKY_README,
    SKY_IGNORE,
    SKY_RESUME,
    SKY_LOG,
    TRAIN_LOG,
    TRAIN_PID,
    EVAL_LOG,
    EVAL_PID,
    EVAL_LOCK,
    RUN_SUMMARY,
    CONTACT_SHEET,
    COMPARE_PAGE,
    DATASET_DIR,
    OUTPUTS_DIR,
    LOGS_DIR,
    OVERFIT_DIR,
    HOLDOUT_DIR,
    COMPARE_RENDERS,
)
