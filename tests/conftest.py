"""Fixtures shared by every test package: the example apartment (its scene graph, and a
compiler of it with no experience) and a generated scene (its spec and graph), each
built once a session.

A scene graph never changes once built (what it memoises, routes and distances, derives
from it alone), and a `SceneCompiler`'s caches are what every template of a scene shares
in a compile, so sharing them between tests shares no state a test can see. A test that
needs a graph of its own (a scene edited, a file copied) builds it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fdc.compiler.options import CompileOptions
from fdc.compiler.prepare import SceneJob, prepare_scene
from fdc.compiler.scene_compiler import SceneCompiler
from fdc.sim_bridge.graph.scene_graph import SceneGraph, build_scene_graph, load_scene_graph
from fdc.sim_bridge.scene.generate import generate_scene
from fdc.sim_bridge.scene.schema import Scene

REPO = Path(__file__).resolve().parents[1]
#: The example apartment (examples/scenes/make_apartment.py writes it).
APARTMENT = REPO / "examples" / "scenes" / "apartment.json"
#: The generated scene of the fixtures: `generate_scene(rooms, objects, seed)`.
GENERATED = (2, 40, 1)


@pytest.fixture(scope="session")
def apartment_graph() -> SceneGraph:
    """The example apartment's scene graph (`load_scene_graph`: validated, meshes
    relative to its folder)."""
    return load_scene_graph(APARTMENT)


@pytest.fixture(scope="session")
def apartment_compiler() -> SceneCompiler:
    """The example apartment prepared for compiling, with no experience (process tasks
    start in its initial state), with the default options."""
    compiler, _ = prepare_scene(SceneJob(str(APARTMENT), None, simulate=False),
                                CompileOptions())
    return compiler


@pytest.fixture(scope="session")
def generated_scene() -> Scene:
    """A scene of fdc's generator, `GENERATED` (2 rooms, about 40 objects, seed 1)."""
    return generate_scene(*GENERATED)


@pytest.fixture(scope="session")
def generated_graph(generated_scene: Scene) -> SceneGraph:
    """The generated scene's graph."""
    return build_scene_graph(generated_scene)
