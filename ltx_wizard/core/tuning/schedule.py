"""The autotune rules: which trial comes next, and what a trial's outcome means (pure, no I/O).
What each stage changes and when the rules alone skip it live in stage_rules.py.

Order (each trial = the current best + one change): baseline; quantization -> null; optimizer
adamw8bit -> adamw; batch 1 -> 2 -> 4 (gradient accumulation lowered to keep the effective batch;
a batch that cannot keep it is not run unless allowed: batch_rule.py); gradient checkpointing off
on the 80GB+ tier only. Quantization is only ever turned off, never stepped down (int4 is ~10x
slower than int2 on a 4090, Lightricks/LTX-2 #173, and costs quality). A change identical to the current best is a
no-op and is skipped, never run; so is a trial the headroom model says cannot fit, or a batch the
trial data cannot fill. At most `max_trials` trials run.

Reverts and stops follow the skill's order: quantization-off OOM -> back to the baseline and
stop (a quantization-off trial the headroom model says cannot fit is skipped, not run: nothing
ran out of memory, so the optimizer lever is tried next, as the skill's "if headroom allows" says);
optimizer OOM -> back to adamw8bit and go on to the batch trials; batch or checkpointing OOM ->
revert and stop. Any other failure (NaN, crash, timeout) reverts and stops. A failed trial's
change is never carried forward.

Keep rules by purpose (the seed: autotune *relaxes* quantization, optimizer_type and batch_size
"based on actual headroom"):
- quality levers (int8 off, adamw: what the trainer's standard config already chooses) are kept
  when the trial succeeds with a memory margin, peak <= MARGIN of the card, and is not slower per
  sample beyond NOISE. A LoRA's AdamW states are < 1 % of the work, so "faster" would never keep
  it. A quality lever that is not kept is reverted and the next lever is tried.
- speed levers (batch up, checkpointing off) are kept only when faster per sample by more than
  NOISE; one that is not stops autotune (batch 4 is not tried when batch 2 did not win).
A trial that cannot be kept under these rules is not run: a quality lever whose least possible
peak (headroom floor) is already above the margin is skipped.

MARGIN = 95 %: a run that peaks within 5 % of the card after 40 steps can still die later, as
fragmentation grows (an A100 80GB ran out of memory after 2,000 steps, Lightricks/LTX-2 #180);
4 GB on an 80 GB card is the slack such reports suggest, and the confirmation run still has to
prove validation fits on top.

"Faster" means fewer seconds per training sample (steady-state step time / (batch x accumulation))
by more than NOISE = 3 %: two steady-state step-time readings of the same config on one GPU differ
by about 1-2 %, so a smaller gain is indistinguishable from noise and not worth a config change.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ltx_wizard.core.tuning.batch_rule import batch_move
from ltx_wizard.core.tuning.headroom import ModelSize, TrainSettings, predict
from ltx_wizard.core.tuning.stage_rules import describe, rule_skip
from ltx_wizard.core.gpu.tiers import Tier
from ltx_wizard.core.base.units import gib

if TYPE_CHECKING:  # pydantic: the probe screen's levers sentence (rules_text) runs before it loads
    from ltx_wizard.core.tuning.results import TrialResult

NOISE = 0.03
MARGIN = 0.95
MAX_TRIALS = 5
STAGES = ("baseline", "quantization", "optimizer", "batch2", "batch4", "checkpointing")
QUALITY = ("quantization", "optimizer")


@dataclass(frozen=True)
class Candidate:
    index: int
    stage: str
    change: str
    changes: dict[str, object]
    settings: TrainSettings  # the settings this trial runs with
    config_changes: dict[str, object] = field(default_factory=dict)  # all changes vs the plan


@dataclass
class Context:
    tier: Tier
    gpu_total_gb: float | None
    transformer_params: float | None
    subset_samples: int
    num_gpus: int = 1
    max_trials: int = MAX_TRIALS
    noise: float = NOISE
    margin: float = MARGIN
    model: ModelSize | None = None  # from the header (headroom.model_size); else estimated
    allow_batch_change: bool = False  # run a batch trial that changes the effective batch


@dataclass
class Tuner:
    base: TrainSettings
    ctx: Context
    settings: TrainSettings = field(init=False)
    results: list[TrialResult] = field(default_factory=list)
    best: TrialResult | None = None
    winner_changes: dict[str, object] = field(default_factory=dict)
    kept: list[tuple[TrialResult, dict[str, object]]] = field(default_factory=list)  # in order
    stop_reason: str = ""
    _stage: int = 0
    _pending: Candidate | None = None

    def __post_init__(self) -> None:
        self.settings = self.base

    # -- what comes next ------------------------------------------------------------------------
    @property
    def trials_run(self) -> int:
        return sum(1 for r in self.results if r.ran)

    @property
    def done(self) -> bool:
        return bool(self.stop_reason)

    def next(self) -> Candidate | None:
        """The next trial to run, recording skipped ones on the way; None when autotune is over."""
        while not self.stop_reason:
            if self._stage >= len(STAGES):
                self.stop_reason = self._levers_done()
                break
            if self.trials_run >= self.ctx.max_trials:
                self.stop_reason = f"reached the {self.ctx.max_trials}-trial limit"
                break
            stage = STAGES[self._stage]
            self._stage += 1
            built = self._build(stage)
            if isinstance(built, str):
                self._record_skip(stage, built)
                continue
            self._pending = built
            return built
        return None

    def _levers_done(self) -> str:
        """Why the sweep ended with no stage left: every lever run, or some skipped (said)."""
        skipped = sum(1 for r in self.results if r.outcome == "skipped")
        if not skipped:
            return "every lever tried"
        ran = len(self.results) - skipped
        return (
            f"no lever left: {ran} trial{'s' if ran != 1 else ''} run, {skipped} skipped "
            "(each skip's reason is in its row)"
        )

    # -- looking ahead (pure: on copies) ----------------------------------------------------------
    def is_last(self, cand: Candidate) -> bool:
        """No trial can follow `cand`, whatever its outcome."""
        for outcome in ("kept", "oom", "slower"):
            probe = copy.deepcopy(self)
            probe.record(_assumed(probe, cand, outcome))
            if probe.next() is not None:
                return False
        return True

    def likely_path(self, limit: int) -> list[Candidate]:
        """The next trials if every one is kept, starting with the pending one (speculation)."""
        probe = copy.deepcopy(self)
        path: list[Candidate] = []
        cand = probe._pending
        while len(path) < limit:
            cand = cand or probe.next()
            if cand is None:
                break
            path.append(cand)
            probe.record(_assumed(probe, cand, "kept"))
            cand = None
        return path

    def fallback(self) -> tuple[TrialResult, dict[str, object]] | None:
        """The best config before the last kept change (drops that change from the chain)."""
        if len(self.kept) < 2:
            return None
        self.kept.pop()
        result, changes = self.kept[-1]
        self.best, self.winner_changes = result, dict(changes)
        self.settings = self.base.with_changes(changes)
        return result, dict(changes)

    def _index(self) -> int:
        return len(self.results) + 1

    def _record_skip(self, stage: str, why: str) -> None:
        from ltx_wizard.core.tuning.results import TrialResult

        change, changes = describe(stage, self.settings, self.ctx)
        self.results.append(
            TrialResult(
                index=self._index(),
                change=change,
                changes=changes,
                outcome="skipped",
                reason=why,
                decision=f"not run: {why}",
            )
        )

    def _build(self, stage: str) -> Candidate | str:
        s = self.settings
        change, changes = describe(stage, s, self.ctx)
        if stage != "baseline":
            ruled_out = rule_skip(stage, s, self.ctx, self.results)
            short = self._short_data(stage)
            # a batch the trial data cannot fill is not run even when allowed: say that, not
            # that --allow-batch-change would run it
            if short and (not ruled_out or ruled_out == self._schedule_refusal(stage)):
                return short
            if ruled_out:
                return ruled_out
            proposed = s.with_changes(changes)
            fit = predict(
                s,
                proposed,
                self.best.peak_vram_gb if self.best else None,
                self.ctx.gpu_total_gb,
                self.ctx.transformer_params,
                model=self.ctx.model,
                num_gpus=self.ctx.num_gpus,
            )
            if not fit.fits:
                # skipped, not run: no OOM happened, so the skill's order goes on to the next lever
                # (its trial-2 rule stops on an OOM; quantization -> null runs "if headroom allows")
                return f"not enough headroom: {fit.reason}"
            limit = (self.ctx.gpu_total_gb or 0) * self.ctx.margin
            if stage in QUALITY and self.ctx.gpu_total_gb and fit.floor_gb and fit.floor_gb > limit:
                return (
                    f"cannot be kept: needs at least {gib(fit.floor_gb)}, above the "
                    f"{self.ctx.margin:.0%} margin ({gib(limit)})"
                )
        return Candidate(
            self._index(), stage, change, changes, s.with_changes(changes), {**self.winner_changes, **changes}
        )

    def _short_data(self, stage: str) -> str:
        """Why the trial data cannot fill a batch stage's batch ('' when it can, or not a batch)."""
        if not stage.startswith("batch"):
            return ""
        size = int(stage[-1])
        need = size * self.ctx.num_gpus
        if self.ctx.subset_samples >= need:
            return ""
        return (
            f"the trial data holds {self.ctx.subset_samples} sample(s); batch "
            f"{size} on {self.ctx.num_gpus} GPU(s) needs {need}"
        )

    def _schedule_refusal(self, stage: str) -> str:
        return batch_move(self.settings, int(stage[-1]), self.ctx.allow_batch_change).refusal

    # -- what an outcome means ------------------------------------------------------------------
    def record(self, result: TrialResult) -> TrialResult:
        """Apply the rules to the pending candidate's result; returns the result as recorded."""
        cand = self._pending
        if cand is None or cand.index != result.index:
            raise ValueError("record() must follow next() for the same trial")
        self._pending = None
        if result.step_time_s is not None and result.sec_per_sample is None:
            per_step = cand.settings.batch_size * cand.settings.gradient_accumulation_steps
            result = result.model_copy(update={"sec_per_sample": result.step_time_s / per_step})
        if result.outcome == "cancelled":
            self.stop_reason = "cancelled"
            return self._append(result, "cancelled: not recorded, runs again on resume")
        if cand.stage == "baseline":
            if result.outcome == "ok":
                return self._keep(cand, result, "kept: runs as planned")
            self.stop_reason = (
                f"the baseline ended with {result.outcome}: the tier's config does not "
                "run here as planned; config.yaml is left unchanged"
            )
            return self._append(result, f"the planned config fails ({result.outcome}); nothing to tune")
        if result.outcome == "ok" and cand.stage in QUALITY:
            why = self._quality_miss(result)
            if not why:
                return self._keep(
                    cand, result, f"kept: fits ≤{self.ctx.margin:.0%}, not slower beyond {self.ctx.noise:.0%}"
                )
            return self._append(result.model_copy(update={"reason": f"not kept: {why}"}), f"not kept: {why}")
        if result.outcome == "ok":
            gain = self._gain(result)
            if self._faster(result):
                return self._keep(cand, result, f"kept: {gain:.0%} faster per sample")
            assert self.best is not None  # a later trial runs only after a good baseline
            self.stop_reason = (
                f"trial {result.index} ({cand.change}) was not faster than trial "
                f"{self.best.index} by more than {self.ctx.noise:.0%}; reverted"
            )
            shown = (
                "no step time"
                if gain is None
                else (f"{gain:.0%} faster" if gain >= 0 else f"{-gain:.0%} slower")
            )
            return self._append(result, f"not kept: {shown} per sample, needs > {self.ctx.noise:.0%}")
        if result.outcome == "oom" and cand.stage == "optimizer":
            # revert to adamw8bit and go on to the batch trials
            return self._append(result, "reverted: out of memory; the batch trials go on")
        if result.outcome == "oom":
            self.stop_reason = f"trial {result.index} ({cand.change}) ran out of memory; reverted"
        else:
            self.stop_reason = f"trial {result.index} ({cand.change}) ended with {result.outcome}; reverted"
        return self._append(
            result, f"reverted: {'out of memory' if result.outcome == 'oom' else result.outcome}"
        )

    def _quality_miss(self, result: TrialResult) -> str:
        """Why a quality lever that ran fine is not kept ('' when it is)."""
        total = self.ctx.gpu_total_gb
        if total and result.peak_vram_gb is not None and result.peak_vram_gb > total * self.ctx.margin:
            return (
                f"peak {gib(result.peak_vram_gb)} leaves less than {1 - self.ctx.margin:.0%} of {gib(total)}"
            )
        best = self.best.sec_per_sample if self.best else None
        if best and result.sec_per_sample and result.sec_per_sample > best * (1 + self.ctx.noise):
            return (
                f"{result.sec_per_sample:.2f} s/sample is slower than {best:.2f} by more "
                f"than {self.ctx.noise:.0%}"
            )
        return ""

    def _gain(self, result: TrialResult) -> float | None:
        """How much less time per sample than the best so far (0.12 = 12 % faster)."""
        if self.best is None or not self.best.sec_per_sample or result.sec_per_sample is None:
            return None
        return (self.best.sec_per_sample - result.sec_per_sample) / self.best.sec_per_sample

    def _faster(self, result: TrialResult) -> bool:
        if self.best is None or not self.best.sec_per_sample or result.sec_per_sample is None:
            return False  # nothing to compare against (no step lines, or a zero-time simulation)
        return (self.best.sec_per_sample - result.sec_per_sample) / self.best.sec_per_sample > self.ctx.noise

    def _keep(self, cand: Candidate, result: TrialResult, decision: str) -> TrialResult:
        result = result.model_copy(update={"kept": True, "decision": decision})
        self.settings = cand.settings
        self.winner_changes.update(cand.changes)
        self.kept.append((result, dict(self.winner_changes)))
        self.best = result
        return self._append(result)

    def _append(self, result: TrialResult, decision: str = "") -> TrialResult:
        if decision:
            result = result.model_copy(update={"decision": decision})
        self.results.append(result)
        return result

    @property
    def winner(self) -> int | None:
        return self.best.index if self.best else None


def _assumed(tuner: Tuner, cand: Candidate, how: str) -> TrialResult:
    """A made-up outcome of `cand`, for looking ahead: kept, an OOM, or a success that is slower."""
    from ltx_wizard.core.tuning.results import TrialResult

    if how == "oom":
        return TrialResult(index=cand.index, change=cand.change, changes=cand.changes, outcome="oom")
    best = tuner.best.sec_per_sample if tuner.best and tuner.best.sec_per_sample else 1.0
    per_sample = best * (0.5 if how == "kept" else 2.0)
    peak = tuner.best.peak_vram_gb if tuner.best else None
    samples = cand.settings.batch_size * cand.settings.gradient_accumulation_steps
    return TrialResult(
        index=cand.index,
        change=cand.change,
        changes=cand.changes,
        outcome="ok",
        step_time_s=per_sample * samples,
        sec_per_sample=per_sample,
        peak_vram_gb=peak,
    )
