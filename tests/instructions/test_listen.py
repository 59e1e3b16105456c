"""The listener reads descriptions back: every description the describer emits resolves
to its entity alone, in random generated scenes and in random rows of like furniture
(named by their place: "the left counter"); and it catches words that fit another
entity, or several."""

from __future__ import annotations

from functools import cache

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fdc.instructions.describe import Describer
from fdc.instructions.listen import listen, listener_for


@cache
def describer(seed: int) -> Describer:
    from fdc.compiler.scene_compiler import SceneCompiler
    from fdc.compiler.templates import load_entries
    from fdc.sim_bridge.graph.scene_graph import build_scene_graph
    from fdc.sim_bridge.scene.generate import generate_scene

    graph = build_scene_graph(generate_scene(rooms=3, objects=40, seed=seed))
    compiler = SceneCompiler(graph, "gen.json", "0" * 64)
    entries, _ = load_entries(None)
    return Describer(compiler.facts(entries[0].domain), compiler.states["initial"])


def _same(d: Describer, entity: str) -> set[str]:
    """The entity, or the object a surface is named as ("the table": its top)."""
    if d.kind(entity) == "surface":
        return {entity, d.graph.surface(entity).object_id}
    return {entity}


def assert_every_description_resolves_back(d: Describer) -> None:
    listener = listener_for(d)
    for e in sorted(d.facts.types):
        if d.kind(e) is None:
            continue
        desc = d.describe(e)
        if not desc.unique:
            continue
        for text in (f"Go to {desc.definite}.", f"Put it next to {desc.clause}, now."):
            mentions = listener.mentions(text)
            assert mentions, (e, text)
            first = mentions[0]
            assert len(first.fits) == 1 and first.fits[0] in _same(d, e), (e, text, first)


@settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(min_value=1, max_value=40))
def test_every_description_resolves_back_to_its_entity_alone(seed: int) -> None:
    assert_every_description_resolves_back(describer(seed))


def _row(draw: st.DrawFn, start_m: float, end_m: float) -> list[float]:
    """Where like pieces of furniture 0.3 m wide stand along a wall: 2 to 5 of them, at
    random gaps, some too small to tell them apart."""
    at, out = start_m, []
    for gap in draw(st.lists(st.floats(0.35, 1.5), min_size=2, max_size=5)):
        at += gap
        if at <= end_m:
            out.append(round(at, 2))
    return out


@st.composite
def rows(draw: st.DrawFn) -> Describer:
    """Counters along the kitchen's east wall and the hall's west wall, cabinets along
    the kitchen's north wall, a shelf with sub-mesh shelves at random heights
    (`tests.instructions.test_ordinals`)."""
    from tests.instructions.test_ordinals import along_east_wall
    from tests.instructions.test_ordinals import describer as kitchen
    from tests.sim_bridge.helpers import obj

    cabinets = [obj(f"cabinet_{k}", "cabinet", (x, 3.7, 0.45), (0.3, 0.5, 0.9),
                    kind="furniture") for k, x in enumerate(_row(draw, 4.2, 9.0))]
    heights = draw(st.lists(st.floats(-0.8, 0.8), min_size=2, max_size=4))
    shelves = [{"name": f"shelf.{k:04d}", "z": z} for k, z in enumerate(heights)]
    shelf = obj("shelf", "bookshelf", (4.3, 0.3, 0.9), (0.5, 0.4, 1.8), kind="furniture",
                surfaces=shelves)
    hall = [obj(f"hall_counter_{k}", "counter", (0.4, y, 0.45), (0.6, 0.3, 0.9),
                kind="furniture") for k, y in enumerate(_row(draw, 0.9, 3.6))]
    return kitchen([*along_east_wall("counter", _row(draw, 0.0, 3.4), width_m=0.3),
                    *cabinets, shelf, *hall])


@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
@given(rows())
def test_every_description_by_place_resolves_back_to_its_entity_alone(d: Describer) -> None:
    assert_every_description_resolves_back(d)


def test_the_listener_reports_other_and_several_entities() -> None:
    d = describer(1)
    items = [e for e in sorted(d.facts.types) if d.kind(e) == "movable"]
    unique = next(e for e in items if d.describe(e).unique)
    other = next(e for e in items if e != unique and d.describe(e).unique)
    text = f"Pick up {d.describe(unique).definite}."
    assert listen(listener_for(d), text, {unique}) == []
    assert [c for c, _ in listen(listener_for(d), text, {other})] == ["wrong-reference"]
    twins = next(e for e in items if not d.describe(e).unique)
    vague = f"Pick up {d.describe(twins).definite}."
    assert [c for c, _ in listen(listener_for(d), vague, {twins})] == ["ambiguous-reference"]


def test_a_split_sentence_reads_as_the_item_where_it_stands() -> None:
    d = describer(2)
    e = next(x for x in sorted(d.facts.types) if d.kind(x) == "movable"
             and d.describe(x).relation_kind == "on")
    desc = d.describe(e)
    text = f"Take the {desc.noun} from {desc.relation.split(' ', 1)[1]} and put it away."
    assert next(m.fits for m in listener_for(d).mentions(text)) == (e,)
