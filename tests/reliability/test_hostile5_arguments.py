"""Round five, item 3: arguments checked before use.

Paths of any length and any bytes, numbers in other scripts or of 5,000 digits, and git transports
that run a command or wait forever: each ends at once with one `ltx-wizard:` line naming the
option, exit 2, nothing written and nothing started (the sandbox's census checks the last).
"""

from __future__ import annotations

import pytest

from tests.reliability.conftest import refused

LONG = "a" * 5000
NAME = "b" * 300


@pytest.mark.parametrize(
    ("argv", "option"),
    [
        (("setup", "--trainer-root", "{root}/" + LONG, "--yes"), "--trainer-root"),
        (("setup", "--trainer-root", "{root}/" + NAME, "--yes"), "--trainer-root"),
        (
            ("setup", "--trainer-root", "{root}/t", "--trainer-repo", "{root}/" + LONG, "--yes"),
            "--trainer-repo",
        ),
        (
            ("setup", "--trainer-root", "{root}/t", "--trainer-repo", "{root}/" + NAME, "--yes"),
            "--trainer-repo",
        ),
        (("prepare", "{root}/" + LONG), "SOURCE"),
        (("prepare", "{root}/" + NAME), "SOURCE"),
        (("eval", "{root}/ws", "--checkpoint", "{root}/" + LONG), "--checkpoint"),
        (("eval", "{root}/ws", "--checkpoint", "{root}/" + NAME + "/x.safetensors"), "--checkpoint"),
        (("--trainer-root", "{root}/" + NAME), "--trainer-root"),  # the wizard itself, before a screen
    ],
    ids=lambda v: str(v)[:40],
)
def test_a_path_too_long_is_one_line_naming_the_option(box, argv, option):
    unchanged = box.freeze(box.root / "none")
    result = box.cli(*(a.replace("{root}", str(box.root)) for a in argv))
    refused(result, 2, option)
    assert "too long" in result.err and "long, over the" in result.err
    unchanged()


@pytest.mark.parametrize(
    ("argv", "option"),
    [
        (("prepare", "{root}/cats", "--run-name", "\udcff"), "--run-name"),
        (("eval", "{root}/ws", "--prompt", "caf\udce9"), "--prompt"),
        (("prepare", "{root}/caf\udce9"), "SOURCE"),
    ],
)
def test_bytes_that_are_not_utf8_are_named_as_typed(box, argv, option):
    """`$'\\xff'` on a UTF-8 system arrives as a surrogate: printing it raised UnicodeEncodeError."""
    result = box.cli(*(a.replace("{root}", str(box.root)) for a in argv))
    refused(result, 2, option, "not UTF-8")
    assert "\\x" in result.err  # the byte shown as typed


@pytest.mark.parametrize("value", ["²", "٣", "1" * 5000, "99999999"])
def test_holdout_is_ascii_digits_with_a_bound_and_says_holdout(box, value):
    result = box.cli("prepare", str(box.root / "cats"), "--holdout", value)
    refused(result, 2, "--holdout")
    assert "source" not in result.err.lower()


def test_holdout_parse_in_the_core_is_bounded_too():
    from ltx_wizard.core.base.errors import UsageError
    from ltx_wizard.core.prepare.holdout import parse_holdout

    assert parse_holdout("2") == 2 and parse_holdout("mine.jsonl") == "mine.jsonl"
    for value in ("²", "1" * 5000):
        with pytest.raises(UsageError, match="--holdout"):
            parse_holdout(value)


@pytest.mark.parametrize(
    ("repo", "words"),
    [
        ("fd::17", "another transport"),
        ("ext::sh -c touch% /tmp/pwned", "another transport"),
        ("--upload-pack=touch /tmp/pwned", "starts with '-'"),
        ("-u", "starts with '-'"),
        ("git://example.com/LTX-2", "another transport"),
        ("http://example.com/LTX-2", "another transport"),
        ("example.com:LTX-2", "host:path"),
    ],
)
def test_trainer_repo_takes_only_safe_forms(box, repo, words):
    unchanged = box.freeze(box.root / "none")
    result = box.cli("setup", "--trainer-root", str(box.root / "t"), f"--trainer-repo={repo}", "--yes")
    refused(result, 2, "--trainer-repo", words)
    unchanged()


@pytest.mark.parametrize(
    "repo",
    [
        "https://github.com/Lightricks/LTX-2",
        "ssh://git@host/LTX-2",
        "git@github.com:Lightricks/LTX-2",
        "file:///srv/LTX-2",
        "/srv/mirror/LTX-2",
        "./LTX-2",
        "mirror/LTX-2",
    ],
)
def test_trainer_repo_forms_that_clone_are_taken(repo):
    from ltx_wizard.core.setup.repo_source import check_repo_source

    assert check_repo_source(repo) == repo
