"""Tensor shapes of a `torch.save` file, read without importing torch.

A `.pt` written by torch.save (the zip format, torch >= 1.6) holds `<name>/data.pkl`, a pickle
whose tensors are `torch._utils._rebuild_tensor_v2(storage, offset, size, stride, ...)` calls
with the storage as a persistent id. Unpickling with only those few names allowed gives every
tensor's size and dtype and runs nothing else: any other global refuses the file.
"""

from __future__ import annotations

import io
import pickle
import zipfile
from pathlib import Path
from typing import Any, NamedTuple

from ltx_wizard.core.base.errors import UsageError

PICKLE_MAX_BYTES = 1 * 2**20  # the pickle of a latents dict is a few hundred bytes


class TensorShape(NamedTuple):
    size: tuple[int, ...]
    dtype: str  # the storage's class name, e.g. "BFloat16Storage"


def _rebuild_tensor_v2(storage: Any, _offset: int, size: tuple[Any, ...], *_rest: Any) -> TensorShape:
    return TensorShape(tuple(int(n) for n in size), str(storage[1]))


class _ShapeUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) == ("torch._utils", "_rebuild_tensor_v2"):
            return _rebuild_tensor_v2
        if (module, name) == ("collections", "OrderedDict"):
            return dict  # a tensor's backward hooks: always empty in a saved latent
        if module == "torch" and name.endswith("Storage"):
            return name
        raise pickle.UnpicklingError(f"{module}.{name} is not a tensor")

    def persistent_load(self, pid: Any) -> Any:
        if isinstance(pid, tuple) and len(pid) >= 2 and pid[0] == "storage":
            return ("storage", pid[1])
        raise pickle.UnpicklingError("unknown persistent id")


def read_pt(path: str | Path) -> Any:
    """The saved object with each tensor replaced by its TensorShape."""
    try:
        with zipfile.ZipFile(path) as archive:
            names = [n for n in archive.namelist() if n.endswith("/data.pkl") or n == "data.pkl"]
            if not names:
                raise UsageError(f"{path} is not a torch.save file (no data.pkl): re-run the preprocessing")
            info = archive.getinfo(names[0])
            if info.file_size > PICKLE_MAX_BYTES:
                raise UsageError(f"{path} holds more than tensors and numbers: not a latents file")
            data = archive.read(info)
    except (zipfile.BadZipFile, OSError) as exc:
        raise UsageError(
            f"{path} cannot be read as a torch.save file ({exc}): re-run the preprocessing with --overwrite"
        ) from None
    try:
        return _ShapeUnpickler(io.BytesIO(data)).load()
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, IndexError) as exc:
        raise UsageError(f"{path} is not a latents file the trainer wrote ({exc})") from None


def latent_size(path: str | Path, key: str = "latents") -> tuple[int, ...]:
    """The size of the `latents` tensor of a preprocessed sample."""
    obj = read_pt(path)
    value = obj.get(key) if isinstance(obj, dict) else None
    if not isinstance(value, TensorShape):
        raise UsageError(
            f"{path} has no {key!r} tensor: it is not what process_dataset.py "
            "writes; re-run the preprocessing"
        )
    return value.size
