"""config.yaml = the tier's shipped file with only the paths (and, when asked, a few keys) patched.

Computes the patched keys, checks the result the way the trainer would before it is written, and
can hand the text to the trainer's own schema in a subprocess inside the user's checkout (the
schema imports torch, so the wizard never imports it itself).
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from ltx_wizard.core.io.run_folder import CONFIG
from ltx_wizard.core.dataset.sources import required_folders
from ltx_wizard.core.base.errors import UsageError, WizardError
from ltx_wizard.core.gpu.tiers import Tier
from ltx_wizard.core.io.trainer_config import trainer_config
from ltx_wizard.core.proc.spawn import run_captured
from ltx_wizard.core.io.yaml_patch import get_dotted, load_yaml, patch_yaml_text, unified_diff

FULL_FT_KEYS = {
    "model.training_mode": "full",
    "acceleration.quantization": None,  # quantization with full fine-tune fails at run time
    "acceleration.offload_optimizer_during_validation": True,  # optimizer state is huge
}


@dataclass(frozen=True)
class BatchPlan:
    """How the effective batch (batch x accumulation x GPUs) is kept on this many GPUs."""

    wanted: int
    batch_size: int
    num_gpus: int
    accumulation: int
    achieved: int
    message: str | None  # set when the wanted batch cannot be kept exactly

    @property
    def kept(self) -> bool:
        return self.achieved == self.wanted


def plan_batch(wanted: int, batch_size: int, num_gpus: int) -> BatchPlan:
    """Lower gradient_accumulation_steps so batch x accumulation x GPUs stays `wanted`."""
    if wanted < 1 or batch_size < 1 or num_gpus < 1:
        raise UsageError(
            f"effective batch {wanted}, batch_size {batch_size} and GPUs {num_gpus} must all be >= 1"
        )
    per_step = batch_size * num_gpus
    accumulation = max(1, wanted // per_step)
    achieved = per_step * accumulation
    message = None
    if achieved != wanted:
        message = (
            f"the planned effective batch {wanted} cannot be kept with batch_size {batch_size} on "
            f"{num_gpus} GPU{'s' if num_gpus != 1 else ''}: it becomes {achieved} "
            f"(batch_size {batch_size} x gradient_accumulation_steps {accumulation} x {num_gpus})"
        )
    return BatchPlan(wanted, batch_size, num_gpus, accumulation, achieved, message)


def check_full_finetune(num_gpus: int, tier: Tier, force_full: bool) -> list[str]:
    """Full fine-tune needs 2+ GPUs of the 80GB+ tier under FSDP; else refuse unless forced."""
    problems = []
    if num_gpus < 2:
        problems.append(f"{num_gpus} GPU" + ("s" if num_gpus != 1 else ""))
    if tier is not Tier.T80:
        problems.append(f"the {tier.display_name}")
    if not problems:
        return []
    if not force_full:
        raise UsageError(
            "full fine-tune needs 2 or more GPUs of the 80GB+ tier under FSDP (this machine: "
            f"{', '.join(problems)}): use --training-mode lora (recommended), or --force-full "
            "to try anyway at your own risk"
        )
    return [
        f"full fine-tune forced on {', '.join(problems)}: it is unlikely to fit in memory — at your own risk"
    ]


@dataclass
class ConfigChanges:
    changes: dict[str, object] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    batch: BatchPlan | None = None


def compute_changes(
    base_text: str,
    *,
    model_path: Path,
    text_encoder_path: Path,
    data_root: Path,
    output_dir: Path,
    video_vae_path: Path | None = None,
    audio_vae_path: Path | None = None,
    training_mode: str = "lora",
    num_gpus: int = 1,
    effective_batch: int | None = None,
    base_name: str = "the shipped config",
) -> ConfigChanges:
    """The keys config.yaml changes relative to the shipped file (absolute paths only)."""
    base = load_yaml(base_text)
    keys = trainer_config(base, base_name).optimization
    out = ConfigChanges()
    out.changes["model.model_path"] = str(Path(model_path).resolve())
    out.changes["model.text_encoder_path"] = str(Path(text_encoder_path).resolve())
    if video_vae_path is not None:
        out.changes["model.video_vae_path"] = str(Path(video_vae_path).resolve())
    if audio_vae_path is not None:
        out.changes["model.audio_vae_path"] = str(Path(audio_vae_path).resolve())
    out.changes["data.preprocessed_data_root"] = str(Path(data_root).resolve())
    out.changes["output_dir"] = str(Path(output_dir).resolve())
    if training_mode == "full":
        out.changes.update(FULL_FT_KEYS)
    batch_size = keys.batch_size if keys.batch_size is not None else 1
    accumulation = keys.gradient_accumulation_steps if keys.gradient_accumulation_steps is not None else 1
    wanted = effective_batch if effective_batch is not None else batch_size * accumulation
    out.batch = plan_batch(wanted, batch_size, num_gpus)
    if out.batch.accumulation != accumulation:
        out.changes["optimization.gradient_accumulation_steps"] = out.batch.accumulation
    if out.batch.message:
        out.warnings.append(out.batch.message)
    # Keep only real changes, so the diff shows nothing that reads the same as before (a generic
    # diff over the patch's own keys: they are data here, not named reads).
    out.changes = {k: v for k, v in out.changes.items() if not _same(get_dotted(base, k, _ABSENT), v)}
    return out


_ABSENT = object()


def _same(old: object, new: object) -> bool:
    if old is _ABSENT:
        return False
    kinds = (bool, str, type(None))
    return old == new and all(isinstance(old, k) == isinstance(new, k) for k in kinds)


def build_config(base_text: str, changes: Mapping[str, object]) -> str:
    return patch_yaml_text(base_text, changes)


def self_check(config_text: str, *, data_pending: bool = False, where: str = CONFIG.name) -> list[str]:
    """What the trainer would reject at start-up; an empty list when the config is fine.
    `data_pending`: the data root is written later by the planned preprocessing. A wrongly typed
    value is refused at once (UsageError naming `where` and the key)."""
    keys = trainer_config(load_yaml(config_text), where)
    problems: list[str] = []
    paths = [
        ("model.model_path", keys.model.model_path),
        ("model.text_encoder_path", keys.model.text_encoder_path),
        ("model.video_vae_path", keys.model.video_vae_path),  # a split pack's; else left out
        ("model.audio_vae_path", keys.model.audio_vae_path),
    ]
    root = keys.data.preprocessed_data_root
    paths += [] if data_pending else [("data.preprocessed_data_root", root)]
    for key, value in paths:
        if value is None and key in ("model.video_vae_path", "model.audio_vae_path"):
            continue
        if value is None or not Path(value).exists():
            problems.append(f"{key} {value!r} does not exist")
    if root is not None and Path(root).is_dir() and not data_pending:
        # mirrors ltx_trainer/config.py LtxTrainerConfig._validate_data_dirs_exist
        folders = required_folders(keys.training_strategy)
        problems += [f"{root} has no {f}/ folder" for f in folders if not (Path(root) / f).is_dir()]
    if keys.validation.video_dims is not None:
        problems += _dims_problems(keys.validation.video_dims)
    return problems


def _dims_problems(dims: list[int]) -> list[str]:
    if len(dims) != 3:  # the view has checked each is a whole number
        return [f"validation.video_dims {dims} is not [width, height, frames]"]
    width, height, frames = dims
    out = []
    if width % 32 or height % 32:
        out.append(f"validation.video_dims {width}x{height}: width and height must divide by 32")
    if (frames - 1) % 8:
        out.append(f"validation.video_dims frames {frames}: (frames - 1) must divide by 8")
    return out


def require_self_check(config_text: str, where: str = CONFIG.name, *, data_pending: bool = False) -> None:
    problems = self_check(config_text, data_pending=data_pending, where=where)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise UsageError(f"{where} would fail in the trainer: {problems[0]}{more}")


def config_diff(
    base_text: str, written_text: str, base_name: str = "shipped", written_name: str = CONFIG.name
) -> str:
    """Printable diff of the shipped file vs config.yaml, for review before approval."""
    return unified_diff(base_text, written_text, base_name, written_name)


_SCHEMA_CHECK = """\
import sys, yaml
from ltx_trainer.config import LtxTrainerConfig
try:
    LtxTrainerConfig(**yaml.safe_load(sys.stdin.read()))
except Exception as exc:
    print(exc)
    sys.exit(1)
print("ok")
"""


@dataclass(frozen=True)
class SchemaCheck:
    ok: bool
    output: str  # the trainer's own text, verbatim


def validate_with_trainer(
    trainer_dir: Path, config_text: str, *, uv: str = "uv", timeout_s: float = 300.0
) -> SchemaCheck:
    """Validate `config_text` with the trainer's schema, in its environment (stdin: nothing written).

    Blocking (the first `uv run` may sync): the TUI calls it from a thread worker.
    """
    argv = [uv, "run", "python", "-c", _SCHEMA_CHECK]
    try:  # through core/proc: recorded in logs/commands.jsonl like every child
        proc = run_captured(argv, cwd=trainer_dir, stdin_text=config_text, timeout_s=timeout_s)
    except WizardError:
        return SchemaCheck(False, f"{uv} not found: install uv to validate with the trainer")
    except subprocess.TimeoutExpired:
        return SchemaCheck(False, f"the trainer's schema check took over {timeout_s:.0f}s")
    text = (proc.stdout + proc.stderr).strip()
    return SchemaCheck(proc.returncode == 0, text)
