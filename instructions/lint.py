"""Static checks of a template's Jinja instructions: parsed, never rendered.

Every name an instruction reads must be a template parameter (`?prev-obj` is
`prev_obj` in Jinja), a name the instruction binds itself (`{% for %}`, `{% set %}`),
or one of fdc's instruction globals; every filter must be Jinja's or fdc's.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from functools import cache
from typing import TYPE_CHECKING, Any, NamedTuple

from fdc.compiler import ast as A
from fdc.compiler.diagnostics import Severity, SourceFile, did_you_mean

if TYPE_CHECKING:
    from fdc.compiler.check import Checker

#: In an instruction file, variants are separated by lines holding only `---`.
VARIANT_SEPARATOR = "---"


def jinja_name(parameter: str) -> str:
    """The name a parameter has inside an instruction: `?prev-obj` -> `prev_obj`."""
    return parameter.lstrip("?").replace("-", "_")


@cache
def _environment() -> Any:
    from jinja2.sandbox import SandboxedEnvironment

    return SandboxedEnvironment()


@cache
def known_filters() -> frozenset[str]:
    from jinja2.filters import FILTERS as JINJA_FILTERS

    from fdc.instructions.filters import FILTERS

    return frozenset(JINJA_FILTERS) | frozenset(FILTERS)


@cache
def fdc_filters() -> frozenset[str]:
    from fdc.instructions.filters import FILTERS

    return frozenset(FILTERS)


def _name_hint(name: str, params: dict[str, str], names_ok: frozenset[str]) -> str:
    if name.lower() in params:
        return f"names are lower case in fdc: write `{name.lower()}`"
    return did_you_mean(name, [*params, *names_ok]) or "parameters: " + (
        ", ".join(sorted(params)) or "none"
    )


#: Instruction files are text a person wrote; anything larger is a mistake.
MAX_INSTRUCTION_FILE_BYTES = 1 << 20


def _unreadable(template_path: str, written: str, file_path: str) -> str:
    """Why an instruction file may not be read ("" when it may): templates are
    third-party input, so the file must be a regular file of modest size inside the
    template's own folder (no absolute paths, no `..` out of it)."""
    folder = os.path.realpath(os.path.dirname(template_path) or ".")
    try:
        real = os.path.realpath(file_path)
    except ValueError:
        return "not a valid path"
    if os.path.isabs(written) or os.path.commonpath([folder, real]) != folder:
        return "it must be inside the template's folder"
    try:
        info = os.stat(real)
    except (OSError, ValueError) as e:
        return e.strerror if isinstance(e, OSError) and e.strerror else "not a valid path"
    if not stat.S_ISREG(info.st_mode):
        return "not a regular file"
    if info.st_size > MAX_INSTRUCTION_FILE_BYTES:
        return f"larger than {MAX_INSTRUCTION_FILE_BYTES} bytes"
    return ""


@cache
def known_globals() -> frozenset[str]:
    from fdc.instructions.filters import GLOBALS

    return frozenset(_environment().globals) | frozenset(GLOBALS) | {"loop"}


class Variant(NamedTuple):
    """One instruction variant: its text and where its raw source starts in a file."""

    text: str
    raw: str  # the source as written (escapes and all)
    path: str
    offset: int  # offset of `raw` in the file


def _variants(template: A.Template, path: str, checker: Checker) -> Iterator[Variant]:
    src = checker.sources.get(path)
    for ins in template.instructions:
        raw = src.text[ins.span.start + 1 : ins.span.end - 1] if src else ins.text
        yield Variant(ins.text, raw, path, ins.span.start + 1)
    ref = template.instruction_file
    if ref is None:
        return
    file_path = os.path.normpath(os.path.join(os.path.dirname(path), ref.path))
    why = _unreadable(path, ref.path, file_path)
    if not why:
        try:
            jsrc = SourceFile.read(file_path)
        except (OSError, ValueError) as e:
            why = (e.strerror if isinstance(e, OSError) else None) or "not a valid path"
    if why:
        checker.report(
            Severity.ERROR,
            "J604",
            f"cannot read instruction file `{ref.path}`: {why}",
            ref.span,
            f"the path is relative to this template's folder (looked for {file_path})",
        )
        return
    checker.sources[file_path] = jsrc
    found = 0
    for variant in _file_variants(jsrc.text, file_path):
        found += 1
        yield variant
    if not found and not template.instructions:
        checker.report(
            Severity.ERROR,
            "G503",
            f"instruction file `{ref.path}` holds no instruction",
            ref.span,
            "write at least one instruction; separate variants with a line holding `---`",
        )


def _file_variants(text: str, path: str) -> Iterator[Variant]:
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


_JINJA_BLOCK = re.compile(r"\{\{.*?\}\}|\{%.*?%\}", re.DOTALL)


def _variant(chunk: list[str], path: str, offset: int) -> Iterator[Variant]:
    """One variant of an instruction file, its leading blank lines dropped."""
    text = "".join(chunk)
    if not text.strip():
        return
    body = text.lstrip("\r\n")
    yield Variant(body.rstrip("\r\n"), body, path, offset + len(text) - len(body))


_LINE_BREAK = re.compile(r"\r\n|\r|\n")  # as Jinja counts lines


def _locate(variant: Variant, lineno: int, word: str) -> A.Span:
    """The span of `word` (a whole word inside `{{ }}` or `{% %}`) on line `lineno`."""
    starts = [0, *(m.end() for m in _LINE_BREAK.finditer(variant.raw))]
    lineno = min(max(lineno, 1), len(starts))
    begin = starts[lineno - 1]
    brk = _LINE_BREAK.search(variant.raw, begin)
    line = variant.raw[begin : brk.start() if brk else len(variant.raw)]
    start = variant.offset + begin
    if word:
        pattern = re.compile(r"(?<![\w.])" + re.escape(word) + r"(?!\w)")
        for block in _JINJA_BLOCK.finditer(line):
            m = pattern.search(line, block.start(), block.end())
            if m:
                return A.Span(start + m.start(), start + m.end())
    return A.Span(start, start + max(len(line), 1))


def check_instructions(
    checker: Checker, template: A.Template, path: str, scope: dict[str, Any]
) -> set[str]:
    """Report bad instructions; return the parameters (with `?`) they mention."""
    from jinja2 import TemplateSyntaxError, nodes

    params = {jinja_name(p): p for p in scope}
    filters = known_filters()
    names_ok = known_globals()
    used: set[str] = set()
    for variant in _variants(template, path, checker):
        try:
            tree = _environment().parse(variant.text)
        except TemplateSyntaxError as e:
            checker.report(
                Severity.ERROR,
                "J601",
                f"instruction is not valid Jinja: {e.message}",
                _locate(variant, e.lineno, ""),
                "placeholders look like `{{ name | filter }}`",
                path=variant.path,
            )
            continue
        bound = {n.name for n in tree.find_all(nodes.Name) if n.ctx in ("store", "param")}
        bound |= {m.name for m in tree.find_all(nodes.Macro)}
        for n in tree.find_all(nodes.Name):
            if n.ctx != "load":
                continue
            if n.name in params:
                used.add(params[n.name])
            elif n.name not in bound and n.name not in names_ok:
                checker.report(
                    Severity.ERROR,
                    "J602",
                    f"`{n.name}` in the instruction names no parameter of template "
                    f"`{template.name}`",
                    _locate(variant, n.lineno, n.name),
                    _name_hint(n.name, params, names_ok),
                    path=variant.path,
                )
        for f in tree.find_all(nodes.Filter):
            if f.name not in filters:
                checker.report(
                    Severity.ERROR,
                    "J603",
                    f"unknown filter `{f.name}`",
                    _locate(variant, f.lineno, f.name),
                    did_you_mean(f.name, sorted(filters))
                    or "fdc's filters: "
                    + ", ".join(sorted(fdc_filters()))
                    + "; Jinja's built-in filters work too",
                    path=variant.path,
                )
    return used


def variant_texts(template: A.Template, path: str) -> list[str]:
    """The instruction variants of a checked template: inline ones, then its file's."""
    texts = [ins.text for ins in template.instructions]
    ref = template.instruction_file
    if ref is not None:
        file_path = os.path.normpath(os.path.join(os.path.dirname(path), ref.path))
        if _unreadable(path, ref.path, file_path):
            raise ValueError(f"cannot read instruction file `{ref.path}`")
        text = SourceFile.read(file_path).text
        texts.extend(v.text for v in _file_variants(text, file_path))
    return texts


@cache
def names_used(text: str) -> frozenset[str]:
    """The names an instruction reads (parameters in Jinja spelling and globals)."""
    from jinja2 import nodes

    tree = _environment().parse(text)
    return frozenset(n.name for n in tree.find_all(nodes.Name) if n.ctx == "load")
