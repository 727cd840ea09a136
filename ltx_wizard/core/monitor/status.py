"""One status of a training run, as the Monitor screen and `ltx-wizard status` show it.

`RunMonitor` keeps the log reader between refreshes (each refresh reads only what was added);
`status()` puts together the log's facts, the process, the files on disk and the GPUs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Literal

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.launch.script import launch_files
from ltx_wizard.core.monitor.cursor_store import CursorStore
from ltx_wizard.core.monitor.diagnosis import Diagnosis, diagnose, not_encoded
from ltx_wizard.core.plan.next_steps import pending_preprocess
from ltx_wizard.core.monitor.gpu_use import GpuUse, read_gpu_use
from ltx_wizard.core.monitor.pace import ESTIMATE, Pace, estimated_eta, pace
from ltx_wizard.core.monitor.resume import SavedCheckpoint, saved_checkpoints
from ltx_wizard.core.monitor.run_config import config_view, output_dir, read_config
from ltx_wizard.core.monitor.run_log import RunLog
from ltx_wizard.core.monitor.trainer_process import TrainerProcess, trainer_process
from ltx_wizard.core.io import run_folder
from ltx_wizard.core.io.run_meta import read_run_meta
from ltx_wizard.core.io.safe_fs import check_run_dir

State = Literal["live", "finished", "failed", "stopped", "not started"]
MEASURING = "measuring step time"
# A live run with these in its log has not failed yet; NaN and OOM lines are shown at once.
_ONLY_AFTER_EXIT = ("config", "missing_file", "data", "no_cuda", "crash", "launch")
GpuReader = Callable[[str | None], tuple[list[GpuUse], str | None]]


@dataclass
class RunStatus:
    run_dir: Path
    log: Path
    state: State
    process: TrainerProcess | None
    step: int | None
    total: int | None
    recent_losses: list[float]
    first_loss: tuple[int, float] | None
    points: list[tuple[int, float]]
    s_per_step: float | None
    eta_s: float | None
    checkpoints: list[SavedCheckpoint]
    samples: list[Path]
    attention: str | None
    wandb_url: str | None
    gpus: list[GpuUse]
    gpu_note: str | None
    diagnosis: Diagnosis | None
    output_dir: Path
    tail: list[str] = field(default_factory=list)
    simulated: bool = False
    train_minutes: float | None = None  # the trainer's closing statistics
    earlier_minutes: tuple[float | None, ...] = ()  # earlier launches (None: no statistics)
    peak_gb: float | None = None
    s_per_step_kind: str | None = None  # pace.STEADY or pace.TRAINER
    eta_kind: str | None = None
    nan_step: int | None = None  # the loss is NaN since this step (None: the last loss is finite)
    last_finite: tuple[int, float] | None = None  # (step, loss) of the last finite loss
    attempt_id: str = ""  # which launch of the run this is (its count, launch.sh's time and pid)

    @property
    def nan(self) -> bool:
        return self.nan_step is not None

    @property
    def usable_checkpoint(self) -> SavedCheckpoint | None:
        """The checkpoint to continue from and to render with: the latest, or when the loss
        turned NaN, the latest saved while it was still finite (trainer.py keeps training and
        saving after a NaN: a checkpoint saved then is NaN throughout)."""
        if not self.nan:
            return self.checkpoints[0] if self.checkpoints else None
        last = self.last_finite[0] if self.last_finite else -1
        return next((c for c in self.checkpoints if c.step <= last), None)

    @property
    def percent(self) -> float | None:
        if self.step is None or not self.total:
            return None
        return min(100.0, 100.0 * self.step / self.total)

    @property
    def resumable(self) -> bool:
        """A run that is not running and has a checkpoint to go on from (a finished one too:
        with optimization.steps raised, resume trains the added steps)."""
        return self.state in ("stopped", "failed", "finished") and self.usable_checkpoint is not None


def eta_text(seconds: float | None) -> str:
    if seconds is None:
        return MEASURING
    if seconds < 60:
        return f"~{int(round(seconds))}s"
    minutes = int(round(seconds / 60))
    return f"~{minutes // 60}h {minutes % 60:02d}m" if minutes >= 60 else f"~{minutes}m"


def latest_samples(out_dir: Path, limit: int = 4) -> list[Path]:
    """The newest validation samples (validation_runner.py: samples/step_{step:06d}_{n}.{ext})."""
    try:
        files = [p for p in (out_dir / "samples").iterdir() if p.name.startswith("step_")]
    except OSError:
        return []
    return sorted(files, key=lambda p: p.name, reverse=True)[:limit]


def check_run(run_dir: Path) -> None:
    """A folder the wizard planned (or at least one with a training log). Raises UsageError."""
    check_run_dir(run_dir)
    if not run_dir.is_dir():
        raise UsageError(f"{run_dir}: no such folder; pass a run folder the wizard or `plan` wrote")
    if not any(
        (run_dir / name).exists()
        for name in (run_folder.CONFIG.rel, run_folder.RUN_META.rel, run_folder.LOGS_DIR.rel)
    ):
        raise UsageError(
            f"{run_dir} is not a run folder (no config.yaml, run.json or logs/): "
            "pass the folder `plan` or the wizard wrote"
        )


def _log_of(run_dir: Path, local: Path) -> Path:
    """The local run's log, else a SkyPilot run's: the node wrote it into the mounted outputs, and a
    local copy of them holds it (core/cloud/sky_scripts.py run.sh) beside the checkpoints."""
    sky = run_folder.SKY_LOG.path(run_dir)
    if not local.exists() and run_folder.SKY_TASK.path(run_dir).is_file() and sky.is_file():
        return sky
    return local


class RunMonitor:
    def __init__(self, run_dir: Path, gpu_reader: GpuReader = read_gpu_use) -> None:
        self.run_dir = Path(run_dir)
        self.spec = read_run_meta(self.run_dir).launch
        self.log_path = _log_of(self.run_dir, launch_files(self.run_dir, self.spec)[0])
        self.log = RunLog(self.log_path, CursorStore(self.log_path, self.run_dir))
        self.gpu_reader = gpu_reader

    def refresh(self) -> int:
        return self.log.refresh()

    def _state(self, proc: TrainerProcess | None, diagnosis: Diagnosis | None) -> State:
        if proc is not None:
            return "live"
        if self.log.lines == 0:
            return "not started"
        if self.log.attempt.statistics is not None:
            return "finished"
        if diagnosis is not None and diagnosis.kind != "nan":
            return "failed"
        return "stopped"

    def _gpus(self, live: bool) -> tuple[list[GpuUse], str | None]:
        if not live:
            return [], None
        if self.spec is not None and self.spec.simulated:
            return [], "GPUs are simulated: no NVML readings"
        env = self.spec.env if self.spec is not None else {}
        return self.gpu_reader(env.get("CUDA_VISIBLE_DEVICES"))

    def _estimated(self, speed: Pace, config: dict[str, Any], initial: int, proc: TrainerProcess) -> Pace:
        """Before the first step line: the ETA from autotune's estimate (none without one)."""
        from ltx_wizard.core.tuning.tune_record import read_tune_record

        try:
            tuned = read_tune_record(self.run_dir)
        except (UsageError, OSError):
            return speed
        if tuned is None or tuned.duration is None:
            return speed
        ran = None
        if proc.started is not None and not (self.spec and self.spec.simulated):
            ran = (datetime.now(timezone.utc) - proc.started).total_seconds()
        keys = config_view(config).keys
        intervals = (keys.validation.interval, keys.checkpoints.interval)
        eta = estimated_eta(tuned.duration, initial, intervals, ran)
        return Pace(speed.s_per_step, speed.s_per_step_kind, eta, ESTIMATE)

    def status(self, *, gpus: bool = True) -> RunStatus:
        """Raises log_reader.LogNotRegular when the log is a FIFO, a device or a socket."""
        self.refresh()
        log = self.log
        config = read_config(run_folder.CONFIG.path(self.run_dir))
        proc = trainer_process(self.run_dir)
        if proc is None:
            # the writer may have written on between the read above and its exit: read to the
            # end now that nobody writes, so a final block names the last step written
            self.refresh()
            log.finish()  # nobody writes any more: what the parser holds is complete
        diagnosis = not_encoded(
            diagnose(log.attempt, config, exited=proc is None), pending_preprocess(self.run_dir)
        )
        if proc is not None and diagnosis is not None and diagnosis.kind in _ONLY_AFTER_EXIT:
            diagnosis = None
        state = self._state(proc, diagnosis)
        out_dir = output_dir(self.run_dir, config)
        total = log.total or config_view(config).keys.optimization.steps or None
        step = total if state == "finished" and total else log.step  # the last step has no line
        speed = pace(log, total, state == "live")
        if state == "live" and log.step is None and proc is not None:
            speed = self._estimated(speed, config, log.attempt.initial_step, proc)
        stats = log.attempt.statistics
        readings, note = self._gpus(state == "live") if gpus else ([], None)
        return RunStatus(
            self.run_dir,
            self.log_path,
            state,
            proc,
            step,
            total,
            [loss for _, loss in log.recent],
            log.first_loss,
            list(log.points),
            speed.s_per_step,
            speed.eta_s,
            saved_checkpoints(out_dir),
            latest_samples(out_dir),
            log.attention,
            log.wandb_url,
            readings,
            note,
            diagnosis,
            out_dir,
            list(log.tail)[-40:],
            simulated=bool(self.spec and self.spec.simulated),
            train_minutes=log.attempt.minutes,
            earlier_minutes=tuple(log.earlier_minutes),
            peak_gb=stats.peak_gpu_memory_gb if stats else None,
            s_per_step_kind=speed.s_per_step_kind,
            eta_kind=speed.eta_kind,
            nan_step=log.loss.nan_step,
            last_finite=log.loss.last_finite,
            attempt_id=f"{log.attempts}:{log.attempt.started}:{log.attempt.pid}",
        )
