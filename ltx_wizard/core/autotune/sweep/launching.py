"""How the sweep starts the trainer: a trial's command (the plan's own launch, or one GPU of it),
how its memory is read, the runner per GPU slot, and the command that trains the tuned config.

The trainer is the user's checkout, a `--trainer-cmd`, or a stand-in (core/base/stand_in.py: the
demo's simulator, injected by the CLI and the TUI).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from ltx_wizard.core.autotune.trials.preflight import require_runnable
from ltx_wizard.core.autotune.trials.trial_command import TrialCommand
from ltx_wizard.core.autotune.trials.trial_runner import TrialRunner
from ltx_wizard.core.autotune.trials.side_by_side import host_available_gb, trial_slots
from ltx_wizard.core.autotune.trials.vram_sampler import NullBackend, VramBackend, make_backend
from ltx_wizard.core.io.run_meta import read_run_meta
from ltx_wizard.core.launch.launch_command import LaunchPlan, build_launch, join_args

if TYPE_CHECKING:
    from ltx_wizard.core.autotune.sweep.sweep_state import Site
    from ltx_wizard.core.base.stand_in import StandIn
    from ltx_wizard.core.gpu.assessment import Assessment
    from ltx_wizard.core.gpu.devices import ProbeResult
    from ltx_wizard.core.io.workspace import RunFolder


@dataclass
class TrialLaunch:
    folder: RunFolder
    probe: ProbeResult
    assessment: Assessment
    trainer_cmd: list[str] | None
    stand_in: StandIn | None  # runs in place of the trainer (the demo's simulator)
    trainer_root: Path | None
    training_mode: str  # the planned config's model.training_mode
    idle_timeout_s: float
    grace_s: float

    def command(self, config_for_launch: Path, slot: int | None = None) -> TrialCommand:
        """The plan's launch (slot None) or a single-GPU launch on GPU number `slot`."""
        device = self._device(slot) if slot is not None else None
        stand_in, scratch = self.stand_in, self.folder.overfit
        if stand_in is not None and not self.trainer_cmd:
            prefix, env = stand_in.trial_command(scratch, slot, self.assessment.num_gpus)
            if device is not None:
                env["CUDA_VISIBLE_DEVICES"] = device
            return TrialCommand(
                prefix, None, env, time_scale=stand_in.time_scale, step_clock=stand_in.step_clock(env)
            )
        if self.trainer_cmd:
            env = stand_in.memory_env(scratch, slot) if stand_in is not None else {}
            if device is not None:
                env["CUDA_VISIBLE_DEVICES"] = device
            return TrialCommand(list(self.trainer_cmd), None, env)
        if slot is not None:
            root = self.trainer_root or self._checkout_root()
            launch = build_launch(root, config_for_launch, 1, self.training_mode, device)
            return TrialCommand(launch.trial_prefix(), launch.cwd, dict(launch.env))
        launch = self._real_launch(config_for_launch)
        return TrialCommand(launch.trial_prefix(), launch.cwd, dict(launch.env))

    def _real_launch(self, config: Path) -> LaunchPlan:
        """The plan's launch of `config` with the user's trainer (accelerate form on several GPUs)."""
        root = self.trainer_root or self._checkout_root()
        accelerate = self.folder.accelerate_config
        return build_launch(
            root,
            config,
            self.assessment.num_gpus,
            self.training_mode,
            self.probe.cuda_visible_devices,
            accelerate if accelerate.exists() else None,
        )

    def _checkout_root(self) -> Path:
        from ltx_wizard.core.inputs.checkout import find_checkout

        recorded = read_run_meta(self.folder.root).trainer_root
        return find_checkout(str(recorded) if recorded else None).root

    def _device(self, slot: int) -> str:
        """CUDA_VISIBLE_DEVICES for one GPU: its UUID when known (immune to device ordering)."""
        gpu = self.probe.gpus[slot]
        return gpu.uuid or str(gpu.index)

    def _backend_factory(self, command: TrialCommand, slot: int | None = None) -> Callable[[], VramBackend]:
        gpus = list(self.probe.gpus)  # MIG instances are sampled through their own handle (UUID)
        if slot is not None:
            gpus = [gpus[slot]]
        if self.stand_in is not None:  # it reports its own memory, where the command told it
            stand_in, env = self.stand_in, dict(command.env)
            return lambda: stand_in.memory_reader(env, len(gpus))
        if self.probe.source in ("csv", "simulated"):  # the GPUs are not on this machine
            return lambda: NullBackend(len(gpus))
        source = self.probe.source
        return lambda: make_backend(source, gpus)

    def slots(self, params: float | None, host_ram_gb: float | None) -> list[int]:
        """GPUs for single-GPU trials side by side ([]: the plan's own launch, one at a time)."""
        ram = host_ram_gb
        if ram is None:
            ram = (
                self.stand_in.host_gb_per_gpu * len(self.probe.gpus)
                if self.stand_in is not None
                else host_available_gb()
            )
        return trial_slots(len(self.probe.gpus), self.assessment.num_gpus, self.training_mode, params, ram)

    def runner(self, site: Site, slot: int | None, totals: list[int | None]) -> TrialRunner:
        """A runner on GPU `slot` (None: the plan's own launch), its trials tagged for the reaper."""
        command = self.command(self.folder.config, slot)
        require_runnable(command.prefix, command.cwd, {**os.environ, **command.env})
        return TrialRunner(
            command,
            self._backend_factory(command, slot),
            site.on_event,
            idle_timeout_s=self.idle_timeout_s,
            grace_s=self.grace_s,
            total_mib=totals if slot is None else [totals[slot]],
            gpus=tuple(range(len(self.probe.gpus))) if slot is None else (slot,),
            session=site.tag,
        )

    def tuned_run(self) -> tuple[list[str], str]:
        """The command that trains the tuned config: what the run's launch.sh runs (run.json's
        launch, written by the plan), else the plan's launch for the real trainer."""
        spec = read_run_meta(self.folder.root).launch
        if spec is not None:
            from ltx_wizard.core.launch.script import spec_line

            env = [f"{k}={v}" for k, v in sorted(spec.env.items())]
            return (["env", *env, *spec.argv] if env else list(spec.argv)), spec_line(spec)
        if self.stand_in is not None or self.trainer_cmd:
            command = self.command(self.folder.config)
            argv = [*command.prefix, str(self.folder.config), command.quiet_flag]
            return argv, join_args(argv)
        launch = self._real_launch(self.folder.config)
        return launch.argv_with_env(), launch.shell_line()
