"""plan.md's words on what comparing the kept checkpoints will cost (compare_cost.py's numbers),
under "Cost and time": the held-out loss, the tournament's renders, each as a share of the
training GPU time against issue 44's targets, and what would bring an excess under."""

from __future__ import annotations

from ltx_wizard.core.plan.compare_cost import LOSS_SAMPLE, LOSS_TARGET, TOURNAMENT_TARGET, CompareCost
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
    n, s = cost.checkpoints, cost.samples
    fits = bool(cost.most_samples())
    if s == cost.most:  # the ceiling: every held-out clip, or LOSS_SAMPLE of more
        ceiling = "the most the loss takes" if s == LOSS_SAMPLE else "all the held-out clips give"
        sized = f"{s} held-out sample{'s' if s != 1 else ''} ({ceiling}" + (
            ", within the target)" if fits else ")"
        )
    else:
        sized = f"{s} of the {cost.most} held-out samples the clips give (" + (
            "the most within the target)" if fits else "the fewest, still over the target)"
        )
    return (
        f"- held-out loss: {sized}: 2 x {s} x {cost.sigmas} sigmas x (the base + {n} "
        f"checkpoint{'s' if n != 1 else ''}) = {cost.passes} forward passes x ~{cost.forward_s:.2f} s "
        "(no-grad: a quarter of a training step per sample with gradient checkpointing, a third "
        f"without, as a backward pass costs about two forwards: an estimate) = {clock(cost.loss_s())}, "
        f"{pct(cost.share(cost.loss_s()))} of the training GPU time (target <= {pct(LOSS_TARGET)}); no "
        "model load of its own: it runs first in the tournament's process, on the renders' one model "
        f"load (charged to them below); `compare --no-render` runs it alone, which adds one transformer "
        f"load {clock(cost.load_s)} (the training run's, an upper bound): "
        f"{pct(cost.share(cost.loss_alone_s()))}"
    )


def _render_line(cost: CompareCost) -> str:
    render = cost.render_s()
    if render is None or cost.video_s is None:
        return "- tournament renders: not estimated (autotune measured no validation video)"
    width, height, frames = cost.clip
    run_w, run_h, run_f = cost.run_dims
    whole = f" ~{cost.run_video_s:.0f} s" if cost.run_video_s is not None else ""
    return (
        f"- tournament renders: (base + {cost.checkpoints}) x {cost.prompts} prompts (one per eval "
        f"category) x ~{cost.video_s:.1f} s a short clip ({frames} frames at {width}x{height}, "
        f"{cost.clip_steps} inference steps; the run's validation video, {run_f} frames at "
        f"{run_w}x{run_h},{whole}), all in one process (each checkpoint's LoRA swapped in place), "
        f"+ one model load {clock(cost.load_s)} = "
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
        out.append(
            f"- Over target: the held-out loss is {pct(loss)} even with 1 held-out sample; {_loss_fix(cost)}"
        )
    total = cost.share(cost.total_s())
    if total is not None and total > TOURNAMENT_TARGET:
        keep = cost.most_checkpoints(TOURNAMENT_TARGET, whole=True)
        fix = (
            f"keeping {keep} checkpoint{'s' if keep != 1 else ''} would bring it under"
            if keep
            else "even the base and one checkpoint exceed it (the renders' one model load alone is "
            f"{pct(cost.share(cost.load_s))}): compare with `--no-render` ({_without_renders(cost)})"
        )
        out.append(f"- Over target: the whole comparison is {pct(total)}; {fix}")
    return out


def _without_renders(cost: CompareCost) -> str:
    if not cost.samples:
        return "the health check only"
    return f"held-out loss and health check only: {pct(cost.share(cost.loss_alone_s()))}"


def _loss_fix(cost: CompareCost) -> str:
    keep = cost.most_checkpoints(LOSS_TARGET, whole=False)
    if keep:
        return f"keeping {keep} checkpoint{'s' if keep != 1 else ''} (or a longer run) would bring it under"
    return (
        "even the base and one checkpoint exceed it: only a longer run (more training steps, so a "
        "larger training GPU time) would bring it under"
    )
