"""Round five, item 3: a clone interrupted before its checkout is recognised as such.

Re-running `setup` over it called it "not an LTX-2 checkout" and left the user stuck; now it is
offered to be finished (git fetch, origin/HEAD, reset to it) or removed (the command printed)."""

from __future__ import annotations

import shutil

from ltx_wizard.cli import main
from ltx_wizard.core.setup.interrupted_clone import interrupted_clone
from tests.cli.test_setup_offers import box  # noqa: F401 (the bare-box fixture: no uv, no network)
from tests.setup_standins import git, make_remote, path_with, write_uv


def _interrupted(remote, root) -> None:
    """What a clone killed during its fetch leaves: .git with the origin remote, no refs, no
    index, no files."""
    git("clone", "-q", str(remote), str(root))
    for entry in root.iterdir():
        if entry.name != ".git":
            shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
    (root / ".git" / "index").unlink()
    shutil.rmtree(root / ".git" / "refs" / "remotes", ignore_errors=True)
    (root / ".git" / "packed-refs").unlink(missing_ok=True)
    branch = git("symbolic-ref", "--short", "HEAD", cwd=root).strip()
    git("update-ref", "-d", f"refs/heads/{branch}", cwd=root)


def test_an_interrupted_clone_is_offered_to_be_finished_or_removed(box, monkeypatch, capsys):  # noqa: F811
    remote = make_remote(box / "remote")
    root = box / "work" / "LTX-2"
    _interrupted(remote, root)
    assert interrupted_clone(root)
    write_uv(box / "bin")
    monkeypatch.setenv("PATH", path_with(box, box / "bin"))
    code = main(["setup", "--trainer-root", str(root), "--trainer-repo", str(remote), "--yes"])
    out, err = capsys.readouterr()
    assert "not an LTX-2 checkout" not in err
    assert "was interrupted" in err and f"rm -rf -- {root}" in err
    assert "Finish the interrupted clone" in err
    assert code == 0 and out.strip() == str(root), err
    assert (root / "packages" / "ltx-trainer").is_dir() and (root / ".git" / "index").is_file()


def test_a_checkout_with_its_files_deleted_is_not_taken_for_an_interrupted_clone(box):  # noqa: F811
    remote = make_remote(box / "remote")
    root = box / "work" / "LTX-2"
    git("clone", "-q", str(remote), str(root))
    shutil.rmtree(root / "packages")
    assert not interrupted_clone(root)  # somebody's checkout: its index is there; left alone
