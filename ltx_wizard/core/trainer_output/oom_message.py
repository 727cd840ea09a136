"""The memory a trial held when torch ran out, read from torch's own out-of-memory message.

torch's caching allocator (c10/cuda/CUDACachingAllocator.cpp) raises, since torch 2.1:
`CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.19 GiB of
which 812.00 MiB is free. Including non-PyTorch memory, this process has 78.39 GiB memory in use.
Of the allocated memory 76.91 GiB is allocated by PyTorch, and 1.02 GiB is reserved by PyTorch
but unallocated. ...` (other processes as `Process 123 has 1.50 GiB memory in use.`); before 2.1:
`Tried to allocate 20.00 MiB (GPU 0; 15.78 GiB total capacity; 14.56 GiB already allocated;
3.12 MiB free; 14.70 GiB reserved in total by PyTorch)`. Sizes use torch's format_size: bytes,
KiB, MiB or GiB. The OOM row shows this figure: it is what the process held as it died, which a
4 Hz sampler can miss (the failing allocation's spike lasts microseconds).
"""

from __future__ import annotations

import re

_SIZE = r"([\d.]+)\s*(bytes|KiB|MiB|GiB|TiB)"
_SCALE = {"bytes": 1 / 1024**3, "KiB": 1 / 1024**2, "MiB": 1 / 1024, "GiB": 1.0, "TiB": 1024.0}
# In order of preference: the whole process (torch >= 2.1), then what PyTorch reserved (older).
_PATTERNS = (
    re.compile(r"this process has " + _SIZE + r" memory in use"),
    re.compile(_SIZE + r" reserved in total by PyTorch"),
    re.compile(_SIZE + r" is allocated by PyTorch"),
    re.compile(_SIZE + r" already allocated"),
)


def in_use_gib(message: str) -> float | None:
    """The memory in use that torch's OOM message states, in GiB; None when it states none."""
    for pattern in _PATTERNS:
        m = pattern.search(message)
        if m:
            try:
                return round(float(m.group(1)) * _SCALE[m.group(2)], 2)
            except ValueError:
                continue
    return None
