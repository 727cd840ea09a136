"""plan.md's words on what comparing the kept checkpoints will cost (compare_cost.py's numbers),
under "Cost and time": the held-out loss, the tournament's renders, each as a share of the
training GPU time against issue 44's targets, and what would bring an excess under."""

from __future__ import annotations

from ltx_wizard.core.plan.compare_cost import LOSS_TARGET, TOURNAMENT_TARGET, CompareCost
from ltx_wizard.core.tuning.duration import clock

HEAD = "Comparing the kept checkpoints after training (estimates, from the step time above):"


def pct(share: float | None) -> str:
    return "n/a" if share is None else f"{share * 100:.1f} %"


def compare_cost_lines(cost: CompareCost, steps: int, step_s: float, gpus: int) -> list[str]:
    if not cost.checkpoints:
        return [HEAD, "- nothing to compare: config.yaml keeps no checkpoint"]
    gpu_words = f"{gpus} GPU{'s' if gpus != 1 else ''}"
    return [
        HEAD,
        f"- training GPU time: {steps} steps x {step_s:.2f} s x {gpu_words} = {clock(cost.train_gpu_s)}",
        _loss_line(cost),
        _render_line(cost),
        _whole_line(cost),
        *_over(cost),
    ]


def _loss_line(cost: CompareCost) -> str:
    if not cost.samples:
        return "- held-out loss: not run, no clips were held out (it needs held-out latents)"
    grid = cost.samples * cost.sigmas
    return (
        f"- held-out loss: 2 x {cost.samples} samples x {cost.sigmas} sigmas x {cost.checkpoints} "
        f"checkpoint{'s' if cost.checkpoints != 1 else ''} + {grid} for the base = {cost.passes} forward "
        f"passes x ~{cost.forward_s:.2f} s (no-grad: a quarter of a training step per sample with "
        "gradient checkpointing, a third without, as a backward pass costs about two forwards: an "
        f"estimate) + one model load {clock(cost.load_s)} (the training run's, an upper bound) = "
        f"{clock(cost.loss_s())}, {pct(cost.share(cost.loss_s()))} "
        f"of the training GPU time (target <= {pct(LOSS_TARGET)})"
    )


def _render_line(cost: CompareCost) -> str:
    render = cost.render_s()
    if render is None or cost.video_s is None:
        return "- tournament renders: not estimated (autotune measured no validation video)"
    runs = 1 + cost.checkpoints
    width, height, frames = cost.clip
    run_w, run_h, run_f = cost.run_dims
    whole = f" ~{cost.run_video_s:.0f} s" if cost.run_video_s is not None else ""
    return (
        f"- tournament renders: (base + {cost.checkpoints}) x {cost.prompts} prompts (one per eval "
        f"category) x ~{cost.video_s:.1f} s a short clip ({frames} frames at {width}x{height}, "
        f"{cost.clip_steps} inference steps; the run's validation video, {run_f} frames at "
        f"{run_w}x{run_h},{whole}), one validate-only trainer run per model, + {runs} model loads = "
        f"{clock(render)}, {pct(cost.share(render))} of the training GPU time"
    )


def _whole_line(cost: CompareCost) -> str:
    total = cost.total_s()
    if total is None:
        return "- whole comparison: not estimated"
    return (
        f"- whole comparison: {clock(total)}, {pct(cost.share(total))} of the training GPU time "
        f"(target <= {pct(TOURNAMENT_TARGET)})"
    )


def _over(cost: CompareCost) -> list[str]:
    """Where a target is exceeded: it says so, and what would bring it under."""
    out = []
    loss = cost.share(cost.loss_s())
    if cost.samples and loss is not None and loss > LOSS_TARGET:
        out.append(f"- Over target: the held-out loss is {pct(loss)}; {_loss_fix(cost)}")
    total = cost.share(cost.total_s())
    if total is not None and total > TOURNAMENT_TARGET:
        keep = cost.most_checkpoints(TOURNAMENT_TARGET, whole=True)
        fix = (
            f"keeping {keep} checkpoint{'s' if keep != 1 else ''} would bring it under"
            if keep
            else "even the base and one checkpoint exceed it (their two model loads alone are "
            f"{pct(cost.share(2 * cost.load_s))}): compare with `--no-render` ({_without_renders(cost)})"
        )
        out.append(f"- Over target: the whole comparison is {pct(total)}; {fix}")
    return out


def _without_renders(cost: CompareCost) -> str:
    if not cost.samples:
        return "the health check only"
    return f"held-out loss and health check only: {pct(cost.share(cost.loss_s()))}"


def _loss_fix(cost: CompareCost) -> str:
    keep, samples = cost.most_checkpoints(LOSS_TARGET, whole=False), cost.most_samples()
    ways = []
    if samples:
        ways.append(f"{samples} held-out sample{'s' if samples != 1 else ''} instead of {cost.samples}")
    if keep:
        ways.append(f"keeping {keep} checkpoint{'s' if keep != 1 else ''}")
    if ways:
        return " or ".join(ways) + " would bring it under"
    return (
        f"the model load alone is {pct(cost.share(cost.load_s))}: a run this short cannot compare "
        "its checkpoints within the target"
    )
