"""Reading a mesh file, bounded: `load_mesh_file`.

Meshes are parsed by trimesh, which would read whatever a path names, for as long as it
takes. Here the file is read first through fdc's one input reader (`fdc.core.inputs`: a
regular file, at most the limit `mesh_bytes`), and trimesh parses those bytes; files a
mesh refers to (a `.gltf`'s buffers, an `.obj`'s materials) are looked up beside it.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from fdc.core.inputs import InputKind, read_input_bytes


def load_mesh_file(path: Path, **options: Any) -> Any:
    """The trimesh geometry (a mesh or a scene) of mesh file `path`; `options` go to
    `trimesh.load` (`force`, `process`). `InputFileError` when the file cannot be read
    (missing, not a regular file, over `mesh_bytes`); trimesh raises on bad content."""
    import trimesh
    from trimesh.resolvers import FilePathResolver

    data = read_input_bytes(path, InputKind.MESH)
    return trimesh.load(io.BytesIO(data), file_type=path.suffix.lstrip(".").lower(),
                        resolver=FilePathResolver(str(path)), **options)
