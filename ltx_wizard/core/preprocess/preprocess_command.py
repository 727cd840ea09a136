"""The trainer's preprocessing command, built from the options its script really has.

`script_options` reads scripts/process_dataset.py of the user's checkout without running it (a
typer `main(...)` signature, as the real script has, or argparse `add_argument` calls, as the
look-alike has), so a checkout whose script lacks an option the wizard would pass is refused
before anything runs, and tests pin the arguments against that parser.
"""

from __future__ import annotations

import ast
from pathlib import Path

from ltx_wizard.core.base.records import record
from ltx_wizard.core.io.bounded import read_text
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.base.stand_in import StandIn

SCRIPT_REL = Path("scripts") / "process_dataset.py"  # under packages/ltx-trainer


@record
class ScriptOptions:
    flags: frozenset[str]  # every `--option` the script accepts
    required: frozenset[str]  # options without a default


@record
class PreprocessSpec:
    """What the plan decided; the dataset file and the output folder differ per step."""

    buckets: str
    model_path: Path
    text_encoder_path: Path
    video_vae_path: Path | None = None
    audio_vae_path: Path | None = None
    lora_trigger: str | None = None
    skip_audio: bool = False  # the recipe trains no audio: do not encode it
    load_text_encoder_in_8bit: bool = False  # the skill: on for the low-VRAM tiers


def script_options(script: Path) -> ScriptOptions:
    text = read_text(script, what="preprocessing script", limit=1 * 2**20)
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        raise UsageError(
            f"{script} is not Python the wizard can read ({exc.msg}): update the checkout"
        ) from None
    flags, required = _typer_options(tree)
    more_flags, more_required = _argparse_options(tree)
    flags |= more_flags
    required |= more_required
    if not flags:
        raise UsageError(f"{script} declares no options the wizard can read: update the checkout")
    return ScriptOptions(flags=frozenset(flags), required=frozenset(required))


def _typer_options(tree: ast.AST) -> tuple[set[str], set[str]]:
    # the real script: `def main(name: type = typer.Option(default, help=...), ...)`
    flags: set[str] = set()
    required: set[str] = set()
    for node in ast.walk(tree):
        if not (isinstance(node, ast.FunctionDef) and node.name == "main"):
            continue
        args = node.args.args[len(node.args.args) - len(node.args.defaults) :]
        for arg, default in zip(args, node.args.defaults):
            if not (isinstance(default, ast.Call) and _call_name(default) == "Option"):
                continue
            flag = "--" + arg.arg.replace("_", "-")
            flags.add(flag)
            if _is_bool(arg):
                flags.add("--no-" + flag[2:])  # typer's on/off pair for a bool option
            first = default.args[0] if default.args else None
            if isinstance(first, ast.Constant) and first.value is Ellipsis:
                required.add(flag)
    return flags, required


def _argparse_options(tree: ast.AST) -> tuple[set[str], set[str]]:
    flags: set[str] = set()
    required: set[str] = set()
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and _call_name(node) == "add_argument"):
            continue
        names = [
            a.value
            for a in node.args
            if isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value.startswith("--")
        ]
        flags.update(names)
        if any(k.arg == "action" and "BooleanOptional" in ast.unparse(k.value) for k in node.keywords):
            flags.update("--no-" + n[2:] for n in names)
        if any(
            k.arg == "required" and isinstance(k.value, ast.Constant) and k.value.value is True
            for k in node.keywords
        ):
            required.update(names)
    return flags, required


def _call_name(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _is_bool(arg: ast.arg) -> bool:
    return isinstance(arg.annotation, ast.Name) and arg.annotation.id == "bool"


def preprocess_args(
    spec: PreprocessSpec,
    dataset_file: Path,
    output_dir: Path,
    options: ScriptOptions,
    *,
    overwrite: bool = False,
) -> list[str]:
    """The script's arguments: the dataset file first, then the options the plan decided."""
    pairs: list[tuple[str, str | None]] = [
        ("--resolution-buckets", spec.buckets),
        ("--model-path", str(spec.model_path)),
        ("--text-encoder-path", str(spec.text_encoder_path)),
        ("--output-dir", str(output_dir)),
    ]
    if spec.video_vae_path is not None:
        pairs.append(("--video-vae-path", str(spec.video_vae_path)))
    if spec.audio_vae_path is not None:
        pairs.append(("--audio-vae-path", str(spec.audio_vae_path)))
    if spec.lora_trigger:
        pairs.append(("--lora-trigger", spec.lora_trigger))
    for flag, on in (
        ("--skip-audio", spec.skip_audio),
        ("--load-text-encoder-in-8bit", spec.load_text_encoder_in_8bit),
        ("--overwrite", overwrite),
    ):  # only ever after the user said so
        if on:
            pairs.append((flag, None))
    lacking = [flag for flag, _ in pairs if flag not in options.flags]
    if lacking:
        raise UsageError(
            f"the checkout's {SCRIPT_REL} has no {lacking[0]} option (an older "
            "trainer?): update the checkout (git pull, uv sync)"
        )
    argv = [str(dataset_file)]
    for flag, value in pairs:
        argv += [flag] if value is None else [flag, value]
    given = {flag for flag, _ in pairs}
    missing = sorted(options.required - given)
    if missing:
        raise UsageError(
            f"the checkout's {SCRIPT_REL} requires {missing[0]}, which the wizard "
            "does not know how to fill: update ltx-wizard"
        )
    return argv


def command(
    trainer_dir: Path, args: list[str], *, uv: str | None, stand_in: StandIn | None = None
) -> tuple[list[str], dict[str, str]]:
    """(argv, extra environment) to run: `uv run python scripts/process_dataset.py ...` in the
    trainer's folder, or the stand-in given in its place (the demo's reads the same script)."""
    if stand_in is not None:
        return stand_in.preprocess(trainer_dir / SCRIPT_REL, args)
    if uv is None:
        raise UsageError(
            "uv is not on PATH, so the trainer's preprocessing cannot run: install "
            "uv (curl -LsSf https://astral.sh/uv/install.sh | sh)"
        )
    return [uv, "run", "python", str(SCRIPT_REL), *args], {}
