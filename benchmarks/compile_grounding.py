"""Section `grounding` of benchmarks/compile.py (run it from there): fdc's ground pass
beside BDDL's. `--check`, in compile_check.py, holds the translation to account.

Section `grounding` grounds two quantified goals over synthetic scenes with fdc and with
BDDL (the `bddl` package, 3.6.0, BEHAVIOR's goal language), in one run:

* **forall-exists**: "every apple is on some table",
  `(forall (?a - apple) (exists (?t - table) (on ?a ?t)))`, over a 516-object scene.
* **four-pairs**: four pair quantifiers over a 1,346-object scene, a cycle over four kinds
  of fruit: every apple by its own pear, every pear by its own plum, every plum by its own
  peach, every peach by its own apple (BDDL's `forpairs`, `around` as the relation).

Each tool works from text to its ground form, in a fresh worker process of its own (so
neither inherits the other's heap, nor fdc its own interned atoms from an earlier run):

* BDDL: `Conditions` parses the problem (objects by category, and the goal);
  `get_goal_conditions` builds the goal's expression tree over the object scope
  (`compile_state`, with ground options) and `get_ground_goal_state_options` expands it
  into ground options. The backend is a minimal one of this file: each predicate reads a
  set of true atoms, so no simulator runs. BDDL keeps at most 20 options
  (`GROUND_GOALS_MAX_OPTIONS`) of at most 10 permutations per pair quantifier: its
  ground options are truncated.
* fdc: `check_sources` parses and checks a small domain and the template,
  `TableFacts` holds the scene, and `ground` expands the goal, with its limits raised
  so the ground goal is complete; the result is checked atom by atom against what the
  goal must ground to.

**Equivalence.** fdc's goal for each workload means what BDDL's `evaluate()` decides
(the success check BEHAVIOR runs on a goal). For `forall`/`exists` the forms are the
same. BDDL's `forpairs` is not fdc's: `ForPairs.evaluate` holds when at least
L = min(|A|, |B|) of the A's have some B and at least L of the B's have some A (a
covering, not a matching; `fornpairs N` the same with N), while fdc's `forpairs` needs a
matching (each A its *own* B), which is also what BDDL's ground options enumerate. They
part from L = 3 on: with three apples and three pears, apple 1 by all three pears and
apples 2 and 3 by pear 1 only, BDDL's goal holds and no matching exists. So BDDL's
`forpairs` becomes, in fdc, `(and (at-least L (?a - A) (exists (?b - B) φ))
(at-least L (?b - B) (exists (?a - A) φ)))`, with `forall` for an `at-least` over a
whole category (here: both, the categories being of equal size). `--check` holds both
translations to account on small random goals and states: fdc's ground goal against
BDDL's `evaluate()` (the covering form) and against BDDL's ground options, where those
are complete (`fornpairs L` for `forpairs`, `at-least` for `forn`).

**Sizes.** The category counts put BDDL near the times the issue quotes for this kind
of machine (about 0.9 s and 38 s; here, idle, 0.8 s and 33 s). BDDL's cost is the
number of ground atoms it builds times the size of the scene (for each binding, a
quantifier scans the whole object scope and copies it for each child, and the copies
stay alive), so the counts set the atoms and the rest of the scene is other objects
(`FILLER`). forall-exists: 160 apples x 160 tables (25,600 atoms) and 196 other
objects. four-pairs: four fruit kinds of 250 (4 x 250 x 250 = 250,000 pairs, each an
atom BDDL builds and fdc's goal holds twice) and 346 other objects; BDDL's worker peaks
at about 6.5 GB there.

**Time** is the CPU time of the worker (`time.process_time`), which a busy machine
disturbs less than wall time; both are reported. With `--repeat N` each tool runs N
times, alternating, and its fastest run counts. fdc's worker then grounds the goal once
more, every atom already interned (`again_s` in `--json`): the difference is the making
of the atoms (`fdc.predicates.goal.atom`, a validated pydantic model each), about two
thirds of fdc's time on forall-exists.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import resource
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

from rich.console import Console
from rich.table import Table

#: The issue's target: fdc's grounding at least this many times faster than BDDL's.
TARGET_RATIO = 20.0

# ---------------------------------------------------------------------------- goals
# A goal is a small tree of tuples in BDDL's vocabulary, printed as BDDL text and
# translated to fdc's template language:
#   ("forall" | "exists", (VAR, CATEGORY), BODY)
#   ("forn", N, (VAR, CATEGORY), BODY)
#   ("forpairs", (VAR, CATEGORY), (VAR, CATEGORY), BODY)
#   ("fornpairs", N, (VAR, CATEGORY), (VAR, CATEGORY), BODY)
#   ("and" | "or", PART...), ("not", BODY), ("imply", CONDITION, CONSEQUENCE)
#   (PREDICATE, ARG...)  -- an atom; arguments are variables

Expr = tuple[Any, ...]
QUANTIFIERS = {"forall", "exists", "forn", "forpairs", "fornpairs"}
JUNCTIONS = {"and", "or", "not", "imply"}

#: fdc's predicates the goals use, with their parameter types (their checkers' own).
PREDICATES = {"on": ("movable", "surface"), "around": ("movable", "movable")}
UNARY_PREDICATES = {"holding": ("movable",)}


def to_bddl(e: Expr) -> str:
    head = e[0]
    if head in ("forall", "exists"):
        (v, c), body = e[1], e[2]
        return f"({head} ({v} - {c}) {to_bddl(body)})"
    if head == "forn":
        n, (v, c), body = e[1], e[2], e[3]
        return f"(forn ({n}) ({v} - {c}) {to_bddl(body)})"
    if head in ("forpairs", "fornpairs"):
        n = f"({e[1]}) " if head == "fornpairs" else ""
        (v1, c1), (v2, c2), body = e[-3], e[-2], e[-1]
        return f"({head} {n}({v1} - {c1}) ({v2} - {c2}) {to_bddl(body)})"
    if head in JUNCTIONS:
        return "(" + " ".join([head, *(to_bddl(p) for p in e[1:])]) + ")"
    return "(" + " ".join(e) + ")"


def to_fdc(e: Expr, counts: dict[str, int], meaning: str = "evaluate") -> str:
    """The fdc formula that means what BDDL makes of `e`.

    `meaning="evaluate"`: what BDDL's `evaluate()` decides (the module doc); `"options"`:
    what BDDL's ground options say, untruncated: a matching of L = min(|A|, |B|) pairs
    for `forpairs`, of N for `fornpairs`, and at least N bodies for `forn`.
    """
    head = e[0]

    def sub(x: Expr) -> str:
        return to_fdc(x, counts, meaning)

    def at_least(n: int, v: str, c: str, body: str) -> str:
        if n == counts[c]:  # every one of them: `forall` says it plainly
            return f"(forall ({v} - {c}) {body})"
        return f"(at-least {n} ({v} - {c}) {body})"

    if head in ("forall", "exists"):
        (v, c), body = e[1], e[2]
        return f"({head} ({v} - {c}) {sub(body)})"
    if head == "forn":
        n, (v, c), body = e[1], e[2], e[3]
        word = "exactly" if meaning == "evaluate" else "at-least"
        return f"({word} {n} ({v} - {c}) {sub(body)})"
    if head in ("forpairs", "fornpairs"):
        (v1, c1), (v2, c2), body = e[-3], e[-2], e[-1]
        n = min(counts[c1], counts[c2]) if head == "forpairs" else int(e[1])
        if meaning == "options":
            return f"(fornpairs {n} ({v1} - {c1}) ({v2} - {c2}) {sub(body)})"
        firsts = at_least(n, v1, c1, f"(exists ({v2} - {c2}) {sub(body)})")
        seconds = at_least(n, v2, c2, f"(exists ({v1} - {c1}) {sub(body)})")
        return f"(and {firsts} {seconds})"
    if head in JUNCTIONS:
        return "(" + " ".join([head, *(sub(p) for p in e[1:])]) + ")"
    return "(" + " ".join(e) + ")"


@dataclass(frozen=True)
class Scene:
    """Objects by category (each category's parent type in fdc's bench domain)."""

    counts: dict[str, int]
    parents: dict[str, str]

    @property
    def size(self) -> int:
        return sum(self.counts.values())

    def objects(self) -> Iterator[tuple[str, str]]:
        for c, n in self.counts.items():
            for i in range(1, n + 1):
                yield f"{c}_{i}", c


def bddl_problem(scene: Scene, conjuncts: Sequence[Expr]) -> str:
    objects = " ".join(
        " ".join(f"{c}_{i}" for i in range(1, n + 1)) + f" - {c}"
        for c, n in scene.counts.items()
        if n
    )
    goal = " ".join(to_bddl(c) for c in conjuncts)
    return (
        f"(define (problem bench) (:domain omnigibson) (:objects {objects}) (:init) "
        f"(:goal (and {goal})))"
    )


def fdc_domain(scene: Scene) -> str:
    by_parent: dict[str, list[str]] = {}
    for c, p in scene.parents.items():
        by_parent.setdefault(p, []).append(c)
    types = " ".join(" ".join(cs) + f" - {p}" for p, cs in by_parent.items())
    preds = " ".join(
        f"({name} " + " ".join(f"?x{i} - {t}" for i, t in enumerate(ts)) + ")"
        for name, ts in {**PREDICATES, **UNARY_PREDICATES}.items()
    )
    return (
        "(define (domain bddl-bench) (:requirements :typing)\n"
        f"  (:types movable surface - object {types})\n"
        f"  (:predicates {preds}))\n"
    )


def fdc_template(name: str, goal: str) -> str:
    return (
        f"(define (template {name}) (:domain bddl-bench) (:parameters)\n"
        f'  (:goal {goal})\n  (:instruction "Ground this goal."))\n'
    )


def fdc_goal(conjuncts: Sequence[Expr], counts: dict[str, int], meaning: str = "evaluate") -> str:
    parts = [to_fdc(c, counts, meaning) for c in conjuncts]
    return parts[0] if len(parts) == 1 else "(and " + " ".join(parts) + ")"


# ---------------------------------------------------------------------------- workloads


@dataclass(frozen=True)
class Workload:
    key: str
    title: str
    scene: Scene
    conjuncts: tuple[Expr, ...]
    #: every atom the complete ground goal holds, with how often it occurs
    expected: Callable[[Scene], Counter[tuple[str, ...]]]
    #: the number of (AND-of-OR) disjunctions of the complete ground goal
    disjunctions: int


FILLER = {"chair": "object", "shelf": "object", "book": "movable", "bowl": "movable"}


def _with_filler(counts: dict[str, int], parents: dict[str, str], total: int) -> Scene:
    left = total - sum(counts.values())
    assert left >= 0, (counts, total)
    share, extra = divmod(left, len(FILLER))
    filled = dict(counts)
    for i, c in enumerate(FILLER):
        filled[c] = share + (1 if i < extra else 0)
    return Scene(filled, {**parents, **FILLER})


def forall_exists(apples: int, tables: int, total: int) -> Workload:
    scene = _with_filler(
        {"apple": apples, "table": tables}, {"apple": "movable", "table": "surface"}, total
    )
    goal = ("forall", ("?a", "apple"), ("exists", ("?t", "table"), ("on", "?a", "?t")))

    def expected(s: Scene) -> Counter[tuple[str, ...]]:
        return Counter(
            ("on", f"apple_{i}", f"table_{j}")
            for i in range(1, s.counts["apple"] + 1)
            for j in range(1, s.counts["table"] + 1)
        )

    return Workload(
        "forall-exists",
        "every apple on some table",
        scene,
        (goal,),
        expected,
        disjunctions=apples,
    )


PAIR_CYCLE = ("apple", "pear", "plum", "peach")


def four_pairs(k: int, total: int) -> Workload:
    scene = _with_filler(dict.fromkeys(PAIR_CYCLE, k), dict.fromkeys(PAIR_CYCLE, "movable"), total)
    pairs = list(zip(PAIR_CYCLE, PAIR_CYCLE[1:] + PAIR_CYCLE[:1], strict=True))
    conjuncts = tuple(("forpairs", ("?x", a), ("?y", b), ("around", "?x", "?y")) for a, b in pairs)

    def expected(s: Scene) -> Counter[tuple[str, ...]]:
        found: Counter[tuple[str, ...]] = Counter()
        for a, b in pairs:
            for i in range(1, s.counts[a] + 1):
                for j in range(1, s.counts[b] + 1):
                    found["around", f"{a}_{i}", f"{b}_{j}"] += 2  # once from each side
        return found

    return Workload(
        "four-pairs",
        "four forpairs in a cycle of fruit",
        scene,
        conjuncts,
        expected,
        disjunctions=8 * k,
    )


def workloads(quick: bool) -> dict[str, Workload]:
    if quick:  # a smoke run: the same shapes and scene sizes, fewer atoms
        ws = [forall_exists(60, 60, 516), four_pairs(60, 1346)]
    else:
        ws = [forall_exists(160, 160, 516), four_pairs(250, 1346)]
    return {w.key: w for w in ws}


#: Each worker grounds this once before it is timed, so one-time costs (imports, the
#: parser's tables, the predicate registry) stay out of the figures. Its objects are
#: not the workloads', so no ground atom of theirs exists before the timing starts.
WARM_UP_SCENE = Scene({"cup": 2, "dish": 2}, {"cup": "movable", "dish": "surface"})
WARM_UP_GOAL: Expr = ("forall", ("?c", "cup"), ("exists", ("?d", "dish"), ("on", "?c", "?d")))

# ---------------------------------------------------------------------------- BDDL side


def bddl_backend(true_atoms: set[tuple[str, ...]]) -> Any:
    """A BDDL backend whose predicates read `true_atoms` (names), for any predicate."""
    from bddl.backend_abc import BDDLBackend
    from bddl.logic_base import BinaryAtomicFormula, UnaryAtomicFormula

    classes: dict[str, type] = {}

    def predicate_class(name: str) -> type:
        if name not in classes:
            binary = name in PREDICATES

            def evaluate(self: Any, *objs: Any) -> bool:
                return (name, *(o.name for o in objs)) in true_atoms

            def sample(self: Any, *args: Any) -> None:
                return None

            base = BinaryAtomicFormula if binary else UnaryAtomicFormula
            attrs = {"STATE_NAME": name, "_evaluate": evaluate, "_sample": sample}
            classes[name] = type(f"Bench_{name}", (base,), attrs)
        return classes[name]

    class Backend(BDDLBackend):  # type: ignore[misc]
        def get_predicate_class(self, predicate_name: str) -> type:
            return predicate_class(predicate_name)

    return Backend()


class SimObject:
    """What BDDL's scope maps an object's name to: here, only the name."""

    def __init__(self, name: str) -> None:
        self.name = name


def bddl_compile(problem: str, backend: Any, options: bool) -> tuple[Any, Any, Any]:
    """BDDL's own API: the conditions, the populated scope and the compiled goal."""
    from bddl.activity import Conditions, get_goal_conditions, get_object_scope

    conds = Conditions("bench", 0, "omnigibson", predefined_problem=problem)
    scope = get_object_scope(conds)
    for name in scope:
        scope[name] = SimObject(name)
    goal = get_goal_conditions(conds, backend, scope, generate_ground_options=options)
    return conds, scope, goal


def run_bddl(w: Workload) -> dict[str, Any]:
    from bddl.activity import get_ground_goal_state_options

    problem = bddl_problem(w.scene, w.conjuncts)
    backend = bddl_backend(set())
    warm_up = bddl_problem(WARM_UP_SCENE, [WARM_UP_GOAL])
    conds, scope, goal = bddl_compile(warm_up, backend, options=True)
    get_ground_goal_state_options(conds, backend, scope, goal)
    start, cpu = time.perf_counter(), time.process_time()
    conds, scope, goal = bddl_compile(problem, backend, options=True)
    compiled = time.process_time()
    options = get_ground_goal_state_options(conds, backend, scope, goal)
    seconds, wall = time.process_time() - cpu, time.perf_counter() - start
    sizes = sorted({len(o) for o in options})
    return {
        "seconds": seconds,
        "wall_s": wall,
        "compile_s": compiled - cpu,
        "options_s": seconds - (compiled - cpu),
        "options": len(options),
        "option_atoms": sizes,
        "peak_mb": _peak_mb(),
    }


# ---------------------------------------------------------------------------- fdc side


def fdc_sources(w: Workload, meaning: str = "evaluate") -> tuple[str, str]:
    goal = fdc_goal(w.conjuncts, w.scene.counts, meaning)
    return fdc_domain(w.scene), fdc_template(w.key, goal)


def fdc_ground(domain: str, template: str, scene: Scene, max_atoms: int) -> Any:
    """fdc from text to ground goal: check both sources, build the facts, ground."""
    from fdc.compiler.check import check_sources
    from fdc.compiler.facts import TableFacts
    from fdc.compiler.ground import ground
    from fdc.core.problems import SourceFile

    result = check_sources([SourceFile("bench.pddl", domain), SourceFile("goal.pddl", template)])
    if result.errors:
        d = result.errors[0]
        raise RuntimeError(f"fdc rejects the benchmark's sources: {d.code} {d.message}")
    [(_, t)] = result.templates.values()
    parents = result.domains["bddl-bench"].parents
    facts = TableFacts(types={o: (c,) for o, c in scene.objects()}, parents=parents)
    assert t.goal is not None
    return ground(t.goal, {}, facts, max_atoms=max_atoms, max_instances=10**9, template=t.name)


def run_fdc(w: Workload) -> dict[str, Any]:
    from fdc.predicates.goal import GAnd, atoms

    domain, template = fdc_sources(w)
    want = w.expected(w.scene)
    # the parser's tables and the predicate registry are built once per process
    fdc_ground(
        fdc_domain(WARM_UP_SCENE),
        fdc_template("warm-up", to_bddl(WARM_UP_GOAL)),
        WARM_UP_SCENE,
        max_atoms=10,
    )
    start, cpu = time.perf_counter(), time.process_time()
    result = fdc_ground(domain, template, w.scene, max_atoms=sum(want.values()))
    seconds, wall = time.process_time() - cpu, time.perf_counter() - start
    goal = result.goal
    # complete: an AND of the expected ORs, holding every expected atom as often as due
    match goal:
        case GAnd(parts=parts):
            assert len(parts) == w.disjunctions, len(parts)
            assert all(_or_of_atoms(p) for p in parts)
        case _:
            raise AssertionError(result.reason)
    found = Counter((a.predicate, *a.args) for a in atoms(goal))
    assert found == want, "the ground goal is not the complete one"
    # once more, every atom already interned: how much of the time went to making atoms
    cpu = time.process_time()
    fdc_ground(domain, template, w.scene, max_atoms=sum(want.values()))
    return {
        "seconds": seconds,
        "again_s": time.process_time() - cpu,
        "wall_s": wall,
        "atoms": sum(found.values()),
        "distinct_atoms": len(found),
        "disjunctions": len(parts),
        "peak_mb": _peak_mb(),
    }


def _or_of_atoms(g: Any) -> bool:
    """`g` is an `or` of atoms."""
    from fdc.predicates.algebra import is_atom
    from fdc.predicates.goal import GOr

    match g:
        case GOr(parts=parts):
            return all(is_atom(a) for a in parts)
        case _:
            return False


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


# ---------------------------------------------------------------------------- running

TOOLS: dict[str, Callable[[Workload], dict[str, Any]]] = {"bddl": run_bddl, "fdc": run_fdc}


def worker(tool: str, key: str, quick: bool, conn: Connection) -> None:
    """Run one tool on one workload (rebuilt here: workloads hold closures) and answer."""
    try:
        conn.send(TOOLS[tool](workloads(quick)[key]))
    except Exception as e:  # any failure of the tool counts against it
        conn.send(f"{type(e).__name__}: {' '.join(str(e).split())[:300]}")
    conn.close()


def in_worker(tool: str, key: str, quick: bool, timeout: float) -> dict[str, Any] | str:
    """`tool` on workload `key` in a fresh process of its own; its figures, or why not."""
    ctx = mp.get_context("spawn")
    here, there = ctx.Pipe(duplex=False)
    process = ctx.Process(target=worker, args=(tool, key, quick, there), daemon=True)
    process.start()
    there.close()
    try:
        if here.poll(timeout):
            answer: dict[str, Any] | str = here.recv()
        else:
            process.kill()  # this run's own worker, by its handle
            answer = f"timeout after {timeout:g} s"
    except EOFError:  # the worker died (out of memory, say): a failure, not a result
        process.kill()
        answer = "the worker died"
    process.join()
    here.close()
    if isinstance(answer, str) and process.exitcode not in (0, None):
        answer += f" (exit code {process.exitcode})"
    return answer


@dataclass
class Measured:
    workload: Workload
    runs: dict[str, list[dict[str, Any]]] = field(default_factory=lambda: {t: [] for t in TOOLS})
    errors: list[str] = field(default_factory=list)

    def best(self, tool: str) -> dict[str, Any] | None:
        runs = self.runs[tool]
        return min(runs, key=lambda r: float(r["seconds"])) if runs else None

    @property
    def ratio(self) -> float | None:
        b, f = self.best("bddl"), self.best("fdc")
        if b is None or f is None or f["seconds"] <= 0:
            return None
        return float(b["seconds"]) / float(f["seconds"])


def measure(
    ws: Sequence[Workload], quick: bool, repeat: int, timeout: float, console: Console
) -> list[Measured]:
    """Each tool on each workload, `repeat` times, alternating tools; the best run counts."""
    out = []
    for w in ws:
        m = Measured(w)
        for i in range(repeat):
            for tool in TOOLS:
                console.log(f"{w.key}: {tool}, run {i + 1} of {repeat}")
                r = in_worker(tool, w.key, quick, timeout)
                if isinstance(r, str):
                    m.errors.append(f"{tool}: {r}")
                    console.log(f"[red]{w.key}: {tool} failed:[/] {r}")
                else:
                    m.runs[tool].append(r)
                    console.log(f"{w.key}: {tool} {r['seconds']:.4f} s")
        out.append(m)
    return out


def grounding_table(results: Sequence[Measured]) -> tuple[Table, bool]:
    table = Table(
        title="Grounding (best run): BDDL parses, compiles and expands ground options; "
        "fdc parses, checks and grounds"
    )
    headers = (
        "workload",
        "objects",
        "bddl CPU s",
        "fdc CPU s",
        "bddl / fdc",
        f">= {TARGET_RATIO:g}x",
        "wall s bddl / fdc",
        "bddl ground options",
        "fdc ground goal",
        "peak MB bddl / fdc",
    )
    for header in headers:
        table.add_column(header, justify="left" if header == "workload" else "right")
    all_met = True
    for m in results:
        b, f, ratio = m.best("bddl"), m.best("fdc"), m.ratio
        met = ratio is not None and ratio >= TARGET_RATIO
        all_met &= met
        options = goal = "-"
        if b is not None:
            atoms = "/".join(map(str, b["option_atoms"]))
            options = f"{b['options']} x {atoms} atoms, truncated"
        if f is not None:
            goal = f"{f['atoms']:,} atoms, complete"
        both = b is not None and f is not None
        table.add_row(
            m.workload.key,
            f"{m.workload.scene.size:,}",
            f"{b['seconds']:.3f}" if b else "-",
            f"{f['seconds']:.4f}" if f else "-",
            f"{ratio:.1f}x" if ratio else "-",
            "[green]met" if met else "[red]missed",
            f"{b['wall_s']:.2f} / {f['wall_s']:.3f}" if both else "-",
            options,
            goal,
            f"{b['peak_mb']:.0f} / {f['peak_mb']:.0f}" if both else "-",
        )
    return table, all_met


def section_grounding(args: argparse.Namespace, console: Console) -> tuple[bool, dict[str, Any]]:
    """fdc's ground pass beside BDDL's on the two workloads; whether the target is met."""
    ws = list(workloads(args.quick).values())
    for w in ws:
        counts = ", ".join(f"{c} {n}" for c, n in w.scene.counts.items())
        console.print(f"{w.key} ({w.title}): {w.scene.size} objects: {counts}")
        console.print(f"  BDDL: {' '.join(to_bddl(c) for c in w.conjuncts)}", markup=False)
        console.print(f"  fdc:  {fdc_goal(w.conjuncts, w.scene.counts)}", markup=False)
    results = measure(ws, args.quick, args.repeat, args.timeout, console)
    table, met = grounding_table(results)
    console.print(table)
    for m in results:
        for e in m.errors:
            console.print(f"  {m.workload.key}: {e}", markup=False)
    record = {
        m.workload.key: {
            "objects": m.workload.scene.size,
            "counts": m.workload.scene.counts,
            "bddl": m.runs["bddl"],
            "fdc": m.runs["fdc"],
            "ratio": m.ratio,
            "errors": m.errors,
        }
        for m in results
    }
    return met and not any(m.errors for m in results), record
