"""Phase 1 and 2, probe and gate: the GPUs training will see (NVML, nvidia-smi, a CSV or a
named machine), and the VRAM tier policy that turns them into an assessment.
"""
