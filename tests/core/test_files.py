"""Output files: staged and put in place together, never over a special file, never
half-written, named from ids inside their folder and collision-free."""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

import pytest

from fdc.core.errors import InputError, OutputError
from fdc.core.files import FileNames, Outputs, not_writable, write_atomic


def files_under(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*")}


def test_outputs_put_every_file_in_place_together(tmp_path: Path) -> None:
    with Outputs() as out:
        out.write(tmp_path / "a.txt", "a")
        out.write(tmp_path / "sub" / "b.bin", b"b")
        assert not (tmp_path / "a.txt").exists()  # staged: nothing in place yet
    assert (tmp_path / "a.txt").read_text() == "a"
    assert (tmp_path / "sub" / "b.bin").read_bytes() == b"b"
    assert files_under(tmp_path) == {"a.txt", "sub", "sub/b.bin"}


@pytest.mark.parametrize("stop", [RuntimeError("boom"), KeyboardInterrupt()])
def test_an_error_or_an_interrupt_leaves_nothing(tmp_path: Path, stop: BaseException) -> None:
    (tmp_path / "old.txt").write_text("old")
    with pytest.raises(type(stop)), Outputs() as out:
        out.write(tmp_path / "old.txt", "new")
        out.write(tmp_path / "deep" / "er" / "b.txt", "b")
        raise stop
    assert files_under(tmp_path) == {"old.txt"}  # no temporary file, no folder made
    assert (tmp_path / "old.txt").read_text() == "old"


def test_a_second_output_that_cannot_be_written_stops_the_first(tmp_path: Path) -> None:
    (tmp_path / "manifest.json").mkdir()
    with pytest.raises(OutputError, match=re.escape("manifest.json: is a folder")), \
            Outputs() as out:
        out.write(tmp_path / "suite.jsonl", "x")
        out.write(tmp_path / "manifest.json", "{}")
    assert files_under(tmp_path) == {"manifest.json"}


def test_special_files_are_refused_not_replaced(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    (tmp_path / "dir").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "dir")
    for path, kind in [(Path("/dev/full"), "a character device"),
                       (fifo, "a named pipe"), (tmp_path / "dir", "a folder"),
                       (tmp_path / "link", "a folder")]:
        assert kind in not_writable(path)
        with pytest.raises(OutputError, match=re.escape(f"cannot write {path}: is {kind}")):
            write_atomic(path, "x")
    assert Path("/dev/full").is_char_device() and fifo.is_fifo()
    assert files_under(tmp_path) == {"fifo", "dir", "link"}
    assert not_writable(tmp_path / "dir", folder=True) == ""
    assert "not a folder" in not_writable(fifo, folder=True)


def test_a_regular_file_or_a_new_path_is_writable(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    (tmp_path / "to-file").symlink_to(tmp_path / "f")
    assert not_writable(tmp_path / "f") == not_writable(tmp_path / "new") == ""
    assert not_writable(tmp_path / "to-file") == ""
    assert "cannot be reached: Not a directory" in not_writable(tmp_path / "f" / "x")


def test_a_replaced_file_keeps_its_permissions(tmp_path: Path) -> None:
    target = tmp_path / "f"
    target.write_text("x")
    target.chmod(0o640)
    write_atomic(target, "y")
    assert target.read_text() == "y" and target.stat().st_mode & 0o777 == 0o640


def test_permission_denied_is_an_output_error(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    def denied(*_args: object, **_kwargs: object) -> tuple[int, str]:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(tempfile, "mkstemp", denied)
    with pytest.raises(OutputError) as e:
        write_atomic(tmp_path / "x" / "f.txt", "x")
    assert str(e.value) == f"cannot write {tmp_path / 'x' / 'f.txt'}: Permission denied"
    assert isinstance(e.value, InputError)  # the CLI's exit 2
    assert files_under(tmp_path) == set()  # the folder made for it is gone too


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_a_read_only_folder_is_an_output_error(tmp_path: Path) -> None:
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        with pytest.raises(OutputError, match="Permission denied"):
            write_atomic(ro / "f.txt", "x")
    finally:
        ro.chmod(0o700)


def test_a_file_where_a_folder_should_be_is_an_output_error(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(OutputError, match="cannot be reached: Not a directory"):
        write_atomic(tmp_path / "file" / "sub" / "f.txt", "x")


@pytest.mark.parametrize("ident", ["../escaped", "/abs/x", "a/b", "a\\b", ".hidden", "..",
                                   "x" * 300, "a\0b"])
def test_file_names_stay_inside_their_folder(tmp_path: Path, ident: str) -> None:
    with pytest.raises(OutputError, match="cannot name a file"):
        FileNames(tmp_path).path(ident, ".pddl")


def test_file_names_collide_neither_by_case_nor_with_reserved_names(tmp_path: Path) -> None:
    names = FileNames(tmp_path, "domain.pddl")
    assert names.path("Task-1", ".pddl") == tmp_path / "Task-1.pddl"
    assert names.path("Task-1", ".pddl") == tmp_path / "Task-1.pddl"  # the same again
    assert names.path("Task-1", ".domain.pddl") == tmp_path / "Task-1.domain.pddl"
    with pytest.raises(OutputError, match="`task-1` and `Task-1` name the same file"):
        names.path("task-1", ".pddl")
    with pytest.raises(OutputError, match=re.escape("`Domain` and `domain.pddl`")):
        names.path("Domain", ".pddl")
    with pytest.raises(OutputError, match=re.escape("`Task-1.domain` and `Task-1`")):
        names.path("Task-1.domain", ".pddl")
