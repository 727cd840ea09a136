"""`ltx-wizard setup` against a local git repository as the trainer's remote and a recorded
stand-in uv on PATH: no network. Each offer runs only after a yes; an existing checkout is never
touched without one; a checkout too old for the checkpoint is offered `git pull`."""

from __future__ import annotations

import io
import shutil
import sys

import pytest

from ltx_wizard.cli import main
from ltx_wizard.core.inputs import uv_tool
from ltx_wizard.core.setup import survey as survey_mod
from ltx_wizard.demo.lookalike_models import make_checkpoint
from tests.setup_standins import (
    advance_remote,
    git,
    make_remote,
    path_with,
    uv_calls,
    write_pip,
    write_uv,
)


@pytest.fixture
def box(tmp_path, monkeypatch):
    """A bare box: git on PATH, no uv anywhere (the wizard's own bin folder is a test folder)."""
    own = tmp_path / "wizard-env-bin"
    own.mkdir()
    monkeypatch.setattr(uv_tool, "own_scripts_dir", lambda: own)
    monkeypatch.setattr(survey_mod, "own_scripts_dir", lambda: own)
    monkeypatch.setattr(survey_mod.sizes, "fetch_url", _offline)
    monkeypatch.setenv("PATH", path_with(tmp_path))
    return tmp_path


def _offline(url: str) -> bytes:
    raise OSError(f"no network in tests: {url}")


def _answer(monkeypatch, *answers: str) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(a + "\n" for a in answers)))


def test_bare_box_clone_sync_and_import_check_after_yes(box, monkeypatch, capsys):
    remote = make_remote(box / "remote")
    bin_dir = box / "bin"
    write_uv(bin_dir)
    monkeypatch.setenv("PATH", path_with(box, bin_dir))
    code = main(["setup", "--trainer-repo", str(remote), "--yes"])
    out, err = capsys.readouterr()
    checkout = box / "home" / "LTX-2"
    assert code == 0 and out.strip() == str(checkout)
    assert "Clone the LTX-2 trainer" in err and f"git clones {remote} into {checkout}" in err
    assert "size:  about" in err and "(the repository on disk)" in err
    assert (checkout / ".git").is_dir() and (checkout / "packages" / "ltx-trainer").is_dir()
    calls = [c["argv"] for c in uv_calls(bin_dir)]
    assert calls == [["sync"], ["run", "python", "-c", "import ltx_trainer"]]
    assert "downloading 100%: 2 of 2 large wheels" in err  # uv's own lines, read as progress
    log = next((box / "home" / ".cache" / "ltx-wizard").glob("setup-*.log")).read_text()
    assert "$ " in log and "Installed 3 packages" in log and "clone" in log
    assert "Ready: uv" in err and "LTX-2.5" in err


def test_nothing_runs_without_a_yes(box, monkeypatch, capsys):
    remote = make_remote(box / "remote")
    write_uv(box / "bin")
    monkeypatch.setenv("PATH", path_with(box, box / "bin"))
    _answer(monkeypatch, "n", "")
    assert (
        main(["setup", "--trainer-repo", str(remote)]) == 130
    )  # declined: a stop by the user (README's exit codes)
    err = capsys.readouterr().err
    assert "declined" in err and "skipped: needs the clone step, which was declined" in err
    assert not (box / "home" / "LTX-2").exists() and uv_calls(box / "bin") == []


def test_an_existing_unsynced_checkout_is_only_synced_after_a_yes(box, monkeypatch, capsys):
    remote = make_remote(box / "remote")
    checkout = box / "home" / "LTX-2"
    git("clone", "-q", str(remote), str(checkout))
    before = git("status", "--porcelain", "--ignored", cwd=checkout)
    write_uv(box / "bin")
    monkeypatch.setenv("PATH", path_with(box, box / "bin"))
    _answer(monkeypatch, "n")
    assert main(["setup"]) == 130  # declined: a stop by the user (README's exit codes)
    assert git("status", "--porcelain", "--ignored", cwd=checkout) == before  # untouched
    assert not (checkout / "uv.lock").exists()  # ltx-core 1.2.0 ships none: the words say so
    assert (
        "the checkout is not synced (it has neither uv.lock nor .venv, which `uv sync` writes): uv sync in"
        in capsys.readouterr().err
    )
    _answer(monkeypatch, "y")
    assert main(["setup"]) == 0 and (checkout / ".venv").is_dir()


def test_a_checkout_too_old_for_the_checkpoint_is_offered_git_pull(box, monkeypatch, capsys):
    remote = make_remote(box / "remote", layout="1.1")  # Gemma 3 only, no LTX-2.5 rule
    checkout = box / "home" / "LTX-2"
    git("clone", "-q", str(remote), str(checkout))
    advance_remote(remote, "1.2")  # LTX-2.5 support lands upstream
    write_uv(box / "bin")
    monkeypatch.setenv("PATH", path_with(box, box / "bin"))
    ckpt = make_checkpoint(
        box / "m" / "ltx-2.5.safetensors", gemma_version="4", model_version="2.5.0", split=True
    )
    assert main(["setup", "--checkpoint", str(ckpt), "--yes"]) == 0
    err = capsys.readouterr().err
    assert "Update the trainer checkout (git pull)" in err
    assert "is an LTX-2.5-era checkpoint that declares its Gemma" in err and "ltx-core 1.1.7" in err
    assert (
        "gemma_source_checkpoint"
        in (checkout / "packages/ltx-core/src/ltx_core/text_encoders/gemma/encoders.py").read_text()
    )
    assert [c["argv"][0] for c in uv_calls(box / "bin")] == ["sync", "run"]


def test_uv_is_pip_installed_into_the_wizards_environment_and_used_by_path(box, monkeypatch, capsys):
    remote = make_remote(box / "remote")
    source = write_uv(box / "uv-wheel")  # what the `uv` package would put in place
    pip = write_pip(box / "pip", source, box / "wizard-env-bin")
    monkeypatch.setattr(survey_mod, "uv_install_argv", lambda: (str(pip), "install", "uv"))
    monkeypatch.setattr(survey_mod, "pip_available", lambda: True)
    assert main(["setup", "--trainer-repo", str(remote), "--yes"]) == 0
    err = capsys.readouterr().err
    assert "Install uv" in err and "into the wizard's own environment" in err
    assert "no shell pipe" in err and "size not known (pypi.org not reached: OSError)" in err
    installed = box / "wizard-env-bin" / "uv"
    assert installed.is_file()
    assert f"runs:  {installed} sync" in err  # by its path: no new shell needed
    assert [c["argv"][0] for c in uv_calls(box / "wizard-env-bin")] == ["sync", "run"]
    assert not (box / "home" / ".bashrc").exists() and not (box / "home" / ".profile").exists()


def test_a_failed_sync_says_why_and_keeps_the_log(box, monkeypatch, capsys):
    remote = make_remote(box / "remote")
    write_uv(box / "bin")
    monkeypatch.setenv("PATH", path_with(box, box / "bin"))
    monkeypatch.setenv("STANDIN_UV_FAIL", "1")
    assert main(["setup", "--trainer-repo", str(remote), "--yes"]) == 1
    err = capsys.readouterr().err
    assert "failed: uv sync failed (exit 2: error: Failed to fetch" in err and "setup-" in err


def test_a_foreign_folder_is_left_alone(box, monkeypatch, capsys):
    other = box / "home" / "LTX-2"
    other.mkdir(parents=True)
    (other / "notes.txt").write_text("mine")
    write_uv(box / "bin")
    monkeypatch.setenv("PATH", path_with(box, box / "bin"))
    assert main(["setup", "--yes"]) == 1
    assert "exists and is not an LTX-2 checkout: the wizard leaves it alone" in capsys.readouterr().err
    assert [p.name for p in other.iterdir()] == ["notes.txt"]


def test_git_missing_is_said_not_installed(tmp_path, monkeypatch, capsys):
    write_uv(tmp_path / "bin")
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    assert main(["setup", "--yes"]) == 1
    assert "git is not installed: the wizard does not install system packages" in capsys.readouterr().err


def _offer_block(err: str, title: str) -> str:
    """One offer as printed: from its title to the next blank line."""
    return err.split(f"\n{title}\n", 1)[1].split("\n\n", 1)[0]


@pytest.mark.parametrize(
    ("layout", "size"),
    [
        ("1.2", "not known: {checkout} has no uv.lock to read it from"),  # ltx-core 1.2.0: none shipped
        ("1.1", "about 12 MB of wheels (from uv.lock)"),  # the look-alike lock's one wheel
    ],
)
def test_the_sync_size_is_read_from_the_clone_when_shown(box, monkeypatch, capsys, layout, size):
    """Issue 41: after the clone the sync offer said "known after the clone", the size still missing."""
    remote = make_remote(box / "remote", layout=layout)
    write_uv(box / "bin")
    monkeypatch.setenv("PATH", path_with(box, box / "bin"))
    checkout = box / "home" / "LTX-2"
    assert main(["setup", "--trainer-repo", str(remote), "--yes"]) == 0
    sync = _offer_block(capsys.readouterr().err, "Install the trainer's environment (uv sync)")
    assert f"size:  {size.format(checkout=checkout)}" in sync
    assert "known after the clone" not in sync
    assert (remote / "uv.lock").exists() == (layout == "1.1")  # what the clone had when it was read


def test_an_ltx2_checkout_from_before_the_config_rename_is_offered_git_pull(box, monkeypatch, capsys):
    """Issue 41: a clone from before 2026-06-17 (tier configs named ltx2_av_lora*.yaml) was called
    "not an LTX-2 checkout" and left alone; the README says git pull is offered."""
    remote = make_remote(box / "remote", layout="1.0", before_rename=True)
    checkout = box / "home" / "LTX-2"
    git("clone", "-q", str(remote), str(checkout))
    advance_remote(remote, "1.2")  # the rename (and later releases) land upstream
    write_uv(box / "bin")
    monkeypatch.setenv("PATH", path_with(box, box / "bin"))
    _answer(monkeypatch, "n")
    assert main(["setup"]) == 130  # declined: a stop by the user (README's exit codes)
    err = capsys.readouterr().err
    assert "not an LTX-2 checkout" not in err
    assert "Update the trainer checkout (git pull)" in err
    assert f"{checkout} is an LTX-2 checkout from before 2026-06-17 (ltx-core 1.0.0)" in err
    assert "(ltx2_av_lora.yaml, ltx2_av_lora_low_vram.yaml)" in err
    assert not (checkout / "packages/ltx-trainer/configs/t2v_lora.yaml").exists()  # declined: untouched
    assert main(["setup", "--yes"]) == 0
    err = capsys.readouterr().err
    assert "done: git pull in" in err and "Setup done." in err
    assert (checkout / "packages/ltx-trainer/configs/t2v_lora.yaml").is_file()
    assert git("rev-parse", "HEAD", cwd=checkout) == git("rev-parse", "HEAD", cwd=remote)
    assert [c["argv"][0] for c in uv_calls(box / "bin")] == ["sync", "run"]


def test_a_failed_step_is_not_called_done(box, monkeypatch, capsys):
    """Issue 41: the summary's first line is read from the outcomes, not written beside them."""
    write_uv(box / "bin")
    monkeypatch.setenv("PATH", path_with(box, box / "bin"))
    assert main(["setup", "--trainer-repo", str(box / "no-such-repo"), "--yes"]) == 1
    err = capsys.readouterr().err
    assert "Setup not done: clone failed; sync skipped." in err and "Setup done." not in err


def test_plan_says_which_of_uv_lock_and_venv_the_checkout_lacks(model_tree, capsys):
    """Issue 41: `plan` warned "not synced (no .venv beside uv.lock)" of a checkout without uv.lock
    (LTX-2 has shipped none since ltx-core 1.2.0; `uv sync` writes it)."""
    box = model_tree()
    shutil.rmtree(box.checkout / ".venv")
    (box.checkout / "uv.lock").unlink()
    # a plan for real GPUs (a simulated plan's trainer needs no checkout environment)
    csv = box.ws.parent / "gpus.csv"
    csv.write_text("name, memory.total [MiB]\nNVIDIA H100 80GB HBM3, 81559 MiB\n")
    assert main([*box.args(sim=None), "--from-csv", str(csv)]) == 0, capsys.readouterr().err
    err = capsys.readouterr().err
    words = "not synced (it has neither uv.lock nor .venv, which `uv sync` writes)"
    assert f"{words}: run `uv sync` in {box.checkout}" in err
    assert "beside uv.lock" not in err
    plan_md = (box.run / "plan.md").read_text()
    assert words in plan_md and "beside uv.lock" not in plan_md
