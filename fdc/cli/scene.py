"""`fdc scene ...` and `fdc import habitat`: thin commands over `fdc.sim_bridge`.

Exit codes: 0 ok, 1 findings (warnings about the scene or the import), 2 usage or input
error (a file that cannot be read or does not validate).
"""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from fdc.cli.common import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, stderr

if TYPE_CHECKING:
    from fdc.core.problems import Diagnostic
    from fdc.sim_bridge.graph.scene_graph import SceneGraph

scene_app = typer.Typer(help="Generate, inspect and render scenes.", no_args_is_help=True)
import_app = typer.Typer(help="Import scenes and tasks from other formats.", no_args_is_help=True)



class OutputFormat(StrEnum):
    text = "text"
    json = "json"


def _report(findings: list[Diagnostic], file: str = "") -> None:
    from fdc.core.problems import render_text

    err = stderr()
    for f in findings:
        err.print(render_text(f.in_file(file)), markup=False)


def _load_graph(path: Path) -> SceneGraph:
    """Load and build, or exit 2 with every input error reported."""
    from fdc.sim_bridge.graph.scene_graph import build_scene_graph
    from fdc.sim_bridge.scene.load import load_scene

    result = load_scene(path)
    errors = [f for f in result.findings if f.is_error]
    if result.scene is None or errors:
        _report(result.findings, str(path))
        raise typer.Exit(EXIT_USAGE)
    graph = build_scene_graph(result.scene, base_dir=path.parent)
    graph.findings[:0] = result.findings
    return graph


@scene_app.command()
def inspect(
    scene: Annotated[Path, typer.Argument(help="A scene.json file.")],
    output_format: Annotated[
        OutputFormat, typer.Option("--format", help="text for people, json for machines.")
    ] = OutputFormat.text,
) -> None:
    """Summarise a scene: rooms, furniture, surfaces, regions, standing points, warnings."""
    from fdc.core.problems import to_finding_json

    g = _load_graph(scene)
    summary = g.summary()
    if output_format is OutputFormat.json:
        report = {
            "summary": summary,
            "timings_s": {k: round(v, 4) for k, v in g.timings.items()},
            "findings": [to_finding_json(f) for f in g.findings],
        }
        sys.stdout.write(json.dumps(report, indent=2) + "\n")
    else:
        out = sys.stdout
        out.write(f"scene {summary['scene']}\n")
        for key in (
            "rooms",
            "doors",
            "objects",
            "categories",
            "surfaces",
            "containers",
            "occupied_surfaces",
            "anchor_regions",
            "empty_surface_cells",
            "standing_points",
            "reachable_standing_points",
            "nav_nodes",
            "nav_edges",
            "max_depth",
        ):
            out.write(f"  {key.replace('_', ' ')}: {summary[key]}\n")
        out.write("  kinds: " + ", ".join(f"{k} {v}" for k, v in summary["kinds"].items()) + "\n")
        for r in g.rooms():
            furniture = sum(1 for i in r.objects if not g.object(i).is_movable)
            out.write(
                f"  room {r.id} ({r.category}): {furniture} furniture, "
                f"{len(r.objects) - furniture} items\n"
            )
        _report(g.findings, str(scene))
    raise typer.Exit(EXIT_FINDINGS if g.findings else EXIT_OK)


@scene_app.command()
def render(
    scene: Annotated[Path, typer.Argument(help="A scene.json file.")],
    output: Annotated[Path, typer.Option("-o", "--output", help="The map (.png or .svg).")],
    graph: Annotated[
        Path | None, typer.Option("--graph", help="Also write the support tree (.svg).")
    ] = None,
    dpi: Annotated[int, typer.Option(help="Resolution of a PNG map.")] = 150,
    no_regions: Annotated[bool, typer.Option("--no-regions", help="Leave regions out.")] = False,
) -> None:
    """Draw a top-down map of the scene (and its support tree)."""
    from fdc.core.files import write_atomic
    from fdc.sim_bridge.pictures import render_map, render_support_tree

    fmt = output.suffix.lower().lstrip(".")
    if fmt not in ("png", "svg"):
        stderr().print(f"error: the map must be .png or .svg, not `{output.name}`")
        raise typer.Exit(EXIT_USAGE)
    g = _load_graph(scene)
    write_atomic(output, render_map(g, dpi=dpi, fmt=fmt, show_regions=not no_regions))
    if graph is not None:
        write_atomic(graph, render_support_tree(g))
    _report(g.findings, str(scene))
    raise typer.Exit(EXIT_OK)


@scene_app.command()
def generate(
    output: Annotated[Path, typer.Option("-o", "--output", help="Where to write scene.json.")],
    rooms: Annotated[int, typer.Option("--rooms", min=1, max=500)] = 6,
    objects: Annotated[int, typer.Option("--objects", min=1, max=5000)] = 150,
    seed: Annotated[int, typer.Option("--seed")] = 0,
) -> None:
    """Generate a scene of R rooms and about N objects (deterministic for a seed)."""
    from fdc.core.files import write_atomic
    from fdc.sim_bridge.scene.generate import generate_scene

    scene = generate_scene(rooms, objects, seed)
    write_atomic(output, scene.to_json())
    stderr().print(f"wrote {output}: {len(scene.rooms)} rooms, {len(scene.objects)} objects")
    raise typer.Exit(EXIT_OK)


@import_app.command()
def habitat(
    dataset_config: Annotated[Path, typer.Argument(help="A *.scene_dataset_config.json.")],
    scene: Annotated[str, typer.Option("--scene", help="The scene instance to import.")],
    output: Annotated[Path, typer.Option("-o", "--output", help="Where to write scene.json.")],
    allow_missing: Annotated[
        bool, typer.Option("--allow-missing", help="Skip missing assets with a warning.")
    ] = False,
) -> None:
    """Import a Habitat scene (no habitat-sim needed): objects, articulated objects,
    receptacles, rooms; Y-up to Z-up."""
    from fdc.core.files import write_atomic
    from fdc.sim_bridge.habitat import import_habitat

    if not dataset_config.is_file():
        stderr().print(f"{dataset_config}: error: no such file")
        raise typer.Exit(EXIT_USAGE)
    result = import_habitat(dataset_config, scene, output.parent, allow_missing)
    _report(result.findings, str(dataset_config))
    if result.scene is None or any(f.is_error for f in result.findings):
        raise typer.Exit(EXIT_USAGE)
    write_atomic(output, result.scene.to_json())
    stderr().print(
        f"wrote {output}: {len(result.scene.rooms)} rooms, {len(result.scene.objects)} objects"
    )
    raise typer.Exit(EXIT_FINDINGS if result.findings else EXIT_OK)
