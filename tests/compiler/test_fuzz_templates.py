"""Property tests: random well-formed templates over the built-in domain `fdc-home`
(parameters of its types, nested formulas over its predicates with the right arities and
types, quantifiers, counting forms, argmax/argmin, targets, `then`, Jinja instructions
naming the parameters) check without errors, print and re-parse to the same AST, and
print canonically; the same templates with one corruption (wrong arity, unknown
predicate, unbound variable, unknown filter, ...) get that diagnostic, located; the same
instructions as a Jinja instruction file, and random instruction file names. The
generator is tests/compiler/fuzzing.py.
"""

from __future__ import annotations

import tempfile
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fdc.compiler.check import check_sources
from fdc.compiler.parse import parse_text
from fdc.compiler.printer import print_unit
from fdc.core.problems import SourceFile
from tests.compiler.fuzzing import (
    CORRUPTIONS,
    TemplateSpec,
    assert_reported,
    assert_round_trip,
    check_template_text,
    fuzz,
    home_source,
    pddl_string,
    shout,
    template_files,
    template_specs,
    unknown_placeholder,
)


@pytest.mark.slow
@fuzz(200)
@given(template_files(), st.data())
def test_generated_templates_check_and_round_trip(
    specs: list[TemplateSpec], data: st.DataObject
) -> None:
    text = "\n".join(spec.text() for spec in specs)
    result = check_template_text(text)
    assert result.errors == [], [(d.code, d.message) for d in result.errors] + [text]
    (unit,) = result.units
    assert [d.name for d in unit.definitions] == [s.name for s in specs]
    printed = assert_round_trip(unit, text)
    # The canonical text is a template file like any other: it checks the same way.
    assert check_template_text(printed).errors == []
    # Without comments, printing is canonical too.
    bare = print_unit(unit)
    again = parse_text(bare, "bare.pddl").unit
    assert again is not None and again.definitions == unit.definitions
    assert print_unit(again) == bare
    # Keywords and names are case-insensitive.
    loud = parse_text(shout(text, data.draw), "loud.pddl")
    assert loud.unit is not None and loud.unit.definitions == unit.definitions


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(CORRUPTIONS))
@fuzz(40)
@given(data=st.data())
def test_corrupted_templates_get_the_located_diagnostic(kind: str, data: st.DataObject) -> None:
    spec = data.draw(template_specs())
    corruption = CORRUPTIONS[kind](data.draw, spec)
    text = corruption.spec.text()
    result = check_template_text(text)
    found = [d for d in result.errors if d.code == corruption.code]
    assert found, ([(d.code, d.message) for d in result.diagnostics], text)
    under = [text[d.span.start : d.span.end] for d in found]
    if corruption.prefix:
        assert any(u.startswith(corruption.located) for u in under), (under, text)
    else:
        assert any(u.lower() == corruption.located for u in under), (under, text)


@pytest.mark.slow
@fuzz(60)
@given(template_specs(), st.booleans(), st.data())
def test_instruction_files_check_and_locate_their_diagnostics(
    spec: TemplateSpec, corrupt: bool, data: st.DataObject
) -> None:
    """The same instructions, as variants of a Jinja file: no errors, or a bad
    placeholder located in the file."""
    if corrupt:
        spec = unknown_placeholder(data.draw, spec).spec
    # A file without a word in it holds no instruction (G503): give blank ones a word.
    variants = [i.replace("---", "- -") for i in spec.instructions]
    content = "\n---\n".join(v if v.strip() else "Go." for v in variants) + "\n"
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "words.j2").write_text(content, encoding="utf-8")
        text = replace(spec, instruction_file="words.j2").text()
        path = str(Path(folder) / "t.pddl")
        result = check_sources([SourceFile(path, text)], [home_source()])
    j2 = str(Path(folder) / "words.j2")
    assert_reported(result, [SourceFile(path, text)], [SourceFile(j2, content)])
    if not corrupt:
        assert result.errors == [], [(d.code, d.message) for d in result.errors]
        return
    under = [content[d.span.start : d.span.end] for d in result.errors if d.file == j2]
    assert "zz_nothing" in under, (under, content)


@pytest.mark.slow
@fuzz(100)
@given(st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00/")))
def test_any_instruction_file_name_is_diagnosed(name: str) -> None:
    text = (
        "(define (template t) (:domain fdc-home) (:parameters ?o - mug) (:goal (holding ?o))\n"
        f"  (:instruction-file {pddl_string(name)}))\n"
    )
    result = check_template_text(text, path="no-such-folder/t.pddl")
    assert [d.code for d in result.errors] == ["J604"]
