"""Text the wizard did not write reaches a terminal only through the one sanitiser.

The rule, read from the source of `tui/` and `commands/`: every argument of `print`, `Option`,
`Static` and `notify` that reads a field of an object (`render.prompt`, `exc.message`,
`f"... {state.error}"`; `self`'s own attributes aside) is wrapped in `clean_text`,
`clean_block` (core/base/text_safety.py), `safe_markup` or `plain` (tui/widgets/formatting.py),
or is on WIZARDS_OWN below: a field the wizard wrote itself (a number, a label, a path the plan
already refused control characters in). The line-printing helpers the commands share
(prepare's TerminalAsker.say and the Prepare screen's ScreenAsker.say, setup's _say) sanitise
whatever they are given.

A plain name is followed back to what its function assigned it (`caption = row.caption;
print(caption)`), and `self.x` to what the class's methods assigned it (a field read from a file in
one method, drawn in another): tests/project/foreign_flow.py. A name assigned from a call other than
a text pass-through (`str`, `join`, `strip`, `Text`...) holds a value the wizard computed; a
function's parameters are not followed (the line helpers above sanitise what they are given).
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.project.foreign_flow import name_of, origin, sink_reads

PACKAGE = Path(__file__).resolve().parents[2] / "ltx_wizard"

# (module, field expression): the wizard's own words or numbers
WIZARDS_OWN = {
    ("tui/dialogs/samples.py", "message.graphics"),  # the terminal graphics kind it chose
    ("tui/screens/intent.py", "question.question"),  # core/inputs' own follow-up questions
    ("tui/widgets/keyframes.py", "found.frames"),  # pixels, drawn as half blocks
    # the autotune engine's own counters and its outcome words
    ("tui/screens/autotune.py", "event.index"),
    ("tui/screens/autotune.py", "event.total_steps"),
    ("tui/screens/autotune.py", "event.step"),
    ("tui/screens/autotune.py", "event.total"),
    ("tui/screens/autotune.py", "event.trial"),
    ("tui/screens/autotune.py", "result.index"),
    ("tui/screens/autotune.py", "result.outcome"),
    ("tui/screens/setup.py", "message.outcome.key"),  # the offer's key and status words
    ("tui/screens/setup.py", "message.outcome.status"),
    ("tui/screens/monitor/actions.py", "proc.pid"),
    ("tui/screens/results/__init__.py", "Path(command[0]).name"),  # the player the wizard found on PATH
    ("tui/screens/summary.py", "box.value"),
    ("tui/screens/summary.py", "box.label"),
    ("tui/screens/intent.py", "c.label"),
    ("commands/preprocess.py", "after.reused"),
    ("commands/autotune.py", "summary.schedule_note"),
    ("commands/autotune.py", "summary.launch_line"),  # a command run as printed; paths refused with controls
    ("commands/plan.py", "folder.root"),  # the run folder: require_plain_path refused controls
    ("commands/plan.py", "folder.plan"),
    ("commands/plan.py", "draft.tier.display_name"),
    ("commands/plan.py", "draft.recipe"),
    ("commands/plan.py", "draft.base_config"),
    ("commands/plan.py", "draft.record.data"),
    ("commands/plan.py", "multi.nodes"),
    ("commands/plan.py", "multi.gpus_per_node"),
    ("commands/plan.py", "multi.total_gpus"),
    ("commands/plan.py", "multi.sbatch_path"),
    # a command run as printed: control characters quoted as $'\x1b' (core/io/commands_file.py quote)
    ("commands/commands.py", "command.line"),
    ("commands/commands.py", "command.outcome"),  # exit N, a signal's name: the wizard's words
    ("commands/commands.py", "command.when"),  # a time it formatted
    ("commands/commands.py", "command.took"),
    ("commands/models.py", "item.ok"),
    ("commands/plan.py", "draft.applied"),  # the config changes the plan applied, in its own words
    ("commands/plan.py", "draft.multinode"),  # node and GPU counts, the sbatch path it wrote
    ("commands/preprocess.py", "args.one_sample"),  # a flag: picks the step's title
    ("tui/dialogs/pick.py", "c.usable"),  # a flag: picks the style
    ("tui/screens/paths/__init__.py", "focused.id"),  # a widget id of the form's own
    ("tui/screens/monitor/actions.py", "backup.name"),  # the backup the wizard named
    # the output folder the plan refused control characters in, and checkpoint names matched by
    # core/monitor/saved_checkpoints.py WEIGHTS (digits only)
    ("tui/screens/monitor/actions.py", "status.output_dir"),
    ("tui/screens/monitor/__init__.py", "usable.path"),
    ("tui/screens/monitor/__init__.py", "message.status"),  # handed to helpers that clean its text
    ("tui/screens/monitor/__init__.py", "status.points"),  # (step, loss) numbers
    ("tui/screens/monitor/__init__.py", "status.nan_step"),
    ("tui/dialogs/download.py", "offer.size_bytes"),
    ("tui/screens/autotune.py", "message.event"),  # the presenter's words for an event's numbers
    ("tui/screens/summary.py", "message.draft"),  # the launch line: paths refused with controls
    ("tui/screens/summary.py", "draft.memory_lines"),  # the host's numbers in the wizard's words
}


def test_every_screen_and_print_takes_foreign_text_through_the_sanitiser():
    bad = []
    for folder in ("tui", "commands"):
        for path in sorted((PACKAGE / folder).rglob("*.py")):
            module = str(path.relative_to(PACKAGE))
            for line, field in sink_reads(path.read_text(encoding="utf-8")):
                if (module, origin(field)) not in WIZARDS_OWN:
                    bad.append(f"{module}:{line}: {field}")
    assert not bad, "foreign text shown without clean_text/clean_block/safe_markup/plain:\n" + "\n".join(bad)


def test_the_line_helpers_sanitise_what_they_are_given():
    helpers = (
        ("commands/prepare.py", "say"),
        ("commands/setup.py", "_say"),
        ("tui/screens/prepare/asker.py", "say"),
    )
    for module, helper in helpers:
        tree = ast.parse((PACKAGE / module).read_text(encoding="utf-8"))
        body = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == helper)
        calls = {name_of(c.func) for c in ast.walk(body) if isinstance(c, ast.Call)}
        assert "clean_block" in calls, f"{module} {helper} prints without clean_block"


def test_the_rule_catches_a_raw_field():
    """The check itself can fail: the Results screen's old Option line is caught."""
    old = 'Option(f"{TITLES[category]} {len(seen)}: {render.prompt}", id=render.prompt)'
    assert [field for _, field in sink_reads(old)] == ["render.prompt"]
    assert sink_reads('Option(plain(f"{n}: {render.prompt}"))') == []
    # a field read inline in a widget's update or a log's write (setup's old error line)
    old_update = 'status.update(f"Could not check: {message.error}")'
    assert [field for _, field in sink_reads(old_update)] == ["message.error"]
    assert sink_reads('status.update(f"Could not check: {clean_text(message.error)}")') == []


def test_the_rule_follows_a_plain_name_back_to_a_field():
    """A caption put in a local name first, then shown: caught; sanitised where assigned: not."""
    raw = "def show(row, label):\n    caption = row.caption\n    text = caption.strip()\n    print(text)\n"
    assert [field for _, field in sink_reads(raw)] == ["text <- caption <- row.caption"]
    loop = "def show(rows):\n    for row in rows:\n        line = f'{row.caption}'\n        print(line)\n"
    assert [field for _, field in sink_reads(loop)] == ["line <- row.caption"]
    clean = "def show(row):\n    caption = clean_text(row.caption)\n    print(caption)\n"
    assert sink_reads(clean) == []
    widget = "def show(row, label):\n    caption = row.caption\n    label.update(caption)\n"
    assert [field for _, field in sink_reads(widget)] == ["caption <- row.caption"]
    computed = "def show(row):\n    size = measure(row.path)\n    print(size)\n"
    assert sink_reads(computed) == []  # a value the wizard computed, not the text itself


def test_the_rule_follows_a_self_field_across_methods():
    """A field set from a file in one method and drawn in another: caught."""
    raw = (
        "class Screen:\n"
        "    def load(self, found):\n        self.prompt = found.text\n"
        "    def compose(self):\n        yield Static(f'Prompt: {self.prompt}')\n"
    )
    assert [field for _, field in sink_reads(raw)] == ["self.prompt <- found.text"]
    clean = raw.replace("found.text", "clean_block(found.text)")
    assert sink_reads(clean) == []
    own = raw.replace("found.text", "'the wizard\\'s words'")
    assert sink_reads(own) == []
