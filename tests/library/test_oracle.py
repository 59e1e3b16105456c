"""Every built-in template compiles to at least one task, and an oracle solves one of its
tasks in the embedded world while a wrong target fails it (issue 6).

Per template (one test id each):

- compile it on `examples/scenes/apartment.json` with the simulated experience (falling
  back to a few generated scenes when the apartment yields no task);
- memory tasks: in the world the experience left behind, stop at the pose of a valid
  frame of each target (in order) -> success; stop at a frame valid for no target ->
  failure;
- manipulation tasks: act in `EmbeddedWorld(graph)` from the scene's initial state
  (pick, navigate, place with the relation the atom names; move items away for negated
  atoms), stop -> success; the same plan moving a different item -> failure.

Templates whose tasks the oracle cannot solve are xfailed with the reason.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from fdc.compiler.compile import (
    CompileOptions,
    SceneCompiler,
    TemplateEntry,
    load_entries,
    start_snapshots,
)
from fdc.compiler.emit import SceneJob, prepare_scene
from fdc.compiler.suite import TaskRecord
from fdc.predicates.goal import GAnd, GAtom, GNot, Goal, GOr, GTargets, GThen
from fdc.predicates.registry import Context, Mode, default_registry
from fdc.predicates.verify import evaluate, verify_snapshots
from fdc.sim_bridge.state import Clock, Snapshot
from fdc.sim_bridge.world import EmbeddedWorld

ROOT = Path(__file__).resolve().parents[2]
APARTMENT = str(ROOT / "examples" / "scenes" / "apartment.json")
OPTIONS = CompileOptions(seed=0, max_per_template=3)
GENERATED_SEEDS = (0, 1, 2)
# A long day: the oracle may walk a lot (moving every item off a surface, say).
LONG_DAY = Clock(start_min=360, end_min=1320, steps_per_day=400_000)

ENTRIES, _CHECK = load_entries(None)
BY_NAME = {e.name: e for e in ENTRIES}


# --------------------------------------------------------------------------- compiling


class _Compilers:
    """The apartment's compiler, and generated scenes' ones made on first need."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.apartment, _ = prepare_scene(SceneJob(APARTMENT), OPTIONS)
        self._generated: dict[int, SceneCompiler] = {}

    def generated(self, seed: int) -> SceneCompiler:
        found = self._generated.get(seed)
        if found is None:
            from fdc.sim_bridge.generate import generate_scene

            path = self.tmp / f"generated-{seed}.json"
            path.write_text(generate_scene(rooms=4, objects=120, seed=seed).to_json())
            found, _ = prepare_scene(SceneJob(str(path)), OPTIONS)
            self._generated[seed] = found
        return found

    def all(self) -> Iterator[tuple[str, SceneCompiler]]:
        yield "apartment", self.apartment
        for s in GENERATED_SEEDS:
            yield f"generated seed {s}", self.generated(s)


@pytest.fixture(scope="module")
def compilers(tmp_path_factory: pytest.TempPathFactory) -> _Compilers:
    return _Compilers(tmp_path_factory.mktemp("scenes"))


@dataclass
class Compiled:
    where: str
    compiler: SceneCompiler
    records: list[TaskRecord]


def compile_somewhere(compilers: _Compilers, entry: TemplateEntry, tried: list[str]
                      ) -> Iterator[Compiled]:
    """The template's tasks on the apartment, then on generated scenes (while the caller
    asks for more)."""
    for where, comp in compilers.all():
        report = comp.compile_template(entry)
        if report.records:
            yield Compiled(where, comp, report.records)
        else:
            tried.append(f"{where}: {report.error or dict(report.drops) or 'no binding'}")


# --------------------------------------------------------------------------- memory


def _memory_snapshots(comp: SceneCompiler, frames: list[int]) -> list[Snapshot]:
    """The world after the experience; the robot goes to each frame's pose and stops."""
    log = comp.experience
    assert log is not None
    _, after = start_snapshots(comp.graph, log)
    assert after is not None
    snaps = [after]
    step = 0
    for k in frames:
        pose = log.frames[k].agent
        step += 1
        snaps.append(after.model_copy(update={"agent": pose, "step": step,
                                              "action": f"navigate frame {k}"}))
        step += 1
        snaps.append(after.model_copy(update={"agent": pose, "step": step, "action": "stop"}))
    return snaps


def check_memory(comp: SceneCompiler, rec: TaskRecord) -> None:
    assert rec.valid_frames is not None
    lists = rec.valid_frames
    assert all(lists), rec.flags
    n = len(comp.experience.frames)  # type: ignore[union-attr]
    if isinstance(rec.goal, GTargets):
        # one stop at a valid frame of each target, in order; a frame valid for a
        # target not yet credited would also do, so pick frames valid for that target only
        frames = []
        for k, fl in enumerate(lists):
            others = set().union(*(set(x) for j, x in enumerate(lists) if j > k))
            own = [f for f in fl if f not in others] or fl
            frames.append(own[0])
    else:
        frames = [lists[0][0]]
    good = verify_snapshots({rec.id: rec.goal}, comp.graph, _memory_snapshots(comp, frames),
                            thresholds={rec.id: rec.thresholds})[rec.id]
    assert good.success, good.reason
    valid = set().union(*(set(x) for x in lists))
    wrong = next((f for f in range(n) if f not in valid), None)
    assert wrong is not None, "every frame is valid: no wrong target to stop at"
    bad = verify_snapshots({rec.id: rec.goal}, comp.graph, _memory_snapshots(comp, [wrong]),
                           thresholds={rec.id: rec.thresholds})[rec.id]
    assert not bad.success, bad.reason


# --------------------------------------------------------------------------- manipulation


class Unsupported(Exception):
    """The oracle cannot achieve this goal (shape or geometry)."""


PLACE_PREDICATES = {"on", "in-cell", "around", "at-side", "between", "inside", "in-room"}


class Oracle:
    """Acts in an embedded world to make a ground goal true, one item at a time."""

    def __init__(self, graph, goal: Goal, swap: dict[str, str] | None = None) -> None:
        self.graph = graph
        self.world = EmbeddedWorld(graph, clock=LONG_DAY)
        self.registry = default_registry()
        self.goal = goal
        self.swap = swap or {}  # the wrong plan: move swap[o] wherever o should go
        self.mentioned = {x for a in _atoms(goal) for x in a.args}
        self.moves: list[str] = []  # items moved for positive atoms, in order
        self._neg: list[GAtom] = []  # the negated atoms being made false
        self.moved_away: list[str] = []  # items moved away for negated atoms

    # ----- the world now -------------------------------------------------------------
    def holds(self, a: GAtom) -> bool:
        ctx = Context(graph=self.graph, state=self.world.state, mode=Mode.STRICT)
        return self.registry.evaluate(a.predicate, a.args, ctx)

    def true(self, g: Goal) -> bool:
        return evaluate(g, 0, lambda a, _i: self.holds(a))

    # ----- choosing literals -----------------------------------------------------------
    def literals(self, g: Goal) -> list[tuple[GAtom, bool]]:
        if isinstance(g, GAtom):
            return [(g, True)]
        if isinstance(g, GNot):
            if not isinstance(g.body, GAtom):
                raise Unsupported(f"negation of a {type(g.body).__name__}")
            return [(g.body, False)]
        if isinstance(g, GAnd):
            return [lit for p in g.parts for lit in self.literals(p)]
        if isinstance(g, GOr):
            best: list[tuple[GAtom, bool]] | None = None
            cost = None
            for p in g.parts:
                lits = self.literals(p)
                c = sum(1 for a, pos in lits if self.holds(a) != pos)
                if cost is None or c < cost:
                    best, cost = lits, c
                if c == 0:
                    break
            assert best is not None
            return best
        raise Unsupported(f"a {type(g).__name__} inside a plain goal")

    def achieve(self, g: Goal) -> None:
        for _ in range(1 if self.swap else 3):
            if self.true(g):
                return
            lits = list(dict.fromkeys(self.literals(g)))
            anchors = {x for a, pos in lits if pos for x in a.args[1:]}
            neg = [a for a, pos in lits if not pos]
            self._neg = neg
            # anchors first: moving an anchor later would break what was placed by it
            posi = sorted((a for a, pos in lits if pos),
                          key=lambda a: (a.args[0] not in anchors,))
            for a in neg:
                if self.holds(a):
                    self._try(self.undo, a)
            for a in posi:
                if not self.holds(a):
                    self._try(self.make, a)
        if not self.swap and not self.true(g):
            raise Unsupported("the goal does not hold after the oracle's moves")

    def _try(self, act, a: GAtom) -> None:
        """The wrong plan goes on past what it cannot do (an anchor it moved elsewhere)."""
        try:
            act(a)
        except Unsupported:
            if not self.swap:
                raise

    # ----- actions -------------------------------------------------------------------
    def _ok(self, res, what: str) -> None:
        if not res.ok:
            raise Unsupported(f"{what}: {res.reason}")

    def _open_for(self, ident: str) -> None:
        """Open the container an item or surface is in, if any (refusals ignored)."""
        w = self.world
        sup = ident if self.graph.has(ident) and not _is_object(self.graph, ident) \
            else w.support_of(ident)
        if sup is not None and self.graph.has(sup):
            s = self.graph.surface(sup) if not _is_object(self.graph, sup) else None
            if s is not None and s.container is not None and not w.is_open(sup):
                w.navigate(s.object_id)
                w.open(sup)

    def _take(self, item: str) -> None:
        w = self.world
        self._open_for(item)
        self._ok(w.navigate(item), f"navigate to {item}")
        self._ok(w.pick(item), f"pick {item}")

    def make(self, a: GAtom) -> None:
        p, args = a.predicate, a.args
        w = self.world
        if p == "is-open":
            self._ok(w.navigate(args[0]), f"navigate to {args[0]}")
            self._ok(w.open(args[0]), f"open {args[0]}")
            return
        if p not in PLACE_PREDICATES:
            raise Unsupported(f"no oracle for `{p}`")
        item = self.swap.get(args[0], args[0])
        self.moves.append(args[0])
        self._take(item)
        tries: list[tuple[str, dict]] = []
        if p == "on":
            dest, tries = args[1], [(args[1], {"relation": "on"})]
        elif p == "in-cell":
            dest, tries = args[1], [(args[1], {"relation": "in_cell", "cell": args[2]})]
        elif p == "inside":
            dest, tries = args[1], [(args[1], {"relation": "inside"})]
        elif p == "around":
            dest, tries = args[1], [(args[1], {"relation": "around"})]
        elif p == "between":
            dest = args[1]
            tries = [(args[1], {"relation": "between", "second": args[2]})]
        elif p == "at-side":
            dest = args[1]
            tries = [(args[1], {"relation": "direction", "direction": args[2],
                                "viewer_side": side})
                     for side in ("front", "rear", "left", "right")]
        else:  # in-room: any surface of the room
            dest = None
            surfaces = [s for s in self.graph.surfaces()
                        if s.container is None and self.graph.object(s.object_id).room == args[1]
                        and s.id not in self.mentioned]
            tries = [(s.id, {"relation": "on"}) for s in surfaces]
        if dest is not None:
            self._open_for(dest)
            self._ok(w.navigate(dest), f"navigate to {dest}")
        reasons = []
        for target, kw in tries:
            if dest is None and not w.navigate(target).ok:
                continue
            res = w.place(target, **kw)
            if not res.ok:
                reasons.append(res.reason)
                continue
            if item != args[0] or self.holds(a):
                return
            # placed, but the relation does not hold (a viewer side, say): take it back
            self._ok(w.pick(item), f"pick {item} again")
        raise Unsupported(f"cannot place {item} for {a}: {'; '.join(reasons) or 'no spot'}")

    def undo(self, a: GAtom) -> None:
        """Make a positive fluent atom false: move its item to some other surface."""
        w = self.world
        if a.predicate == "is-open":
            self._ok(w.navigate(a.args[0]), f"navigate to {a.args[0]}")
            self._ok(w.close(a.args[0]), f"close {a.args[0]}")
            return
        if a.predicate not in PLACE_PREDICATES:
            raise Unsupported(f"no oracle for `not {a.predicate}`")
        item = a.args[0]
        if a.args[0] in self.swap:  # the wrong plan leaves it where it is
            return
        self.moved_away.append(item)
        self._take(item)
        here = self.graph.object(item).position
        others = [s for s in self.graph.surfaces() if s.container is None
                  and s.object_id not in self.mentioned
                  and self.graph.object(s.object_id).room is not None]
        mine = [b for b in self._neg if b.args[0] == item] or [a]
        others.sort(key=lambda s: (s.origin[0] - here[0]) ** 2 + (s.origin[1] - here[1]) ** 2)
        for s in others[:20]:
            if not w.navigate(s.id).ok:
                continue
            if w.place(s.id).ok:
                if not any(self.holds(b) for b in mine):
                    return
                self._ok(w.pick(item), f"pick {item} again")
        raise Unsupported(f"no surface to move {item} to for (not {a})")

    def run(self) -> list[Snapshot]:
        g = self.goal
        steps = g.steps if isinstance(g, GThen) else (g,)
        for s in steps:
            if isinstance(s, GTargets | GThen):
                raise Unsupported(f"a {type(s).__name__} step")
            self.achieve(s)
        self._ok(self.world.stop(), "stop")
        return list(self.world.snapshots)


def _atoms(g: Goal) -> Iterator[GAtom]:
    if isinstance(g, GAtom):
        yield g
    elif isinstance(g, GNot):
        yield from _atoms(g.body)
    elif isinstance(g, GAnd | GOr):
        for p in g.parts:
            yield from _atoms(p)
    elif isinstance(g, GThen):
        for s in g.steps:
            yield from _atoms(s)
    elif isinstance(g, GTargets):
        for t in g.targets:
            yield from _atoms(t.goal)


@functools.cache
def _movables(graph) -> tuple[str, ...]:
    from fdc.sim_bridge.scene import Kind

    return tuple(o.id for o in graph.objects(kind=Kind.MOVABLE))


def _is_object(graph, ident: str) -> bool:
    try:
        graph.object(ident)
    except KeyError:
        return False
    return True


def check_manipulation(comp: SceneCompiler, rec: TaskRecord) -> None:
    graph = comp.graph
    oracle = Oracle(graph, rec.goal)
    snaps = oracle.run()
    good = verify_snapshots({rec.id: rec.goal}, graph, snaps,
                            thresholds={rec.id: rec.thresholds})[rec.id]
    assert good.success, good.reason
    # The wrong target: the same plan, but one item moved for a positive atom (or, with
    # none, the first one to be moved away) is replaced by another item.
    # The last item placed (a viewer-relative relation placed early may come true again
    # from where the robot later stands, which is right, not a wrong target).
    mentioned = oracle.mentioned
    key = oracle.moves[-1] if oracle.moves else None
    if key is None:
        key = oracle.moved_away[0]
    last = None
    decoys = [d for d in _movables(graph) if d not in mentioned] + \
        [d for d in _movables(graph) if d in mentioned and d not in oracle.moves and d != key]
    for decoy in decoys[:5]:
        wrong = Oracle(graph, rec.goal, swap={key: decoy})
        try:
            snaps = wrong.run()
        except Unsupported as e:
            last = str(e)
            continue
        bad = verify_snapshots({rec.id: rec.goal}, graph, snaps,
                               thresholds={rec.id: rec.thresholds})[rec.id]
        assert not bad.success, f"moving {decoy} instead of {key}: {bad.reason}"
        return
    raise AssertionError(f"no wrong plan could be run: {last}")


# --------------------------------------------------------------------------- the tests


@pytest.mark.parametrize("name", sorted(BY_NAME))
def test_template_oracle(name: str, compilers: _Compilers) -> None:
    entry = BY_NAME[name]
    tried: list[str] = []
    tags = set(entry.template.tags)
    reasons = []
    for compiled in compile_somewhere(compilers, entry, tried):
        comp = compiled.compiler
        for rec in compiled.records:
            if "memory" in tags:
                if "target-without-valid-frame" in rec.flags:
                    reasons.append(f"{compiled.where}: {rec.goal_pddl[:80]}: "
                                   "target-without-valid-frame")
                    continue
                check_memory(comp, rec)
                return
            try:
                check_manipulation(comp, rec)
                return
            except Unsupported as e:
                reasons.append(f"{compiled.where}: {e}")
    if not reasons:
        pytest.xfail("no task on the apartment nor on generated scenes: " + "; ".join(tried))
    pytest.xfail("no task the oracle can solve: " + " | ".join(reasons))


def test_library_is_complete() -> None:
    assert not _CHECK.errors
    assert len(ENTRIES) == 125
