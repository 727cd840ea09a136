"""The one way to read a file the wizard did not write: regular files only, bounded in size and
time, text decoded with a named error, numbers bounded before int(), nesting bounded, CSV fields
up to the file's own cap.

Every file the wizard reads is small (configs, dataset files, run.json, pid records, headers), so
a cap far above the real sizes costs nothing and stops /dev/zero, a FIFO, a 38 MB config or a
billion-laughs document from eating memory or time. The file is opened with O_NONBLOCK (a FIFO
without a writer must not block the open) and fstat()ed before a byte is read; a read that
trickles (a dying disk, a hung network mount that still answers) ends at a generous clock cap
with a machine failure, never a hang.
"""

from __future__ import annotations

import csv
import errno
import io
import json
import os
import re
import stat
import time
from typing import BinaryIO, NoReturn

from ltx_wizard.core.base.errors import UsageError, WizardError

CONFIG_MAX_BYTES = 2 * 2**20  # the shipped configs are ~15 KB
CSV_MAX_BYTES = 1 * 2**20  # nvidia-smi CSV: a line per GPU
JSON_MAX_BYTES = 4 * 2**20  # Gemma config.json, run.json
JSON_MAX_DEPTH = 64  # real headers and configs nest 3-5 deep
# A healthy disk reads any capped file in well under a second, even on a busy box; this only
# ends a read from a mount that trickles or stalls between answers.
READ_MAX_S = 60.0
_CHUNK = 1 << 20

_KINDS = {
    stat.S_IFIFO: "a FIFO (named pipe)",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
    stat.S_IFDIR: "a directory",
}
UTF8_BOM, UTF16_BOMS = b"\xef\xbb\xbf", (b"\xff\xfe", b"\xfe\xff")


def _open_error(path: str | os.PathLike[str], what: str, exc: OSError) -> WizardError:
    if isinstance(exc, FileNotFoundError):
        return UsageError(f"{what} {path}: no such file: check the path")
    if isinstance(exc, IsADirectoryError):
        return UsageError(f"{what} {path} is a directory: pass a file")
    if exc.errno == errno.ENAMETOOLONG:
        return UsageError(f"{what} path is too long ({len(str(path))} characters): {str(path)[:80]}...")
    if exc.errno == errno.ELOOP:
        return UsageError(f"{what} {path} is a symlink loop: point it at the real file")
    try:  # a socket refuses open() itself (ENXIO): name what it is
        mode = os.stat(path).st_mode
    except OSError:
        mode = stat.S_IFREG
    if not stat.S_ISREG(mode):
        kind = _KINDS.get(stat.S_IFMT(mode), "not a regular file")
        return UsageError(f"{what} {path} is {kind}: pass a regular file")
    return UsageError(f"{what} {path} cannot be read ({exc.strerror}): check it")


def read_bytes(path: str | os.PathLike[str], *, what: str, limit: int, max_s: float = READ_MAX_S) -> bytes:
    """The whole regular file `path`, refused when larger than `limit` bytes or not regular."""
    fd = _open_regular_fd(path, what)
    try:
        st = os.fstat(fd)
        if st.st_size > limit:
            raise UsageError(
                f"{what} {path} is {st.st_size} bytes, over the {limit // 1024} KB "
                "limit for such a file: pass the right file"
            )
        return _read_capped(fd, path, what, limit, max_s)
    except OSError as exc:
        raise UsageError(f"{what} {path} cannot be read ({exc.strerror}): check it") from None
    finally:
        os.close(fd)


def _open_regular_fd(path: str | os.PathLike[str], what: str) -> int:
    """A descriptor of `path`, opened without blocking (a FIFO is never waited on) and refused
    unless it is a regular file."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise _open_error(path, what, exc) from None
    try:
        mode = os.fstat(fd).st_mode
    except OSError as exc:
        os.close(fd)
        raise UsageError(f"{what} {path} cannot be read ({exc.strerror}): check it") from None
    if not stat.S_ISREG(mode):
        os.close(fd)
        kind = _KINDS.get(stat.S_IFMT(mode), "not a regular file")
        raise UsageError(f"{what} {path} is {kind}: pass a regular file")
    return fd


def read_tail(path: str | os.PathLike[str], *, what: str, size: int = 64 * 1024) -> bytes:
    """The last `size` bytes of a regular file (a log's end, where its cause is)."""
    fd = _open_regular_fd(path, what)
    try:
        st = os.fstat(fd)
        os.lseek(fd, max(0, st.st_size - size), os.SEEK_SET)
        return _read_capped(fd, path, what, size, READ_MAX_S)
    except OSError as exc:
        raise UsageError(f"{what} {path} cannot be read ({exc.strerror}): check it") from None
    finally:
        os.close(fd)


def _read_capped(fd: int, path: object, what: str, limit: int, max_s: float) -> bytes:
    chunks: list[bytes] = []
    total = 0
    deadline = time.monotonic() + max_s
    while True:  # the size may grow while we read: the cap holds regardless
        chunk = os.read(fd, min(_CHUNK, limit + 1 - total))
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        total += len(chunk)
        if total > limit:
            raise UsageError(
                f"{what} {path} is over the {limit // 1024} KB limit for such a file: pass the right file"
            )
        if time.monotonic() > deadline:
            raise WizardError(
                f"{what} {path}: reading {total} bytes took over {max_s:.0f} s "
                "(a failing disk or a mount that stalls): check it and retry"
            )


def _bad_byte(data: bytes, exc: UnicodeDecodeError) -> str:
    """`byte 0xff at line 3`: where the first undecodable byte is, for the message."""
    line = data.count(b"\n", 0, exc.start) + 1
    return f"byte 0x{data[exc.start]:02x} at line {line}"


def decode_text(data: bytes, *, what: str, path: object) -> str:
    """UTF-8 (with or without BOM) or UTF-16 with a BOM; anything else is refused, naming the
    first byte that is not text."""
    if data.startswith(UTF16_BOMS):
        encoding = "utf-16"
    elif data.startswith(UTF8_BOM):
        encoding = "utf-8-sig"
    else:
        encoding = "utf-8"
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise UsageError(
            f"{what} {path} is not UTF-8 or UTF-16 text ({_bad_byte(data, exc)}): save it as UTF-8"
        ) from None


def decode_utf8(data: bytes, *, what: str, path: object, reader: str, bom_ok: bool = False) -> str:
    """Plain UTF-8 as a reader that opens with encoding="utf-8" sees it: a UTF-16 file is refused,
    and so is a UTF-8 byte-order mark unless that reader skips it (`bom_ok`); `reader` names who
    would refuse it, for the message."""
    if data.startswith(UTF16_BOMS):
        raise UsageError(f"{what} {path} is UTF-16 text, but {reader} reads UTF-8 only: save it as UTF-8")
    if data.startswith(UTF8_BOM):
        if not bom_ok:
            raise UsageError(
                f"{what} {path} starts with a byte-order mark (BOM), which {reader} "
                "refuses: save it as UTF-8 without BOM"
            )
        data = data[len(UTF8_BOM) :]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(
            f"{what} {path} is not UTF-8 text ({_bad_byte(data, exc)}): save it as UTF-8"
        ) from None


def read_text(path: str | os.PathLike[str], *, what: str, limit: int = CONFIG_MAX_BYTES) -> str:
    return decode_text(read_bytes(path, what=what, limit=limit), what=what, path=path)


# -- paths ------------------------------------------------------------------------------------

PATH_MAX_BYTES, NAME_MAX_BYTES = 4096, 255  # Linux PATH_MAX (with its NUL) and NAME_MAX


def path_length_problem(path: str | os.PathLike[str]) -> str | None:
    """Why the system would refuse `path` for its length (ENAMETOOLONG), in words; None if not.
    Checked before any stat, so a 5,000-character path is a message, never an OSError."""
    raw = os.fsencode(path) if isinstance(path, os.PathLike) else str(path).encode("utf-8", "surrogatepass")
    if len(raw) >= PATH_MAX_BYTES:
        return f"the path is {len(raw)} bytes long (the system takes {PATH_MAX_BYTES - 1})"
    longest = max(raw.split(b"/"), key=len, default=b"")
    if len(longest) > NAME_MAX_BYTES:
        return f"one name in the path is {len(longest)} bytes long (the system takes {NAME_MAX_BYTES})"
    return None


# -- numbers ----------------------------------------------------------------------------------

_WHOLE = re.compile(r"[+-]?[0-9]+")
_DIGITS = re.compile(r"[0-9]+")


def bounded_int(
    text: object, *, what: str, lo: int, hi: int, max_digits: int = 19, signed: bool = True
) -> int:
    """A whole number from text, checked before int(): ASCII digits only (no '²', no '1_0'; a
    sign only when `signed`), at most `max_digits` of them (a 5,000-digit value never reaches
    int()), within lo..hi."""
    raw = str(text).strip()
    digits = raw.lstrip("+-") if signed else raw
    pattern = _WHOLE if signed else _DIGITS
    if not pattern.fullmatch(raw[: max_digits + 2]) or len(digits) > max_digits:
        raise UsageError(
            f"{what} {raw[:24]!r}{'...' if len(raw) > 24 else ''} is not a whole number from {lo} to {hi}"
        )
    value = int(raw)
    if not lo <= value <= hi:
        raise UsageError(f"{what} {value} is out of range ({lo} to {hi})")
    return value


def json_int(value: object, *, what: str, lo: int, hi: int) -> int:
    """A JSON number that must be a whole number within lo..hi (true/false are not numbers)."""
    if isinstance(value, bool) or not isinstance(value, int):
        shown = (
            repr(value)[:24]
            if isinstance(value, (str, float, bool)) or value is None
            else type(value).__name__
        )
        raise UsageError(f"{what} is {shown}, not a whole number")
    if not lo <= value <= hi:
        raise UsageError(f"{what} is {value}, out of range ({lo} to {hi})")
    return value


# -- CSV ----------------------------------------------------------------------------------------


def csv_records(text: str, *, what: str, field_cap: int) -> list[tuple[int, list[str]]]:
    """(line where the record starts, its fields) for each record of a CSV text; every line
    ending (\\n, \\r\\n, \\r) ends a record outside quotes. A field may be as large as the file
    itself (`field_cap`: the file's own size cap, never csv's 128 KB default); a quote left open
    to the end of the file is refused, naming the line it opens on, before any record is used."""
    if csv.field_size_limit() < field_cap:
        # process-wide, raised only: a larger limit never refuses what a smaller one read
        csv.field_size_limit(field_cap)
    reader = csv.reader(io.StringIO(text, newline=""), strict=False)
    records: list[tuple[int, list[str]]] = []
    start = 1
    try:
        for fields in reader:
            records.append((start, fields))
            start = reader.line_num + 1
    except csv.Error as exc:
        raise UsageError(f"{what}: line {reader.line_num} cannot be read as CSV ({exc}): fix it") from None
    if records:
        _refuse_open_quote(text, records[-1][0], what)
    return records


def _refuse_open_quote(text: str, last_start: int, what: str) -> None:
    """The lenient reader takes a quote left open as one field to the end of the file; the strict
    one says so. Only the last record can hold it (it runs to the end)."""
    if '"' not in text:
        return
    lines = io.StringIO(text, newline="").readlines()
    begin = last_start
    try:
        for _ in csv.reader(lines[begin - 1 :], strict=True):
            pass
    except csv.Error as exc:
        if "unexpected end of data" in str(exc):
            raise UsageError(
                f"{what}: the quote opened on line {begin} is never closed (the "
                "rest of the file reads as one cell): close it"
            ) from None


# -- JSON ---------------------------------------------------------------------------------------


def _no_constant(name: str) -> NoReturn:
    raise ValueError(f"non-finite number {name}")


def _finite_float(text: str) -> float:
    value = float(text)
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"number {text[:20]} is out of range")
    return value


def _depth(doc: object, limit: int) -> bool:
    """True when `doc` nests no deeper than `limit` (iterative: deep input cannot recurse us)."""
    stack = [(doc, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, (dict, list)):
            if depth > limit:
                return False
            values = node.values() if isinstance(node, dict) else node
            stack.extend((v, depth + 1) for v in values if isinstance(v, (dict, list)))
    return True


def loads_json(
    text: str | bytes,
    *,
    what: str,
    max_depth: int | None = JSON_MAX_DEPTH,
    invalid: str | None = None,
    fix: str = "not a real header or config; download it again",
) -> object:
    """json.loads with NaN/Infinity refused, nesting capped; UsageError names `what`.

    max_depth None: only the parser's own recursion limit (about 1,000 levels, caught here), for
    a caller that type-checks every value it keeps and never walks the rest (the walk costs more
    than the parse on big docs). Integers past 4,300 digits are refused by the parser itself."""
    try:
        doc = json.loads(text, parse_constant=_no_constant, parse_float=_finite_float)
    except RecursionError:
        levels = f"{max_depth} levels" if max_depth is not None else "the parser's limit"
        raise UsageError(f"{what} nests deeper than {levels}: {fix}") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise UsageError(
            invalid or f"{what} is not valid JSON ({str(exc)[:80]}): {fix.split('; ')[-1]}"
        ) from None
    if max_depth is not None and not _depth(doc, max_depth):
        raise UsageError(f"{what} nests deeper than {max_depth} levels: {fix}")
    return doc


class NotRegularFile(UsageError):
    """`open_regular` met a FIFO, a device, a socket or a folder where a file was expected."""

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind


def open_regular(path: str | os.PathLike[str], *, what: str) -> BinaryIO | None:
    """`path` opened for reading in pieces (a growing log) without blocking, or None when it does
    not exist. O_NONBLOCK: opening a FIFO without a writer returns at once; fstat before any
    read: a FIFO, device, socket or folder raises NotRegularFile naming it."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return None
    except OSError as exc:
        try:  # a socket refuses open() itself (ENXIO), a folder too (EISDIR): name what it is
            mode = os.stat(path).st_mode
        except OSError:
            mode = stat.S_IFREG
        if not stat.S_ISREG(mode):
            kind = _KINDS.get(stat.S_IFMT(mode), "not a regular file")
            raise NotRegularFile(f"{what} {path} is {kind}, not a file", kind) from None
        raise UsageError(f"{what} {path} cannot be read ({exc.strerror}): check it") from None
    try:
        mode = os.fstat(fd).st_mode
    except OSError as exc:
        os.close(fd)
        raise UsageError(f"{what} {path} cannot be read ({exc.strerror}): check it") from None
    if not stat.S_ISREG(mode):
        os.close(fd)
        kind = _KINDS.get(stat.S_IFMT(mode), "not a regular file")
        raise NotRegularFile(f"{what} {path} is {kind}, not a file", kind)
    return os.fdopen(fd, "rb")
