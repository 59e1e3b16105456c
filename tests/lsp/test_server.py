"""`fdc lsp` driven as an editor drives it: a real LSP client (pytest-lsp) talking to
`python -m fdc lsp` over stdio, on the built-in library (`domain/`)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

REPO = Path(__file__).resolve().parents[2]
LIBRARY = REPO / "domain"
DOMAIN = LIBRARY / "fdc-home.pddl"
RECALL = LIBRARY / "templates" / "memory" / "object-recall.pddl"

pytestmark = pytest.mark.slow


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "fdc", "lsp"]))
async def client(lsp_client: LanguageClient):  # type: ignore[no-untyped-def]
    await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=lsp.ClientCapabilities(),
        root_uri=LIBRARY.as_uri(),
        workspace_folders=[lsp.WorkspaceFolder(uri=LIBRARY.as_uri(), name="domain")],
    ))
    yield
    await lsp_client.shutdown_session()


def _open(client: LanguageClient, path: Path, text: str | None = None) -> str:
    uri = path.as_uri()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(text_document=lsp.TextDocumentItem(
        uri=uri, language_id="pddl", version=1,
        text=path.read_text() if text is None else text)))
    return uri


def _position(text: str, needle: str, delta: int = 0) -> lsp.Position:
    offset = text.index(needle) + delta
    line = text.count("\n", 0, offset)
    return lsp.Position(line=line, character=offset - (text.rfind("\n", 0, offset) + 1))


async def _diagnostics(client: LanguageClient, uri: str, want: bool) -> list[lsp.Diagnostic]:
    """The diagnostics of `uri`, waiting until there are some (`want`) or none."""
    for _ in range(200):
        found = client.diagnostics.get(uri)
        if found is not None and bool(found) == want:
            return found
        await asyncio.sleep(0.02)
    raise AssertionError(f"no {'diagnostics' if want else 'clearing'} for {uri}")


async def _hover(client: LanguageClient, doc: lsp.TextDocumentIdentifier,
                 position: lsp.Position) -> str:
    hover = await client.text_document_hover_async(lsp.HoverParams(
        text_document=doc, position=position))
    assert hover is not None and isinstance(hover.contents, lsp.MarkupContent)
    return hover.contents.value


def _apply(text: str, edits: list[lsp.TextEdit]) -> str:
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(p: lsp.Position) -> int:
        return starts[p.line] + p.character

    for e in sorted(edits, key=lambda e: offset(e.range.start), reverse=True):
        text = text[: offset(e.range.start)] + e.new_text + text[offset(e.range.end):]
    return text


@pytest.mark.asyncio
async def test_misspelt_predicate_diagnosed_fixed_and_cleared(client: LanguageClient) -> None:
    text = RECALL.read_text().replace("(seen ?x)", "(sen ?x)", 1)
    uri = _open(client, RECALL, text)
    found = await _diagnostics(client, uri, want=True)
    (d,) = found
    assert d.code == "N203" and d.source == "fdc"
    assert d.message.startswith("unknown predicate `sen`") and "did you mean `seen`?" in d.message
    assert d.range == lsp.Range(start=_position(text, "sen ?x"), end=_position(text, "sen ?x", 3))
    assert d.related_information and d.related_information[0].location.uri == DOMAIN.as_uri()

    actions = await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), range=d.range,
        context=lsp.CodeActionContext(diagnostics=[d])))
    assert actions is not None
    (action,) = actions
    assert isinstance(action, lsp.CodeAction) and action.kind == lsp.CodeActionKind.QuickFix
    assert action.title == "Replace `sen` with `seen`"
    assert action.edit is not None and action.edit.changes is not None
    fixed = _apply(text, action.edit.changes[uri])
    assert fixed == RECALL.read_text()

    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[lsp.TextDocumentContentChangeEvent_Type2(text=fixed)]))
    assert await _diagnostics(client, uri, want=False) == []


@pytest.mark.asyncio
async def test_hover_completion_definition_references(client: LanguageClient) -> None:
    text = RECALL.read_text()
    uri = _open(client, RECALL)
    doc = lsp.TextDocumentIdentifier(uri=uri)

    shown = await _hover(client, doc, _position(text, "robot-at-object ?x", 2))
    assert "(robot-at-object ?o - movable)" in shown and "**fluent** predicate" in shown
    assert "`object_distance_m` = 2" in shown and "FindingDory" in shown
    shown = await _hover(client, doc, _position(text, "?c - category", 8))
    assert "`category` < `value` < `object`" in shown
    shown = await _hover(client, doc, _position(text, "c | a }}", 4))
    assert shown.startswith("fdc filter `a`")
    shown = await _hover(client, doc, _position(text, "recall-category)", 2))
    assert "category `object-recall`" in shown
    assert "Go to any item of a category the robot saw." in shown

    items = await client.text_document_completion_async(lsp.CompletionParams(
        text_document=doc, position=_position(text, "(seen ?x)", 1)))
    assert isinstance(items, lsp.CompletionList)
    labels = {i.label for i in items.items}
    assert {"seen", "on", "category-of", "exists", "and"} <= labels
    items = await client.text_document_completion_async(lsp.CompletionParams(
        text_document=doc, position=_position(text, "?x - movable", 5)))
    assert isinstance(items, lsp.CompletionList)
    assert {"movable", "category", "kitchen-counter"} <= {i.label for i in items.items}
    items = await client.text_document_completion_async(lsp.CompletionParams(
        text_document=doc, position=_position(text, "c | a }}", 4)))
    assert isinstance(items, lsp.CompletionList)
    assert {"a", "ref", "plural", "upper"} <= {i.label for i in items.items}

    found = await client.text_document_definition_async(lsp.DefinitionParams(
        text_document=doc, position=_position(text, "(seen ?x)", 2)))
    assert isinstance(found, lsp.Location) and found.uri == DOMAIN.as_uri()
    domain_text = DOMAIN.read_text()
    assert found.range.start == _position(domain_text, "(seen ?o", 1)
    found = await client.text_document_definition_async(lsp.DefinitionParams(
        text_document=doc, position=_position(text, "(:domain fdc-home)", 10)))
    assert isinstance(found, lsp.Location) and found.uri == DOMAIN.as_uri()
    assert found.range.start == _position(domain_text, "fdc-home)")

    refs = await client.text_document_references_async(lsp.ReferenceParams(
        text_document=doc, position=_position(text, "(category-of ?x", 2),
        context=lsp.ReferenceContext(include_declaration=True)))
    assert refs is not None
    files = {r.uri.rsplit("/", 1)[-1] for r in refs}
    assert {"fdc-home.pddl", "object-recall.pddl"} <= files and len(files) > 2
    assert sum(r.uri == uri for r in refs) == text.count("(category-of ")


@pytest.mark.asyncio
async def test_rename_parameter_formatting_tokens(client: LanguageClient) -> None:
    text = RECALL.read_text()
    uri = _open(client, RECALL)
    doc = lsp.TextDocumentIdentifier(uri=uri)
    edit = await client.text_document_rename_async(lsp.RenameParams(
        text_document=doc, position=_position(text, "?c - category", 1), new_name="?cat"))
    assert edit is not None and edit.changes is not None
    renamed = _apply(text, edit.changes[uri])
    first = renamed[: renamed.index("(define (template recall-category-in-room)")]
    assert "(:parameters ?cat - category)" in first
    assert "(category-of ?x ?cat)" in first and "?c " not in first
    assert "{{ cat | a }}" in first and "Go to any {{ cat }} you saw" in first
    assert renamed[len(first):] == text[text.index("(define (template recall-category-in-room)"):]

    unformatted = text.replace("(:category object-recall)", "(:category   object-recall )", 1)
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[lsp.TextDocumentContentChangeEvent_Type2(text=unformatted)]))
    edits = await client.text_document_formatting_async(lsp.DocumentFormattingParams(
        text_document=doc, options=lsp.FormattingOptions(tab_size=2, insert_spaces=True)))
    assert edits is not None and _apply(unformatted, edits) == text

    domain_uri = _open(client, DOMAIN)
    edits = await client.text_document_formatting_async(lsp.DocumentFormattingParams(
        text_document=lsp.TextDocumentIdentifier(uri=domain_uri),
        options=lsp.FormattingOptions(tab_size=2, insert_spaces=True)))
    assert edits == []  # the library is in canonical form

    tokens = await client.text_document_semantic_tokens_full_async(
        lsp.SemanticTokensParams(text_document=doc))
    assert tokens is not None and len(tokens.data) % 5 == 0 and len(tokens.data) > 100
