"""Every F1 page names the keys its screen's footer shows, and names no key the screen lacks; every
option the README gives a command exists in that command's parser.

The keys an F1 page names are read in the one form the pages use for them: in brackets after
the choice, `Approve (a)`, `Cancel (c or Esc)`, `Quit (q or ctrl+q)`. A footer key is found in
that form or, for a non-letter key (ctrl+n, F2, Esc), anywhere in the text.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import pytest
from textual.binding import Binding

import ltx_wizard.tui.dialogs as dialogs
import ltx_wizard.tui.screens as screens
from ltx_wizard.cli import COMMANDS, build_parser
from ltx_wizard.tui.app import WizardApp
from ltx_wizard.tui.dialogs.help import help_for_class

ROOT = Path(__file__).resolve().parents[2]
# keys every screen has: the App's (ctrl+q, F1) and Textual's own movement between controls
COMMON_KEYS = {"ctrl+q", "f1", "tab", "enter"}


def _helped() -> list[type]:
    found = []
    for package in (screens, dialogs):
        for info in pkgutil.iter_modules(package.__path__):
            module = importlib.import_module(f"{package.__name__}.{info.name}")
            for _, cls in inspect.getmembers(module, inspect.isclass):
                if cls.__module__ == module.__name__ and "F1_HELP" in cls.__dict__:
                    found.append(cls)
    return found


HELPED = _helped()


def _bindings(cls: type) -> list[Binding]:
    """The class's own bindings and those of its wizard bases (not Textual's)."""
    out = []
    for klass in cls.__mro__:
        if not klass.__module__.startswith("ltx_wizard"):
            continue
        for item in klass.__dict__.get("BINDINGS", []):
            out += list(Binding.make_bindings([item]))
    return out


def _keys(binding: Binding) -> list[str]:
    return [k.strip().lower() for k in binding.key.split(",")]


def _shown(key: str) -> str:
    return {"escape": "Esc"}.get(key, key.upper() if re.fullmatch(r"f\d+", key) else key)


def _bracketed(text: str) -> set[str]:
    """The keys named in brackets: `(a)`, `(c or Esc)`, `(q or ctrl+q)`, `(0 or Esc)`."""
    token = r"(?:Esc|ctrl\+[a-z]|F\d+|[a-z0-9])"
    found = set()
    for group in re.findall(rf"\(({token}(?: or {token})*)\)", text):
        for key in group.split(" or "):
            found.add({"esc": "escape"}.get(key.lower(), key.lower()))
    return found


def _named(key: str, text: str) -> bool:
    if key in _bracketed(text):
        return True
    if len(key) == 1:  # a letter or digit counts only in brackets (`a`, `i` are words)
        return False
    return re.search(rf"(?<![\w+]){re.escape(_shown(key))}(?![\w+])", text, re.IGNORECASE) is not None


@pytest.mark.parametrize("cls", HELPED, ids=lambda c: c.__name__)
def test_every_footer_key_is_named_in_the_f1_page(cls):
    title, body = help_for_class(cls)
    missing = [
        f"{b.key} ({b.description})"
        for b in _bindings(cls)
        if b.show and not any(_named(k, body) for k in _keys(b))
    ]
    assert not missing, f"{cls.__name__}'s F1 page ({title}) leaves out {missing}"


@pytest.mark.parametrize("cls", HELPED, ids=lambda c: c.__name__)
def test_every_key_an_f1_page_names_exists_on_its_screen(cls):
    _, body = help_for_class(cls)
    have = {k for b in _bindings(cls) for k in _keys(b)} | COMMON_KEYS
    have |= {k for b in Binding.make_bindings(WizardApp.BINDINGS) for k in _keys(b)}
    assert _bracketed(body) - have == set(), f"{cls.__name__}'s F1 page names keys it does not have"


def test_the_key_reading_finds_a_missing_key():
    """The check above can fail: a page that leaves out a footer key, or names one that is not there."""
    assert _named("v", "Samples (v): the latest round") and not _named("v", "v trains video only")
    assert _named("escape", "Esc goes back") and not _named("escape", "the escape hatch")
    assert _bracketed("Quit (q or ctrl+q), Back (Esc), (see below)") == {"q", "ctrl+q", "escape"}


# ----- the README's options ------------------------------------------------------------------


def _option_strings(parser) -> set[str]:
    return {s for action in parser._actions for s in action.option_strings}


def _parsers() -> tuple[set[str], dict[str, set[str]]]:
    parser = build_parser(None)
    top = _option_strings(parser)
    subs = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    return top, {name: _option_strings(subs.choices[name]) for name in COMMANDS}


def _readme_commands(text: str) -> list[str]:
    """Each command line the README gives: inline code and fenced lines (continuations joined)."""
    spans = re.findall(r"`([^`\n]+)`", text)
    for block in re.findall(r"```[a-z]*\n(.*?)```", text, re.DOTALL):
        spans += block.replace("\\\n", " ").splitlines()
    return spans


def _uses(span: str, commands) -> list[tuple[str | None, str]]:
    """(command or None for the wizard itself, option) for each `--option` the span gives."""
    out = []
    for part in re.split(r"&&|;|\s\|\s(?!-)", span):  # a shell pipe, not `[--a X | --b Y]`
        words = part.split()
        if "ltx-wizard" in [Path(w).name for w in words]:
            at = [Path(w).name for w in words].index("ltx-wizard")
            words = words[at + 1 :]
        elif not (words and words[0] in commands and len(words) > 1 and "--" in words[1]):
            continue
        command = next((w for w in words if w in commands), None)
        out += [(command, o) for o in re.findall(r"(?<![\w-])--[a-z][\w-]*", " ".join(words))]
    return out


def _section_options(text: str, commands) -> list[tuple[str, str]]:
    """The options a command's reference section lists as bullets: `- `--json`: ...` under
    `### `ltx-wizard status ...``."""
    out, command = [], None
    for line in text.splitlines():
        heading = re.match(r"### `ltx-wizard (\w+)", line)
        if heading or line.startswith("#"):
            command = heading.group(1) if heading and heading.group(1) in commands else None
        elif command and (bullet := re.match(r"- `(--[a-z][\w-]*)", line)):
            out.append((command, bullet.group(1)))
    return out


def test_every_option_the_readme_gives_a_command_exists():
    top, subs = _parsers()
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    uses = [use for span in _readme_commands(text) for use in _uses(span, subs)]
    uses += _section_options(text, subs)
    assert len(uses) > 100  # the reading finds the README's options
    wrong = {
        f"ltx-wizard {command or ''} {option}".replace("  ", " ")
        for command, option in uses
        if option not in top | (subs[command] if command else set())
    }
    assert not wrong, f"the README names options that do not exist: {sorted(wrong)}"


def test_the_readme_reading_finds_options():
    uses = _uses("ltx-wizard plan --checkpoint F [--lora-trigger WORD] && bash x", {"plan": set()})
    assert uses == [("plan", "--checkpoint"), ("plan", "--lora-trigger")]
    assert _uses("plan --wandb on|off", {"plan": set()}) == [("plan", "--wandb")]
    assert _uses("ltx-wizard --demo-data raw", {}) == [(None, "--demo-data")]
    assert _uses("ltx-wizard eval RUN [--captioner a|b] [--a X | --json] | jq", {"eval": set()}) == [
        ("eval", "--captioner"),
        ("eval", "--a"),
        ("eval", "--json"),
    ]
    text = "### `ltx-wizard status RUN`\n\n- `--json`: the same\n\n## Other\n\n- `--x`: no"
    assert _section_options(text, {"status": set()}) == [("status", "--json")]


def test_the_paths_f1_page_names_every_field_the_screen_shows():
    """The Paths screen's field labels (its own, the dataset options' and the validation
    section's), each by its words before any bracket, are named on its F1 page."""
    from ltx_wizard.tui.screens.paths.fields import PATHS_HELP, VIDEO_ONLY_LABEL

    sources = (
        "tui/screens/paths/__init__.py",
        "tui/widgets/dataset_options.py",
        "tui/widgets/validation_panel.py",
    )
    labels = [VIDEO_ONLY_LABEL]
    for source in sources:
        text = (ROOT / "ltx_wizard" / source).read_text(encoding="utf-8")
        labels += re.findall(r'Static\(\s*"([^"]+)"[^)]*(?:field-label|validation-needs)', text)
    assert len(labels) >= 5
    body = PATHS_HELP[1].lower()
    missing = [label for label in labels if label.split(" (")[0].split(" WxHxF")[0].lower() not in body]
    assert not missing, f"the Paths F1 page leaves out {missing}"


# ----- README sentences read against the code ------------------------------------------------


def test_the_readme_says_what_the_wandb_check_decides():
    """A check answering "no key" turns W&B off; one that cannot answer (wandb 0.31 raises when
    logged out) is asked: the README says both, and never that logged out turns it off."""
    from ltx_wizard.core.inputs.wandb_login import WandbLogin, WandbUnknown, decide

    assert decide(True, None, WandbLogin(state="out"), "t2v_lora.yaml").disable
    with pytest.raises(WandbUnknown):
        decide(True, None, WandbLogin(state="error", detail="wandb.errors.UsageError"), "t2v_lora.yaml")
    text = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    sentence = text[text.index("When a config enables W&B") :].split(".\n")[0][:600]
    assert 'a check that answers "no key" turns it off' in sentence
    assert "one that cannot answer is asked (`plan --wandb on|off`" in sentence
    assert "logged out turns it off" not in text


def _shots_outside_the_demo() -> dict[str, str]:
    """The screenshots scripts/make_screenshots.py takes off the demo's default flow, each with what
    its README caption must say: with the demo off (a real box's probe) "not in the demo"; from raw
    clips (the Prepare screens) the option that shows them, `--demo --demo-data raw`."""
    script = (ROOT / "scripts" / "make_screenshots.py").read_text(encoding="utf-8")
    found: dict[str, str] = {}
    for body in re.split(r"\nasync def ", script)[1:]:
        if "demo=False" in body:
            found |= dict.fromkeys(re.findall(r'"(\d\d-[\w-]+\.svg)"', body), "not in the demo")
        elif 'demo_data="raw"' in body:
            found |= dict.fromkeys(re.findall(r'"(\d\d-[\w-]+\.svg)"', body), "`--demo --demo-data raw`")
    return found


def test_the_readmes_screens_off_the_demo_say_so():
    outside = _shots_outside_the_demo()
    assert {"14-setup.svg", "16-prepare.svg"} <= set(outside)
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    for n, line in enumerate(lines):
        shot = re.search(r"\(screenshots/([\w-]+\.svg)\)", line)
        if shot and shot.group(1) in outside:
            caption = next(lines[i] for i in range(n - 1, 0, -1) if lines[i].startswith("**"))
            assert outside[shot.group(1)] in caption, (shot.group(1), caption)
