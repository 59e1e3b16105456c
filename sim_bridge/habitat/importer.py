"""Import a Habitat scene (dataset config + scene instance) into fdc's `scene.json`.

Frames. Habitat's world is Y-up (front -Z); fdc's is Z-up: a point (x, y, z) becomes
(x, -z, y), a rotation R becomes C R C^T, so a quaternion [w, x, y, z] becomes
[w, x, -z, y]. An asset's own axes are first aligned by its config's `up` and `front`
(default +Y and -Z), then scaled; with `translation_origin: com` the asset is shifted so
its centre of mass (the config's `COM`, else its mesh box centre) sits at the translation.
Sizes come from the meshes (trimesh). Receptacles become surfaces named as Habitat names
them: `<instance handle>|<receptacle name>` (mesh receptacles: one per sub-mesh, with
`.0000`, `.0001` ... appended). Stage receptacles are in world coordinates, as
habitat-lab reads them. Rooms come from the semantic config's region annotations.
See docs/habitat.md.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import ValidationError

from fdc.core.errors import FdcError
from fdc.core.inputs import InputFileError
from fdc.core.jsonpath import json_path
from fdc.core.problems import Diagnostic, error, warning
from fdc.sim_bridge.geometry import Array, matrix_to_quaternion, quaternion_to_matrix
from fdc.sim_bridge.habitat.configs import (
    AabbReceptacle,
    ArticulatedInstance,
    AssetConfig,
    MeshReceptacle,
    ObjectInstance,
    Region,
    SceneInstance,
    StageInstance,
    validate,
)
from fdc.sim_bridge.habitat.dataset import (
    ConfigError,
    Dataset,
    Template,
    load_dataset,
    read_json,
    short_name,
)
from fdc.sim_bridge.habitat.urdf import read_urdf
from fdc.sim_bridge.meshes import MeshFileError, load_mesh_file
from fdc.sim_bridge.scene.schema import FORMAT_VERSION, Scene

#: Habitat (Y-up) to fdc (Z-up).
C = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]])


class ImportedSceneError(FdcError):
    """The scene built from valid configs does not validate (the findings say where)."""

    def __init__(self, findings: list[Diagnostic]) -> None:
        super().__init__("; ".join(f.message for f in findings))
        self.findings = findings


def region_id(name: str) -> str:
    """The room id of a semantic region's name: each character outside letters, digits
    and `_ . : -` becomes `_` (`living room` -> `living_room`). PARTNR's room names map
    to room ids by the same rule (`fdc.interop.partnr.goals`)."""
    return re.sub(r"[^A-Za-z0-9_.:\-]", "_", name) or "region"


class MissingAsset(FdcError):
    def __init__(self, path: Path, needed_by: str) -> None:
        super().__init__(f"missing asset `{path}` needed by `{needed_by}`")
        self.path = path
        self.needed_by = needed_by


class BadMesh(FdcError):
    """A mesh file that is there and cannot be read as a mesh: the reader's error (a
    damaged GLB, a mesh past `mesh_bytes`, a mesh with no vertex) for the object that
    needs it. An error finding (`H007`), whatever `--allow-missing` says: the file is
    not missing, it is wrong."""

    def __init__(self, path: Path, needed_by: str, cause: InputFileError) -> None:
        super().__init__(f"cannot read mesh `{path}` needed by `{needed_by}`: {cause.reason}")
        self.path = path
        self.needed_by = needed_by
        self.cause = cause

    def finding(self) -> Diagnostic:
        return error("H007", f"cannot read the mesh `{self.path.name}` needed by "
                     f"`{self.needed_by}`: {self.cause.reason}", entities=[self.needed_by],
                     file=str(self.path), hint=self.cause.hint or
                     "replace the file with a readable mesh of its kind")


@dataclass
class ImportResult:
    scene: Scene | None
    findings: list[Diagnostic] = field(default_factory=list)
    #: What `allow_missing` left out: each unknown template or missing asset, by name.
    skipped: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.scene is not None and not any(f.is_error for f in self.findings)


def yup_to_zup_point(p: Any) -> Array:
    return np.asarray(p, dtype=np.float64) @ C.T


def yup_to_zup_quaternion(q: Any) -> tuple[float, float, float, float]:
    w, x, y, z = (float(v) for v in q)
    return (w, x, -z, y)


def zup_to_yup_point(p: Any) -> Array:
    """fdc (x, y, z) to Habitat (x, z, -y): the inverse of `yup_to_zup_point`."""
    out: Array = np.asarray(p, dtype=np.float64) @ C
    return out


def zup_to_yup_quaternion(q: Any) -> tuple[float, float, float, float]:
    """[w, x, y, z] in fdc's frame to Habitat's: the inverse of `yup_to_zup_quaternion`."""
    w, x, y, z = (float(v) for v in q)
    return (w, x, z, -y)


def asset_alignment(up: Any, front: Any) -> Array:
    """The rotation taking an asset's `up` to +Y and its `front` to -Z (Habitat's frame)."""
    u = np.asarray(up, dtype=np.float64)
    f = np.asarray(front, dtype=np.float64)
    u = u / np.linalg.norm(u)
    back = -f / np.linalg.norm(f)
    m = np.stack([np.cross(u, back), u, back], axis=1)
    return m.T


def _mesh(path: Path, needed_by: str) -> tuple[Array, Array, int]:
    """`_mesh_data` of the mesh `needed_by` needs; `BadMesh` when it cannot be read."""
    try:
        return _mesh_data(str(path))
    except InputFileError as e:
        raise BadMesh(path, needed_by, e) from None


def _mesh_parts(path: Path, needed_by: str) -> list[tuple[Array, Array]]:
    """`_submeshes` of the mesh `needed_by` needs; `BadMesh` when it cannot be read."""
    try:
        return _submeshes(str(path))
    except InputFileError as e:
        raise BadMesh(path, needed_by, e) from None


def _vertices(path: str, v: Any) -> Array:
    """A mesh's vertices as an (n, 3) array: `MeshFileError` when there are none (every
    box and frame of the object is made of them) or one is not finite."""
    out = np.asarray(v, dtype=np.float64).reshape(-1, 3)
    if not len(out):
        raise MeshFileError(path, "the mesh holds no vertex; expected a mesh of triangles",
                            "replace the file with the object's mesh")
    if not np.isfinite(out).all():
        raise MeshFileError(path, "a vertex of the mesh has a NaN or infinite coordinate",
                            "replace the file with the object's mesh")
    return out


@lru_cache(maxsize=256)
def _mesh_data(path: str) -> tuple[Array, Array, int]:
    """Vertices, faces (concatenated over the file's meshes) and the sub-mesh count."""
    import trimesh

    loaded = load_mesh_file(Path(path), process=False)
    if isinstance(loaded, trimesh.Scene):
        count = len(loaded.geometry)
        if not count:
            return _vertices(path, []), np.zeros((0, 3), dtype=np.int64), 0
        mesh = loaded.to_mesh() if hasattr(loaded, "to_mesh") else loaded.dump(concatenate=True)
    else:
        count = 1
        mesh = loaded
    return _vertices(path, getattr(mesh, "vertices", [])), np.asarray(mesh.faces), count


def _submeshes(path: str) -> list[tuple[Array, Array]]:
    import trimesh

    loaded = load_mesh_file(Path(path), process=False)
    if isinstance(loaded, trimesh.Scene):
        out = []
        for node in sorted(loaded.graph.nodes_geometry):
            transform, name = loaded.graph[node]
            g = loaded.geometry[name]
            v = _vertices(path, g.vertices)
            v = v @ np.asarray(transform)[:3, :3].T + np.asarray(transform)[:3, 3]
            out.append((v, np.asarray(g.faces)))
        return out
    return [(_vertices(path, loaded.vertices), np.asarray(loaded.faces))]


def _asset(t: Template, key: str, needed_by: str) -> Path | None:
    value = t.attributes.get(key)
    if not isinstance(value, str) or not value:
        return None
    p = t.base_dir / value
    if not p.is_file():
        if key == "collision_asset":
            return None  # primitives such as `icosphereSolid_subdivs_1`
        raise MissingAsset(p, needed_by)
    return p


def _category(name: str) -> str:
    base = re.sub(r"^frl_apartment_", "", short_name(name))
    base = re.sub(r"(_\d+)+$", "", base)
    return base.lower() or "object"


def _relpath(p: Path, out_dir: Path) -> str:
    return Path(os.path.relpath(p.resolve(), out_dir.resolve())).as_posix()


def _fmt(v: Any) -> list[float]:
    return [round(float(x), 6) for x in np.asarray(v).reshape(-1)]


@dataclass
class _Frame:
    """Asset coordinates -> fdc local coordinates: local = M (S * v) + o."""

    m: Array
    s: Array
    o: Array

    def apply(self, v: Array) -> Array:
        return (np.asarray(v, dtype=np.float64) * self.s) @ self.m.T + self.o


def import_habitat(
    config_path: str | Path,
    scene_name: str,
    out_dir: str | Path = ".",
    allow_missing: bool = False,
) -> ImportResult:
    """Read a Habitat scene dataset and build the scene; never raises on bad input."""
    out = Path(out_dir)
    ds, findings = load_dataset(Path(config_path))
    if ds is None:
        return ImportResult(None, findings)
    t = ds.lookup("scene_instances", scene_name)
    broken = ds.unreadable_config("scene_instances", scene_name)
    if t is None and broken is not None:
        return ImportResult(None, [*findings, broken])
    if t is None:
        known = ", ".join(short_name(h) for h in ds.handles("scene_instances")) or "none"
        return ImportResult(None, [*findings, error(
            "H002", f"no scene instance `{scene_name}` in the dataset (known: {known})")])
    inst, problems = validate(SceneInstance, t.attributes, _file(ds, t))
    if inst is None:
        return ImportResult(None, [*findings, *problems])
    importer = _Importer(ds, out, allow_missing, findings)
    try:
        scene = importer.run(t, inst)
    except MissingAsset as e:
        missing = error("H001", str(e), entities=[e.needed_by])
        return ImportResult(None, [*importer.findings, missing], importer.skipped)
    except ImportedSceneError as e:
        return ImportResult(None, [*importer.findings, *e.findings], importer.skipped)
    return ImportResult(scene, importer.findings, importer.skipped)


def _file(ds: Dataset, t: Template) -> str:
    """The file a template's attributes come from (the dataset config for inline ones)."""
    return str(t.source if t.source is not None else ds.path)


class _Importer:
    def __init__(self, ds: Dataset, out: Path, allow_missing: bool, findings: list[Diagnostic]):
        self.ds = ds
        self.out = out
        self.allow_missing = allow_missing
        self.findings = findings
        self.counts: Counter[str] = Counter()
        self.skipped: list[str] = []

    def _missing(self, e: MissingAsset) -> None:
        if not self.allow_missing:
            raise e
        self.skipped.append(e.needed_by)
        self.findings.append(warning("H001", f"{e}; skipped", entities=[e.needed_by]))

    def _unknown(self, kind: str, name: str, where: str) -> None:
        """A template the dataset does not have: an error, or (allow_missing) a warning
        and the instance skipped, as a partial download needs. A template whose config
        cannot be read is an error."""
        section = {"stage": "stages", "object": "objects"}.get(kind, "articulated_objects")
        broken = self.ds.unreadable_config(section, name)
        if broken is not None:
            self.findings.append(broken)
        elif self.allow_missing:
            self.skipped.append(name)
            self.findings.append(warning("H002", f"unknown {kind} template `{name}`; skipped",
                                         where, [name]))
        else:
            self.findings.append(error(
                "H002", f"unknown {kind} template `{name}`", where, [name],
                hint="is the dataset complete? `--allow-missing` skips what it lacks"))

    def _asset_config(self, t: Template) -> AssetConfig | None:
        cfg, problems = validate(AssetConfig, t.attributes, _file(self.ds, t))
        self.findings.extend(problems)
        return cfg

    def run(self, t: Template, inst: SceneInstance) -> Scene:
        self.instance_file = _file(self.ds, t)
        default_origin = inst.translation_origin.lower()
        objects: list[dict[str, Any]] = []
        stage = inst.stage_instance
        if stage is not None and stage.template_name:
            try:
                s = self._stage(stage)
                if s is not None:
                    objects.append(s)
            except MissingAsset as e:
                self._missing(e)
            except BadMesh as e:
                self.findings.append(e.finding())
        for k, o in enumerate(inst.object_instances or []):
            try:
                spec = self._object(o, default_origin, k)
                if spec is not None:
                    objects.append(spec)
            except MissingAsset as e:
                self._missing(e)
            except BadMesh as e:
                self.findings.append(e.finding())
        for k, a in enumerate(inst.articulated_object_instances or []):
            try:
                spec = self._articulated(a, k)
                if spec is not None:
                    objects.append(spec)
            except MissingAsset as e:
                self._missing(e)
            except BadMesh as e:
                self.findings.append(e.finding())
        rooms = self._rooms(t, inst)
        agent = self._agent(rooms, objects)
        data = {
            "format_version": FORMAT_VERSION,
            "name": t.short_name,
            "walls": "none",
            "rooms": rooms,
            "objects": objects,
            "agent": agent,
            "source": {"importer": "habitat", "dataset": self.ds.path.name,
                       "scene_instance": t.handle},
        }
        try:
            return Scene.model_validate(data)
        except ValidationError as e:
            raise ImportedSceneError([
                error("H006", f"the imported scene is not a valid fdc scene: {err['msg']}",
                      json_path(err.get("loc", ())), file=self.instance_file,
                      hint="a value of the Habitat configs fdc cannot represent")
                for err in e.errors()]) from None

    # -- stage -------------------------------------------------------------------------
    def _stage(self, inst: StageInstance) -> dict[str, Any] | None:
        name = inst.template_name
        t = self.ds.lookup("stages", name)
        if t is None:
            self._unknown("stage", name, "stage_instance.template_name")
            return None
        a = self._asset_config(t)
        if a is None:
            return None
        mesh_path = _asset(t, "render_asset", "stage")
        if mesh_path is None:
            return None
        align = asset_alignment(a.up, a.front)
        scale = np.asarray(a.scale, dtype=np.float64) * a.units_to_meters
        rot = quaternion_to_matrix(inst.rotation)
        trans = np.asarray(inst.translation, dtype=np.float64)
        v, _, _ = _mesh(mesh_path, "stage")
        world = yup_to_zup_point((v * scale) @ align.T @ rot.T + trans)
        lo, hi = world.min(axis=0), world.max(axis=0)
        centre = (lo + hi) / 2
        m_total = C @ rot @ align
        frame = _Frame(m_total, scale, C @ trans - centre)
        surfaces = self._receptacles(t, "stage", _Frame(C, np.ones(3), -centre), None)
        spec: dict[str, Any] = {
            "id": "stage",
            "category": "stage",
            "kind": "stage",
            "obstacle": False,
            "pose": {"position": _fmt(centre)},
            "size": _fmt(np.maximum(hi - lo, 1e-3)),
            "mesh": {"path": _relpath(mesh_path, self.out), "scale": _fmt(frame.s),
                     "rotation": list(matrix_to_quaternion(frame.m)), "offset": _fmt(frame.o)},
            "surfaces": surfaces,
            "source": {"template": t.handle},
        }
        return spec

    # -- rigid objects -----------------------------------------------------------------
    def _object(self, inst: ObjectInstance, default_origin: str, k: int
                ) -> dict[str, Any] | None:
        name = inst.template_name
        t = self.ds.lookup("objects", name)
        if t is None:
            self._unknown("object", name, f"object_instances[{k}].template_name")
            return None
        a = self._asset_config(t)
        if a is None:
            return None
        handle = self._handle(t)
        mesh_path = _asset(t, "render_asset", handle)
        if mesh_path is None:
            self.findings.append(error("H004", f"template `{t.handle}` has no render_asset",
                                       entities=[handle]))
            return None
        v, _, _ = _mesh(mesh_path, handle)
        align = asset_alignment(a.up, a.front)
        scale = np.asarray(a.scale, dtype=np.float64) * a.units_to_meters
        scale = scale * inst.uniform_scale * np.asarray(inst.non_uniform_scale, dtype=np.float64)
        aligned = (v * scale) @ align.T
        origin = (inst.translation_origin or default_origin).lower()
        com = np.zeros(3)
        if origin == "com":
            if a.com is not None:
                com = align @ (np.asarray(a.com, dtype=np.float64) * scale)
            else:
                com = (aligned.min(axis=0) + aligned.max(axis=0)) / 2
        local_y = aligned - com
        local = local_y @ C.T  # Z-up, not yet centred
        lo, hi = local.min(axis=0), local.max(axis=0)
        centre_local = (lo + hi) / 2
        rot_h = quaternion_to_matrix(inst.rotation)
        rz = C @ rot_h @ C.T
        trans = yup_to_zup_point(inst.translation)
        position = trans + rz @ centre_local
        frame = _Frame(C @ align, scale, -(C @ com) - centre_local)
        surfaces = self._receptacles(t, handle, frame, None)
        motion = inst.motion_type.upper()
        spec: dict[str, Any] = {
            "id": handle,
            "category": _category(t.handle),
            "pose": {"position": _fmt(position),
                     "orientation": list(matrix_to_quaternion(rz))},
            "size": _fmt(np.maximum(hi - lo, 1e-3)),
            "mesh": {"path": _relpath(mesh_path, self.out), "scale": _fmt(scale),
                     "rotation": list(matrix_to_quaternion(C @ align)), "offset": _fmt(frame.o)},
            "source": {"template": t.handle, "handle": handle,
                       "translation_origin": origin},
        }
        if motion in ("STATIC", "KINEMATIC"):
            spec["kind"] = "furniture"
        elif motion == "DYNAMIC":
            spec["kind"] = "movable"
        if surfaces:
            spec["surfaces"] = surfaces
        return spec

    def _handle(self, t: Template) -> str:
        base = t.short_name
        n = self.counts[base]
        self.counts[base] += 1
        return f"{base}_:{n:04d}"

    # -- receptacles -------------------------------------------------------------------
    def _receptacles(self, t: Template, parent: str, frame: _Frame, link_frames: dict[str, _Frame]
                     | None) -> list[dict[str, Any]]:
        import shapely

        ud = t.attributes.get("user_defined", {}) or {}
        out: list[dict[str, Any]] = []
        if not isinstance(ud, dict):
            return out
        for key in sorted(ud):
            sub = ud[key]
            if not isinstance(sub, dict) or not key.startswith(("receptacle_aabb_",
                                                                "receptacle_mesh_")):
                continue
            model = AabbReceptacle if key.startswith("receptacle_aabb_") else MeshReceptacle
            r, problems = validate(model, sub, _file(self.ds, t), f"user_defined.{key}")
            self.findings.extend(problems)
            if r is None:
                continue
            name = r.name or key
            f = frame
            if link_frames is not None and r.parent_link in link_frames:
                f = link_frames[str(r.parent_link)]
            if isinstance(r, AabbReceptacle):
                centre = np.asarray(r.position, dtype=np.float64)
                half = np.asarray(r.scale, dtype=np.float64)
                rot = quaternion_to_matrix(r.rotation)
                unit = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)],
                                dtype=np.float64)
                corners = f.apply((unit * half) @ rot.T + centre)
                z = float(corners[:, 2].min())
                hull = shapely.convex_hull(shapely.multipoints(corners[:, :2]))
                if hull.area <= 1e-9:
                    continue
                out.append({"name": name, "z": round(z, 6),
                            "polygon": [_fmt(p) for p in
                                        np.asarray(hull.exterior.coords)[:-1]]})
            else:
                mesh_file = t.base_dir / r.mesh_filepath
                if not mesh_file.is_file():
                    raise MissingAsset(mesh_file, f"{parent}|{name}")
                for i, (v, faces) in enumerate(_mesh_parts(mesh_file, f"{parent}|{name}")):
                    w = f.apply(v)
                    tri = w[np.asarray(faces, dtype=np.int64)]
                    polys = shapely.make_valid(shapely.polygons(tri[:, :, :2]))
                    poly = shapely.union_all(polys, grid_size=1e-6)
                    parts = [p for p in shapely.get_parts(poly) if p.geom_type == "Polygon"]
                    if not parts:
                        continue
                    biggest = max(parts, key=lambda p: p.area)
                    out.append({"name": f"{name}.{i:04d}", "z": round(float(w[:, 2].mean()), 6),
                                "polygon": [_fmt(p) for p in
                                            np.asarray(biggest.exterior.coords)[:-1]]})
        return out

    # -- articulated objects -----------------------------------------------------------
    def _articulated(self, inst: ArticulatedInstance, k: int) -> dict[str, Any] | None:
        name = inst.template_name
        t = self.ds.lookup("articulated_objects", name)
        if t is None:
            self._unknown("articulated object", name,
                          f"articulated_object_instances[{k}].template_name")
            return None
        handle = self._handle(t)
        spec, frames = articulated_spec(t, inst, handle, self.out)
        surfaces = self._receptacles(t, handle, frames[""], frames)
        if surfaces:
            spec["surfaces"] = surfaces
        return spec

    # -- rooms and agent ---------------------------------------------------------------
    def _rooms(self, t: Template, inst: SceneInstance) -> list[dict[str, Any]]:
        ref = inst.semantic_scene_instance or self.ds.scene_defaults.get(
            "semantic_scene_instance")
        if not ref:
            return []
        ref = str(ref).replace("%%CONFIG_NAME_AS_ASSET_FILENAME%%", t.short_name)
        path: Path | None = None
        sem = self.ds.lookup("semantic_scene_descriptor_instances", ref)
        if sem is not None and sem.source is not None:
            path = sem.source
        else:
            target = self.ds.named_semantics.get(ref, ref)
            path = self.ds.root / target
        if not path.is_file():
            e = MissingAsset(path, f"{t.short_name}.semantic_scene_instance")
            self._missing(e)
            return []
        try:
            data = read_json(path)
        except ConfigError as ex:
            self.findings.append(ex.diagnostic)
            return []
        regions = data.get("region_annotations", []) if isinstance(data, dict) else None
        if not isinstance(regions, list):
            self.findings.append(error("H005", "a semantic config's `region_annotations` is a "
                                       "list", "region_annotations", file=str(path)))
            return []
        rooms = []
        used: Counter[str] = Counter()
        for k, raw in enumerate(regions):
            r, problems = validate(Region, raw, str(path), f"region_annotations[{k}]")
            self.findings.extend(problems)
            if r is None or len(r.poly_loop) < 3:
                continue
            loop = np.asarray(r.poly_loop, dtype=np.float64)
            ident = region_id(r.name)
            if used[ident]:
                ident = f"{ident}_{used[ident]}"
            used[ident] += 1
            floor = r.floor_height if r.floor_height is not None else float(loop[0, 1])
            rooms.append({
                "id": ident,
                "category": r.label or "room",
                "name": r.name,
                "polygon": [[round(float(x), 6), round(float(-z), 6)] for x, _, z in loop],
                "floor_z": round(floor, 6),
                "height_m": round(r.extrusion_height, 6),
            })
        return rooms

    @staticmethod
    def _agent(rooms: list[dict[str, Any]], objects: list[dict[str, Any]]) -> dict[str, Any]:
        import shapely

        if rooms:
            p = shapely.Polygon(rooms[0]["polygon"]).representative_point()
            return {"position": [round(p.x, 6), round(p.y, 6), rooms[0]["floor_z"]]}
        for o in objects:
            if o["id"] == "stage":
                x, y, z = o["pose"]["position"]
                return {"position": [x, y, round(z - o["size"][2] / 2, 6)]}
        return {"position": [0.0, 0.0, 0.0]}


def articulated_spec(t: Template, inst: ArticulatedInstance, handle: str, out: Path
                     ) -> tuple[dict[str, Any], dict[str, _Frame]]:
    """An articulated object from its URDF: one part per link with geometry (mesh
    bounds, else collision boxes) and joints; and each link's frame in the object's
    (fdc local, centred), `""` the root's, where its ao_config's receptacles sit."""
    urdf_path = t.source if t.source is not None and t.source.suffix == ".urdf" else None
    if urdf_path is None and "urdf_filepath" in t.attributes:
        urdf_path = t.base_dir / str(t.attributes["urdf_filepath"])
    if urdf_path is None or not urdf_path.is_file():
        raise MissingAsset(urdf_path or t.base_dir, handle)
    try:
        robot = read_urdf(urdf_path)
    except (ValueError, InputFileError) as e:
        raise MissingAsset(urdf_path, f"{handle} ({e})") from e
    pose = inst.initial_joint_pose or {}
    positions = ({j.name: float(pose[i]) for i, j in enumerate(robot.joints) if i < len(pose)}
                 if isinstance(pose, list) else dict(pose))
    fk = robot.link_transforms(positions)
    scale = inst.uniform_scale
    link_pts: dict[str, Array] = {}
    for link in robot.links:
        pts: list[Array] = []
        for vis in robot.visuals.get(link, []):
            if vis.mesh is not None:
                if not vis.mesh.is_file():
                    raise MissingAsset(vis.mesh, f"{handle} (link `{link}`)")
                v, _, _ = _mesh(vis.mesh, f"{handle} (link `{link}`)")
                m = fk[link] @ vis.origin
                pts.append((v * np.asarray(vis.scale)) @ m[:3, :3].T + m[:3, 3])
        if not pts:
            for col in robot.collisions.get(link, []):
                if col.box is not None:
                    half = np.asarray(col.box) / 2
                    unit = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1)
                                     for z in (-1, 1)], dtype=np.float64)
                    m = fk[link] @ col.origin
                    pts.append((unit * half) @ m[:3, :3].T + m[:3, 3])
        if pts:
            link_pts[link] = (np.concatenate(pts) * scale) @ C.T
    if not link_pts:
        raise MissingAsset(urdf_path, f"{handle} (no link geometry)")
    allp = np.concatenate(list(link_pts.values()))
    lo, hi = allp.min(axis=0), allp.max(axis=0)
    centre = (lo + hi) / 2
    rot_h = quaternion_to_matrix(inst.rotation)
    rz = C @ rot_h @ C.T
    position = yup_to_zup_point(inst.translation) + rz @ centre
    joints = {j.child: j for j in robot.joints}
    parts = []
    for link in robot.links:
        if link not in link_pts:
            continue
        p = link_pts[link]
        plo, phi = p.min(axis=0), p.max(axis=0)
        part: dict[str, Any] = {"name": link, "center": _fmt((plo + phi) / 2 - centre),
                                "size": _fmt(np.maximum(phi - plo, 1e-3))}
        j = joints.get(link)
        if j is not None and j.type in ("fixed", "revolute", "prismatic", "continuous"):
            axis_world = C @ (fk[link][:3, :3] @ np.asarray(j.axis, dtype=np.float64))
            part["joint"] = {"type": j.type,
                             "axis": _fmt(axis_world / max(np.linalg.norm(axis_world), 1e-12)),
                             "lower": j.lower, "upper": j.upper,
                             "position": positions.get(j.name, 0.0)}
            if j.parent in link_pts:
                part["joint"]["parent"] = j.parent
        parts.append(part)
    spec: dict[str, Any] = {
        "id": handle,
        "category": _category(t.handle),
        "kind": "articulated",
        "pose": {"position": _fmt(position), "orientation": list(matrix_to_quaternion(rz))},
        "size": _fmt(np.maximum(hi - lo, 1e-3)),
        "parts": parts,
        "source": {"template": t.handle, "handle": handle, "urdf": _relpath(urdf_path, out),
                   "links": ",".join(robot.links), "root_link": robot.root},
    }
    if inst.fixed_base:
        spec["source"]["fixed_base"] = "true"
    frames = {link: _Frame(C @ m[:3, :3], np.full(3, scale), scale * (C @ m[:3, 3]) - centre)
              for link, m in fk.items()}
    frames[""] = frames.get(robot.root, _Frame(C, np.full(3, scale), -centre))
    return spec, frames
