"""Fuzzers for the CLI's readers: valid documents (a scene, a trajectory, task records,
predictions) mutated in place (a value of the wrong type, a field removed or added,
huge, negative or non-finite numbers, unicode, a little deep nesting, ids nothing has)
and read by `fdc scene inspect`, `fdc verify`, `fdc validate` and `fdc evaluate`: each
answers with exit 0, 1 or 2, never a traceback.

The documents start valid (each test checks its base document is accepted), so every
example is one to three mutations away from input the readers must take. The mutated
fields are drawn from the document itself, so every field of the pydantic models the
document fills is reached; fields a model declares and the document leaves out are
added with hostile values (`MODELS` names the models whose fields are drawn).
Derandomized, 50 examples each (each runs the CLI in-process: the fuzzers are `slow`).
"""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.strategies import DrawFn
from pydantic import BaseModel
from typer.testing import CliRunner

from fdc.agents.predictions import Prediction
from fdc.cli import app
from fdc.compiler.suite import TaskRecord
from fdc.sim_bridge.graph.scene_graph import build_scene_graph
from fdc.sim_bridge.scene.load import load_scene
from fdc.sim_bridge.scene.schema import Scene
from fdc.sim_bridge.world.embedded import EmbeddedWorld
from fdc.sim_bridge.world.state import Snapshot, TrajectoryHeader

REPO = Path(__file__).resolve().parents[2]
KITCHEN = REPO / "tests" / "golden" / "scenes" / "kitchen.json"
GOLDEN = REPO / "tests" / "golden"
MODELS: dict[str, list[type[BaseModel]]] = {
    "scene": [Scene], "trajectory": [TrajectoryHeader, Snapshot], "suite": [TaskRecord],
    "predictions": [Prediction]}
runner = CliRunner()
FUZZ = settings(max_examples=50, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])

Json = Any
Path_ = tuple[str | int, ...]

_HOSTILE: list[Json] = [
    None, True, False, 0, -1, -(10**30), 10**30, 2**63, 1e308, -1e308, 1e-320, math.nan,
    math.inf, "", " ", "ghost_:0000", "../../x", "/abs/x", "ü\u202e\x00名🙂", "a" * 10_000,
    [], {}, [[[[[[[[[[[[[[[[[[[[0]]]]]]]]]]]]]]]]]]]], {"a": {"b": {"c": {"d": [1, 2]}}}},
    [0, 0, 0], ["x", None], {"kind": "atom"},
]


def _paths(doc: Json, prefix: Path_ = ()) -> list[Path_]:
    out: list[Path_] = [prefix]
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(doc, list):
        for k, v in enumerate(doc[:5]):  # the first few of a long list suffice
            out += _paths(v, (*prefix, k))
    return out


def _at(doc: Json, path: Path_) -> Json:
    for p in path:
        doc = doc[p]
    return doc


@st.composite
def mutated(draw: DrawFn, doc: Json, models: list[type[BaseModel]]) -> Json:
    """`doc` with one to three mutations (see the module's docstring)."""
    doc = copy.deepcopy(doc)
    for _ in range(draw(st.integers(1, 3))):
        paths = _paths(doc)
        path = draw(st.sampled_from(paths))
        what = draw(st.sampled_from(["replace", "delete", "add", "repeat", "text"]))
        target = _at(doc, path[:-1]) if path else None
        if what == "replace" or not path:
            value = copy.deepcopy(draw(st.one_of(st.sampled_from(_HOSTILE),
                                                 st.text(max_size=20), st.integers(),
                                                 st.floats())))
            if not path:
                doc = value
                if not isinstance(doc, dict | list):
                    return doc
                continue
            target[path[-1]] = value
        elif what == "delete":
            del target[path[-1]]
        elif what == "add" and isinstance(_at(doc, path), dict):
            names = [n for m in models for n in m.model_fields] + ["unknown_field"]
            _at(doc, path)[draw(st.sampled_from(names))] = copy.deepcopy(
                draw(st.sampled_from(_HOSTILE)))
        elif what == "repeat" and isinstance(_at(doc, path), list):
            items = _at(doc, path)
            items.extend(items[:1] * draw(st.integers(1, 3)))
        elif what == "text":
            target[path[-1]] = draw(st.text(min_size=0, max_size=30))
    return doc


def invoke(args: list[str]) -> int:
    result = runner.invoke(app, args)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        import traceback

        raise AssertionError("".join(traceback.format_exception(result.exception)))
    assert "Traceback" not in result.output
    assert result.exit_code in (0, 1, 2), (result.exit_code, result.output)
    return result.exit_code


def dumps(doc: Json) -> str:
    return json.dumps(doc, ensure_ascii=False)


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Valid documents: the kitchen scene, a run in it, three of the golden suite's
    tasks on it, and a prediction for each."""
    root = tmp_path_factory.mktemp("base")
    scene = json.loads(KITCHEN.read_text())
    loaded = load_scene(KITCHEN).scene
    assert loaded is not None
    world = EmbeddedWorld(build_scene_graph(loaded, base_dir=KITCHEN.parent))
    assert world.stop()
    run = root / "run.jsonl"
    world.record(run, scene=str(KITCHEN))
    records = [json.loads(line) for line in (GOLDEN / "suite.jsonl").read_text().splitlines()]
    records = [r for r in records if r["scene"].endswith("kitchen.json")
               and r["experience"] is None][:3]
    for r in records:
        r["scene"] = str(KITCHEN)
        r["template_file"] = str(GOLDEN / "templates" / "golden.pddl")
    return {"root": root, "scene": scene,
            "trajectory": [json.loads(x) for x in run.read_text().splitlines()],
            "suite": records,
            "predictions": [{"task_id": r["id"], "actions": [{"action": "call_end"}]}
                            for r in records]}


def write_suite(folder: Path, records: list[Json]) -> Path:
    path = folder / "suite.jsonl"
    path.write_text("".join(dumps(r) + "\n" for r in records))
    return path


# --------------------------------------------------------------------------- readers


def test_the_base_documents_are_accepted(base: dict[str, Any], tmp_path: Path) -> None:
    scene = tmp_path / "scene.json"
    scene.write_text(dumps(base["scene"]))
    assert invoke(["scene", "inspect", str(scene)]) in (0, 1)
    suite = write_suite(tmp_path, base["suite"])
    run = tmp_path / "run.jsonl"
    run.write_text("".join(dumps(x) + "\n" for x in base["trajectory"]))
    assert invoke(["verify", str(suite), "-t", str(run), "--scene", str(KITCHEN)]) in (0, 1)
    assert invoke(["validate", str(suite)]) == 0
    preds = tmp_path / "p.jsonl"
    preds.write_text("".join(dumps(p) + "\n" for p in base["predictions"]))
    assert invoke(["evaluate", str(suite), "-p", str(preds), "-o",
                   str(tmp_path / "report.json")]) in (0, 1)


def _verify(doc: Json, tmp: Path, suite: list[Json]) -> None:
    run = tmp / "run.jsonl"
    run.write_text("".join(dumps(x) + "\n" for x in doc))
    invoke(["verify", str(write_suite(tmp, suite)), "-t", str(run), "--scene", str(KITCHEN)])


@pytest.mark.slow
@FUZZ
@given(data=st.data())
def test_scene_inspect_never_tracebacks(base: dict[str, Any], tmp_path: Path,
                                        data: st.DataObject) -> None:
    path = tmp_path / "scene.json"
    path.write_text(dumps(data.draw(mutated(base["scene"], MODELS["scene"]))))
    invoke(["scene", "inspect", str(path)])


def _one_line_mutated(data: st.DataObject, doc: list[Any], model: str) -> list[Any]:
    """The lines of JSONL document `doc` with one of them, drawn, mutated after `model`."""
    k = data.draw(st.integers(0, len(doc) - 1))
    return [*doc[:k], data.draw(mutated(doc[k], MODELS[model])), *doc[k + 1:]]


@pytest.mark.slow
@FUZZ
@given(data=st.data())
def test_verify_never_tracebacks_on_a_trajectory(base: dict[str, Any], tmp_path: Path,
                                                  data: st.DataObject) -> None:
    _verify(_one_line_mutated(data, base["trajectory"], "trajectory"), tmp_path, base["suite"])


@pytest.mark.slow
@FUZZ
@given(data=st.data())
def test_verify_never_tracebacks_on_a_suite(base: dict[str, Any], tmp_path: Path,
                                             data: st.DataObject) -> None:
    _verify(base["trajectory"], tmp_path, _one_line_mutated(data, base["suite"], "suite"))


@pytest.mark.slow
@FUZZ
@given(data=st.data())
def test_validate_never_tracebacks(base: dict[str, Any], tmp_path: Path,
                                   data: st.DataObject) -> None:
    invoke(["validate", str(write_suite(tmp_path, _one_line_mutated(data, base["suite"],
                                                                    "suite")))])


@pytest.mark.slow
@FUZZ
@given(data=st.data())
def test_evaluate_never_tracebacks(base: dict[str, Any], tmp_path: Path,
                                   data: st.DataObject) -> None:
    preds = tmp_path / "p.jsonl"
    preds.write_text("".join(dumps(p) + "\n" for p in
                             _one_line_mutated(data, base["predictions"], "predictions")))
    invoke(["evaluate", str(write_suite(tmp_path, base["suite"])), "-p", str(preds),
            "-o", str(tmp_path / "report.json")])
