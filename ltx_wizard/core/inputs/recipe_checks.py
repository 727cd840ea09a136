"""What a shipped config must be for a plan to start from it: named as a recipe of the
checkout's own configs/ folder (never a path), and whole (an empty or truncated file is a broken
checkout, said so in one line instead of a crash deep in the patching)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Mapping

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.base.text_safety import clip
from ltx_wizard.core.io.yaml_patch import YamlPatchError, load_yaml

DEFAULT_RECIPE = "t2v_lora"
# The sections the wizard's rules touch in a shipped file (config_gen patches model and data; the
# tier's low-VRAM keys and autotune touch lora and optimization; the strategy names the data
# folders). Every shipped LoRA recipe has them all: a file without them is empty or truncated.
# The trainer itself needs two of them: ltx_trainer/config.py LtxTrainerConfig (`data` has no
# default; its model validator wants `lora` when model.training_mode is lora).
REQUIRED_SECTIONS = ("model", "lora", "training_strategy", "optimization", "data")
# A recipe is a file's stem in configs/: no folder, no '..', so nothing outside configs/ is read.
_RECIPE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")


def check_recipe_name(configs_dir: Path, wanted: str) -> None:
    """--recipe names a shipped config of the checkout, never a path: `../x` or `/abs` refused,
    and so is a link in configs/ that leads out of it."""
    if not _RECIPE_NAME.fullmatch(wanted) or ".." in wanted:
        raise UsageError(
            f"--recipe {clip(wanted)!r} is not a recipe name: recipes come only from "
            f"{configs_dir} (pass a name such as {DEFAULT_RECIPE} or i2v_lora)"
        )
    named = configs_dir / f"{wanted}.yaml"
    real, home = os.path.realpath(named), os.path.realpath(configs_dir)
    if os.path.lexists(named) and os.path.dirname(real) != home:
        raise UsageError(
            f"--recipe {wanted}: {named} is a link out of {configs_dir}: recipes "
            "come only from the checkout's configs/ folder"
        )


def require_sections(path: Path, text: str) -> None:
    """A shipped file the plan starts from holds every section the wizard's rules touch; an
    empty or truncated one is a broken checkout, named as such (not a crash, not silence)."""
    try:
        data = load_yaml(text)
    except YamlPatchError as exc:
        raise UsageError(f"cannot use the shipped config {path}: {exc.message}") from None
    missing = [name for name in REQUIRED_SECTIONS if not isinstance(data.get(name), Mapping)]
    if missing:
        plural = "s" if len(missing) > 1 else ""
        what = "is empty" if not data else f"has no {', '.join(missing)} section{plural}"
        raise UsageError(
            f"shipped config {path} {what}: the LTX-2 checkout is broken (a truncated "
            f"or emptied file); restore it (git checkout -- {path.name} in "
            f"{path.parent}) or clone the checkout again"
        )
