"""The language server's features as plain functions (`fdc.lsp`), in process: names and
their scopes, quick fixes, completions, hovers, tokens and positions, on the built-in
library and on small workspaces of their own."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types as lsp

from fdc.core.problems import Diagnostic, Severity, Span
from fdc.lsp import complete, fixes, hover, symbols, tokens
from fdc.lsp.server import Lines, encode_tokens
from fdc.lsp.workspace import Workspace

REPO = Path(__file__).resolve().parents[2]
LIBRARY = REPO / "domain"
DOMAIN = str(LIBRARY / "fdc-home.pddl")
RECALL = str(LIBRARY / "templates" / "memory" / "object-recall.pddl")

TEMPLATE = """; a template of our own
(define (template fetch)
  (:domain fdc-home)
  (:category test)
  (:version 2)
  (:description "Fetch an item.")
  (:parameters ?o - movable ?s - surface)
  (:constraints (initially-on ?o ?s))
  (:goal (and (holding ?o)
              (exists (?o - movable) (on ?o ?s))))
  (:instruction-file "fetch.j2"))
"""
INSTRUCTIONS = "Bring me {{ o | the }} from {{ s | ref }}.\n---\nFetch {{ o | a }}.\n"


@pytest.fixture(scope="module")
def library() -> Workspace:
    ws = Workspace([str(LIBRARY)])
    ws.check()
    return ws


@pytest.fixture
def own(tmp_path: Path) -> Workspace:
    (tmp_path / "fetch.pddl").write_text(TEMPLATE)
    (tmp_path / "fetch.j2").write_text(INSTRUCTIONS)
    return Workspace([str(tmp_path)])


def _problems(ws: Workspace) -> list[Diagnostic]:
    """The check's findings but the warning the template earns on purpose: its inner
    `?o` shadows the parameter (the rename tests need it)."""
    return [d for d in ws.check().diagnostics if d.code != "V403"]


def _at(ws: Workspace, path: str, needle: str, delta: int = 0, nth: int = 0) -> int:
    text = ws.text(path)
    offset = -1
    for _ in range(nth + 1):
        offset = text.index(needle, offset + 1)
    return offset + delta


def test_names_of_a_domain(library: Workspace) -> None:
    found = {(n.kind, n.name, n.declares)
             for n in symbols.names(library.tokens(DOMAIN), library.domain_named("fdc-home"))}
    assert (symbols.Kind.PREDICATE, "robot-at-object", True) in found
    assert (symbols.Kind.TYPE, "movable", True) in found  # in `:types`
    assert (symbols.Kind.TYPE, "movable", False) in found  # after `-`
    assert (symbols.Kind.CONSTANT, "front-left", True) in found
    assert (symbols.Kind.DOMAIN, "fdc-home", True) in found


def test_a_type_declared_where_it_is_and_used_across_files(library: Workspace) -> None:
    offset = _at(library, RECALL, "- category", 3)
    n = symbols.name_at(library, RECALL, offset)
    assert n is not None and n.kind is symbols.Kind.TYPE
    loc = symbols.declaration(library, RECALL, offset, n)
    assert loc is not None and loc.path == DOMAIN
    assert library.text(DOMAIN)[loc.span.start : loc.span.end] == "category"
    refs = symbols.references(library, RECALL, offset, n, declarations=False)
    assert {Path(r.path).name for r in refs} >= {"object-recall.pddl", "fdc-home.pddl"}
    assert all(library.text(r.path)[r.span.start : r.span.end] == "category" for r in refs)


def test_rename_a_quantified_variable_stays_in_its_scope(own: Workspace, tmp_path: Path) -> None:
    path = str(tmp_path / "fetch.pddl")
    inner = _at(own, path, "?o - movable", 1, nth=1)  # the `exists` variable
    edits = symbols.rename(own, path, inner, "item")
    assert not isinstance(edits, str)
    assert [own.text(path)[loc.span.start : loc.span.end] for loc, _ in edits] == ["?o"] * 2
    assert all(loc.span.start > _at(own, path, "(exists") for loc, _ in edits)
    assert {text for _, text in edits} == {"?item"}


def test_rename_a_parameter_reaches_its_instruction_file(own: Workspace, tmp_path: Path
                                                        ) -> None:
    path = str(tmp_path / "fetch.pddl")
    edits = symbols.rename(own, path, _at(own, path, "?o - movable", 1), "?prev-obj")
    assert not isinstance(edits, str)
    by_file: dict[str, list[str]] = {}
    for loc, text in edits:
        by_file.setdefault(Path(loc.path).name, []).append(text)
    assert by_file == {"fetch.pddl": ["?prev-obj"] * 3, "fetch.j2": ["prev_obj"] * 2}


def test_rename_refuses_what_is_not_a_variable(library: Workspace) -> None:
    assert "only variables" in str(symbols.rename(library, RECALL, _at(library, RECALL, "seen"),
                                                  "?x"))
    why = symbols.rename(library, RECALL, _at(library, RECALL, "?c - category", 1), "?9 x")
    assert isinstance(why, str) and "not a variable name" in why


def test_instruction_file_checked_as_the_editor_holds_it(own: Workspace, tmp_path: Path
                                                       ) -> None:
    j2 = str(tmp_path / "fetch.j2")
    assert _problems(own) == []
    own.set_text(j2, INSTRUCTIONS.replace("| ref", "| reff"))
    (d,) = _problems(own)
    assert (d.code, d.file) == ("J603", j2)
    fix = fixes.quick_fix(d, own.text(j2))
    assert fix is not None and fix.text == "ref"
    assert own.text(j2)[fix.span.start : fix.span.end] == "reff"


def test_quick_fixes_of_variables_and_names(own: Workspace, tmp_path: Path) -> None:
    path = str(tmp_path / "fetch.pddl")
    own.set_text(path, TEMPLATE.replace("(holding ?o)", "(holding ?oo)"))
    (d,) = [d for d in own.check().diagnostics if d.code == "V401"]
    fix = fixes.quick_fix(d, own.text(path))
    assert fix is not None and (fix.text, fix.title) == ("?o", "Replace `?oo` with `?o`")
    own.set_text(path, TEMPLATE)
    own.set_text(str(tmp_path / "fetch.j2"), "Fetch {{ O | a }}.")
    (d,) = _problems(own)
    fix = fixes.quick_fix(d, "Fetch {{ O | a }}.")
    assert d.code == "J602" and fix is not None and fix.text == "o"


def test_no_fix_without_a_suggestion(library: Workspace) -> None:
    d = Diagnostic(Severity.ERROR, "G503", "template `x` has no goal", file=RECALL,
                   span=Span(0, 3), hint="add `(:goal ...)`")
    assert fixes.quick_fix(d, library.text(RECALL)) is None


def test_completions_where_the_cursor_is(own: Workspace, tmp_path: Path) -> None:
    path = str(tmp_path / "fetch.pddl")

    def labels(text: str, cursor: str, delta: int = 0) -> set[str]:
        own.set_text(path, text)
        items = complete.complete(own, path, text.index(cursor) + len(cursor) + delta)
        return {i.label for i in items}

    assert {":goal", ":parameters", ":instruction"} <= labels(TEMPLATE, "(:goal", -3)
    assert labels(TEMPLATE, "(holding ?") == {"?o", "?s"}
    assert {"movable", "surface", "mug"} <= labels(TEMPLATE, "?s - ")
    assert {"red", "front-left", "?o"} <= labels(TEMPLATE, "(initially-on ?o ", 0)
    typing = TEMPLATE.replace('(:instruction-file "fetch.j2"))',
                              '(:instruction "Fetch {{ o | ')
    assert {"a", "the", "ref", "upper"} <= labels(typing, "{{ o | ")
    assert {"o", "s", "targets"} <= labels(typing.replace("{{ o | ", "{{ "), "{{ ")


def test_hovers(library: Workspace) -> None:
    text, _ = hover.hover(library, RECALL, _at(library, RECALL, "seen", 1)) or ("", None)
    assert "**history** predicate" in text and "(seen ?o - movable)" in text
    text, _ = hover.hover(library, RECALL, _at(library, RECALL, "?x - movable", 1)) or ("", None)
    assert "?x - movable" in text
    text, _ = hover.hover(library, RECALL, _at(library, RECALL, "fdc-home", 1)) or ("", None)
    assert text.startswith("domain `fdc-home`")
    home = library.domain_named("fdc-home")
    assert home is not None
    assert "subtypes: `bathroom`, `bedroom`, `dining-room`," in hover.type_text(home, "room")
    assert "ancestors: `mug` < `tableware` < `movable` < `object`" in hover.type_text(home, "mug")
    assert hover.filter_text("upper").startswith("Jinja filter `upper`")
    assert hover.filter_text("no-such-filter") == ""


def test_tokens_colour_comments_strings_and_jinja(own: Workspace, tmp_path: Path) -> None:
    path = str(tmp_path / "fetch.pddl")
    text = own.text(path)
    found = tokens.semantic_tokens(own, path)
    kinds = {text[s.start : s.end]: k for s, k, _ in found}
    assert kinds["; a template of our own"] == "comment"
    assert kinds["holding"] == "function" and kinds["movable"] == "type"
    assert kinds['"Fetch an item."'] == "string"
    j2 = str(tmp_path / "fetch.j2")
    assert [INSTRUCTIONS[s.start : s.end] for s, _, _ in tokens.semantic_tokens(own, j2)] == [
        "{{ o | the }}", "{{ s | ref }}", "{{ o | a }}"]
    data = encode_tokens(found, Lines(text))
    assert len(data) == 5 * len(found) and data[:2] == [0, 0]


def test_positions_count_utf16_units() -> None:
    lines = Lines('; 😀 x\n(a)')
    assert lines.position(5) == lsp.Position(line=0, character=6)  # 😀 is two units
    assert lines.offset(lsp.Position(line=0, character=6)) == 5
    assert lines.offset(lsp.Position(line=1, character=1)) == 7
    assert lines.offset(lsp.Position(line=9, character=0)) == len(lines.text)


def test_formatting_needs_a_parse(library: Workspace) -> None:
    text = library.text(RECALL)
    assert fixes.formatted(RECALL, text) == text
    assert fixes.formatted(RECALL, text[:-20]) is None


@pytest.mark.parametrize("cut", [None, 0.5, 0.8])
def test_every_position_answers_without_raising(cut: float | None, tmp_path: Path) -> None:
    """Hover, completion, definition, references and rename at every position of a real
    template, whole and cut short (as a file being typed is)."""
    text = Path(RECALL).read_text()
    if cut is not None:
        text = text[: int(len(text) * cut)]
    path = str(tmp_path / "recall.pddl")
    ws = Workspace([str(tmp_path)])
    ws.set_text(path, text)
    ws.check()
    for offset in range(0, len(text) + 1, 3):
        hover.hover(ws, path, offset)
        complete.complete(ws, path, offset)
        n = symbols.name_at(ws, path, offset)
        if n is not None:
            symbols.declaration(ws, path, offset, n)
            symbols.references(ws, path, offset, n)
            symbols.rename(ws, path, offset, "?renamed")
    tokens.semantic_tokens(ws, path)
