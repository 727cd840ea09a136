"""task.yaml and smoke.yaml, loaded by SkyPilot's own parser (sky.Task.from_yaml, in SkyPilot's own
environment), for one node and two, spot on and off; and what they say."""

from __future__ import annotations

import json
import subprocess


from ltx_wizard.core.cloud.sky_python import check_with_skypilot
from ltx_wizard.core.cloud.sky_readme import commands
from ltx_wizard.core.cloud.sky_request import SkyOptions, build_request
from ltx_wizard.core.cloud.sky_task import write_sky_files
from ltx_wizard.core.io import run_folder
from tests.sky_kit import COMMIT, planned_run, sky_python

# Read back through SkyPilot itself: what the Task object holds, not what the YAML says.
_READ = """
import json, sys
import sky
out = []
for path in sys.argv[1:]:
    t = sky.Task.from_yaml(path)
    r = list(t.resources)[0]
    out.append({"nodes": t.num_nodes, "acc": r.accelerators, "spot": r.use_spot, "disk": r.disk_size,
                "mounts": sorted(t.file_mounts or {}), "storage": sorted(t.storage_mounts or {}),
                "volumes": t.volumes, "run": t.run})
print(json.dumps(out))
"""


CASES = [(1, False), (1, True), (2, False), (2, True)]  # nodes, spot


def test_skypilot_accepts_each_task_file(tmp_path):
    """Every case's files and commands through one SkyPilot process, and read back through one
    more: importing SkyPilot costs ~3 s of CPU a process, so the cases share them (each problem
    names its file or command, so a refusal still says which case)."""
    python = sky_python()
    reqs = []
    for nodes, spot in CASES:
        run = planned_run(tmp_path / f"{nodes}-{spot}", nodes=nodes, sim="2xh100" if nodes > 1 else "h100")
        reqs.append(build_request(run, SkyOptions(spot=spot, bucket="ltx-test-out")))
        write_sky_files(reqs[-1])
    files = [
        p for r in reqs for p in (run_folder.SKY_TASK.path(r.run_dir), run_folder.SKY_SMOKE.path(r.run_dir))
    ]
    argvs = [argv for r in reqs for argv in commands(r).every()]
    assert check_with_skypilot(python, files, argvs) == []
    read = subprocess.run([python, "-c", _READ, *map(str, files)], capture_output=True, text=True, check=True)
    got = iter(json.loads(read.stdout.strip().splitlines()[-1]))
    for (nodes, spot), req in zip(CASES, reqs):
        gpus = 2 if nodes > 1 else 1
        for mode in ("task", "smoke"):
            doc = next(got)
            assert doc["nodes"] == nodes and doc["spot"] is spot, (nodes, spot, mode)
            assert doc["acc"] == {"H100": gpus}
            assert doc["disk"] == req.disk_gb >= 100
            assert "/ltx/run" in doc["mounts"] and doc["storage"] == ["/ltx/outputs"]
            assert doc["run"].strip() == f"bash /ltx/run/sky/run.sh {mode}"


def test_skypilot_refuses_what_it_does_not_know(tmp_path):
    """The check is SkyPilot's: a task it cannot read is reported, not passed."""
    python = sky_python()
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nresources:\n  accelerators: H100:1\n  no_such_key: 1\n")
    problems = check_with_skypilot(python, [bad], [["sky", "jobs", "launch", "--no-such-flag", "x.yaml"]])
    assert len(problems) == 2 and "bad.yaml" in problems[0] and "--no-such-flag" in problems[1]


def test_volume_goes_to_volumes_and_the_configs_name_node_paths(tmp_path):
    run = planned_run(tmp_path)
    req = build_request(run, SkyOptions(volume="ltx-vol"))
    write_sky_files(req)
    task = run_folder.SKY_TASK.path(run).read_text()
    assert "volumes:\n  /ltx/outputs: ltx-vol\n" in task and "MOUNT" not in task
    assert COMMIT in run_folder.SKY_SETUP.path(run).read_text()
    config = run_folder.SKY_CONFIG.path(run).read_text()
    smoke = run_folder.SKY_SMOKE_CONFIG.path(run).read_text()
    assert 'output_dir: "/ltx/outputs"' in config and str(tmp_path) not in config
    assert 'output_dir: "/ltx/outputs/smoke"' in smoke and "steps: 20\n" in smoke
    assert "steps: 2000\n" in config
    ignored = run_folder.SKY_IGNORE.path(run).read_text().splitlines()
    assert {"/outputs", "/logs", "/overfit", "/holdout"} <= set(ignored) and "/dataset" not in ignored
    readme = run_folder.SKY_README.path(run).read_text()
    assert "The volume `ltx-vol` must exist" in readme and "sky volumes delete ltx-vol" in readme


def test_skypilots_upload_leaves_out_the_local_outputs_and_logs(tmp_path):
    """Read by SkyPilot's own upload rule (sky/data/storage_utils.py get_excluded_files)."""
    python = sky_python()
    run = planned_run(tmp_path)
    write_sky_files(build_request(run, SkyOptions(bucket="ltx-out")))
    (run / "outputs" / "checkpoints").mkdir(parents=True)
    (run / "outputs" / "checkpoints" / "lora_weights_step_00100.safetensors").write_bytes(b"x")
    (run / "logs" / "train.log").write_text("local run\n")
    code = "import json, sys; from sky.data import storage_utils as s; print(json.dumps(s.get_excluded_files(sys.argv[1])))"
    out = subprocess.run([python, "-c", code, str(run)], capture_output=True, text=True, check=True).stdout
    excluded = set(json.loads(out.strip().splitlines()[-1]))
    assert {"outputs", "logs"} <= excluded
    assert not excluded & {"sky", "config.yaml", "dataset", "plan.json"}
