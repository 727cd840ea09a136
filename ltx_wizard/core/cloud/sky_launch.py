"""The one way <run>/sky/ is made, for `ltx-wizard launch --target skypilot` and the Done screen
alike: the plan's checks, SkyPilot found (else the install hint, nothing written), the files
written, and SkyPilot's own parser run on both task files and on every command of the README."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ltx_wizard.core.base.errors import UsageError, WizardError
from ltx_wizard.core.cloud.sky_python import INSTALL_HINT, check_with_skypilot, find_sky_python
from ltx_wizard.core.cloud.sky_readme import SkyCommands, commands
from ltx_wizard.core.cloud.sky_request import HF_TOKEN, SkyOptions, SkyRequest, build_request
from ltx_wizard.core.cloud.sky_task import write_sky_files
from ltx_wizard.core.io import run_folder


@dataclass(frozen=True)
class SkyLaunch:
    request: SkyRequest
    written: tuple[Path, ...]
    commands: SkyCommands

    @property
    def readme(self) -> Path:
        return run_folder.SKY_README.path(self.request.run_dir)


def launch_sky(run_dir: Path, options: SkyOptions) -> SkyLaunch:
    """UsageError for a failed check or no SkyPilot; WizardError when SkyPilot refuses a file."""
    req = build_request(run_dir, options)
    python = find_sky_python()
    if python is None:
        raise UsageError(INSTALL_HINT)
    written = tuple(write_sky_files(req))
    cmds = commands(req)
    tasks = [run_folder.SKY_TASK.path(req.run_dir), run_folder.SKY_SMOKE.path(req.run_dir)]
    # `--secret HF_TOKEN` reads the token from the user's environment, which the README says to
    # set first; the commands are checked as they will run then
    token = {HF_TOKEN: "set-before-the-commands"} if req.token_needed and HF_TOKEN not in os.environ else {}
    problems = check_with_skypilot(python, tasks, cmds.every(), token)
    if problems:
        raise WizardError("SkyPilot refused what was written: " + "; ".join(problems))
    return SkyLaunch(req, written, cmds)
