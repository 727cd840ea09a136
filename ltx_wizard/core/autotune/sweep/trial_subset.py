"""The trial data: a few samples of the user's data root, linked file by file, never copied.

The trainer enumerates samples by globbing `**/*.pt` and keeps those present in every required
folder, so a k-sample subset is a new root holding symlinks to the files of k usable samples (the
one data rule of core/dataset/data_root.py under the config's `training_strategy`: only samples with a file
in every folder the strategy reads, e.g. partial audio data gives only its clips with audio).
Linking folders would expose every sample; copying latents would cost disk and time. The data root itself is only read.

Safety: the subset lives inside the run folder and only the subset's own links are ever removed.
A data root that is (or is inside) the run folder is refused: rebuilding the subset over it would
delete the user's real files and leave links pointing at themselves.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from pathlib import Path
from typing import Any, Mapping

from ltx_wizard.core.io.run_folder import OVERFIT_DIR
from ltx_wizard.core.dataset.sources import SHIPPED_T2V_STRATEGY
from ltx_wizard.core.dataset.data_root import inspect_data_root
from ltx_wizard.core.dataset.loader_batches import samples_needed
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.io.safe_fs import check_inside, create_run_dir

BATCH_SIZES = (4, 2, 1)


def subset_size(available: int, num_gpus: int) -> int:
    """k = what the largest batch trial needs on every GPU, when the data has that many; else 1."""
    for batch in BATCH_SIZES:
        if batch * num_gpus <= available:
            return batch * num_gpus
    return min(available, 1)


def _inside(path: str, root: str) -> bool:
    return os.path.commonpath([path, root]) == root


def _refuse_data_in_run(data_root: Path, folders: list[str], run_root: Path) -> None:
    for folder in folders:  # the links are made at staging/<folder>/...: never outside it
        if os.path.isabs(folder) or ".." in Path(folder).parts:
            raise UsageError(
                f"data folder {folder!r} in training_strategy leaves the data root: autotune links "
                "its trial data under the run folder by these names; use a plain folder name"
            )
    real_run = os.path.realpath(run_root)
    real_data = os.path.realpath(data_root)
    sources = [real_data] + [os.path.realpath(data_root / f) for f in folders]
    if any(_inside(p, real_run) for p in sources):
        raise UsageError(
            f"data root {data_root} is inside the run folder {run_root} (or holds it): autotune "
            "builds its trial data there and would replace your files; set "
            "data.preprocessed_data_root to your own preprocessed folder"
        )


def remove_link_tree(target: Path) -> None:
    """Remove a subset built by `build_subset`: only symlinks and the folders holding them.

    Everything is checked before anything is removed; a real file, a link to a folder we did not
    make, or the target being a link itself stops with a message and removes nothing.
    """
    st = os.lstat(target)
    if not stat.S_ISDIR(st.st_mode) or stat.S_ISLNK(st.st_mode):
        raise UsageError(
            f"{target} is not the trial-data folder autotune made: remove it "
            "yourself if it is not needed, then retry"
        )
    links: list[str] = []
    dirs: list[str] = []
    for dirpath, dirnames, filenames in os.walk(target, followlinks=False):
        dirs.append(dirpath)
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            mode = os.lstat(path).st_mode
            if stat.S_ISLNK(mode):
                links.append(path)
                if name in dirnames:
                    dirnames.remove(name)  # a link to a folder: never walked into
            elif not stat.S_ISDIR(mode):
                raise UsageError(
                    f"{path} is a real file inside autotune's trial-data folder "
                    f"{target}: move it out, then retry (nothing was removed)"
                )
    for path in links:
        os.unlink(path)
    for path in reversed(dirs):  # deepest first
        os.rmdir(path)


def build_subset(
    data_root: Path,
    target: Path,
    num_gpus: int = 1,
    *,
    strategy: Mapping[str, Any] | None = SHIPPED_T2V_STRATEGY,
    run_root: Path | None = None,
) -> int:
    """(Re)build `target` (inside `run_root`, default two levels up) as a k-sample linked copy
    of `data_root`; returns k.

    `strategy` is the trial config's `training_strategy` block: it names the folders linked.
    """
    run_root = Path(run_root) if run_root is not None else Path(target).parent.parent
    info = inspect_data_root(data_root, strategy=strategy)
    _refuse_data_in_run(info.path, list(info.folders), run_root)
    k = subset_size(info.sample_count, num_gpus)
    chosen = info.samples[:k]
    create_run_dir(run_root)  # a real folder of ours; a planted link is refused
    check_inside(run_root, target / "x")  # every folder down to target is real, none a link
    staging = Path(tempfile.mkdtemp(prefix=".precomputed-", dir=target.parent))
    try:
        for sample in chosen:
            for folder, rel in info.files(sample):
                link = staging / folder / rel
                link.parent.mkdir(parents=True, exist_ok=True)
                os.symlink(info.path / folder / rel, link)
        if os.path.lexists(target):
            remove_link_tree(target)  # only ever our own earlier subset: links and folders
        os.replace(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)  # staging: links we just made, never followed
        raise
    return len(chosen)


def trial_data(
    run_root: Path, data_root: Path, strategy: Mapping[str, Any] | None, num_gpus: int
) -> tuple[Path, int]:
    """(trial data root, usable samples): the one-sample preprocess of a run planned from a
    dataset file (the skill's order: autotune before the full preprocess), else a linked
    subset of the data root at <run>/overfit/.precomputed."""
    from ltx_wizard.core.preprocess.preprocess_state import one_sample_root, read_state

    state = read_state(run_root)
    if state is not None and not state.reused:
        if not state.one_sample_done:
            raise UsageError(
                "autotune trains on the one-sample preprocess, which has not run: "
                f"run `ltx-wizard preprocess {run_root} --one-sample`"
            )
        root = one_sample_root(run_root)
        return root, inspect_data_root(root, strategy=strategy).sample_count
    subset = OVERFIT_DIR.path(run_root) / ".precomputed"
    # The planned config's strategy names the folders each sample needs (core/dataset/sources.py).
    return subset, build_subset(data_root, subset, num_gpus, strategy=strategy, run_root=run_root)


def subset_refusal(batch_size: int, num_gpus: int, samples: int) -> str:
    """Why a trial with this batch cannot run on `samples` usable samples; "" when it can."""
    need = samples_needed(batch_size, num_gpus)
    if samples >= need:
        return ""
    gpus = max(num_gpus, 1)
    return (
        f"refused: the trial data holds {samples} usable sample(s) and batch {batch_size} x "
        f"{gpus} GPU(s) needs {need} (the trainer's loader drops an incomplete batch, so "
        "the trial would stop with StopIteration); add samples or lower the batch size"
    )
