"""The files an editor works on, and their check: `fdc check` over the whole workspace.

A `Workspace` holds the editor's open documents over the files on disk (the `.pddl`
files under its folders), and checks them all together with the compiler's own
`check_sources`, so domains, problems, templates and instruction files that reference
each other are checked as `fdc check` checks them. Parsing is cached per file text, so
after a change only the changed file is parsed again: the type check of the built-in
library takes a few tens of milliseconds (`benchmarks/lsp.py`).
See docs/editor.md.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import NamedTuple

from fdc.compiler import ast as A
from fdc.compiler.check import CheckResult, DomainInfo, check_sources
from fdc.compiler.lexer import LexError, tokenize
from fdc.compiler.parse import ParseResult, parse_source
from fdc.core.inputs import InputFileError
from fdc.core.problems import SourceFile
from fdc.domain import builtin_domain_files

#: Folders never searched for templates.
SKIPPED_FOLDERS = frozenset({"node_modules", "__pycache__", "build", "dist", "site-packages"})

#: At most this many `.pddl` files are read from the workspace folders.
MAX_FILES = 2000


class Tok(NamedTuple):
    """A token of the lexer: its type, its (lower-cased) text and its offsets."""

    type: str
    value: str
    start_pos: int
    end_pos: int


def is_pddl(path: str) -> bool:
    return path.lower().endswith(".pddl")


class Workspace:
    """Open documents over the files on disk, checked together."""

    def __init__(self, roots: Sequence[str] = ()) -> None:
        self.roots = [os.path.abspath(r) for r in roots]
        self.open: dict[str, str] = {}
        self._disk: dict[str, tuple[float, SourceFile]] = {}
        self._parsed: dict[str, tuple[str, ParseResult]] = {}
        self._tokens: dict[str, tuple[str, list[Tok]]] = {}
        self._found: list[str] | None = None
        self._library: list[SourceFile] | None = None
        self._result: CheckResult | None = None

    # ------------------------------------------------------------------ documents
    def set_text(self, path: str, text: str) -> None:
        """The editor's text of `path` (opened or changed)."""
        self.open[os.path.abspath(path)] = text
        self._result = None

    def close(self, path: str) -> None:
        self.open.pop(os.path.abspath(path), None)
        self._result = None

    def rescan(self) -> None:
        """Files were created or deleted on disk: look for them again."""
        self._found = None
        self._result = None

    def files(self) -> list[str]:
        """Every `.pddl` file of the workspace: those under its folders and those open."""
        if self._found is None:
            self._found = sorted(_pddl_files(self.roots))
        return sorted({*self._found, *(p for p in self.open if is_pddl(p))})

    def source(self, path: str) -> SourceFile | None:
        """The file as the editor holds it, else as on disk (None: unreadable)."""
        path = os.path.abspath(path)
        text = self.open.get(path)
        if text is not None:
            return SourceFile(path, text)
        try:
            mtime = os.stat(path).st_mtime
        except OSError:
            return None
        cached = self._disk.get(path)
        if cached is not None and cached[0] == mtime:
            return cached[1]
        try:
            src = SourceFile.read(path)
        except InputFileError:
            return None
        self._disk[path] = (mtime, src)
        return src

    def text(self, path: str) -> str:
        src = self.source(path)
        return src.text if src is not None else ""

    # ------------------------------------------------------------------ parsing
    def parse(self, src: SourceFile) -> ParseResult:
        """`parse_source`, once per text of a file."""
        cached = self._parsed.get(src.path)
        if cached is not None and cached[0] == src.text:
            return cached[1]
        result = parse_source(src)
        self._parsed[src.path] = (src.text, result)
        return result

    def unit(self, path: str) -> A.SourceUnit | None:
        src = self.source(path)
        return self.parse(src).unit if src is not None else None

    def tokens(self, path: str) -> list[Tok]:
        """The file's tokens, up to the first that does not lex."""
        text = self.text(path)
        cached = self._tokens.get(path)
        if cached is not None and cached[0] == text:
            return cached[1]
        out: list[Tok] = []
        with contextlib.suppress(LexError):
            out.extend(Tok(t.type, t.value, t.start_pos or 0, t.end_pos or 0)
                       for t in tokenize(text))
        self._tokens[path] = (text, out)
        return out

    # ------------------------------------------------------------------ checking
    def library(self) -> list[SourceFile]:
        """fdc's built-in domains (those the workspace does not hold itself)."""
        if self._library is None:
            self._library = [SourceFile.read(str(p)) for p in builtin_domain_files()]
        own = {os.path.realpath(p) for p in self.files()}
        return [s for s in self._library if os.path.realpath(s.path) not in own]

    def check(self) -> CheckResult:
        """`fdc check` of every file of the workspace (cached until a text changes)."""
        if self._result is None:
            sources = [s for p in self.files() if (s := self.source(p)) is not None]
            texts = [SourceFile(p, t) for p, t in self.open.items() if not is_pddl(p)]
            self._result = check_sources(sources, self.library(), texts=texts,
                                         parse=self.parse)
        return self._result

    # ------------------------------------------------------------------ definitions
    def definition_at(self, path: str, offset: int) -> A.Definition | None:
        """The domain, problem or template of `path` around `offset`."""
        unit = self.unit(path)
        if unit is None:
            return None
        for d in unit.definitions:
            if d.span.start <= offset <= d.span.end:
                return d
        return None

    def domain_named(self, name: str) -> DomainInfo | None:
        return self.check().domains.get(name)

    def domain_at(self, path: str, offset: int) -> DomainInfo | None:
        """The domain that names in `path` at `offset` resolve against: the definition's
        own, or the one its `(:domain ...)` names."""
        d = self.definition_at(path, offset)
        if d is None:
            return self.domain_named(self.domain_name_in(path, offset))
        name = d.name if isinstance(d, A.Domain) else d.domain.name
        return self.domain_named(name)

    def domain_name_in(self, path: str, offset: int) -> str:
        """The domain a file names before `offset`, read from its tokens (for a file
        that does not parse while it is being typed)."""
        name = ""
        toks = self.tokens(path)
        for i, tok in enumerate(toks[:-1]):
            if tok.start_pos > offset and name:
                break
            if tok.type in ("K_DOMAIN", "DOMAIN") and toks[i + 1].type == "NAME":
                name = toks[i + 1].value
        return name

    def templates(self) -> Iterator[tuple[str, A.Template]]:
        """Every template of the workspace with its file."""
        yield from self.check().templates.values()


def _pddl_files(roots: Sequence[str]) -> Iterator[str]:
    found = 0
    for root in roots:
        for folder, subfolders, names in os.walk(root):
            subfolders[:] = sorted(s for s in subfolders
                                   if not s.startswith(".") and s not in SKIPPED_FOLDERS)
            for name in sorted(names):
                if is_pddl(name) and found < MAX_FILES:
                    found += 1
                    yield str(Path(folder, name))
