"""The audio gate's check (core/preprocess/audio_gate.py) for a run, as `preprocess` and the
TUI's Preprocess screen both hand it to the preprocessing: the stand-in's where the run was
planned on simulated GPUs, else torchaudio.load of one clip in the checkout's environment
(core/prepare/audio_env.py, the check prepare runs), logged to <run>/logs/audio-check.log.
(It was commands/audio_gate.py: the TUI imports no command module.)"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from ltx_wizard.core.io.run_folder import LOGS_DIR
from ltx_wizard.core.base.stand_in import StandIn
from ltx_wizard.core.prepare.audio_env import check_audio_decode
from ltx_wizard.core.prepare.scripts import uv_runner
from ltx_wizard.core.preprocess.audio_gate import AudioCheck, Decode
from ltx_wizard.core.preprocess.preprocess_state import read_state


def audio_check(run_dir: Path, stand_in: StandIn | None) -> AudioCheck | None:
    state = read_state(Path(run_dir))
    if state is None:
        return None
    if state.simulate and stand_in is not None:
        check: AudioCheck = stand_in.audio_decode
        return check
    trainer_dir = state.trainer_dir

    async def decode(clip: Path) -> Decode:
        runner = uv_runner(trainer_dir, shutil.which("uv"))
        log = LOGS_DIR.path(run_dir) / "audio-check.log"
        return await check_audio_decode(runner, clip, clip.name, log, os.environ)

    return decode
