"""Reading an input file: regular files only, bounded by its kind's size limit, gzip
bounded while it unpacks, UTF-8 faults located."""

from __future__ import annotations

import gzip
import os
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from fdc.core.inputs import InputFileError, InputKind, read_input_bytes, read_input_text
from fdc.core.limits import Limits, set_current


@pytest.fixture
def tight() -> Iterator[None]:
    previous = set_current(Limits(scene_bytes=10, episodes_bytes=1000))
    yield
    set_current(previous)


def reason(path: str | Path, kind: InputKind = InputKind.SCENE) -> str:
    with pytest.raises(InputFileError) as e:
        read_input_text(path, kind)
    return str(e.value)


@pytest.mark.parametrize("path", ["/dev/zero", "/dev/urandom", "/dev/null"])
def test_special_files_are_refused_before_reading(path: str) -> None:
    assert reason(path) == "not a regular file"


def test_directories_fifos_and_missing_files_are_refused(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo")  # opening it must not wait for a writer
    assert reason(tmp_path / "fifo") == "not a regular file"
    assert reason(tmp_path) == "not a regular file"
    assert reason(tmp_path / "none") == "No such file or directory"
    assert reason("a\0b") == "not a valid path"


def test_a_file_over_its_kinds_limit_names_the_limit(tmp_path: Path, tight: None) -> None:
    (tmp_path / "s.json").write_text("{" + " " * 20 + "}")
    assert reason(tmp_path / "s.json") == (
        "the scene file is larger than 10 bytes, the limit `scene_bytes` (raise the limit "
        "with `fdc --limit scene_bytes=N ...` (now 10))")
    (tmp_path / "ok.json").write_text("{}")
    assert read_input_text(tmp_path / "ok.json", InputKind.SCENE) == "{}"


def test_utf8_faults_are_located(tmp_path: Path) -> None:
    (tmp_path / "s.json").write_bytes(b'{\n  "a": "\xff"}')
    assert reason(tmp_path / "s.json") == "not UTF-8 text: byte 0xff at line 2, column 9"


def test_gzip_episodes_unpack_within_the_limit(tmp_path: Path, tight: None) -> None:
    (tmp_path / "ok.json.gz").write_bytes(gzip.compress(b"x" * 1000))
    assert read_input_bytes(tmp_path / "ok.json.gz", InputKind.EPISODES) == b"x" * 1000
    (tmp_path / "cut.json.gz").write_bytes(gzip.compress(b"x" * 500)[:-12])
    assert reason(tmp_path / "cut.json.gz", InputKind.EPISODES).startswith(
        "not a valid gzip file")
    (tmp_path / "bad.json.gz").write_bytes(b"\x1f\x8bnot gzip")
    assert reason(tmp_path / "bad.json.gz", InputKind.EPISODES).startswith(
        "not a valid gzip file")


def test_a_gzip_bomb_stops_at_the_limit_as_it_unpacks(tmp_path: Path) -> None:
    pack = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    chunk = b"\0" * (1 << 20)
    bomb = b"".join(pack.compress(chunk) for _ in range(64)) + pack.flush()  # 64 MiB
    (tmp_path / "bomb.json.gz").write_bytes(bomb)
    assert len(bomb) < 100_000
    previous = set_current(Limits(episodes_bytes=1 << 20))
    try:
        assert reason(tmp_path / "bomb.json.gz", InputKind.EPISODES).startswith(
            "the episodes file unpacks to more than 1048576 bytes, the limit "
            "`episodes_bytes`")
    finally:
        set_current(previous)


@pytest.mark.parametrize("text", [
    "a\nb\n", "a\r\nb", "\n\na\n\n", "a\rb\r\nc\n", "x\u2028y\nz\x0cw\n", "", "one",
])
def test_streamed_lines_are_the_read_text_split(tmp_path: Path, text: str) -> None:
    """`input_lines` numbers lines as `read_input_text(...).splitlines()` does: a suite
    line's number is the same whether the suite was read whole or streamed."""
    from fdc.core.inputs import input_lines

    path = tmp_path / "suite.jsonl"
    path.write_bytes(text.encode())
    assert list(input_lines(path, InputKind.SUITE)) == \
        read_input_text(path, InputKind.SUITE).splitlines()


def test_streamed_lines_fail_as_the_read_text_does(tmp_path: Path) -> None:
    from fdc.core.inputs import input_lines

    path = tmp_path / "suite.jsonl"
    path.write_bytes(b'{"a": 1}\n{"b": "\xff"}\n')
    with pytest.raises(InputFileError) as read:
        read_input_text(path, InputKind.SUITE)
    lines = input_lines(path, InputKind.SUITE)
    assert next(lines) == '{"a": 1}'
    with pytest.raises(InputFileError) as streamed:
        next(lines)
    assert str(streamed.value) == str(read.value) == \
        "not UTF-8 text: byte 0xff at line 2, column 8"
    previous = set_current(Limits(suite_bytes=10))
    try:
        with pytest.raises(InputFileError) as big:  # at the call, before a line is read
            input_lines(path, InputKind.SUITE)
        assert "larger than 10 bytes, the limit `suite_bytes`" in str(big.value)
    finally:
        set_current(previous)
    with pytest.raises(InputFileError, match="not a regular file"):
        input_lines(tmp_path, InputKind.SUITE)
