"""The look-alike checkout's ltx-pipelines entry points take the real command lines and refuse
what the real parsers refuse; with LTX_WIZARD_REAL_CHECKOUT naming a real LTX-2 checkout, their
flags are compared with the real parsers' own."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ltx_wizard.demo.lookalike_pipelines import MODULES, load_parser, write_pipelines
from tests.eval_runs import write_weights


@pytest.fixture
def files(tmp_path):
    write_pipelines(tmp_path / "LTX-2")
    names = (
        "ckpt.safetensors",
        "distilled.safetensors",
        "up.safetensors",
        "dlora.safetensors",
        "lora.safetensors",
        "still.png",
        "ref.mp4",
        "sound.wav",
    )
    out = {n: write_weights(tmp_path / n) for n in names}
    (tmp_path / "gemma").mkdir()
    out["gemma"] = tmp_path / "gemma"
    return tmp_path, {k: str(v) for k, v in out.items()}


def _parse(root, module, argv):
    return load_parser(root / "LTX-2", f"ltx_pipelines.{module}").parse_args(argv)


def _common(f, distilled=False):
    ckpt = (
        ["--distilled-checkpoint-path", f["distilled.safetensors"]]
        if distilled
        else ["--checkpoint-path", f["ckpt.safetensors"]]
    )
    return [
        *ckpt,
        "--gemma-root",
        f["gemma"],
        "--prompt",
        "p",
        "--output-path",
        "o.mp4",
        "--seed",
        "42",
        "--lora",
        f["lora.safetensors"],
        "1.0",
        "--quantization",
        "fp8-cast",
        "--offload",
        "cpu",
    ]


def test_each_entry_point_takes_the_command_line_the_evaluation_builds(files):
    root, f = files
    one = _parse(
        root,
        "ti2vid_one_stage",
        [
            *_common(f),
            "--width",
            "576",
            "--height",
            "576",
            "--num-frames",
            "89",
            "--image",
            f["still.png"],
            "0",
            "1.0",
            "--video-cfg-guidance-scale",
            "3.0",
        ],
    )
    assert one.images == [(f["still.png"], 0, 1.0, None)] and one.offload_mode == "cpu"
    ic = _parse(
        root,
        "ic_lora",
        [
            *_common(f, distilled=True),
            "--spatial-upsampler-path",
            f["up.safetensors"],
            "--video-conditioning",
            f["ref.mp4"],
            "1.0",
            "--frame-rate",
            "25",
        ],
    )
    assert ic.video_conditioning == [(f["ref.mp4"], 1.0)]
    a2v = _parse(
        root,
        "a2vid_two_stage",
        [
            *_common(f),
            "--distilled-lora",
            f["dlora.safetensors"],
            "--spatial-upsampler-path",
            f["up.safetensors"],
            "--audio-path",
            f["sound.wav"],
        ],
    )
    assert a2v.audio_path == f["sound.wav"] and a2v.distilled_lora == [(f["dlora.safetensors"], 1.0)]
    t2a = _parse(
        root,
        "t2a_one_stage",
        [*_common(f), "--num-frames", "89", "--frame-rate", "25", "--audio-cfg-guidance-scale", "7.0"],
    )
    assert t2a.num_frames == 89 and t2a.lora == [(f["lora.safetensors"], 1.0)]


def _required(module, f):
    """What the module needs beyond the common flags."""
    return {
        "ic_lora": [
            "--spatial-upsampler-path",
            f["up.safetensors"],
            "--video-conditioning",
            f["ref.mp4"],
            "1.0",
        ]
    }.get(module, [])


@pytest.mark.parametrize(
    "module, extra, says",
    [
        ("ti2vid_one_stage", ["--lora-strength", "1"], "unrecognized arguments: --lora-strength"),
        ("ic_lora", ["--num-inference-steps", "30"], "unrecognized arguments: --num-inference-steps"),
        ("ic_lora", ["--negative-prompt", "x"], "unrecognized arguments: --negative-prompt"),
        ("t2a_one_stage", ["--width", "576"], "unrecognized arguments: --width"),
        ("t2a_one_stage", ["--image", "x", "0", "1"], "unrecognized arguments: --image"),
        (
            "ic_lora",
            None,
            "the following arguments are required: --spatial-upsampler-path, --video-conditioning",
        ),
        (
            "a2vid_two_stage",
            None,
            "the following arguments are required: --distilled-lora, --spatial-upsampler-path, --audio-path",
        ),
        ("ti2vid_one_stage", ["--image", "/no/such.png", "0", "1.0"], "Path not found: /no/such.png"),
        ("ti2vid_one_stage", ["--image", "/no/such.png", "0"], "requires 3 or 4 arguments"),
        ("ti2vid_one_stage", ["--quantization", "int8-quanto"], "invalid choice: 'int8-quanto'"),
    ],
)
def test_what_the_real_parsers_refuse_is_refused(files, capsys, module, extra, says):
    root, f = files
    argv = _common(f, distilled=module == "ic_lora")
    argv += [*_required(module, f), *extra] if extra is not None else []
    with pytest.raises(SystemExit) as stop:
        _parse(root, module, argv)
    assert stop.value.code == 2
    assert says in capsys.readouterr().err


def test_monolith_and_split_flags_do_not_mix(files):
    root, f = files
    with pytest.raises(SystemExit, match="cannot be combined"):
        _parse(root, "ti2vid_one_stage", [*_common(f), "--transformer-path", f["ckpt.safetensors"]])
    with pytest.raises(SystemExit, match="Provide either monolith args"):
        _parse(
            root,
            "ti2vid_one_stage",
            ["--checkpoint-path", f["ckpt.safetensors"], "--prompt", "p", "--output-path", "o.mp4"],
        )


REAL = os.environ.get("LTX_WIZARD_REAL_CHECKOUT")


def _real_parsers(checkout: Path) -> dict:
    """The real entry points' parsers, built by the real args.py with ltx_core stubbed out (the
    flags need none of it); each module's own additions read from its main() by AST."""
    import ast
    import importlib.abc
    import importlib.machinery
    import importlib.util
    import sys
    import types
    from unittest import mock

    class Stub(importlib.abc.MetaPathFinder, importlib.abc.Loader):
        def find_spec(self, name, path, target=None):
            if name.split(".")[0] == "ltx_core":
                return importlib.machinery.ModuleSpec(name, self, is_package=True)
            return None

        def create_module(self, spec):
            module = mock.MagicMock(name=spec.name)
            module.__path__, module.__spec__ = [], spec
            return module

        def exec_module(self, module):
            pass

    src = checkout / "packages/ltx-pipelines/src/ltx_pipelines"
    saved = dict(sys.modules)
    stub = Stub()
    sys.meta_path.insert(0, stub)

    def load(name, path):
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module

    try:
        for package in ("ltx_pipelines", "ltx_pipelines.utils", "ltx_pipelines.utils.media_io"):
            sys.modules[package] = types.ModuleType(package)
            sys.modules[package].__path__ = []
        sys.modules["ltx_pipelines.utils.constants"] = mock.MagicMock(DEFAULT_LORA_STRENGTH=1.0)
        load("ltx_pipelines.utils.quantization_factory", src / "utils/quantization_factory.py")
        load("ltx_pipelines.utils.types", src / "utils/types.py")
        load("ltx_pipelines.utils.media_io.color_config", src / "utils/media_io/color_config.py")
        args = load("ltx_pipelines.utils.args", src / "utils/args.py")
        parsers = {
            "ti2vid_one_stage": args.add_generated_keyframes_arg(
                args.default_1_stage_arg_parser(supports_auto_duration=True)
            ),
            "ic_lora": args.default_2_stage_distilled_arg_parser(),
            "a2vid_two_stage": args.default_2_stage_arg_parser(),
            "t2a_one_stage": args.default_1_stage_t2a_arg_parser(),
        }
    finally:
        sys.meta_path.remove(stub)
        for name in set(sys.modules) - set(saved):
            del sys.modules[name]
    flags = {}
    for module, parser in parsers.items():
        found = {s: a.required for a in parser._actions for s in a.option_strings}
        for node in ast.walk(ast.parse((src / f"{module}.py").read_text("utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "add_argument":
                required = [k.value for k in node.keywords if k.arg == "required"]
                found[node.args[0].value] = bool(required and ast.literal_eval(required[0]))
        flags[module] = {s: r for s, r in found.items() if s not in ("-h", "--help")}
    return flags


@pytest.mark.skipif(not REAL, reason="set LTX_WIZARD_REAL_CHECKOUT to a real LTX-2 checkout")
def test_the_look_alike_has_exactly_the_real_flags(tmp_path):
    pytest.importorskip("torch")  # the real color_config.py imports it
    real = _real_parsers(Path(REAL))
    write_pipelines(tmp_path)
    for module in MODULES:
        parser = load_parser(tmp_path, f"ltx_pipelines.{module}")
        mine = {s: a.required for a in parser._actions for s in a.option_strings if s not in ("-h", "--help")}
        assert mine == real[module], module
