"""Printing ASTs back as text: the canonical form `fdc fmt` writes.

A node prints on one line when it fits in `WIDTH` columns, else its head goes on one
line and its children on their own lines, two spaces further in, Lisp style. Comments
of the original source are kept: each is written before the first printed line that
starts after it, or at the end of the line it trailed.
`parse(print_unit(unit)) == unit` for every unit the parser produces.
See docs/language.md.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from . import ast as A

WIDTH = 92
INDENT = "  "


@dataclass
class _Line:
    depth: int
    text: str
    start: int  # span start of the first node on the line (-1: none)
    end: int  # span end of the last node closed on the line (-1: none)
    trail: bool = True  # may a comment trailing `start`'s source line end this line?


# ---------------------------------------------------------------------------- one line


def _num(v: int | float) -> str:
    if isinstance(v, float):
        if v in (float("inf"), float("-inf")):
            # A literal too large for a float (`1e400`) reads back as infinity.
            return "1e999" if v > 0 else "-1e999"
        if v.is_integer() and abs(v) < 1e15:
            return f"{v:.1f}"
    return repr(v)


def _types(types: Sequence[str]) -> str:
    if len(types) == 1:
        return types[0]
    return "(either " + " ".join(types) + ")"


def _runs(items: Sequence[A.TypedName]) -> list[list[A.TypedName]]:
    """Consecutive items of equal type, in order."""
    runs: list[list[A.TypedName]] = []
    for item in items:
        if runs and runs[-1][0].types == item.types:
            runs[-1].append(item)
        else:
            runs.append([item])
    return runs


def typed_list(items: Sequence[A.TypedName]) -> list[str]:
    """Groups `a b - t`, one string per run of equally typed names."""
    return [_group([i.name for i in run], run[0].types) for run in _runs(items)]


def _group(names: list[str], types: tuple[str, ...]) -> str:
    return " ".join(names) + (f" - {_types(types)}" if types else "")


def _string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def inline(node: A.Node) -> str:
    """The node on one line."""
    match node:
        case A.Variable() | A.Constant():
            return node.name
        case A.Number():
            return _num(node.value)
        case A.FunctionTerm():
            return _paren(node.name, *(inline(a) for a in node.args))
        case A.Arithmetic():
            return _paren(node.op, *(inline(a) for a in node.args))
        case A.Atom():
            return _paren(node.predicate, *(inline(a) for a in node.args))
        case A.Empty():
            return "()"
        case A.Threshold():
            return f"({node.name} {_num(node.value)})"
        case _:
            head, parts = _head(node)
            return _paren(head, *(inline(p) if isinstance(p, A.Node) else p for p in parts))


def _paren(*items: str) -> str:
    return "(" + " ".join(items) + ")"


def _vars(variables: Sequence[A.TypedName]) -> str:
    return "(" + " ".join(typed_list(variables)) + ")"


def _head(node: A.Node) -> tuple[str, list[A.Node | str]]:
    """The operator (with its fixed leading arguments) and the child formulas."""
    match node:
        case A.And():
            return "and", list(node.parts)
        case A.Or():
            return "or", list(node.parts)
        case A.Not():
            return "not", [node.body]
        case A.Imply():
            return "imply", [node.condition, node.consequence]
        case A.Exists():
            return "exists " + _vars(node.variables), [node.body]
        case A.Forall():
            return "forall " + _vars(node.variables), [node.body]
        case A.When():
            return "when", [node.condition, node.effect]
        case A.Comparison():
            return node.op, [node.left, node.right]
        case A.NumericEffect():
            return node.op, [node.target, node.value]
        case A.Preference():
            return "preference" + (f" {node.name}" if node.name else ""), [node.body]
        case A.Timed():
            words = {"start": "at start", "end": "at end", "all": "over all"}[node.time]
            return words, [node.body]
        case A.TimedLiteral():
            return f"at {_num(node.time)}", [node.body]
        case A.Modal():
            return " ".join([node.op, *(_num(n) for n in node.numbers)]), list(node.parts)
        case A.Count():
            return f"{node.op} {node.n} {_vars(node.variables)}", [node.body]
        case A.Pairs():
            head = "forpairs" if node.n is None else f"fornpairs {node.n}"
            return f"{head} {_vars(node.first)} {_vars(node.second)}", [node.body]
        case A.Extreme():
            head = f"{node.op} {inline(node.target)} {_vars(node.variables)}"
            rest: list[A.Node | str] = [node.key]
            if node.condition is not None:
                rest.append(node.condition)
            return head, rest
        case A.Targets():
            if node.order is None:
                return "targets " + _vars(node.variables), [node.condition, node.goal]
            return "ordered-targets " + _vars(node.variables), [
                node.order,
                node.condition,
                node.goal,
            ]
        case A.Then():
            return "then", list(node.steps)
    raise TypeError(f"cannot print {type(node).__name__}")


# ---------------------------------------------------------------------------- blocks


class _Printer:
    def __init__(self, comment_offsets: Sequence[int] = ()) -> None:
        self.lines: list[_Line] = []
        self._comments = sorted(comment_offsets)

    def fits(self, depth: int, text: str, span: A.Span) -> bool:
        """On one line: short enough, and no comment inside the span to displace."""
        if len(INDENT) * depth + len(text) > WIDTH:
            return False
        if span.start < 0 or not self._comments:
            return True
        i = bisect.bisect_right(self._comments, span.start)
        return i == len(self._comments) or self._comments[i] >= span.end

    def emit(
        self, depth: int, text: str, start: int = -1, end: int = -1, trail: bool = True
    ) -> None:
        self.lines.append(_Line(depth, text, start, end, trail))

    def blank(self) -> None:
        """An empty line between a domain's sections (not right after its header)."""
        if self.lines and not self.lines[-1].text.startswith("(define"):
            self.emit(0, "")

    def close(self, count: int = 1, end: int = -1) -> None:
        """Append `)`s to the last line (it closes the nodes ending there)."""
        last = self.lines[-1]
        last.text += ")" * count
        if end >= 0:
            last.end = max(last.end, end)

    def node(self, depth: int, prefix: str, node: A.Node) -> None:
        """`prefix` followed by the node, on one line if it fits, else broken."""
        text = inline(node)
        # A comment after the last child, before the `)`, reads as following the node.
        ends = [c.span.end for c in node.children() if c.span.end >= 0]
        inner = A.Span(node.span.start, max(ends)) if ends else node.span
        if self.fits(depth, prefix + text, inner) or isinstance(
            node, A.Atom | A.Variable | A.Constant | A.Number | A.Empty | A.FunctionTerm
        ):
            self.emit(depth, prefix + text, node.span.start, node.span.end)
            return
        if isinstance(node, A.Arithmetic):
            self.emit(depth, prefix + "(" + node.op, node.span.start)
            for a in node.args:
                self.node(depth + 1, "", a)
            self.close(end=node.span.end)
            return
        head, parts = _head(node)
        self.emit(depth, prefix + "(" + head, node.span.start)
        for p in parts:
            if isinstance(p, A.Node):
                self.node(depth + 1, "", p)
            else:
                self.emit(depth + 1, p)
        if parts:
            self.close(end=node.span.end)
        else:
            self.lines[-1].text += ")"

    def words(self, depth: int, head: str, words: Sequence[str], span: A.Span) -> None:
        """`(head w1 w2 ...)`, wrapped at the width."""
        one = "(" + " ".join([head, *words]) + ")"
        if len(INDENT) * depth + len(one) <= WIDTH:
            self.emit(depth, one, span.start, span.end)
            return
        self.emit(depth, "(" + head, span.start, trail=False)
        line: list[str] = []
        for w in words:
            if line and len(INDENT) * (depth + 1) + len(" ".join([*line, w])) > WIDTH:
                self.emit(depth + 1, " ".join(line))
                line = []
            line.append(w)
        if line:
            self.emit(depth + 1, " ".join(line))
        self.close(end=span.end)

    def typed(self, depth: int, head: str, items: Sequence[A.TypedName]) -> None:
        """`(head a b - t c - u)`, or when too long one run of equal types a line."""
        span = _cover(items)
        one = "(" + " ".join([head, *typed_list(items)]) + ")"
        if self.fits(depth, one, span):
            self.emit(depth, one, span.start, span.end)
            return
        self.emit(depth, "(" + head, span.start, trail=False)
        for run in _runs(items):
            suffix = f" - {_types(run[0].types)}" if run[0].types else ""
            line: list[A.TypedName] = []
            for item in run:
                text = " ".join(i.name for i in [*line, item])
                if line and len(INDENT) * (depth + 1) + len(text) + len(suffix) > WIDTH:
                    self.emit(
                        depth + 1,
                        " ".join(i.name for i in line),
                        line[0].span.start,
                        line[-1].span.end,
                    )
                    line = []
                line.append(item)
            self.emit(
                depth + 1,
                " ".join(i.name for i in line) + suffix,
                line[0].span.start,
                line[-1].span.end,
            )
        self.close()

    def section(self, depth: int, head: str, items: Iterable[A.Node], span: A.Span) -> None:
        """`(head` then one item a line."""
        items = list(items)
        one = "(" + " ".join([head, *(inline(i) for i in items)]) + ")"
        if self.fits(depth, one, span) and len(items) <= 1:
            self.emit(depth, one, span.start, span.end)
            return
        self.emit(depth, "(" + head, span.start, trail=False)
        for item in items:
            self.node(depth + 1, "", item)
        self.close(end=span.end)

    # ------------------------------------------------------------------ definitions
    def domain(self, d: A.Domain) -> None:
        self.emit(0, f"(define (domain {d.name})", d.span.start)
        if d.requirements:
            self.words(1, ":requirements", d.requirements, A.NO_SPAN)
        if d.types:
            self.blank()
            self.typed(1, ":types", d.types)
        if d.constants:
            self.blank()
            self.typed(1, ":constants", d.constants)
        if d.predicates:
            self.blank()
            self.emit(1, "(:predicates", _cover(d.predicates).start, trail=False)
            for p in d.predicates:
                self.emit(2, _signature(p.name, p.parameters), p.span.start, p.span.end)
            self.close()
        if d.functions:
            self.blank()
            self.emit(1, "(:functions", _cover(d.functions).start, trail=False)
            last = len(d.functions) - 1
            for i, f in enumerate(d.functions):
                sig = _signature(f.name, f.parameters)
                # `- TYPE` types every function since the previous marker, so each run of
                # one type ends with its own; only a final run of numbers may omit it.
                run_ends = i == last or d.functions[i + 1].type != f.type
                if run_ends and not (i == last and f.type == ("number",)):
                    sig += f" - {_types(f.type)}"
                self.emit(2, sig, f.span.start, f.span.end)
            self.close()
        if d.constraints is not None:
            self.blank()
            self.node(1, "(:constraints ", d.constraints)
            self.close()
        if d.thresholds:
            self.blank()
            self.section(1, ":thresholds", d.thresholds, _cover(d.thresholds))
        for dp in d.derived:
            self.blank()
            self.emit(
                1,
                "(:derived " + _signature(dp.predicate.name, dp.predicate.parameters),
                dp.span.start,
            )
            self.node(2, "", dp.body)
            self.close(end=dp.span.end)
        for a in d.actions:
            self.action(
                ":action",
                a.name,
                a.span,
                [
                    ("parameters", a.parameters),
                    ("precondition", a.precondition),
                    ("effect", a.effect),
                ],
            )
        for da in d.durative_actions:
            self.action(
                ":durative-action",
                da.name,
                da.span,
                [
                    ("parameters", da.parameters),
                    ("duration", da.duration),
                    ("condition", da.condition),
                    ("effect", da.effect),
                ],
            )
        self.close(end=d.span.end)

    def action(
        self,
        keyword: str,
        name: str,
        span: A.Span,
        parts: list[tuple[str, A.Node | tuple[A.TypedName, ...] | None]],
    ) -> None:
        self.blank()
        self.emit(1, f"({keyword} {name}", span.start)
        for key, value in parts:
            if key == "parameters":
                assert isinstance(value, tuple)
                cover = _cover(value)
                self.emit(2, f":parameters {_vars(value)}", cover.start, cover.end)
            elif value is not None:
                assert isinstance(value, A.Node)
                self.node(2, f":{key} ", value)
        self.close(end=span.end)

    def problem(self, p: A.Problem) -> None:
        self.emit(0, f"(define (problem {p.name})", p.span.start)
        if p.domain.name:  # a problem without one (P110) prints without one
            self.emit(1, f"(:domain {p.domain.name})", p.domain.span.start, p.domain.span.end)
        if p.requirements:
            self.words(1, ":requirements", p.requirements, A.NO_SPAN)
        if p.objects:
            self.typed(1, ":objects", p.objects)
        self.section(1, ":init", p.init, _cover(p.init))
        if p.goal is not None:
            self.node(1, "(:goal ", p.goal)
            self.close()
        if p.constraints is not None:
            self.node(1, "(:constraints ", p.constraints)
            self.close()
        if p.metric is not None:
            self.node(1, f"(:metric {p.metric.direction} ", p.metric.expr)
            self.close()
        self.close(end=p.span.end)

    def template(self, t: A.Template) -> None:
        self.emit(0, f"(define (template {t.name})", t.span.start)
        if t.domain.name:
            self.emit(1, f"(:domain {t.domain.name})", t.domain.span.start, t.domain.span.end)
        if t.category is not None:
            self.emit(1, f"(:category {t.category})")
        if t.level is not None:
            self.emit(1, f"(:level {t.level})")
        if t.tags:
            self.words(1, ":tags", t.tags, A.NO_SPAN)
        self.emit(1, f"(:version {t.version})")
        if t.description is not None:
            self.emit(1, f"(:description {_string(t.description)})")
        cover = _cover(t.parameters)
        self.emit(
            1,
            f"(:parameters {' '.join(typed_list(t.parameters))})".replace(" )", ")"),
            cover.start,
            cover.end,
        )
        if t.constraints is not None:
            self.node(1, "(:constraints ", t.constraints)
            self.close()
        if t.goal is not None:
            self.node(1, "(:goal ", t.goal)
            self.close()
        if len(t.instructions) == 1:
            ins = t.instructions[0]
            self.emit(1, f"(:instruction {_string(ins.text)})", ins.span.start, ins.span.end)
        elif t.instructions:
            self.emit(1, "(:instruction", t.instructions[0].span.start, trail=False)
            for ins in t.instructions:
                self.emit(2, _string(ins.text), ins.span.start, ins.span.end)
            self.close()
        if t.instruction_file is not None:
            self.emit(1, f"(:instruction-file {_string(t.instruction_file.path)})")
        self.emit(1, f"(:ambiguity {t.ambiguity})")
        self.close(end=t.span.end)


def _signature(name: str, params: Sequence[A.TypedName]) -> str:
    return "(" + " ".join([name, *typed_list(params)]) + ")"


def _cover(nodes: Sequence[A.Node]) -> A.Span:
    starts = [n.span.start for n in nodes if n.span.start >= 0]
    ends = [n.span.end for n in nodes if n.span.end >= 0]
    return A.Span(min(starts), max(ends)) if starts else A.NO_SPAN


# ---------------------------------------------------------------------------- comments

_COMMENT = re.compile(r';[^\n]*|"(?:[^"\\]|\\.)*"')


def _comments(text: str) -> list[tuple[int, str, bool]]:
    """(offset, comment, trailing) for each `;` comment outside strings."""
    found: list[tuple[int, str, bool]] = []
    for m in _COMMENT.finditer(text):
        if m.group(0).startswith('"'):
            continue
        start = m.start()
        line_start = text.rfind("\n", 0, start) + 1
        trailing = bool(text[line_start:start].strip())
        found.append((start, m.group(0).rstrip(), trailing))
    return found


def _layout(lines: list[_Line], text: str | None, comments: list[tuple[int, str, bool]]) -> str:
    if text is None:
        return "".join((INDENT * ln.depth + ln.text).rstrip() + "\n" for ln in lines)
    out: list[str] = []
    i = 0
    for ln in lines:
        while i < len(comments) and ln.start >= 0 and comments[i][0] < ln.start:
            out.append(INDENT * ln.depth + comments[i][1])
            i += 1
        line = (INDENT * ln.depth + ln.text).rstrip()
        anchor = ln.end if ln.end >= 0 else (ln.start if ln.trail else -1)
        if anchor >= 0 and i < len(comments) and comments[i][2]:
            offset = comments[i][0]
            if offset >= anchor and "\n" not in text[anchor:offset]:
                line += " " + comments[i][1]
                i += 1
        out.append(line)
    for _, comment, _ in comments[i:]:
        out.append(comment)
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------- entry points


def _print_into(p: _Printer, definition: A.Definition) -> None:
    if isinstance(definition, A.Domain):
        p.domain(definition)
    elif isinstance(definition, A.Problem):
        p.problem(definition)
    else:
        p.template(definition)


def print_unit(unit: A.SourceUnit, comments_from: str | None = None) -> str:
    """The canonical text of a whole file; `comments_from` is its source, to keep comments."""
    comments = _comments(comments_from) if comments_from else []
    p = _Printer([c[0] for c in comments])
    for i, d in enumerate(unit.definitions):
        if i:
            p.emit(0, "")
        _print_into(p, d)
    if not unit.definitions:
        return _layout([], comments_from, comments) if comments_from else ""
    return _layout(p.lines, comments_from, comments)
