"""What the plan writes into the run folder, and what the later steps add: the one list the writer
writes from (writer.py), plan.md's Outputs and the Plan screen's F1 render. The files written at
plan time are recorded in plan.json (`PlanRecord.written`), so the words read the record."""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping

from ltx_wizard.core.base.text_safety import clean_text
from ltx_wizard.core.io import run_folder
from ltx_wizard.core.io.workspace import SUBFOLDERS
from ltx_wizard.core.launch.multinode import SBATCH_NAME
from ltx_wizard.core.launch.script import SCRIPT_NAME
from ltx_wizard.core.preprocess.preprocess_state import STATE_NAME

if TYPE_CHECKING:
    from ltx_wizard.core.plan.record import PlanRecord

# what each file the plan writes holds, in the order the writer writes them (plan.md last)
_WHAT = {
    run_folder.CONFIG.rel: "the config to train with",
    run_folder.ACCELERATE.rel: "the multi-GPU launch settings",
    run_folder.RUN_META.rel: "how launch.sh starts and logs the run",
    run_folder.PLAN_RECORD.rel: "what the plan decided, as data",
    STATE_NAME: "the preprocessing to run and how far it got",
    SBATCH_NAME: "the Slurm job for several nodes",
    SCRIPT_NAME: "the launch script",
    run_folder.PLAN_MD.rel: "this plan",
}
_FOLDERS = {
    run_folder.DATASET_DIR.rel: "the prepared clips and dataset.json, when prepared here",
    run_folder.OUTPUTS_DIR.rel: "checkpoints (`checkpoints/`) and validation videos (`samples/`)",
    run_folder.LOGS_DIR.rel: "the trainer's log and each trial's whole output",
    run_folder.OVERFIT_DIR.rel: "the samples the trials run on, and each trial's config",
}


def plan_files(*, accelerate: bool, preprocess: bool, sbatch: bool) -> tuple[str, ...]:
    """The files `write_plan` writes, in its order (plan.md last: its presence means planned)."""
    wanted = {run_folder.ACCELERATE.rel: accelerate, STATE_NAME: preprocess, SBATCH_NAME: sbatch}
    return tuple(name for name in _WHAT if wanted.get(name, True))


def written_lines(rec: PlanRecord) -> list[str]:
    """Every file and folder the run gets, as plan.md's Outputs and the Plan screen's F1 list
    them: the plan's files (from plan.json), the folders, then what the later steps add."""
    run = clean_text(str(rec.run_dir))
    names = rec.written or plan_files(accelerate=False, preprocess=rec.data.from_clips, sbatch=False)
    lines = [f"- `{run}/{name}`: {_WHAT.get(name, 'written by the plan')}" for name in names]
    lines += [f"- `{run}/{name}/`: {_FOLDERS[name]}" for name in SUBFOLDERS]
    lines.append(f"- `{run}/autotune.log`, `{run}/autotune.json`: the trials, once autotune runs")
    lines.append(f"- `{run}/run-summary.md`: once training has finished")
    data = rec.data
    if data.from_clips and not data.reused:
        root = clean_text(str(data.root))
        inside = str(data.root).startswith(str(rec.run_dir).rstrip("/") + "/")
        where = "" if inside else ", outside the run folder"
        lines.append(f"- `{root}/`: the full preprocess's latents, the data root config.yaml reads{where}")
    return lines


def _leaves(value: object, prefix: str = "") -> dict[str, object]:
    if isinstance(value, Mapping):
        out: dict[str, object] = {}
        for key, item in value.items():
            out.update(_leaves(item, f"{prefix}{key}."))
        return out
    return {prefix.rstrip("."): value}


def changed_keys(shipped_text: str, config_text: str) -> list[str]:
    """The dotted keys config.yaml sets differently from the shipped file (lists as one value)."""
    from ltx_wizard.core.io.yaml_patch import load_yaml

    before, after = _leaves(load_yaml(shipped_text)), _leaves(load_yaml(config_text))
    return sorted(k for k in before.keys() | after.keys() if before.get(k, _GONE) != after.get(k, _GONE))


_GONE = object()


def config_claim(rec: PlanRecord) -> str:
    """What config.yaml changes in the shipped file, from the two texts plan.json holds: the keys
    the Config diff shows, with the low-VRAM keys applied to the recipe counted among them."""
    keys = changed_keys(rec.base_text, rec.config_text)
    if not keys:
        return f"`config.yaml` is the shipped `{rec.base_config}` unchanged."
    low_vram = f" ({len(rec.applied)} of them the low-VRAM keys listed under Recipe)" if rec.applied else ""
    return (
        f"`config.yaml` is the shipped `{rec.base_config}` with {len(keys)} key"
        f"{'s' if len(keys) != 1 else ''} changed{low_vram}: " + ", ".join(f"`{k}`" for k in keys) + "."
    )
