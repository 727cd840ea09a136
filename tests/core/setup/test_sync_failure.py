"""A failed `uv sync` says what uv could not reach (issue 40, item 9): uv ends a network failure
on its innermost cause (the DNS error), so the address it was fetching is taken from the lines
before it. The stand-in uv fails as uv does with no name server (tests/setup_standins.py)."""

from __future__ import annotations

import os

from ltx_wizard.core.setup.run_step import StepResult
from ltx_wizard.core.setup.offer_session import run_offer
from ltx_wizard.core.setup.survey import survey
from ltx_wizard.demo.lookalike_checkout import make_checkout
from tests.setup_standins import path_with, write_uv


def _offline(url: str) -> bytes:
    raise OSError(f"no network in tests: {url}")


def test_a_sync_that_cannot_resolve_names_the_url_it_was_fetching(tmp_path):
    root = make_checkout(tmp_path / "LTX-2", synced=False)
    write_uv(tmp_path / "bin")
    env = dict(os.environ, PATH=path_with(tmp_path, tmp_path / "bin"), STANDIN_UV_FAIL="dns")
    found = survey(root, env=env, fetch=_offline)
    sync = next(o for o in found.offers if o.key == "sync")
    log = tmp_path / "setup.log"
    outcome = run_offer(sync, log, env=env)
    assert outcome.status == "failed"
    assert "Temporary failure in name resolution" in outcome.detail  # the cause, as before
    assert "(fetching https://pypi.org/simple/torch/)" in outcome.detail  # and where
    assert "Caused by: error sending request for url (https://pypi.org/simple/torch/)" in log.read_text()


def test_a_last_line_that_names_its_address_is_left_as_it_is():
    said = StepResult(returncode=2, tail=("error: Failed to fetch: `https://pypi.org/simple/torch/`",))
    assert said.reason() == "exit 2: error: Failed to fetch: `https://pypi.org/simple/torch/`"
    plain = StepResult(returncode=1, tail=("fatal: not a git repository",))
    assert plain.reason() == "exit 1: fatal: not a git repository"
