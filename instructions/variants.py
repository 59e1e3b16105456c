"""Instruction variants: a template's inline instructions and its instruction file's.

An instruction file holds variants separated by lines holding only `---`. Templates are
third-party input, so the file must be a regular file of modest size inside the
template's own folder. Everything here reads plain text and spans; the compiler's type
checker hands in what it parsed.
See docs/instructions.md.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from typing import NamedTuple

from fdc.core.inputs import InputFileError
from fdc.core.problems import Diagnostic, Severity, SourceFile, Span

#: In an instruction file, variants are separated by lines holding only `---`.
VARIANT_SEPARATOR = "---"


def jinja_name(parameter: str) -> str:
    """The name a parameter has inside an instruction: `?prev-obj` -> `prev_obj`."""
    return parameter.lstrip("?").replace("-", "_")


class Variant(NamedTuple):
    """One instruction variant: its text and where its raw source starts in a file."""

    text: str
    raw: str  # the source as written (escapes and all)
    path: str
    offset: int  # offset of `raw` in the file


class Inline(NamedTuple):
    """An `(:instruction "...")` of a template: its text and the span of its string."""

    text: str
    span: Span


class FileRef(NamedTuple):
    """An `(:instruction-file "name.j2")` of a template: the path as written, its span."""

    path: str
    span: Span


def unreadable(template_path: str, written: str, file_path: str) -> str:
    """Why an instruction file may not be read ("" when it may): templates are
    third-party input, so the file must be inside the template's own folder (no absolute
    paths, no `..` out of it); reading it checks that it is a regular file of modest size
    (`fdc.core.inputs`)."""
    folder = os.path.realpath(os.path.dirname(template_path) or ".")
    try:
        real = os.path.realpath(file_path)
    except ValueError:
        return "not a valid path"
    if os.path.isabs(written) or os.path.commonpath([folder, real]) != folder:
        return "it must be inside the template's folder"
    return ""


def file_variants(text: str, path: str) -> Iterator[Variant]:
    """The variants of an instruction file: chunks between `---` lines."""
    offset = 0
    chunk: list[str] = []
    chunk_start = 0
    for line in text.splitlines(keepends=True):
        if line.strip() == VARIANT_SEPARATOR:
            yield from _variant(chunk, path, chunk_start)
            chunk = []
            chunk_start = offset + len(line)
        else:
            chunk.append(line)
        offset += len(line)
    yield from _variant(chunk, path, chunk_start)


def _variant(chunk: list[str], path: str, offset: int) -> Iterator[Variant]:
    """One variant of an instruction file, its leading blank lines dropped."""
    text = "".join(chunk)
    if not text.strip():
        return
    body = text.lstrip("\r\n")
    yield Variant(body.rstrip("\r\n"), body, path, offset + len(text) - len(body))


def read_variants(inline: Sequence[Inline], ref: FileRef | None, path: str,
                  sources: dict[str, SourceFile], problems: list[Diagnostic]
                  ) -> Iterator[Variant]:
    """Every variant of the template in `path`: its inline instructions, then its
    instruction file's (taken from `sources`, an editor's text, or else read into it);
    an unreadable or empty file is a problem."""
    src = sources.get(path)
    for ins in inline:
        raw = src.text[ins.span.start + 1 : ins.span.end - 1] if src else ins.text
        yield Variant(ins.text, raw, path, ins.span.start + 1)
    if ref is None:
        return
    file_path = os.path.normpath(os.path.join(os.path.dirname(path), ref.path))
    why = unreadable(path, ref.path, file_path)
    jsrc = sources.get(file_path)
    if not why and jsrc is None:
        try:
            jsrc = SourceFile.read(file_path)
        except InputFileError as e:
            why = str(e)
    if why or jsrc is None:
        problems.append(Diagnostic(
            severity=Severity.ERROR, code="J604",
            message=f"cannot read instruction file `{ref.path}`: {why}", file=path,
            span=ref.span,
            hint=f"the path is relative to this template's folder (looked for {file_path})"))
        return
    sources[file_path] = jsrc
    found = 0
    for variant in file_variants(jsrc.text, file_path):
        found += 1
        yield variant
    if not found and not inline:
        problems.append(Diagnostic(
            severity=Severity.ERROR, code="G503",
            message=f"instruction file `{ref.path}` holds no instruction", file=path,
            span=ref.span,
            hint="write at least one instruction; separate variants with a line holding `---`"))


def variant_texts(inline: Sequence[str], ref_path: str | None, path: str) -> list[str]:
    """The instruction variants of a checked template: inline ones, then its file's."""
    texts = list(inline)
    if ref_path is not None:
        file_path = os.path.normpath(os.path.join(os.path.dirname(path), ref_path))
        if unreadable(path, ref_path, file_path):
            raise ValueError(f"cannot read instruction file `{ref_path}`")
        text = SourceFile.read(file_path).text
        texts.extend(v.text for v in file_variants(text, file_path))
    return texts
