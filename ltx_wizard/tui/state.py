"""What the wizard has learned so far, shared by every screen (plain data, no widgets)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ltx_wizard.core.plan.plan_request import PlanRequest

if TYPE_CHECKING:  # core models (the plan and autotune ones pydantic): imported where used
    from ltx_wizard.core.gpu.assessment import Assessment
    from ltx_wizard.core.tuning.results import AutotuneSummary
    from ltx_wizard.core.gpu.devices import ProbeResult
    from ltx_wizard.core.plan.run_plan import PlanDraft


@dataclass
class WizardState:
    probe: ProbeResult | None = None
    assessment: Assessment | None = None
    accept_risk: bool = False
    # the user's inputs, as the Paths screen last accepted them (a draft until then)
    request: PlanRequest = field(default_factory=PlanRequest)
    split_pack: bool = False
    draft: PlanDraft | None = None  # once prepared and approved
    run_dir: Path | None = None
    summary: AutotuneSummary | None = None
    autotune_error: str | None = None
    autotune_running: bool = False
    allow_batch_change: bool = False  # the Summary screen's checkbox (core/tuning/batch_rule.py)

    def edit_request(self, **fields: object) -> PlanRequest:
        """The draft request with these inputs replaced, through the one adapter the Paths
        screen and the CLI use (core/plan/plan_request.py build_request)."""
        from dataclasses import asdict

        from ltx_wizard.core.plan.plan_request import build_request

        self.request = build_request({**asdict(self.request), **fields})
        return self.request
