"""The parse pass: source text to AST (`SourceUnit`) plus diagnostics.

Lark's LALR parser runs with fdc's regex lexer and an inline `Transformer`, so no parse
tree is ever built: each grammar rule's callback returns its AST node directly. The
parser is built once per process, on first use (building it costs about as much as
parsing a large file; importing this module costs nothing).
See docs/language.md.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from functools import cache
from importlib import resources
from itertools import pairwise
from typing import Any, NamedTuple

from lark import Lark, Token, Transformer
from lark.parsers.lalr_analysis import Shift

from fdc.core.errors import FdcError
from fdc.core.problems import Diagnostic, Severity, SourceFile, did_you_mean

from . import ast as A
from .lexer import COLON_KEYWORDS, WORD_KEYWORDS, FdcLexer, LexError, make_token, tokenize

Span = A.Span


class _TypeMark(NamedTuple):
    """`- type` in a typed list."""

    types: tuple[str, ...]
    span: A.Span


class _Section(NamedTuple):
    key: str
    value: Any
    span: A.Span


# What the parser says for a token kind in "expected ..." messages.
_TOKEN_NAMES: dict[str, str] = {
    "LPAR": "`(`",
    "RPAR": "`)`",
    "NAME": "a name",
    "VAR": "a variable",
    "NUMBER": "a number",
    "STRING": 'a string ("...")',
    "MINUS": "`-`",
    "COMP": "a comparison",
    "ARITH": "an arithmetic operator",
    "KEYWORD": "a `:keyword`",
    "$END": "the end of the file",
}


def _span(children: list[Any]) -> A.Span:
    return A.Span(children[0].start_pos, children[-1].end_pos)


def _tok_span(tok: Token) -> A.Span:
    return A.Span(tok.start_pos, tok.end_pos)


def _number(tok: Token) -> int | float:
    text = str(tok)
    if "." in text or "e" in text or "E" in text:
        return float(text)
    return int(text)


_ESCAPE = re.compile(r"\\(.)", re.DOTALL)
_ESCAPES = {"n": "\n", "t": "\t"}


def _string(tok: Token) -> str:
    return _ESCAPE.sub(lambda m: _ESCAPES.get(m.group(1), m.group(1)), str(tok)[1:-1])


_TIMES = {("at", "start"): "start", ("at", "end"): "end", ("over", "all"): "all"}

# PDDL3 modal operators: op -> (numbers, formulas)
_MODAL_SHAPES: dict[str, tuple[int, int]] = {
    "always": (0, 1),
    "sometime": (0, 1),
    "at-most-once": (0, 1),
    "sometime-after": (0, 2),
    "sometime-before": (0, 2),
    "within": (1, 1),
    "always-within": (1, 2),
    "hold-during": (2, 1),
    "hold-after": (1, 1),
}

_COUNT_OPS = {
    "forn": "at-least",
    "at-least": "at-least",
    "at-most": "at-most",
    "exactly": "exactly",
}


class _ToAst(Transformer):  # type: ignore[type-arg]
    """One callback per grammar rule, each returning an AST node (or a section)."""

    def __init__(self) -> None:
        super().__init__()
        self.file = ""
        #: Constructs that parsed but mean nothing (`(at noon (p))`); parsing goes on.
        self.problems: list[Diagnostic] = []

    def _problem(self, code: str, message: str, span: A.Span, hint: str = "") -> None:
        self.problems.append(_error(self.file, code, message, span, hint))

    # ------------------------------------------------------------------ typed lists
    def type_marker(self, c: list[Any]) -> _TypeMark:
        t = c[1]
        types = t.types if isinstance(t, _TypeMark) else (str(t),)
        end = t.span.end if isinstance(t, _TypeMark) else t.end_pos
        return _TypeMark(types, A.Span(c[0].start_pos, end))

    def either(self, c: list[Any]) -> _TypeMark:
        return _TypeMark(tuple(str(t) for t in c[2:-1]), _span(c))

    def _typed(self, c: list[Any], what: str) -> tuple[A.TypedName, ...]:
        out: list[A.TypedName] = []
        pending: list[Token] = []
        make = A.TypedName.make
        for item in c:
            if isinstance(item, _TypeMark):
                if not pending:
                    self._problem(
                        "P103",
                        f"`- {' '.join(item.types)}` follows no {what}",
                        item.span,
                        f"write the {what}s before `- type`",
                    )
                types = item.types
                out.extend(make(name=str(t), types=types, span=_tok_span(t)) for t in pending)
                pending = []
            else:
                pending.append(item)
        out.extend(make(name=str(t), types=(), span=_tok_span(t)) for t in pending)
        return tuple(out)

    def typed_names(self, c: list[Any]) -> tuple[A.TypedName, ...]:
        return self._typed(c, "name")

    def typed_vars(self, c: list[Any]) -> tuple[A.TypedName, ...]:
        return self._typed(c, "variable")

    # ------------------------------------------------------------------ terms, numbers
    def constant(self, c: list[Any]) -> A.Constant:
        t = c[0]
        return A.Constant.make(name=str(t), span=A.Span(t.start_pos, t.end_pos))

    def variable(self, c: list[Any]) -> A.Variable:
        t = c[0]
        return A.Variable.make(name=str(t), span=A.Span(t.start_pos, t.end_pos))

    def number(self, c: list[Any]) -> A.Number:
        return A.Number.make(value=_number(c[0]), span=_tok_span(c[0]))

    def function_term(self, c: list[Any]) -> A.FunctionTerm:
        return A.FunctionTerm.make(name=str(c[1]), args=tuple(c[2:-1]), span=_span(c))

    def arith(self, c: list[Any]) -> A.Arithmetic:
        op = str(c[1])
        args = tuple(c[2:-1])
        if (op != "-" and len(args) < 2) or (len(args) > 2 and op in "-/"):
            self._problem(
                "P104",
                f"`{op}` takes {'one or two' if op == '-' else 'two'} operands, not {len(args)}",
                _span(c),
            )
        return A.Arithmetic.make(op=op, args=args, span=_span(c))

    # ------------------------------------------------------------------ formulas
    def atom(self, c: list[Any]) -> A.Atom:
        return A.Atom.make(predicate=str(c[1]), args=tuple(c[2:-1]), span=_span(c))

    def and_(self, c: list[Any]) -> A.And:
        return A.And.make(parts=tuple(c[2:-1]), span=_span(c))

    def or_(self, c: list[Any]) -> A.Or:
        return A.Or.make(parts=tuple(c[2:-1]), span=_span(c))

    def not_(self, c: list[Any]) -> A.Not:
        return A.Not.make(body=c[2], span=_span(c))

    def imply(self, c: list[Any]) -> A.Imply:
        return A.Imply.make(condition=c[2], consequence=c[3], span=_span(c))

    def exists(self, c: list[Any]) -> A.Exists:
        return A.Exists.make(variables=c[3], body=c[5], span=_span(c))

    def forall(self, c: list[Any]) -> A.Forall:
        return A.Forall.make(variables=c[3], body=c[5], span=_span(c))

    def when(self, c: list[Any]) -> A.When:
        return A.When.make(condition=c[2], effect=c[3], span=_span(c))

    def comparison(self, c: list[Any]) -> A.Atom | A.Comparison:
        op, left, right = str(c[1]), c[2], c[3]
        terms = (A.Constant, A.Variable)
        if op == "=" and isinstance(left, terms) and isinstance(right, terms):
            return A.Atom.make(predicate="=", args=(left, right), span=_span(c))
        return A.Comparison.make(op=op, left=left, right=right, span=_span(c))

    def preference(self, c: list[Any]) -> A.Preference:
        name = str(c[2]) if isinstance(c[2], Token) else None
        return A.Preference.make(name=name, body=c[-2], span=_span(c))

    def assign(self, c: list[Any]) -> A.NumericEffect:
        return A.NumericEffect.make(op=str(c[1]), target=c[2], value=c[3], span=_span(c))

    def timed(self, c: list[Any]) -> A.Formula:
        key = (str(c[1]), str(c[2]))
        time = _TIMES.get(key)
        if time is None:
            self._problem(
                "P105",
                f"`({key[0]} {key[1]} ...)` is no time specifier",
                _span(c),
                "durative conditions and effects use `(at start φ)`, `(at end φ)`, `(over all φ)`",
            )
            time = "start"
        return A.Timed.make(time=time, body=c[3], span=_span(c))

    def modal(self, c: list[Any]) -> A.Formula:
        op = str(c[1])
        numbers = tuple(_number(t) for t in c[2:-1] if isinstance(t, Token))
        parts = tuple(x for x in c[2:-1] if not isinstance(x, Token))
        span = _span(c)
        if op == "at" and len(numbers) == 1 and len(parts) == 1:
            return A.TimedLiteral.make(time=numbers[0], body=parts[0], span=span)
        shape = _MODAL_SHAPES.get(op)
        if shape is None:
            self._problem(
                "P106",
                f"`{op}` is no formula operator",
                span,
                "an atom's arguments are names and variables; operators are "
                "and, or, not, imply, exists, forall, when, and PDDL3's always, sometime, ...",
            )
        elif shape != (len(numbers), len(parts)):
            self._problem(
                "P106",
                f"`{op}` takes {shape[0]} number(s) and {shape[1]} formula(s), "
                f"not {len(numbers)} and {len(parts)}",
                span,
            )
        if shape is None or op not in _MODAL_SHAPES:
            op = "always"
        return A.Modal.make(op=op, numbers=numbers, parts=parts, span=span)

    def _count_n(self, tok: Token) -> int:
        value = _number(tok)
        if not isinstance(value, int) or value < 0:
            self._problem(
                "P107",
                f"a count must be a whole number of at least 0, not `{tok}`",
                _tok_span(tok),
            )
            return 0
        return value

    def count(self, c: list[Any]) -> A.Count:
        return A.Count.make(
            op=_COUNT_OPS[str(c[1])],
            n=self._count_n(c[2]),
            variables=c[4],
            body=c[6],
            span=_span(c),
        )

    def pairs(self, c: list[Any]) -> A.Pairs:
        if str(c[1]) == "forpairs":
            n, rest = None, c[2:]
        else:
            n, rest = self._count_n(c[2]), c[3:]
        return A.Pairs.make(n=n, first=rest[1], second=rest[4], body=rest[6], span=_span(c))

    def extreme(self, c: list[Any]) -> A.Extreme:
        condition = c[7] if len(c) == 9 else None
        return A.Extreme.make(
            op=str(c[1]), target=c[2], variables=c[4], key=c[6], condition=condition, span=_span(c)
        )

    def targets(self, c: list[Any]) -> A.Targets:
        return A.Targets.make(variables=c[3], condition=c[5], goal=c[6], span=_span(c))

    def ordered_targets(self, c: list[Any]) -> A.Targets:
        return A.Targets.make(variables=c[3], order=c[5], condition=c[6], goal=c[7], span=_span(c))

    def then(self, c: list[Any]) -> A.Then:
        return A.Then.make(steps=tuple(c[2:-1]), span=_span(c))

    def empty(self, c: list[Any]) -> A.Empty:
        return A.Empty.make(span=_span(c))

    # ------------------------------------------------------------------ sections
    def requirements(self, c: list[Any]) -> _Section:
        return _Section("requirements", tuple(str(t) for t in c[2:-1]), _span(c))

    def keyword(self, c: list[Any]) -> Token:
        return c[0]  # type: ignore[no-any-return]

    def types(self, c: list[Any]) -> _Section:
        return _Section("types", c[2], _span(c))

    def constants(self, c: list[Any]) -> _Section:
        return _Section("constants", c[2], _span(c))

    def objects(self, c: list[Any]) -> _Section:
        return _Section("objects", c[2], _span(c))

    def predicate_def(self, c: list[Any]) -> A.PredicateDef:
        return A.PredicateDef.make(name=str(c[1]), parameters=c[2], span=_span(c))

    def predicates(self, c: list[Any]) -> _Section:
        return _Section("predicates", tuple(c[2:-1]), _span(c))

    def function_def(self, c: list[Any]) -> A.FunctionDef:
        return A.FunctionDef.make(name=str(c[1]), parameters=c[2], span=_span(c))

    def function_defs(self, c: list[Any]) -> tuple[A.FunctionDef, ...]:
        out: list[A.FunctionDef] = []
        pending: list[A.FunctionDef] = []
        for item in c:
            if isinstance(item, _TypeMark):
                out.extend(
                    A.FunctionDef.make(**{**f.__dict__, "type": item.types}) for f in pending
                )
                pending = []
            else:
                pending.append(item)
        out.extend(pending)
        return tuple(out)

    def functions(self, c: list[Any]) -> _Section:
        return _Section("functions", c[2], _span(c))

    def threshold(self, c: list[Any]) -> A.Threshold:
        return A.Threshold.make(name=str(c[1]), value=_number(c[2]), span=_span(c))

    def thresholds(self, c: list[Any]) -> _Section:
        return _Section("thresholds", tuple(c[2:-1]), _span(c))

    def constraints(self, c: list[Any]) -> _Section:
        return _Section("constraints", c[2], _span(c))

    def action_part(self, c: list[Any]) -> _Section:
        key = str(c[0])[1:]
        if key == "parameters":
            return _Section(key, c[2], _span(c))
        return _Section(key, c[1], A.Span(c[0].start_pos, c[0].end_pos))

    def _parts(self, c: list[Any], allowed: tuple[str, ...], what: str) -> dict[str, Any]:
        parts: dict[str, Any] = {}
        for section in c[3:-1]:
            if section.key not in allowed:
                self._problem(
                    "P102",
                    f"`:{section.key}` does not belong in {what}",
                    section.span,
                    "allowed here: " + ", ".join(f":{a}" for a in allowed),
                )
            elif section.key in parts:
                self._problem("P101", f"`:{section.key}` is given twice in {what}", section.span)
            else:
                parts[section.key] = section.value
        return parts

    def action(self, c: list[Any]) -> A.Action:
        name = str(c[2])
        parts = self._parts(c, ("parameters", "precondition", "effect"), f"action `{name}`")
        return A.Action.make(
            name=name,
            parameters=parts.get("parameters", ()),
            precondition=parts.get("precondition"),
            effect=parts.get("effect"),
            span=_span(c),
        )

    def durative_action(self, c: list[Any]) -> A.DurativeAction:
        name = str(c[2])
        parts = self._parts(
            c,
            ("parameters", "duration", "condition", "effect"),
            f"durative action `{name}`",
        )
        return A.DurativeAction.make(
            name=name,
            parameters=parts.get("parameters", ()),
            duration=parts.get("duration"),
            condition=parts.get("condition"),
            effect=parts.get("effect"),
            span=_span(c),
        )

    def derived(self, c: list[Any]) -> A.DerivedPredicate:
        return A.DerivedPredicate.make(predicate=c[2], body=c[3], span=_span(c))

    def problem_domain(self, c: list[Any]) -> _Section:
        ref = A.DomainRef.make(name=str(c[2]), span=_tok_span(c[2]))
        return _Section("domain", ref, _span(c))

    def init(self, c: list[Any]) -> _Section:
        return _Section("init", tuple(c[2:-1]), _span(c))

    def goal(self, c: list[Any]) -> _Section:
        return _Section("goal", c[2], _span(c))

    def metric(self, c: list[Any]) -> _Section:
        direction = str(c[2])
        if direction not in ("minimize", "maximize"):
            self._problem(
                "P108",
                f"a metric is `minimize` or `maximize`, not `{direction}`",
                _tok_span(c[2]),
            )
            direction = "minimize"
        return _Section(
            "metric", A.Metric.make(direction=direction, expr=c[3], span=_span(c)), _span(c)
        )

    # templates
    def category(self, c: list[Any]) -> _Section:
        return _Section("category", str(c[2]), _span(c))

    def _whole(self, tok: Token, what: str, low: int, high: int | None) -> int:
        value = _number(tok)
        if not isinstance(value, int) or value < low or (high is not None and value > high):
            upper = f" to {high}" if high is not None else " or more"
            self._problem(
                "P107",
                f"{what} must be a whole number from {low}{upper}, not `{tok}`",
                _tok_span(tok),
            )
            return low
        return value

    def level(self, c: list[Any]) -> _Section:
        # ManiTaskGen's levels: 1-3 process tasks, 4 outcome tasks.
        return _Section("level", self._whole(c[2], "the level", 1, 4), _span(c))

    def tags(self, c: list[Any]) -> _Section:
        return _Section("tags", tuple(str(t) for t in c[2:-1]), _span(c))

    def version(self, c: list[Any]) -> _Section:
        return _Section("version", self._whole(c[2], "the version", 1, None), _span(c))

    def description(self, c: list[Any]) -> _Section:
        return _Section("description", _string(c[2]), _span(c))

    def parameters(self, c: list[Any]) -> _Section:
        return _Section("parameters", c[2], _span(c))

    def instruction(self, c: list[Any]) -> _Section:
        items = tuple(A.Instruction.make(text=_string(t), span=_tok_span(t)) for t in c[2:-1])
        return _Section("instruction", items, _span(c))

    def instruction_file(self, c: list[Any]) -> _Section:
        return _Section(
            "instruction-file",
            A.InstructionFile.make(path=_string(c[2]), span=_tok_span(c[2])),
            _span(c),
        )

    def ambiguity(self, c: list[Any]) -> _Section:
        policy = str(c[2])
        if policy not in ("reject", "widen"):
            self._problem(
                "P109",
                f"the ambiguity policy is `reject` or `widen`, not `{policy}`",
                _tok_span(c[2]),
            )
            policy = "reject"
        return _Section("ambiguity", policy, _span(c))

    # ------------------------------------------------------------------ definitions
    def _sections(self, c: list[Any], what: str, multi: tuple[str, ...] = ()) -> dict[str, Any]:
        """Collect `(:key ...)` sections; `multi` ones may repeat and concatenate."""
        found: dict[str, Any] = {}
        for item in c[6:-1]:
            if not isinstance(item, _Section):
                continue
            if item.key in multi:
                found[item.key] = found.get(item.key, ()) + item.value
            elif item.key in found:
                self._problem("P101", f"`:{item.key}` is given twice in {what}", item.span)
            else:
                found[item.key] = item.value
        return found

    def domain(self, c: list[Any]) -> A.Domain:
        name = str(c[4])
        s = self._sections(
            c,
            f"domain `{name}`",
            multi=("types", "constants", "predicates", "functions", "thresholds"),
        )
        body = c[6:-1]
        return A.Domain.make(
            name=name,
            requirements=s.get("requirements", ()),
            types=s.get("types", ()),
            constants=s.get("constants", ()),
            predicates=s.get("predicates", ()),
            functions=s.get("functions", ()),
            constraints=s.get("constraints"),
            thresholds=s.get("thresholds", ()),
            actions=tuple(x for x in body if isinstance(x, A.Action)),
            durative_actions=tuple(x for x in body if isinstance(x, A.DurativeAction)),
            derived=tuple(x for x in body if isinstance(x, A.DerivedPredicate)),
            span=_span(c),
        )

    def problem(self, c: list[Any]) -> A.Problem:
        name = str(c[4])
        s = self._sections(c, f"problem `{name}`", multi=("objects", "init"))
        domain = s.get("domain")
        if domain is None:
            self._problem(
                "P110",
                f"problem `{name}` names no domain",
                _span(c[:6]),
                "add `(:domain NAME)` after the problem's name",
            )
            domain = A.DomainRef.make(name="", span=A.NO_SPAN)
        return A.Problem.make(
            name=name,
            domain=domain,
            requirements=s.get("requirements", ()),
            objects=s.get("objects", ()),
            init=s.get("init", ()),
            goal=s.get("goal"),
            constraints=s.get("constraints"),
            metric=s.get("metric"),
            span=_span(c),
        )

    def template(self, c: list[Any]) -> A.Template:
        name = str(c[4])
        s = self._sections(c, f"template `{name}`", multi=("instruction", "tags"))
        domain = s.get("domain")
        if domain is None:
            self._problem(
                "P110",
                f"template `{name}` names no domain",
                _span(c[:6]),
                "add `(:domain NAME)`; fdc's built-in domain is `fdc-home`",
            )
            domain = A.DomainRef.make(name="", span=A.NO_SPAN)
        return A.Template.make(
            name=name,
            domain=domain,
            category=s.get("category"),
            level=s.get("level"),
            tags=s.get("tags", ()),
            version=s.get("version", 1),
            description=s.get("description"),
            parameters=s.get("parameters", ()),
            constraints=s.get("constraints"),
            goal=s.get("goal"),
            instructions=s.get("instruction", ()),
            instruction_file=s.get("instruction-file"),
            ambiguity=s.get("ambiguity", "reject"),
            span=_span(c),
        )

    def start(self, c: list[Any]) -> tuple[A.Definition, ...]:
        return tuple(c)


@cache
def _parser() -> tuple[Lark, _ToAst]:
    grammar = resources.files(__package__).joinpath("grammar.lark").read_text(encoding="utf-8")
    transformer = _ToAst()
    parser = Lark(
        grammar,
        parser="lalr",
        lexer=FdcLexer,
        transformer=transformer,
        maybe_placeholders=False,
        strict=False,
    )
    return parser, transformer


class _Tables(NamedTuple):
    """Lark's LALR table, re-keyed for a tight loop: rows by int state, keys plain str."""

    rows: list[dict[str, tuple[Any, Any]]]
    reductions: dict[int, tuple[int, str, Callable[[list[Any]], Any]]]  # id(rule) -> ...
    shift: Any
    start: int
    end: int


@cache
def _tables() -> _Tables:
    lark, _ = _parser()
    lalr = lark.parser.parser.parser  # the LALR driver: its table and rule callbacks
    table = lalr.parse_table
    rows = [dict(table.states[i]) for i in range(len(table.states))]
    reductions: dict[int, tuple[int, str, Callable[[list[Any]], Any]]] = {}
    for row in rows:
        for action, arg in row.values():
            if action is not Shift and id(arg) not in reductions:
                # `str()`: rule names are Lark Tokens, whose __eq__ is Python code.
                reductions[id(arg)] = (
                    len(arg.expansion),
                    str(arg.origin.name),
                    lalr.callbacks[arg],
                )
    return _Tables(rows, reductions, Shift, table.start_states["start"], table.end_states["start"])


class _Stuck(FdcError):
    """The parser met a token it cannot take."""

    def __init__(self, token: Token, stack: list[int]) -> None:
        super().__init__(str(token))
        self.token = token
        self.stack = stack


def _drive(tokens: Iterator[Token]) -> Any:
    """Lark's LALR loop (`ParserState.feed_token`), with plain-str and int keys only.

    Lark's own loop compares rule names (Lark Tokens) through Python-level `__eq__` on
    every reduction; this one does the same work with C-level dict lookups.
    """
    rows, reductions, shift, start, end = _tables()
    states = [start]
    values: list[Any] = []
    for tok in _with_end(tokens):
        ttype = tok.type
        while True:
            action, arg = rows[states[-1]].get(ttype, (None, None))
            if action is shift and ttype != "$END":
                states.append(arg)
                values.append(tok)
                break
            if action is None or action is shift:
                raise _Stuck(tok, states)
            size, origin, callback = reductions[id(arg)]
            if size:
                children = values[-size:]
                del states[-size:]
                del values[-size:]
            else:
                children = []
            values.append(callback(children))
            states.append(rows[states[-1]][origin][1])
            if ttype == "$END" and states[-1] == end:
                return values[-1]
    raise AssertionError("unreachable: the end token either finishes or is stuck")


def _with_end(tokens: Iterator[Token]) -> Iterator[Token]:
    """The tokens, then `$END` where the last one ended."""
    last: Token | None = None
    for last in tokens:
        yield last
    yield _end_token(last)


def _end_token(last: Token | None) -> Token:
    pos = last.end_pos if last is not None and last.end_pos is not None else 0
    return make_token("$END", "", pos, pos)


def _accepts(stack: list[int]) -> set[str]:
    """The terminals the parser could take with this state stack (exact: it follows the
    reductions each terminal would cause, as Lark's interactive parser does)."""
    rows, reductions, shift, _, end = _tables()
    terminals = {k for row in rows for k in row if k.isupper() or k == "$END"}
    accepted: set[str] = set()
    for t in terminals:
        states = list(stack)
        while True:
            action, arg = rows[states[-1]].get(t, (None, None))
            if action is None:
                break
            if action is shift:
                accepted.add(t)
                break
            size, origin, _ = reductions[id(arg)]
            if size:
                del states[-size:]
            states.append(rows[states[-1]][origin][1])
            if t == "$END" and states[-1] == end:
                accepted.add(t)
                break
    return accepted


class ParseResult(NamedTuple):
    unit: A.SourceUnit | None
    diagnostics: list[Diagnostic]


def parse_source(source: SourceFile) -> ParseResult:
    """Parse one file. Never raises on bad input: problems come back as diagnostics.

    A lexical or syntax error does not hide the rest of the file: the parser starts
    again at each `(define` that begins a line (`_RESUME`), so every definition is
    parsed on its own, each error is reported, and the unit holds the definitions that
    parsed (its other problems, semantic ones included, are then found too)."""
    _, transformer = _parser()
    path = source.path
    transformer.file, transformer.problems = path, []
    text = source.text
    try:
        definitions = _drive(tokenize(text))
    except (LexError, _Stuck):
        return _recover(source)
    unit = A.SourceUnit.make(path=path, definitions=definitions, span=A.Span(0, len(text)))
    return ParseResult(unit, transformer.problems)


#: Where the parser starts again after an error: `(define` as the first word of a line
#: (the shape every definition of a PDDL file has in practice; a `(define` inside a
#: string or comment never begins a line of a parsed definition).
_RESUME = re.compile(r"^[ \t]*(\(\s*define\b)", re.MULTILINE | re.IGNORECASE)


def _recover(source: SourceFile) -> ParseResult:
    """Each stretch from one line-start `(define` to the next parsed alone (the text
    before the first one too): the errors of every stretch, the definitions of the
    stretches that parse."""
    _, transformer = _parser()
    text, path = source.text, source.path
    starts = [m.start(1) for m in _RESUME.finditer(text)]
    bounds = sorted({0, *starts, len(text)})
    definitions: list[A.Definition] = []
    problems: list[Diagnostic] = []
    for start, end in pairwise(bounds):
        transformer.problems = []
        try:
            definitions.extend(_drive(_between(text, start, end)))
            problems.extend(transformer.problems)
        except LexError as e:
            span = A.Span(e.pos, min(e.pos + 1, len(text)))
            problems.append(_error(path, e.code, e.message, span, e.hint))
        except _Stuck as e:
            problems.append(_syntax_error(source, e, end))
    unit = A.SourceUnit.make(path=path, definitions=tuple(definitions),
                             span=A.Span(0, len(text)))
    return ParseResult(unit, problems)


def _between(text: str, start: int, end: int) -> Iterator[Token]:
    """The tokens of `text` that begin in [start, end), with offsets into all of it."""
    for tok in tokenize(text, start):
        if (tok.start_pos or 0) >= end:
            return
        yield tok


def parse_text(text: str, path: str = "<string>") -> ParseResult:
    return parse_source(SourceFile(path, text))


def _error(path: str, code: str, message: str, span: A.Span, hint: str = "") -> Diagnostic:
    return Diagnostic(
        severity=Severity.ERROR, code=code, message=message, file=path, span=span, hint=hint
    )


def _expected(names: set[str]) -> str:
    words = sorted({_TOKEN_NAMES.get(n, _keyword_name(n)) for n in names if not n.startswith("_")})
    if len(words) > 6:
        words = [*words[:6], "..."]
    return ", ".join(words)


def _keyword_name(terminal: str) -> str:
    for table in (COLON_KEYWORDS, WORD_KEYWORDS):
        words = [k for k, v in table.items() if v == terminal]
        if words:
            return " / ".join(f"`{w}`" for w in sorted(words)[:3])
    return terminal.lower()


def _describe(tok: Token) -> str:
    if tok.type == "$END":
        return "the end of the file"
    return f"`{tok}`"


_RESERVED = frozenset(WORD_KEYWORDS.values())

_CONTEXT_HINTS: list[tuple[Callable[[Token, set[str]], bool], str]] = [
    (
        lambda t, exp: t.type == "$END" or (t.type != "RPAR" and exp == {"RPAR"}),
        "check that every `(` has its `)`",
    ),
    (
        lambda t, exp: t.type == "RPAR",
        "a `)` closes something that is not complete yet, or one too many",
    ),
    (
        lambda t, exp: t.type in _RESERVED and "NAME" in exp,
        "this word is reserved in fdc's language (a formula operator); choose another name",
    ),
    (
        lambda t, exp: t.type.startswith("K_") or t.type == "KEYWORD",
        "this `:section` is not allowed here; see docs/language.md for each definition's sections",
    ),
    (
        lambda t, exp: t.type in ("NAME", "VAR") and "LPAR" in exp,
        "a formula goes in parentheses: `(pred ?x)`",
    ),
]


def _keyword_hint(tok: Token, expected: set[str]) -> str:
    """Did-you-mean for a misspelt `:section` (`:gaol` -> `:goal`)."""
    if not (tok.type.startswith("K_") or tok.type == "KEYWORD"):
        return ""
    words = [k for k, v in COLON_KEYWORDS.items() if v in expected]
    return str(did_you_mean(str(tok), words))


def _syntax_error(source: SourceFile, e: _Stuck, end_of_text: int | None = None) -> Diagnostic:
    """The error at the token the parser could not take; `end_of_text`: where the text
    parsed ended (a stretch of the file, when recovering), for an error at its end."""
    tok = e.token
    expected = _accepts(e.stack)
    size = len(source.text)
    stop = size if end_of_text is None else end_of_text
    pos = tok.start_pos if tok.type != "$END" else len(source.text[:stop].rstrip())
    pos = min(pos or 0, size)
    end = (tok.end_pos or pos) if tok.type != "$END" else pos + 1
    span = A.Span(pos, min(end, size))
    if tok.type == "$END" and stop < len(source.text.rstrip()):
        message = (f"the definition ends before the next `(define`; expected "
                   f"{_expected(expected)}")
    elif tok.type == "$END":
        message = f"the file ends too early; expected {_expected(expected)}"
    else:
        message = f"unexpected {_describe(tok)}; expected {_expected(expected)}"
    hint = _keyword_hint(tok, expected) or next(
        (h for test, h in _CONTEXT_HINTS if test(tok, expected)), ""
    )
    code = "P004" if tok.type == "$END" else "P003"
    return _error(source.path, code, message, span, hint)
