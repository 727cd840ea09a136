"""GPUs from `nvidia-smi` (the fallback when NVML cannot load) and from saved nvidia-smi CSV text."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from ltx_wizard.core.errors import UsageError, WizardError
from ltx_wizard.core.gpu import MIB, GpuInfo

SMI_QUERY = [
    "nvidia-smi",
    "--query-gpu=index,name,memory.total,uuid",
    "--format=csv,noheader,nounits",
]
_UNIT_MIB = {"mib": 1, "gib": 1024, "mb": 1, "gb": 1024, "": 1}
_MEMORY = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*$")
_NA = {"[n/a]", "n/a", "[not supported]", "not supported", ""}


class SmiUnavailable(WizardError):
    pass


def parse_memory_mib(text: str) -> int | None:
    """'24564', '24564 MiB', '24 GiB' -> MiB; '[N/A]' -> None; anything else -> ValueError."""
    if text.strip().lower() in _NA:
        return None
    match = _MEMORY.match(text)
    if not match or match.group(2).lower() not in _UNIT_MIB:
        raise ValueError(f"not a memory size: {text.strip()!r}")
    return int(float(match.group(1)) * _UNIT_MIB[match.group(2).lower()])


def _is_header(cells: list[str]) -> bool:
    return any(cell.strip().lower().startswith(("name", "memory.total", "index")) for cell in cells)


def parse_smi_csv(text: str, origin: str = "nvidia-smi output") -> list[GpuInfo]:
    """Parse nvidia-smi CSV: `name,memory.total` or `index,name,memory.total,uuid`, header optional."""
    columns: list[str] | None = None
    gpus: list[GpuInfo] = []
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        cells = [cell.strip() for cell in line.split(",")]
        if _is_header(cells):
            columns = [cell.split(" ")[0].lower() for cell in cells]
            continue
        names = columns or (
            ["index", "name", "memory.total", "uuid"] if len(cells) == 4 else ["name", "memory.total"]
        )
        if len(cells) != len(names) or "name" not in names or "memory.total" not in names:
            raise UsageError(
                f"{origin}, line {lineno}: expected the columns {','.join(names)}, got {line!r} "
                "(save `nvidia-smi --query-gpu=name,memory.total --format=csv`)"
            )
        row = dict(zip(names, cells))
        try:
            mib = parse_memory_mib(row["memory.total"])
            index = int(row["index"]) if "index" in row else len(gpus)
        except ValueError as exc:
            raise UsageError(f"{origin}, line {lineno}: {exc}") from None
        uuid = row.get("uuid") or None
        gpus.append(
            GpuInfo(
                index=index,
                name=row["name"],
                memory_total_bytes=None if mib is None else mib * MIB,
                uuid=None if uuid and uuid.lower() in _NA else uuid,
            )
        )
    if not gpus:
        raise UsageError(f"{origin}: no GPU rows found")
    return gpus


def read_csv_file(path: str) -> list[GpuInfo]:
    file = Path(path).expanduser()
    try:
        text = file.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        raise UsageError(f"--from-csv {path}: no such file") from None
    except IsADirectoryError:
        raise UsageError(f"--from-csv {path}: is a directory, expected a CSV file") from None
    except OSError as exc:
        raise UsageError(f"--from-csv {path}: cannot read it ({exc.strerror})") from None
    return parse_smi_csv(text, origin=str(file))


def probe_nvidia_smi(timeout_s: float = 10.0) -> list[GpuInfo]:
    """Ask nvidia-smi; a hung driver costs at most `timeout_s` (the child is killed, not awaited)."""
    exe = shutil.which("nvidia-smi")
    if exe is None:
        raise SmiUnavailable("nvidia-smi is not on PATH")
    try:
        proc = subprocess.Popen(
            [exe, *SMI_QUERY[1:]],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
        )
    except OSError as exc:
        raise SmiUnavailable(f"nvidia-smi could not start ({exc.strerror})") from None
    try:
        out, _ = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        try:  # a process stuck in the driver may not even die; do not wait on it for long
            proc.communicate(timeout=1.0)
        except subprocess.TimeoutExpired:
            pass
        raise SmiUnavailable(
            f"nvidia-smi did not answer within {timeout_s:g} s: the driver looks hung "
            "(check `dmesg`; the machine may need a reboot)"
        ) from None
    if proc.returncode != 0:
        first = next((line.strip() for line in out.splitlines() if line.strip()), "no output")
        raise SmiUnavailable(f"nvidia-smi failed (exit {proc.returncode}): {first}")
    text = "\n".join(line for line in out.splitlines() if line.strip())
    if not text:
        return []
    try:
        return parse_smi_csv(text)
    except UsageError as exc:
        raise SmiUnavailable(f"nvidia-smi printed something unexpected: {exc.message}") from None
