"""Every one of the 441 real (domain, problem) pairs parses, type-checks and round-trips,
except the corpus's known-broken pairs, which are rejected with a located message."""

from __future__ import annotations

from pathlib import Path

import pytest

from fdc.compiler.check import check_sources
from fdc.compiler.parse import parse_source, parse_text
from fdc.compiler.printer import print_unit
from fdc.core.problems import SourceFile
from tests.compiler.conftest import broken_reason, corpus_pairs

PAIRS = corpus_pairs()


def test_corpus_has_441_pairs(corpus: Path) -> None:
    assert len(PAIRS) == 441


@pytest.mark.slow
@pytest.mark.parametrize("pair", PAIRS, ids=[p["problem"] for p in PAIRS])
def test_pair_checks(corpus: Path, pair: dict[str, str]) -> None:
    sources = [SourceFile.read(str(corpus / pair[k])) for k in ("domain", "problem")]
    result = check_sources(sources)
    reason = broken_reason(pair)
    if reason is None:
        assert result.errors == [], [d.message for d in result.errors]
        assert len(result.units) == 2
        return
    code, path, message = reason
    located = [
        d
        for d in result.errors
        if d.code == code and d.file.endswith(path) and d.message.startswith(message)
    ]
    assert located, [(d.code, d.file, d.message) for d in result.errors]
    assert all(d.span.start >= 0 for d in located)


def _files() -> list[str]:
    return sorted({p[k] for p in PAIRS for k in ("domain", "problem")})


@pytest.mark.slow
@pytest.mark.parametrize("name", _files())
def test_round_trip(corpus: Path, name: str) -> None:
    source = SourceFile.read(str(corpus / name))
    parsed = parse_source(source)
    if parsed.unit is None:
        assert broken_reason({"problem": name, "domain": name}) or "fridge" in name
        return
    printed = print_unit(parsed.unit, comments_from=source.text)
    again = parse_text(printed, name)
    assert again.diagnostics == []
    assert again.unit is not None
    assert again.unit.definitions == parsed.unit.definitions
    # Canonical: printing the canonical form changes nothing, comments included.
    assert print_unit(again.unit, comments_from=printed) == printed
