"""Input errors: bad user input that stops one kernel (or one file), never the run.

Owns: `InputError`, the one exception the frontend raises for input it cannot accept, and its printed
form `path:line:col: PV000 input-error: <what>; <why>` (STYLE.md §6). The CLI turns each one into a
PV000 finding; the other kernels of the file and the other files still run. Also `read_source_bytes`, the
one way a kernel file or a module it imports is read: a regular file only (never a FIFO, a device or a
directory, never blocking), never past a symlink loop, never more than the size limit.
"""

from __future__ import annotations

import errno
import os
import stat

from pypto_verify.span import Span

MAX_FILE_SIZE = 4 * 1024 * 1024
"""The default `--max-file-size` (bytes): the largest real kernel file (pypto-lib's biggest model file) is
well under 1 MB; a bigger one is generated, or not source at all."""


class InputError(Exception):
    """Input we cannot accept, at *span*: *what* names the construct, *why* says what is wrong."""

    def __init__(self, span: Span, what: str, why: str = "") -> None:
        super().__init__(f"{what}; {why}" if why else what)
        self.span = span
        self.what = what
        self.why = why

    @property
    def message(self) -> str:
        return f"{self.what}; {self.why}" if self.why else self.what

    def __str__(self) -> str:
        return f"{self.span}: PV000 input-error: {self.message}"


class UnreadableSource(Exception):
    """A path that is not a kernel source file we may read: *what* it is, *why* it is not read."""

    def __init__(self, what: str, why: str) -> None:
        super().__init__(f"{what}; {why}")
        self.what = what
        self.why = why


def read_source_bytes(path: str | os.PathLike[str], limit: int = MAX_FILE_SIZE) -> bytes:
    """The bytes of the regular file at *path* (symlinks followed), at most *limit* of them.

    Raises `UnreadableSource` for anything else: a missing file, a dangling symlink or a loop, a FIFO, a
    socket, a device, a directory, a file over *limit* bytes. It opens with O_NONBLOCK and checks the opened
    file again, so a FIFO swapped in between is never waited on.
    """
    try:
        before = os.stat(path)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise UnreadableSource("unreadable file", "a symlink loop") from None
        if error.errno == errno.ENOENT and os.path.islink(path):
            raise UnreadableSource("unreadable file", "a dangling symlink") from None
        raise UnreadableSource("unreadable file", error.strerror or type(error).__name__) from None
    _check_regular(before, limit)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as error:
        raise UnreadableSource("unreadable file", error.strerror or type(error).__name__) from None
    try:
        _check_regular(os.fstat(fd), limit)
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as error:
        raise UnreadableSource("unreadable file", error.strerror or type(error).__name__) from None
    finally:
        os.close(fd)
    if size > limit:
        raise UnreadableSource("file too large", f"it has more than {limit} bytes; the limit is {limit} "
                                                 "bytes (--max-file-size)")
    return b"".join(chunks)


def _check_regular(info: os.stat_result, limit: int) -> None:
    mode = info.st_mode
    if not stat.S_ISREG(mode):
        kind = ("a directory" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) else
                "a socket" if stat.S_ISSOCK(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
                else "not a regular file")
        raise UnreadableSource("not a regular file", f"it is {kind}; a kernel file is Python source text")
    if info.st_size > limit:
        raise UnreadableSource("file too large", f"it has {info.st_size} bytes; the limit is {limit} bytes "
                                                 "(--max-file-size)")
