"""Host RAM and free disk, read at plan time: numbers in plan.md, a warning when tight, exit 2 only
where the run cannot fit."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from ltx_wizard.cli import main
from ltx_wizard.core.plan import memory_section as plan_memory  # where prepare_plan looks read_host up
from ltx_wizard.core.plan.host_limits import HostReadings, check_host, parse_meminfo, read_host
from ltx_wizard.demo.lookalike_checkout import make_checkout
from ltx_wizard.demo.lookalike_models import make_checkpoint, make_data_root, make_gemma_dir

GiB = 1024**3
LORA = {
    "model": {"training_mode": "lora"},
    "lora": {"rank": 32},
    "optimization": {"steps": 2000},
    "checkpoints": {"interval": 250, "keep_last_n": -1},
}
FULL = {**LORA, "model": {"training_mode": "full"}}
CKPT_22B = SimpleNamespace(
    transformer_param_count=22 * 10**9,
    linears=(),
    embeddings_param_count=0,
    dtype_counts={"BF16": 22 * 10**9},
)
CKPT_22B_FP8 = SimpleNamespace(**{**CKPT_22B.__dict__, "dtype_counts": {"F8_E4M3": 22 * 10**9}})


def box(mem=256, avail=240, swap=0, disk=500, cgroup=None) -> HostReadings:
    return HostReadings(
        mem * GiB,
        avail * GiB,
        swap * GiB,
        None if cgroup is None else cgroup * GiB,
        disk * GiB,
        Path("/data"),
    )


def test_meminfo_and_statvfs_are_read_from_injected_sources(tmp_path):
    meminfo = tmp_path / "meminfo"
    meminfo.write_text(
        "MemTotal:       65536000 kB\nMemAvailable:   32768000 kB\n"
        "SwapFree:        1024 kB\nHugePages_Total:       0\n"
    )
    cgroup = tmp_path / "cg"
    cgroup.mkdir()
    (cgroup / "memory.max").write_text("34359738368\n")
    run_dir = tmp_path / "ws" / "not-yet" / "run"
    stat = SimpleNamespace(f_bavail=1000, f_frsize=4096)
    seen = []
    readings = read_host(
        run_dir, meminfo=meminfo, cgroup_root=cgroup, statvfs=lambda p: seen.append(p) or stat
    )
    assert readings.mem_total == 65536000 * 1024 and readings.mem_available == 32768000 * 1024
    assert readings.swap_free == 1024 * 1024 and readings.cgroup_limit == 32 * GiB
    assert readings.disk_free == 4096000 and seen == [str(tmp_path)]  # nearest existing folder
    assert parse_meminfo("HugePages_Total:       0")["HugePages_Total"] == 0


def test_22b_lora_on_one_gpu_fits_a_256_gib_box():
    check = check_host(LORA, CKPT_22B, 0, 1, box())
    assert check.level == "ok" and check.refusal is None and not check.warnings
    # A bf16 checkpoint is mapped, not copied: ~41 GiB of page cache, nothing allocated.
    assert check.ram_need == 0
    assert "read through the shared page cache: the 41.0 GiB checkpoint" in check.ram_items


def test_a_bf16_checkpoint_larger_than_free_memory_only_loads_slower():
    check = check_host(LORA, CKPT_22B, 0, 8, box(mem=64, avail=40))
    assert check.refusal is None and check.level == "tight"
    assert "it loads, more slowly" in check.warnings[0]


def test_a_non_bf16_checkpoint_is_copied_by_every_process():
    check = check_host(LORA, CKPT_22B_FP8, 0, 4, box(mem=1024, avail=1000))
    assert check.ram_need == 4 * 22 * 10**9 * 2
    assert "transformer copied from f8_e4m3 to bf16 on the CPU: 41.0 GiB per process" in check.lines[1]
    quantized = {**LORA, "acceleration": {"quantization": "int8-quanto"}}
    assert check_host(quantized, CKPT_22B, 0, 1, box()).ram_need == 22 * 10**9  # int8 back on CPU


def test_8bit_gemma_counts_when_it_is_bigger_than_the_transformer():
    config = {
        **LORA,
        "acceleration": {"load_text_encoder_in_8bit": True},
        "validation": {"prompts": ["a cat"]},
    }
    small = SimpleNamespace(transformer_param_count=5 * 10**9, linears=(), embeddings_param_count=0)
    check = check_host(config, small, 13 * 10**9, 1, box())
    assert check.ram_need == 26 * 10**9  # Gemma 13 B in bf16 before quantisation
    assert any("Gemma copied to fp16" in item for item in check.ram_items)
    no_prompts = check_host({**config, "validation": {}}, small, 13 * 10**9, 1, box())
    assert no_prompts.ram_need == 0  # no prompts: Gemma is never loaded for validation


def test_tight_ram_is_a_warning_not_a_refusal():
    check = check_host(LORA, CKPT_22B_FP8, 0, 1, box(mem=64, avail=40, swap=8))
    assert check.level == "tight" and check.refusal is None
    assert "host RAM is tight: loading needs 41.0 GiB and 40.0 GiB is available" in check.warnings[0]


def test_full_finetune_on_8_gpus_cannot_fit_a_256_gib_box():
    check = check_host(FULL, CKPT_22B, 0, 8, box(disk=5000))
    assert check.level == "refuse"
    assert "needs 655.7 GiB of host RAM" in check.refusal and "8 x 82.0 GiB" in check.refusal
    assert "cast to fp32 on the CPU (full fine-tune)" in check.refusal
    assert "this machine has 256.0 GiB" in check.refusal and "use fewer GPUs" in check.refusal


def test_a_cgroup_limit_is_the_machine():
    check = check_host(LORA, CKPT_22B_FP8, 0, 1, box(cgroup=32))
    assert check.refusal and "this machine has 32.0 GiB (memory limit)" in check.refusal


def test_disk_for_kept_full_checkpoints():
    check = check_host(FULL, CKPT_22B, 0, 8, box(mem=2048, avail=2000, disk=100))
    # 2000 steps / 250 = 8 saves of 22e9 x 2 bytes (bf16), all kept (keep_last_n -1)
    assert check.disk_need == 8 * 44 * 10**9 + GiB
    # a disk shortfall is flagged before approval, never enforced (the skill's onboarding)
    assert check.refusal is None or "disk" not in check.refusal
    warning = next(w for w in check.warnings if w.startswith("not enough disk"))
    assert "has 100.0 GiB free: free 228.8 GiB there or pick another --workspace" in warning
    pruned = check_host(
        {**FULL, "checkpoints": {"interval": 250, "keep_last_n": 2}},
        CKPT_22B,
        0,
        8,
        box(mem=2048, avail=2000, disk=200),
    )
    assert pruned.disk_need == 3 * 44 * 10**9 + GiB and pruned.refusal is None  # 2 + 1 in flight


def test_simulated_gpus_only_warn():
    check = check_host(FULL, CKPT_22B, 0, 8, box(), enforce=False)
    assert check.refusal is None and check.level == "tight"
    assert any("not enforced" in w for w in check.warnings)


@pytest.fixture
def plan_argv(tmp_path):
    make_checkout(tmp_path / "LTX-2")
    # An fp8 checkpoint: every process copies it to bf16 on the CPU (41 GiB).
    ckpt = make_checkpoint(tmp_path / "m" / "ltx.safetensors", params_b=22, dtype="F8_E4M3")
    gemma = make_gemma_dir(tmp_path / "m" / "gemma")
    data = make_data_root(tmp_path / "data", 4)
    csv = tmp_path / "box.csv"
    csv.write_text("name, memory.total [MiB]\nNVIDIA H100 80GB HBM3, 81559 MiB\n")
    return [
        "plan",
        "--trainer-root",
        str(tmp_path / "LTX-2"),
        "--checkpoint",
        str(ckpt),
        "--text-encoder",
        str(gemma),
        "--data-root",
        str(data),
        "--workspace",
        str(tmp_path / "ws"),
        "--run-name",
        "run",
        "--from-csv",
        str(csv),
    ]


def test_plan_refuses_with_the_numbers_and_writes_nothing(plan_argv, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(plan_memory, "read_host", lambda run_dir: box(mem=32, avail=30))
    assert main(plan_argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("ltx-wizard: the run needs 41.0 GiB of host RAM")
    assert "this machine has 32.0 GiB" in err
    assert not (tmp_path / "ws" / "run").exists()


def test_plan_md_holds_the_host_numbers(plan_argv, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(plan_memory, "read_host", lambda run_dir: box(mem=64, avail=40))
    assert main(plan_argv) == 0
    err = capsys.readouterr().err
    assert "warning: host RAM is tight" in err
    plan = (tmp_path / "ws" / "run" / "plan.md").read_text()
    section = plan.split("## Memory and disk\n", 1)[1].split("\n## ", 1)[0]
    assert (
        "- Host RAM at load time: needs 41.0 GiB (+ 20.5 GiB page cache); this machine: "
        "64.0 GiB (40.0 GiB available"
    ) in section
    assert "- Disk in the run folder: needs about" in section and "/data has 500.0 GiB free" in section
    assert "host RAM is tight" in plan  # also among the plan's warnings


def test_real_host_is_read_when_nothing_is_injected(tmp_path):
    if not os.path.exists("/proc/meminfo"):
        pytest.skip("no /proc/meminfo here")
    readings = read_host(tmp_path)
    assert readings.mem_total and readings.disk_free is not None and readings.disk_path == tmp_path


def test_plan_warns_when_the_planned_full_finetune_cannot_fit_its_gpus(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(plan_memory, "read_host", lambda run_dir: box(mem=4096, avail=4000, disk=5000))
    make_checkout(tmp_path / "LTX-2")
    ckpt = make_checkpoint(tmp_path / "m" / "ltx.safetensors", params_b=22, blocks=48)
    gemma = make_gemma_dir(tmp_path / "m" / "gemma")
    data = make_data_root(tmp_path / "data", 4)
    base = [
        "plan",
        "--trainer-root",
        str(tmp_path / "LTX-2"),
        "--checkpoint",
        str(ckpt),
        "--text-encoder",
        str(gemma),
        "--data-root",
        str(data),
        "--workspace",
        str(tmp_path / "ws"),
        "--training-mode",
        "full",
    ]
    assert main([*base, "--run-name", "two", "--simulate", "2xh100"]) == 0
    err = capsys.readouterr().err
    # fp32 weights + grads + AdamW = 16 bytes x 22e9, over 2 GPUs: 163.9 GiB + 2.5 overhead
    assert "needs at least 166.4 GiB per GPU" in err and "at least 5 such GPUs" in err
    plan = (tmp_path / "ws" / "two" / "plan.md").read_text()
    assert "- GPU memory floor of the planned config: 166.4 GiB per GPU" in plan
    assert main([*base, "--run-name", "eight", "--simulate", "8xh100"]) == 0
    assert "per GPU" not in capsys.readouterr().err  # 43.5 GiB of 79.6: no warning
    assert "floor of the planned config: 43.5 GiB" in (tmp_path / "ws" / "eight" / "plan.md").read_text()


def test_multi_node_floor_shards_over_every_gpu_but_ram_counts_one_node(tmp_path):
    from ltx_wizard.core.gpu.assessment import assess
    from ltx_wizard.core.inputs.checkpoint import inspect_checkpoint
    from ltx_wizard.core.gpu.probe import resolve_probe
    from ltx_wizard.core.inputs.text_encoder import inspect_text_encoder

    ckpt = inspect_checkpoint(make_checkpoint(tmp_path / "c.safetensors", params_b=22, blocks=48))
    te = inspect_text_encoder(make_gemma_dir(tmp_path / "g"))
    config = (
        "model:\n  training_mode: full\noptimization:\n  optimizer_type: adamw\n"
        "  steps: 100\ncheckpoints:\n  interval: null\n"
    )
    probe = resolve_probe(from_csv=None, simulate="4xh100")
    probe = dataclasses.replace(probe, source="csv")  # enforced, as on a real machine
    memory = plan_memory.plan_memory(
        config, ckpt, te, 4, 8, tmp_path / "run", assess(probe), box(mem=2048, avail=2000)
    )
    assert "GPU memory floor of the planned config: 43.5 GiB per GPU" in memory.lines[0]
    assert "sharded over 8 GPUs" in memory.lines[0] and not memory.warnings
    assert memory.host.ram_need == 4 * 22 * 10**9 * 4  # this node's 4 processes, fp32 each


def test_validation_videos_are_counted_per_pass_and_prompt():
    from ltx_wizard.core.plan.host_limits import validation_videos

    config = {
        **LORA,
        "optimization": {"steps": 2000},
        "validation": {"interval": 250, "samples": [{"prompt": "a"}, {"prompt": "b"}]},
    }
    assert validation_videos(config) == (8 + 1) * 2  # steps 0, 250, ..., 2000
    config["validation"]["skip_initial_validation"] = True
    assert validation_videos(config) == 16
    config["validation"]["interval"] = None
    assert validation_videos(config) == 0
    check = check_host(
        {**config, "validation": {"interval": 500, "samples": [{"prompt": "a"}]}},
        CKPT_22B,
        0,
        1,
        box(mem=2048, avail=2000, disk=5000),
    )
    assert any("5 validation videos at an allowance of 20 MB each" in i for i in check.disk_items)


def test_latents_still_to_preprocess_count_on_their_disk(tmp_path):
    from ltx_wizard.core.dataset.buckets import parse_buckets
    from ltx_wizard.core.preprocess.latent_disk import LatentDisk, latent_disk, per_sample_bytes

    (bucket,) = parse_buckets("960x544x49")
    # 128 x 7 x 17 x 30 bf16 video latents + 1024 tokens x (4096 + 2048) bf16 + mask + audio
    expected = 128 * 7 * 17 * 30 * 2 + 1024 * 6144 * 2 + 1024 * 8 + 8 * 49 * 16 * 4 + 3 * 2048
    assert per_sample_bytes(bucket, 4096, 2048, True) == expected
    found = latent_disk(tmp_path / "data" / ".precomputed", 1000, (bucket,), 4096, 2048, True)
    assert found.total == 1000 * expected and found.free is not None
    same_disk = LatentDisk(samples=1000, per_sample=expected, root=tmp_path, free=None, device=7)
    readings = box(mem=2048, avail=2000, disk=5000)
    readings = type(readings)(**{**readings.__dict__, "disk_device": 7})
    together = check_host(LORA, CKPT_22B, 0, 1, readings, latents=same_disk)
    alone = check_host(LORA, CKPT_22B, 0, 1, readings)
    assert together.disk_need == alone.disk_need + 1000 * expected
    other = LatentDisk(samples=1000, per_sample=expected, root=tmp_path / "x", free=10**9, device=8)
    short = check_host(LORA, CKPT_22B, 0, 1, readings, latents=other)
    assert short.disk_need == alone.disk_need
    assert any(
        w.startswith("not enough disk for the preprocessed data") and str(tmp_path / "x") in w
        for w in short.warnings
    )
