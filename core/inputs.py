"""Reading an input file, bounded: `read_input_bytes` and `read_input_text`, or a
line at a time (`input_lines`); `check_input_file` to refuse one before work starts, with
the same words.

Every reader of a scene, template, suite, manifest, trajectory, predictions file,
experience log, episodes file, Habitat config, URDF or mesh reads through here, so the
same rules hold everywhere: regular files only (a directory, a fifo or `/dev/zero` is
refused before a byte is read), at most the size limit of the input's kind
(`fdc.core.limits`), read with a bounded read, gzip input (episodes) decompressed no
further than that limit, and UTF-8 faults located. Every fault is an `InputFileError`
whose message names the file.
See docs/limits.md.
"""

from __future__ import annotations

import os
import stat
import zlib
from collections.abc import Iterator
from enum import StrEnum
from pathlib import Path
from typing import BinaryIO

from fdc.core.errors import InputError
from fdc.core.limits import current, hint

_GZIP_MAGIC = b"\x1f\x8b"
_CHUNK = 1 << 20


class InputKind(StrEnum):
    """What an input file holds; each kind has its size limit, `<kind>_bytes`."""

    SCENE = "scene"
    TEMPLATE = "template"
    SUITE = "suite"
    MANIFEST = "manifest"
    TRAJECTORY = "trajectory"
    PREDICTIONS = "predictions"
    EXPERIENCE = "experience"
    EPISODES = "episodes"  # PARTNR and Habitat episodes, gzip-compressed or plain
    HABITAT_CONFIG = "habitat_config"
    URDF = "urdf"  # an articulated object of a Habitat dataset
    MESH = "mesh"

    @property
    def limit(self) -> str:
        """The name of this kind's size limit."""
        return f"{self.value}_bytes"


class InputFileError(InputError):
    """An input file that cannot be read: missing, not a regular file, over its size
    limit, not valid gzip or not UTF-8. `reason` says why (without the file, to follow
    "cannot read the file: "); `hint`, when there is one, how to get past it."""

    def __init__(self, path: str | Path, reason: str, hint: str = "") -> None:
        super().__init__(f"{path}: {reason}")
        self.path = str(path)
        self.reason = reason
        self.hint = hint

    def __str__(self) -> str:
        return self.reason + (f" ({self.hint})" if self.hint else "")

    def __reduce__(self) -> tuple[type[InputFileError], tuple[str, str, str]]:
        """Pickled with its arguments: it crosses from a compile worker to the CLI."""
        return type(self), (self.path, self.reason, self.hint)


def read_input_bytes(path: str | Path, kind: InputKind) -> bytes:
    """The bytes of input file `path`, at most `kind`'s size limit (gzip-compressed
    episodes: decompressed, the limit bounding the unpacked size)."""
    cap = getattr(current(), kind.limit)
    with os.fdopen(_open_regular(path), "rb") as f:
        try:
            data = f.read(cap + 1)
        except OSError as e:
            raise InputFileError(path, f"{e.strerror}") from None
    if len(data) > cap:
        raise _too_large(path, kind, cap)
    if kind is InputKind.EPISODES and data[:2] == _GZIP_MAGIC:
        return _gunzip(path, data, kind, cap)
    return data


def check_input_file(path: str | Path) -> None:
    """`InputFileError` if `path` could not be read as an input file (missing, not a
    regular file): the check a command makes before it starts work, in the reader's
    words."""
    os.close(_open_regular(path))


def _open_regular(path: str | Path) -> int:
    """A read-only descriptor of regular file `path`; nothing else is opened for long."""
    try:
        # O_NONBLOCK: opening a fifo must not wait for a writer before fstat refuses it.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as e:
        raise InputFileError(path, f"{e.strerror}") from None
    except ValueError:  # a NUL in the path
        raise InputFileError(path, "not a valid path") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise InputFileError(path, "not a regular file")
    return fd


def read_input_text(path: str | Path, kind: InputKind) -> str:
    """`read_input_bytes` decoded as UTF-8; bytes that are not UTF-8 are an error naming
    the line and column where they start."""
    data = read_input_bytes(path, kind)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        column = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        raise InputFileError(path, f"not UTF-8 text: byte 0x{data[e.start]:02x} at line "
                             f"{line}, column {column}") from None


def input_lines(path: str | Path, kind: InputKind) -> Iterator[str]:
    """The lines of text input file `path` one at a time, split as `str.splitlines`
    splits `read_input_text`'s text, so that a streamed file's lines are numbered as a
    read one's: memory holds one line, whatever the file's size. The file is opened, and
    its size checked against `kind`'s limit, at the call (not at the first line), so
    the faults of `read_input_text` come first; bytes that are not UTF-8 stop the lines
    there with the same located error. Not for gzip input."""
    fd = _open_regular(path)
    cap = getattr(current(), kind.limit)
    if os.fstat(fd).st_size > cap:
        os.close(fd)
        raise _too_large(path, kind, cap)
    return _lines(path, os.fdopen(fd, "rb"), cap, kind)


def _lines(path: str | Path, f: BinaryIO, cap: int, kind: InputKind) -> Iterator[str]:
    with f:
        seen = 0
        for number, raw in enumerate(f, 1):  # a file's lines end at b"\n" only
            seen += len(raw)
            if seen > cap:  # it grew since it was opened
                raise _too_large(path, kind, cap)
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                raise InputFileError(path, f"not UTF-8 text: byte 0x{raw[e.start]:02x} at "
                                     f"line {number}, column {e.start + 1}") from None
            yield from text.splitlines()


def _gunzip(path: str | Path, data: bytes, kind: InputKind, cap: int) -> bytes:
    """Gzip `data` decompressed, never past `cap` bytes (a small file can unpack to
    gigabytes: the output is bounded as it is produced)."""
    inflate = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    out = bytearray()
    pending = data
    try:
        while pending and not inflate.eof:
            out += inflate.decompress(pending, min(_CHUNK, cap + 1 - len(out)))
            if len(out) > cap:
                raise _too_large(path, kind, cap, unpacked=True)
            pending = inflate.unconsumed_tail
        out += inflate.flush()
    except zlib.error as e:
        raise InputFileError(path, f"not a valid gzip file: {e}") from None
    if not inflate.eof:
        raise InputFileError(path, "not a valid gzip file: it ends before its data does")
    if len(out) > cap:
        raise _too_large(path, kind, cap, unpacked=True)
    return bytes(out)


def _too_large(path: str | Path, kind: InputKind, cap: int, unpacked: bool = False
               ) -> InputFileError:
    what = "unpacks to more than" if unpacked else "is larger than"
    return InputFileError(path, f"the {kind.value.replace('_', ' ')} file {what} {cap} "
                          f"bytes, the limit `{kind.limit}`", hint(kind.limit))
