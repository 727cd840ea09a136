"""The trainer launch command: one process, DDP for LoRA on several GPUs, FSDP for full fine-tune.

A multi-GPU launch always names an accelerate config, as the trainer's docs/training-guide.md
launches it (`accelerate launch --config_file configs/accelerate/{ddp,fsdp}.yaml`): without one,
accelerate falls back to the user's own default config (~/.cache/huggingface/accelerate), which
may say anything. That config is the run's accelerate.yaml when plan wrote one (the shipped file
with the right count), else the checkout's shipped ddp.yaml / fsdp.yaml. Those hard-code
`num_processes: 4`, so the launch always passes `--num_processes N` too. Commands run in `<checkout>/packages/ltx-trainer` with an absolute
config path, so they work whatever directory the user pastes them into (`cd` is part of the line).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Literal

from ltx_wizard.core.inputs.checkout import TRAINER_REL
from ltx_wizard.core.gpu.tiers import launch_style

Style = Literal["single", "ddp", "fsdp"]
TRAIN_SCRIPT = "scripts/train.py"
ACCELERATE_CONFIGS_REL = Path("configs/accelerate")  # ddp.yaml, fsdp.yaml (+ *_compile.yaml)
FSDP_CONFIG_REL = ACCELERATE_CONFIGS_REL / "fsdp.yaml"
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


def join_args(argv: Iterable[object]) -> str:
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

    def trial_prefix(self) -> list[str]:
        """The argv before CONFIG, runnable from any directory: autotune's trials put their own
        config after it. One GPU: `uv run --directory <trainer>` (the plan's line cds instead)."""
        if self.style == "single":
            return [self.argv[0], "run", "--directory", str(self.cwd), "python", TRAIN_SCRIPT]
        return self.argv[: self.argv.index(TRAIN_SCRIPT) + 1]

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
    argv = [
        uv,
        "run",
        "accelerate",
        "launch",
        "--config_file",
        str(accelerate_config_file(trainer_dir, style, accelerate_config)),
        "--num_processes",
        str(num_gpus),
        TRAIN_SCRIPT,
        config,
        QUIET_FLAG,
    ]
    return LaunchPlan(argv=argv, cwd=trainer_dir, env=env, style=style, num_processes=num_gpus)


def accelerate_config_file(trainer_dir: Path, style: Style, written: Path | None) -> Path:
    """The accelerate config a multi-GPU launch names: the run's own copy, else the shipped one."""
    if written is not None:
        return Path(written).resolve()
    # mirrors packages/ltx-trainer/docs/training-guide.md "Use the Provided Accelerate Configs"
    return trainer_dir / ACCELERATE_CONFIGS_REL / f"{style}.yaml"
