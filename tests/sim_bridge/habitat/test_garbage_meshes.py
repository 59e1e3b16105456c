"""A damaged mesh in a Habitat dataset is a located input error: exit 2, the mesh file
and the object needing it named, what the file should hold, and a hint; nothing written.
Each garbage form here used to end in an internal error (exit 3: trimesh's ValueError,
IndexError, AssertionError, JSONDecodeError, NotImplementedError, FileNotFoundError) or,
for a GLB declaring more bytes than it has or a buffer past its binary chunk, in a scene
imported from half a mesh (exit 0). The forms are made from the real fixture's GLB
(../shared/fixtures, read-only): the dataset is copied, one mesh replaced."""

from __future__ import annotations

import json
import random
import shutil
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fdc.cli import app
from fdc.sim_bridge.meshes import MeshFileError, load_mesh_file
from tests.sim_bridge.helpers import TEST_ASSETS

pytestmark = pytest.mark.skipif(
    not TEST_ASSETS.is_dir(), reason=f"Habitat fixtures not found at {TEST_ASSETS}"
)
DATASET = TEST_ASSETS / "dataset_tests" / "dataset_0"
CONFIG = "test_dataset_0.scene_dataset_config.json"
OBJECT = "objects/dataset_test_object2.glb"
STAGE = "stages/dataset_test_stage.glb"


def _split(glb: bytes) -> tuple[dict[str, Any], bytes]:
    """A GLB's JSON document and its binary chunk's bytes."""
    size = struct.unpack_from("<I", glb, 12)[0]
    doc = json.loads(glb[20:20 + size])
    return doc, glb[20 + size + 8:]


def _glb(doc: dict[str, Any], binary: bytes = b"", declared: int | None = None) -> bytes:
    """A GLB of `doc` and `binary` (no binary chunk when empty), each chunk padded."""
    text = json.dumps(doc).encode()
    text += b" " * (-len(text) % 4)
    body = struct.pack("<II", len(text), 0x4E4F534A) + text
    if binary:
        binary += b"\0" * (-len(binary) % 4)
        body += struct.pack("<II", len(binary), 0x004E4942) + binary
    return struct.pack("<4sII", b"glTF", 2, declared or 12 + len(body)) + body


def _edited(glb: bytes, edit: Callable[[dict[str, Any]], None], binary: bool = True) -> bytes:
    doc, data = _split(glb)
    edit(doc)
    return _glb(doc, data if binary else b"")


def _set(key: str, field: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(doc: dict[str, Any]) -> None:
        for item in doc[key]:
            item[field] = value
    return edit


GARBAGE: dict[str, Callable[[bytes], bytes]] = {
    "random bytes": lambda g: random.Random(0).randbytes(4096),
    "zero length": lambda g: b"",
    "a header cut short": lambda g: g[:10],
    "truncated": lambda g: g[:len(g) // 2],
    "declared length past the file": lambda g: g[:8] + struct.pack("<I", 10 * len(g)) + g[12:],
    "glTF version 1": lambda g: g[:4] + struct.pack("<I", 1) + g[8:],
    "text": lambda g: b"hello, I am not a mesh\n",
    "glTF JSON named .glb": lambda g: json.dumps(_split(g)[0]).encode(),
    "a JSON chunk that is not JSON": lambda g: (
        struct.pack("<4sII", b"glTF", 2, 28) + struct.pack("<II", 8, 0x4E4F534A) + b"{{{{{{{{"),
    "an empty glTF document": lambda g: _glb({}),
    "no binary chunk": lambda g: _edited(g, lambda doc: None, binary=False),
    "a buffer past the binary chunk": lambda g: _edited(g, _set("buffers", "byteLength", 10**9)),
    "a view past its buffer": lambda g: _edited(g, _set("bufferViews", "byteOffset", 10**8)),
    "an accessor past its view": lambda g: _edited(g, _set("accessors", "count", 10**7)),
    "a buffer in a missing file": lambda g: _edited(
        g, lambda doc: doc.update(buffers=[{"byteLength": 100, "uri": "missing.bin"}]),
        binary=False),
    "a count that is no number": lambda g: _edited(g, _set("accessors", "count", "many")),
}


def _dataset(tmp_path: Path, mesh: str, form: str) -> Path:
    """The fixture dataset copied, with `mesh` replaced by a garbage form of itself."""
    root = tmp_path / "dataset"
    shutil.copytree(DATASET, root)
    target = root / mesh
    target.write_bytes(GARBAGE[form](target.read_bytes()))
    return root


@pytest.mark.parametrize("form", sorted(GARBAGE))
def test_a_garbage_object_mesh_is_a_located_input_error(tmp_path: Path, form: str) -> None:
    root = _dataset(tmp_path, OBJECT, form)
    out = tmp_path / "out" / "scene.json"
    result = CliRunner().invoke(app, ["import", "habitat", str(root / CONFIG), "--scene",
                                      "dataset_test_scene", "-o", str(out)])
    text = result.output
    assert result.exit_code == 2, text
    assert "internal error" not in text and "Traceback" not in text
    assert f"{root / OBJECT}: error[H007]: cannot read the mesh `dataset_test_object2.glb` " \
        "needed by `dataset_test_object2_:0000`: " in text  # the file, the object
    assert "hint: " in text
    assert not out.exists()
    if form == "an empty glTF document":  # a valid GLB; the importer needs vertices
        assert "the mesh holds no vertex; expected a mesh of triangles" in text
        return
    with pytest.raises(MeshFileError) as e:  # the reader says what a file should hold
        load_mesh_file(root / OBJECT, process=False)
    if "refers to" not in e.value.reason:
        assert "expected a binary glTF 2.0 file" in e.value.reason, e.value.reason


@pytest.mark.parametrize("form", ["truncated", "random bytes"])
def test_a_garbage_stage_mesh_is_a_located_input_error(tmp_path: Path, form: str) -> None:
    root = _dataset(tmp_path, STAGE, form)
    result = CliRunner().invoke(app, ["import", "habitat", str(root / CONFIG), "--scene",
                                      "dataset_test_scene", "-o", str(tmp_path / "s.json"),
                                      "--allow-missing"])  # damaged is not missing
    assert result.exit_code == 2, result.output
    assert f"{root / STAGE}: error[H007]: cannot read the mesh `dataset_test_stage.glb` " \
        "needed by `stage`: not a valid GLB file" in result.output


def test_every_fixture_glb_passes_the_structure_check() -> None:
    """The check refuses no real file: every GLB of the fixtures loads."""
    files = sorted(TEST_ASSETS.rglob("*.glb"))
    assert len(files) > 10
    for path in files:
        load_mesh_file(path, process=False)
