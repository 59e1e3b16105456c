"""Every limit fdc holds where input enters it, as one frozen value: `Limits`.

Third-party templates, scenes, logs and suites are read unattended, so each way an input
could make fdc read, build or render without end has a named limit here, with its default
and what it bounds (docs/limits.md lists them all). A limit reached is an input error
naming the limit and the flag that raises it: `fdc --limit NAME=VALUE`.

The library reads the limits in effect with `current()`; the CLI sets them once per
command with `set_current`, and tests set and reset them the same way (`set_current`
returns the limits it replaced).
"""

from __future__ import annotations

import difflib
import math
from dataclasses import dataclass, fields, replace

from fdc.core.errors import FdcError

_MB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """The limits in effect; each field is one limit (its docstring says what it bounds)."""

    scene_bytes: int = 256 * _MB
    """Size of a scene file (scene.json)."""
    template_bytes: int = 4 * _MB
    """Size of a template file (.pddl) or an instruction variants file."""
    suite_bytes: int = 512 * _MB
    """Size of a suite file (suite.jsonl)."""
    manifest_bytes: int = 64 * _MB
    """Size of a manifest (manifest.json)."""
    trajectory_bytes: int = 512 * _MB
    """Size of a trajectory file (snapshots, JSONL)."""
    predictions_bytes: int = 512 * _MB
    """Size of a predictions file (JSONL)."""
    experience_bytes: int = 256 * _MB
    """Size of an experience log."""
    episodes_bytes: int = 512 * _MB
    """Size of a PARTNR or Habitat episodes file, after gzip decompression (what is
    unpacked is held in memory, so this bounds the memory a gzip bomb can take)."""
    habitat_config_bytes: int = 64 * _MB
    """Size of a Habitat config file (scene instance, object, stage, dataset config)."""
    urdf_bytes: int = 16 * _MB
    """Size of a URDF file (an articulated object of a Habitat dataset)."""
    mesh_bytes: int = 256 * _MB
    """Size of a mesh file a scene names (checked before the mesh is parsed)."""
    json_depth: int = 100
    """Nesting of arrays and objects in any JSON input (fdc's formats nest under 10)."""
    number_digits: int = 100
    """Characters of one number in a JSON input or a template (a double has 17 digits)."""
    paren_depth: int = 200
    """Nesting of parentheses in a template. Real PDDL nests a few dozen levels; the
    limit keeps every later pass (checker, printer, AST equality) far from Python's
    stack limit."""
    scene_objects: int = 20_000
    """Objects in a scene, counted before they are validated. Real scenes hold hundreds
    to a few thousand (an HSSD house a few hundred object instances)."""
    coordinate_m: float = 10_000.0
    """The absolute value of every coordinate and size of a scene, in metres (a house is
    tens of metres across; a 1e308 m box overflows the geometry)."""
    nav_cells: int = 500_000
    """Cells of the navigation grid (0.1 m cells over the floor's box: 70 m x 70 m, about
    1.2 GB at the limit). A larger floor is an error, not a coarser grid: the cell size
    sets every walk length fdc reports."""
    footprint_overlaps: int = 100_000
    """Pairs of objects whose footprints overlap (the building shell aside); past it,
    every pass comparing objects turns quadratic."""
    interpenetration_warnings: int = 1_000
    """Interpenetration warnings listed one by one; the rest are counted in one more."""
    trajectory_problems: int = 100
    """Problems listed for one trajectory before reading stops."""
    template_bindings: int = 1_000_000
    """Bindings of one template considered on one scene: the partial bindings the search
    explores, and the product of its parameters' domain sizes when every binding is
    wanted (no `--max-per-template`)."""
    goal_atoms: int = 100_000
    """Atoms of one ground goal (or constraint), counted before an expansion is built."""
    quantifier_instances: int = 10_000_000
    """Instances of one quantifier or counting expansion (the product of its domain
    sizes), counted before enumerating them."""
    plan_rounds: int = 8
    """Plans one planning certificate tries (`fdc validate --solve`, `fdc audit`): each
    one the embedded world refuses for lack of room forbids that placement and plans
    again."""
    replay_spots: int = 100
    """Combinations of the world's spots a plan's replay tries (`sim_bridge/world/plans.py`)
    when the world refuses a placement for lack of room: the placements that put the
    surface's occupants there, each anywhere its action allows (a plain `place` in each
    cell, a `place-around` at each side of the anchor)."""
    render_chars: int = 10_000
    """Characters of one rendered instruction."""
    render_depth: int = 20
    """Nested macro calls (recursion) while rendering one instruction."""
    render_steps: int = 100_000
    """Loop iterations while rendering one instruction (nested loops multiply)."""
    render_seconds: float = 2.0
    """Time to render one instruction."""

    def with_setting(self, assignment: str) -> Limits:
        """These limits with `NAME=VALUE` applied (`LimitError` naming the fault)."""
        name, sep, value = assignment.partition("=")
        name = name.strip().replace("-", "_")
        if not sep or not name:
            raise LimitError(f"--limit wants NAME=VALUE, not `{assignment}`",
                             "e.g. `fdc --limit scene_bytes=512M ...`; names: "
                             + ", ".join(limit_names()))
        if name not in limit_names():
            close = difflib.get_close_matches(name, limit_names(), n=1)
            hint = f"did you mean `{close[0]}`?" if close else \
                "names: " + ", ".join(limit_names())
            raise LimitError(f"unknown limit `{name}`", hint)
        return replace(self, **{name: _value(name, value.strip(), type(getattr(self, name)))})


class LimitError(FdcError, ValueError):
    """A `--limit` setting that names no limit or gives no valid value."""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


def limit_names() -> list[str]:
    """The names of every limit, in the order `Limits` declares them."""
    return [f.name for f in fields(Limits)]


def hint(name: str) -> str:
    """How to raise limit `name` (for an error message's hint)."""
    return f"raise the limit with `fdc --limit {name}=N ...` (now {getattr(_current, name)})"


_SUFFIXES = {"k": 1024, "m": _MB, "g": 1024 * _MB}
_UNITS = {"seconds": "seconds", "m": "metres"}  # a float limit's unit, from its name


def _value(name: str, text: str, kind: type) -> int | float:
    """A limit's value: a positive integer (byte limits also take K, M, G suffixes), or a
    positive finite number (seconds, metres)."""
    scale = 1
    if kind is int and name.endswith("_bytes") and text[-1:].lower() in _SUFFIXES:
        scale, text = _SUFFIXES[text[-1].lower()], text[:-1]
    try:
        number: int | float = int(text) * scale if kind is int else float(text)
    except ValueError:
        number = -1
    if number <= 0 or not math.isfinite(number):
        what = "a positive integer" + (" (K, M, G suffixes allowed)"
                                       if name.endswith("_bytes") else "") \
            if kind is int else f"a positive number of {_UNITS[name.rpartition('_')[2]]}"
        raise LimitError(f"limit `{name}` wants {what}, not `{text}`")
    return number


_current = Limits()


def current() -> Limits:
    """The limits in effect."""
    return _current


def set_current(limits: Limits) -> Limits:
    """Put `limits` in effect for this process; returns the limits they replace."""
    global _current
    previous, _current = _current, limits
    return previous
