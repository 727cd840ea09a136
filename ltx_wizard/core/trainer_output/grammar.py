"""The trainer's log grammar: what each line the wizard acts on looks like, stated once.

The line parser (line_parser.py) reads these as text, a record at a time; the history scan
(history_scan.py) runs the same patterns compiled for bytes over whole chunks of `train.log`.
Numbers are bounded before int() (a 5,000-digit step would raise in int()): such a line is no
step line.
"""

from __future__ import annotations

import re

# -- layout: rich's RichHandler with stdout piped ------------------------------------------------
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
TORCH_RANK = re.compile(r"^\[rank(\d{1,9})\]:\s?")  # torch's prefix on child-process lines
MSG_RANK = re.compile(r"\[rank (\d{1,9})\]\s*")  # the trainer's own prefix inside a message
LEVEL = re.compile(r"^(\[[^\]]*\] )?(DEBUG|INFO|WARNING|ERROR|CRITICAL)( +|$)")
LEVEL_WIDTH = 9  # the level column, 8 wide, and a space: where a message starts
SUFFIX = re.compile(r"\s([\w.\-]+\.py:\d+)$")  # the source column on a record's first line
CONTINUATION = b" " * LEVEL_WIDTH  # rich's continuation lines start under the message column
MAX_LINE_BYTES = 64 << 10  # a longer line (a progress bar without newlines) is cut here

# -- progress: ltx_trainer/trainer.py LtxvTrainer.train -----------------------------------------
STEP = re.compile(
    r"Step (\d{1,40})/(\d{1,40}) - Loss: ([^,\s]+), LR: ([^,\s]+), Time/Step: ([\d.]+)s, "
    r"Total Time: (calculating\.\.\.|\d{1,12}h \d{1,12}m)"
)
# LtxvTrainer.train logs the loss with {step_loss:.4f}: digits, a dot, digits. A run of step
# lines read in bulk takes only these two groups (the whole pattern costs 4x as much).
STEP_LOSS_BYTES = re.compile(rb"Step (\d{1,40})/\d{1,40} - Loss: (\d{1,30}\.\d{1,30}),")
STEP_BYTES = re.compile(STEP.pattern.encode())
PROJECTION_BYTES = re.compile(rb"(\d{1,12})h (\d{1,12})m")  # the step line's `Total Time`
# trainer.py LtxvTrainer.train logs its step line when `global_step % 20 == 0`
STEP_LINE_EVERY = 20
# "🚀 Resuming training from step {initial_step} → {steps}"
RESUMING = re.compile(r"Resuming training from step (\d{1,40})\b")

# -- what a run leaves --------------------------------------------------------------------------
# ltx_trainer/validation_runner.py: "Validation samples for step {step} saved in {path}"
VALIDATION = re.compile(r"Validation samples for step (\d{1,40}) saved")
VALIDATION_BYTES = re.compile(VALIDATION.pattern.encode())
# trainer.py _save_checkpoint: "💾 {Lora|Model} weights for step {step} saved in {path}"
CHECKPOINT = re.compile(r"[Ww]eights for step (\d{1,40}) saved in (\S+)")
# the bytes form starts with a literal (the text form's "[Ww]eights" makes the engine try every
# byte: 7x slower over a whole chunk)
CHECKPOINT_BYTES = re.compile(rb"eights for step (\d{1,40}) saved in (\S+)")

# -- the closing statistics: trainer.py LtxvTrainer._log_training_stats ------------------------
STATS = {
    "total_time_min": re.compile(r"Total time:\s*([\d.]+)\s*minutes"),
    "steps_per_s": re.compile(r"Training speed:\s*([\d.]+)\s*steps"),
    "samples_per_s": re.compile(r"Samples/second:\s*([\d.]+)"),
    # ` - Peak GPU memory: {peak_gpu_memory_gb:.2f} GB`, whose figure is gpu_utils.py
    # get_gpu_memory_gb: nvidia-smi's memory.used in MiB / 1024, i.e. GiB under the name "GB";
    # it is kept as GiB.
    "peak_gpu_memory_gb": re.compile(r"Peak GPU memory:\s*([\d.]+)\s*GB"),
    "num_processes": re.compile(r"Number of processes:\s*(\d{1,9})\b"),
    "global_batch": re.compile(r"Global batch size:\s*(\d{1,12})\b"),
}
STATS_REQUIRED = ("total_time_min", "steps_per_s", "samples_per_s", "peak_gpu_memory_gb")
STATS_HEADER = "Training Statistics:"
# " - Total time: {minutes:.1f} minutes", read alone where the block is not parsed
TOTAL_TIME = re.compile(r"- Total time: (\d{1,15}(?:\.\d{1,15})?) minutes")

# -- failures ------------------------------------------------------------------------------------
# scripts/train.py main(): a config file that is not there, or one the schema refuses
MISSING_CONFIG = re.compile(r"Error: Configuration file (.+?) does not exist\.?$")
CONFIG_ERROR = "Error: Invalid configuration data:"
# torch's caching allocator and CUDA's own words for running out of memory
OOM = re.compile(
    r"CUDA out of memory|OutOfMemoryError|CUBLAS_STATUS_ALLOC_FAILED|"
    r"CUDA error: out of memory|cudaErrorMemoryAllocation"
)
OOM_HINTS = ("out of memory", "OutOfMemoryError", "CUBLAS_STATUS_ALLOC_FAILED", "cudaErrorMemory")
# the trainer's loader raising StopIteration (too few samples for batch x GPUs)
STOP_ITERATION = re.compile(r"^(?:[\w.]+\.)?StopIteration\b|generator raised StopIteration")
TRACEBACK_START = "Traceback (most recent call last)"
TRACEBACK_CHAIN = ("During handling of the above exception", "The above exception was the direct cause")

# Substrings every line-shaped event holds; lines without any skip the regular expressions.
HINTS = ("Step ", "Validation samples", "eights for step", "Configuration file", *OOM_HINTS)


def message_rank(head: str) -> int | None:
    """The trainer's `[rank N]` prefix at the start of a message (within its first 16 chars)."""
    m = MSG_RANK.match(head, 0) or MSG_RANK.search(head, 0, 16)
    return int(m.group(1)) if m else None


def line_rank(head: str) -> int | None:
    """The rank a physical line's text before a match says: the trainer's `[rank N]` in the
    message, else torch's `[rankN]:` at the line's start; None when neither is there."""
    m = MSG_RANK.search(head) or TORCH_RANK.match(head)
    return int(m.group(1)) if m else None


def decode_line(raw: bytes) -> str:
    """One line of the log as text, cut at MAX_LINE_BYTES; bytes that are not UTF-8 replaced."""
    return raw[:MAX_LINE_BYTES].decode("utf-8", "replace")
