"""The trainer launch command: one process, DDP for LoRA on several GPUs, FSDP for full fine-tune.

The trainer's own accelerate configs hard-code `num_processes: 4`, so a multi-GPU launch always
passes `--num_processes N`. Commands run in `<checkout>/packages/ltx-trainer` with an absolute
config path, so they work whatever directory the user pastes them into (`cd` is part of the line).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from ltx_wizard.core.lookalike_checkout import TRAINER_REL
from ltx_wizard.core.tiers import launch_style

Style = Literal["single", "ddp", "fsdp"]
TRAIN_SCRIPT = "scripts/train.py"
FSDP_CONFIG_REL = Path("configs/accelerate/fsdp.yaml")
QUIET_FLAG = "--disable-progress-bars"  # without it, piped output carries no step lines


def quote_arg(arg: str) -> str:
    """shlex.quote, except that control characters (a newline in a path) use bash's $'...' form,
    so the command stays on one line in plan.md and in the terminal."""
    if not any(ord(c) < 32 or ord(c) == 127 for c in arg):
        return shlex.quote(arg)
    out = []
    for c in arg:
        if c in "\\'":
            out.append("\\" + c)
        elif ord(c) < 32 or ord(c) == 127:
            out.append({"\n": "\\n", "\t": "\\t", "\r": "\\r"}.get(c, f"\\x{ord(c):02x}"))
        else:
            out.append(c)
    return "$'" + "".join(out) + "'"


def join_args(argv) -> str:
    return " ".join(quote_arg(str(a)) for a in argv)


@dataclass(frozen=True)
class LaunchPlan:
    argv: list[str]
    cwd: Path
    env: dict[str, str] = field(default_factory=dict)  # only what must differ from the user's env
    style: Style = "single"
    num_processes: int = 1

    def shell_line(self) -> str:
        """One line to copy into a shell: cd, the narrowed CUDA_VISIBLE_DEVICES, the command."""
        env = " ".join(f"{k}={quote_arg(v)}" for k, v in sorted(self.env.items()))
        cmd = join_args(self.argv)
        return f"cd {quote_arg(str(self.cwd))} && " + (f"{env} {cmd}" if env else cmd)

    def argv_with_env(self) -> list[str]:
        """The argv with the environment carried by `env`, for callers that take one list."""
        if not self.env:
            return list(self.argv)
        return ["env", *(f"{k}={v}" for k, v in sorted(self.env.items())), *self.argv]


def build_launch(
    checkout_root: Path,
    config_path: Path,
    num_gpus: int,
    training_mode: str,
    cuda_visible_devices: str | None,
    accelerate_config: Path | None = None,
    *,
    uv: str = "uv",
) -> LaunchPlan:
    """The command that trains `config_path` on `num_gpus` GPUs from the user's checkout."""
    trainer_dir = Path(checkout_root).resolve() / TRAINER_REL
    config = str(Path(config_path).resolve())
    env = {"CUDA_VISIBLE_DEVICES": cuda_visible_devices} if cuda_visible_devices else {}
    style: Style = launch_style(num_gpus, training_mode)
    if style == "single":
        argv = [uv, "run", "python", TRAIN_SCRIPT, config, QUIET_FLAG]
        return LaunchPlan(argv=argv, cwd=trainer_dir, env=env, style=style, num_processes=1)
    argv = [uv, "run", "accelerate", "launch"]
    if accelerate_config is not None:
        argv += ["--config_file", str(Path(accelerate_config).resolve())]
    elif style == "fsdp":
        argv += ["--config_file", str(trainer_dir / FSDP_CONFIG_REL)]
    else:
        argv.append("--multi_gpu")  # DDP with no config file
    argv += ["--num_processes", str(num_gpus), TRAIN_SCRIPT, config, QUIET_FLAG]
    return LaunchPlan(argv=argv, cwd=trainer_dir, env=env, style=style, num_processes=num_gpus)
