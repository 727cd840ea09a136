"""run_checks takes a checkpoint the caller already read: the file is read once per check."""

from __future__ import annotations

from ltx_wizard.core.plan import model_checks
from ltx_wizard.core.inputs.checkpoint import inspect_checkpoint
from ltx_wizard.demo.lookalike_models import make_checkpoint, make_gemma_dir


def test_an_already_inspected_checkpoint_is_not_read_again(tmp_path, monkeypatch):
    ckpt = make_checkpoint(tmp_path / "m" / "ltx-2.safetensors")
    gemma = make_gemma_dir(tmp_path / "m" / "gemma")
    info = inspect_checkpoint(ckpt)
    reads: list[str] = []
    real = model_checks.inspect_checkpoint
    monkeypatch.setattr(
        model_checks, "inspect_checkpoint", lambda path, **kw: reads.append(str(path)) or real(path, **kw)
    )
    items = model_checks.run_checks(checkpoint=ckpt, text_encoder=gemma, inspected=info)
    assert reads == [] and all(i.ok for i in items)
    assert items[0].summary == info.summary()
    other = make_checkpoint(tmp_path / "m" / "other.safetensors")
    model_checks.run_checks(checkpoint=other, text_encoder=gemma, inspected=info)
    assert reads == [str(other)]  # a different path is read, never mistaken for the first
