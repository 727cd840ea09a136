"""Phase 5, autotune: short trainer trials, their memory readings and logs, the sweep engine that
follows tuning/'s schedule, and the winner written into config.yaml (and plan.md re-rendered).
"""
