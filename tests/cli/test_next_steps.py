"""Every error and warning names the next command or option (issue: the first-time user's path)."""

from __future__ import annotations

import pytest

from ltx_wizard.cli import main
from ltx_wizard.core.dataset.data_root import inspect_data_root
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.demo.lookalike_checkout import make_checkout
from ltx_wizard.demo.lookalike_models import make_checkpoint, make_gemma_dir
from ltx_wizard.core.plan.model_checks import run_checks
from ltx_wizard.core.inputs.model_paths import resolve_user_path


def test_a_data_root_without_latents_names_process_dataset_and_its_flags(tmp_path):
    (tmp_path / "clips").mkdir()
    with pytest.raises(UsageError) as exc:
        inspect_data_root(tmp_path / "clips")
    for words in (
        "scripts/process_dataset.py",
        "--resolution-buckets",
        "--model-path",
        "--text-encoder-path",
        ".precomputed",
    ):
        assert words in exc.value.message


def test_a_hugging_face_url_gets_its_exact_hf_download_line():
    url = "https://huggingface.co/Lightricks/LTX-2.5/resolve/main/vae/ltx-2.5-audio-vae-bf16.safetensors"
    with pytest.raises(UsageError) as exc:
        resolve_user_path(url, what="audio VAE")
    assert (
        "hf download Lightricks/LTX-2.5 vae/ltx-2.5-audio-vae-bf16.safetensors --local-dir models/LTX-2.5"
    ) in exc.value.message
    assert "pass models/LTX-2.5/vae/ltx-2.5-audio-vae-bf16.safetensors" in exc.value.message


def test_any_other_url_still_says_how_to_download():
    with pytest.raises(UsageError, match="hf download REPO FILE --local-dir DIR"):
        resolve_user_path("s3://bucket/ckpt.safetensors", what="checkpoint")


def test_check_marks_a_checkout_without_uv_warn_with_the_setup_offer(tmp_path, capsys, monkeypatch):
    checkout = make_checkout(tmp_path / "LTX-2")
    ckpt = make_checkpoint(tmp_path / "m" / "ltx-2.safetensors")
    gemma = make_gemma_dir(tmp_path / "m" / "gemma-3")
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    item = run_checks(checkpoint=ckpt, text_encoder=gemma, trainer_root=checkout)[-1]
    assert item.ok and "`ltx-wizard setup` installs it" in item.warning
    assert (
        main(
            [
                "check",
                "--checkpoint",
                str(ckpt),
                "--text-encoder",
                str(gemma),
                "--trainer-root",
                str(checkout),
            ]
        )
        == 0
    )  # a warning does not fail the check
    line = next(x for x in capsys.readouterr().out.splitlines() if "trainer_root" in x)
    assert line.startswith("warn ")
