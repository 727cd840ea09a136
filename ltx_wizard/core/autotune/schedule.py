"""The autotune rules: which trial comes next, and what a trial's outcome means (pure, no I/O).

Order (each trial = the current best + one change): baseline; quantization -> null; optimizer
adamw8bit -> adamw; batch 1 -> 2 -> 4 (gradient accumulation lowered to keep the effective batch);
gradient checkpointing off on the 80GB+ tier only. A change identical to the current best is a
no-op and is skipped, never run; so is a trial the headroom model says cannot fit, or a batch the
trial data cannot fill. At most `max_trials` trials run.

Reverts and stops follow the trainer team's troubleshooting: quantization-off OOM -> back to the
baseline and stop; optimizer OOM -> back to adamw8bit and go on to the batch trials; batch or
checkpointing OOM -> revert and stop. Any other failure (NaN, crash, timeout) reverts and stops, as
does a success that is not faster. A failed trial's change is never carried forward.

"Faster" means fewer seconds per training sample (steady-state step time / (batch x accumulation))
by more than NOISE = 3 %: two steady-state step-time readings of the same config on one GPU differ
by about 1-2 %, so a smaller gain is indistinguishable from noise and not worth a config change.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ltx_wizard.core.autotune.events import TrialResult
from ltx_wizard.core.autotune.headroom import ModelSize, TrainSettings, predict
from ltx_wizard.core.tiers import Tier

NOISE = 0.03
MAX_TRIALS = 5
STAGES = ("baseline", "quantization", "optimizer", "batch2", "batch4", "checkpointing")


@dataclass(frozen=True)
class Candidate:
    index: int
    stage: str
    change: str
    changes: dict[str, object]
    settings: TrainSettings  # the settings this trial runs with


@dataclass
class Context:
    tier: Tier
    gpu_total_gb: float | None
    transformer_params: float | None
    subset_samples: int
    num_gpus: int = 1
    max_trials: int = MAX_TRIALS
    noise: float = NOISE
    model: ModelSize | None = None  # from the header (headroom.model_size); else estimated


@dataclass
class Tuner:
    base: TrainSettings
    ctx: Context
    settings: TrainSettings = field(init=False)
    results: list[TrialResult] = field(default_factory=list)
    best: TrialResult | None = None
    winner_changes: dict[str, object] = field(default_factory=dict)
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
                self.stop_reason = "every lever tried"
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

    def _index(self) -> int:
        return len(self.results) + 1

    def _record_skip(self, stage: str, why: str) -> None:
        change, changes = _describe(stage, self.settings)
        self.results.append(
            TrialResult(index=self._index(), change=change, changes=changes, outcome="skipped",
                        reason=why)
        )

    def _build(self, stage: str) -> Candidate | str:
        s = self.settings
        change, changes = _describe(stage, s)
        if stage != "baseline":
            noop = _noop_reason(stage, s, self.ctx, self.results)
            if noop:
                return noop
            if stage.startswith("batch"):
                size = int(stage[-1])
                need = size * self.ctx.num_gpus
                if self.ctx.subset_samples < need:
                    return (f"the trial data holds {self.ctx.subset_samples} sample(s); batch "
                            f"{size} on {self.ctx.num_gpus} GPU(s) needs {need}")
            proposed = s.with_changes(changes)
            fit = predict(s, proposed, self.best.peak_vram_gb if self.best else None,
                          self.ctx.gpu_total_gb, self.ctx.transformer_params,
                          model=self.ctx.model, num_gpus=self.ctx.num_gpus)
            if not fit.fits:
                return f"not enough headroom: {fit.reason}"
        return Candidate(self._index(), stage, change, changes, s.with_changes(changes))

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
            return self._append(result)
        if cand.stage == "baseline":
            if result.outcome == "ok":
                return self._keep(cand, result)
            self.stop_reason = (f"the baseline ended with {result.outcome}: the tier's config does not "
                                "run here as planned; config.yaml is left unchanged")
            return self._append(result)
        if result.outcome == "ok":
            if self._faster(result):
                return self._keep(cand, result)
            self.stop_reason = (f"trial {result.index} ({cand.change}) was not faster than trial "
                                f"{self.best.index} by more than {self.ctx.noise:.0%}; reverted")
            return self._append(result)
        if result.outcome == "oom" and cand.stage == "optimizer":
            return self._append(result)  # revert to adamw8bit and go on to the batch trials
        if result.outcome == "oom":
            self.stop_reason = f"trial {result.index} ({cand.change}) ran out of memory; reverted"
        else:
            self.stop_reason = f"trial {result.index} ({cand.change}) ended with {result.outcome}; reverted"
        return self._append(result)

    def _faster(self, result: TrialResult) -> bool:
        if self.best is None or not self.best.sec_per_sample or result.sec_per_sample is None:
            return False  # nothing to compare against (no step lines, or a zero-time simulation)
        return (self.best.sec_per_sample - result.sec_per_sample) / self.best.sec_per_sample > self.ctx.noise

    def _keep(self, cand: Candidate, result: TrialResult) -> TrialResult:
        result = result.model_copy(update={"kept": True})
        self.settings = cand.settings
        self.winner_changes.update(cand.changes)
        self.best = result
        return self._append(result)

    def _append(self, result: TrialResult) -> TrialResult:
        self.results.append(result)
        return result

    @property
    def winner(self) -> int | None:
        return self.best.index if self.best else None


def _describe(stage: str, s: TrainSettings) -> tuple[str, dict[str, object]]:
    if stage == "baseline":
        return "baseline", {}
    if stage == "quantization":
        return f"quantization {s.quantization} -> null", {"acceleration.quantization": None}
    if stage == "optimizer":
        return f"optimizer {s.optimizer_type} -> adamw", {"optimization.optimizer_type": "adamw"}
    if stage.startswith("batch"):
        size = int(stage[-1])
        effective = s.batch_size * s.gradient_accumulation_steps
        accum = max(1, effective // size)
        label = f"batch_size {s.batch_size} -> {size}"
        if accum != s.gradient_accumulation_steps:
            label += f", grad accumulation {s.gradient_accumulation_steps} -> {accum}"
        return label, {"optimization.batch_size": size,
                       "optimization.gradient_accumulation_steps": accum}
    return "gradient checkpointing off", {"optimization.enable_gradient_checkpointing": False}


def _noop_reason(stage: str, s: TrainSettings, ctx: Context, results: list[TrialResult]) -> str:
    if stage == "quantization" and s.quantization is None:
        return "no-op: quantization is already off"
    if stage == "optimizer" and s.optimizer_type == "adamw":
        return "no-op: the optimizer is already adamw"
    if stage == "batch2" and s.batch_size >= 2:
        return f"no-op: batch size is already {s.batch_size}"
    if stage == "batch4":
        if s.batch_size >= 4:
            return f"no-op: batch size is already {s.batch_size}"
        if s.batch_size < 2:
            return "batch 2 did not win, so batch 4 is not tried"
    if stage == "checkpointing":
        if ctx.tier is not Tier.T80:
            return "gradient checkpointing stays on below the 80GB+ tier"
        if not s.gradient_checkpointing:
            return "no-op: gradient checkpointing is already off"
    return ""
