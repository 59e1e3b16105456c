"""Rendering instructions: templates are third-party input, so Jinja runs sandboxed.

`Renderer` compiles each instruction variant once, in the bounded sandbox of `sandbox()`: Jinja's
immutable sandbox with `StrictUndefined` (a misspelt name is an error, never an empty
string), fdc's filters, and the limits of `fdc.core.limits` held on every render: output
length (`render_chars`, also bounding the strings and lists one operation may build, so
`'x' * 10**9` fails before it allocates), nested calls (`render_depth`: recursive
macros), loop work (`render_steps`: calls made and range items produced) and time
(`render_seconds`). A render past a limit raises `RenderLimitError` naming it.
Parameters reach an instruction as `EntityText`: a string holding the entity's bare noun
phrase ("red mug"), so every text filter works on it, with the entity's `id`, its
definite `description` ("the red mug", what `ref` prints) and `indefinite` form.
Whitespace is normalised: an instruction is one line of single-spaced words.
See docs/instructions.md.
"""

from __future__ import annotations

import functools
import math
import re
import signal
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import cache
from typing import Any

from fdc.core.errors import FdcError
from fdc.core.limits import Limits, current
from fdc.instructions.filters import FILTERS, article


class RenderError(FdcError, ValueError):
    """An instruction that cannot be rendered with these values."""


class RenderLimitError(RenderError):
    """A render past one of the limits `render_*` (named by `limit`)."""

    def __init__(self, limit: str, detail: str) -> None:
        super().__init__(f"{detail}, past the limit `{limit}` (raise it with "
                         f"`fdc --limit {limit}=N ...`)")
        self.limit = limit


class EntityText(str):
    """An entity as an instruction sees it: its bare noun phrase, with attributes."""

    id: str
    description: str
    indefinite: str
    inside: bool  # one puts things in it (a compartment, a drawer, a container), not on
    relation: str  # the description's relation ("on the desk"), or ""
    relation_kind: str  # "on", "in", "on-in", "near", "with" (`describe.RELATIONS`)
    clause: str  # the description with its relation as a relative clause

    def __new__(cls, phrase: str, ident: str, description: str, value: bool = False,
                inside: bool = False, relation: str = "", relation_kind: str = "",
                clause: str = "") -> EntityText:
        obj = super().__new__(cls, phrase)
        obj.id = ident
        obj.description = description
        obj.indefinite = phrase if value else f"{article(phrase)} {phrase}"
        obj.inside = inside
        obj.relation = relation
        obj.relation_kind = relation_kind
        obj.clause = clause or description
        return obj


#: Prepositions of place: a description with a relation next to one of them stacks
#: locatives ("the book on the nightstand in the box").
_LOCATIVE = r"on|in|into|onto|off|from|to|of|at|inside|out of|next to|near|around|" \
    r"between|beside|by|under|over|behind"
# "Go to the mug on the desk" names one place: "to" before a description is its goal
_LOCATIVE_BEFORE = re.compile(rf"\b(?:{_LOCATIVE})\s+$".replace("|to|", "|"), re.IGNORECASE)
_LOCATIVE_AFTER = re.compile(rf"^(?:\s+(?:{_LOCATIVE})\b|'s\b)", re.IGNORECASE)
#: "Put the book on the nightstand in the box": the verbs whose object may be taken
#: from where it is first, in a sentence of its own ("Take the book from the nightstand
#: and put it in the box"), and how the second half says them.
_VERB_BEFORE = re.compile(r"(?:^|[.;!?:,]\s+|\b(?:then|and|also|first|next|last|finally)\s+)"
                          r"(put|move|place|bring|take|set|fit|store|carry)\s+$", re.IGNORECASE)
#: A place later in the clause after the object of a verb of putting: the object's own
#: place would read as the destination ("Place the plate on the table somewhere beside
#: the bowl", "Place the vase on the shelf so it sits in ...").
_PLACE_LATER = re.compile(r"^[^,;.!?]*?\b(?:on|in|into|onto|inside|to|beside|next to|"
                          r"around|between|near|at|by|under|behind)\s", re.IGNORECASE)
#: A place right after a relative clause that would read as part of it (a direction,
#: "to the kitchen", "into the box", does not): a comma closes the clause.
_STATIC_AFTER = re.compile(r"^\s+(?:on|in|inside|at|next to|near|around|between|beside|"
                           r"by|under|over|behind|of)\b", re.IGNORECASE)
# a split says "it" of the item: not where the sentence says "it" of another ("so it
# sits" is the item's; "with a vase on it" is another entity's description)
_PRONOUN = re.compile(r"\b(?<!so )(?<!so that )(?:it|its)\b", re.IGNORECASE)
#: The "it" a split says of its item, until every split is done: not a pronoun for
#: another entity that would stop the split of another item ("Take the mug from the
#: desk and put it on the shelf, and take the book from ...").
_SPLIT_IT = "\x00"
_SPLIT_VERBS = {"put": "put", "move": "move", "place": "place", "bring": "bring",
                "take": "bring", "set": "set", "fit": "fit", "store": "store",
                "carry": "carry"}


def entities_in(values: Mapping[str, Any]) -> list[EntityText]:
    """The entities among an instruction's values (lists of them too: `targets`)."""
    out: list[EntityText] = []
    for v in values.values():
        if isinstance(v, EntityText):
            out.append(v)
        elif isinstance(v, list | tuple):
            out.extend(x for x in v if isinstance(x, EntityText))
    return out


def untangle(text: str, entities: Sequence[EntityText]) -> str:
    """No noun phrase stacks locatives: a description whose relation stands next to
    another place ("Put the book on the nightstand in the box"), or is the object of a
    verb of putting with a place later in its clause ("Place the plate on the table
    somewhere beside the bowl"), is said in a clause of its own when it directly follows
    a verb of putting that starts a sentence or a clause ("Take the book from the
    nightstand and put it in the box"), else with a relative clause ("... the box that
    is on the bed")."""
    done: set[str] = set()
    said = sorted({d for e in entities for d in (e.description, e.clause) if e.relation},
                  key=len, reverse=True)
    for e in sorted(entities, key=lambda x: -len(x.description)):
        if not e.relation or e.description in done:
            continue
        done.add(e.description)
        text = _untangle_one(text, e, said)
    return text.replace(_SPLIT_IT, "it")


def _untangle_one(text: str, e: EntityText, said: Sequence[str] = ()) -> str:
    out: list[str] = []
    at = 0
    pattern = re.compile(r"(?<![\w-])" + re.escape(e.description) + r"(?![\w-])",
                         re.IGNORECASE)
    for m in pattern.finditer(text):
        before, after = text[: m.start()], text[m.end():]
        verb = _VERB_BEFORE.search(before)
        if verb is not None and verb.start(1) < at:
            verb = None
        place_after = bool(_LOCATIVE_AFTER.match(after)) and not after.startswith("'s")
        if not (_LOCATIVE_BEFORE.search(before) or place_after or
                (verb is not None and _PLACE_LATER.match(after))):
            continue
        words = e.relation.split(" ", 1)
        rest = after
        for other in said:  # another entity's "with a vase on it" is not a pronoun
            rest = rest.replace(other, "")
        if verb is not None and len(words) == 2 and \
                e.relation_kind in ("on", "on-in", "in") and not _PRONOUN.search(rest):
            noun = e.description[: len(e.description) - len(e.relation)].rstrip()
            said_verb = verb.group(1)
            take = "Take" if said_verb[:1].isupper() else "take"
            out.append(text[at : verb.start(1)])
            out.append(f"{take} {noun} from {words[1]} and "
                       f"{_SPLIT_VERBS[said_verb.lower()]} {_SPLIT_IT}")
            at = m.end()
            continue
        out.append(text[at : m.start()])
        # a place after the clause would read as part of it: a comma closes it
        out.append(e.clause + ("," if _STATIC_AFTER.match(after) else ""))
        at = m.end()
    out.append(text[at:])
    return "".join(out)


#: Jinja's default globals an instruction may use (`lipsum`, `cycler`, `joiner` and
#: `namespace` are left out: instructions need none, and `namespace` makes state that
#: grows across loop iterations).
INSTRUCTION_GLOBALS = ("range", "dict")

#: A width or precision in a format string (`%9d`, `{:>9}`).
_FORMAT_NUMBER = re.compile(r"%[-#0 +*]*(\d+)|%[-#0 +]*\*|\{[^{}]*:[^{}]*?(\d+)[^{}]*\}")


class _Budget:
    """What one render has used so far, against the limits in effect."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.steps = 0
        self.depth = 0
        self.deadline = time.monotonic() + limits.render_seconds

    def tick(self, steps: int = 1) -> None:
        self.steps += steps
        if self.steps > self.limits.render_steps:
            raise RenderLimitError("render_steps", f"more than {self.limits.render_steps} "
                                   "loop items and calls")
        if time.monotonic() > self.deadline:
            raise _timeout(self.limits)

    def size(self, n: int, what: str) -> None:
        if n > self.limits.render_chars:
            raise RenderLimitError("render_chars", f"{what} of {n} items or characters")

    def arguments(self, args: tuple[Any, ...]) -> None:
        """Numbers a call or filter gets are sizes (a width, a count): bounded."""
        for a in args:
            if isinstance(a, int | float) and not isinstance(a, bool) and \
                    abs(a) > self.limits.render_chars:
                self.size(int(min(abs(a), 1e18)), "an argument")
            elif isinstance(a, str):
                self.format_string(a)

    def format_string(self, text: str) -> None:
        for m in _FORMAT_NUMBER.finditer(text):
            width = m.group(1) or m.group(2)
            if width is None:  # `%*d`: the width comes from the arguments
                continue
            if len(width) > 18 or int(width) > self.limits.render_chars:
                self.size(int(width[:18]), "a format width")

    def binop(self, operator: str, left: Any, right: Any) -> None:
        self.tick()
        sized = (str, list, tuple)
        if operator == "*":
            for seq, n in ((left, right), (right, left)):
                if isinstance(seq, sized) and isinstance(n, int):
                    self.size(len(seq) * max(n, 0), "a repetition")
        elif operator == "+" and isinstance(left, sized) and isinstance(right, sized):
            self.size(len(left) + len(right), "a concatenation")
        elif operator == "**" and isinstance(left, int) and isinstance(right, int) and \
                abs(left) > 1 and right > 0:
            digits = right * math.log10(abs(left))
            if digits > self.limits.number_digits:
                raise RenderLimitError("number_digits", f"a power of about {digits:.0f} digits")
        elif operator == "%" and isinstance(left, str):
            self.format_string(left)
            self.arguments(right if isinstance(right, tuple) else (right,))


def static_budget() -> _Budget:
    """A budget under the limits in effect, without a deadline: the static checks of
    `lint` ask it what the sandbox would refuse."""
    check = _Budget(current())
    check.deadline = math.inf
    return check


def _timeout(limits: Limits) -> RenderLimitError:
    return RenderLimitError("render_seconds", f"rendering took more than "
                            f"{limits.render_seconds} s")


@cache
def sandbox_class() -> type:
    """Jinja's immutable sandbox, with every call, operator and filter counted against
    the current render's `_Budget` (`budget` is set by `Renderer.render`)."""
    from jinja2.runtime import Context
    from jinja2.sandbox import ImmutableSandboxedEnvironment, safe_range

    class _Sandbox(ImmutableSandboxedEnvironment):
        intercepted_binops = frozenset({"*", "**", "%", "+"})
        budget: _Budget | None = None

        def call_binop(self, context: Context, operator: str, left: Any, right: Any) -> Any:
            if self.budget is not None:
                self.budget.binop(operator, left, right)
            return super().call_binop(context, operator, left, right)

        def wrap_str_format(self, value: Any) -> Callable[..., str] | None:
            wrapped = super().wrap_str_format(value)
            if wrapped is not None and self.budget is not None:  # `'{:>9}'.format(1)`
                self.budget.format_string(value.__self__)
            return wrapped

        def call(__self, __context: Context, __obj: Any, *args: Any,
                 **kwargs: Any) -> Any:
            budget = __self.budget
            if budget is None:
                return super().call(__context, __obj, *args, **kwargs)
            budget.tick()
            if __obj is not safe_range:  # a range's length is loop work, counted below
                budget.arguments(args + tuple(v for k, v in kwargs.items()
                                              if k != "_loop_vars"))
            budget.depth += 1
            try:
                if budget.depth > budget.limits.render_depth:
                    raise RenderLimitError("render_depth", f"calls nested more than "
                                           f"{budget.limits.render_depth} deep")
                out = super().call(__context, __obj, *args, **kwargs)
            finally:
                budget.depth -= 1
            if isinstance(out, range):
                budget.tick(len(out))
            elif isinstance(out, str | list | tuple):
                budget.size(len(out), "a result")
            return out

    return _Sandbox


def sandbox() -> Any:
    """A new instruction environment: the bounded sandbox, `StrictUndefined`, fdc's
    filters (each bounded too), Jinja's filters, `INSTRUCTION_GLOBALS`."""
    from jinja2 import StrictUndefined

    env = sandbox_class()(undefined=StrictUndefined, autoescape=False, trim_blocks=True,
                          lstrip_blocks=True)
    env.globals = {name: env.globals[name] for name in INSTRUCTION_GLOBALS}
    env.filters.update(FILTERS)
    env.filters = {name: _bounded_filter(env, f) for name, f in env.filters.items()}
    return env


def _bounded_filter(env: Any, f: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(f)
    def bounded(*args: Any, **kwargs: Any) -> Any:
        budget: _Budget | None = env.budget
        if budget is None:
            return f(*args, **kwargs)
        budget.tick()
        budget.arguments(tuple(a for a in args if isinstance(a, int | float | str)) +
                         tuple(kwargs.values()))
        out = f(*args, **kwargs)
        if isinstance(out, str | list | tuple):
            budget.size(len(out), "a filter's result")
        return out
    return bounded


@contextmanager
def _alarm(limits: Limits) -> Iterator[None]:
    """Interrupt a render that runs past `render_seconds` in a loop no hook sees (the
    main thread only: where signals are delivered)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum: int, frame: Any) -> None:
        raise _timeout(limits)

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, limits.render_seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


class Renderer:
    """Renders instruction texts; each distinct text is compiled once."""

    def __init__(self) -> None:
        self.env = sandbox()
        self._compiled: dict[str, Any] = {}

    def render(self, text: str, values: Mapping[str, Any]) -> str:
        """`text` rendered with `values`, within the limits in effect."""
        from jinja2 import TemplateError

        limits = current()
        budget = self.env.budget = _Budget(limits)
        try:
            compiled = self._compiled.get(text)
            if compiled is None:
                compiled = self._compiled[text] = self.env.from_string(text)
            out: list[str] = []
            length = 0
            with _alarm(limits):
                for chunk in compiled.generate(**values):
                    length += len(chunk)
                    budget.size(length, "an instruction")
                    budget.tick(0)
                    out.append(chunk)
        except TemplateError as e:
            raise RenderError(e.message or type(e).__name__) from None
        except RecursionError:
            raise RenderLimitError("render_depth", "calls nested too deep") from None
        except RenderError:
            raise
        except (ValueError, TypeError, ArithmeticError, MemoryError) as e:
            raise RenderError(str(e) or type(e).__name__) from None
        finally:
            self.env.budget = None
        return polish(untangle("".join(out), entities_in(values)))


_THREAD = threading.local()


def thread_renderer() -> Renderer:
    """This thread's renderer, which the scenes (and days) it compiles share: each text
    is compiled once a thread, not once a scene. (A renderer keeps the render in progress
    on its environment: threads do not share one.)"""
    found: Renderer | None = getattr(_THREAD, "renderer", None)
    if found is None:
        found = _THREAD.renderer = Renderer()
    return found


#: A space before punctuation, and punctuation doubled ("..", ",,", ",."; not "...").
_SPACE_BEFORE_MARK = re.compile(r"\s+([.,;:!?])")
_DOUBLED_MARK = re.compile(r"([,;:])[,;:]+|(?<![.])(\.)\.(?!\.)|[,;:]+(?=[.!?])")


def polish(text: str) -> str:
    """An instruction's typography: one line of single-spaced words, no space before
    punctuation, no doubled punctuation, the first letter a capital."""
    text = " ".join(text.split())
    text = _SPACE_BEFORE_MARK.sub(r"\1", text)
    text = _DOUBLED_MARK.sub(lambda m: m.group(1) or m.group(2) or "", text)
    return text[:1].upper() + text[1:]
