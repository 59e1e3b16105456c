"""What the property tests of the front end share (tests/compiler/test_fuzz_*.py): the
hypothesis settings (derandomized; `FDC_FUZZ_SCALE`, `FDC_FUZZ_RANDOM`), the invariants
every answer must keep (spans inside the file, problems reported and located, round
trips), and the random well-formed templates over `fdc-home` with their corruptions.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import cache

import pytest
from hypothesis import HealthCheck, Phase, assume, settings
from hypothesis import strategies as st
from hypothesis.strategies import DrawFn

from fdc.compiler import ast as A
from fdc.compiler.check import CheckResult, check_sources
from fdc.compiler.parse import ParseResult, parse_text
from fdc.compiler.printer import print_unit
from fdc.core.problems import SourceFile, render_text, to_json
from fdc.instructions.variants import jinja_name
from tests.compiler.conftest import CORPUS, REPO

FUZZ = settings(
    max_examples=100,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    # No explain phase: on a failure it re-runs the test for minutes.
    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink],
)

#: `FDC_FUZZ_SCALE=20 FDC_FUZZ_RANDOM=1 pytest tests/compiler/test_fuzz_*.py` fuzzes deeper,
#: with fresh examples each run; CI runs the fixed, derandomized default.
SCALE = float(os.environ.get("FDC_FUZZ_SCALE", "1"))
RANDOM = bool(os.environ.get("FDC_FUZZ_RANDOM"))


def fuzz(examples: int) -> settings:
    return settings(FUZZ, max_examples=max(1, round(examples * SCALE)), derandomize=not RANDOM)


needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"no PDDL corpus at {CORPUS}")

HOME_PATH = REPO / "domain" / "fdc-home.pddl"

#: A token of PDDL text: a string, a comment, a parenthesis or a word.
TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|;[^\n]*|[()]|[^\s()";]+')


# ---------------------------------------------------------------------------- invariants


def assert_span_in(span: A.Span, text: str, what: object) -> None:
    assert 0 <= span.start <= span.end <= len(text), (span, len(text), what)


def assert_unit_spans(unit: A.SourceUnit, text: str) -> None:
    for node in unit.walk():
        if node.span != A.NO_SPAN:
            assert_span_in(node.span, text, node)


def assert_reported(
    result: CheckResult, sources: Sequence[SourceFile], others: Sequence[SourceFile] = ()
) -> None:
    """Every source gave a unit or an error; every diagnostic is well formed, located
    inside its file (a source, or one of `others`: instruction files), and renders as
    text and JSON."""
    texts = {s.path: s.text for s in (*sources, *others)}
    for d in result.diagnostics:
        assert d.code and d.message, d
        assert d.file in texts, d
        if d.span != A.NO_SPAN:
            assert_span_in(d.span, texts[d.file], d)
        assert render_text(d, result.sources)
        assert to_json(d, result.sources)["code"] == d.code
    parsed = {u.path for u in result.units}
    for s in sources:
        if s.path not in parsed:
            assert any(d.is_error and d.file == s.path for d in result.diagnostics), s.path
    for unit in result.units:
        assert_unit_spans(unit, texts[unit.path])


def assert_parse_result(result: ParseResult, text: str) -> None:
    if result.unit is None:
        assert [d for d in result.diagnostics if d.is_error], "no unit and no error"
    else:
        assert_unit_spans(result.unit, text)
    for d in result.diagnostics:
        if d.span != A.NO_SPAN:
            assert_span_in(d.span, text, d)


def assert_round_trip(unit: A.SourceUnit, text: str, codes: set[str] | None = None) -> str:
    """`parse(print(ast)) == ast`, and printing the printed text changes nothing.

    `codes` are the diagnostics the original had; the re-parse may repeat them (a
    repaired `(foo 3 (p))` prints as itself) but raise no new ones."""
    printed = print_unit(unit, comments_from=text)
    again = parse_text(printed, unit.path)
    assert again.unit is not None, (printed, again.diagnostics)
    assert again.unit.definitions == unit.definitions, printed
    assert {d.code for d in again.diagnostics} <= (codes or set()), again.diagnostics
    assert print_unit(again.unit, comments_from=printed) == printed
    assert print_unit(again.unit) == print_unit(unit)
    return printed


# ---------------------------------------------------------------------------- the home domain


@cache
def home_source() -> SourceFile:
    return SourceFile.read(str(HOME_PATH))


@dataclass(frozen=True)
class Home:
    """What the generator needs to know of `fdc-home`, read from its AST."""

    parents: dict[str, tuple[str, ...]]
    predicates: dict[str, tuple[tuple[str, ...], ...]]  # name -> argument types
    functions: dict[str, tuple[tuple[str, ...], ...]]
    constants: dict[str, tuple[str, ...]]

    @property
    def types(self) -> list[str]:
        return sorted({"object", *self.parents})

    def ancestors(self, name: str) -> set[str]:
        seen, stack = {name, "object"}, [name]
        while stack:
            for parent in self.parents.get(stack.pop(), ()):
                if parent not in seen:
                    seen.add(parent)
                    stack.append(parent)
        return seen

    def fits(self, actual: Sequence[str], expected: Sequence[str]) -> bool:
        """Every entity of type `actual` is one of `expected` (`()` is `object`)."""
        if not expected or "object" in expected:
            return True
        return all(any(e in self.ancestors(a) for e in expected) for a in actual or ("object",))


@cache
def home() -> Home:
    parsed = parse_text(home_source().text, str(HOME_PATH))
    assert parsed.unit is not None and not parsed.diagnostics
    (domain,) = parsed.unit.definitions
    assert isinstance(domain, A.Domain)
    parents: dict[str, tuple[str, ...]] = {}
    for t in domain.types:
        parents[t.name] = t.types or ("object",)
    return Home(
        parents=parents,
        predicates={p.name: tuple(a.types for a in p.parameters) for p in domain.predicates},
        functions={f.name: tuple(a.types for a in f.parameters) for f in domain.functions},
        constants={c.name: c.types for c in domain.constants},
    )


# ---------------------------------------------------------------------------- template generator


@dataclass(frozen=True)
class Sx:
    """A generated s-expression. `kind` marks atoms and function terms for corruptions."""

    head: str
    items: tuple[Sx | str, ...] = ()
    kind: str = "form"  # "atom", "fn" or "form"

    def text(self) -> str:
        items = (i if isinstance(i, str) else i.text() for i in self.items)
        return "(" + " ".join([self.head, *items]) + ")"

    def walk(self) -> Iterator[Sx]:
        yield self
        for item in self.items:
            if isinstance(item, Sx):
                yield from item.walk()

    def replaced(self, old: Sx, new: Sx) -> Sx:
        """This tree with the node `old` (by identity) replaced by `new`."""
        if self is old:
            return new
        items = tuple(i if isinstance(i, str) else i.replaced(old, new) for i in self.items)
        return replace(self, items=items)


Scope = dict[str, tuple[str, ...]]  # variable -> its types

#: Words Jinja reads as something other than a name (a parameter called `?not` cannot
#: be written `{{ not }}`).
JINJA_WORDS = {"and", "or", "not", "in", "is", "if", "else", "true", "false", "none"}
#: An instruction that lists the targets of a multi-goal task.
LOOP = "{% for t in targets %}{{ t | ref }}{% if not loop.last %}, {% endif %}{% endfor %}"
#: Fdc's filters and a few of Jinja's own, as an instruction may chain them.
FILTER_NAMES = ("a", "the", "ref", "plural", "ordinal", "upper", "lower", "title", "capitalize")

names = st.from_regex(r"[a-z][a-z0-9]{0,5}(-[a-z0-9]{1,4})?", fullmatch=True)
#: Number literals as the lexer reads them (`1e400` is infinity).
number_literals = st.from_regex(
    r"-?[0-9]{1,4}(\.[0-9]{1,3})?([eE][-+]?[0-9]{1,3})?", fullmatch=True
)
#: Comment text, with characters whose lower case is longer (`İ`) now and then.
comment_text = st.text(
    st.one_of(
        st.characters(blacklist_categories=("Cs",), blacklist_characters="\n"),
        st.sampled_from("İΣẞ\r\x0c\x85\u2028"),
    ),
    max_size=20,
)
#: Free instruction text: no braces, so no accidental Jinja; quotes, backslashes, lone
#: `\r`s and newlines exercise string escapes and Jinja's line counting.
prose = st.text(
    st.one_of(
        st.characters(blacklist_categories=("Cs",), blacklist_characters="{}"),
        st.sampled_from('\n\n\r "\\'),
    ),
    max_size=15,
)


class TemplateGen:
    """Draws one random well-formed template body over `fdc-home`."""

    def __init__(self, draw: DrawFn, home: Home) -> None:
        self.draw = draw
        self.home = home
        self.fresh = 0

    def var(self) -> str:
        self.fresh += 1
        return f"?v{self.fresh}"

    def type_(self) -> str:
        return self.draw(st.sampled_from(self.home.types))

    def typed(self, variables: Sequence[tuple[str, tuple[str, ...]]]) -> str:
        return "(" + " ".join(typed_entry(v, t) for v, t in variables) + ")"

    def fresh_vars(self, count: int) -> list[tuple[str, tuple[str, ...]]]:
        return [(self.var(), (self.type_(),)) for _ in range(count)]

    # ------------------------------------------------------------------ terms
    def term_for(self, expected: tuple[str, ...], scope: Scope) -> str | None:
        """A variable in scope or a constant of a type that fits, or None."""
        fitting = [v for v, t in scope.items() if self.home.fits(t, expected)]
        fitting += [c for c, t in self.home.constants.items() if self.home.fits(t, expected)]
        if not fitting:
            return None
        return self.draw(st.sampled_from(sorted(fitting)))

    def atom(self, scope: Scope) -> Sx:
        """A well-typed atom; arguments nothing in scope can fill get a fresh variable,
        bound by an `exists` around the atom."""
        name = self.draw(st.sampled_from(sorted(self.home.predicates)))
        args: list[str] = []
        fresh: list[tuple[str, tuple[str, ...]]] = []
        for expected in self.home.predicates[name]:
            term = self.term_for(expected, scope) if self.draw(st.integers(0, 4)) else None
            if term is None:
                fitting = [t for t in self.home.types if self.home.fits((t,), expected)]
                fresh.append((self.var(), (self.draw(st.sampled_from(fitting)),)))
                term = fresh[-1][0]
            args.append(term)
        atom = Sx(name, tuple(args), "atom")
        if fresh:
            return Sx("exists", (self.typed(fresh), atom))
        return atom

    def numeric(self, scope: Scope, depth: int) -> Sx | str:
        choice = self.draw(st.sampled_from(("fn", "fn", "number", "arith")))
        if choice == "arith" and depth > 0:
            op = self.draw(st.sampled_from("+-*/"))
            count = {"+": (2, 3), "*": (2, 3), "-": (1, 2), "/": (2, 2)}[op]
            n = self.draw(st.integers(*count))
            return Sx(op, tuple(self.numeric(scope, depth - 1) for _ in range(n)))
        if choice == "number":
            return self.draw(number_literals)
        fillable = []
        for name, slots in sorted(self.home.functions.items()):
            terms = [self.term_for(s, scope) for s in slots]
            if all(t is not None for t in terms):
                fillable.append(Sx(name, tuple(t for t in terms if t is not None), "fn"))
        return self.draw(st.sampled_from(fillable))  # `(total-cost)` always fits

    # ------------------------------------------------------------------ formulas
    def formula(self, scope: Scope, depth: int, multi: bool = False, binding: bool = False) -> Sx:
        """A formula; `multi`: targets and `then` may appear (top of a goal, in `then`);
        `binding`: a binding constraint (no multi-goal forms at all)."""
        kinds = ["atom", "atom", "atom", "compare", "equal"]
        if depth > 0:
            kinds += ["and", "or", "not", "imply", "exists", "forall", "count", "pairs"]
            kinds += ["extreme", "extreme"] if scope else []
            kinds += ["targets", "targets", "then"] if multi and not binding else []
        kind = self.draw(st.sampled_from(kinds))
        sub = depth - 1
        if kind == "atom":
            return self.atom(scope)
        if kind == "compare":
            op = self.draw(st.sampled_from(("<", "<=", ">", ">=", "=")))
            left = self.numeric(scope, 1)
            if isinstance(left, str):
                left = Sx("total-cost", (), "fn")
            return Sx(op, (left, self.numeric(scope, 1)))
        if kind == "equal":
            a = self.term_for((), scope)
            b = self.term_for((), scope)
            assert a is not None and b is not None  # constants fit `object`
            return Sx("=", (a, b))
        if kind in ("and", "or"):
            low = 0 if kind == "and" else 1
            n = self.draw(st.integers(low, 3))
            return Sx(kind, tuple(self.formula(scope, sub, binding=binding) for _ in range(n)))
        if kind == "not":
            return Sx("not", (self.formula(scope, sub, binding=binding),))
        if kind == "imply":
            return Sx(
                "imply",
                (
                    self.formula(scope, sub, binding=binding),
                    self.formula(scope, sub, binding=binding),
                ),
            )
        if kind in ("exists", "forall", "count"):
            variables = self.fresh_vars(self.draw(st.integers(1, 2)))
            body = self.formula({**scope, **dict(variables)}, sub, binding=binding)
            if kind != "count":
                return Sx(kind, (self.typed(variables), body))
            op = self.draw(st.sampled_from(("at-least", "at-most", "exactly", "forn")))
            n = str(self.draw(st.integers(0, 5)))
            return Sx(op, (n, self.typed(variables), body))
        if kind == "pairs":
            first, second = self.fresh_vars(1), self.fresh_vars(1)
            body = self.formula({**scope, **dict(first), **dict(second)}, sub, binding=binding)
            head: tuple[str, ...] = ()
            if self.draw(st.booleans()):
                head = (str(self.draw(st.integers(0, 4))),)
            op = "fornpairs" if head else "forpairs"
            return Sx(op, (*head, self.typed(first), self.typed(second), body))
        if kind == "extreme":
            target = self.draw(st.sampled_from(sorted(scope)))
            ((x, _),) = self.fresh_vars(1)
            inner = {**scope, x: scope[target] or ("object",)}
            parts: list[Sx | str] = [target, self.typed([(x, inner[x])]), self.numeric(inner, 1)]
            if self.draw(st.booleans()):
                parts.append(self.formula(inner, sub, binding=binding))
            return Sx(self.draw(st.sampled_from(("argmax", "argmin"))), tuple(parts))
        if kind == "targets":
            variables = self.fresh_vars(1)
            inner = {**scope, **dict(variables)}
            order: tuple[Sx | str, ...] = ()
            if self.draw(st.booleans()):
                order = (self.numeric(inner, 1),)
            condition = self.formula(inner, sub, binding=True)
            goal = self.formula(inner, sub)
            op = "ordered-targets" if order else "targets"
            return Sx(op, (self.typed(variables), *order, condition, goal))
        assert kind == "then"
        steps = self.draw(st.integers(1, 3))
        return Sx("then", tuple(self.formula(scope, sub, multi=True) for _ in range(steps)))

    # ------------------------------------------------------------------ instructions
    def instruction(self, params: Sequence[str]) -> str:
        parts: list[str] = []
        for _ in range(self.draw(st.integers(1, 4))):
            kind = self.draw(st.sampled_from(("prose", "param", "param", "global", "loop")))
            if kind == "prose":
                parts.append(self.draw(prose))
            elif kind == "param" and params:
                filters = self.draw(st.lists(st.sampled_from(FILTER_NAMES), max_size=2))
                name = jinja_name(self.draw(st.sampled_from(params)))
                parts.append("{{ " + " | ".join([name, *filters]) + " }}")
            elif kind == "global":
                parts.append(
                    self.draw(st.sampled_from(("{{ n_targets }}", "{{ targets | join_list }}")))
                )
            elif kind == "loop":
                parts.append(LOOP)
        return "".join(parts)


def typed_entry(name: str, types: tuple[str, ...]) -> str:
    if not types:
        return name
    if len(types) == 1:
        return f"{name} - {types[0]}"
    return f"{name} - (either {' '.join(types)})"


def pddl_string(text: str, escape_newlines: bool = False) -> str:
    """A PDDL string literal; newlines raw, or written as the escape `\\n`."""
    body = text.replace("\\", "\\\\").replace('"', '\\"')
    if escape_newlines:
        body = body.replace("\n", "\\n")
    return '"' + body + '"'


@dataclass(frozen=True)
class TemplateSpec:
    """A generated template: structured enough for corruptions, rendered by `text`."""

    name: str
    params: tuple[tuple[str, tuple[str, ...]], ...]
    goal: Sx
    constraints: Sx | None
    instructions: tuple[str, ...]
    extras: tuple[str, ...]  # category, level, tags, version, description, ambiguity
    order: tuple[int, ...]  # section order, a permutation
    comments: tuple[str, ...]  # one per section slot, "" for none
    escape_newlines: bool = False
    instruction_file: str | None = None  # instead of the inline instructions

    def sections(self) -> list[str]:
        found = [
            "(:domain fdc-home)",
            "(:parameters " + " ".join(typed_entry(n, t) for n, t in self.params) + ")",
            f"(:goal {self.goal.text()})",
            self.instruction_section(),
            *self.extras,
        ]
        if self.constraints is not None:
            found.append(f"(:constraints {self.constraints.text()})")
        return found

    def instruction_section(self) -> str:
        if self.instruction_file is not None:
            return f"(:instruction-file {pddl_string(self.instruction_file)})"
        strings = (pddl_string(i, self.escape_newlines) for i in self.instructions)
        return "(:instruction " + " ".join(strings) + ")"

    def text(self) -> str:
        sections = self.sections()
        lines = [f"(define (template {self.name})"]
        for slot, i in enumerate(i for i in self.order if i < len(sections)):
            comment = self.comments[slot % len(self.comments)]
            if comment:
                lines.append(f"  ; {comment}")
            lines.append("  " + sections[i])
        return "\n".join(lines) + ")\n"


@st.composite
def template_specs(draw: DrawFn, name: str = "t") -> TemplateSpec:
    gen = TemplateGen(draw, home())
    param_names = draw(
        st.lists(names.filter(lambda n: n not in JINJA_WORDS), max_size=4, unique=True)
    )
    params: list[tuple[str, tuple[str, ...]]] = []
    for p in param_names:
        shape = draw(st.sampled_from(("one", "one", "one", "either", "untyped")))
        if shape == "one":
            params.append((f"?{p}", (gen.type_(),)))
        elif shape == "either":
            params.append((f"?{p}", tuple(sorted({gen.type_(), gen.type_()}))))
        else:
            params.append((f"?{p}", ()))
    scope = dict(params)
    depth = draw(st.integers(0, 3))
    goal = gen.formula(scope, depth, multi=True)
    if goal == Sx("and"):
        goal = gen.atom(scope)  # `(:goal (and))` is empty (G503)
    constraints = None
    if draw(st.booleans()):
        constraints = gen.formula(scope, draw(st.integers(0, 2)), binding=True)
    instructions = tuple(
        gen.instruction([p for p, _ in params]) for _ in range(draw(st.integers(1, 3)))
    )
    extras = []
    if draw(st.booleans()):
        extras.append(f"(:category {draw(names)})")
    if draw(st.booleans()):
        extras.append(f"(:level {draw(st.integers(1, 4))})")
    if draw(st.booleans()):
        extras.append(f"(:tags {' '.join(draw(st.lists(names, max_size=3)))})")
    if draw(st.booleans()):
        extras.append(f"(:version {draw(st.integers(1, 9))})")
    if draw(st.booleans()):
        extras.append(f"(:description {pddl_string(draw(prose))})")
    if draw(st.booleans()):
        extras.append(f"(:ambiguity {draw(st.sampled_from(('reject', 'widen')))})")
    sections = 5 + len(extras)  # domain, parameters, goal, instruction, constraints?
    order = tuple(draw(st.permutations(range(sections))))
    comments = tuple(draw(st.lists(st.one_of(st.just(""), comment_text), min_size=1, max_size=4)))
    return TemplateSpec(
        name,
        tuple(params),
        goal,
        constraints,
        instructions,
        tuple(extras),
        order,
        comments,
        draw(st.booleans()),
    )


@st.composite
def template_files(draw: DrawFn) -> list[TemplateSpec]:
    """One to three templates with distinct names, for one file."""
    template_names = draw(st.lists(names, min_size=1, max_size=3, unique=True))
    return [draw(template_specs(name)) for name in template_names]


def check_template_text(text: str, path: str = "generated.pddl") -> CheckResult:
    sources = [SourceFile(path, text)]
    result = check_sources(sources, [home_source()])
    assert_reported(result, sources)
    return result


def shout(text: str, draw: DrawFn) -> str:
    """Upper-case random tokens outside strings and comments (PDDL ignores case)."""
    out, last = [], 0
    for m in TOKEN.finditer(text):
        token = m.group(0)
        if token[0] not in '";' and draw(st.booleans()):
            token = token.upper()
        out.append(text[last : m.start()] + token)
        last = m.end()
    return "".join(out) + text[last:]


# ---------------------------------------------------------------------------- corruptions


@dataclass(frozen=True)
class Corruption:
    """A broken template, the code it must get, and the text its span must cover."""

    code: str
    spec: TemplateSpec
    located: str  # the text under the diagnostic's span (a prefix of it for forms)
    prefix: bool = False


def _atoms(spec: TemplateSpec, with_args: bool = False) -> list[Sx]:
    return [
        node for node in spec.goal.walk() if node.kind == "atom" and (node.items or not with_args)
    ]


def _swap_atom(
    draw: DrawFn, spec: TemplateSpec, change: Callable[[Sx], Sx], with_args: bool = False
) -> tuple[TemplateSpec, Sx]:
    atoms = _atoms(spec, with_args)
    assume(atoms)
    old = draw(st.sampled_from(atoms))
    new = change(old)
    return replace(spec, goal=spec.goal.replaced(old, new)), new


def wrong_arity(draw: DrawFn, spec: TemplateSpec) -> Corruption:
    def change(atom: Sx) -> Sx:
        if atom.items and draw(st.booleans()):
            return replace(atom, items=atom.items[:-1])
        return replace(atom, items=(*atom.items, "red"))

    broken, atom = _swap_atom(draw, spec, change)
    return Corruption("T301", broken, atom.text())


def unknown_predicate(draw: DrawFn, spec: TemplateSpec) -> Corruption:
    broken, atom = _swap_atom(draw, spec, lambda a: replace(a, head="zz-" + a.head))
    return Corruption("N203", broken, atom.head)


def function_as_predicate(draw: DrawFn, spec: TemplateSpec) -> Corruption:
    broken, _ = _swap_atom(draw, spec, lambda a: replace(a, head="total-cost", items=()))
    return Corruption("T303", broken, "total-cost")


def unbound_variable(draw: DrawFn, spec: TemplateSpec) -> Corruption:
    def change(atom: Sx) -> Sx:
        i = draw(st.integers(0, len(atom.items) - 1))
        return replace(atom, items=(*atom.items[:i], "?zz-unbound", *atom.items[i + 1 :]))

    broken, _ = _swap_atom(draw, spec, change, with_args=True)
    return Corruption("V401", broken, "?zz-unbound")


def unknown_filter(draw: DrawFn, spec: TemplateSpec) -> Corruption:
    i = draw(st.integers(0, len(spec.instructions) - 1))
    placeholder = "{{ n_targets | zz_filter }}"
    texts = (
        *spec.instructions[:i],
        spec.instructions[i] + placeholder,
        *spec.instructions[i + 1 :],
    )
    return Corruption("J603", replace(spec, instructions=texts), "zz_filter")


def unknown_placeholder(draw: DrawFn, spec: TemplateSpec) -> Corruption:
    """`{{ zz_nothing }}` after random text (newlines and all) in one instruction."""
    i = draw(st.integers(0, len(spec.instructions) - 1))
    bad = draw(prose) + "{{ zz_nothing }}" + spec.instructions[i]
    texts = (*spec.instructions[:i], bad, *spec.instructions[i + 1 :])
    return Corruption("J602", replace(spec, instructions=texts), "zz_nothing")


def unknown_type(draw: DrawFn, spec: TemplateSpec) -> Corruption:
    assume(spec.params)
    i = draw(st.integers(0, len(spec.params) - 1))
    name, _ = spec.params[i]
    unknown = "zz"
    params = (*spec.params[:i], (name, (unknown,)), *spec.params[i + 1 :])
    return Corruption("N202", replace(spec, params=params), unknown)


def nested_targets(draw: DrawFn, spec: TemplateSpec) -> Corruption:
    targets = Sx(
        "targets",
        ("(?zz - mug)", Sx("interacted", ("?zz",), "atom"), Sx("holding", ("?zz",), "atom")),
    )
    wrapper = draw(st.sampled_from(("not", "and", "or")))
    goal = Sx(wrapper, (targets,)) if wrapper == "not" else Sx(wrapper, (spec.goal, targets))
    return Corruption("G501", replace(spec, goal=goal), "(targets", prefix=True)


CORRUPTIONS: dict[str, Callable[[DrawFn, TemplateSpec], Corruption]] = {
    "wrong-arity": wrong_arity,
    "unknown-predicate": unknown_predicate,
    "function-as-predicate": function_as_predicate,
    "unbound-variable": unbound_variable,
    "unknown-filter": unknown_filter,
    "unknown-placeholder": unknown_placeholder,
    "unknown-type": unknown_type,
    "nested-targets": nested_targets,
}


# ---------------------------------------------------------------------------- instruction files


