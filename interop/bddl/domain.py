"""The generated domain `bddl-home`: fdc-home, with BDDL's categories, substances, rooms
and BEHAVIOR's object states added.

It is fdc-home's own text (its types, predicates and actions, so the planning abstraction
and every checker stay as they are) with the vocabulary's types appended to `:types`, the
substances to `:constants` (of the value type `substance`) and the object states of
`fdc.predicates.checkers.object_states` to `:predicates`.

See docs/bddl.md.
"""

from __future__ import annotations

from fdc.domain import builtin_domain_files
from fdc.interop.bddl.vocabulary import FdcHome, Vocabulary

DOMAIN_NAME = "bddl-home"

STATE_PREDICATES = """\
    ; BEHAVIOR's object states (fdc.predicates.checkers.object_states)
    (cooked ?o - (either furniture movable))
    (frozen ?o - (either furniture movable))
    (hot ?o - (either furniture movable))
    (folded ?o - (either furniture movable))
    (unfolded ?o - (either furniture movable))
    (broken ?o - (either furniture movable))
    (on-fire ?o - (either furniture movable))
    (covered ?o - (either furniture movable) ?s - substance)
    (filled ?o - (either furniture movable) ?s - substance)
    (contains ?o - (either furniture movable) ?s - substance)
    (saturated ?o - (either furniture movable) ?s - substance)
    (attached ?o ?x - (either furniture movable))
    ; a source of the substance that does not run out (a salt shaker, a sink: `insource`)
    (insource ?o - (either furniture movable) ?s - substance)
    ; static: what the state actions need (fdc.sim_bridge.world.transitions's categories)
    (is-heat-source ?o - (either furniture movable))
    (is-freezer ?o - (either furniture movable))
    (is-water-source ?o - (either furniture movable))
    (is-cleaning-tool ?o - (either furniture movable))
    ; the floor of an item's inside (a bowl's, an ashcan's)
    (floor-of ?t - item-top ?o - movable)
    ; static: the scene's recipes (substances made by heating: cooked rice, melted butter)
    (cooks-into ?i ?x - substance)
    (cooks-into-2 ?i ?j ?x - substance)
    (melts-into ?o - movable ?x - substance)
    (is-mixing-tool ?o - (either furniture movable))
    (mixes-into-2 ?i ?j ?x - substance)
    (mixes-into-3 ?i ?j ?k ?x - substance)"""

#: The actions that change BEHAVIOR's states: the embedded world's transition rules
#: (`fdc.sim_bridge.world.transitions`, whose `PLAN_ACTIONS` maps each to its rule).
STATE_ACTIONS = """
  ; put the held item inside an item that has an inside (a bowl, an ashcan: `on` its
  ; floor, which `inside-of` reads) whatever its type, the robot at that floor
  (:action navigate-to-item-inside
    :parameters (?to - item-top ?i - movable ?r - room)
    :precondition (and (floor-of ?to ?i) (in-room ?i ?r) (not (holding ?i)))
    :effect (and
      (forall (?s - surface) (when (not (= ?s ?to)) (not (robot-at-receptacle ?s))))
      (forall (?x - room) (when (not (= ?x ?r)) (not (robot-in-room ?x))))
      (forall (?o - movable) (not (robot-at-object ?o)))
      (robot-at-receptacle ?to)
      (robot-in-room ?r)
      (forall (?h - movable) (when (holding ?h) (in-room ?h ?r)))
      (forall (?h - movable ?x - room)
        (when (and (holding ?h) (not (= ?x ?r))) (not (in-room ?h ?x))))
      (increase (total-cost) 1)))
  (:action place-in-item
    :parameters (?o - movable ?t - item-top ?i - movable)
    :precondition (and (holding ?o) (not (= ?o ?i)) (floor-of ?t ?i) (fits ?o ?t)
      (robot-at-receptacle ?t))
    :effect (and
      (on ?o ?t)
      (forall (?r - room) (when (in-room ?i ?r) (in-room ?o ?r)))
      (forall (?r - room) (when (not (in-room ?i ?r)) (not (in-room ?o ?r))))
      (hand-empty)
      (not (holding ?o))
      (increase (total-cost) 1)))
  ; BEHAVIOR's `nextto` (the `next-to` checker): the held item put on a surface of the
  ; piece of furniture (over it, within its height: next to it for the checker), or
  ; beside an item on the surface it rests on, at the free spot nearest it (the world's
  ; `around`); picking either item up forgets it (`pick`)
  (:action place-next-to
    :parameters (?o - movable ?x - furniture ?s - furniture-surface ?r - room)
    :precondition (and
      (holding ?o)
      (robot-at-receptacle ?s)
      (fits ?o ?s)
      (surface-of ?s ?x)
      (furniture-in-room ?x ?r)
      (forall (?y - receptacle ?g - articulated)
        (imply (and (= ?y ?s) (surface-of ?y ?g)) (is-open ?g))))
    :effect (and
      (on ?o ?s)
      (next-to ?o ?x)
      (forall (?y - receptacle) (when (= ?y ?s) (inside ?o ?y)))
      (in-room ?o ?r)
      (forall (?y - room) (when (not (= ?y ?r)) (not (in-room ?o ?y))))
      (on-furniture ?o)
      (hand-empty)
      (not (holding ?o))
      (increase (total-cost) 1)))
  (:action place-next-to-item
    :parameters (?o ?a - movable ?s - furniture-surface ?f - furniture ?r - room)
    :precondition (and
      (holding ?o)
      (not (= ?o ?a))
      (on ?a ?s)
      (robot-at-receptacle ?s)
      (fits ?o ?s)
      (surface-of ?s ?f)
      (furniture-in-room ?f ?r)
      (forall (?y - receptacle ?g - articulated)
        (imply (and (= ?y ?s) (surface-of ?y ?g)) (is-open ?g))))
    :effect (and
      (on ?o ?s)
      (next-to ?o ?a)
      (forall (?y - receptacle) (when (= ?y ?s) (inside ?o ?y)))
      (in-room ?o ?r)
      (forall (?y - room) (when (not (= ?y ?r)) (not (in-room ?o ?y))))
      (on-furniture ?o)
      (hand-empty)
      (not (holding ?o))
      (increase (total-cost) 1)))
  ; BEHAVIOR's `ontop` of the floor (the `on-floor` checker): the held item put down on
  ; the floor of the robot's room, by the robot, or beside an item on the floor the
  ; robot stands at (the world's `place_on_floor`: next to it for the checker); every
  ; pick takes it off the floor (`pick-from-floor` takes it up again)
  (:action place-on-floor
    :parameters (?o - movable ?r - room)
    :precondition (and (holding ?o) (robot-in-room ?r))
    :effect (and
      (on-floor ?o)
      (in-room ?o ?r)
      (forall (?y - room) (when (not (= ?y ?r)) (not (in-room ?o ?y))))
      (hand-empty)
      (not (holding ?o))
      (increase (total-cost) 1)))
  (:action place-on-floor-next-to
    :parameters (?o ?a - movable ?r - room)
    :precondition (and
      (holding ?o)
      (not (= ?o ?a))
      (on-floor ?a)
      (in-room ?a ?r)
      (robot-at-object ?a)
      (robot-in-room ?r))
    :effect (and
      (on-floor ?o)
      (next-to ?o ?a)
      (in-room ?o ?r)
      (forall (?y - room) (when (not (= ?y ?r)) (not (in-room ?o ?y))))
      (hand-empty)
      (not (holding ?o))
      (increase (total-cost) 1)))
  ; BEHAVIOR's state changes: the embedded world's rules (fdc.sim_bridge.world.transitions)
  (:action toggle-on
    :parameters (?f - furniture ?s - furniture-surface)
    :precondition (and (surface-of ?s ?f) (robot-at-receptacle ?s) (not (is-powered-on ?f)))
    :effect (and (is-powered-on ?f) (not (is-powered-off ?f)) (increase (total-cost) 1)))
  (:action toggle-on-item
    :parameters (?o - movable)
    :precondition (and (holding ?o) (not (is-powered-on ?o)))
    :effect (and (is-powered-on ?o) (not (is-powered-off ?o)) (increase (total-cost) 1)))
  (:action toggle-off
    :parameters (?f - furniture ?s - furniture-surface)
    :precondition (and (surface-of ?s ?f) (robot-at-receptacle ?s) (is-powered-on ?f))
    :effect (and (not (is-powered-on ?f)) (is-powered-off ?f) (increase (total-cost) 1)))
  (:action toggle-off-item
    :parameters (?o - movable)
    :precondition (and (holding ?o) (is-powered-on ?o))
    :effect (and (not (is-powered-on ?o)) (is-powered-off ?o) (increase (total-cost) 1)))
  (:action cook
    :parameters (?o - movable ?s - surface ?h - furniture)
    :precondition (and (on ?o ?s) (surface-of ?s ?h) (is-heat-source ?h) (is-powered-on ?h)
      (robot-at-receptacle ?s))
    :effect (and (cooked ?o) (hot ?o) (not (frozen ?o)) (increase (total-cost) 1)))
  (:action heat
    :parameters (?o - movable ?s - surface ?h - furniture)
    :precondition (and (on ?o ?s) (surface-of ?s ?h) (is-heat-source ?h) (is-powered-on ?h)
      (robot-at-receptacle ?s))
    :effect (and (hot ?o) (not (frozen ?o)) (increase (total-cost) 1)))
  (:action freeze
    :parameters (?o - movable ?s - surface ?f - furniture)
    :precondition (and (on ?o ?s) (surface-of ?s ?f) (is-freezer ?f) (robot-at-receptacle ?s))
    :effect (and (frozen ?o) (not (hot ?o)) (increase (total-cost) 1)))
  (:action fill
    :parameters (?o - movable ?s - furniture-surface ?w - furniture)
    :precondition (and (holding ?o) (surface-of ?s ?w) (is-water-source ?w)
      (robot-at-receptacle ?s))
    :effect (and (filled ?o water) (contains ?o water) (increase (total-cost) 1)))
  (:action soak
    :parameters (?o - movable ?s - furniture-surface ?w - furniture)
    :precondition (and (holding ?o) (surface-of ?s ?w) (is-water-source ?w)
      (robot-at-receptacle ?s))
    :effect (and (saturated ?o water) (increase (total-cost) 1)))
  (:action wash
    :parameters (?o - movable ?x - substance ?s - furniture-surface ?w - furniture)
    :precondition (and (holding ?o) (covered ?o ?x) (surface-of ?s ?w) (is-water-source ?w)
      (robot-at-receptacle ?s))
    :effect (and (not (covered ?o ?x)) (increase (total-cost) 1)))
  ; what an item holds poured down the sink (a kettle of tea, an ashtray of ash)
  (:action empty
    :parameters (?o - movable ?x - substance ?s - furniture-surface ?w - furniture)
    :precondition (and (holding ?o) (or (contains ?o ?x) (filled ?o ?x)) (not (insource ?o ?x))
      (surface-of ?s ?w) (is-water-source ?w) (robot-at-receptacle ?s))
    :effect (and (not (contains ?o ?x)) (not (filled ?o ?x)) (increase (total-cost) 1)))
  ; what the held item holds emptied into another item (an ashtray into an ashcan)
  (:action empty-into
    :parameters (?a ?b - movable ?x - substance)
    :precondition (and (holding ?a) (or (contains ?a ?x) (filled ?a ?x)) (not (insource ?a ?x))
      (not (= ?a ?b)) (robot-at-object ?b))
    :effect (and (contains ?b ?x) (filled ?b ?x) (not (contains ?a ?x)) (not (filled ?a ?x))
      (increase (total-cost) 1)))
  (:action wipe
    :parameters (?f - furniture ?t - movable ?x - substance ?s - furniture-surface)
    :precondition (and (holding ?t) (is-cleaning-tool ?t) (covered ?f ?x) (surface-of ?s ?f)
      (robot-at-receptacle ?s))
    :effect (and (not (covered ?f ?x)) (increase (total-cost) 1)))
  (:action wipe-item
    :parameters (?o ?t - movable ?x - substance)
    :precondition (and (holding ?t) (is-cleaning-tool ?t) (covered ?o ?x) (not (= ?o ?t))
      (robot-at-object ?o))
    :effect (and (not (covered ?o ?x)) (increase (total-cost) 1)))
  (:action pour
    :parameters (?a ?b - movable ?x - substance)
    :precondition (and (holding ?a) (contains ?a ?x) (not (= ?a ?b)) (robot-at-object ?b))
    :effect (and (contains ?b ?x) (filled ?b ?x) (increase (total-cost) 1)))
  (:action spread
    :parameters (?a ?b - movable ?x - substance)
    :precondition (and (holding ?a) (contains ?a ?x) (not (= ?a ?b)) (robot-at-object ?b))
    :effect (and (covered ?b ?x) (increase (total-cost) 1)))
  (:action pour-filled
    :parameters (?a ?b - movable ?x - substance)
    :precondition (and (holding ?a) (filled ?a ?x) (not (= ?a ?b)) (robot-at-object ?b))
    :effect (and (contains ?b ?x) (filled ?b ?x) (increase (total-cost) 1)))
  (:action spread-filled
    :parameters (?a ?b - movable ?x - substance)
    :precondition (and (holding ?a) (filled ?a ?x) (not (= ?a ?b)) (robot-at-object ?b))
    :effect (and (covered ?b ?x) (increase (total-cost) 1)))
  (:action pour-source
    :parameters (?a ?b - movable ?x - substance)
    :precondition (and (holding ?a) (insource ?a ?x) (not (= ?a ?b)) (robot-at-object ?b))
    :effect (and (contains ?b ?x) (filled ?b ?x) (increase (total-cost) 1)))
  (:action spread-source
    :parameters (?a ?b - movable ?x - substance)
    :precondition (and (holding ?a) (insource ?a ?x) (not (= ?a ?b)) (robot-at-object ?b))
    :effect (and (covered ?b ?x) (increase (total-cost) 1)))
  (:action spread-source-on-furniture
    :parameters (?a - movable ?f - furniture ?x - substance ?s - furniture-surface)
    :precondition (and (holding ?a) (insource ?a ?x) (surface-of ?s ?f) (robot-at-receptacle ?s))
    :effect (and (covered ?f ?x) (increase (total-cost) 1)))
  (:action spread-on-furniture
    :parameters (?a - movable ?f - furniture ?x - substance ?s - furniture-surface)
    :precondition (and (holding ?a) (contains ?a ?x) (surface-of ?s ?f) (robot-at-receptacle ?s))
    :effect (and (covered ?f ?x) (increase (total-cost) 1)))
  ; a substance made by heating what an item holds (the scene's recipes: the world's `make`)
  (:action cook-substance
    :parameters (?c - movable ?i ?x - substance ?s - surface ?h - furniture)
    :precondition (and (cooks-into ?i ?x) (contains ?c ?i) (on ?c ?s) (surface-of ?s ?h)
      (is-heat-source ?h) (is-powered-on ?h) (robot-at-receptacle ?s))
    :effect (and (contains ?c ?x) (filled ?c ?x) (increase (total-cost) 1)))
  (:action cook-substance-2
    :parameters (?c - movable ?i ?j ?x - substance ?s - surface ?h - furniture)
    :precondition (and (cooks-into-2 ?i ?j ?x) (contains ?c ?i) (contains ?c ?j) (on ?c ?s)
      (surface-of ?s ?h) (is-heat-source ?h) (is-powered-on ?h) (robot-at-receptacle ?s))
    :effect (and (contains ?c ?x) (filled ?c ?x) (increase (total-cost) 1)))
  (:action melt
    :parameters (?c ?b - movable ?t - item-top ?x - substance ?s - surface ?h - furniture)
    :precondition (and (melts-into ?b ?x) (on ?b ?t) (floor-of ?t ?c) (on ?c ?s)
      (surface-of ?s ?h) (is-heat-source ?h) (is-powered-on ?h) (robot-at-receptacle ?s))
    :effect (and (contains ?c ?x) (filled ?c ?x) (increase (total-cost) 1)))
  ; a substance made by stirring what an item holds with a mixing tool (a spoon)
  (:action mix-2
    :parameters (?c ?t - movable ?i ?j ?x - substance)
    :precondition (and (holding ?t) (is-mixing-tool ?t) (not (= ?c ?t)) (mixes-into-2 ?i ?j ?x)
      (contains ?c ?i) (contains ?c ?j) (robot-at-object ?c))
    :effect (and (contains ?c ?x) (filled ?c ?x) (increase (total-cost) 1)))
  (:action mix-3
    :parameters (?c ?t - movable ?i ?j ?k ?x - substance)
    :precondition (and (holding ?t) (is-mixing-tool ?t) (not (= ?c ?t))
      (mixes-into-3 ?i ?j ?k ?x) (contains ?c ?i) (contains ?c ?j) (contains ?c ?k)
      (robot-at-object ?c))
    :effect (and (contains ?c ?x) (filled ?c ?x) (increase (total-cost) 1)))
  (:action fold
    :parameters (?o - movable)
    :precondition (and (holding ?o) (not (folded ?o)))
    :effect (and (folded ?o) (not (unfolded ?o)) (increase (total-cost) 1)))
  (:action unfold
    :parameters (?o - movable)
    :precondition (and (holding ?o) (folded ?o))
    :effect (and (not (folded ?o)) (unfolded ?o) (increase (total-cost) 1)))
  (:action attach
    :parameters (?o ?x - movable)
    :precondition (and (holding ?o) (not (= ?o ?x)) (robot-at-object ?x))
    :effect (and (attached ?o ?x) (increase (total-cost) 1)))
  (:action attach-to-furniture
    :parameters (?o - movable ?f - furniture ?s - furniture-surface)
    :precondition (and (holding ?o) (surface-of ?s ?f) (robot-at-receptacle ?s))
    :effect (and (attached ?o ?f) (increase (total-cost) 1)))
  ; detached where it stands, within reach (the world's `detach`): a bicycle off its rack
  ; stays on the floor
  (:action detach
    :parameters (?o - movable ?x - (either furniture movable))
    :precondition (and (or (holding ?o) (robot-at-object ?o)) (attached ?o ?x))
    :effect (and (not (attached ?o ?x)) (increase (total-cost) 1)))
"""


def home_text() -> str:
    path = next(p for p in builtin_domain_files() if p.name == "fdc-home.pddl")
    return str(path.read_text(encoding="utf-8"))


def read_home() -> FdcHome:
    """fdc-home's types (each with its ancestors) and constants."""
    from fdc.compiler import ast as A
    from fdc.compiler.parse import parse_source
    from fdc.core.problems import SourceFile

    unit = parse_source(SourceFile("fdc-home.pddl", home_text())).unit
    assert unit is not None, "the built-in domain parses"
    (domain,) = unit.definitions
    assert isinstance(domain, A.Domain)
    parents: dict[str, str] = {}
    for t in domain.types:
        parents[t.name] = t.types[0] if t.types else "object"
    ancestors: dict[str, frozenset[str]] = {}
    for name in parents:
        seen, cur = {name}, name
        while cur in parents:
            cur = parents[cur]
            seen.add(cur)
        ancestors[name] = frozenset(seen)
    constants = frozenset(c.name for c in domain.constants)
    return FdcHome(ancestors, constants)


def _section_end(text: str, head: str) -> int:
    """The offset of the `)` closing the section that starts with `head`."""
    start = text.index(head)
    depth, i = 0, start
    while i < len(text):
        ch = text[i]
        if ch == ";":
            i = text.index("\n", i)
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise ValueError(f"no end of {head}")


def _wrap(names: list[str], parent: str, width: int = 88) -> list[str]:
    lines, line = [], "    "
    for n in names:
        if len(line) + len(n) + 1 > width and line.strip():
            lines.append(line.rstrip())
            line = "    "
        line += n + " "
    return [*lines, line + f"- {parent}"]


def domain_text(v: Vocabulary) -> str:
    """The text of `bddl-home` for vocabulary `v`."""
    text = home_text()
    text = text.replace("(define (domain fdc-home)", f"(define (domain {DOMAIN_NAME})", 1)
    header = ("; Generated by `fdc import bddl` from BEHAVIOR-1K's BDDL activities (the `bddl`\n"
              "; package's corpus): fdc-home, with BDDL's synsets as types (their hierarchy),\n"
              "; substances as constants of the value type `substance`, BDDL's room types,\n"
              "; and BEHAVIOR's object states. See docs/bddl.md.\n")
    by_parent: dict[str, list[str]] = {}
    for t, p in v.parents.items():
        by_parent.setdefault(p, []).append(t)
    types = ["", "    ; generated from BDDL's synsets: substances, rooms, then categories",
             "    substance - value"]
    if v.new_rooms:
        types += _wrap(sorted(v.new_rooms), "room")
    for p in sorted(by_parent):
        types += _wrap(sorted(by_parent[p]), p)
    end = _section_end(text, "(:types")
    text = text[:end] + "\n".join(types) + text[end:]
    end = _section_end(text, "(:constants")
    subs = sorted(v.substances.values())
    if subs:
        text = text[:end] + "\n".join(["", "    ; BDDL's substances", *_wrap(subs, "substance")]) \
            + text[end:]
    end = _section_end(text, "(:predicates")
    text = text[:end] + "\n" + STATE_PREDICATES + text[end:]
    end = text.rstrip().rindex(")")  # the domain's own
    actions = STATE_ACTIONS if "water" in v.substances.values() else \
        _without_water(STATE_ACTIONS)
    text = text[:end].rstrip() + "\n" + actions + text[end:]
    return header + _pick_guards(text)


#: What stands on an item's top keeps it from being picked (fdc-home's `pick`); in
#: bddl-home, what lies on the floor of its inside too (an item in an ashcan, a carton:
#: `floor-of`), as the embedded world refuses to pick an item that carries anything.
_CARRIES = "(forall (?t - item-top ?x - movable) (imply (top-of ?t ?o) (not (on ?x ?t))))"
_CARRIES_ANY = ("(forall (?t - item-top ?x - movable)\n"
                "        (imply (or (top-of ?t ?o) (floor-of ?t ?o)) (not (on ?x ?t))))")
#: `pick` from an item's top or inside (a tupperware's) only while the articulated
#: furniture the item stands in is open: the world refuses to pick an item inside a
#: closed container at any depth (`PosedState.enclosing_container`); the abstraction
#: sees one level of item, and `on`, which the checkers judge through the levels.
_PICK_OPEN = "(imply (and (= ?x ?s) (surface-of ?x ?g)) (is-open ?g)))"
_PICK_OPEN_ANY = (
    "(imply (and (surface-of ?x ?g) (or (= ?x ?s) (on ?o ?x))) (is-open ?g)))\n"
    "      (forall (?t - item-top ?i - movable ?x - receptacle ?g - articulated)\n"
    "        (imply (and (= ?t ?s) (or (top-of ?t ?i) (floor-of ?t ?i)) (on ?i ?x)\n"
    "                    (surface-of ?x ?g))\n"
    "          (is-open ?g)))")


#: What every pick of fdc-home's forgets of the item, and bddl-home's picks `on-floor`
#: (in the hand: `place-on-floor` makes it again) and `next-to` too (either item moved:
#: `place-next-to` makes it again).
_FORGETS = "      (forall (?a - movable) (and (not (around ?o ?a)) (not (around ?a ?o))))\n"
_FORGETS_NEXT = (
    "      (not (on-floor ?o))\n"
    "      (forall (?y - furniture) (not (next-to ?o ?y)))\n"
    "      (forall (?y - movable) (and (not (next-to ?o ?y)) (not (next-to ?y ?o))))\n")


def _pick_guards(text: str) -> str:
    """fdc-home's picks with bddl-home's guards (`_CARRIES_ANY`, `_PICK_OPEN_ANY`) and
    their forgetting `next-to` (`_FORGETS_NEXT`)."""
    head = text.index("(:action pick\n")
    end = text.index("(:action pick-from-floor\n")
    pick = text[head:end]
    assert pick.count(_PICK_OPEN) == 1, "fdc-home's pick guards its receptacle"
    pick = pick.replace(_PICK_OPEN, _PICK_OPEN_ANY)
    text = text[:head] + pick + text[end:]
    assert text.count(_CARRIES) == 3, "fdc-home's three picks guard an item's top"
    assert text.count(_FORGETS) == 3, "fdc-home's three picks forget `around`"
    return text.replace(_CARRIES, _CARRIES_ANY).replace(_FORGETS, _FORGETS + _FORGETS_NEXT)


def _without_water(actions: str) -> str:
    """The state actions but those that name the constant `water` (a vocabulary with no
    such substance)."""
    parts = actions.split("  (:action ")
    return "  (:action ".join(p for p in parts if " water)" not in p)
