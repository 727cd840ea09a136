"""Write the composed samples in tests/data/trainer_logs (the failures only a GPU can give).

usage: python scripts/compose_trainer_logs.py [OUT_DIR]   (default: tests/data/trainer_logs)

The real_* samples there were recorded from the trainer itself (Lightricks/LTX-2 @ 400fd31) on
CPU. OOMs, CUBLAS failures, NaN losses, two ranks and an empty dataloader need a GPU run, so these
are composed: every record below is a message the trainer logs at 400fd31, worded and sourced
(file:line in rich's right-hand column) as in those recordings and the trainer's code; the
tracebacks' frames are the trainer's real call path (scripts/train.py main -> trainer.py
LtxvTrainer.train) and the error lines are torch's own wording. Only the numbers are made up.
Rich's layout comes from the simulated trainer's formatter, which lays records out as rich does.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ltx_wizard.demo.sim.rich_format import format_record

ROOT = "/home/user/LTX-2"
VENV = f"{ROOT}/.venv/lib/python3.11/site-packages"  # torch 2.14, accelerate 1.x
ATTENTION = "SDPA[CUDNN_ATTENTION>FLASH_ATTENTION>EFFICIENT_ATTENTION>MATH]"
Record = tuple[str, str, str]  # level, message, source


def start(quantization: str | None = None, rank: int | None = None) -> list[Record]:
    """What a LoRA run logs from its start to its first step (400fd31, 2 validation prompts)."""
    r = "" if rank is None else f"[rank {rank}] "
    records = [
        ("DEBUG", f"{r}🎯 Using FlexibleStrategy training strategy (audio enabled 🔈)", "__init__.py:87"),
        ("DEBUG", f"{r}Loading text encoder for validation embedding caching...", "validation_runner.py:333"),
        (
            "DEBUG",
            f"{r}Loading embeddings processor for validation embedding caching...",
            "validation_runner.py:338",
        ),
        ("INFO", f"{r}Pre-computing embeddings for 2 validation prompts...", "validation_runner.py:346"),
        (
            "DEBUG",
            f"{r}Validation prompt embeddings cached. Text encoder unloaded.",
            "validation_runner.py:367",
        ),
        ("DEBUG", f"{r}Loading video VAE decoder for validation...", "validation_runner.py:492"),
        ("DEBUG", f"{r}Loading audio decoder and vocoder for validation...", "validation_runner.py:511"),
        ("DEBUG", f"{r}Loading transformer...", "trainer.py:412"),
        (
            "INFO",
            f"{r}Building transformer with attention backends -- self: {ATTENTION}, masked: {ATTENTION}",
            "model.py:87",
        ),
        ("DEBUG", f"{r}Loading embeddings processor...", "trainer.py:424"),
    ]
    if quantization:
        records += [
            (
                "INFO",
                f'{r}Quantizing model with "{quantization}". This may take a while...',
                "trainer.py:443",
            ),
            (
                "DEBUG",
                f"{r}Quantizing model using block-by-block approach for memory efficiency",
                "quantization.py:91",
            ),
            ("DEBUG", f"{r}Quantizing remaining model components", "quantization.py:154"),
        ]
    return (
        records
        + [
            ("DEBUG", f"{r}Adding LoRA adapter with rank 32", "trainer.py:472"),
            ("DEBUG", f"{r}Trainable params count: 163,577,856", "trainer.py:463"),
            ("DEBUG", f"{r}GPU memory usage after models preparation: 40.17 GB", "trainer.py:643"),
            ("DEBUG", f"{r}Process {rank or 0} using seed: 42", "trainer.py:157"),
            (
                "DEBUG",
                f"{r}Loaded dataset with 1 samples from sources: ['latents', 'conditions']",
                "trainer.py:682",
            ),
        ]
        + (
            []
            if rank
            else [
                ("INFO", f"{r}💾 Training configuration saved to: training_config.yaml", "trainer.py:1104"),
            ]
        )
        + [
            ("INFO", f"{r}🚀 Starting training...", "trainer.py:191"),
            (
                "WARNING",
                f"{r}Progress bars disabled. Intermediate status messages will be logged instead.",
                "trainer.py:201",
            ),
        ]
    )


def step(n: int, total: int, loss: str, lr: str, seconds: float, eta: str, r: str = "") -> Record:
    # trainer.py LtxvTrainer.train, its fallback line when progress bars are off
    return (
        "INFO",
        f"{r}Step {n}/{total} - Loss: {loss}, LR: {lr}, Time/Step: {seconds:.2f}s, Total Time: {eta}",
        "trainer.py:307",
    )


def validation(n: int, r: str = "") -> Record:
    return ("INFO", f"{r}🎥 Validation samples for step {n} saved in samples", "validation_runner.py:310")


def weights(n: int, r: str = "") -> list[Record]:
    return [
        (
            "INFO",
            f"{r}💾 Lora weights for step {n} saved in checkpoints/lora_weights_step_{n:05d}.safetensors",
            "trainer.py:981",
        ),
        (
            "DEBUG",
            f"{r}Training state saved to checkpoints/training_state_step_{n:05d}.pt",
            "trainer.py:1067",
        ),
    ]


def statistics(minutes: float, speed: float, samples: float, peak: float, processes: int = 1) -> Record:
    # trainer.py LtxvTrainer._log_training_stats
    text = (
        "📊 Training Statistics:\n"
        f" - Total time: {minutes:.1f} minutes\n - Training speed: {speed:.2f} steps/second\n"
        f" - Samples/second: {samples:.2f}\n - Peak GPU memory: {peak:.2f} GB"
    )
    if processes > 1:
        text += f"\n - Number of processes: {processes}\n - Global batch size: {processes}"
    return ("INFO", text, "trainer.py:935")


CHECKPOINT_WARNING = [  # torch's, from gradient checkpointing over frozen inputs
    f"{VENV}/torch/utils/checkpoint.py:87: UserWarning: None of the inputs have requires_grad=True."
    " Gradients will be None",
    "  warnings.warn(",
]
TRAIN_FRAMES = [  # scripts/train.py main -> trainer.py LtxvTrainer.train, as in the recordings
    f'  File "{ROOT}/packages/ltx-trainer/scripts/train.py", line 59, in main',
    "    trainer.train(disable_progress_bars=disable_progress_bars)",
]
BACKWARD = TRAIN_FRAMES + [
    f'  File "{ROOT}/packages/ltx-trainer/src/ltx_trainer/trainer.py", line 232, in train',
    "    self._accelerator.backward(output.loss.mean())",
    f'  File "{VENV}/accelerate/accelerator.py", line 2861, in backward',
    "    loss.backward(**kwargs)",
    f'  File "{VENV}/torch/_tensor.py", line 623, in backward',
    "    torch.autograd.backward(",
    f'  File "{VENV}/torch/autograd/__init__.py", line 395, in backward',
    "    _engine_run_backward(",
    f'  File "{VENV}/torch/autograd/graph.py", line 1072, in _engine_run_backward',
    "    return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the "
    "backward pass",
    "           " + "^" * 50,
]

VALIDATION = TRAIN_FRAMES + [  # the step-0 validation's path, as recorded (real_validation_crash)
    f'  File "{ROOT}/packages/ltx-trainer/src/ltx_trainer/trainer.py", line 213, in train',
    "    sampled_videos_paths = self._run_validation(progress)",
    f'  File "{ROOT}/packages/ltx-trainer/src/ltx_trainer/trainer.py", line 894, in _run_validation',
    "    sampled = self._validation_runner.run(",
    f'  File "{ROOT}/packages/ltx-trainer/src/ltx_trainer/validation_runner.py", line 272, in run',
    "    video, audio = self._generate_sample(",
    f'  File "{ROOT}/packages/ltx-trainer/src/ltx_trainer/validation_runner.py", line 657, in '
    "_generate_sample",
    "    video_state, audio_state = self._run_denoising(",
    f'  File "{ROOT}/packages/ltx-trainer/src/ltx_trainer/validation_runner.py", line 912, in _run_denoising',
    "    pos_video, pos_audio = x0_model(video=video, audio=audio, perturbations=None)",
    f'  File "{ROOT}/packages/ltx-core/src/ltx_core/model/transformer/model.py", line 601, in forward',
    "    vx, ax = self.velocity_model(video, audio, perturbations)",
]


def oom(gpu: int) -> str:
    return (
        f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.50 GiB. GPU {gpu} has a"
        " total capacity of 31.36 GiB of which 1.02 GiB is free. Including non-PyTorch memory, "
        "this process has 30.33 GiB memory in use. Of the allocated memory 29.43 GiB is "
        "allocated by PyTorch, and 0.41 GiB is reserved by PyTorch but unallocated. If reserved"
        " but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments"
        ":True to avoid fragmentation.  See documentation for Memory Management  "
        "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"
    )


def render(items: list, width: int) -> str:
    lines: list[str] = []
    for item in items:
        if isinstance(item, tuple):
            lines += format_record(*item, width)
        else:
            lines.append(item)
    return "".join(line + "\n" for line in lines)


def ok_run(peak: float, seconds: tuple[float, float], losses: tuple[str, str]) -> list:
    return [
        *start("int8-quanto"),
        validation(0),
        *CHECKPOINT_WARNING,
        step(20, 50, losses[0], "6.00e-05", seconds[0], "0h 1m"),
        step(40, 50, losses[1], "2.00e-05", seconds[1], "0h 0m"),
        validation(50),
        *weights(50),
        statistics(1.9, 0.57, 0.57, peak),
    ]


def two_ranks() -> str:
    """Two processes: rank-prefixed records (ltx_trainer/__init__.py's format) in the order the
    ranks happened to write them; steps, validation and checkpoints from the main process only."""
    items = []
    for a, b in zip(start(rank=0), start(rank=1)):
        items += [a, b]
    items += [
        validation(0, "[rank 0] "),
        step(20, 50, "0.2511", "6.00e-05", 1.66, "0h 1m", "[rank 0] "),
        step(40, 50, "0.1987", "2.00e-05", 1.67, "0h 0m", "[rank 0] "),
        validation(50, "[rank 0] "),
        *weights(50, "[rank 0] "),
        statistics(2.0, 0.54, 1.08, 67.40, processes=2),
    ]
    return render(items, 80)


def two_ranks_oom() -> str:
    """Both ranks run out of memory in the same backward; torchrun prefixes their stderr."""
    items = []
    for a, b in zip(start(rank=0), start(rank=1)):
        items += [a, b]
    text = render(items, 80)
    tb = ["Traceback (most recent call last):", *BACKWARD]
    for line, other in zip(tb + [oom(0)], tb + [oom(1)]):
        text += f"[rank0]: {line}\n[rank1]: {other}\n"
    return text + (
        "W0301 09:31:07.114000 4122 torch/distributed/elastic/multiprocessing/api.py:897] Sending "
        "process 4181 closing signal SIGTERM\n"
        "E0301 09:31:07.402000 4122 torch/distributed/elastic/multiprocessing/api.py:869] failed "
        "(exitcode: 1) local_rank: 0 (pid: 4180) of binary: /home/user/LTX-2/.venv/bin/python\n"
    )


def cases() -> dict[str, str]:
    empty_loader = [  # trainer.py LtxvTrainer.train: the second next() on an empty dataloader
        "Traceback (most recent call last):",
        f'  File "{ROOT}/packages/ltx-trainer/src/ltx_trainer/trainer.py", line 220, in train',
        "    batch = next(data_iter)",
        "            ^^^^^^^^^^^^^^^",
        f'  File "{VENV}/torch/utils/data/dataloader.py", line 725, in __next__',
        "    data = self._next_data()",
        "StopIteration",
        "",
        "During handling of the above exception, another exception occurred:",
        "",
        "Traceback (most recent call last):",
        *TRAIN_FRAMES,
        f'  File "{ROOT}/packages/ltx-trainer/src/ltx_trainer/trainer.py", line 223, in train',
        "    batch = next(data_iter)",
        "            ^^^^^^^^^^^^^^^",
        "StopIteration",
    ]
    return {
        "ok_single_gpu_cols250": render(ok_run(66.94, (1.55, 1.56), ("0.2437", "0.1904")), 250),
        "ok_wrapped_cols80": render(ok_run(31.54, (2.89, 2.91), ("0.3121", "0.2877")), 80),
        "nan_loss": render(
            [
                *start(),
                validation(0),
                step(20, 50, "0.2437", "6.00e-05", 1.55, "0h 1m"),
                step(40, 50, "nan", "2.00e-05", 1.57, "0h 0m"),
                validation(50),
                *weights(50),
                statistics(1.9, 0.57, 0.57, 66.94),
            ],
            160,
        ),
        "oom_cols80": render(
            [*start("int8-quanto"), validation(0), "Traceback (most recent call last):", *BACKWARD, oom(0)],
            80,
        ),
        "oom_validation_cols80": render(
            [*start(), "Traceback (most recent call last):", *VALIDATION, oom(0)], 80
        ),
        "cublas_alloc_failed": render(
            [
                *start(),
                "Traceback (most recent call last):",
                *BACKWARD,
                "RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`",
            ],
            110,
        ),
        "stop_iteration_cols80": render([*start("int8-quanto"), validation(0), *empty_loader], 80),
        "ok_two_gpu_ranks": two_ranks(),
        "oom_two_gpu_ranks": two_ranks_oom(),
    }


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else Path(__file__).resolve().parents[1] / "tests/data/trainer_logs"
    for name, text in cases().items():
        path = out / f"{name}.txt"
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
        print(f"{path}: {text.count(chr(10))} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
