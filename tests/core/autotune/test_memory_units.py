"""One reading, one unit: every memory figure is GiB with its name, the same number on every
surface; a trial's peak is the larger of the sampler's reading and the trainer's own report; an
OOM row shows the memory in use that torch's error states."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ltx_wizard.cli import main
from ltx_wizard.core.autotune.outputs import presenter
from ltx_wizard.core.tuning.results import AutotuneSummary, TrialResult
from ltx_wizard.core.trainer_output.oom_message import in_use_gib
from ltx_wizard.core.autotune.trials.trial_watch import TrialWatch, trial_peak
from ltx_wizard.core.trainer_output.line_events import Statistics
from ltx_wizard.core.autotune.trials.vram_sampler import VramReading
from tests.core.autotune.test_autotune_engine import plan_run

DATA = Path(__file__).parents[2] / "data" / "trainer_logs"
OOM_LINE = next(
    line
    for line in (DATA / "oom_cols80.txt").read_text().splitlines()
    if line.startswith("torch.OutOfMemoryError")
)

# A look-alike trainer: sets the sampled memory, prints what the real one prints, then exits.
STANDIN = """
import os, sys, time
mode = sys.argv[1]
path = os.environ["LTX_WIZARD_SIM_VRAM_FILE"]
with open(path + ".tmp", "w") as f:
    f.write(sys.argv[2] + "\\n")
os.replace(path + ".tmp", path)
time.sleep(0.6)  # the trainer's own run time: a few of the sampler's rounds
if mode == "oom":
    print("Traceback (most recent call last):")
    print('  File "scripts/train.py", line 74, in main')
    print("    trainer.train()")
    print(sys.argv[3], flush=True)
    sys.exit(1)
for step in (20, 40):
    print(f"Step {step}/40 - Loss: 0.5000, LR: 1.00e-04, Time/Step: 1.00s, Total Time: 0h 1m")
print("Validation samples for step 41 saved in samples")
print("Training Statistics:")
print(" - Total time: 1.0 minutes")
print(" - Training speed: 0.70 steps/second")
print(" - Samples/second: 0.70")
print(" - Peak GPU memory: " + sys.argv[3] + " GB", flush=True)
"""


def _standin(tmp_path: Path, *args: str) -> str:
    script = tmp_path / "standin_trainer.py"
    script.write_text(STANDIN, encoding="utf-8")
    return " ".join([sys.executable, str(script), *args])


def test_torch_oom_messages_give_the_memory_in_use_in_gib():
    assert in_use_gib(OOM_LINE) == 30.33  # "this process has 30.33 GiB memory in use"
    older = (
        "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 15.78 GiB "
        "total capacity; 14.56 GiB already allocated; 3.12 MiB free; 14.70 GiB reserved in "
        "total by PyTorch)"
    )
    assert in_use_gib(older) == 14.7
    assert in_use_gib("... this process has 512.00 MiB memory in use.") == 0.5
    assert in_use_gib("CUDA error: out of memory") is None


def test_a_trials_peak_is_the_larger_of_the_sampler_and_the_trainers_report():
    stats = Statistics(t=0, total_time_min=1, steps_per_s=1, samples_per_s=1, peak_gpu_memory_gb=68.78)
    watch = TrialWatch(stats=stats)
    assert trial_peak(VramReading(64.8, "per-process", [66355], 9), watch) == (68.78, "trainer's report")
    assert trial_peak(VramReading(70.1, "per-process", [71782], 9), watch) == (70.1, "per-process")
    assert trial_peak(VramReading(None, "n/a", [None], 0), watch)[0] == 68.78
    assert trial_peak(VramReading(64.8, "simulated", [66355], 9), TrialWatch())[0] == 64.8


def test_an_oom_trial_shows_the_memory_in_use_its_error_states(tmp_path, capsys):
    run_dir = plan_run(tmp_path, "rtx5090", samples=1)
    capsys.readouterr()
    cmd = _standin(tmp_path, "oom", "24678", repr(OOM_LINE))  # sampler: 24.1 GiB
    code = main(
        [
            "autotune",
            str(run_dir),
            "--simulate",
            "rtx5090",
            "--json",
            "--max-trials",
            "1",
            "--trainer-cmd",
            cmd,
        ]
    )
    data = json.loads(capsys.readouterr().out)
    assert code == 1
    trial = data["trials"][0]
    assert trial["outcome"] == "oom" and trial["peak_vram_gb"] == 30.33
    assert "this process has 30.33 GiB memory in use" in trial["reason"]
    row = presenter.trial_row(TrialResult.model_validate(trial))
    assert row.cells[4] == "30.3 GiB"
    assert "30.3 GiB peak" in (run_dir / "autotune.log").read_text()


def test_one_reading_is_the_same_gib_figure_in_the_cli_the_log_and_the_table(tmp_path, capsys):
    run_dir = plan_run(tmp_path, "a6000")
    capsys.readouterr()
    cmd = _standin(tmp_path, "ok", "40960", "43.52")  # sampler 40.0 GiB, trainer 43.52 "GB"
    code = main(["autotune", str(run_dir), "--simulate", "a6000", "--max-trials", "1", "--trainer-cmd", cmd])
    out, err = capsys.readouterr()
    assert code == 0, err
    log = (run_dir / "autotune.log").read_text()
    record = next(
        json.loads(line) for line in log.splitlines() if line.startswith('{"') and '"kind": "trial"' in line
    )
    assert record["peak_vram_gb"] == 43.52 and record["vram_method"] == "trainer's report"
    result = TrialResult.model_validate({k: v for k, v in record.items() if k != "kind"})
    for shown in (err, out, log):  # the progress line, the report, autotune.log
        assert "43.5 GiB peak" in shown and " GB" not in shown.replace("trainer says 43.52 GiB", "")
    assert presenter.trial_row(result).cells[4] == "43.5 GiB"  # the Autotune screen's cell
    assert "43.5 GiB peak" in presenter.winner_sentence(
        AutotuneSummary(trials=[result], winner=1, config_patched=False)
    )


def test_the_plan_and_the_probe_table_show_the_card_in_the_same_gib():
    from ltx_wizard.core.gpu.presets import simulated_probe
    from ltx_wizard.tui.widgets.formatting import gpu_row

    gpu = simulated_probe("a6000").gpus[0]
    assert gpu_row(gpu)[2] == "48.0 GiB"


def test_plan_md_states_the_gpu_in_gib(tmp_path):
    run_dir = plan_run(tmp_path, "a6000")
    plan = (run_dir / "plan.md").read_text()
    assert "each GPU has 48.0 GiB" in plan
    memory = plan.split("## Memory and disk", 1)[1].split("\n## ", 1)[0]
    assert " GB" not in memory and "GiB" in memory
