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
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from fdc.core.errors import FdcError
from fdc.core.inputs import InputFileError
from fdc.core.problems import Diagnostic, error, warning
from fdc.sim_bridge.geometry import Array, matrix_to_quaternion, quaternion_to_matrix
from fdc.sim_bridge.habitat.dataset import Dataset, Template, load_dataset, read_json, short_name
from fdc.sim_bridge.habitat.urdf import read_urdf
from fdc.sim_bridge.scene.schema import FORMAT_VERSION, Scene

#: Habitat (Y-up) to fdc (Z-up).
C = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]])


class MissingAsset(FdcError):
    def __init__(self, path: Path, needed_by: str) -> None:
        super().__init__(f"missing asset `{path}` needed by `{needed_by}`")
        self.path = path
        self.needed_by = needed_by


@dataclass
class ImportResult:
    scene: Scene | None
    findings: list[Diagnostic] = field(default_factory=list)

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


@lru_cache(maxsize=256)
def _mesh_data(path: str) -> tuple[Array, Array, int]:
    """Vertices, faces (concatenated over the file's meshes) and the sub-mesh count."""
    import trimesh

    loaded = trimesh.load(path, process=False)
    if isinstance(loaded, trimesh.Scene):
        count = len(loaded.geometry)
        mesh = loaded.to_mesh() if hasattr(loaded, "to_mesh") else loaded.dump(concatenate=True)
    else:
        count = 1
        mesh = loaded
    return np.asarray(mesh.vertices, dtype=np.float64), np.asarray(mesh.faces), count


def _submeshes(path: str) -> list[tuple[Array, Array]]:
    import trimesh

    loaded = trimesh.load(path, process=False)
    if isinstance(loaded, trimesh.Scene):
        out = []
        for node in sorted(loaded.graph.nodes_geometry):
            transform, name = loaded.graph[node]
            g = loaded.geometry[name]
            v = np.asarray(g.vertices, dtype=np.float64)
            v = v @ np.asarray(transform)[:3, :3].T + np.asarray(transform)[:3, 3]
            out.append((v, np.asarray(g.faces)))
        return out
    return [(np.asarray(loaded.vertices, dtype=np.float64), np.asarray(loaded.faces))]


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
    if t is None:
        known = ", ".join(short_name(h) for h in ds.handles("scene_instances")) or "none"
        return ImportResult(None, [*findings, error(
            "H002", f"no scene instance `{scene_name}` in the dataset (known: {known})")])
    inst = t.attributes
    importer = _Importer(ds, out, allow_missing, findings)
    try:
        scene = importer.run(t, inst)
    except MissingAsset as e:
        missing = error("H001", str(e), entities=[e.needed_by])
        return ImportResult(None, [*importer.findings, missing])
    return ImportResult(scene, importer.findings)


class _Importer:
    def __init__(self, ds: Dataset, out: Path, allow_missing: bool, findings: list[Diagnostic]):
        self.ds = ds
        self.out = out
        self.allow_missing = allow_missing
        self.findings = findings
        self.counts: Counter[str] = Counter()

    def _missing(self, e: MissingAsset) -> None:
        if not self.allow_missing:
            raise e
        self.findings.append(warning("H001", f"{e}; skipped", entities=[e.needed_by]))

    def run(self, t: Template, inst: dict[str, Any]) -> Scene:
        default_origin = str(inst.get("translation_origin", "asset_local")).lower()
        objects: list[dict[str, Any]] = []
        stage = inst.get("stage_instance") or {}
        if stage.get("template_name"):
            try:
                s = self._stage(stage)
                if s is not None:
                    objects.append(s)
            except MissingAsset as e:
                self._missing(e)
        for k, o in enumerate(inst.get("object_instances", []) or []):
            try:
                spec = self._object(o, default_origin, k)
                if spec is not None:
                    objects.append(spec)
            except MissingAsset as e:
                self._missing(e)
        for k, o in enumerate(inst.get("articulated_object_instances", []) or []):
            try:
                spec = self._articulated(o, k)
                if spec is not None:
                    objects.append(spec)
            except MissingAsset as e:
                self._missing(e)
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
        return Scene.model_validate(data)

    # -- stage -------------------------------------------------------------------------
    def _stage(self, inst: dict[str, Any]) -> dict[str, Any] | None:
        name = str(inst["template_name"])
        t = self.ds.lookup("stages", name)
        if t is None:
            self.findings.append(
                error("H002", f"unknown stage template `{name}`", "stage_instance"))
            return None
        a = t.attributes
        mesh_path = _asset(t, "render_asset", "stage")
        if mesh_path is None:
            return None
        align = asset_alignment(a.get("up", [0, 1, 0]), a.get("front", [0, 0, -1]))
        scale = np.asarray(a.get("scale", [1, 1, 1]), dtype=np.float64) * float(
            a.get("units_to_meters", 1.0))
        rot = quaternion_to_matrix(inst.get("rotation", [1, 0, 0, 0]))
        trans = np.asarray(inst.get("translation", [0, 0, 0]), dtype=np.float64)
        v, _, _ = _mesh_data(str(mesh_path))
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
    def _object(self, inst: dict[str, Any], default_origin: str, k: int
                ) -> dict[str, Any] | None:
        name = str(inst.get("template_name", ""))
        t = self.ds.lookup("objects", name)
        if t is None:
            self.findings.append(error("H002", f"unknown object template `{name}`",
                                       f"object_instances[{k}].template_name"))
            return None
        handle = self._handle(t)
        a = t.attributes
        mesh_path = _asset(t, "render_asset", handle)
        if mesh_path is None:
            self.findings.append(error("H004", f"template `{t.handle}` has no render_asset",
                                       entities=[handle]))
            return None
        v, _, _ = _mesh_data(str(mesh_path))
        align = asset_alignment(a.get("up", [0, 1, 0]), a.get("front", [0, 0, -1]))
        scale = np.asarray(a.get("scale", [1, 1, 1]), dtype=np.float64) * float(
            a.get("units_to_meters", 1.0))
        scale = scale * float(inst.get("uniform_scale", 1.0))
        scale = scale * np.asarray(inst.get("non_uniform_scale", [1, 1, 1]), dtype=np.float64)
        aligned = (v * scale) @ align.T
        origin = str(inst.get("translation_origin", default_origin)).lower()
        com = np.zeros(3)
        if origin == "com":
            if "COM" in a:
                com = align @ (np.asarray(a["COM"], dtype=np.float64) * scale)
            else:
                com = (aligned.min(axis=0) + aligned.max(axis=0)) / 2
        local_y = aligned - com
        local = local_y @ C.T  # Z-up, not yet centred
        lo, hi = local.min(axis=0), local.max(axis=0)
        centre_local = (lo + hi) / 2
        rot_h = quaternion_to_matrix(inst.get("rotation", [1, 0, 0, 0]))
        rz = C @ rot_h @ C.T
        trans = yup_to_zup_point(inst.get("translation", [0, 0, 0]))
        position = trans + rz @ centre_local
        frame = _Frame(C @ align, scale, -(C @ com) - centre_local)
        surfaces = self._receptacles(t, handle, frame, None)
        motion = str(inst.get("motion_type", "")).upper()
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
        for key in sorted(ud):
            sub = ud[key]
            if not isinstance(sub, dict) or not key.startswith(("receptacle_aabb_",
                                                                "receptacle_mesh_")):
                continue
            name = str(sub.get("name", key))
            f = frame
            if link_frames is not None and sub.get("parent_link") in link_frames:
                f = link_frames[str(sub["parent_link"])]
            if key.startswith("receptacle_aabb_"):
                centre = np.asarray(sub.get("position", [0, 0, 0]), dtype=np.float64)
                half = np.asarray(sub.get("scale", [0, 0, 0]), dtype=np.float64)
                rot = quaternion_to_matrix(sub.get("rotation", [1, 0, 0, 0]))
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
                mesh_file = t.base_dir / str(sub.get("mesh_filepath", ""))
                if not mesh_file.is_file():
                    raise MissingAsset(mesh_file, f"{parent}|{name}")
                for i, (v, faces) in enumerate(_submeshes(str(mesh_file))):
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
    def _articulated(self, inst: dict[str, Any], k: int) -> dict[str, Any] | None:
        name = str(inst.get("template_name", ""))
        t = self.ds.lookup("articulated_objects", name)
        if t is None:
            self.findings.append(error("H002", f"unknown articulated object template `{name}`",
                                       f"articulated_object_instances[{k}].template_name"))
            return None
        return articulated_spec(t, inst, self._handle(t), self.out)

    # -- rooms and agent ---------------------------------------------------------------
    def _rooms(self, t: Template, inst: dict[str, Any]) -> list[dict[str, Any]]:
        ref = inst.get("semantic_scene_instance") or self.ds.scene_defaults.get(
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
        except (InputFileError, json.JSONDecodeError) as ex:
            self.findings.append(error("H003", f"cannot read `{path}`: {ex}"))
            return []
        rooms = []
        used: Counter[str] = Counter()
        for r in data.get("region_annotations", []) or []:
            loop = np.asarray(r.get("poly_loop", []), dtype=np.float64).reshape(-1, 3)
            if len(loop) < 3:
                continue
            ident = re.sub(r"[^A-Za-z0-9_.:\-]", "_", str(r.get("name", "region"))) or "region"
            if used[ident]:
                ident = f"{ident}_{used[ident]}"
            used[ident] += 1
            rooms.append({
                "id": ident,
                "category": str(r.get("label", "room")) or "room",
                "name": str(r.get("name", ident)),
                "polygon": [[round(float(x), 6), round(float(-z), 6)] for x, _, z in loop],
                "floor_z": round(float(r.get("floor_height", loop[0, 1])), 6),
                "height_m": round(float(r.get("extrusion_height", 2.5)), 6),
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


def articulated_spec(t: Template, inst: dict[str, Any], handle: str, out: Path
                     ) -> dict[str, Any]:
    """An articulated object from its URDF: one part per link with geometry (mesh
    bounds, else collision boxes), joints, and receptacles of its ao_config."""
    urdf_path = t.source if t.source is not None and t.source.suffix == ".urdf" else None
    if urdf_path is None and "urdf_filepath" in t.attributes:
        urdf_path = t.base_dir / str(t.attributes["urdf_filepath"])
    if urdf_path is None or not urdf_path.is_file():
        raise MissingAsset(urdf_path or t.base_dir, handle)
    try:
        robot = read_urdf(urdf_path)
    except (ValueError, OSError) as e:
        raise MissingAsset(urdf_path, f"{handle} ({e})") from e
    pose = inst.get("initial_joint_pose") or {}
    positions = ({j.name: float(pose[i]) for i, j in enumerate(robot.joints) if i < len(pose)}
                 if isinstance(pose, list) else {str(k): float(v) for k, v in pose.items()})
    fk = robot.link_transforms(positions)
    scale = float(inst.get("uniform_scale", 1.0))
    link_pts: dict[str, Array] = {}
    for link in robot.links:
        pts: list[Array] = []
        for vis in robot.visuals.get(link, []):
            if vis.mesh is not None:
                if not vis.mesh.is_file():
                    raise MissingAsset(vis.mesh, f"{handle} (link `{link}`)")
                v, _, _ = _mesh_data(str(vis.mesh))
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
    rot_h = quaternion_to_matrix(inst.get("rotation", [1, 0, 0, 0]))
    rz = C @ rot_h @ C.T
    position = yup_to_zup_point(inst.get("translation", [0, 0, 0])) + rz @ centre
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
                   "links": ",".join(robot.links)},
    }
    if bool(inst.get("fixed_base", False)):
        spec["source"]["fixed_base"] = "true"
    return spec
