"""The pieces the task is built from: the checkout's commit read from .git, the accelerator's
SkyPilot name, each model file's source (a Hub download by the resolved repo id, else an upload)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.cloud.git_head import head_commit
from ltx_wizard.core.cloud.sky_layout import MODELS, accelerator_name, model_source
from ltx_wizard.core.cloud.sky_request import SkyOptions, build_request
from ltx_wizard.core.cloud.sky_scripts import render_setup
from ltx_wizard.core.cloud.sky_task import task_doc

GIT = shutil.which("git")


@pytest.mark.skipif(GIT is None, reason="needs git")
def test_the_commit_is_what_git_says_loose_packed_and_in_a_worktree(tmp_path):
    repo = tmp_path / "LTX-2"
    repo.mkdir()
    git = [GIT, "-C", str(repo), "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
    (repo / "a").write_text("a")
    subprocess.run([*git, "add", "a"], check=True)
    subprocess.run([*git, "commit", "-qm", "a"], check=True)

    def said(where) -> str:
        return subprocess.run(
            [GIT, "-C", str(where), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()

    assert head_commit(repo) == said(repo)  # refs/heads/main, loose
    subprocess.run([*git, "pack-refs", "--all"], check=True)
    assert not (repo / ".git" / "refs" / "heads" / "main").exists()
    assert head_commit(repo) == said(repo)  # from packed-refs
    subprocess.run([*git, "worktree", "add", "-q", "--detach", str(tmp_path / "wt")], check=True)
    assert head_commit(tmp_path / "wt") == said(tmp_path / "wt")  # a .git file


def test_a_folder_without_git_is_refused_with_the_reason(tmp_path):
    with pytest.raises(UsageError, match="is not a git clone"):
        head_commit(tmp_path)


@pytest.mark.parametrize(
    ("line", "name"),
    [
        ("0: NVIDIA H100 80GB HBM3 (80 GB)", "H100"),
        ("0: NVIDIA A100-SXM4-80GB (80 GB)", "A100-80GB"),
        ("0: NVIDIA A100-SXM4-40GB (40 GB)", "A100"),
        ("0: NVIDIA L40S (45 GB)", "L40S"),
        ("0: NVIDIA RTX A6000 (48 GB)", "RTXA6000"),
        ("0: NVIDIA H200 (140 GB)", "H200"),
    ],
)
def test_the_plans_gpu_gets_its_skypilot_name(line, name):
    assert accelerator_name((line,)) == name


def test_an_unknown_gpu_asks_for_accelerator():
    with pytest.raises(UsageError, match="--accelerator NAME"):
        accelerator_name(("0: NVIDIA GB10 (120 GB)",))


def test_a_hub_file_is_downloaded_by_its_repo_id_and_any_other_uploaded(tmp_path):
    hub = (
        tmp_path / "models" / "ltx-2.5" / "diffusion_models" / "ltx-2.5-22b-dev-transformer-bf16.safetensors"
    )
    src = model_source("model.model_path", hub)
    assert (src.repo, src.filename) == (
        "Lightricks/LTX-2.5",
        "diffusion_models/ltx-2.5-22b-dev-transformer-bf16.safetensors",
    )
    assert (
        src.remote == MODELS / "ltx-2.5" / "diffusion_models" / "ltx-2.5-22b-dev-transformer-bf16.safetensors"
    )
    gemma = tmp_path / "models" / "gemma-3-12b-it"
    gemma.mkdir(parents=True)
    src = model_source("model.text_encoder_path", gemma)
    assert (src.repo, src.filename) == ("google/gemma-3-12b-it-qat-q4_0-unquantized", None)
    own = model_source("model.model_path", tmp_path / "my-finetune.safetensors")
    assert own.repo is None and own.remote == MODELS / "upload" / "model_path" / "my-finetune.safetensors"


def test_downloads_are_in_setup_and_the_token_is_a_secret(tmp_path, monkeypatch):
    from tests.sky_kit import planned_run
    from ltx_wizard.core.io import run_folder
    from ltx_wizard.core.io.yaml_patch import patch_yaml_text

    run = planned_run(tmp_path)
    hub = (
        tmp_path / "models" / "ltx-2.5" / "diffusion_models" / "ltx-2.5-22b-dev-transformer-bf16.safetensors"
    )
    hub.parent.mkdir(parents=True)
    shutil.copy(tmp_path / "models" / "ltx-2.safetensors", hub)
    config = run_folder.CONFIG.path(run)
    config.write_text(patch_yaml_text(config.read_text(), {"model.model_path": str(hub)}))
    req = build_request(run, SkyOptions(), env={})
    setup = render_setup(req)
    assert (
        "uvx --from huggingface_hub hf download Lightricks/LTX-2.5 "
        'diffusion_models/ltx-2.5-22b-dev-transformer-bf16.safetensors --local-dir "$ROOT"/models/ltx-2.5'
    ) in setup
    doc = task_doc(req, smoke=False)
    assert doc["secrets"] == {"HF_TOKEN": None}
    assert str(hub) not in doc["file_mounts"].values()  # downloaded there, not uploaded from here
    assert any("export HF_TOKEN=" in w for w in req.warnings)
    assert not any("HF_TOKEN" in w for w in build_request(run, SkyOptions(), env={"HF_TOKEN": "x"}).warnings)
