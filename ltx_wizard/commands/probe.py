"""`ltx-wizard probe`: the GPUs, the tier they land in, and the gate."""

from __future__ import annotations

import argparse
import textwrap

from ltx_wizard.commands.common import add_gpu_source_args, assessment_from_args, print_json
from ltx_wizard.core.gpu.assessment import Assessment
from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.gpu.tiers import nominal_gb


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "probe",
        help="show the GPUs, the VRAM tier and the base config",
        description="Probe the GPUs training will see (NVML, nvidia-smi as fallback), pick the "
        "smallest VRAM tier and its base config. Exits 0 even when the minimum gate applies.",
    )
    add_gpu_source_args(parser)
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.set_defaults(func=run)


def format_table(assessment: Assessment) -> list[str]:
    rows = [("#", "GPU", "reported MiB", "nominal GB")]
    for gpu in assessment.probe.gpus:
        mib = gpu.memory_total_mib
        rows.append(
            (
                str(gpu.index),
                gpu.name,
                "N/A" if mib is None else str(mib),
                "N/A" if gpu.memory_total_bytes is None else str(nominal_gb(gpu.memory_total_bytes)),
            )
        )
    widths = [max(len(row[col]) for row in rows) for col in range(4)]
    return [
        f"{r[0]:>{widths[0]}}  {r[1]:<{widths[1]}}  {r[2]:>{widths[2]}}  {r[3]:>{widths[3]}}" for r in rows
    ]


def format_text(assessment: Assessment) -> str:
    lines = [f"GPUs ({assessment.probe.source}):", *("  " + row for row in format_table(assessment))]
    policy = assessment.policy
    gb = assessment.per_gpu_vram_gb
    lines.append("")
    lines.append(f"Per-GPU VRAM: {'unknown' if gb is None else f'{gb} GB'}")
    lines.append(f"Tier:         {assessment.tier.display_name}")
    lines.append(f"Base config:  {policy.base_config or '-'}")
    if assessment.notes:
        lines.append("Notes:")
        for note in assessment.notes:
            lines.extend(textwrap.wrap(note, 88, initial_indent="  - ", subsequent_indent="    "))
    if assessment.gate_blocked and assessment.gate_message:
        lines.append("")
        lines.append("MINIMUM GATE:")
        lines.extend(textwrap.wrap(assessment.gate_message, 88, initial_indent="  ", subsequent_indent="  "))
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    try:
        assessment = assessment_from_args(args)
    except WizardError as exc:
        if not args.json:
            raise
        # --json always prints JSON: the same keys, nothing found, and the reason.
        print_json(
            {
                "source": None,
                "gpus": [],
                "per_gpu_vram_gb": None,
                "tier": "unknown",
                "base_config": None,
                "gate": {"blocked": False, "message": None},
                "notes": [],
                "error": exc.message,
            }
        )
        raise  # and the usual one line on stderr, with the same exit code
    if args.json:
        print_json(assessment.probe_json())
    else:
        print(format_text(assessment))
    return 0
