"""Reading a mesh file, bounded: `load_mesh_file`.

Meshes are parsed by trimesh, which would read whatever a path names, for as long as it
takes. Here the file is read first through fdc's one input reader (`fdc.core.inputs`: a
regular file, at most the limit `mesh_bytes`), and trimesh parses those bytes; files a
mesh refers to (a `.gltf`'s buffers, an `.obj`'s materials) are looked up beside it.

A mesh file is third-party input, so a damaged one is an input error, never a crash:
a binary glTF (`.glb`) has its structure checked first (the header, its declared length
against the file's, the JSON chunk, the binary chunk, and every buffer, buffer view and
accessor within the bytes it points into), and whatever trimesh raises on the rest is a
`MeshFileError` saying what the file was expected to hold.
See docs/formats/scene.md.
"""

from __future__ import annotations

import io
import json
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fdc.core.inputs import InputFileError, InputKind, read_input_bytes

#: What a binary glTF file holds (the messages of `MeshFileError` say it).
GLB_EXPECTED = ("a binary glTF 2.0 file: a 12-byte header (`glTF`, version 2, the file's "
                "length), a JSON chunk, then the binary chunk its buffers point into")

_HINT = ("the file is damaged or is not what its name says: download or export the asset "
         "again (a glTF validator, e.g. `gltf_validator FILE`, says what is wrong)")

_JSON, _BIN = 0x4E4F534A, 0x004E4942
_COMPONENTS = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT2": 4, "MAT3": 9, "MAT4": 16}
_COMPONENT_BYTES = {5120: 1, 5121: 1, 5122: 2, 5123: 2, 5125: 4, 5126: 4}


_Bad = Callable[[str], "MeshFileError"]


class MeshFileError(InputFileError):
    """A mesh file whose bytes are not a mesh of its kind: `reason` says what is wrong
    and what was expected, `hint` what to do."""

    def __reduce__(self) -> tuple[type[MeshFileError], tuple[str, str, str]]:
        return type(self), (self.path, self.reason, self.hint)


def load_mesh_file(path: Path, **options: Any) -> Any:
    """The trimesh geometry (a mesh or a scene) of mesh file `path`; `options` go to
    `trimesh.load` (`force`, `process`). `InputFileError` when the file cannot be read
    (missing, not a regular file, over `mesh_bytes`); `MeshFileError` (one) when its
    bytes are not a mesh of its kind."""
    import trimesh
    from trimesh.resolvers import FilePathResolver

    data = read_input_bytes(path, InputKind.MESH)
    kind = path.suffix.lstrip(".").lower()
    if kind == "glb":
        check_glb(path, data)
    try:
        return trimesh.load(io.BytesIO(data), file_type=kind,
                            resolver=FilePathResolver(str(path)), **options)
    except MemoryError:
        raise
    except OSError as e:  # a file it refers to (a `.gltf`'s buffer, an `.obj`'s material)
        named = e.filename or str(e)
        raise MeshFileError(path, f"a file the mesh refers to cannot be read: {named} "
                            "(looked for beside the mesh)",
                            "put the files a mesh refers to beside it") from None
    except Exception as e:  # trimesh raises anything on a hostile file
        what = GLB_EXPECTED if kind == "glb" else f"a {kind or 'mesh'} file of triangles"
        raise MeshFileError(path, f"not a valid {kind or 'mesh'} mesh: trimesh cannot parse "
                            f"it ({type(e).__name__}{': ' + str(e)[:200] if str(e) else ''});"
                            f" expected {what}", _HINT) from None


def check_glb(path: Path, data: bytes) -> None:
    """`MeshFileError` unless `data` has a binary glTF's structure: the header, a length
    no larger than the file, a JSON chunk holding a JSON object, and each embedded
    buffer, buffer view and accessor within the bytes it points into."""

    def bad(reason: str) -> MeshFileError:
        return MeshFileError(path, f"not a valid GLB file: {reason}; expected "
                             f"{GLB_EXPECTED}", _HINT)

    if len(data) < 12:
        raise bad("the file is empty" if not data else
                  f"the file has {len(data)} bytes, fewer than the 12 of a GLB header")
    magic, version, length = struct.unpack_from("<4sII", data)
    if magic != b"glTF":
        also = " (a glTF JSON file named .glb? name it .gltf)" if data.lstrip()[:1] == b"{" \
            else ""
        raise bad(f"it begins with {magic!r}, not b'glTF'{also}")
    if version != 2:
        raise bad(f"its header says glTF version {version}; fdc reads version 2")
    if length > len(data):
        raise bad(f"its header declares {length} bytes and the file has {len(data)}: it "
                  "was cut short")
    chunks: list[tuple[int, bytes]] = []
    at = 12
    while at < length:
        if at + 8 > length:
            raise bad(f"a chunk header at byte {at} runs past the declared length {length}")
        size, kind = struct.unpack_from("<II", data, at)
        if at + 8 + size > length:
            raise bad(f"the chunk at byte {at} declares {size} bytes, past the declared "
                      f"length {length}")
        chunks.append((kind, data[at + 8:at + 8 + size]))
        at += 8 + size
    if not chunks or chunks[0][0] != _JSON:
        raise bad("its first chunk is not the JSON chunk")
    doc = _json_chunk(chunks[0][1], bad)
    binary = chunks[1][1] if len(chunks) > 1 and chunks[1][0] == _BIN else None
    _check_buffers(doc, binary, bad)


def _json_chunk(raw: bytes, bad: _Bad) -> dict[str, Any]:
    from fdc.core.jsonl import loads

    try:
        doc = loads(raw.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise bad(f"its JSON chunk is not UTF-8 text (byte {e.start})") from None
    except json.JSONDecodeError as e:
        raise bad(f"its JSON chunk is not JSON: {e.msg} (character {e.pos})") from None
    if not isinstance(doc, dict):
        raise bad("its JSON chunk is not a JSON object")
    return doc


def _count(value: Any, where: str, bad: _Bad) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise bad(f"`{where}` is {json.dumps(value)[:40]}, not a count of bytes or items")
    return value


def _items(doc: dict[str, Any], key: str, bad: _Bad) -> list[dict[str, Any]]:
    items = doc.get(key, [])
    if not isinstance(items, list) or not all(isinstance(x, dict) for x in items):
        raise bad(f"`{key}` is not a list of JSON objects")
    return items


def _check_buffers(doc: dict[str, Any], binary: bytes | None, bad: _Bad) -> None:
    """Each embedded buffer within the binary chunk, each buffer view within its buffer,
    each accessor within its view (buffers with a `uri` are another file's, unchecked)."""
    sizes: list[int | None] = []
    for i, b in enumerate(_items(doc, "buffers", bad)):
        n = _count(b.get("byteLength"), f"buffers[{i}].byteLength", bad)
        if "uri" in b:
            sizes.append(None)
            continue
        if i != 0 or binary is None:
            raise bad(f"buffers[{i}] has no `uri` and the file has no binary chunk for it")
        if n > len(binary):
            raise bad(f"buffers[{i}] declares {n} bytes and the binary chunk holds "
                      f"{len(binary)}")
        sizes.append(n)
    views: list[int] = []
    for i, v in enumerate(_items(doc, "bufferViews", bad)):
        where = f"bufferViews[{i}]"
        buffer = _count(v.get("buffer"), f"{where}.buffer", bad)
        if buffer >= len(sizes):
            raise bad(f"`{where}.buffer` is {buffer}; the file has {len(sizes)} buffer(s)")
        end = (_count(v.get("byteOffset", 0), f"{where}.byteOffset", bad)
               + _count(v.get("byteLength"), f"{where}.byteLength", bad))
        size = sizes[buffer]
        if size is not None and end > size:
            raise bad(f"{where} ends at byte {end} of buffers[{buffer}], which has {size}")
        views.append(_count(v.get("byteLength"), f"{where}.byteLength", bad))
    for i, a in enumerate(_items(doc, "accessors", bad)):
        where = f"accessors[{i}]"
        if "bufferView" not in a:
            continue  # all zeros, or sparse: no bytes of a view
        view = _count(a.get("bufferView"), f"{where}.bufferView", bad)
        if view >= len(views):
            raise bad(f"`{where}.bufferView` is {view}; the file has {len(views)} view(s)")
        count = _count(a.get("count"), f"{where}.count", bad)
        components = _COMPONENTS.get(str(a.get("type")))
        kind = a.get("componentType")
        width = _COMPONENT_BYTES.get(kind) if isinstance(kind, int) else None
        if components is None or width is None:
            raise bad(f"{where} has type {json.dumps(a.get('type'))[:20]} and componentType "
                      f"{json.dumps(a.get('componentType'))[:20]}, not a glTF element type")
        stride = doc["bufferViews"][view].get("byteStride") or components * width
        stride = _count(stride, f"bufferViews[{view}].byteStride", bad)
        end = (_count(a.get("byteOffset", 0), f"{where}.byteOffset", bad)
               + (count - 1) * stride + components * width if count else 0)
        if end > views[view]:
            raise bad(f"{where} ({count} x {a.get('type')}) ends at byte {end} of "
                      f"bufferViews[{view}], which has {views[view]}")
