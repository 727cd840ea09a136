"""A trial's phase from the trainer's own lines: the parser finds the stage lines, the tracker
turns them (and the step, validation and checkpoint lines) into the phase a person reads."""

from __future__ import annotations

from ltx_wizard.core.autotune.trials.phase import PhaseTracker
from ltx_wizard.core.trainer_output.line_events import (
    CheckpointSaved,
    Statistics,
    StepEvent,
    TrainerPhase,
    ValidationSaved,
)
from ltx_wizard.core.trainer_output.line_parser import TrainerLogParser
from ltx_wizard.core.trainer_output.stages import message_phase
from ltx_wizard.demo.sim.rich_format import format_record

# As the real trainer prints them on a pipe at 80 columns (rich's layout: level, message, source).
REAL_RUN = [
    *format_record(
        "DEBUG", "Loading text encoder for validation embedding caching...", "validation_runner.py:333", 80
    ),
    *format_record(
        "INFO", "Pre-computing embeddings for 1 validation prompts...", "validation_runner.py:346", 80
    ),
    *format_record("DEBUG", "Loading transformer...", "trainer.py:412", 80),
    *format_record(
        "INFO",
        "Building transformer with attention backends -- self: PYTORCH, masked: PYTORCH",
        "model.py:87",
        80,
    ),
    *format_record(
        "INFO", 'Quantizing model with "int8-quanto". This may take a while...', "trainer.py:443", 80
    ),
    *format_record("INFO", "🚀 Starting training...", "trainer.py:191", 80),
    *format_record(
        "WARNING",
        "Progress bars disabled. Intermediate status messages will be logged instead.",
        "trainer.py:201",
        80,
    ),
    *format_record(
        "INFO",
        "Step 20/40 - Loss: 0.2437, LR: 5.00e-05, Time/Step: 4.31s, Total Time: calculating...",
        "trainer.py:307",
        80,
    ),
]


def parse(lines: list[str]) -> list:
    parser = TrainerLogParser()
    events = []
    for t, line in enumerate(lines):
        events += parser.feed(line, float(t))
    return events + parser.finish()


def test_the_parser_finds_each_stage_line_of_a_real_looking_run():
    assert any(len(line.rstrip()) == 80 for line in REAL_RUN)  # the layout under test is wrapped
    phases = [(e.phase, e.t) for e in parse(REAL_RUN) if isinstance(e, TrainerPhase)]
    assert [p for p, _ in phases] == ["text_encoder", "prompts", "loading", "quantizing", "training"]
    assert phases[3][1] == REAL_RUN.index(next(line for line in REAL_RUN if "Quantizing" in line))


def test_ranks_colour_and_older_trainers_lines():
    lines = [
        "\x1b[34mINFO    \x1b[0m [rank 0] Loading LTX-2 model from /m/ltx-2.safetensors  model_loader.py:327",
        "[rank1]: DEBUG    [rank 1] Loading transformer...                        model_loader.py:332",
        "INFO     🚀 Resuming training from step 20 → 40                            trainer.py:189",
    ]
    events = [e for e in parse(lines) if isinstance(e, TrainerPhase)]
    assert [(e.phase, e.rank) for e in events] == [("loading", 0), ("loading", 1), ("training", None)]


def test_only_the_real_messages_start_a_phase():
    assert message_phase("Loading text encoder...") == "text_encoder"  # older trainer.py
    assert message_phase("Pre-encoding conditioning media for 2 validation samples...") == "media"
    # words that merely mention a stage, and lines the real trainer never prints
    assert message_phase("Skipping quantization for module: proj_out") is None
    assert message_phase("Loading transformer from /m/ltx-2.safetensors") is None
    assert message_phase("Starting training: 40 steps, batch size 1, 1 process") is None
    assert message_phase("Step 20/40 - Loss: 0.2") is None


def step(n: int, total: int, rank=None) -> StepEvent:
    return StepEvent(t=0, step=n, total=total, loss=0.1, lr=1e-4, time_per_step_s=2.0, rank=rank)


def phases(tracker: PhaseTracker, events: list) -> list[tuple[str, str]]:
    seen = []
    for event in events:
        if tracker.feed(event) is not None:
            seen.append((tracker.phase, tracker.label))
    return seen


def test_a_trial_goes_from_loading_to_training_to_saving():
    tracker = PhaseTracker(total=40)
    assert tracker.start() == "starting" and tracker.start() is None  # only changes are news
    seen = phases(
        tracker,
        [
            TrainerPhase(t=0, phase="loading"),
            TrainerPhase(t=0, phase="loading"),
            TrainerPhase(t=0, phase="quantizing"),
            TrainerPhase(t=0, phase="training"),
            step(20, 40),
            step(20, 40, rank=1),
            step(40, 40),
            CheckpointSaved(t=0, step=40, path="checkpoints/lora_weights_step_00040.safetensors"),
            Statistics(t=0, total_time_min=1, steps_per_s=1, samples_per_s=1, peak_gpu_memory_gb=30),
        ],
    )
    assert seen == [
        ("loading", "loading the model"),
        ("quantizing", "quantizing the model"),
        ("training", "training"),
        ("saving", "saving the weights"),
        ("finishing", "finishing"),
    ]
    assert tracker.end() == "ended"


def test_validation_is_inferred_once_no_step_line_comes_before_it():
    # a confirmation: 2 steps, validating after step 2, and no step line before step 20
    confirm = PhaseTracker(total=2, validate_at=2)
    assert phases(confirm, [TrainerPhase(t=0, phase="training"), ValidationSaved(t=0, step=2)]) == [
        ("validating", "training to step 2, then validating"),
        ("saving", "saving the weights"),
    ]
    # a fused trial: its step-40 line, then one more step and the validation
    fused = PhaseTracker(total=41, validate_at=41)
    assert phases(fused, [TrainerPhase(t=0, phase="training"), step(20, 41), step(40, 41)]) == [
        ("training", "training"),
        ("validating", "validating"),
    ]
