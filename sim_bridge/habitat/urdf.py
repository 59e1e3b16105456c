"""URDF links and joints (the subset Habitat's articulated objects use), with forward
kinematics to place each link.

A URDF is read through fdc's input reader (a regular file, at most the limit
`urdf_bytes`) and may declare no DOCTYPE: URDF needs none, and a document type's entity
declarations are how a small XML file expands to gigabytes ("billion laughs") or reads
other files (external entities). Expat refuses neither on its own in every version.
See docs/habitat.md."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from xml.parsers import expat

import numpy as np

from fdc.core.errors import FdcError
from fdc.core.inputs import InputKind, read_input_text
from fdc.sim_bridge.geometry import Array


@dataclass(frozen=True)
class Visual:
    origin: Array  # 4x4 in the link frame
    mesh: Path | None
    scale: tuple[float, float, float]
    box: tuple[float, float, float] | None


@dataclass(frozen=True)
class Joint:
    name: str
    type: str
    parent: str
    child: str
    origin: Array  # 4x4, child joint frame in the parent link frame
    axis: tuple[float, float, float]
    lower: float
    upper: float


@dataclass
class Robot:
    name: str
    links: list[str]
    visuals: dict[str, list[Visual]] = field(default_factory=dict)
    collisions: dict[str, list[Visual]] = field(default_factory=dict)
    joints: list[Joint] = field(default_factory=list)

    @property
    def root(self) -> str:
        children = {j.child for j in self.joints}
        roots = [n for n in self.links if n not in children]
        return roots[0] if roots else self.links[0]

    def link_transforms(self, positions: dict[str, float] | None = None) -> dict[str, Array]:
        """World-of-the-robot 4x4 transform of each link at the given joint values."""
        positions = positions or {}
        out = {self.root: np.eye(4)}
        pending = list(self.joints)
        for _ in range(len(pending) + 1):
            rest = []
            for j in pending:
                if j.parent not in out:
                    rest.append(j)
                    continue
                q = positions.get(j.name, 0.0)
                motion = np.eye(4)
                axis = np.asarray(j.axis, dtype=np.float64)
                if j.type in ("revolute", "continuous"):
                    motion[:3, :3] = _axis_angle(axis, q)
                elif j.type == "prismatic":
                    motion[:3, 3] = axis * q
                out[j.child] = out[j.parent] @ j.origin @ motion
            pending = rest
            if not pending:
                break
        return out


def _axis_angle(axis: Array, angle: float) -> Array:
    n = np.linalg.norm(axis)
    if n < 1e-12:
        return np.eye(3)
    x, y, z = axis / n
    c, s = math.cos(angle), math.sin(angle)
    t = 1 - c
    return np.array([[t * x * x + c, t * x * y - s * z, t * x * z + s * y],
                     [t * x * y + s * z, t * y * y + c, t * y * z - s * x],
                     [t * x * z - s * y, t * y * z + s * x, t * z * z + c]])


def _origin(el: ET.Element | None) -> Array:
    m = np.eye(4)
    if el is None:
        return m
    xyz = [float(v) for v in (el.get("xyz") or "0 0 0").split()]
    r, p, y = (float(v) for v in (el.get("rpy") or "0 0 0").split())
    rx = np.array([[1, 0, 0], [0, math.cos(r), -math.sin(r)], [0, math.sin(r), math.cos(r)]])
    ry = np.array([[math.cos(p), 0, math.sin(p)], [0, 1, 0], [-math.sin(p), 0, math.cos(p)]])
    rz = np.array([[math.cos(y), -math.sin(y), 0], [math.sin(y), math.cos(y), 0], [0, 0, 1]])
    m[:3, :3] = rz @ ry @ rx
    m[:3, 3] = xyz
    return m


def _geometry(el: ET.Element, base: Path) -> Visual | None:
    geom = el.find("geometry")
    if geom is None:
        return None
    origin = _origin(el.find("origin"))
    mesh = geom.find("mesh")
    if mesh is not None and mesh.get("filename"):
        scale = tuple(float(v) for v in (mesh.get("scale") or "1 1 1").split())
        return Visual(origin, base / str(mesh.get("filename")), scale, None)  # type: ignore[arg-type]
    box = geom.find("box")
    if box is not None and box.get("size"):
        size = tuple(float(v) for v in str(box.get("size")).split())
        return Visual(origin, None, (1.0, 1.0, 1.0), size)  # type: ignore[arg-type]
    return None


def read_urdf(path: Path) -> Robot:
    """Parse a URDF file (`InputFileError` when it cannot be read; ValueError on
    malformed XML or a DOCTYPE)."""
    text = read_input_text(path, InputKind.URDF)
    _refuse_doctype(text)
    try:
        root = ET.fromstring(text)
    except ET.ParseError as e:
        raise ValueError(f"malformed URDF: {e}") from e
    robot = Robot(root.get("name") or path.stem, [])
    for link in root.findall("link"):
        name = link.get("name") or ""
        robot.links.append(name)
        robot.visuals[name] = [v for v in (_geometry(e, path.parent)
                                           for e in link.findall("visual")) if v]
        robot.collisions[name] = [v for v in (_geometry(e, path.parent)
                                              for e in link.findall("collision")) if v]
    for j in root.findall("joint"):
        limit = j.find("limit")
        axis_el = j.find("axis")
        axis = tuple(float(v) for v in ((axis_el.get("xyz") if axis_el is not None else None)
                                        or "1 0 0").split())
        parent_el, child_el = j.find("parent"), j.find("child")
        robot.joints.append(Joint(
            name=j.get("name") or "",
            type=j.get("type") or "fixed",
            parent=parent_el.get("link", "") if parent_el is not None else "",
            child=child_el.get("link", "") if child_el is not None else "",
            origin=_origin(j.find("origin")),
            axis=axis,  # type: ignore[arg-type]
            lower=float(limit.get("lower", 0.0)) if limit is not None else 0.0,
            upper=float(limit.get("upper", 0.0)) if limit is not None else 0.0,
        ))
    return robot


class _Doctype(FdcError):
    """Raised from expat's handler to stop at a DOCTYPE."""


def _refuse_doctype(text: str) -> None:
    """ValueError when `text` declares a document type (where entities are declared),
    found by expat before any entity could be expanded."""
    def stop(*_: object) -> None:
        raise _Doctype

    scan = expat.ParserCreate()
    scan.StartDoctypeDeclHandler = stop
    try:
        scan.Parse(text, True)
    except _Doctype:
        raise ValueError("malformed URDF: a DOCTYPE (entity declarations) is not "
                         "allowed") from None
    except expat.ExpatError as e:
        raise ValueError(f"malformed URDF: {e}") from None
