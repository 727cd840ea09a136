"""Reads with limits: regular files only, size-capped, JSON depth-limited and finite.

Every file the wizard reads is small (configs, CSV, JSON headers), so a cap far above the real
sizes costs nothing and stops /dev/zero, a FIFO, a 38 MB config or a billion-laughs document
from eating memory or time. The file is opened with O_NONBLOCK (a FIFO without a writer must
not block the open) and fstat()ed before a byte is read.
"""

from __future__ import annotations

import errno
import json
import os
import stat

from ltx_wizard.core.base.errors import UsageError

CONFIG_MAX_BYTES = 2 * 2**20  # the shipped configs are ~15 KB
CSV_MAX_BYTES = 1 * 2**20  # nvidia-smi CSV: a line per GPU
JSON_MAX_BYTES = 4 * 2**20  # Gemma config.json, run.json
JSON_MAX_DEPTH = 64  # real headers and configs nest 3-5 deep

_KINDS = {stat.S_IFIFO: "a FIFO (named pipe)", stat.S_IFCHR: "a character device",
          stat.S_IFBLK: "a block device", stat.S_IFSOCK: "a socket", stat.S_IFDIR: "a directory"}


def read_bytes(path: str | os.PathLike, *, what: str, limit: int) -> bytes:
    """The whole regular file `path`, refused when larger than `limit` bytes or not regular."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise UsageError(f"{what} {path}: no such file: check the path") from None
    except IsADirectoryError:
        raise UsageError(f"{what} {path} is a directory: pass a file") from None
    except OSError as exc:
        if exc.errno == errno.ENAMETOOLONG:
            raise UsageError(f"{what} path is too long: {str(path)[:80]}...") from None
        raise UsageError(f"{what} {path} cannot be read ({exc.strerror}): check it") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = _KINDS.get(stat.S_IFMT(st.st_mode), "not a regular file")
            raise UsageError(f"{what} {path} is {kind}: pass a regular file")
        if st.st_size > limit:
            raise UsageError(f"{what} {path} is {st.st_size} bytes, over the {limit // 1024} KB "
                             "limit for such a file: pass the right file")
        chunks, total = [], 0
        while True:  # the size may grow while we read: the cap holds regardless
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise UsageError(f"{what} {path} is over the {limit // 1024} KB limit for such a "
                                 "file: pass the right file")
        return b"".join(chunks)
    except OSError as exc:
        raise UsageError(f"{what} {path} cannot be read ({exc.strerror}): check it") from None
    finally:
        os.close(fd)


def decode_text(data: bytes, *, what: str, path: object) -> str:
    """UTF-8 (with or without BOM) or UTF-16 with a BOM; anything else is refused."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        encoding = "utf-16"
    elif data.startswith(b"\xef\xbb\xbf"):
        encoding = "utf-8-sig"
    else:
        encoding = "utf-8"
    try:
        return data.decode(encoding)
    except UnicodeDecodeError:
        raise UsageError(f"{what} {path} is not UTF-8 or UTF-16 text: save it as UTF-8") from None


def read_text(path: str | os.PathLike, *, what: str, limit: int = CONFIG_MAX_BYTES) -> str:
    return decode_text(read_bytes(path, what=what, limit=limit), what=what, path=path)


def _no_constant(name: str):
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


def loads_json(text: str | bytes, *, what: str, max_depth: int | None = JSON_MAX_DEPTH,
               invalid: str | None = None) -> object:
    """json.loads with NaN/Infinity refused, nesting capped; UsageError names `what`.

    max_depth None: only the parser's own recursion limit, for a caller that type-checks every
    value it keeps and never walks the rest (the walk costs more than the parse on big docs)."""
    try:
        doc = json.loads(text, parse_constant=_no_constant, parse_float=_finite_float)
    except RecursionError:
        levels = f"{max_depth} levels" if max_depth is not None else "the parser's limit"
        raise UsageError(f"{what} nests deeper than {levels}: not a real header or "
                         "config; download it again") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise UsageError(invalid or f"{what} is not valid JSON ({str(exc)[:80]}): download it "
                         "again") from None
    if max_depth is not None and not _depth(doc, max_depth):
        raise UsageError(f"{what} nests deeper than {max_depth} levels: not a real header or "
                         "config; download it again")
    return doc


class NotRegularFile(UsageError):
    """`open_regular` met a FIFO, a device, a socket or a folder where a file was expected."""

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind


def open_regular(path: str | os.PathLike, *, what: str):
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
