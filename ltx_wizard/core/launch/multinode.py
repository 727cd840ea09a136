"""Training on several machines: the node count, accelerate's multi-node launch, and plan.md's words.

The trainer has no multi-node code of its own: accelerate (torchrun underneath) starts one process
per GPU on every node. The wizard plans for that, per node exactly as on one machine (same tier,
same full fine-tune rule, the shipped ddp.yaml/fsdp.yaml by path), and totals over the nodes.
Pure: what `accelerate launch` accepts is checked by a test against the installed parser.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from ltx_wizard.core.io import run_folder
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.launch.launch_command import QUIET_FLAG, TRAIN_SCRIPT
from ltx_wizard.core.gpu.tiers import LaunchStyle, launch_style

MAX_NODES = 1024
DEFAULT_MAIN_PORT = 29500
SBATCH_NAME = run_folder.SBATCH.rel
RESUME_CONFIG_NAME = "config.resume.yaml"
# Shell variables the per-node line leaves for the node to fill (see slurm.py).
NODE_RANK_VAR = '"$SLURM_NODEID"'
MAIN_IP_VAR = '"$MAIN_IP"'
CONFIG_VAR = '"$TRAIN_CONFIG"'


def shell_words(argv: list[str]) -> str:
    """Quote each word, except the variable references the script fills in on each node."""
    raw = {NODE_RANK_VAR, MAIN_IP_VAR, CONFIG_VAR}
    return " ".join(a if a in raw else shlex.quote(a) for a in argv)


def parse_nodes(value: object) -> int:
    """`--nodes N`: a whole number 1..1024, else a one-line UsageError."""
    text = str(value).strip()
    if not re.fullmatch(r"[+]?\d+", text):
        raise UsageError(f"--nodes wants a whole number of machines (1..{MAX_NODES}), got {text!r}")
    nodes = int(text)
    if not 1 <= nodes <= MAX_NODES:
        raise UsageError(
            f"--nodes {nodes} is outside 1..{MAX_NODES}: give the number of machines "
            "to train on (1 for this machine only)"
        )
    return nodes


@dataclass(frozen=True)
class MultiNodePlan:
    nodes: int
    gpus_per_node: int
    training_mode: str
    style: LaunchStyle  # ddp or fsdp, by the total GPU count, as on one machine
    trainer_dir: Path  # <checkout>/packages/ltx-trainer, the same path on every node
    accelerate_config: Path  # the shipped ddp.yaml / fsdp.yaml
    run_dir: Path
    config: Path
    data_root: Path
    output_dir: Path
    effective_batch: int | None = None  # batch x accumulation x total GPUs, as planned
    main_port: int = DEFAULT_MAIN_PORT
    uv: str = "uv"

    @property
    def total_gpus(self) -> int:
        return self.nodes * self.gpus_per_node

    @property
    def sbatch_path(self) -> Path:
        return self.run_dir / SBATCH_NAME

    @property
    def resume_config(self) -> Path:
        return self.run_dir / RESUME_CONFIG_NAME

    def launch_prefix(self, main_ip: str) -> list[str]:
        """The argv up to the node rank, the same on every node. The flags override what the
        shipped file says (num_machines 1, num_processes 4, machine_rank 0); the file keeps the
        DDP/FSDP settings. `--same_network` must be given: accelerate's parser defaults it to
        False, so the file's `same_network: true` never applies (accelerate/commands/launch.py
        _validate_launch_command copies only values the parser left at None)."""
        # --no-sync: every node shares the checkout's .venv; concurrent syncs of it would race.
        return [
            self.uv,
            "run",
            "--no-sync",
            "accelerate",
            "launch",
            "--config_file",
            str(self.accelerate_config),
            "--num_machines",
            str(self.nodes),
            "--num_processes",
            str(self.total_gpus),  # the total: accelerate divides by machines
            "--main_process_ip",
            main_ip,
            "--main_process_port",
            str(self.main_port),
            # static, like the shipped files: node ranks come from Slurm, so global rank 0 (the
            # one that saves checkpoints) is on the first node, the one `main_ip` names.
            "--rdzv_backend",
            "static",
            "--same_network",
        ]

    @staticmethod
    def train_args(config: str) -> list[str]:
        return [TRAIN_SCRIPT, config, QUIET_FLAG]

    def node_argv(self, machine_rank: str, main_ip: str, config: str | None = None) -> list[str]:
        """What node `machine_rank` runs (in `trainer_dir`)."""
        return [
            *self.launch_prefix(main_ip),
            "--machine_rank",
            machine_rank,
            *self.train_args(config or str(self.config)),
        ]

    def shell_line(self) -> str:
        """The per-node line for plan.md: node rank, main address and config left as variables."""
        cmd = shell_words(self.node_argv(NODE_RANK_VAR, MAIN_IP_VAR, CONFIG_VAR))
        return f"cd {shlex.quote(str(self.trainer_dir))} && {cmd}"

    def submit_line(self) -> str:
        return f"cd {shlex.quote(str(self.run_dir))} && sbatch {SBATCH_NAME}"


def require_gpus_per_node(gpus_per_node: int) -> None:
    """A login node sees no GPU: the per-node count must come from one compute node."""
    if gpus_per_node < 1:
        raise UsageError(
            "no GPU is visible here (a login node?): plan several machines from one compute "
            "node's GPUs with --from-csv FILE (saved there with `nvidia-smi --query-gpu="
            "name,memory.total --format=csv`) or --simulate PRESET"
        )


def plan_multinode(
    *,
    nodes: int,
    gpus_per_node: int,
    training_mode: str,
    trainer_dir: Path,
    shipped_accelerate_dir: Path,
    run_dir: Path,
    config: Path,
    data_root: Path,
    output_dir: Path,
    effective_batch: int | None = None,
) -> MultiNodePlan:
    """The launch for `nodes` machines like this one (`gpus_per_node` each, from the probe)."""
    nodes = parse_nodes(nodes)
    require_gpus_per_node(gpus_per_node)
    total = nodes * gpus_per_node
    style = launch_style(total, training_mode)
    if style == "single":  # one node with one GPU is not a multi-node plan; callers skip it
        raise UsageError("a multi-node plan needs 2 or more GPUs in all")
    # The same rule as one machine (core/launch/launch_command.py): the trainer's own accelerate file, by path.
    return MultiNodePlan(
        nodes=nodes,
        gpus_per_node=gpus_per_node,
        training_mode=training_mode,
        style=style,
        trainer_dir=Path(trainer_dir).resolve(),
        accelerate_config=Path(shipped_accelerate_dir).resolve() / f"{style}.yaml",
        run_dir=Path(run_dir),
        config=Path(config).resolve(),
        data_root=Path(data_root),
        output_dir=Path(output_dir),
        effective_batch=effective_batch,
    )


def plan_section(plan: MultiNodePlan, *, checkpoint_every: object) -> list[str]:
    """plan.md's "Several machines (Slurm)" section: how, and what to know before `sbatch`."""
    kind = "FSDP" if plan.style == "fsdp" else "DDP"
    every = (
        f"every {checkpoint_every} steps"
        if isinstance(checkpoint_every, int) and checkpoint_every > 0
        else "as `checkpoints.interval` says"
    )
    return [
        "## Several machines (Slurm)",
        "",
        "> **Untested on a real cluster.** The script is checked with `bash -n` and with stand-ins "
        "for `srun`/`scontrol`, its flags against accelerate's own parser and in a two-machine "
        "rendezvous on one host, never on Slurm or across a real network. Try a short job first "
        "(a few steps, a short `--time`).",
        "",
        f"- {plan.nodes} nodes x {plan.gpus_per_node} GPU{'s' if plan.gpus_per_node != 1 else ''}"
        f" = **{plan.total_gpus} GPUs**, {kind} through accelerate's multi-node launch with the "
        f"shipped `{plan.accelerate_config.name}`; effective batch **{plan.effective_batch}** "
        f"(batch x accumulation x {plan.total_gpus} GPUs).",
        f"- Submit from a login node: `{plan.submit_line()}`. The script `{SBATCH_NAME}` asks "
        "for one task per node; each task starts accelerate with its node's rank "
        "(`$SLURM_NODEID`), the first node of the allocation as the main address (`$MAIN_IP`) "
        f"and `config.yaml` (or `{RESUME_CONFIG_NAME}` on a requeue) as `$TRAIN_CONFIG`:",
        "",
        "```sh",
        plan.shell_line(),
        "```",
        "",
        *_before_you_submit(plan, every),
    ]


def _before_you_submit(plan: MultiNodePlan, every: str) -> list[str]:
    """What the user must know, per node, before `sbatch`."""
    return [
        "### Before you submit",
        # mirrors ltx_trainer/trainer.py: module-level IS_MAIN_PROCESS (LOCAL_RANK == "0") guards
        # print_config, _save_config, _init_wandb and the push_to_hub block in train();
        # _save_checkpoint (and _save_training_state, called from it) use is_main_process.
        "- **Main process per node.** The trainer takes `LOCAL_RANK == 0` as its main process "
        "(`IS_MAIN_PROCESS` in ltx_trainer/trainer.py), which is true once on *every* node. So "
        f"each of the {plan.nodes} nodes prints the config and the step lines, writes "
        "`outputs/training_config.yaml` (the same file each time), and, if you turn them on, "
        "starts its own W&B run (`wandb.enabled`, so expect one run per node) and pushes to the "
        "Hub at the end (`hub.push_to_hub`: only the first node saved the weights, so the push "
        "fails on the others, after training). "
        "Checkpoint weights and the training state are saved once, by global rank 0 "
        "(`accelerator.is_main_process`), which is on the first node.",
        "- **Same commit, same paths on every node.** Every node runs the checkout at "
        f"`{plan.trainer_dir}` and reads `config.yaml`, the model files and the data at the same "
        "absolute paths: keep them on a filesystem all nodes mount (the script stops on a node "
        "that lacks the data). Run `uv sync` once in the checkout before submitting; the nodes "
        "use that environment with `uv run --no-sync`.",
        "- **Shared output folder.** `outputs/` must be shared too: every rank renders its share "
        "of the validation videos into it for rank 0 to gather, and a requeued job must find "
        "the last checkpoint there.",
        f"- **Resume on requeue.** The job asks to be requeued (`--requeue`, and by itself 5 "
        "minutes before its time limit). When it starts again, the script looks for "
        "`*step_*.safetensors` under `outputs/checkpoints/`; if there is one it trains from "
        f"`{RESUME_CONFIG_NAME}`, which is `config.yaml` plus `model.load_checkpoint` set to that "
        "folder (the trainer takes the latest step in a folder, and resumes the step count from "
        f"the training state beside it). Checkpoints are saved {every}: the steps since the last "
        "one are trained again.",
        "- **Network.** If the nodes have several network interfaces, fill in the NCCL/Gloo "
        f"interface variables commented in `{SBATCH_NAME}`; the main port is {plan.main_port}.",
        f"- **Autotune stays single-node.** The sanity check and the trials run on one node's "
        f"{plan.gpus_per_node} GPU{'s' if plan.gpus_per_node != 1 else ''} (run the wizard or "
        "`ltx-wizard autotune` inside a one-node job); the winner is patched into `config.yaml`, "
        "which every node reads. Its step times are one node's: traffic between nodes adds to "
        "them.",
        "",
    ]
