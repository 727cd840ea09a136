"""Phase 4, plan: inputs checked together, the tier's shipped config with only the paths patched,
plan.md, host RAM and disk, and the run folder written all or nothing.
"""
