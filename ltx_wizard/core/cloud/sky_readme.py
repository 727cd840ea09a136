"""<run>/sky/README.md: the three commands to run, how the task stops paying, what still costs money
after the end and the one command that removes each, and how results come home.

Every command is an argv here first (`commands`): the README shows them joined, and a test parses
each with SkyPilot's own command tree (click), so what is printed is what `sky` accepts.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from ltx_wizard.core.cloud import sky_layout as at
from ltx_wizard.core.cloud.sky_request import HF_TOKEN, SMOKE_STEPS, SkyRequest
from ltx_wizard.core.io import run_folder


@dataclass(frozen=True)
class SkyCommands:
    smoke: list[str]  # the three to run, in order
    train: list[str]
    logs: list[str]
    check: list[str]  # before the first: which clouds the credentials reach
    cancel: list[str]  # to stop paying before the end
    delete: list[str] | None  # the bucket or volume, once the results are home

    def three(self) -> list[list[str]]:
        return [self.smoke, self.train, self.logs]

    def every(self) -> list[list[str]]:
        return [self.check, *self.three(), self.cancel, *([self.delete] if self.delete else [])]


def commands(req: SkyRequest) -> SkyCommands:
    secret = ["--secret", HF_TOKEN] if req.token_needed else []
    smoke = run_folder.SKY_SMOKE.path(req.run_dir)
    task = run_folder.SKY_TASK.path(req.run_dir)
    delete = None
    if req.options.bucket:
        delete = ["sky", "storage", "delete", req.options.bucket]
    elif req.options.volume:
        delete = ["sky", "volumes", "delete", req.options.volume]
    return SkyCommands(
        smoke=["sky", "jobs", "launch", "-n", f"{req.task_name}-smoke", *secret, str(smoke)],
        train=["sky", "jobs", "launch", "-n", req.task_name, *secret, str(task)],
        logs=["sky", "jobs", "logs", "-n", req.task_name],
        check=["sky", "check"],
        cancel=["sky", "jobs", "cancel", "-n", req.task_name],
        delete=delete,
    )


def _costs(req: SkyRequest, cmds: SkyCommands) -> list[str]:
    opts = req.options
    if cmds.delete is None:
        return [
            "- Nothing: outputs/ lived on the node's disk and went with it (so did the checkpoints: "
            "next time pass --bucket NAME or --volume NAME)."
        ]
    what = f"the bucket `{opts.bucket}`" if opts.bucket else f"the volume `{opts.volume}`"
    return [
        f"- {what.capitalize()}, which holds outputs/ (checkpoints, samples, the log, and the smoke "
        "run's outputs/smoke/), bills for its storage until it is deleted. Once the results are "
        "home:",
        "",
        f"      {shlex.join(cmds.delete)}",
    ]


def _head(req: SkyRequest) -> list[str]:
    token = req.token_needed
    volume = req.options.volume
    return [
        f"# Run {req.run_name} on rented GPUs (SkyPilot)",
        "",
        f"{req.nodes} node(s) x {req.gpus_per_node} {req.accelerator}, {req.disk_gb} GB disk"
        f"{', spot' if req.options.spot else ''}; effective batch {req.effective_batch} as planned; "
        f"the trainer at commit {req.commit} on every node.",
        "",
        "Once, before the first: `sky check` says which clouds your credentials reach"
        + (" (and `export HF_TOKEN=...`: the model files are gated downloads)." if token else "."),
        *(
            [
                f"The volume `{volume}` must exist before the task starts: create it with "
                "`sky volumes apply` (its --infra, --type and --size are your infrastructure's)."
            ]
            if volume
            else []
        ),
    ]


def _three(cmds: SkyCommands) -> list[str]:
    return [
        "## The three commands",
        "",
        f"1. A {SMOKE_STEPS}-step smoke run first (a few minutes of GPU time): it sets up a node, "
        "trains, validates and saves as the real run will, into outputs/smoke/.",
        "",
        f"       {shlex.join(cmds.smoke)}",
        "",
        "2. The real run, once the smoke run ended well:",
        "",
        f"       {shlex.join(cmds.train)}",
        "",
        "3. Its log, as it trains (Ctrl-C stops watching, not the job):",
        "",
        f"       {shlex.join(cmds.logs)}",
    ]


def _home(req: SkyRequest) -> list[str]:
    run = shlex.quote(str(req.run_dir))
    store = "bucket" if req.options.bucket else "volume" if req.options.volume else "outputs"
    return [
        "## Bringing results home",
        "",
        f"The node writes the trainer's log to outputs/{at.LOG_REL}. Copy the {store}'s contents into "
        f"`{run_folder.OUTPUTS_DIR.path(req.run_dir)}` (with your cloud's storage tool; `sky storage ls` "
        "names the bucket's store); then, as for a local run:",
        "",
        f"- `ltx-wizard status {run}` reads that log and the checkpoints;",
        f"- `ltx-wizard eval {run}` and `ltx-wizard compare {run}` run on that copy (on this machine's GPU).",
    ]


def render_readme(req: SkyRequest) -> str:
    cmds = commands(req)
    lines = [
        *_head(req),
        "",
        *_three(cmds),
        "",
        "## How it stops paying",
        "",
        "- A managed job (`sky jobs launch`) ends when training ends, and SkyPilot takes the "
        "cluster down then; a preempted spot node is replaced and the job resumes from the newest "
        "checkpoint in outputs/ (its step count kept; its optimizer state too only when planned with "
        "--full-training-state: trainer.py _save_training_state). To stop early: "
        f"`{shlex.join(cmds.cancel)}`.",
        "",
        "What still costs money after the end:",
        "",
        *_costs(req, cmds),
        "",
        *_home(req),
        "",
        *(f"Note: {w}" for w in req.warnings),
    ]
    return "\n".join(lines).rstrip() + "\n"
