"""`Renderer`: a scene state seen from the robot's head camera, as RGB, linear depth and
per-pixel object ids, in one pass with three render targets (RGBA8, R32F, R32I).

What does not move (rooms, furniture, the building) is put in world coordinates once,
in one vertex buffer; what moves (movable items, articulated objects) is drawn per
object with its pose from the state; textured meshes are drawn per texture. Lighting is
one directional light from above plus ambient light, no shadows.
See docs/rendering.md.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from fdc.sim_bridge.graph.occluders import HAND_OFFSET_M, part_motion
from fdc.sim_bridge.render.build import (
    ObjectGeometry,
    PartPiece,
    Piece,
    UrdfModel,
    object_geometry,
    pose_matrix,
    rooms_pieces,
    transform,
)
from fdc.sim_bridge.render.camera import Camera
from fdc.sim_bridge.render.context import gl_context
from fdc.sim_bridge.scene.schema import Kind, ObjectSpec, Scene
from fdc.sim_bridge.world.state import AgentPose, ObjectPose, Snapshot

BACKGROUND = (0.78, 0.84, 0.9)  # what no surface covers (outside the rooms)

_VERTEX = """
#version 330
uniform mat4 model;
uniform mat4 view;
uniform mat4 proj;
in vec3 in_pos;
in vec3 in_nor;
in vec3 in_col;
in vec2 in_uv;
in int in_id;
out vec3 v_nor;
out vec3 v_col;
out vec2 v_uv;
out float v_depth;
flat out int v_id;
void main() {
    vec4 world = model * vec4(in_pos, 1.0);
    vec4 eye = view * world;
    v_depth = -eye.z;
    v_nor = mat3(model) * in_nor;
    v_col = in_col;
    v_uv = in_uv;
    v_id = in_id;
    gl_Position = proj * eye;
}
"""
_FRAGMENT = """
#version 330
#define TEXTURED %d
uniform sampler2D tex;
uniform vec3 light;
uniform vec3 view_dir;
in vec3 v_nor;
in vec3 v_col;
in vec2 v_uv;
in float v_depth;
flat in int v_id;
layout(location = 0) out vec4 f_rgb;
layout(location = 1) out float f_depth;
layout(location = 2) out int f_id;
void main() {
    vec3 base = v_col;
#if TEXTURED
    vec4 t = texture(tex, v_uv);
    if (t.a < 0.5) discard;  // cut-outs (leaves); kept out of the plain program: a
    base *= t.rgb;           // discard turns llvmpipe's early depth test off
#endif
    vec3 n = normalize(v_nor);
    if (!gl_FrontFacing) n = -n;
    float key = max(dot(n, light), 0.0);
    float head = abs(dot(n, view_dir));
    vec3 c = base * (0.42 + 0.43 * key + 0.2 * head);
    f_rgb = vec4(clamp(c, 0.0, 1.0), 1.0);
    f_depth = v_depth;
    f_id = v_id;
}
"""
_LIGHT = np.array([0.35, 0.25, 0.9]) / np.linalg.norm([0.35, 0.25, 0.9])
_DTYPE = np.dtype([("pos", "f4", 3), ("nor", "f4", 3), ("col", "f4", 3), ("uv", "f4", 2),
                   ("id", "i4")])


@dataclass(frozen=True)
class RenderedFrame:
    """One view: RGB (H, W, 3) uint8, linear depth (H, W) float32 metres (0: nothing),
    ids (H, W) int32 indexes into the renderer's `object_ids` (-1: floor, wall, nothing)."""

    rgb: np.ndarray
    depth: np.ndarray
    ids: np.ndarray
    object_ids: tuple[str, ...]

    @cached_property
    def visible(self) -> dict[str, int]:
        """Scene object id -> pixels it covers, for the objects in view, sorted by id."""
        counts = np.bincount(self.ids.ravel() + 1, minlength=len(self.object_ids) + 1)[1:]
        return {self.object_ids[k]: int(counts[k])
                for k in sorted(np.nonzero(counts)[0], key=lambda k: self.object_ids[k])}


@dataclass
class _Draw:
    vao: Any
    texture: Any | None
    prog: Any


class Renderer:
    """Renders a scene's states from camera poses (one GL context per process, shared)."""

    def __init__(self, scene: Scene, camera: Camera | None = None, *,
                 base_dir: Path | None = None) -> None:
        self.scene = scene
        self.camera = camera or Camera()
        self.ctx = gl_context()
        self.object_ids: tuple[str, ...] = tuple(o.id for o in scene.objects)
        self._specs: dict[str, ObjectSpec] = {o.id: o for o in scene.objects}
        self._plain = self.ctx.program(vertex_shader=_VERTEX, fragment_shader=_FRAGMENT % 0)
        self._textured = self.ctx.program(vertex_shader=_VERTEX,
                                          fragment_shader=_FRAGMENT % 1)
        for prog in (self._plain, self._textured):
            prog["light"].value = tuple(float(v) for v in _LIGHT)
            prog["proj"].write(_gl(self.camera.projection_matrix()))
        self._textured["tex"].value = 0
        w, h = self.camera.width, self.camera.height
        self._targets = (self.ctx.texture((w, h), 4, dtype="f1"),
                         self.ctx.texture((w, h), 1, dtype="f4"),
                         self.ctx.texture((w, h), 1, dtype="i4"))
        self._depth = self.ctx.depth_renderbuffer((w, h))
        self._fbo = self.ctx.framebuffer(color_attachments=list(self._targets),
                                         depth_attachment=self._depth)
        self._released = False
        meshes: dict[str, list[Piece]] = {}
        self._objects: list[ObjectGeometry] = [
            object_geometry(o, k, base_dir, meshes) for k, o in enumerate(scene.objects)]
        self._static: list[_Draw] = []
        self._dynamic: dict[str, list[tuple[_Draw, PartPiece | tuple[str, np.ndarray] | None]]
                            ] = {}
        self._urdf: dict[str, UrdfModel] = {}
        self._textures: dict[int, Any] = {}
        self._matrices: dict[tuple[Any, ...], np.ndarray] = {}  # object poses seen
        self._parts: dict[tuple[Any, ...], np.ndarray] = {}
        self._links: dict[tuple[Any, ...], dict[str, np.ndarray]] = {}
        self._build()

    # ----- set-up -----------------------------------------------------------------------
    def _id_of(self, geo: ObjectGeometry) -> int:
        """The value written to the id target: index + 1; 0 for the building."""
        spec = self._specs[geo.object_id]
        return 0 if spec.kind is Kind.STAGE else geo.index + 1

    def _vao(self, pieces: list[tuple[Piece, int]]) -> _Draw | None:
        n = sum(len(p.positions) for p, _ in pieces)
        if n == 0:
            return None
        data = np.zeros(n, dtype=_DTYPE)
        tris: list[np.ndarray] = []
        at = 0
        for p, ident in pieces:
            k = len(p.positions)
            data["pos"][at:at + k] = p.positions
            data["nor"][at:at + k] = p.normals
            data["col"][at:at + k] = p.colours
            if p.uvs is not None:
                data["uv"][at:at + k] = p.uvs
            data["id"][at:at + k] = ident
            tris.append(p.triangles() + at)
            at += k
        vbo = self.ctx.buffer(data.tobytes())
        ibo = self.ctx.buffer(np.concatenate(tris).astype(np.uint32).tobytes())
        tex = pieces[0][0].texture
        prog = self._plain if tex is None else self._textured
        layout = (vbo, "3f 3f 3f 2f 1i", "in_pos", "in_nor", "in_col", "in_uv", "in_id") \
            if tex is not None else (vbo, "3f 3f 3f 8x 1i", "in_pos", "in_nor", "in_col", "in_id")
        vao = self.ctx.vertex_array(prog, [layout], index_buffer=ibo, index_element_size=4)
        texture = None
        if tex is not None:
            key = id(tex)
            if key not in self._textures:
                t = self.ctx.texture((tex.shape[1], tex.shape[0]), 4, tex.tobytes())
                t.build_mipmaps()
                t.repeat_x = t.repeat_y = True
                self._textures[key] = t
            texture = self._textures[key]
        return _Draw(vao, texture, prog)

    def _build(self) -> None:
        # Near things first where it is known (furniture, then walls, then floors and
        # ceilings): llvmpipe's early depth test then skips what they hide.
        plain: list[tuple[Piece, int]] = []
        for geo in self._objects:
            spec = self._specs[geo.object_id]
            ident = self._id_of(geo)
            if geo.tracked:
                draws: list[tuple[_Draw, PartPiece | tuple[str, np.ndarray] | None]] = []
                for piece in geo.pieces:
                    d = self._vao([(piece, ident)])
                    if d is not None:
                        draws.append((d, None))
                if geo.urdf is not None:
                    self._urdf[geo.object_id] = geo.urdf
                    for link, origin, piece in geo.urdf.links:
                        d = self._vao([(piece, ident)])
                        if d is not None:
                            draws.append((d, (link, origin)))
                else:
                    for part in geo.parts:
                        d = self._vao([(part.piece, ident)])
                        if d is not None:
                            draws.append((d, part))
                self._dynamic[geo.object_id] = draws
                continue
            m = pose_matrix(spec.pose.position, spec.pose.orientation)
            pieces = geo.pieces + [p.piece for p in geo.parts]
            for piece in pieces:
                world = transform(piece, m)
                if world.texture is None:
                    plain.append((world, ident))
                else:
                    d = self._vao([(world, ident)])
                    if d is not None:
                        self._static.append(d)
        walls, flats = rooms_pieces(self.scene)
        plain += [(walls, 0), (flats, 0)]
        d = self._vao(plain)
        if d is not None:
            self._static.insert(0, d)

    # ----- rendering --------------------------------------------------------------------
    def render(self, state: Snapshot | None = None, pose: AgentPose | None = None,
               camera: Camera | None = None) -> RenderedFrame:
        """The view from `pose` (default: the state's agent, else the scene's) of the
        world in `state` (default: the scene as it is). `camera`: another tilt or
        height of the renderer's camera for this view (`view_at` aims it); its size and
        field of view must be the renderer's (ValueError otherwise)."""
        if self._released:
            raise RuntimeError("the renderer was released")
        if pose is None:
            pose = state.agent if state is not None else self._scene_pose()
        objects: Mapping[str, ObjectPose] = state.objects if state is not None else {}
        open_state: Mapping[str, bool] = state.open if state is not None else {}
        held = state.held if state is not None else None
        cam = self.camera
        if camera is not None:
            if (camera.width, camera.height, camera.hfov_deg) != \
                    (cam.width, cam.height, cam.hfov_deg):
                raise ValueError(f"camera {camera.width}x{camera.height}, "
                                 f"{camera.hfov_deg} deg: the renderer draws "
                                 f"{cam.width}x{cam.height}, {cam.hfov_deg} deg")
            cam = camera
        forward, _, _ = cam.axes(pose)
        for prog in (self._plain, self._textured):
            prog["view"].write(_gl(cam.view_matrix(pose)))
            prog["view_dir"].value = tuple(float(v) for v in -forward)
            prog["model"].write(_gl(np.eye(4)))
        fbo = self._fbo
        fbo.use()
        fbo.clear(0.0, 0.0, 0.0, 0.0, depth=1.0)
        self.ctx.enable(self.ctx.DEPTH_TEST)
        self.ctx.disable(self.ctx.CULL_FACE)
        for d in self._static:
            self._draw(d)
        for ident, draws in self._dynamic.items():
            p = objects.get(ident)
            key = (ident, "hand", pose) if ident == held else \
                (ident, p.position, p.orientation) if p is not None else (ident,)
            m = self._matrices.get(key)
            if m is None:
                m = self._object_matrix(ident, objects, held, pose)
                if ident != held:
                    if len(self._matrices) > 100_000:  # a long day of moving items
                        self._matrices.clear()
                    self._matrices[key] = m
            for d, part in draws:
                if part is None:
                    pm = m
                elif isinstance(part, tuple):  # a URDF link's mesh
                    link, origin = part
                    pm = m @ self._link_matrices(ident, open_state)[link] @ origin
                else:
                    pm = m @ self._part_matrix(part, open_state)
                d.prog["model"].write(_gl(pm))
                self._draw(d)
        w, h = cam.width, cam.height
        rgba = np.frombuffer(fbo.read(components=4, attachment=0, dtype="f1"), np.uint8)
        depth = np.frombuffer(fbo.read(components=1, attachment=1, dtype="f4"), np.float32)
        ids = np.frombuffer(fbo.read(components=1, attachment=2, dtype="i4"), np.int32)
        rgba = rgba.reshape(h, w, 4)[::-1]
        rgb = np.ascontiguousarray(rgba[:, :, :3])
        covered = rgba[:, :, 3] > 0
        rgb[~covered] = np.round(np.array(BACKGROUND) * 255).astype(np.uint8)
        return RenderedFrame(rgb=rgb,
                             depth=np.ascontiguousarray(depth.reshape(h, w)[::-1]),
                             ids=np.ascontiguousarray(ids.reshape(h, w)[::-1]) - 1,
                             object_ids=self.object_ids)

    def _draw(self, d: _Draw) -> None:
        if d.texture is not None:
            d.texture.use(0)
        d.vao.render()

    def _scene_pose(self) -> AgentPose:
        a = self.scene.agent
        return AgentPose(x=a.position[0], y=a.position[1], z=a.position[2], yaw_rad=a.yaw_rad)

    def _object_matrix(self, ident: str, objects: Mapping[str, ObjectPose], held: str | None,
                       pose: AgentPose) -> np.ndarray:
        spec = self._specs[ident]
        if ident == held:
            return hand_matrix(pose, spec)
        p = objects.get(ident)
        if p is None:
            return pose_matrix(spec.pose.position, spec.pose.orientation)
        return pose_matrix(p.position, p.orientation)

    def _link_matrices(self, ident: str, open_state: Mapping[str, bool]
                       ) -> dict[str, np.ndarray]:
        model = self._urdf[ident]
        key = (ident, tuple(sorted((c, open_state.get(c)) for p in model.parts.values()
                                   for c in p.containers)))
        got = self._links.get(key)
        if got is None:
            got = self._links[key] = model.link_matrices(open_state)
        return got

    def _part_matrix(self, part: PartPiece, open_state: Mapping[str, bool]) -> np.ndarray:
        key = (id(part), tuple(open_state.get(c) for c in part.containers))
        m = self._parts.get(key)
        if m is None:
            m = self._parts[key] = part_matrix(part, open_state, self._specs)
        return m

    def release(self) -> None:
        """Free the GL objects (the context stays, shared by the process)."""
        if self._released:
            return
        self._released = True
        for d in self._static:
            d.vao.release()
        for draws in self._dynamic.values():
            for d, _ in draws:
                d.vao.release()
        for t in self._textures.values():
            t.release()
        self._fbo.release()
        for t in self._targets:
            t.release()
        self._depth.release()
        self._plain.release()
        self._textured.release()

    def __enter__(self) -> Renderer:
        return self

    def __exit__(self, *_: object) -> None:
        self.release()


def hand_matrix(pose: AgentPose, spec: ObjectSpec) -> np.ndarray:
    """Where a held item is drawn: in front of the robot, below the camera, turned with
    the robot (its own axes along the robot's)."""
    fx, fy, z = HAND_OFFSET_M
    c, s = math.cos(pose.yaw_rad), math.sin(pose.yaw_rad)
    m = np.eye(4)
    m[:3, :3] = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    m[:3, 3] = (pose.x + c * fx - s * fy, pose.y + s * fx + c * fy, pose.z + z)
    return m


def part_matrix(part: PartPiece, open_state: Mapping[str, bool],
                specs: Mapping[str, ObjectSpec] | None = None) -> np.ndarray:
    """A part's motion in its object's frame: a door or drawer that closes a container
    moves as `part_motion` says (the line of sight's rule); other parts stay where the
    scene put them."""
    if part.spec.joint is None or not part.containers:
        return np.eye(4)
    is_open = any(open_state.get(c, _initial_open(c, specs)) for c in part.containers)
    return part_motion(part.spec, is_open)


def _initial_open(container: str, specs: Mapping[str, ObjectSpec] | None) -> bool:
    if specs is None:
        return False
    obj, _, name = container.rpartition("|")
    spec = specs.get(obj)
    if spec is None:
        return False
    return next((c.open for c in spec.containers if c.name == name), False)


def _gl(m: np.ndarray) -> bytes:
    """A 4x4 matrix as OpenGL reads a mat4 (column-major float32)."""
    return m.T.astype(np.float32).tobytes()

