"""Where prepare meets the next phase and the user's surface (issue 40): a captioner server URL
checked with a clear message; the advice naming the flags on the command line and the fields on
the screen; the GPU-bound script replaced under --simulate while the others run in the checkout's
environment; the plan line rendered from what prepare used."""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path

import pytest

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.prepare import captioner
from ltx_wizard.core.prepare.next_step import Models, gpu_source_args, plan_line
from ltx_wizard.core.prepare.prepare_request import PrepareResult
from ltx_wizard.core.prepare.scripts import uv_runner
from ltx_wizard.demo.sim.captioner import lookalike_runner, simulated_gpu_runner
from ltx_wizard.tui.screens.prepare.choices import TUI_KNOBS
from tests.prepare_kit import H100, SMALL_GPU


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("localhost:8001", "is not an http:// or https:// address with a host"),
        ("10.0.0.5:8001/v1", "is not an http:// or https:// address with a host"),
        ("ftp://host/v1", "is not an http:// or https:// address with a host"),
        ("http://", "is not an http:// or https:// address with a host"),
        ("http://host:99999/v1", "is not a URL"),
        ("http://host:80x/v1", "is not a URL"),
        ("http://host:8001/v1?x=1", "has spaces, a ? or a #"),
        ("http://my host:8001/v1", "has spaces, a ? or a #"),
    ],
)
def test_a_bad_server_url_is_said_with_what_one_looks_like(typed, said):
    with pytest.raises(UsageError, match=re.escape(said)) as cli:
        captioner.check_server_url(typed)
    assert "(--vllm-url URL)" in cli.value.message and "e.g. http://10.0.0.5:8001/v1" in cli.value.message
    with pytest.raises(UsageError) as tui:
        captioner.check_server_url(typed, knobs=TUI_KNOBS)
    assert 'the "Captioner server URL" field' in tui.value.message and "--vllm-url" not in tui.value.message


def test_a_good_server_url_is_kept_without_its_trailing_slash():
    assert captioner.check_server_url(" https://gpu-box.lan:8001/v1/ ") == "https://gpu-box.lan:8001/v1"
    assert captioner.check_server_url("http://127.0.0.1:8001/v1") == "http://127.0.0.1:8001/v1"


def test_a_typed_url_wins_over_a_key_and_a_bad_one_is_never_ignored():
    url = captioner.choose_captioner(None, {"GEMINI_API_KEY": "k"}, H100, vllm_url="http://h:1/v1")
    assert (url.backend, url.vllm_url, url.start_server) == ("qwen_omni", "http://h:1/v1", False)
    with pytest.raises(UsageError, match="not an http"):
        captioner.choose_captioner("gemini_flash", {}, H100, vllm_url="h:1/v1")


def test_the_advice_on_a_small_card_names_what_the_surface_has():
    with pytest.raises(UsageError) as cli:
        captioner.choose_captioner("qwen_omni", {}, SMALL_GPU)
    assert "(--vllm-url URL), or --captioner gemini_flash with GEMINI_API_KEY" in cli.value.message
    with pytest.raises(UsageError) as tui:
        captioner.choose_captioner("qwen_omni", {}, SMALL_GPU, knobs=TUI_KNOBS)
    assert '(the "Captioner server URL" field), or Captioner "gemini_flash"' in tui.value.message
    none = captioner.choose_captioner(None, {}, SMALL_GPU, knobs=TUI_KNOBS)
    assert 'the "Your captions file" field' in none.why and "--captions" not in none.why


def test_under_simulate_only_the_server_is_a_stand_in(tmp_path):
    real = uv_runner(tmp_path, "/opt/uv")
    sim = simulated_gpu_runner(tmp_path, "/opt/uv")
    args = ["--host", "127.0.0.1", "--port", "9"]
    for script in ("caption_videos.py", "split_scenes.py", "compute_reference.py"):
        assert (
            sim.argv(script, ["x"])
            == real.argv(script, ["x"])
            == ["/opt/uv", "run", "python", f"scripts/{script}", "x"]
        )
    assert sim.python(["-c", "1"]) == real.python(["-c", "1"])  # the audio check: the trainer's env
    assert sim.argv("serve_captioner.py", args) == [
        sys.executable,
        "-m",
        "ltx_wizard.demo.sim.captioner",
        *args,
    ]
    assert real.argv("serve_captioner.py", args)[:4] == [
        "/opt/uv",
        "run",
        "python",
        "scripts/serve_captioner.py",
    ]
    with pytest.raises(UsageError, match="uv is not on PATH"):
        simulated_gpu_runner(tmp_path, None)  # as without --simulate: the checkout's environment
    assert lookalike_runner(tmp_path, None).argv("caption_videos.py", []) == [
        sys.executable,
        "scripts/caption_videos.py",
    ]


def _result(tmp_path: Path, **more) -> PrepareResult:
    run = tmp_path / "ws" / "my run"
    return PrepareResult(
        run_dir=run,
        dataset_file=run / "dataset" / "dataset.json",
        samples=4,
        recipe="t2v_lora",
        bucket="960x544x49",
        trainer_root=tmp_path / "LTX-2",
        **more,
    )


def test_the_plan_line_carries_the_checkout_the_gpus_and_the_models(tmp_path):
    models = Models(checkpoint=tmp_path / "m" / "ltx.safetensors", text_encoder=tmp_path / "m" / "gemma")
    line = plan_line(
        _result(tmp_path, lora_trigger="sks").plan, gpu_source_args("rtx5090", None, None), models
    )
    assert line.runnable and line.why == ""
    argv = shlex.split(line.text())  # quoted: the run folder's space survives
    assert argv[:4] == ["ltx-wizard", "plan", "--trainer-root", str(tmp_path / "LTX-2")]
    assert argv[argv.index("--simulate") + 1] == "rtx5090"
    assert argv[argv.index("--checkpoint") + 1] == str(models.checkpoint)
    assert argv[argv.index("--workspace") + 1] == str(tmp_path / "ws")
    assert argv[argv.index("--run-name") + 1] == "my run" and argv[argv.index("--lora-trigger") + 1] == "sks"


def test_without_models_the_line_says_what_goes_where(tmp_path):
    line = plan_line(_result(tmp_path).plan, gpu_source_args(None, "gpus.csv", 24.0), None)
    assert not line.runnable and "FILE" in line.why and "DIR" in line.why
    assert line.argv[line.argv.index("--from-csv") + 1] == str(Path("gpus.csv").resolve())
    assert line.argv[line.argv.index("--vram-gb") + 1] == "24"
    assert "--simulate" not in line.argv
