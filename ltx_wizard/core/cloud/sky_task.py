"""task.yaml and smoke.yaml (SkyPilot task files), the trainer configs they train on the node, and
the one writer of <run>/sky/.

The task: resources (the plan's GPU and count per node, disk for the plan's budget, spot when asked,
the node count), file_mounts (the run folder; the data, models not from the Hub and validation media
when they lie elsewhere; the bucket for outputs/), volumes (a volume for outputs/), setup.sh and
run.sh. The configs are config.yaml with its paths moved to the node's (sky_layout.py); the smoke
config trains 20 steps into outputs/smoke, which the real task never resumes from.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.scalarstring import LiteralScalarString

from ltx_wizard.core.cloud import sky_layout as at
from ltx_wizard.core.cloud.sky_readme import render_readme
from ltx_wizard.core.cloud.sky_request import HF_TOKEN, SMOKE_STEPS, SkyRequest
from ltx_wizard.core.cloud.sky_scripts import render_run, render_setup
from ltx_wizard.core.io import run_folder
from ltx_wizard.core.io.workspace import atomic_write_text


def _yaml() -> YAML:
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True  # config.yaml's own quoting and comments stay as plan wrote them
    yaml.indent(mapping=2, sequence=4, offset=2)
    return yaml


def _dump(doc: Any, head: str = "") -> str:
    yaml = _yaml()
    yaml.default_flow_style = False
    yaml.width = 4096  # a long path stays on one line
    out = io.StringIO()
    yaml.dump(doc, out)
    return head + out.getvalue()


def _mounts(req: SkyRequest) -> dict[str, Any]:
    mounts: dict[str, Any] = {str(at.RUN): str(req.run_dir)}
    if req.data_uploaded:
        mounts[str(at.DATA)] = str(req.data_local)
    for m in req.models:
        if not m.download:
            mounts[str(m.remote)] = str(m.local)
    for local, remote in req.media:
        mounts[str(remote)] = str(local)
    if req.options.bucket:
        # MOUNT_CACHED: writes land on the node's disk first and are uploaded behind, so the
        # trainer's saves and the log's appends work (plain MOUNT refuses appends)
        mounts[str(at.OUTPUTS)] = {"name": req.options.bucket, "mode": "MOUNT_CACHED"}
    return mounts


def task_doc(req: SkyRequest, smoke: bool) -> dict[str, Any]:
    resources: dict[str, Any] = {
        "accelerators": f"{req.accelerator}:{req.gpus_per_node}",
        "disk_size": req.disk_gb,
        "use_spot": req.options.spot,
    }
    doc: dict[str, Any] = {"name": req.task_name + ("-smoke" if smoke else "")}
    if req.nodes > 1:
        doc["num_nodes"] = req.nodes
    doc["resources"] = resources
    doc["file_mounts"] = _mounts(req)
    if req.options.volume:
        doc["volumes"] = {str(at.OUTPUTS): req.options.volume}
    if req.token_needed:
        doc["secrets"] = {HF_TOKEN: None}  # from `--secret HF_TOKEN`: the gated repos need it
    doc["setup"] = LiteralScalarString(f"bash {at.on_node(run_folder.SKY_SETUP)}\n")
    doc["run"] = LiteralScalarString(
        f"bash {at.on_node(run_folder.SKY_RUN)} {'smoke' if smoke else 'task'}\n"
    )
    return doc


def task_text(req: SkyRequest, smoke: bool) -> str:
    what = f"a {SMOKE_STEPS}-step smoke run of" if smoke else "the training of"
    head = (
        f"# Written by ltx-wizard: {what} run {req.run_name} on rented GPUs (SkyPilot).\n"
        f"# {req.nodes} node(s) x {req.gpus_per_node} {req.accelerator}; effective batch "
        f"{req.effective_batch}; trainer commit {req.commit}.\n# How to run it: sky/README.md.\n"
    )
    return _dump(task_doc(req, smoke), head)


def config_text(req: SkyRequest, smoke: bool) -> str:
    """config.yaml with the node's paths (and for the smoke run, its steps and outputs)."""
    doc = _yaml().load(req.config_text)
    model = doc["model"]
    for m in req.models:
        model[m.key.split(".", 1)[1]] = str(m.remote)
    doc["data"]["preprocessed_data_root"] = str(req.data_remote)
    samples = (doc.get("validation") or {}).get("samples") or []
    moved = {str(local): str(remote) for local, remote in req.media}
    for sample in samples:
        for key in list(sample):
            if isinstance(sample[key], str) and sample[key] in moved:
                sample[key] = moved[sample[key]]
    doc["output_dir"] = str(at.SMOKE_OUTPUTS if smoke else at.OUTPUTS)
    if smoke:
        doc["optimization"]["steps"] = SMOKE_STEPS
    return _dump(doc)


# What the run folder's upload leaves out: the task's outputs live on the bucket or volume, and the
# local runs' outputs, logs, overfit check and held-out latents are no use on the node.
NOT_UPLOADED = (run_folder.OUTPUTS_DIR, run_folder.LOGS_DIR, run_folder.OVERFIT_DIR, run_folder.HOLDOUT_DIR)


def ignore_text() -> str:
    """<run>/.skyignore (rsync patterns; a leading / is the run folder: sky/data/storage_utils.py)."""
    head = "# Written by ltx-wizard (launch --target skypilot): what the task does not upload\n"
    return head + "".join(f"/{entry.rel}\n" for entry in NOT_UPLOADED)


def sky_files(req: SkyRequest) -> dict[run_folder.RunFile, str]:
    """Every file of <run>/sky/ and its text."""
    return {
        run_folder.SKY_TASK: task_text(req, smoke=False),
        run_folder.SKY_SMOKE: task_text(req, smoke=True),
        run_folder.SKY_CONFIG: config_text(req, smoke=False),
        run_folder.SKY_SMOKE_CONFIG: config_text(req, smoke=True),
        run_folder.SKY_SETUP: render_setup(req),
        run_folder.SKY_RUN: render_run(req),
        run_folder.SKY_README: render_readme(req),
        run_folder.SKY_IGNORE: ignore_text(),
    }


def write_sky_files(req: SkyRequest) -> list[Path]:
    """Each written through a temp file and a rename, never outside the run folder."""
    written = []
    for entry, text in sky_files(req).items():
        written.append(atomic_write_text(entry.path(req.run_dir), text, root=req.run_dir))
    return written
