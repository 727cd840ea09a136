"""Find and check the user's LTX-2 monorepo checkout (where `uv sync` was run).

Search order: --trainer-root, $LTX_TRAINER_ROOT, the working directory and its parents,
~/LTX-2, /workspace/LTX-2. A checkout counts when the trainer's train script and both tier
configs exist. An explicitly named root that is not a checkout is an error, not skipped:
silently picking another checkout would train against files the user did not choose.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Mapping

from ltx_wizard.core.base.records import record
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.inputs.checkout_caps import core_version
from ltx_wizard.core.inputs.model_paths import resolve_user_path, stat_path
from ltx_wizard.core.inputs.uv_tool import find_uv
from ltx_wizard.core.gpu.tiers import LOW_VRAM_CONFIG, STANDARD_CONFIG

# The trainer's layout inside the monorepo (the look-alike checkouts of the tests and the demo
# are built from these, never the reverse).
TRAINER_REPO = "https://github.com/Lightricks/LTX-2"  # setup clones it; a rented node too
TRAINER_REL = Path("packages/ltx-trainer")
TRAIN_SCRIPT_REL = TRAINER_REL / "scripts" / "train.py"
CONFIGS_REL = TRAINER_REL / "configs"
TIER_CONFIGS = (STANDARD_CONFIG, LOW_VRAM_CONFIG)
# The same two configs before LTX-2's "Automated PR - 2026-06-17" (ltx-core 1.1.6) renamed them
# (packages/ltx-trainer/configs/ltx2_av_lora.yaml -> t2v_lora.yaml, ltx2_av_lora_low_vram.yaml ->
# t2v_lora_low_vram.yaml; train.py stayed where it was). A checkout holding these is an LTX-2
# checkout too old for the wizard, which `git pull` brings up to date.
OLD_TIER_CONFIGS = ("ltx2_av_lora.yaml", "ltx2_av_lora_low_vram.yaml")
RENAMED_ON = "2026-06-17"
ENV_VAR = "LTX_TRAINER_ROOT"


@record
class CheckoutInfo:
    root: Path
    trainer_dir: Path
    train_script: Path
    configs: dict[str, Path]
    uv_path: str | None
    synced: bool
    is_linux: bool
    found_via: str = "given"
    notes: tuple[str, ...] = ()
    # what launch.sh runs: "uv" when on PATH, else the full path of the uv the wizard found
    uv_command: str = "uv"

    def config_path(self, name: str) -> Path:
        """Path of a shipped config, e.g. config_path("t2v_lora.yaml") or "accelerate/fsdp.yaml"."""
        return self.configs.get(name, self.trainer_dir / "configs" / name)

    def describe(self) -> str:
        bits = [f"LTX-2 checkout ({self.found_via})"]
        bits.append(f"uv {self.uv_path}" if self.uv_path else "uv missing")
        bits.append("synced" if self.synced else "not synced")
        return ", ".join(bits) + (f"; {'; '.join(self.notes)}" if self.notes else "")


def missing_parts(root: Path) -> list[str]:
    """The checkout's files the wizard reads (train.py, the tier configs) that `root` lacks."""
    needed = [TRAIN_SCRIPT_REL] + [CONFIGS_REL / c for c in TIER_CONFIGS]
    return [str(rel) for rel in needed if not (root / rel).is_file()]


def older_layout(root: Path) -> str | None:
    """Why `root` is an LTX-2 checkout older than the layout the wizard reads (its train.py where
    it always was, its tier configs under their names from before the rename), or None."""
    if not (root / TRAIN_SCRIPT_REL).is_file() or not missing_parts(root):
        return None
    old = [name for name in OLD_TIER_CONFIGS if (root / CONFIGS_REL / name).is_file()]
    if not old:
        return None
    version = core_version(root)
    return (
        f"{root} is an LTX-2 checkout from before {RENAMED_ON}"
        + (f" (ltx-core {version})" if version else "")
        + f": its trainer configs still have their old names ({', '.join(old)}), and the wizard "
        f"reads {' and '.join(TIER_CONFIGS)}"
    )


def update_words(root: Path, older: str) -> str:
    return f"{older}: update it with `git -C {root} pull` (or `ltx-wizard setup`)"


def sync_gap(root: Path) -> str | None:
    """None when `uv sync` has run here (uv.lock and .venv both there: LTX-2 shipped uv.lock up to
    ltx-core 1.1.7, and `uv sync` writes one where none is); else what is missing, as on disk."""
    lock, venv = (root / "uv.lock").is_file(), (root / ".venv").is_dir()
    if lock and venv:
        return None
    if lock:
        return "it has uv.lock but no .venv"
    if venv:
        return "it has a .venv but no uv.lock, which `uv sync` writes"
    return "it has neither uv.lock nor .venv, which `uv sync` writes"


def inspect_checkout(
    root: str | os.PathLike[str], *, env: Mapping[str, str] | None = None, found_via: str = "given"
) -> CheckoutInfo:
    env = os.environ if env is None else env
    path = resolve_user_path(root, what="trainer checkout")
    stat_path(path, what="trainer checkout")
    if not os.path.isdir(path):
        raise UsageError(f"trainer checkout {path} is not a directory: pass the root of your LTX-2 clone")
    if (path / "scripts" / "train.py").is_file() and path.name == "ltx-trainer":
        raise UsageError(
            f"trainer checkout {path} is the trainer package: pass the monorepo root {path.parent.parent}"
        )
    older = older_layout(path)
    if older is not None:
        raise UsageError(update_words(path, older))
    missing = missing_parts(path)
    if missing:
        raise UsageError(
            f"{path} is not an LTX-2 checkout (missing {', '.join(missing)}): "
            "git clone https://github.com/Lightricks/LTX-2 and pass its root"
        )
    uv = find_uv(env)  # core/inputs/uv_tool.py: PATH, the wizard's own environment, ~/.local/bin
    uv_path = uv.path if uv is not None else None
    gap = sync_gap(path)
    synced = gap is None
    is_linux = sys.platform.startswith("linux")
    notes = []
    if uv_path is None:
        notes.append(
            "uv is not on PATH nor in the wizard's environment: `ltx-wizard setup` "
            "installs it (no shell pipe, nothing outside the wizard's environment)"
        )
    if gap is not None:
        notes.append(f"not synced ({gap}): run `uv sync` in {path}")
    if not is_linux:
        notes.append(f"this OS is {sys.platform}: the trainer runs on Linux only")
    trainer = path / TRAINER_REL
    configs = {name: trainer / "configs" / name for name in TIER_CONFIGS}
    accel = trainer / "configs" / "accelerate"
    if accel.is_dir():
        for item in sorted(accel.glob("*.yaml")):
            configs[f"accelerate/{item.name}"] = item
    return CheckoutInfo(
        root=path,
        trainer_dir=trainer,
        train_script=path / TRAIN_SCRIPT_REL,
        configs=configs,
        uv_path=uv_path,
        uv_command="uv" if uv is not None and uv.how == "on PATH" else (uv_path or "uv"),
        synced=synced,
        is_linux=is_linux,
        found_via=found_via,
        notes=tuple(notes),
    )


def candidate_roots(
    *, cwd: str | os.PathLike[str] | None = None, env: Mapping[str, str] | None = None
) -> list[tuple[Path, str]]:
    """Where an implicit search looks, in order, with a label for each."""
    env = os.environ if env is None else env
    here = Path(os.path.abspath(cwd if cwd is not None else os.getcwd()))
    out = [
        (p, "current directory" if p == here else "parent of the current directory")
        for p in (here, *here.parents)
    ]
    home = env.get("HOME")
    if home:
        out.append((Path(home) / "LTX-2", "~/LTX-2"))
    out.append((Path("/workspace/LTX-2"), "/workspace/LTX-2"))
    return out


def find_checkout(
    explicit: str | os.PathLike[str] | None = None,
    *,
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
) -> CheckoutInfo:
    env = os.environ if env is None else env
    if explicit is not None:
        return inspect_checkout(
            resolve_user_path(explicit, what="--trainer-root", cwd=cwd),
            env=env,
            found_via="--trainer-root",
        )
    from_env = env.get(ENV_VAR)
    if from_env:
        try:
            return inspect_checkout(
                resolve_user_path(from_env, what=ENV_VAR, cwd=cwd), env=env, found_via=f"${ENV_VAR}"
            )
        except UsageError as exc:
            raise UsageError(f"${ENV_VAR}: {exc.message}") from None
    looked: list[str] = []
    older: tuple[Path, str] | None = None
    for root, label in candidate_roots(cwd=cwd, env=env):
        looked.append(str(root))
        try:
            if not missing_parts(root):
                return inspect_checkout(root, env=env, found_via=label)
            why = older_layout(root)
            older = older or ((root, why) if why else None)
        except (OSError, UsageError):
            continue
    if older is not None:  # found one, too old: say so rather than "none found"
        raise UsageError(update_words(*older))
    shown = ", ".join(looked if len(looked) <= 5 else looked[:3] + ["..."] + looked[-2:])
    raise UsageError(
        f"no LTX-2 checkout found (looked in {shown}): clone https://github.com/Lightricks/LTX-2, "
        f"run `uv sync` there, and pass --trainer-root DIR or set ${ENV_VAR}"
    )
