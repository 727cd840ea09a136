"""Apply CUDA_VISIBLE_DEVICES the way CUDA does, because training sees only those devices.

NVML and nvidia-smi ignore the variable, so without this the wizard would plan for GPUs that the
trainer never gets. CUDA's rules, followed here: entries are comma-separated; an entry is a device
index, a `GPU-<uuid>` (a unique prefix is enough) or a `MIG-<uuid>`; parsing stops at the first
invalid entry (out of range, unknown, negative, repeated) and the devices before it stay visible;
an empty value hides every device. A CUDA process uses one MIG instance, so an index that names a
GPU in MIG mode selects its first instance.
"""

from __future__ import annotations

from ltx_wizard.core.gpu.devices import GpuInfo


def _match(entry: str, gpus: list[GpuInfo]) -> GpuInfo | None:
    if entry.lstrip("+").isdigit():
        wanted = int(entry)
        same = [gpu for gpu in gpus if gpu.index == wanted]
        return same[0] if same else None
    lowered = entry.lower()
    if lowered.startswith(("gpu-", "mig-")):
        hits = [gpu for gpu in gpus if gpu.uuid and gpu.uuid.lower().startswith(lowered)]
        return hits[0] if len(hits) == 1 else None
    return None


def apply_cuda_visible_devices(gpus: list[GpuInfo], value: str | None) -> tuple[list[GpuInfo], str | None]:
    """(devices training will see, a note for the user when the variable changed anything)."""
    if value is None:
        return gpus, None
    entries = [part.strip() for part in value.split(",")]
    if value.strip() == "":
        return [], 'CUDA_VISIBLE_DEVICES is set but empty (""): no GPU is visible to training'
    visible: list[GpuInfo] = []
    stopped_at: str | None = None
    for entry in entries:
        gpu = _match(entry, gpus)
        if gpu is None or gpu in visible:
            stopped_at = entry
            break
        visible.append(gpu)
    if stopped_at is not None:
        kept = ",".join(entries[: len(visible)]) or "nothing"
        return visible, (
            f"CUDA_VISIBLE_DEVICES={value}: entry {stopped_at!r} is not a valid device, so CUDA "
            f"stops there and training sees {kept} ({len(visible)} of {len(gpus)} GPUs)"
        )
    if len(visible) == len(gpus) and visible == gpus:
        return visible, None
    return visible, (f"CUDA_VISIBLE_DEVICES={value} narrows training to {len(visible)} of {len(gpus)} GPUs")
