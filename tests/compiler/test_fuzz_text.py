"""Property tests: mutated corpus files and arbitrary text never escape as a traceback.

* mutated corpus files: small real domains and problems with tokens and parentheses
  deleted, duplicated, swapped or replaced, random text and bytes inserted, or the
  file cut short. `check_sources` must answer with a unit or with located diagnostics.
* random text, random characters from PDDL's alphabet, and random token soup: the lexer
  raises only `LexError`, the parser never raises.

Derandomized, so CI sees the same examples every run (tests/compiler/fuzzing.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache

import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.strategies import DrawFn

from fdc.compiler.check import check_sources
from fdc.compiler.lexer import WORD_KEYWORDS, LexError, tokenize
from fdc.compiler.parse import parse_text
from fdc.core.problems import SourceFile
from tests.compiler.conftest import CORPUS, corpus_pairs
from tests.compiler.fuzzing import (
    TOKEN,
    assert_parse_result,
    assert_reported,
    assert_round_trip,
    fuzz,
    home_source,
    needs_corpus,
)

# ---------------------------------------------------------------------------- corpus mutants

# The test's own tokenizer: strings, comments, parentheses and runs of other characters.

#: Tokens worth transplanting into any file: keywords, operators, edge-case literals.
_VOCABULARY_WORDS = """
    ( ) define domain problem template
    :domain :requirements :types :constants :predicates :functions :action :durative-action
    :derived :parameters :precondition :effect :duration :condition :objects :init :goal
    :metric :constraints :strips :instruction
    and or not imply exists forall when either preference increase assign
    at start end over all always within minimize
    at-least forn forpairs fornpairs argmax targets ordered-targets then
    - = <= + / ?x ? object number 0 -1 2.5 1e3 1e999 #t ;
"""
VOCABULARY = (*_VOCABULARY_WORDS.split(), '""', '"{{ x }}"', "İ", "\u2028", "\x00")

MAX_SAMPLE_BYTES = 6_000
SAMPLE_PAIRS_WANTED = 24


def _sample_pairs() -> list[tuple[str, str]]:
    """A fixed, sorted sample of small (domain, problem) pairs spread over the corpus."""

    def small(name: str) -> bool:
        return (CORPUS / name).stat().st_size <= MAX_SAMPLE_BYTES

    pairs = sorted(
        (p["domain"], p["problem"])
        for p in corpus_pairs()
        if small(p["domain"]) and small(p["problem"])
    )
    step = max(1, len(pairs) // SAMPLE_PAIRS_WANTED)
    return pairs[::step][:SAMPLE_PAIRS_WANTED]


SAMPLE_PAIRS = _sample_pairs()


@cache
def corpus_text(name: str) -> str:
    return SourceFile.read(str(CORPUS / name)).text


def _tokens(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in TOKEN.finditer(text)]


Mutation = Callable[[DrawFn, str], tuple[str, str]]


def _pick(draw: DrawFn, spans: list[tuple[int, int]]) -> tuple[int, int]:
    return spans[draw(st.integers(0, len(spans) - 1))]


def _parens(text: str) -> list[tuple[int, int]]:
    return [(s, e) for s, e in _tokens(text) if text[s:e] in "()"]


def delete_token(draw: DrawFn, text: str) -> tuple[str, str]:
    spans = _tokens(text)
    if not spans:
        return text, "delete: nothing"
    s, e = _pick(draw, spans)
    return text[:s] + text[e:], f"delete {text[s:e]!r}@{s}"


def duplicate_token(draw: DrawFn, text: str) -> tuple[str, str]:
    spans = _tokens(text)
    if not spans:
        return text, "duplicate: nothing"
    s, e = _pick(draw, spans)
    return text[:e] + " " + text[s:e] + text[e:], f"duplicate {text[s:e]!r}@{s}"


def swap_tokens(
    draw: DrawFn, text: str, spans: list[tuple[int, int]] | None = None
) -> tuple[str, str]:
    spans = _tokens(text) if spans is None else spans
    if len(spans) < 2:
        return text, "swap: nothing"
    i = draw(st.integers(0, len(spans) - 2))
    j = draw(st.integers(i + 1, len(spans) - 1))
    (s1, e1), (s2, e2) = spans[i], spans[j]
    swapped = text[:s1] + text[s2:e2] + text[e1:s2] + text[s1:e1] + text[e2:]
    return swapped, f"swap {text[s1:e1]!r}@{s1} {text[s2:e2]!r}@{s2}"


def delete_paren(draw: DrawFn, text: str) -> tuple[str, str]:
    spans = _parens(text)
    if not spans:
        return text, "delete paren: none"
    s, e = _pick(draw, spans)
    return text[:s] + text[e:], f"delete {text[s:e]!r}@{s}"


def insert_paren(draw: DrawFn, text: str) -> tuple[str, str]:
    spans = _tokens(text) or [(0, 0)]
    s, _ = _pick(draw, spans)
    paren = draw(st.sampled_from("()"))
    return text[:s] + paren + text[s:], f"insert {paren!r}@{s}"


def swap_paren(draw: DrawFn, text: str) -> tuple[str, str]:
    """Swap a parenthesis with another token, or turn it around."""
    parens = _parens(text)
    if not parens:
        return text, "swap paren: none"
    if draw(st.booleans()):
        s, e = _pick(draw, parens)
        flipped = ")" if text[s] == "(" else "("
        return text[:s] + flipped + text[e:], f"flip {text[s]!r}@{s}"
    pair = {_pick(draw, parens), _pick(draw, _tokens(text))}
    return swap_tokens(draw, text, sorted(pair))


def _words(text: str) -> list[tuple[int, int]]:
    """Names, variables and numbers: no parentheses, keywords, strings or comments."""
    return [
        (s, e)
        for s, e in _tokens(text)
        if text[s] not in '();:"-' and text[s:e].lower() not in WORD_KEYWORDS
    ]


def swap_words(draw: DrawFn, text: str) -> tuple[str, str]:
    """Swap two names (or variables, numbers): the file usually still parses."""
    return swap_tokens(draw, text, _words(text))


def rename_word(draw: DrawFn, text: str) -> tuple[str, str]:
    """Replace a name by another word of the file, or by the same name misspelt."""
    words = _words(text)
    if not words:
        return text, "rename: nothing"
    s, e = _pick(draw, words)
    if draw(st.booleans()):
        s2, e2 = _pick(draw, words)
        new = text[s2:e2]
    else:
        new = text[s:e] + draw(st.sampled_from(("x", "-2", "?")))
    return text[:s] + new + text[e:], f"rename {text[s:e]!r}@{s} to {new!r}"


def replace_token(draw: DrawFn, text: str) -> tuple[str, str]:
    """Replace a token by a keyword, an edge-case literal or another token of the file."""
    spans = _tokens(text)
    if not spans:
        return text, "replace: nothing"
    s, e = _pick(draw, spans)
    if draw(st.booleans()):
        new = draw(st.sampled_from(VOCABULARY))
    else:
        s2, e2 = _pick(draw, spans)
        new = text[s2:e2]
    return text[:s] + new + text[e:], f"replace {text[s:e]!r}@{s} by {new!r}"


def insert_text(draw: DrawFn, text: str) -> tuple[str, str]:
    at = draw(st.integers(0, len(text)))
    new = draw(st.text(max_size=12))
    return text[:at] + new + text[at:], f"insert {new!r}@{at}"


def insert_bytes(draw: DrawFn, text: str) -> tuple[str, str]:
    """Splice raw bytes into the UTF-8 file and decode it as `SourceFile.read` does."""
    data = text.encode("utf-8")
    at = draw(st.integers(0, len(data)))
    new = draw(st.binary(min_size=1, max_size=8))
    spliced = data[:at] + new + data[at:]
    return spliced.decode("utf-8", errors="replace"), f"insert bytes {new!r}@{at}"


def truncate(draw: DrawFn, text: str) -> tuple[str, str]:
    at = draw(st.integers(0, len(text)))
    return text[:at], f"truncate@{at}"


MUTATIONS: dict[str, Mutation] = {
    "delete": delete_token,
    "duplicate": duplicate_token,
    "swap": swap_tokens,
    "swap-words": swap_words,
    "rename": rename_word,
    "delete-paren": delete_paren,
    "insert-paren": insert_paren,
    "swap-paren": swap_paren,
    "replace": replace_token,
    "insert-text": insert_text,
    "insert-bytes": insert_bytes,
    "truncate": truncate,
}


@dataclass(frozen=True)
class Mutant:
    """A corpus pair with one of its files mutated; `steps` say how (for reproducers)."""

    domain: str
    problem: str
    mutated: str  # the corpus path of the mutated file
    steps: tuple[str, ...]
    text: str = field(repr=False)

    def sources(self) -> list[SourceFile]:
        return [
            SourceFile(name, self.text if name == self.mutated else corpus_text(name))
            for name in dict.fromkeys((self.domain, self.problem))
        ]


@st.composite
def mutants(draw: DrawFn) -> Mutant:
    domain, problem = draw(st.sampled_from(SAMPLE_PAIRS))
    mutated = draw(st.sampled_from((domain, problem)))
    text = corpus_text(mutated)
    steps: list[str] = []
    # Half the mutants keep their parentheses, so that most of them reach the checker.
    kinds = ("swap-words", "rename") if draw(st.booleans()) else sorted(MUTATIONS)
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(kinds))
        text, step = MUTATIONS[kind](draw, text)
        steps.append(step)
    return Mutant(domain, problem, mutated, tuple(steps), text)


@pytest.mark.slow
@needs_corpus
@fuzz(300)
@given(mutants())
def test_mutated_corpus_files_give_a_unit_or_diagnostics(m: Mutant) -> None:
    sources = m.sources()
    result = check_sources(sources)
    assert_reported(result, sources)
    texts = {s.path: s.text for s in sources}
    for unit in result.units:
        codes = {d.code for d in result.diagnostics if d.file == unit.path}
        assert_round_trip(unit, texts[unit.path], codes)


@needs_corpus
def test_the_corpus_sample_is_small_and_spread() -> None:
    assert len(SAMPLE_PAIRS) == SAMPLE_PAIRS_WANTED
    assert len({d.split("/")[0] for d, _ in SAMPLE_PAIRS}) == SAMPLE_PAIRS_WANTED


# ---------------------------------------------------------------------------- arbitrary text

PDDL_ALPHABET = '()?-:;"\\ \n\t abcdefinoprstwxyz0123456789.=<>+*/_#İ'

token_soup = st.lists(st.sampled_from(VOCABULARY), max_size=60).map(" ".join)


def assert_lexes_or_lex_error(text: str) -> None:
    last = 0
    try:
        for tok in tokenize(text):
            assert last <= tok.start_pos <= tok.end_pos <= len(text), tok
            last = tok.end_pos
    except LexError as e:
        assert 0 <= e.pos <= len(text)


@fuzz(300)
@given(st.text())
def test_any_text_lexes_and_parses_without_raising(text: str) -> None:
    assert_lexes_or_lex_error(text)
    assert_parse_result(parse_text(text, "fuzz.pddl"), text)


@pytest.mark.slow
@fuzz(300)
@given(st.one_of(st.text(alphabet=PDDL_ALPHABET, max_size=200), token_soup))
def test_pddl_like_text_checks_without_raising(text: str) -> None:
    assert_lexes_or_lex_error(text)
    sources = [SourceFile("fuzz.pddl", text)]
    result = check_sources(sources, [home_source()])
    assert_reported(result, sources)
    for unit in result.units:
        assert_round_trip(unit, text, {d.code for d in result.diagnostics})



@st.composite
def hostile_numbers(draw: DrawFn) -> str:
    """A number as an attacker writes it: thousands of digits, a huge exponent, signs."""
    digits = draw(st.sampled_from([1, 17, 99, 100, 101, 400, 4300, 4301, 5000]))
    body = draw(st.sampled_from("123456789")) + "0" * (digits - 1)
    return draw(st.sampled_from(["", "-"])) + body + draw(st.sampled_from(
        ["", ".5", "e999", "e-999", "E+308", ".0e400"]))


@fuzz(60)
@given(hostile_numbers(), st.sampled_from([
    "(define (domain d) (:functions (f)) (:action a :effect (increase (f) {n})))",
    "(define (problem p) (:domain d) (:init (= (f) {n})))",
    "(define (template t) (:domain fdc-home) (:level {n}) (:goal (hand-empty)))",
    "(define (template t) (:domain fdc-home) (:parameters ?o - movable)"
    " (:goal (at-least {n} (?x - movable) (on ?x ?o))) (:instruction \"{{{{ o | ref }}}}\"))",
]), st.integers(0, 300))
def test_hostile_numbers_and_nesting_check_without_raising(number: str, shape: str,
                                                          depth: int) -> None:
    """Numbers too long for Python's int conversion and formulas nested past the
    parser's depth give located diagnostics (P006, P005), never a traceback."""
    text = shape.format(n=number)
    if depth:
        text = text.replace("(hand-empty)", "(not " * depth + "(hand-empty)" + ")" * depth)
    assert_lexes_or_lex_error(text)
    sources = [SourceFile("fuzz.pddl", text)]
    result = check_sources(sources, [home_source()])
    assert_reported(result, sources)
    if len(number) > 100:
        assert "P006" in {d.code for d in result.diagnostics}
