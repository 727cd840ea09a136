"""Pure core of ltx-wizard: no textual, rich, torch or accelerate imports (tests enforce it).

Packages by phase, each importing only from those before it (proc, the one child-process
service, sits low: every phase that starts a child uses it) (pyproject.toml's "core-layers"
contract, run by tests/project/test_core_purity.py):

    base -> proc -> io -> gpu -> inputs -> dataset -> preprocess -> prepare -> tuning -> validation
         -> launch -> setup -> plan -> trainer_output -> autotune -> evaluation -> monitor
"""
