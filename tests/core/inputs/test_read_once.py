"""Each model header is read and parsed once per run, however many looks it gets; what is kept
of it is a summary, never the tensor table."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from ltx_wizard.core.inputs import header_cache

from ltx_wizard.core.inputs import header_summary
from ltx_wizard.core.tuning.headroom import model_size
from ltx_wizard.core.inputs.checkpoint import inspect_checkpoint
from ltx_wizard.core.inputs.discovery import discover
from ltx_wizard.core.plan.model_checks import run_checks
from ltx_wizard.demo.lookalike_models import (
    make_checkpoint,
    make_gemma_dir,
    make_packed_gemma,
    make_vae,
    write_safetensors,
)


def _count_parses(monkeypatch) -> Counter:
    # fold_header is the one parse of a header's bytes (the compact scan, else the full JSON)
    parsed: Counter = Counter()
    real = header_summary.fold_header

    def counting(path, raw, data_len):
        parsed[Path(path).name] += 1
        return real(path, raw, data_len)

    monkeypatch.setattr(header_summary, "fold_header", counting)
    return parsed


def test_discovery_then_the_checks_parse_each_header_once(tmp_path, monkeypatch):
    models = tmp_path / "models"
    unified = make_checkpoint(models / "ltx23" / "ltx-2.3-dev.safetensors", params_b=1, blocks=2)
    gemma = make_gemma_dir(models / "ltx23" / "gemma")
    pack = models / "ltx25"
    make_checkpoint(
        pack / "ltx-2.5-transformer.safetensors", split=True, gemma_version="4", model_version="2.5.0"
    )
    make_packed_gemma(pack / "gemma-packed.safetensors", gemma_version="4", model_type="gemma4")
    make_vae(pack / "video_vae.safetensors", "video")
    make_vae(pack / "audio_vae.safetensors", "audio")
    write_safetensors(models / "lora.safetensors", {"a.lora_A.weight": ("BF16", [16, 64])})
    parsed = _count_parses(monkeypatch)
    header_cache.clear()

    result = discover([models], env={}, system_roots=())
    assert result.best is not None and result.best.path == unified
    assert len(result.candidates) == 6  # 2 checkpoints, 2 Gemmas, 2 VAEs (the LoRA is no model)
    # the user picks the best one: the paths form checks it, the plan and autotune size it
    run_checks(checkpoint=unified, text_encoder=gemma)
    assert model_size(inspect_checkpoint(unified), ["to_q"]).lora_params_per_rank > 0
    assert parsed == Counter(
        {
            "ltx-2.3-dev.safetensors": 1,
            "model-00001-of-00001.safetensors": 1,
            "ltx-2.5-transformer.safetensors": 1,
            "gemma-packed.safetensors": 1,
            "video_vae.safetensors": 1,
            "audio_vae.safetensors": 1,
            "lora.safetensors": 1,
        }
    )


def test_a_checkpoint_keeps_its_lora_sizes_without_its_tensor_table(tmp_path):
    path = make_checkpoint(tmp_path / "ltx-2.safetensors", params_b=19, blocks=48)
    header_cache.clear()
    info = inspect_checkpoint(path)
    kept = header_cache.summary_for(path, path.stat())
    assert not hasattr(kept, "tensors")  # counts and one compact str, not ~thousands of entries
    assert isinstance(info.linear_table, str) and len(info.linears) == kept.linear_table.count("\n")
    assert model_size(info, ["to_q"]).lora_params_per_rank == 48 * (
        2 * 8192 + 2 * 4096 + (2048 + 4096) + 4096
    )


def test_plan_parses_each_yaml_text_once(model_tree, monkeypatch, capsys):
    from ruamel.yaml import YAML

    from ltx_wizard.cli import main
    from ltx_wizard.core.launch import accelerate_config
    from ltx_wizard.core.io import yaml_parse

    monkeypatch.setattr(accelerate_config, "accelerate_available", lambda: False)
    box = model_tree()
    parses: Counter = Counter()  # every way ruamel reads a text: load (any kind) or compose
    for name in ("load", "compose"):
        real = getattr(YAML, name)

        def counting(self, stream, _real=real):
            parses[str(stream)] += 1
            return _real(self, stream)

        monkeypatch.setattr(YAML, name, counting)
    yaml_parse._parsed.cache_clear()
    yaml_parse._safe_load.cache_clear()
    assert main(box.args()) == 0, capsys.readouterr().err
    assert parses and max(parses.values()) == 1, [n for n in parses.values() if n > 1]
    shipped = box.shipped("t2v_lora.yaml").read_text("utf-8")
    written = (box.ws / "run" / "config.yaml").read_text("utf-8")
    # the recipe's config: read by every plan step and patched; the written config: checked, read
    assert parses[shipped] == 1 and parses[written] == 1


async def test_autotune_sizes_the_model_from_the_plans_record_without_opening_the_checkpoint(
    tmp_path, monkeypatch
):
    # plan read the checkpoint's header and kept what it learned in plan.json; autotune's
    # memory model takes it from there (a process of its own: the header cache is empty)
    from tests.core.autotune.test_autotune_engine import _engine, plan_run
    from ltx_wizard.core.inputs import checkpoint as checkpoint_module

    run_dir = plan_run(tmp_path, "rtx5090")
    header_cache.clear()
    opened: list = []
    real = checkpoint_module.inspect_checkpoint
    monkeypatch.setattr(
        checkpoint_module, "inspect_checkpoint", lambda *a, **k: opened.append(a) or real(*a, **k)
    )
    engine = _engine(run_dir, "rtx5090", [])
    summary = await engine.run()
    assert summary.trials and opened == []
    # the sizes came from the record: a skip or decision names the model's own numbers
    assert any("GiB" in (t.reason + t.decision) for t in summary.trials)
