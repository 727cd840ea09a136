"""`ltx-wizard probe` through the CLI: text, the JSON contract and exit codes."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from ltx_wizard import __version__
from ltx_wizard.cli import main


def run_json(capsys, *args):
    code = main(["probe", "--json", *args])
    return code, json.loads(capsys.readouterr().out)


def test_json_has_exactly_the_contract_keys(capsys):
    code, data = run_json(capsys, "--simulate", "h100")
    assert code == 0
    assert set(data) == {"source", "gpus", "per_gpu_vram_gb", "tier", "base_config", "gate", "notes"}
    assert data["source"] == "simulated"
    assert data["gpus"] == [
        {
            "index": 0,
            "name": "NVIDIA H100 80GB HBM3",
            "memory_total_mib": 81559,
            "uuid": data["gpus"][0]["uuid"],
        }
    ]
    assert (data["per_gpu_vram_gb"], data["tier"], data["base_config"]) == (80, "80GB+", "t2v_lora.yaml")
    assert data["gate"] == {"blocked": False, "message": None}


def test_gated_probe_exits_zero_with_the_message(capsys):
    code, data = run_json(capsys, "--simulate", "rtx4090")
    assert code == 0
    assert data["tier"] == "below-minimum"
    assert data["gate"]["blocked"] is True
    assert data["gate"]["message"].startswith("This GPU has 24GB VRAM.")


def test_text_output_shows_table_tier_and_gate(capsys):
    assert main(["probe", "--simulate", "rtx4090"]) == 0
    out = capsys.readouterr().out
    assert "NVIDIA GeForce RTX 4090" in out and "24564" in out
    assert "MINIMUM GATE" in out and "This GPU has 24GB VRAM" in out


def test_text_output_for_eight_gpus(capsys):
    assert main(["probe", "--simulate", "8xh100"]) == 0
    out = capsys.readouterr().out
    assert out.count("NVIDIA H100 80GB HBM3") == 8
    assert "80GB+ tier" in out


def test_csv_source(tmp_path, capsys):
    csv = tmp_path / "box.csv"
    csv.write_text("name, memory.total [MiB]\nNVIDIA RTX A6000, 49140 MiB\n")
    code, data = run_json(capsys, "--from-csv", str(csv))
    assert code == 0 and data["source"] == "csv" and data["tier"] == "40-60GB"


def test_unknown_memory_then_stated(capsys):
    code, data = run_json(capsys, "--simulate", "gb10")
    assert (code, data["tier"], data["gpus"][0]["memory_total_mib"]) == (0, "unknown", None)
    code, data = run_json(capsys, "--simulate", "gb10", "--vram-gb", "128")
    assert (data["tier"], data["per_gpu_vram_gb"]) == ("80GB+", 128)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--simulate", "nonesuch"], "unknown simulated machine"),
        (["--from-csv", "/nonexistent/gpus.csv"], "no such file"),
    ],
)
def test_bad_input_exits_2_with_one_line(capsys, args, words):
    assert main(["probe", *args]) == 2
    err = capsys.readouterr().err
    assert words in err and err.startswith("ltx-wizard: ") and err.count("\n") == 1


@pytest.mark.parametrize(
    "args", [["probe", "--vram-gb", "lots"], ["probe", "--simulate", "h100", "--from-csv", "x"], ["bogus"]]
)
def test_usage_errors_exit_2(args, capsys):
    with pytest.raises(SystemExit) as exc:
        main(args)
    assert exc.value.code == 2


def test_no_gpu_machine_exits_1(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(sys.modules, "pynvml", None)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert main(["probe"]) == 1
    assert "needs an NVIDIA CUDA GPU" in capsys.readouterr().err


def test_no_gpu_machine_with_json_still_prints_json_with_the_error(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(sys.modules, "pynvml", None)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert main(["probe", "--json"]) == 1
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert data["gpus"] == [] and data["tier"] == "unknown"
    assert "needs an NVIDIA CUDA GPU" in data["error"] and err.startswith("ltx-wizard: ")


def test_run_dir_that_does_not_exist_is_exit_2_before_the_wizard_opens(tmp_path, capsys):
    assert main(["--run-dir", str(tmp_path / "no-such-run")]) == 2
    err = capsys.readouterr().err
    assert "no such folder" in err and err.count("\n") == 1


def test_version_and_help_through_python_m():
    out = subprocess.run(
        [sys.executable, "-m", "ltx_wizard", "--version"], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == f"ltx-wizard {__version__}"
    for args in (["--help"], ["probe", "--help"]):
        shown = subprocess.run(
            [sys.executable, "-m", "ltx_wizard", *args], capture_output=True, text=True, check=True
        ).stdout
        assert "usage: ltx-wizard" in shown


def test_gpu_source_before_the_command_is_kept(capsys):
    assert main(["--simulate", "rtx5090", "probe", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["tier"] == "32GB"


def test_bad_trainer_cmd_is_refused_before_the_wizard_opens(capsys):
    assert main(["--trainer-cmd", "'unclosed"]) == 2
    assert "--trainer-cmd cannot be split" in capsys.readouterr().err
