"""`ltx-wizard plan`: validate the inputs, write the run folder (plan.md, config.yaml), print its path.

stdout carries only the run folder path (or the JSON), so `cd "$(ltx-wizard plan ...)"` works;
the summary, warnings and the config diff go to stderr.
"""

from __future__ import annotations

import argparse
import sys

from ltx_wizard.commands.common import (
    add_gpu_source_args,
    assessment_from_args,
    print_json,
    require_known_tier,
)
from ltx_wizard.core.plan.config_gen import validate_with_trainer
from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.inputs.recipes import DEFAULT_RECIPE
from ltx_wizard.core.launch.multinode import parse_nodes, require_gpus_per_node
from ltx_wizard.core.plan.run_plan import PlanDraft, prepare_plan, write_plan
from ltx_wizard.core.launch.slurm import MAX_SLURM_CPUS
from ltx_wizard.core.base.text_safety import clean_block, clean_text


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"wants a whole number, got {text!r}") from None
    if not 1 <= value <= 65536:
        raise argparse.ArgumentTypeError(f"must be from 1 to 65536, got {text[:20]}")
    return value


def _slurm_cpus(text: str) -> int:
    # The same bound as core/launch/slurm.py slurm_options, said the same way in help and error.
    value = _positive_int(text)
    if value > MAX_SLURM_CPUS:
        raise argparse.ArgumentTypeError(f"must be 1..{MAX_SLURM_CPUS}, got {value}")
    return value


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "plan",
        help="write a run folder: plan.md and config.yaml (the shipped file, paths patched)",
        description="Check the checkpoint, text encoder, data and checkout, pick the tier's "
        "shipped config, patch only its paths, and write <workspace>/<run>/{plan.md,config.yaml}. "
        "Nothing trains: review plan.md first. Exit 3 when the 32 GB minimum gate applies "
        "(--accept-risk to go on with the low-VRAM config).",
    )
    # SUPPRESS: `ltx-wizard --trainer-root D plan ...` must keep the top-level value.
    p.add_argument(
        "--trainer-root",
        metavar="DIR",
        default=argparse.SUPPRESS,
        help="your LTX-2 checkout (else $LTX_TRAINER_ROOT, the current directory...)",
    )
    p.add_argument("--checkpoint", metavar="FILE", required=True, help="LTX-2 .safetensors")
    p.add_argument(
        "--text-encoder",
        metavar="PATH",
        required=True,
        help="Gemma model directory (or the packed .safetensors of a split pack)",
    )
    p.add_argument(
        "--data-root",
        metavar="DIR",
        help="preprocessed data (the folder holding latents/, conditions/ and, for the "
        "shipped audio configs, audio_latents/), or a dataset file as --dataset",
    )
    add_dataset_args(p)
    p.add_argument("--video-vae", metavar="FILE", help="video VAE of a split pack")
    p.add_argument("--audio-vae", metavar="FILE", help="audio VAE of a split pack")
    p.add_argument(
        "--workspace",
        metavar="DIR",
        default=argparse.SUPPRESS,
        help="where run folders go (else $LTX_TRAININGS_DIR, /data/ltx-trainings, "
        "/workspace/ltx-trainings, ./projects)",
    )
    p.add_argument(
        "--recipe",
        metavar="NAME",
        default=DEFAULT_RECIPE,
        help="the shipped config to train (configs/NAME.yaml of your checkout: t2v_lora, "
        "i2v_lora, v2v_ic_lora, t2a_lora, ...); on the 32GB and 40–60GB tiers a recipe "
        "without a low-VRAM twin gets t2v's low-VRAM keys (default: t2v_lora)",
    )
    p.add_argument(
        "--run-name", metavar="NAME", help="run folder name (default <mode>-<data>-<time>, e.g. i2v-cats-...)"
    )
    p.add_argument("--training-mode", choices=("lora", "full"), default="lora")
    p.add_argument(
        "--effective-batch",
        type=_positive_int,
        metavar="N",
        help="batch x accumulation x GPUs to keep (default: the shipped file's)",
    )
    p.add_argument(
        "--accept-risk",
        action="store_true",
        help="go on below the 32 GB minimum with the low-VRAM config, at your own risk",
    )
    p.add_argument(
        "--video-only",
        action="store_true",
        help="train video only on data without audio_latents/: writes "
        "training_strategy.audio: null into config.yaml (named in plan.md)",
    )
    add_validation_args(p)
    p.add_argument(
        "--full-training-state",
        action="store_true",
        help="checkpoints keep the optimizer too (save_training_state: full, about "
        "800 MB more per LoRA checkpoint), so a resume continues exactly",
    )
    p.add_argument("--force", action="store_true", help="overwrite an existing plan.md/config.yaml")
    p.add_argument(
        "--force-full",
        action="store_true",
        help="allow full fine-tune outside 2+ GPUs of the 80GB+ tier (at your own risk)",
    )
    p.add_argument(
        "--validate-with-trainer",
        action="store_true",
        help="before writing, check config.yaml with the trainer's own schema "
        "(`uv run python` in your checkout; needs `uv sync` done)",
    )
    add_nodes_arg(p, default=argparse.SUPPRESS)
    p.add_argument(
        "--slurm-time",
        metavar="TIME",
        help="with --nodes: the job's time limit in slurm.sbatch (default 24:00:00)",
    )
    p.add_argument("--slurm-partition", metavar="NAME", help="with --nodes: the Slurm partition")
    p.add_argument(
        "--slurm-cpus",
        type=_slurm_cpus,
        metavar="N",
        help=f"with --nodes: CPUs per node to ask for, 1..{MAX_SLURM_CPUS} (default 8 per GPU)",
    )
    p.add_argument(
        "--wandb",
        choices=("on", "off"),
        default=None,
        help="when the shipped config enables W&B and the login cannot be checked in "
        "the trainer's environment: keep it on, or turn it off (otherwise the login "
        "decides)",
    )
    add_gpu_source_args(p)
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=run)


def add_dataset_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--dataset",
        metavar="FILE",
        help="your clips' dataset file (.json, .jsonl or .csv: caption and video "
        "columns), checked now; after approval `ltx-wizard preprocess` encodes one "
        "sample, autotune runs on it, then the full preprocess writes the data root",
    )
    p.add_argument(
        "--resolution-buckets",
        metavar="WxHxF",
        help="with --dataset: the preprocessing bucket(s), e.g. 960x544x49 (default; "
        "sides multiples of 32, frames 8k+1; several joined with ;)",
    )
    p.add_argument(
        "--lora-trigger", metavar="WORD", help="with --dataset: a trigger word prepended to every caption"
    )
    p.add_argument(
        "--precomputed-dir",
        metavar="DIR",
        help="with --dataset: where the full preprocess writes (default: .precomputed "
        "beside the dataset file, as the trainer's script does)",
    )


def data_input(args: argparse.Namespace) -> str:
    """--data-root or --dataset: exactly one (a dataset file given as --data-root works too)."""
    from ltx_wizard.core.base.errors import UsageError

    if args.dataset and args.data_root:
        raise UsageError("give --data-root (preprocessed data) or --dataset (a dataset file), not both")
    if not (args.dataset or args.data_root):
        raise UsageError(
            "pass --data-root DIR (preprocessed data) or --dataset FILE (your clips' dataset.json)"
        )
    given = args.dataset or args.data_root
    from ltx_wizard.core.dataset.rows import is_dataset_file

    if not is_dataset_file(given) and (args.resolution_buckets or args.lora_trigger or args.precomputed_dir):
        raise UsageError(
            "--resolution-buckets, --lora-trigger and --precomputed-dir apply to a "
            "dataset file only (--dataset FILE)"
        )
    return given


def add_nodes_arg(parser: argparse.ArgumentParser, default: object = None) -> None:
    # Checked by parse_nodes, not argparse, so a bad value reads `ltx-wizard: --nodes ...`.
    parser.add_argument(
        "--nodes",
        metavar="N",
        default=default,
        help="train on N machines like this one (accelerate multi-node; writes "
        "slurm.sbatch); GPUs per node come from the probe or --from-csv",
    )


def add_validation_args(p: argparse.ArgumentParser) -> None:
    """What the recipe's validation samples read (core/validation/validation_choice.py)."""
    # kept as typed (type=str): a Path would turn https://x into https:/x before it is refused
    p.add_argument(
        "--validation-media",
        metavar="PATH",
        action="append",
        default=[],
        help="a file for the recipe's validation samples (image, video, audio, "
        "reference, mask: as its shipped samples need), in order; repeat per file",
    )
    p.add_argument(
        "--validation-prompt",
        metavar="TEXT",
        action="append",
        default=[],
        help="a validation prompt, replacing the shipped ones; repeat per sample",
    )
    off = p.add_mutually_exclusive_group()
    off.add_argument(
        "--no-validation-media",
        dest="validation",
        action="store_const",
        const="prompts-only",
        help="validate from the prompts only, reading no media",
    )
    off.add_argument(
        "--no-validation",
        dest="validation",
        action="store_const",
        const="off",
        help="no validation at all (validation.samples: [], interval: null)",
    )


def request_from_args(args: argparse.Namespace, **fixed: object):
    """The CLI's side of the one adapter (core/plan/plan_request.py build_request): the options of
    `plan` (and those `check` shares) as a PlanRequest."""
    from ltx_wizard.core.plan.plan_request import PlanRequest, build_request

    names = set(PlanRequest.__dataclass_fields__)
    raw = {name: getattr(args, name) for name in names if hasattr(args, name)}
    raw["data_root"] = data_input(args)
    raw["validation_prompts"] = tuple(getattr(args, "validation_prompt", None) or ())
    return build_request({**raw, **fixed})


def run(args: argparse.Namespace) -> int:
    nodes_given = getattr(args, "nodes", None)  # also `ltx-wizard --nodes N plan ...`
    nodes = parse_nodes(1 if nodes_given is None else nodes_given)
    assessment = assessment_from_args(args)
    if nodes > 1:
        require_gpus_per_node(assessment.num_gpus)
    require_known_tier(assessment)
    request = request_from_args(args, nodes=nodes)
    from ltx_wizard.demo.sim.stand_in import plan_simulation

    # the one launch.sh rule, shared with the TUI's Summary: simulated GPUs run the stand-in
    draft = prepare_plan(request, assessment, **plan_simulation(args.stand_ins))
    from ltx_wizard.core.launch.script import copy_line, log_path, script_path

    if args.validate_with_trainer:
        _schema_check(draft)
    notes: list[str] = []
    folder = write_plan(draft, force=args.force, on_note=notes.append)
    warnings = list(draft.warnings) + notes
    multi = draft.multinode
    if args.json:
        print_json(
            {
                "run_dir": str(folder.root),
                "config": str(folder.config),
                "plan": str(folder.plan),
                "tier": draft.tier.value,
                "base_config": draft.base_config,
                "recipe": draft.recipe,
                "applied": list(draft.applied),
                "launch_command": draft.launch.argv_with_env(),
                "launch_cwd": str(draft.launch.cwd),
                "launch_script": str(script_path(folder.root)),
                "warnings": warnings,
                # planned from a dataset file: the preprocessing steps still to run, in order
                **(
                    {"preprocess_steps": _steps(folder.root, args)[:-1]}
                    if draft.preprocess_text is not None
                    else {}
                ),
                **(
                    {
                        "nodes": multi.nodes,
                        "gpus_per_node": multi.gpus_per_node,
                        "total_gpus": multi.total_gpus,
                        "slurm_script": str(multi.sbatch_path),
                        "node_command": multi.shell_line(),
                    }
                    if multi is not None
                    else {}
                ),
            }
        )
        return 0
    print(folder.root)
    err = sys.stderr
    from ltx_wizard.core.plan.plan_words import data_words

    print(
        f"Tier: {draft.tier.display_name}; recipe {draft.recipe}; base config "
        f"{draft.base_config}; data: {data_words(draft.record.data)}",
        file=err,
    )
    for line in draft.applied:
        print(f"applied: {line}", file=err)
    for warning in warnings:
        print(f"warning: {clean_text(warning)}", file=err)
    print("Config changes vs the shipped file:", file=err)
    print(clean_block(draft.diff.rstrip("\n")) or "(none)", file=err)
    if multi is not None:
        print(
            f"{multi.nodes} nodes x {multi.gpus_per_node} GPUs = {multi.total_gpus} GPUs; "
            f"wrote {multi.sbatch_path} (untested on a real cluster)",
            file=err,
        )
        print(
            f"Review {folder.plan}; after approval, submit with:\n  {multi.submit_line()}\n"
            f"(or {copy_line(folder.root)}, which runs that sbatch and logs to "
            f"{log_path(folder.root)})",
            file=err,
        )
        return 0
    from ltx_wizard.core.plan.next_steps import come_back, remaining_steps

    steps = remaining_steps(folder.root, getattr(args, "simulate", None))
    print(f"Review {folder.plan}; after approval, in the trainer team's order:", file=err)
    for step in steps:
        print(f"  {step}", file=err)
    print(f"The last one runs (and logs to {log_path(folder.root)}):\n  {draft.shell_line()}", file=err)
    print(
        "Come back to the run with: " + " or ".join(come_back(folder.root, getattr(args, "simulate", None))),
        file=err,
    )
    return 0


def _steps(run_dir, args: argparse.Namespace) -> list[str]:
    from ltx_wizard.core.plan.next_steps import remaining_steps

    return remaining_steps(run_dir, getattr(args, "simulate", None))


def _schema_check(draft: PlanDraft) -> None:
    """The trainer's verdict, its text shown verbatim; a rejection writes nothing."""
    if draft.uv_path is None:
        raise WizardError(
            "uv is not on PATH, so the trainer's schema cannot run: install uv, "
            "or drop --validate-with-trainer"
        )
    check = validate_with_trainer(draft.trainer_dir, draft.config_text, uv=draft.uv_path)
    if not check.ok:
        print(clean_block(check.output), file=sys.stderr)
        raise WizardError(
            "the trainer's schema rejected config.yaml (its text is above); nothing was written"
        )
    print("trainer schema check: ok", file=sys.stderr)
