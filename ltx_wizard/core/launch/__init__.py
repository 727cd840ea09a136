"""Phase 6, launch: the trainer command (one process, DDP, FSDP, multi-node), launch.sh,
slurm.sbatch, accelerate.yaml, and the detached start of the real run.
"""
