"""The held-out clips' preprocess, run by the full step after the training data (held_out.py says
what and why): the trainer's script with the plan's options into `<run>/holdout/.precomputed`,
each clip checked as the training data is, the outcome written into preprocess.json.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Callable, Mapping

from ltx_wizard.core.base.stand_in import StandIn
from ltx_wizard.core.dataset.buckets import parse_buckets
from ltx_wizard.core.dataset.precomputed_check import verify_precomputed
from ltx_wizard.core.io.run_folder import LOGS_DIR
from ltx_wizard.core.preprocess.held_out import HeldOut, failed, finished, require_apart
from ltx_wizard.core.preprocess.output_dirs import failure, remove_orphans, require_output_root
from ltx_wizard.core.preprocess.preprocess_progress import ProgressParser
from ltx_wizard.core.preprocess.preprocess_state import read_state, write_state
from ltx_wizard.core.preprocess.run import run_script

LOG_NAME = "preprocess-held-out.log"
TITLE = "held-out preprocess"


async def run_held_out(
    run_dir: Path,
    strategy: Mapping[str, object] | None,
    env: Mapping[str, str] | None,
    on_progress: Callable[[ProgressParser], None],
    stand_in: StandIn | None,
) -> HeldOut:
    """Encode the held-out clips (the caller checked that some are pending, under the run lock);
    a failure is kept in the record, not raised: training does not need these latents."""
    state = read_state(run_dir)
    assert state is not None and state.held_out is not None
    held = state.held_out
    assert held.file is not None and held.root is not None
    require_apart(held.root, state.data_root)
    require_output_root(run_dir, held.root, one_sample=True)  # inside the run folder, no link
    log = LOGS_DIR.path(run_dir) / LOG_NAME
    code: int | None = None
    try:
        code, _ = await run_script(
            run_dir, state, held.file, held.root, log, env, on_progress, overwrite=True, stand_in=stand_in
        )
    finally:
        if code != 0:  # failed, stopped or cancelled: no half-written latents left behind
            remove_orphans(held.root)
    if code:  # a cancel or a signal raised above; here the script ended on its own
        after = failed(held, failure(TITLE, code, log, held.root))
    else:
        after = finished(held, _encoded(held, state.spec.buckets, strategy), log)
    write_state(run_dir, replace(state, held_out=after))
    return after


def _encoded(held: HeldOut, buckets: str, strategy: Mapping[str, object] | None) -> tuple[str, ...]:
    """The held-out samples with every file the recipe reads, of the bucket's shape."""
    assert held.root is not None
    shapes = parse_buckets(buckets)
    return tuple(s for s in held.samples if verify_precomputed(held.root, strategy, (s,), shapes).reusable)


def held_out_warning(held: HeldOut | None) -> str | None:
    """What `preprocess` warns about: a failed held-out run, or clips it left out."""
    if held is None or not held.note or held.file is None:
        return None
    return f"held-out clips: {held.note}" if held.done else f"the {TITLE} did not finish: {held.note}"
