"""Scene preparation: the days of a scene share one scene graph."""

from __future__ import annotations

import shutil
from pathlib import Path

from fdc.compiler.prepare import load_graph

APARTMENT = Path(__file__).resolve().parents[2] / "examples" / "scenes" / "apartment.json"


def test_a_scene_graph_is_built_once_while_its_file_is_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "scene.json"
    shutil.copy(APARTMENT, path)
    graph, sha = load_graph(str(path))
    assert load_graph(str(path)) == (graph, sha)
    assert load_graph(str(path))[0] is graph
    path.write_text(path.read_text() + "\n")  # other bytes, the same scene
    again, sha_again = load_graph(str(path))
    assert again is not graph and sha_again == sha


def test_a_scene_over_its_size_limit_is_an_input_error(tmp_path: Path) -> None:
    # the one read that keys the kept graph is the bounded one
    import dataclasses

    import pytest

    from fdc.core.errors import InputError
    from fdc.core.limits import current, set_current

    path = tmp_path / "scene.json"
    shutil.copy(APARTMENT, path)
    previous = set_current(dataclasses.replace(current(), scene_bytes=1000))
    try:
        with pytest.raises(InputError, match="the limit `scene_bytes`"):
            load_graph(str(path))
    finally:
        set_current(previous)
