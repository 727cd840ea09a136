"""core/base/scp_line.py: the line that copies a render or compare's folder home, run as printed
(here against a stand-in `scp` on PATH that copies `host:path` as the real one would over SSH)."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

from ltx_wizard.core.base.scp_line import scp_line


def test_over_ssh_it_names_the_address_and_port_the_session_came_in_on(tmp_path: Path):
    env = {"SSH_CONNECTION": "10.0.0.9 51000 10.0.0.2 2222"}
    argv = shlex.split(scp_line(tmp_path / "a folder", env, folder=True))
    assert argv[:4] == ["scp", "-r", "-P", "2222"] and argv[5] == "."
    assert argv[4].endswith(f"@10.0.0.2:{(tmp_path / 'a folder').resolve()}")
    assert shlex.split(scp_line(tmp_path / "f.mp4", {}))[1].endswith("@<this-box>:" + str(tmp_path / "f.mp4"))


def test_the_folder_line_runs_as_printed(tmp_path: Path):
    folder = tmp_path / "run dir" / "outputs" / "compare"
    (folder / "renders" / "base").mkdir(parents=True)
    (folder / "renders" / "base" / "prompt-00.mp4").write_bytes(b"clip")
    (folder / "index.html").write_text("<html></html>", "utf-8")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    stand_in = bin_dir / "scp"  # takes the path after the host, as the real scp reads it remotely
    stand_in.write_text(
        f"#!{sys.executable}\n"
        "import shutil, sys\n"
        "args = [a for a in sys.argv[1:] if a != '-r']\n"
        "source, target = args[0].split(':', 1)[1], args[1]\n"
        "shutil.copytree(source, target + '/' + source.rsplit('/', 1)[1])\n",
        encoding="utf-8",
    )
    stand_in.chmod(0o755)
    home = tmp_path / "users-machine"
    home.mkdir()
    line = scp_line(folder, {}, folder=True)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    subprocess.run(shlex.split(line), cwd=home, env=env, check=True, timeout=60)
    assert (home / "compare" / "renders" / "base" / "prompt-00.mp4").read_bytes() == b"clip"
    assert (home / "compare" / "index.html").is_file()
