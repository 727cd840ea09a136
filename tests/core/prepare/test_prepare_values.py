"""Prepare as values (issue 42, item 4): each stage takes the frozen dataset value and returns a
new one, the value it was given left as it was; the request is built by one adapter; the result
reaches the plan as the plan request's fields, from which the printed line is rendered."""

from __future__ import annotations

import copy
import dataclasses
from pathlib import Path

import pytest

from ltx_wizard.cli import build_parser
from ltx_wizard.commands.plan import request_from_args
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.plan.plan_request import PlanRequest
from ltx_wizard.core.prepare import clip_stages, finish
from ltx_wizard.core.prepare import prepare_session as session_module
from ltx_wizard.core.prepare.dataset_value import PrepData, Row, row_of
from ltx_wizard.core.prepare.next_step import dataset_args, plan_line
from ltx_wizard.core.prepare.prepare_request import PlanInputs, PrepareResult, build_prepare_request
from tests.prepare_kit import Asker, checkout, raw_folder, session


def _guarded(stage, seen: list[str]):
    """`stage`, checked to leave the value it is given as it was and to hand on a new one."""

    async def run(ctx, data, *rest):
        assert isinstance(data, PrepData)
        before = copy.deepcopy(data)
        out = await stage(ctx, data, *rest)
        assert data == before, f"{stage.__name__} changed the value it was given"
        seen.append(stage.__name__)
        return out

    return run


async def test_no_stage_changes_the_value_it_is_given(tmp_path, monkeypatch):
    checkout(tmp_path)
    raw = raw_folder(tmp_path)  # a long clip with cuts, a rotated one, a silent one: every stage works
    seen: list[str] = []
    for module, name in (
        (clip_stages, "audited"),
        (clip_stages, "check_pairs"),
        (clip_stages, "split"),
        (clip_stages, "upright"),
        (finish, "holdout_count"),
        (finish, "finish"),
        (session_module, "caption_rows"),
    ):
        monkeypatch.setattr(module, name, _guarded(getattr(module, name), seen))
    result = await session(tmp_path, raw, Asker(), split_scenes=True, holdout="1").run()
    assert seen == ["audited", "check_pairs", "split", "upright", "holdout_count", "caption_rows", "finish"]
    assert result.samples == 5 and len(result.held_out) == 1  # 3 scenes, upright phone, quiet, beach


def test_the_dataset_value_is_frozen_and_its_rows_typed():
    row = row_of(
        {"caption": "A cat", "video": "videos/a.mp4", "reference_video": "r.mp4"}, "video", "caption"
    )
    assert row == Row(video="videos/a.mp4", caption="A cat", others=(("reference_video", "r.mp4"),))
    assert row.as_dict("video", "caption") == {
        "video": "videos/a.mp4",
        "caption": "A cat",
        "reference_video": "r.mp4",
    }
    with pytest.raises(dataclasses.FrozenInstanceError):
        row.caption = "B"  # type: ignore[misc]
    bare = row_of({"media_path": "x.mp4"}, "media_path", "caption")
    assert bare.caption is None and bare.as_dict("media_path", "caption") == {"media_path": "x.mp4"}


def test_the_request_adapter_reads_raw_values_as_each_surface_gives_them():
    req = build_prepare_request(
        {
            "source": "~/clips",
            "run_name": " my-run ",
            "captioner": "auto",
            "holdout": " 2 ",
            "lora_trigger": "",
            "recipe": "",
            "vllm_url": "http://h:8001/v1/",
            "split_scenes": True,
        }
    )
    assert (req.source, req.run_name, req.captioner, req.holdout, req.lora_trigger) == (
        "~/clips",
        "my-run",
        None,
        "2",
        None,
    )
    assert req.recipe == "t2v_lora" and req.vllm_url == "http://h:8001/v1" and req.split_scenes
    with pytest.raises(TypeError, match="not fields of PrepareRequest: resolution_buckets"):
        build_prepare_request({"source": "x", "resolution_buckets": "1x1x1"})


@pytest.mark.parametrize(
    ("raw", "said"),
    [
        ({"source": ""}, "the source is required"),
        ({"source": "x", "run_name": "a/b"}, "run name 'a/b' contains a slash"),
        ({"source": "x", "buckets": "wide"}, "wide"),
        ({"source": "x", "lora_trigger": "sks", "instruction": "describe the sks dog"}, "names the trigger"),
        ({"source": "x", "vllm_url": "host:8001"}, "is not an http:// or https:// address"),
    ],
)
def test_a_bad_input_is_refused_by_the_adapter_before_anything_runs(raw, said):
    with pytest.raises(UsageError, match=said):
        build_prepare_request(raw)


def _result(tmp_path: Path, **more) -> PrepareResult:
    run = tmp_path / "ws" / "my run"
    return PrepareResult(
        run_dir=run,
        dataset_file=run / "dataset" / "dataset.json",
        samples=4,
        recipe="i2v_lora",
        bucket="960x544x49",
        trainer_root=tmp_path / "LTX-2",
        **more,
    )


def test_what_prepare_hands_the_plan_are_the_plan_requests_own_fields():
    names = {f.name for f in dataclasses.fields(PlanInputs)}
    assert names <= set(PlanRequest.__dataclass_fields__)


@pytest.mark.parametrize("more", [{}, {"lora_trigger": "sks", "all_silent": True}])
def test_the_printed_line_parses_back_into_the_same_fields(tmp_path, more):
    """The CLI's line is rendered from the fields; the plan's own parser reads the same back."""
    inputs = _result(tmp_path, **more).plan
    line = plan_line(inputs, ["--simulate", "h100"], None)
    args = build_parser().parse_args(list(line.argv[1:]))
    request = request_from_args(args)
    for name in (f.name for f in dataclasses.fields(PlanInputs)):
        assert getattr(request, name) == getattr(inputs, name), name
    assert dataset_args(inputs)[:2] == ["--dataset", str(inputs.data_root)]
