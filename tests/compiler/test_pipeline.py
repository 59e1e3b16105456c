"""The compile pipeline: its passes run in order and are timed; drops are typed data, and
the manifest counts them under the same keys as ever; `fdc compile --timings`."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fdc.cli import app
from fdc.compiler.drops import Drop, DropCode
from fdc.compiler.pipeline import compile_template, compile_templates
from fdc.compiler.prepare import SceneJob
from fdc.compiler.timings import Pass, Timings
from tests.compiler.kitchen import compiler, entries, experience, template

REPO = Path(__file__).resolve().parents[2]
KITCHEN = str(REPO / "tests" / "golden" / "scenes" / "kitchen.json")
GEN_A = str(REPO / "tests" / "golden" / "scenes" / "gen-a.json")
TEMPLATES = str(REPO / "tests" / "golden" / "templates")


class Trace(Timings):
    """Timings that also record the order passes ran in."""

    def __init__(self) -> None:
        super().__init__()
        self.order: list[Pass] = []

    def run(self, name: Pass, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        self.order.append(name)
        return super().run(name, fn, *args, **kwargs)


# ----------------------------------------------------------------------------- order


def test_a_binding_runs_the_passes_in_order(tmp_path: Path) -> None:
    src = template("move-mug", "(:goal (on ?o ?s))", "?o - mug ?s - surface",
                   "Put {{ o | ref }} on {{ s | ref }}.")
    trace = Trace()
    rep = compile_template(compiler(max_per_template=1), entries(tmp_path, src)[0],
                           timings=trace)
    assert rep.tasks == 1
    # bind, then (a binding that drops first) and the one that makes the task
    assert trace.order[0] is Pass.BIND
    made = [Pass.DESCRIBE, Pass.GROUND, Pass.START_CHECKS, Pass.DESCRIBE, Pass.RENDER,
            Pass.RECORD]
    assert trace.order[-len(made):] == made


def test_widening_grounds_again_after_the_start_checks(tmp_path: Path) -> None:
    src = template("plate-widen", "(:goal (holding ?p))", "?p - plate ?s - surface",
                   "Pick up {{ p | ref }}.", "(:constraints (on ?p ?s)) (:ambiguity widen)")
    trace = Trace()
    rep = compile_template(compiler(), entries(tmp_path, src)[0], timings=trace)
    assert rep.tasks == 1  # the other binding widens to the same task
    assert trace.order[1:8] == [Pass.DESCRIBE, Pass.GROUND, Pass.START_CHECKS, Pass.GROUND,
                                Pass.DESCRIBE, Pass.RENDER, Pass.RECORD]


def test_a_memory_binding_gets_its_frames_before_its_record(tmp_path: Path) -> None:
    src = template("first-object", "(:goal (robot-at-object ?o))", "?o - movable",
                   extra="(:constraints (= (interaction-order ?o) 1)) (:tags memory)")
    trace = Trace()
    rep = compile_template(compiler(experience()), entries(tmp_path, src)[0], timings=trace)
    assert rep.tasks == 1 and rep.records[0].valid_frames
    assert rep.records[0].optimal_path_m is not None and rep.records[0].flags == []
    assert trace.order[-2:] == [Pass.FRAMES, Pass.RECORD]


def test_a_memory_binding_whose_target_no_frame_shows_drops_and_another_is_drawn(
        tmp_path: Path) -> None:
    # The robot never went into the living room: no frame has it at the book there.
    src = template("go-to", "(:goal (robot-at-object ?o))", "?o - movable",
                   extra="(:tags memory)")
    every = compile_template(compiler(experience()), entries(tmp_path, src)[0], explain=True)
    assert every.drops["the goal holds at no frame of the experience"] == 1
    dropped = {o.binding["?o"]: o.reason for o in every.outcomes}["book_0"]
    assert dropped == Drop(DropCode.NO_VALID_FRAME, "the goal", ("book_0",))
    assert dropped.message == "the goal holds at no frame of the experience (`book_0`)"
    assert all(r.valid_frames and all(r.valid_frames) and r.optimal_path_m is not None
               for r in every.records)
    redrawn = 0
    for seed in range(12):  # `--max-per-template 1`: a frameless binding is replaced
        one = compile_template(compiler(experience(), max_per_template=1, seed=seed),
                               entries(tmp_path, src)[0])
        assert one.tasks == 1 and one.records[0].valid_frames
        assert one.records[0].valid_frames[0]
        redrawn += one.drops["the goal holds at no frame of the experience"]
    assert redrawn  # some seed drew the book first, and drew again


def test_a_multi_goal_binding_drops_on_its_frameless_target(tmp_path: Path) -> None:
    src = template("revisit-untouched", "(:goal (targets (?o - movable) (not (interacted ?o))"
                   " (robot-at-object ?o)))", extra="(:tags memory)")
    rep = compile_template(compiler(experience()), entries(tmp_path, src)[0], explain=True)
    assert rep.tasks == 0
    assert [o.reason for o in rep.outcomes] == [
        Drop(DropCode.NO_VALID_FRAME, "a target", ("book_0",))]
    assert rep.drops == {"a target holds at no frame of the experience": 1}


def test_each_template_is_handed_where_its_tasks_start(tmp_path: Path) -> None:
    """The passes read the scene through a frozen `TemplateStart`, not the compiler: a
    process template's tasks start in the initial state and name no experience; a
    memory template's start after the experience, with its sha256 and goal frames."""
    import dataclasses

    comp = compiler(experience())
    process = entries(tmp_path, template("move-mug", "(:goal (on ?o ?s))",
                                         "?o - mug ?s - surface"), "p.pddl")[0]
    memory = entries(tmp_path, template("revisit", "(:goal (robot-at-object ?o))",
                                        "?o - movable", extra="(:tags memory)"), "m.pddl")[0]
    a, b = comp.start(process), comp.start(memory)
    assert (a.state, a.memory, a.manipulation) == ("initial", False, False)
    assert (a.experience_sha256, a.frames, a.after) == (None, None, None)
    assert (b.state, b.memory, b.manipulation) == ("after", True, False)
    assert b.experience_sha256 == comp.experience_sha256 is not None
    assert b.frames is not None and b.frames() == comp.goal_frames()
    assert b.after is comp.states["after"].snapshot
    assert a.judge is comp.judge(process.domain, "initial")  # the scene's caches, shared
    assert a.describer is comp.describer(process.domain, "initial")
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.state = "after"  # type: ignore[misc]


def test_every_pass_of_a_scene_is_timed() -> None:
    from fdc.compiler.options import CompileOptions
    from fdc.compiler.shards import compile_sharded
    from fdc.compiler.templates import load_entries

    found, _ = load_entries([TEMPLATES])
    run = compile_sharded([SceneJob(KITCHEN, interactions=3)], found,
                          CompileOptions(seed=7, max_per_template=3))
    timed = [p for p, _ in run.timings.rows()]
    # emit is the writer's; the witness runs only when the command hands one down
    assert timed == [p for p in Pass if p not in (Pass.EMIT, Pass.WITNESS)]
    assert all(t.seconds >= 0 for _, t in run.timings.rows())
    assert run.timings.passes[Pass.SCENE].calls == 1
    assert run.timings.passes[Pass.RECORD].calls == run.compiled_tasks > 0


def test_timings_add_up_over_scenes() -> None:
    a, b = Timings(), Timings()
    a.add(Pass.GROUND, 1.0)
    b.add(Pass.GROUND, 0.5, calls=2)
    b.add(Pass.BIND, 2.0)
    a.merge(b)
    assert [(p, t.seconds, t.calls) for p, t in a.rows()] == [
        (Pass.BIND, 2.0, 1), (Pass.GROUND, 1.5, 3)]


# ----------------------------------------------------------------------------- drops


def test_drops_carry_their_code_and_entities(tmp_path: Path) -> None:
    tie = template("longest", "(:goal (robot-at-object ?o))", "?o - movable",
                   extra="(:constraints (argmax ?o (?x - movable) (interaction-duration ?x)"
                         " (interacted ?x)))")
    rep = compile_template(compiler(experience()), entries(tmp_path, tie, "a.pddl")[0])
    assert rep.drops == {"tie for argmax of (interaction-duration ?x)": 8}
    reject = template("plate-reject", "(:goal (holding ?p))", "?p - plate ?s - surface",
                      "Pick up {{ p | ref }}.", "(:constraints (on ?p ?s)) (:ambiguity reject)")
    rep = compile_template(compiler(), entries(tmp_path, reject, "b.pddl")[0], explain=True)
    drops = {o.binding["?p"]: o.reason for o in rep.outcomes}
    assert drops == {p: Drop(DropCode.AMBIGUOUS, "?p", (p,), description="the plate",
                             rivals=(q,))
                     for p, q in (("plate_0", "plate_1"), ("plate_1", "plate_0"))}
    keep = template("keep", "(:goal (on ?o ?s))", "?o - mug ?s - surface",
                    extra="(:constraints (on ?o ?s))")
    rep = compile_template(compiler(), entries(tmp_path, keep, "c.pddl")[0], explain=True)
    assert {o.reason for o in rep.outcomes} == {Drop(DropCode.ALREADY_TRUE)}


def test_a_false_constraint_is_no_counted_drop() -> None:
    assert not Drop(DropCode.CONSTRAINT_FALSE, "(is-red ?o)").counted
    assert all(Drop(code).counted for code in DropCode if code is not DropCode.CONSTRAINT_FALSE)


@pytest.mark.parametrize(("drop", "message", "key"), [
    (Drop(DropCode.GOAL_FALSE), "goal folds to false", "goal folds to false"),
    (Drop(DropCode.STEP_FALSE, "2"), "step 2 of `then` folds to false",
     "step 2 of `then` folds to false"),
    (Drop(DropCode.TIE, "argmax of (f ?x)", ("a", "b", "c"), "3"),
     "tie between `a`, `b` and `c` for argmax of (f ?x) (all 3)", "tie for argmax of (f ?x)"),
    (Drop(DropCode.ORDER_TIE, "(f ?x) of `ordered-targets`", ("a", "b"), "1"),
     "tie between `a` and `b` in the order (f ?x) of `ordered-targets` (both 1)",
     "tie in the order (f ?x) of `ordered-targets`"),
    (Drop(DropCode.ORDER_UNDEFINED, "(f ?x)", ("m3",)),
     "the order (f ?x) of target `m3` is undefined", "the order (f ?x) of target … is undefined"),
    (Drop(DropCode.TARGET_FALSE, entities=("m2",)), "the goal of target `m2` folds to false",
     "the goal of target … folds to false"),
    (Drop(DropCode.NO_TARGETS, "targets"),
     "no target: no entity satisfies the condition of `targets`",
     "no target: no entity satisfies the condition of `targets`"),
    (Drop(DropCode.AMBIGUOUS, "?p", ("plate_0",), description="the plate",
          rivals=("plate_1",)),
     "ambiguous description of ?p = `plate_0`: “the plate” also fits `plate_1`",
     "ambiguous description of ?p"),
    (Drop(DropCode.DUPLICATE, "pick-0d00dd185bb3"),
     "the same goal and instructions as task `pick-0d00dd185bb3`",
     "the same goal and instructions as another task"),
    (Drop(DropCode.NO_TARGET), "no target entity", "no target entity"),
    (Drop(DropCode.ALREADY_TRUE), "goal already true at the start",
     "goal already true at the start"),
    (Drop(DropCode.STEP_TRUE, "1"), "step 1 of `then` already true at the start",
     "step 1 of `then` already true at the start"),
    (Drop(DropCode.INFEASIBLE, "an item larger than its surface"),
     "goal cannot be achieved: an item larger than its surface",
     "goal cannot be achieved: an item larger than its surface"),
    (Drop(DropCode.UNRENDERABLE, "'x' is undefined"),
     "instruction cannot be rendered: 'x' is undefined",
     "instruction cannot be rendered: 'x' is undefined"),
    (Drop(DropCode.NO_VALID_FRAME, "a target", ("bed|top", "sofa|top")),
     "a target holds at no frame of the experience (`bed|top` and `sofa|top`)",
     "a target holds at no frame of the experience"),
    (Drop(DropCode.NO_FRAME_WALK), "no walk from the start through the valid frames",
     "no walk from the start through the valid frames"),
])
def test_the_manifest_keys_of_drops_are_unchanged(drop: Drop, message: str, key: str) -> None:
    # the keys of docs/formats/manifest.md, as manifests have always counted drops
    assert (drop.message, drop.key) == (message, key)


def test_the_manifest_counts_drops_by_key(tmp_path: Path) -> None:
    src = template("longest", "(:goal (robot-at-object ?o))", "?o - movable",
                   extra="(:constraints (argmax ?o (?x - movable) (interaction-duration ?x)"
                         " (interacted ?x)))")
    scene = compile_templates(compiler(experience()), entries(tmp_path, src))
    assert scene.reports[0].drops == {"tie for argmax of (interaction-duration ?x)": 8}


# ----------------------------------------------------------------------------- CLI


def _compile(out: Path, *extra: str) -> tuple[bytes, bytes, str]:
    args = ["compile", KITCHEN, GEN_A, "-T", TEMPLATES, "--seed", "7", "--max-per-template",
            "3", "--interactions", "3", "-o", str(out / "suite.jsonl"), *extra]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    return (out / "suite.jsonl").read_bytes(), (out / "manifest.json").read_bytes(), \
        result.output


def test_timings_print_a_table_and_change_no_file(tmp_path: Path) -> None:
    plain = _compile(tmp_path / "plain")
    timed = _compile(tmp_path / "timed", "--timings", "--jobs", "2")
    assert timed[:2] == plain[:2]
    assert "time per pass" not in plain[2]
    table = timed[2][timed[2].index("time per pass"):].split("\n\n")[0]  # plain: piped
    rows = [re.split(r"\s{2,}", line.strip()) + [""] * 3
            for line in table.splitlines()[3:] if set(line) - {"-", " "}]
    names = [r[0].strip() for r in rows]
    # the witness's row where some goal needed one
    assert [n for n in names if n != Pass.WITNESS.value] == \
        [p.value for p in Pass if p is not Pass.WITNESS] + ["all"]
    calls = {r[0].strip(): r[3].strip() for r in rows}
    assert calls["scene"] == "2"  # one per scene, each compiled in a worker process
    manifest = json.loads(timed[1])
    assert int(calls["record"]) == manifest["tasks"]


def test_twin_scenes_get_distinct_ids_and_the_suite_validates(tmp_path: Path) -> None:
    """Two scene files of equal content: the second's ids carry its scope, the first's
    are those of a compile of it alone, and validate accepts compile's own output."""
    kitchen = Path(KITCHEN)
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_bytes(kitchen.read_bytes())
    b.write_bytes(kitchen.read_bytes())
    runner = CliRunner()

    def ids(*scenes: Path, out: str) -> list[str]:
        args = ["compile", *map(str, scenes), "--templates", TEMPLATES, "--seed", "7",
                "--max-per-template", "2", "--no-history", "-o",
                str(tmp_path / out / "suite.jsonl")]
        result = runner.invoke(app, args)
        assert result.exit_code == 0, result.output
        lines = (tmp_path / out / "suite.jsonl").read_text().splitlines()
        return [json.loads(line)["id"] for line in lines]

    alone = ids(a, out="alone")
    both = ids(a, b, out="both")
    assert alone and len(both) == 2 * len(alone) == len(set(both))
    assert both[:len(alone)] == alone
    check = runner.invoke(app, ["validate", str(tmp_path / "both" / "suite.jsonl")])
    assert check.exit_code == 0, check.output


def test_twin_scopes_name_the_later_files_of_one_content() -> None:
    from fdc.compiler.shards import twin_scopes

    jobs = [SceneJob(p) for p in ("a.json", "b.json", "a.json", "c.json")]
    assert twin_scopes(jobs, ["x", "y", "x", "x"]) == {2: "a.json#2", 3: "c.json#3"}


def test_a_memory_binding_whose_frames_no_walk_reaches_drops() -> None:
    from fdc.compiler.frames import goal_frames
    from fdc.compiler.start import start_pose
    from fdc.predicates.goal import atom

    comp = compiler(experience())
    frames, walker = comp.goal_frames()
    goal = atom("robot-at-object", "mug_red")
    start = start_pose(comp.states["after"])
    found = goal_frames(goal, ["mug_red"], start, frames, walker)
    assert not isinstance(found, Drop) and found.valid_frames == [[5, 6, 7]]

    class Stranded:  # the start cut off from every frame
        def walk(self, *_args: object) -> tuple[None, bool]:
            return None, True

    stranded: Any = Stranded()
    assert goal_frames(goal, ["mug_red"], start, frames, stranded) == \
        Drop(DropCode.NO_FRAME_WALK)
