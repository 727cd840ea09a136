"""Issue 42, the TUI's Setup screen: `ltx-wizard --from-csv GPUS --trainer-repo REMOTE` (real GPUs
as a saved nvidia-smi table says: setup is offered only off --demo and --simulate) in a pty
(80x24), from a fresh HOME, the clone and the sync accepted by keys, the stand-in uv hanging in
`uv sync` with a build child; then a signal to the wizard. Neither may be alive 5 s after the
wizard is gone."""

from __future__ import annotations

import pytest

from .children import Wizard, signals, wait_for, wizard_env
from .tui_walk import CTRL_N
from .test_signals_setup import setup_argv  # noqa: F401 (the fixture: HOME, PATH, the remote)

GPUS_CSV = "name, memory.total [MiB]\nNVIDIA H100 80GB HBM3, 81559 MiB\n"


@pytest.mark.parametrize(
    "sig",
    signals(),
)
def test_a_signal_to_the_tui_stops_uv_sync(tmp_path, setup_argv, sig):  # noqa: F811
    gpus = tmp_path / "gpus.csv"
    gpus.write_text(GPUS_CSV, encoding="utf-8")
    argv = ["--from-csv", str(gpus), *setup_argv[1:-1]]  # --trainer-repo REMOTE
    with Wizard(argv, env=wizard_env(TMPDIR=str(tmp_path)), cwd=tmp_path, tty=True) as wizard:
        wizard.wait_shown("^n Continue ^r Re-probe")
        wizard.key_until(CTRL_N, "Clone the LTX-2 trainer")
        wizard.key_to("y", "(2 of 2)")  # cloned; the sync offered
        wizard.press("y")
        wizard.child_up("sync")
        wait_for(lambda: (tmp_path / "bin" / "sync.pids").is_file(), 60, "uv sync's build child started")
        wizard.record()
        wizard.assert_leaves_nothing(sig)
