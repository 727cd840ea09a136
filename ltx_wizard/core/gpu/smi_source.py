"""GPUs from `nvidia-smi` (the fallback when NVML cannot load) and from saved nvidia-smi CSV text."""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import threading
from pathlib import Path

from ltx_wizard.core.io.bounded import CSV_MAX_BYTES, read_text
from ltx_wizard.core.base.errors import UsageError, WizardError
from ltx_wizard.core.base.text_safety import clean_text
from ltx_wizard.core.gpu.devices import MIB, GpuInfo

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
    mib = float(match.group(1)) * _UNIT_MIB[match.group(2).lower()]
    if not mib < 2**40:  # no GPU has a petabyte; also catches an overflow to inf
        raise ValueError(f"memory size {text.strip()[:20]!r} is out of range")
    return int(mib)


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
                f"{origin}, line {lineno}: expected the columns {','.join(names)}, "
                f"got {clean_text(line)[:120]!r} "
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
    # Regular files only, size-capped; UTF-8 with or without BOM, or UTF-16 (Windows editors).
    file = Path(path).expanduser()
    try:
        text = read_text(file, what="--from-csv", limit=CSV_MAX_BYTES)
    except UsageError as exc:
        raise UsageError(f"{exc.message} (expected nvidia-smi CSV output)") from None
    return parse_smi_csv(text, origin=str(file))


SMI_MAX_BYTES = 256 * 1024  # a line per GPU; a flood past this is not a GPU list


def _run_capped(argv: list[str], timeout_s: float) -> tuple[int | None, str, str | None]:
    """(returncode, output, problem): output capped at SMI_MAX_BYTES, the whole run at timeout_s.
    The child is killed, never awaited without a limit (a process stuck in the driver)."""
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    chunks: list[bytes] = []
    state = {"over": False}

    def pump() -> None:
        total = 0
        assert isinstance(proc.stdout, io.BufferedReader)  # Popen's default buffering
        while chunk := proc.stdout.read1(65536):
            total += len(chunk)
            if total > SMI_MAX_BYTES:
                state["over"] = True
                proc.kill()
                return
            chunks.append(chunk)

    reader = threading.Thread(target=pump, name="nvidia-smi-reader", daemon=True)
    reader.start()
    reader.join(timeout_s)
    problem = None
    if reader.is_alive():
        problem = "timeout"
    elif state["over"]:
        problem = "flood"
    if problem:
        proc.kill()
    try:
        returncode = proc.wait(timeout=1.0 if problem else max(timeout_s, 1.0))
    except subprocess.TimeoutExpired:
        returncode, problem = None, problem or "timeout"
    return returncode, b"".join(chunks).decode("utf-8", "replace"), problem


def probe_nvidia_smi(timeout_s: float = 10.0) -> list[GpuInfo]:
    """Ask nvidia-smi; a hung or flooding driver costs at most `timeout_s` and SMI_MAX_BYTES."""
    exe = shutil.which("nvidia-smi")
    if exe is None:
        raise SmiUnavailable("nvidia-smi is not on PATH")
    try:
        returncode, out, problem = _run_capped([exe, *SMI_QUERY[1:]], timeout_s)
    except OSError as exc:
        raise SmiUnavailable(f"nvidia-smi could not start ({exc.strerror})") from None
    if problem == "timeout":
        raise SmiUnavailable(
            f"nvidia-smi did not answer within {timeout_s:g} s: the driver looks hung "
            "(check `dmesg`; the machine may need a reboot)"
        )
    if problem == "flood":
        raise SmiUnavailable(
            f"nvidia-smi printed over {SMI_MAX_BYTES // 1024} KB: that is not "
            "a GPU list; check the driver install"
        )
    if returncode != 0:
        first = next((line.strip() for line in out.splitlines() if line.strip()), "no output")
        raise SmiUnavailable(f"nvidia-smi failed (exit {returncode}): {clean_text(first)[:200]}")
    text = "\n".join(line for line in out.splitlines() if line.strip())
    if not text:
        return []
    try:
        return parse_smi_csv(text)
    except UsageError as exc:
        raise SmiUnavailable(f"nvidia-smi printed something unexpected: {exc.message}") from None
