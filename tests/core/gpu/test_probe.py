"""The GPU probe: NVML scenarios, the nvidia-smi fallback, CSV input and CUDA_VISIBLE_DEVICES."""

from __future__ import annotations

import stat
import sys
import textwrap

import pytest

from ltx_wizard.core.base.errors import UsageError, WizardError
from ltx_wizard.core.gpu.probe import probe_gpus, resolve_probe
from ltx_wizard.core.gpu.smi_source import parse_smi_csv
from tests.fake_nvml import (
    DRIVER_NOT_LOADED,
    GPU_IS_LOST,
    LIB_RM_VERSION_MISMATCH,
    LIBRARY_NOT_FOUND,
    NO_PERMISSION,
    FakeDevice,
    make_module,
)

H100 = FakeDevice("NVIDIA H100 80GB HBM3", 81559, "GPU-aaaa1111")
H100B = FakeDevice("NVIDIA H100 80GB HBM3", 81559, "GPU-bbbb2222")


@pytest.fixture
def no_smi(monkeypatch, tmp_path):
    """PATH holds no nvidia-smi."""
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))


def fake_smi(monkeypatch, tmp_path, body: str) -> None:
    """Put a fake `nvidia-smi` (a Python script) first on PATH."""
    bindir = tmp_path / "smi-bin"
    bindir.mkdir(exist_ok=True)
    script = bindir / "nvidia-smi"
    script.write_text(f"#!{sys.executable}\n" + textwrap.dedent(body))
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", str(bindir))


def use_nvml(monkeypatch, devices, **kw):
    module = make_module(devices, **kw)
    monkeypatch.setitem(sys.modules, "pynvml", module)
    return module


def test_nvml_lists_every_gpu_with_memory_uuid_and_driver(monkeypatch, no_smi):
    nvml = use_nvml(monkeypatch, [H100, H100B])
    result = probe_gpus(env={})
    assert result.source == "nvml"
    assert [g.uuid for g in result.gpus] == ["GPU-aaaa1111", "GPU-bbbb2222"]
    assert result.gpus[0].memory_total_mib == 81559
    assert result.gpus[0].driver_version == "580.65.06"
    assert result.gpus[1].name == "NVIDIA H100 80GB HBM3"  # bytes decoded
    assert nvml.state["shutdown"] == 1


def test_mig_instances_report_their_own_memory(monkeypatch, no_smi):
    parent = FakeDevice(
        "NVIDIA A100-SXM4-80GB",
        81920,
        "GPU-p",
        mig=[FakeDevice("mig", 40192, "MIG-one"), FakeDevice("mig", 19968, "MIG-two")],
    )
    use_nvml(monkeypatch, [parent])
    gpus = probe_gpus(env={}).gpus
    assert [g.memory_total_mib for g in gpus] == [40192, 19968]
    assert all(g.mig_parent_index == 0 for g in gpus)
    assert gpus[0].uuid == "MIG-one"


def test_memory_not_supported_is_unknown_not_a_crash(monkeypatch, no_smi):
    use_nvml(monkeypatch, [FakeDevice("NVIDIA GB10", None, "GPU-gb10")])
    gpus = probe_gpus(env={}).gpus
    assert gpus[0].memory_total_bytes is None


@pytest.mark.parametrize(
    ("code", "words"),
    [
        (LIBRARY_NOT_FOUND, "no NVIDIA GPU found"),
        (DRIVER_NOT_LOADED, "kernel driver is not loaded"),
        (LIB_RM_VERSION_MISMATCH, "reboot"),
        (NO_PERMISSION, "no permission"),
        (GPU_IS_LOST, "fell off the bus"),
    ],
)
def test_nvml_failures_become_one_line_diagnoses(monkeypatch, no_smi, code, words):
    use_nvml(monkeypatch, [], init_error=code)
    with pytest.raises(WizardError) as err:
        probe_gpus(env={})
    assert words in err.value.message
    assert "\n" not in err.value.message


def test_missing_bindings_and_no_smi_says_no_gpu(monkeypatch, no_smi):
    monkeypatch.setitem(sys.modules, "pynvml", None)  # import fails
    with pytest.raises(WizardError) as err:
        probe_gpus(env={})
    assert "needs an NVIDIA CUDA GPU" in err.value.message


def test_zero_devices_says_training_needs_a_gpu(monkeypatch, no_smi):
    use_nvml(monkeypatch, [])
    with pytest.raises(WizardError, match="needs an NVIDIA CUDA GPU"):
        probe_gpus(env={})


def test_falls_back_to_nvidia_smi_when_nvml_cannot_start(monkeypatch, tmp_path):
    use_nvml(monkeypatch, [], init_error=DRIVER_NOT_LOADED)
    fake_smi(
        monkeypatch,
        tmp_path,
        """
        import sys
        assert "--format=csv,noheader,nounits" in sys.argv
        print("0, NVIDIA RTX A6000, 49140, GPU-a6")
        print("1, NVIDIA RTX A6000, 49140, GPU-a7")
    """,
    )
    result = probe_gpus(env={})
    assert result.source == "nvidia-smi"
    assert [g.memory_total_mib for g in result.gpus] == [49140, 49140]
    assert any("NVML unavailable" in n for n in result.notes)


def test_a_hung_nvidia_smi_times_out(monkeypatch, tmp_path):
    use_nvml(monkeypatch, [], init_error=DRIVER_NOT_LOADED)
    fake_smi(
        monkeypatch,
        tmp_path,
        """
        import time
        time.sleep(60)
    """,
    )
    with pytest.raises(WizardError, match="did not answer within 0.5 s"):
        probe_gpus(env={}, smi_timeout_s=0.5)


def test_failing_nvidia_smi_quotes_its_first_line(monkeypatch, tmp_path):
    use_nvml(monkeypatch, [], init_error=DRIVER_NOT_LOADED)
    fake_smi(
        monkeypatch,
        tmp_path,
        """
        import sys
        print("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.")
        sys.exit(9)
    """,
    )
    with pytest.raises(WizardError) as err:
        probe_gpus(env={})
    assert "kernel driver is not loaded" in err.value.message
    assert "couldn't communicate" in err.value.message


def test_malformed_nvidia_smi_output_is_reported(monkeypatch, tmp_path):
    use_nvml(monkeypatch, [], init_error=DRIVER_NOT_LOADED)
    fake_smi(
        monkeypatch,
        tmp_path,
        """
        print("garbage without commas")
    """,
    )
    with pytest.raises(WizardError, match="unexpected"):
        probe_gpus(env={})


# --- CUDA_VISIBLE_DEVICES -------------------------------------------------------------------

FOUR = [FakeDevice("NVIDIA H100 80GB HBM3", 81559, f"GPU-{c * 8}") for c in "abcd"]


@pytest.mark.parametrize(
    ("value", "uuids", "note_words"),
    [
        ("2,0", ["GPU-cccccccc", "GPU-aaaaaaaa"], "narrows training to 2 of 4"),
        ("GPU-bbbb", ["GPU-bbbbbbbb"], "narrows"),
        ("1,7,2", ["GPU-bbbbbbbb"], "'7' is not a valid device"),
        ("0,0", ["GPU-aaaaaaaa"], "'0' is not a valid device"),
        ("1,-1,2", ["GPU-bbbbbbbb"], "'-1' is not a valid device"),
        ("0,1,2,3", ["GPU-aaaaaaaa", "GPU-bbbbbbbb", "GPU-cccccccc", "GPU-dddddddd"], None),
    ],
)
def test_cuda_visible_devices_narrows_like_cuda(monkeypatch, no_smi, value, uuids, note_words):
    use_nvml(monkeypatch, FOUR)
    result = probe_gpus(env={"CUDA_VISIBLE_DEVICES": value})
    assert [g.uuid for g in result.gpus] == uuids
    if note_words:
        assert any(note_words in n for n in result.notes)
        assert result.cuda_visible_devices == value
    else:
        assert result.cuda_visible_devices is None


def test_cuda_visible_devices_selects_a_mig_instance(monkeypatch, no_smi):
    parent = FakeDevice(
        "NVIDIA A100-SXM4-80GB",
        81920,
        "GPU-p",
        mig=[FakeDevice("m", 40192, "MIG-1111"), FakeDevice("m", 40192, "MIG-2222")],
    )
    use_nvml(monkeypatch, [parent])
    result = probe_gpus(env={"CUDA_VISIBLE_DEVICES": "MIG-2222"})
    assert [g.uuid for g in result.gpus] == ["MIG-2222"]


@pytest.mark.parametrize("value", ["", "  ", "9", "GPU-zzzz"])
def test_cuda_visible_devices_hiding_everything_is_an_error(monkeypatch, no_smi, value):
    use_nvml(monkeypatch, FOUR)
    with pytest.raises(WizardError, match="CUDA_VISIBLE_DEVICES"):
        probe_gpus(env={"CUDA_VISIBLE_DEVICES": value})


# --- CSV ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "name, memory.total [MiB]\nNVIDIA GeForce RTX 5090, 32607 MiB\n",
        "NVIDIA GeForce RTX 5090, 32607 MiB\n",
        "NVIDIA GeForce RTX 5090,32607\n",
        "\n# saved on the box\nNVIDIA GeForce RTX 5090, 32607\n\n",
    ],
)
def test_csv_with_or_without_header_and_units(text):
    gpus = parse_smi_csv(text)
    assert [(g.name, g.memory_total_mib) for g in gpus] == [("NVIDIA GeForce RTX 5090", 32607)]


def test_csv_na_memory_is_unknown():
    gpus = parse_smi_csv("NVIDIA GB10, [N/A]\n")
    assert gpus[0].memory_total_bytes is None


@pytest.mark.parametrize("text", ["NVIDIA X, lots\n", "a,b,c\n", "", "# only a comment\n"])
def test_bad_csv_is_a_usage_error_naming_the_line(tmp_path, text):
    path = tmp_path / "gpus.csv"
    path.write_text(text)
    with pytest.raises(UsageError) as err:
        resolve_probe(from_csv=str(path))
    assert str(path) in err.value.message


def test_csv_file_missing_or_directory(tmp_path):
    with pytest.raises(UsageError, match="no such file"):
        resolve_probe(from_csv=str(tmp_path / "nope.csv"))
    with pytest.raises(UsageError, match="is a directory"):
        resolve_probe(from_csv=str(tmp_path))


def test_csv_and_simulated_ignore_cuda_visible_devices(tmp_path, monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    assert len(resolve_probe(simulate="8xh100").gpus) == 8


def test_live_probe_reads_the_process_environment(monkeypatch, no_smi):
    use_nvml(monkeypatch, FOUR)
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "3")
    assert [g.uuid for g in resolve_probe().gpus] == ["GPU-dddddddd"]
