"""`ltx-wizard plan` says, before autotune has measured a step, that comparing the kept
checkpoints is priced once it has (issue 44, Deliver 8); a full fine-tune, with no LoRA
checkpoints to compare, says nothing of it."""

from __future__ import annotations

from ltx_wizard.cli import main

PENDING = (
    "Comparing the kept checkpoints (held-out loss and tournament renders): priced once autotune has "
    "measured the step time."
)


def _cost_section(plan: str) -> str:
    return plan.split("## Cost and time\n", 1)[1].split("\n## ", 1)[0]


def test_plan_md_says_the_comparison_is_priced_after_autotune(model_tree, capsys):
    tree = model_tree()
    assert main(tree.args()) == 0, capsys.readouterr().err
    assert PENDING in _cost_section((tree.run / "plan.md").read_text("utf-8"))
