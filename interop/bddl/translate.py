"""One BDDL activity as an fdc template whose goal means the same, or why it cannot be.

- A named instance the goal mentions (`?bowl.n.01_1`) becomes a parameter of its
  synset's type (`?bowl-1 - bowl`), tied down by binding constraints: the facts of
  `:init` about it that fdc can state, each other instance they mention quantified
  (`(exists (?c - countertop) (on-top-of ?bowl-1 ?c))`), rooms by type.
- A quantified variable ranges over its synset's type: the interchangeable instances.
  `forn` is BDDL's `exactly`; `forpairs` is BDDL's covering (`ForPairs.evaluate`: at
  least L of the first have some second and at least L of the second some first, L the
  smaller count of the two in the activity; `fornpairs N`: L = N).
- The floor: `(ontop ?x ?floor)` is `on-floor`, and in the floor's room when `:init`
  puts it in one. An object created during the task (`future` in `:init`) is quantified
  over its type (it exists at the end: `real`): an approximation, since fdc creates no
  objects; `(not (real ?x))`, an object used up, cannot be said.
- Relations and states are mapped as `PREDICATES` says; `overlaid` and `draped` are read
  as `on-top-of` (approximations, listed with the template). What has no counterpart is
  `Unsupported`, with a reason from `REASONS`.

The instruction is generated from the same tree: parameters are `{{ p | ref }}`, so fdc's
describer names them in each scene; quantified things are their category's words.

See docs/bddl.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from fdc.core.errors import FdcError
from fdc.interop.bddl.corpus import Activity, Sexp
from fdc.interop.bddl.vocabulary import (
    AGENT,
    ARTICULATED,
    FLOOR,
    FURNITURE,
    MOVABLE,
    SUBSTANCE,
    Vocabulary,
    pddl_name,
    synset_word,
    synsets_overlap,
)

#: Why a goal could not be translated: reason -> what it means (docs/bddl.md).
REASONS = {
    "relation": "a relation fdc has no checker for (touching, under)",
    "state": "an object state fdc has no checker for (grasped, insource)",
    "consumed": "an object used up during the task: `(not (real ?x))`",
    "open-item": "`open` of a movable item (a jar); fdc opens articulated furniture only",
    "furniture-moved": "furniture as the item of a relation (put a table on the floor)",
    "substance-as-object": "a substance where fdc wants an object (inside, ontop, quantified)",
    "object-as-substance": "an object where a state wants a substance",
    "agent": "the robot itself in the goal",
    "form": "a form of BDDL's language fdc does not read",
    "floor": "a state of the floor, or the floor quantified: fdc's floor is no object",
    "created-only": "the goal only asks that objects be made (`real`)",
    "unreadable": "BDDL's parser refused the file",
    "fdc-check": "the generated template failed `fdc check`",
}

#: BDDL predicate -> (fdc predicate, how exact): the mapping table of docs/bddl.md.
PREDICATES = {
    "ontop": ("on-top-of", "same"),
    "inside": ("inside-of", "same"),
    "nextto": ("next-to", "same"),
    "open": ("is-open", "same"),
    "toggled_on": ("is-powered-on", "same"),
    "cooked": ("cooked", "same"),
    "frozen": ("frozen", "same"),
    "hot": ("hot", "same"),
    "folded": ("folded", "same"),
    "unfolded": ("unfolded", "same"),
    "broken": ("broken", "same"),
    "on_fire": ("on-fire", "same"),
    "covered": ("covered", "same"),
    "filled": ("filled", "same"),
    "contains": ("contains", "same"),
    "saturated": ("saturated", "same"),
    "attached": ("attached", "same"),
    "overlaid": ("on-top-of", "approximated: lying over read as on top of"),
    "draped": ("on-top-of", "approximated: draped over read as on top of"),
}
UNSUPPORTED_RELATIONS = ("touching", "under")
UNSUPPORTED_STATES = ("grasped", "insource", "inroom")
RELATIONS = ("on-top-of", "inside-of", "next-to", "attached")
WITH_SUBSTANCE = ("covered", "filled", "contains", "saturated")

# English: predicate -> (positive, negative), `{0}` the object, `{1}` the other.
_ENGLISH = {
    "on-top-of": ("{0} is on {1}", "{0} is not on {1}"),
    "inside-of": ("{0} is inside {1}", "{0} is not inside {1}"),
    "next-to": ("{0} is next to {1}", "{0} is not next to {1}"),
    "attached": ("{0} is attached to {1}", "{0} is not attached to {1}"),
    "on-floor": ("{0} is on the floor", "{0} is not on the floor"),
    "is-open": ("{0} is open", "{0} is closed"),
    "is-powered-on": ("{0} is switched on", "{0} is switched off"),
    "cooked": ("{0} is cooked", "{0} is not cooked"),
    "frozen": ("{0} is frozen", "{0} is not frozen"),
    "hot": ("{0} is hot", "{0} is not hot"),
    "folded": ("{0} is folded", "{0} is not folded"),
    "unfolded": ("{0} is unfolded", "{0} is not unfolded"),
    "broken": ("{0} is broken", "{0} is not broken"),
    "on-fire": ("{0} is on fire", "{0} is not on fire"),
    "covered": ("{0} is covered with {1}", "{0} is not covered with {1}"),
    "filled": ("{0} is filled with {1}", "{0} is not filled with {1}"),
    "contains": ("{0} contains {1}", "{0} does not contain {1}"),
    "saturated": ("{0} is soaked with {1}", "{0} is not soaked with {1}"),
}


class Unsupported(FdcError):
    """The activity's goal cannot be said in fdc: `reason` (a key of `REASONS`) and the
    BDDL that says what."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


# ----------------------------------------------------------------------------- the tree
@dataclass(frozen=True)
class Term:
    """A parameter (`?bowl-1`), a variable (`?apple`), a substance constant (`water`)."""

    kind: str  # "param" | "var" | "const"
    name: str
    synset: str
    words: str  # what English calls it


@dataclass(frozen=True)
class Node:
    op: str  # "atom" | "not" | "and" | "or" | "imply" | quantifier | "floor-in" | "distinct"
    parts: tuple[Node, ...] = ()
    pred: str = ""
    args: tuple[Term, ...] = ()
    var: Term | None = None
    type: str = ""
    count: int = 0


TRUE = Node("and")


def _and(parts: Sequence[Node]) -> Node:
    flat: list[Node] = []
    for p in parts:
        if p.op == "and":
            flat.extend(p.parts)
        else:
            flat.append(p)
    return flat[0] if len(flat) == 1 else Node("and", tuple(flat))


# ----------------------------------------------------------------------------- translation
@dataclass
class Template:
    """One activity's template text and what went into it."""

    name: str
    activity: str
    text: str
    goal: str
    instruction: str
    parameters: list[tuple[str, str]]  # (parameter, type)
    approximations: list[str]
    constraints_left_out: list[str] = field(default_factory=list)


def template_name(activity: str) -> str:
    return "bddl-" + pddl_name(activity)


class _Translator:
    def __init__(self, activity: Activity, vocab: Vocabulary) -> None:
        self.a = activity
        self.v = vocab
        self.synset_of = activity.synset_of()
        self.future = {str(f[1]) for f in activity.init
                       if isinstance(f, list) and len(f) == 2 and f[0] == "future"}
        self.floor_room: dict[str, str] = {}
        for f in activity.init:
            if isinstance(f, list) and len(f) == 3 and f[0] == "inroom" and \
                    self.synset_of.get(str(f[1])) == FLOOR:
                self.floor_room[str(f[1])] = self.v.rooms[str(f[2])]
        self.params: dict[str, Term] = {}
        self.future_terms: dict[str, Term] = {}
        self.names: set[str] = set()
        self.approximations: list[str] = []
        self.others: dict[str, Term] = {}  # instances the constraints quantify

    # -- terms
    def _fresh(self, base: str) -> str:
        name, n = f"?{base}", 1
        while name in self.names:
            n += 1
            name = f"?{base}-v{n}"
        self.names.add(name)
        return name

    def instance(self, raw: str) -> Term:
        inst = raw.lstrip("?")
        synset = self.synset_of[inst]
        if synset == AGENT:
            raise Unsupported("agent", raw)
        if self.v.role(synset) == SUBSTANCE:
            return Term("const", self.v.substances[synset], synset, self.v.word(synset))
        if synset == FLOOR:
            return Term("const", inst, synset, "the floor")  # never printed: `on-floor`
        if inst in self.future:
            t = self.future_terms.get(inst)
            if t is None:
                t = Term("var", self._fresh(self.v.type_of(synset)), synset,
                         f"the {self.v.word(synset)}")
                self.future_terms[inst] = t
            return t
        t = self.params.get(inst)
        if t is None:
            index = inst.rsplit("_", 1)[-1]
            name = f"?{self.v.type_of(synset)}-{index}"
            self.names.add(name)
            t = Term("param", name, synset, "{{ " + name[1:].replace("-", "_") + " | ref }}")
            self.params[inst] = t
        return t

    def term(self, raw: object, scope: dict[str, Term]) -> Term:
        if not isinstance(raw, str):
            raise Unsupported("form", _bddl(raw))
        if raw in scope:
            return scope[raw]
        if raw.lstrip("?") in self.synset_of:
            return self.instance(raw)
        raise Unsupported("form", f"unknown name `{raw}`")

    # -- formulas
    def formula(self, e: Sexp, scope: dict[str, Term]) -> Node:
        if not isinstance(e, list) or not e or not isinstance(e[0], str):
            raise Unsupported("form", _bddl(e))
        head = e[0]
        if head == "and":
            return _and([self.formula(x, scope) for x in e[1:]])
        if head == "or":
            return Node("or", tuple(self.formula(x, scope) for x in e[1:]))
        if head == "not" and len(e) == 2:
            if isinstance(e[1], list) and e[1] and e[1][0] == "real":
                raise Unsupported("consumed", _bddl(e))
            inner = self.formula(e[1], scope)
            if inner == TRUE:
                raise Unsupported("consumed", _bddl(e))
            return Node("not", (inner,))
        if head == "imply" and len(e) == 3:
            return Node("imply", (self.formula(e[1], scope), self.formula(e[2], scope)))
        if head in ("forall", "exists") and len(e) == 3:
            var, sc = self.bind(e[1], scope)
            body = self.formula(e[2], sc)
            if body == TRUE:  # `(forall (?x - t) (real ?x))`: every one exists
                return TRUE
            if not _uses(body, var):  # BDDL's `(forall (?x - t) φ)`, `?x` not in φ: φ
                return body
            return Node(head, (body,), var=var, type=self.v.type_of(var.synset))
        if head == "forn" and len(e) == 4:
            n = _count(e[1])
            var, sc = self.bind(e[2], scope)
            return Node("exactly", (self.formula(e[3], sc),), var=var,
                        type=self.v.type_of(var.synset), count=n)
        if head in ("forpairs", "fornpairs"):
            rest = e[2:] if head == "fornpairs" else e[1:]
            if len(rest) != 3:
                raise Unsupported("form", _bddl(e))
            a, sa = self.bind(rest[0], scope)
            b, sab = self.bind(rest[1], sa)
            body = self.formula(rest[2], sab)
            if head == "fornpairs":
                n = _count(e[1])
            else:
                n = min(len(self.a.objects.get(a.synset, ())),
                        len(self.a.objects.get(b.synset, ())))
            ta, tb = self.v.type_of(a.synset), self.v.type_of(b.synset)
            firsts = Node("at-least", (Node("exists", (body,), var=b, type=tb),), var=a,
                          type=ta, count=n)
            seconds = Node("at-least", (Node("exists", (body,), var=a, type=ta),), var=b,
                           type=tb, count=n)
            return Node("and", (firsts, seconds))
        if head == "real" and len(e) == 2:
            t = self.term(e[1], scope)  # an object that exists: true (a future one is quantified)
            note = ("real: a substance made during the task is checked only where the "
                    "goal places it (filled, contains, covered)")
            if t.kind == "const" and note not in self.approximations:
                self.approximations.append(note)
            return TRUE
        return self.atom(head, e[1:], scope)

    def bind(self, decl: object, scope: dict[str, Term]) -> tuple[Term, dict[str, Term]]:
        if not (isinstance(decl, list) and len(decl) == 3 and decl[1] == "-"
                and isinstance(decl[0], str) and isinstance(decl[2], str)):
            raise Unsupported("form", _bddl(decl))
        synset = decl[2]
        if synset in (AGENT, FLOOR):
            raise Unsupported("agent" if synset == AGENT else "floor", _bddl(decl))
        if self.v.role(synset) == SUBSTANCE:
            raise Unsupported("substance-as-object", _bddl(decl))
        t = Term("var", self._fresh(self.v.type_of(synset)), synset, f"the {self.v.word(synset)}")
        return t, {**scope, decl[0]: t}

    def atom(self, head: str, raw_args: Sequence[object], scope: dict[str, Term]) -> Node:
        if head in UNSUPPORTED_RELATIONS:
            raise Unsupported("relation", f"`{head}`")
        if head in UNSUPPORTED_STATES:
            raise Unsupported("state", f"`{head}`")
        if head not in PREDICATES:
            raise Unsupported("form", f"`{head}`")
        pred, how = PREDICATES[head]
        args = tuple(self.term(x, scope) for x in raw_args)
        if how != "same" and f"{head}: {how}" not in self.approximations:
            self.approximations.append(f"{head}: {how}")
        return self.typed_atom(head, pred, args)

    def role(self, t: Term) -> str:
        if t.synset == FLOOR:
            return "floor"
        return self.v.role(t.synset)

    def typed_atom(self, head: str, pred: str, args: tuple[Term, ...]) -> Node:
        roles = [self.role(t) for t in args]
        want = 2 if pred in RELATIONS or pred in WITH_SUBSTANCE else 1
        if len(args) != want:
            raise Unsupported("form", f"`{head}` with {len(args)} argument(s)")
        if SUBSTANCE in roles[:1] or (pred in RELATIONS and SUBSTANCE in roles):
            raise Unsupported("substance-as-object", f"`{head}` of {args[0].synset}")
        if pred in WITH_SUBSTANCE:
            if roles[1] != SUBSTANCE:
                raise Unsupported("object-as-substance", f"`{head}` with {args[1].synset}")
            if roles[0] == "floor":
                raise Unsupported("floor", f"`{head}` of the floor")
            return Node("atom", pred=pred, args=args)
        if "floor" in roles:
            if pred != "on-top-of" or roles[0] == "floor":
                raise Unsupported("floor", f"`{head}` with the floor")
            if roles[0] != MOVABLE:
                raise Unsupported("furniture-moved", f"`{head}` of {args[0].synset}")
            room = self.floor_room.get(args[1].name)
            if room is not None:
                return Node("floor-in", args=args[:1], type=room)
            return Node("atom", pred="on-floor", args=args[:1])
        if pred in ("on-top-of", "inside-of") and roles[0] != MOVABLE:
            raise Unsupported("furniture-moved", f"`{head}` of {args[0].synset}")
        if pred == "is-open" and roles[0] != ARTICULATED:
            raise Unsupported("open-item", f"`open` of {args[0].synset}")
        atom = Node("atom", pred=pred, args=args)
        if pred in RELATIONS and _may_coincide(*args):
            # BEHAVIOR's relations hold between two objects (nothing is on itself): a
            # variable that may stand for the other term is another object
            return Node("and", (Node("distinct", args=args), atom))
        return atom

    # -- the goal, wrapped in the objects created during the task
    def goal(self) -> Node:
        body = _and([self.formula(c, {}) for c in self.a.goal])
        if body == TRUE:
            raise Unsupported("created-only", "every conjunct is `real`")
        if self.future_terms:
            self.approximations.append("future: an object made during the task is one "
                                       "that exists at the end")
            terms = list(self.future_terms.values())
            distinct = [Node("distinct", args=(x, y)) for i, x in enumerate(terms)
                        for y in terms[i + 1:] if x.synset == y.synset]
            body = _and([*distinct, body])
            for t in reversed(terms):
                body = Node("exists", (body,), var=t, type=self.v.type_of(t.synset))
        return body

    # -- binding constraints from :init
    def constraints(self) -> tuple[Node | None, list[str]]:
        """The facts of `:init` about the parameters that fdc can state; the other
        instances they mention quantified, one `exists` for each group of facts that
        share such instances (one checkout under four items is one checkout)."""
        groups: list[tuple[set[str], list[Node]]] = []
        direct: list[Node] = []
        left_out: list[str] = []
        for fact in self.a.init:
            names = _names(fact)
            if not any(n in self.params for n in names):
                continue
            try:
                node, others = self.init_fact(fact)
            except Unsupported as e:
                left_out.append(f"{_bddl(fact)} ({e.reason})")
                continue
            if not others:
                direct.append(node)
                continue
            merged: tuple[set[str], list[Node]] = (set(others), [node])
            for g in [g for g in groups if g[0] & merged[0]]:
                groups.remove(g)
                merged = (merged[0] | g[0], g[1] + merged[1])
            groups.append(merged)
        parts = list(direct)
        for insts, nodes in groups:
            body = _and(nodes)
            for inst in sorted(insts, reverse=True):
                t = self.others[inst]
                body = Node("exists", (body,), var=t, type=self.v.type_of(t.synset))
            parts.append(body)
        return (_and(parts) if parts else None), left_out

    def init_fact(self, fact: Sexp) -> tuple[Node, list[str]]:
        """A fact of `:init` about a parameter, and the other instances it mentions."""
        neg = isinstance(fact, list) and len(fact) == 2 and fact[0] == "not"
        f = fact[1] if neg else fact
        if not (isinstance(f, list) and f and all(isinstance(x, str) for x in f)):
            raise Unsupported("form", _bddl(fact))
        others: list[str] = []
        if f[0] == "inroom" and len(f) == 3:
            t = self.params[f[1]]
            room = self.v.rooms[f[2]]
            pred = "furniture-in-room" if self.role(t) in (FURNITURE, ARTICULATED) else "in-room"
            r = Term("var", self._fresh("r"), "", "")
            node = Node("exists", (Node("atom", pred=pred, args=(t, r)),), var=r, type=room)
        else:
            if f[0] in ("future", "real"):
                raise Unsupported("consumed", _bddl(fact))
            if f[0] not in PREDICATES:
                raise Unsupported("relation" if f[0] in UNSUPPORTED_RELATIONS else "state",
                                  f"`{f[0]}`")
            args: list[Term] = []
            for x in f[1:]:
                if x in self.params:
                    args.append(self.params[x])
                    continue
                synset = self.synset_of.get(x)
                if synset is None or synset == AGENT or x in self.future:
                    raise Unsupported("agent" if synset == AGENT else "form", _bddl(fact))
                if synset == FLOOR or self.v.role(synset) == SUBSTANCE:
                    args.append(self.instance(x))
                    continue
                if x not in self.others:
                    self.others[x] = Term("var", self._fresh(self.v.type_of(synset)), synset, "")
                others.append(x)
                args.append(self.others[x])
            pred, _ = PREDICATES[f[0]]
            node = self.typed_atom(f[0], pred, tuple(args))
        return (Node("not", (node,)) if neg else node), others


def _may_coincide(a: Term, b: Term) -> bool:
    """Whether `a` and `b` may stand for one object: a variable and a term whose types
    overlap (two parameters bind distinct objects)."""
    return "var" in (a.kind, b.kind) and a != b and synsets_overlap(a.synset, b.synset)


def _core(n: Node) -> Node:
    """`n` without the `distinct` conditions an atom carries (`typed_atom`)."""
    rest = [p for p in n.parts if p.op != "distinct"] if n.op == "and" else []
    return rest[0] if len(rest) == 1 and len(n.parts) > 1 else n


def _uses(n: Node, var: Term) -> bool:
    return var in n.args or n.var == var or any(_uses(p, var) for p in n.parts)


def _names(e: Sexp) -> set[str]:
    if isinstance(e, str):
        return {e.lstrip("?")}
    if isinstance(e, list):
        return set().union(*(_names(x) for x in e)) if e else set()
    return set()


def _count(raw: object) -> int:
    if isinstance(raw, list) and len(raw) == 1 and isinstance(raw[0], str) and raw[0].isdigit():
        return int(raw[0])
    raise Unsupported("form", f"the count {_bddl(raw)}")


def _bddl(e: object) -> str:
    if isinstance(e, list):
        return "(" + " ".join(_bddl(x) for x in e) + ")"
    return str(e)


# ----------------------------------------------------------------------------- printing
def pddl(n: Node, indent: int = 2) -> str:
    pad = " " * indent
    if n.op == "atom":
        return "(" + " ".join([n.pred, *(t.name for t in n.args)]) + ")"
    if n.op == "distinct":
        return f"(not (= {n.args[0].name} {n.args[1].name}))"
    if n.op == "floor-in":
        (x,) = n.args
        return f"(and (on-floor {x.name}) (exists (?room - {n.type}) (in-room {x.name} ?room)))"
    if n.op in ("and", "or"):
        inner = f"\n{pad}  ".join(pddl(p, indent + 2) for p in n.parts)
        return f"({n.op}\n{pad}  {inner})"
    if n.op == "not":
        return f"(not {pddl(n.parts[0], indent)})"
    if n.op == "imply":
        return f"(imply {pddl(n.parts[0], indent)} {pddl(n.parts[1], indent)})"
    assert n.var is not None
    decl = f"({n.var.name} - {n.type})"
    body = pddl(n.parts[0], indent + 2)
    if n.op in ("forall", "exists"):
        return f"({n.op} {decl}\n{pad}  {body})"
    return f"({n.op} {n.count} {decl}\n{pad}  {body})"


def _plural(word: str) -> str:
    if word.endswith(("s", "x", "ch", "sh")):
        return word + "es"
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


def _a(word: str) -> str:
    return f"{'an' if word[:1] in 'aeiou' else 'a'} {word}"


def english(n: Node) -> str:
    """The goal in words; parameters as `{{ p | ref }}`."""
    n = _core(n)
    if n.op == "not" and _core(n.parts[0]).op == "atom":
        n = Node("not", (_core(n.parts[0]),))
    if n.op == "atom" or (n.op == "not" and n.parts[0].op == "atom"):
        a = n if n.op == "atom" else n.parts[0]
        pos, neg = _ENGLISH[a.pred]
        return (pos if n.op == "atom" else neg).format(*(t.words for t in a.args))
    if n.op == "floor-in":
        return f"{n.args[0].words} is on the floor of {_a(n.type.replace('-', ' '))}"
    if n.op == "distinct":
        return ""
    if n.op == "and":
        parts = [s for s in (english(p) for p in n.parts) if s]
        if len(parts) <= 2:
            return " and ".join(parts)
        return ", ".join(parts[:-1]) + ", and " + parts[-1]
    if n.op == "or":
        return "either " + " or ".join(english(p) for p in n.parts)
    if n.op == "not":
        return f"it is not so that {english(n.parts[0])}"
    if n.op == "imply":
        return f"if {english(n.parts[0])}, then {english(n.parts[1])}"
    assert n.var is not None
    word = n.var.words.removeprefix("the ")
    inner = _core(n.parts[0])
    if inner.op == "not":
        inner = Node("not", (_core(inner.parts[0]),))
    # one mention of the variable in one atom: "every apple is ...", "a sack", "no egg"
    negated = n.op == "forall" and inner.op == "not" and inner.parts[0].op in ("atom", "floor-in")
    atom = inner.parts[0] if negated else inner
    if n.op in ("forall", "exists") and atom.op in ("atom", "floor-in") and \
            sum(t == n.var for t in atom.args) == 1:
        said = f"no {word}" if negated else f"every {word}" if n.op == "forall" else _a(word)
        if atom.op == "floor-in":
            return f"{said} is on the floor of {_a(atom.type.replace('-', ' '))}"
        pos, _ = _ENGLISH[atom.pred]
        return pos.format(*(said if t == n.var else t.words for t in atom.args))
    body = english(inner)
    if n.op == "forall":
        return f"for every {word}, {body}"
    if n.op == "exists":
        return f"for some {word}, {body}"
    if n.op == "exactly":
        return f"for exactly {n.count} {_plural(word) if n.count != 1 else word}, {body}"
    return f"for at least {n.count} {_plural(word) if n.count != 1 else word}, {body}"


def translate(activity: Activity, vocab: Vocabulary) -> Template:
    """The template of `activity`; `Unsupported` when its goal cannot be said in fdc."""
    tr = _Translator(activity, vocab)
    goal = tr.goal()
    constraints, left_out = tr.constraints()
    name = template_name(activity.name)
    params = sorted(tr.params.values(), key=lambda t: t.name)
    sentence = english(goal)
    instruction = f"Make sure that {sentence}."
    desc = f"BEHAVIOR-1K activity {activity.name}, imported from BDDL"
    if tr.approximations:
        desc += " (" + "; ".join(tr.approximations) + ")"
    lines = [f"(define (template {name})", "  (:domain bddl-home)", "  (:category bddl)",
             "  (:tags behavior bddl manipulation outcome)", f'  (:description "{desc}.")']
    if params:
        lines.append("  (:parameters " + " ".join(
            f"{t.name} - {vocab.type_of(t.synset)}" for t in params) + ")")
    if constraints is not None:
        lines.append(f"  (:constraints {pddl(constraints, 2)})")
    goal_text = pddl(goal, 2)
    lines.append(f"  (:goal {goal_text})")
    lines.append(f'  (:instruction "{instruction}"))')
    return Template(name, activity.name, "\n".join(lines) + "\n", goal_text, instruction,
                    [(t.name, vocab.type_of(t.synset)) for t in params], tr.approximations,
                    left_out)


__all__ = [
    "PREDICATES",
    "REASONS",
    "Template",
    "Unsupported",
    "english",
    "pddl",
    "synset_word",
    "template_name",
    "translate",
]
