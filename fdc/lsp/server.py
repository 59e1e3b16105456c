"""The language server: pygls over stdio, a thin layer over the modules beside it.

Diagnostics are `fdc check`'s, published for every file of the workspace after each
change: at once after a quiet spell, and once the editor has been quiet for `DEBOUNCE_S`
when changes come in a burst (as keystrokes do). Offsets become LSP positions
here (lines from 0, columns in UTF-16 code units, as the protocol counts them).
See docs/editor.md.
"""

from __future__ import annotations

import asyncio
import bisect
import math
import os
import time
from collections.abc import Sequence
from typing import Any

from lsprotocol import types as lsp
from pygls.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from fdc.core.problems import Diagnostic, Severity, Span
from fdc.core.version import __version__
from fdc.lsp import complete, fixes, hover, symbols, tokens
from fdc.lsp.workspace import Workspace

#: Changes closer together than this (seconds) are a burst: the workspace is checked
#: again once they stop.
DEBOUNCE_S = 0.05

_SEVERITY = {Severity.ERROR: lsp.DiagnosticSeverity.Error,
             Severity.WARNING: lsp.DiagnosticSeverity.Warning,
             Severity.NOTE: lsp.DiagnosticSeverity.Information}
_ITEM_KIND = {
    complete.ItemKind.PREDICATE: lsp.CompletionItemKind.Function,
    complete.ItemKind.FUNCTION: lsp.CompletionItemKind.Function,
    complete.ItemKind.TYPE: lsp.CompletionItemKind.Class,
    complete.ItemKind.CONSTANT: lsp.CompletionItemKind.EnumMember,
    complete.ItemKind.VARIABLE: lsp.CompletionItemKind.Variable,
    complete.ItemKind.SECTION: lsp.CompletionItemKind.Keyword,
    complete.ItemKind.KEYWORD: lsp.CompletionItemKind.Keyword,
    complete.ItemKind.FILTER: lsp.CompletionItemKind.Function,
    complete.ItemKind.PARAMETER: lsp.CompletionItemKind.Variable,
}


class Lines:
    """Offsets of a text to LSP positions and back."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0]
        i = text.find("\n")
        while i >= 0:
            self.starts.append(i + 1)
            i = text.find("\n", i + 1)

    def position(self, offset: int) -> lsp.Position:
        offset = max(0, min(offset, len(self.text)))
        line = bisect.bisect_right(self.starts, offset) - 1
        head = self.text[self.starts[line] : offset]
        return lsp.Position(line=line, character=len(head.encode("utf-16-le")) // 2)

    def range(self, span: Span) -> lsp.Range:
        return lsp.Range(start=self.position(span.start), end=self.position(span.end))

    def offset(self, position: lsp.Position) -> int:
        if position.line >= len(self.starts):
            return len(self.text)
        start = self.starts[position.line]
        end = self.starts[position.line + 1] if position.line + 1 < len(self.starts) \
            else len(self.text)
        units = 0
        for i in range(start, end):
            if units >= position.character:
                return i
            units += 2 if ord(self.text[i]) > 0xFFFF else 1
        return end


class FdcServer(LanguageServer):
    """pygls's server with fdc's workspace and the pending check."""

    def __init__(self) -> None:
        super().__init__("fdc", __version__)
        self.fdc = Workspace()
        self.pending: asyncio.Task[None] | None = None
        self.published: set[str] = set()
        self.debounce_s = DEBOUNCE_S
        self.last_change = -math.inf

    def path(self, uri: str) -> str:
        return os.path.abspath(to_fs_path(uri) or uri)

    def lines(self, path: str) -> Lines:
        return Lines(self.fdc.text(path))

    def sync(self, uri: str) -> str:
        """Take the editor's text of `uri` into the workspace; its path."""
        path = self.path(uri)
        self.fdc.set_text(path, self.workspace.get_text_document(uri).source)
        return path

    def publish(self) -> None:
        """Check the workspace and publish every file's diagnostics (an empty list for a
        file whose last problem is gone)."""
        result = self.fdc.check()
        by_file: dict[str, list[Diagnostic]] = {}
        for d in result.diagnostics:
            if d.file:
                by_file.setdefault(os.path.abspath(d.file), []).append(d)
        for path in sorted(self.published | set(by_file)):
            found = by_file.get(path, [])
            lines = self.lines(path)
            self.publish_diagnostics(from_fs_path(path) or path,
                                     [self.diagnostic(d, lines) for d in found])
        self.published = set(by_file)

    def diagnostic(self, d: Diagnostic, lines: Lines) -> lsp.Diagnostic:
        if d.span.start >= 0:
            where = lines.range(d.span)
        else:
            line = max((d.line or 1) - 1, 0)
            where = lsp.Range(start=lsp.Position(line=line, character=0),
                              end=lsp.Position(line=line + 1, character=0))
        message = d.message + (f"\nhint: {d.hint}" if d.hint else "")
        fix = fixes.quick_fix(d, lines.text)
        data = None
        if fix is not None:
            data = {"title": fix.title, "text": fix.text,
                    "range": _json(lines.range(fix.span))}
        return lsp.Diagnostic(range=where, message=message, severity=_SEVERITY[d.severity],
                              code=d.code, source="fdc", data=data,
                              related_information=self.related(d, fix) or None)

    def related(self, d: Diagnostic, fix: fixes.Fix | None
                ) -> list[lsp.DiagnosticRelatedInformation]:
        """Where the name a diagnostic is about (or the name its fix suggests) is
        declared."""
        path = os.path.abspath(d.file)
        if d.span.start < 0 or not path.lower().endswith(".pddl"):
            return []
        n = symbols.name_at(self.fdc, path, d.span.start)
        if n is None or (n.kind is symbols.Kind.VARIABLE and fix is None):
            return []
        if fix is not None:
            n = symbols.Name(n.kind, fix.text, n.span)
        loc = symbols.declaration(self.fdc, path, d.span.start, n)
        if loc is None or (loc.path == path and loc.span == n.span):
            return []
        return [lsp.DiagnosticRelatedInformation(
            location=self.location(loc), message=f"`{n.name}` is declared here")]

    def location(self, loc: symbols.Location) -> lsp.Location:
        return lsp.Location(uri=from_fs_path(loc.path) or loc.path,
                            range=self.lines(loc.path).range(loc.span))

    def schedule(self) -> None:
        """Check again soon: at once after a quiet spell, else once the editor has been
        quiet for `debounce_s` (a burst of keystrokes is checked once, after it)."""
        burst = self.pending is not None or \
            time.monotonic() - self.last_change < self.debounce_s
        if self.pending is not None:
            self.pending.cancel()
        self.last_change = time.monotonic()
        self.pending = asyncio.get_event_loop().create_task(
            self._later(self.debounce_s if burst else 0.0))

    async def _later(self, delay_s: float) -> None:
        await asyncio.sleep(delay_s)
        self.pending = None
        self.publish()


def _json(r: lsp.Range) -> dict[str, Any]:
    return {"start": {"line": r.start.line, "character": r.start.character},
            "end": {"line": r.end.line, "character": r.end.character}}


def _range(data: dict[str, Any]) -> lsp.Range:
    s, e = data["start"], data["end"]
    return lsp.Range(start=lsp.Position(line=s["line"], character=s["character"]),
                     end=lsp.Position(line=e["line"], character=e["character"]))


server = FdcServer()


@server.feature(lsp.INITIALIZED)
def initialized(ls: FdcServer, params: lsp.InitializedParams) -> None:
    folders = [to_fs_path(f.uri) for f in ls.workspace.folders.values()]
    roots = [f for f in folders if f] or ([ls.workspace.root_path]
                                          if ls.workspace.root_path else [])
    open_docs = ls.fdc.open
    ls.fdc = Workspace(roots)
    ls.fdc.open.update(open_docs)
    ls.publish()


@server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: FdcServer, params: lsp.DidOpenTextDocumentParams) -> None:
    ls.sync(params.text_document.uri)
    ls.publish()


@server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: FdcServer, params: lsp.DidChangeTextDocumentParams) -> None:
    ls.sync(params.text_document.uri)
    ls.schedule()


@server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: FdcServer, params: lsp.DidSaveTextDocumentParams) -> None:
    ls.schedule()


@server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: FdcServer, params: lsp.DidCloseTextDocumentParams) -> None:
    ls.fdc.close(ls.path(params.text_document.uri))
    ls.schedule()


@server.feature(lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def files_changed(ls: FdcServer, params: lsp.DidChangeWatchedFilesParams) -> None:
    ls.fdc.rescan()
    ls.schedule()


def _at(ls: FdcServer, document: lsp.TextDocumentIdentifier, position: lsp.Position
        ) -> tuple[str, int]:
    path = ls.path(document.uri)
    return path, ls.lines(path).offset(position)


@server.feature(lsp.TEXT_DOCUMENT_HOVER)
def on_hover(ls: FdcServer, params: lsp.HoverParams) -> lsp.Hover | None:
    path, offset = _at(ls, params.text_document, params.position)
    found = hover.hover(ls.fdc, path, offset)
    if found is None:
        return None
    text, span = found
    return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=text),
                     range=ls.lines(path).range(span))


@server.feature(lsp.TEXT_DOCUMENT_COMPLETION,
                lsp.CompletionOptions(trigger_characters=["(", "?", ":", "-", "|", "{"]))
def on_completion(ls: FdcServer, params: lsp.CompletionParams) -> lsp.CompletionList:
    path, offset = _at(ls, params.text_document, params.position)
    items = [lsp.CompletionItem(label=i.label, kind=_ITEM_KIND[i.kind], detail=i.detail or None)
             for i in complete.complete(ls.fdc, path, offset)]
    return lsp.CompletionList(is_incomplete=False, items=items)


@server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
def on_definition(ls: FdcServer, params: lsp.DefinitionParams) -> lsp.Location | None:
    path, offset = _at(ls, params.text_document, params.position)
    n = symbols.name_at(ls.fdc, path, offset)
    loc = symbols.declaration(ls.fdc, path, offset, n) if n is not None else None
    return ls.location(loc) if loc is not None else None


@server.feature(lsp.TEXT_DOCUMENT_REFERENCES)
def on_references(ls: FdcServer, params: lsp.ReferenceParams) -> list[lsp.Location]:
    path, offset = _at(ls, params.text_document, params.position)
    n = symbols.name_at(ls.fdc, path, offset)
    if n is None:
        return []
    found = symbols.references(ls.fdc, path, offset, n,
                               declarations=params.context.include_declaration)
    return [ls.location(loc) for loc in found]


@server.feature(lsp.TEXT_DOCUMENT_PREPARE_RENAME)
def on_prepare_rename(ls: FdcServer, params: lsp.PrepareRenameParams) -> lsp.Range | None:
    path, offset = _at(ls, params.text_document, params.position)
    n = symbols.name_at(ls.fdc, path, offset)
    if n is None or n.kind is not symbols.Kind.VARIABLE:
        return None
    return ls.lines(path).range(n.span)


@server.feature(lsp.TEXT_DOCUMENT_RENAME)
def on_rename(ls: FdcServer, params: lsp.RenameParams) -> lsp.WorkspaceEdit | None:
    path, offset = _at(ls, params.text_document, params.position)
    edits = symbols.rename(ls.fdc, path, offset, params.new_name)
    if isinstance(edits, str):
        ls.show_message(edits, lsp.MessageType.Warning)
        return None
    changes: dict[str, list[lsp.TextEdit]] = {}
    for loc, text in edits:
        uri = from_fs_path(loc.path) or loc.path
        changes.setdefault(uri, []).append(
            lsp.TextEdit(range=ls.lines(loc.path).range(loc.span), new_text=text))
    return lsp.WorkspaceEdit(changes=changes)


@server.feature(lsp.TEXT_DOCUMENT_CODE_ACTION,
                lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix]))
def on_code_action(ls: FdcServer, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
    out = []
    for d in params.context.diagnostics:
        data = d.data
        if not isinstance(data, dict) or "text" not in data:
            continue
        edit = lsp.TextEdit(range=_range(data["range"]), new_text=data["text"])
        out.append(lsp.CodeAction(
            title=data["title"], kind=lsp.CodeActionKind.QuickFix, diagnostics=[d],
            is_preferred=True,
            edit=lsp.WorkspaceEdit(changes={params.text_document.uri: [edit]})))
    return out


@server.feature(lsp.TEXT_DOCUMENT_FORMATTING)
def on_formatting(ls: FdcServer, params: lsp.DocumentFormattingParams
                  ) -> list[lsp.TextEdit] | None:
    path = ls.path(params.text_document.uri)
    text = ls.fdc.text(path)
    new = fixes.formatted(path, text)
    if new is None or new == text:
        return None if new is None else []
    lines = Lines(text)
    return [lsp.TextEdit(range=lines.range(Span(0, len(text))), new_text=new)]


@server.feature(lsp.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL,
                lsp.SemanticTokensLegend(token_types=list(tokens.TOKEN_TYPES),
                                         token_modifiers=list(tokens.TOKEN_MODIFIERS)))
def on_semantic_tokens(ls: FdcServer, params: lsp.SemanticTokensParams) -> lsp.SemanticTokens:
    path = ls.path(params.text_document.uri)
    lines = ls.lines(path)
    return lsp.SemanticTokens(data=encode_tokens(tokens.semantic_tokens(ls.fdc, path), lines))


def encode_tokens(found: Sequence[tuple[Span, str, bool]], lines: Lines) -> list[int]:
    """The protocol's relative encoding; a token across lines is cut at each line end."""
    data: list[int] = []
    prev_line = prev_char = 0
    for span, kind, declares in found:
        start = span.start
        while start < span.end:
            line_end = lines.text.find("\n", start, span.end)
            end = span.end if line_end < 0 else line_end
            if end > start:
                a, b = lines.position(start), lines.position(end)
                delta_line = a.line - prev_line
                delta_char = a.character - (prev_char if delta_line == 0 else 0)
                data += [delta_line, delta_char, b.character - a.character,
                         tokens.TOKEN_TYPES.index(kind), 1 if declares else 0]
                prev_line, prev_char = a.line, a.character
            start = end + 1
    return data


def serve() -> None:
    """Run the server on standard input and output until the editor ends it."""
    server.start_io()
