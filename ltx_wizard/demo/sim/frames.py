"""The real trainer's call paths, as the simulated trainer's tracebacks print them.

Each frame is (path under packages/ltx-trainer, line, function, source line), read from
Lightricks/LTX-2 @ 400fd31: scripts/train.py main, src/ltx_trainer/trainer.py LtxvTrainer,
datasets.py PrecomputedDataset. Frames outside the checkout (torch, accelerate) are named from the
project's virtual environment, two folders up from the trainer's, as `uv run` has it.
"""

from __future__ import annotations

from pathlib import Path

Frame = tuple[str, int, str, str]

# scripts/train.py main: builds the trainer (line 58), then trains (line 59)
BUILD: Frame = ("scripts/train.py", 58, "main", "trainer = LtxvTrainer(trainer_config)")
TRAIN: Frame = ("scripts/train.py", 59, "main", "trainer.train(disable_progress_bars=disable_progress_bars)")

# trainer.py LtxvTrainer.__init__ -> _load_models: refused before any quantizing
FULL_QUANTIZED = [
    BUILD,
    ("src/ltx_trainer/trainer.py", 120, "__init__", "self._load_models()"),
    (
        "src/ltx_trainer/trainer.py",
        441,
        "_load_models",
        'raise ValueError("Quantization is not supported in full training mode.")',
    ),
]
FULL_QUANTIZED_ERROR = "ValueError: Quantization is not supported in full training mode."

# trainer.py LtxvTrainer.__init__ -> ValidationRunner.__init__: conditioning media encoded at start
VALIDATION_MEDIA = [
    BUILD,
    ("src/ltx_trainer/trainer.py", 111, "__init__", "self._validation_runner = ValidationRunner("),
    (
        "src/ltx_trainer/validation_runner.py",
        177,
        "__init__",
        "self._cached_media = self._encode_conditioning_media()",
    ),
]

# trainer.py LtxvTrainer.__init__ -> _load_checkpoint: load_checkpoint that is no checkpoint
LOAD_CHECKPOINT = [
    BUILD,
    ("src/ltx_trainer/trainer.py", 124, "__init__", "self._load_checkpoint()"),
    (
        "src/ltx_trainer/trainer.py",
        490,
        "_load_checkpoint",
        "checkpoint_path = self._find_checkpoint(self._config.model.load_checkpoint)",
    ),
]

# trainer.py LtxvTrainer.train: nothing left after a resume
NO_STEPS_LEFT = [TRAIN, ("src/ltx_trainer/trainer.py", 183, "train", "raise ValueError(")]

# trainer.py LtxvTrainer.train -> _init_dataloader -> PrecomputedDataset(...)
_DATASET = [
    TRAIN,
    ("src/ltx_trainer/trainer.py", 169, "train", "self._init_dataloader()"),
    (
        "src/ltx_trainer/trainer.py",
        681,
        "_init_dataloader",
        "self._dataset = PrecomputedDataset(self._config.data.preprocessed_data_root, "
        "data_sources=data_sources)",
    ),
]
MISSING_FOLDER = _DATASET + [
    ("src/ltx_trainer/datasets.py", 112, "__init__", "self.source_paths = self._setup_source_paths()"),
    (
        "src/ltx_trainer/datasets.py",
        154,
        "_setup_source_paths",
        'raise FileNotFoundError(f"Required {dir_name} directory does not exist: {source_path}")',
    ),
]
NO_FILES = _DATASET + [
    ("src/ltx_trainer/datasets.py", 113, "__init__", "self.sample_files = self._discover_samples()"),
    (
        "src/ltx_trainer/datasets.py",
        190,
        "_discover_samples",
        'raise ValueError(f"No data files found in {data_path}")',
    ),
]
NO_SAMPLES = _DATASET + [
    ("src/ltx_trainer/datasets.py", 114, "__init__", "self._validate_setup()"),
    ("src/ltx_trainer/datasets.py", 244, "_validate_setup", "raise ValueError("),
]

# trainer.py LtxvTrainer.train: the training step's backward, then accelerate and torch
BACKWARD = [
    TRAIN,
    ("src/ltx_trainer/trainer.py", 232, "train", "self._accelerator.backward(output.loss.mean())"),
]
# ... and a validation pass: _run_validation -> ValidationRunner.run -> the denoising loop
VALIDATION = [
    TRAIN,
    ("src/ltx_trainer/trainer.py", 213, "train", "sampled_videos_paths = self._run_validation(progress)"),
    ("src/ltx_trainer/trainer.py", 894, "_run_validation", "sampled = self._validation_runner.run("),
    ("src/ltx_trainer/validation_runner.py", 272, "run", "video, audio = self._generate_sample("),
    (
        "src/ltx_trainer/validation_runner.py",
        657,
        "_generate_sample",
        "video_state, audio_state = self._run_denoising(",
    ),
    (
        "src/ltx_trainer/validation_runner.py",
        912,
        "_run_denoising",
        "pos_video, pos_audio = x0_model(video=video, audio=audio, perturbations=None)",
    ),
]


def site_packages(trainer_dir: Path) -> Path:
    """The checkout's .venv beside packages/ (uv's); where the simulator runs elsewhere (a trial's
    folder, a test's), a .venv in that folder."""
    checkout = trainer_dir.parent.parent if trainer_dir.parent.name == "packages" else trainer_dir
    return checkout / ".venv" / "lib" / "python3.11" / "site-packages"


def accelerate_backward(trainer_dir: Path) -> list[Frame]:
    return [
        (
            str(site_packages(trainer_dir) / "accelerate" / "accelerator.py"),
            2861,
            "backward",
            "loss.backward(**kwargs)",
        )
    ]


def next_batch(trainer_dir: Path, line: int) -> list[Frame]:
    """trainer.py LtxvTrainer.train's `batch = next(data_iter)` (line 220; after the restart, 223)
    on a loader that has no batch, down into torch's DataLoader."""
    return [
        ("src/ltx_trainer/trainer.py", line, "train", "batch = next(data_iter)"),
        (
            str(site_packages(trainer_dir) / "torch" / "utils" / "data" / "dataloader.py"),
            725,
            "__next__",
            "data = self._next_data()",
        ),
    ]
