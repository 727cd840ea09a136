"""Pure core of ltx-wizard: no textual, rich, torch or accelerate imports (tests enforce it).

Packages by phase, each importing only from those before it (proc, the one child-process
service, sits low: every phase that starts a child uses it) (pyproject.toml's "core-layers"
contract, run by tests/project/test_core_purity.py):

    base -> proc -> io -> gpu -> inputs -> setup -> dataset -> preprocess -> prepare -> tuning
         -> validation -> launch -> plan -> trainer_output -> autotune -> evaluation -> monitor

setup (Phase 0, a bare box made ready) reads only what is below it, and nothing in the core reads
it: the plan's checks are the plan's own (plan/fit_gate.py) or its inputs' (dataset/data_fit.py,
preprocess/latent_disk.py, inputs/wandb_login.py).
"""
