"""Output files: written whole or not at all, and only where the user said.

`Outputs` stages each file as a hidden temporary file beside its target and renames them
all into place on `commit`; an error or an interrupt before that removes every temporary
file and every folder it made, so a run leaves the old files or the new, never a part.
`write_atomic` is the one-file case. A target that exists and is not a regular file (a
folder, a device such as `/dev/full`, a fifo, a symlink to one) is refused, never
replaced. `FileNames` derives file names from ids (task ids) so that each stays inside
its folder and no two collide, even on a case-insensitive file system. Every failure is
an `OutputError` naming the path and why.
See docs/architecture.md.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType

from fdc.core.errors import OutputError

_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a named pipe (fifo)"),
          (stat.S_ISSOCK, "a socket"))
_MAX_NAME_BYTES = 255  # a file name's limit on common file systems


def not_writable(path: Path, *, folder: bool = False) -> str:
    """Why `path` cannot be written as a file (or, `folder`, as a folder of outputs):
    it exists and is something else. "" when it is new or of the right kind."""
    try:
        mode = path.stat().st_mode  # through symlinks: a link to a device is a device
    except FileNotFoundError:
        return ""
    except OSError as e:  # a part of the path is a file, a loop of links, ...
        return f"cannot be reached: {e.strerror or e}"
    if folder:
        return "" if stat.S_ISDIR(mode) else "exists and is not a folder"
    if stat.S_ISREG(mode):
        return ""
    kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
    return f"is {kind}, not a regular file; fdc writes only new or regular files"


def cannot_write(path: Path, why: OSError | str) -> OutputError:
    reason = why if isinstance(why, str) else (why.strerror or str(why))
    return OutputError(f"cannot write {path}: {reason}")


class Outputs:
    """A set of files written together: `write` stages each, `commit` puts them all in
    place (in the order written). Used as a context manager, it commits on success and
    discards on any exception, `KeyboardInterrupt` included."""

    def __init__(self) -> None:
        self._staged: list[tuple[Path, Path]] = []  # (temporary file, target)
        self._made: list[Path] = []  # folders this set created, outermost first

    def __enter__(self) -> Outputs:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 tb: TracebackType | None) -> None:
        if kind is None:
            self.commit()
        else:
            self.discard()

    def write(self, path: Path, data: str | bytes) -> None:
        """Stage `data` for `path` (`OutputError`: the path cannot be written)."""
        self.write_lines(path, (data,))

    def write_lines(self, path: Path, chunks: Iterable[str | bytes]) -> str:
        """Stage the concatenation of `chunks` for `path`, streamed (never whole in
        memory): the hex sha256 of what was written."""
        why = not_writable(path)
        if why:
            raise cannot_write(path, why)
        self.folder(path.parent)
        try:
            mode = path.stat().st_mode & 0o7777  # keep a replaced file's permissions
        except OSError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        try:
            fd, name = tempfile.mkstemp(prefix=f".{path.name[:64]}.", suffix=".tmp",
                                        dir=path.parent)
        except OSError as e:
            raise cannot_write(path, e) from None
        tmp = Path(name)
        self._staged.append((tmp, path))
        digest = hashlib.sha256()
        try:
            with os.fdopen(fd, "wb") as f:
                for chunk in chunks:
                    data = chunk.encode("utf-8") if isinstance(chunk, str) else chunk
                    digest.update(data)
                    f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.chmod(tmp, mode)
        except OSError as e:
            raise cannot_write(path, e) from None
        return digest.hexdigest()

    def folder(self, path: Path) -> None:
        """Make the folder `path` (and its parents), remembering what it made."""
        missing: list[Path] = []
        at = path
        while not at.is_dir():
            if at.exists() or at.is_symlink():
                raise cannot_write(path, f"{at} exists and is not a folder")
            missing.append(at)
            if at.parent == at:
                break
            at = at.parent
        for p in reversed(missing):
            try:
                p.mkdir()
            except FileExistsError:
                continue
            except OSError as e:
                raise cannot_write(path, e) from None
            self._made.append(p)

    def commit(self) -> None:
        """Rename every staged file into place; nothing stays staged."""
        for _, path in self._staged:
            why = not_writable(path)  # changed since it was staged?
            if why:
                self.discard()
                raise cannot_write(path, why)
        try:
            while self._staged:
                tmp, path = self._staged[0]
                os.replace(tmp, path)
                self._staged.pop(0)
        except OSError as e:
            self.discard()
            raise cannot_write(path, e) from None
        self._made.clear()

    def discard(self) -> None:
        """Remove every staged file and the folders made for them (when left empty)."""
        for tmp, _ in self._staged:
            with contextlib.suppress(OSError):
                tmp.unlink()
        self._staged.clear()
        for p in reversed(self._made):
            with contextlib.suppress(OSError):
                p.rmdir()
        self._made.clear()


def write_atomic(path: Path, data: str | bytes) -> None:
    """Replace `path` with `data` so readers see the old file or the new, never half
    (`OutputError`: it cannot be written)."""
    with Outputs() as out:
        out.write(path, data)


class FileNames:
    """File names made from ids, inside one folder: each a single plain name (no path
    separator, not hidden, at most 255 bytes), and no two equal when case is ignored
    (`OutputError` names both ids: on a case-insensitive file system one file would
    overwrite the other)."""

    def __init__(self, folder: Path, *reserved: str) -> None:
        self.folder = folder
        self._owner: dict[str, str] = {name.casefold(): name for name in reserved}

    def path(self, ident: str, suffix: str) -> Path:
        """The file of `ident` with `suffix` (the same path for the same arguments)."""
        name = ident + suffix
        if (name.startswith(".") or "/" in name or "\\" in name or "\0" in name
                or len(name.encode("utf-8", "surrogatepass")) > _MAX_NAME_BYTES):
            raise OutputError(f"cannot write {self.folder}: `{ident[:80]}` cannot name a "
                              "file (a path separator, a leading `.`, or too long)")
        owner = self._owner.setdefault(name.casefold(), ident)
        if owner != ident:
            raise OutputError(
                f"cannot write {self.folder / name}: `{ident}` and `{owner}` name the same "
                "file when case is ignored (as macOS and Windows file systems do); "
                "hint: give them ids that differ in more than case")
        return self.folder / name
