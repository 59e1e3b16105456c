"""`fdc scene ...`: generate, inspect and render scenes (thin commands over
`fdc.sim_bridge`).

Exit codes: 0 ok, 1 findings (warnings about the scene), 2 usage or input error (a file
that cannot be read or does not validate).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from fdc.sim_bridge.graph.scene_graph import SceneGraph

from fdc.cli.common import (
    EXIT_FINDINGS,
    EXIT_OK,
    EXIT_USAGE,
    OutputFormat,
    console,
    file_option,
    graph_or_exit,
    report_findings,
    stderr,
)

scene_app = typer.Typer(help="Generate, inspect and render scenes.", no_args_is_help=True)

MeshRoots = Annotated[
    list[Path] | None,
    typer.Option("--mesh-root", help="A folder meshes may also be read from (repeatable); "
                 "by default only the scene's folder and its Habitat dataset's."),
]


@scene_app.command()
def inspect(
    scene: Annotated[Path, typer.Argument(help="A scene.json file.")],
    output_format: Annotated[
        OutputFormat, typer.Option("--format", help="text for people, json for machines.")
    ] = OutputFormat.text,
    mesh_root: MeshRoots = None,
) -> None:
    """Summarise a scene: rooms, furniture, surfaces, regions, standing points, warnings."""
    from fdc.core.problems import to_finding_json

    g = graph_or_exit(scene, mesh_root or ())
    summary = g.summary()
    if output_format is OutputFormat.json:
        report = {
            "summary": summary,
            "timings_s": {k: round(v, 4) for k, v in g.timings.items()},
            "findings": [to_finding_json(f.in_file(str(scene))) for f in g.findings],
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
        report_findings(g.findings, str(scene))
    raise typer.Exit(EXIT_FINDINGS if g.findings else EXIT_OK)


@scene_app.command()
def render(
    scene: Annotated[Path, typer.Argument(help="A scene.json file.")],
    output: Annotated[
        Path | None, file_option("-o", "--output", help="The map (.png or .svg).")
    ] = None,
    graph: Annotated[Path | None, file_option(
        "--graph", help="Also write the support tree: .svg, .png, or .txt (an outline).",
    )] = None,
    tree: Annotated[bool, typer.Option(
        "--tree", help="Print the support tree as an outline on the terminal.")] = False,
    dpi: Annotated[int, typer.Option(help="Resolution of a PNG map or support tree.")] = 150,
    no_regions: Annotated[bool, typer.Option("--no-regions", help="Leave regions out.")] = False,
    mesh_root: MeshRoots = None,
) -> None:
    """Draw a top-down map of the scene and its support tree (what stands on what)."""
    from fdc.core.files import Outputs
    from fdc.sim_bridge.pictures import render_map, render_support_tree

    if output is None and graph is None and not tree:
        stderr().print("error: nothing to draw: give -o MAP, --graph FILE or --tree")
        raise typer.Exit(EXIT_USAGE)
    fmt = output.suffix.lower().lstrip(".") if output is not None else "png"
    graph_fmt = graph.suffix.lower().lstrip(".") if graph is not None else "svg"
    if fmt not in ("png", "svg") or graph_fmt not in ("png", "svg", "txt"):
        wrong = output if fmt not in ("png", "svg") else graph
        stderr().print(f"error: `{wrong}`: the map is .png or .svg, the support tree .svg, "
                       ".png or .txt")
        raise typer.Exit(EXIT_USAGE)
    g = graph_or_exit(scene, mesh_root or ())
    with Outputs() as out:  # the map and the support tree together, or neither
        if output is not None:
            out.write(output, render_map(g, dpi=dpi, fmt=fmt, show_regions=not no_regions))
        if graph is not None:
            out.write(graph, _outline(g, color=False) if graph_fmt == "txt"
                      else render_support_tree(g, fmt=graph_fmt, dpi=dpi))
    if tree:
        sys.stdout.write(_outline(g, color=sys.stdout.isatty()))
    report_findings(g.findings, str(scene))
    raise typer.Exit(EXIT_OK)


def _outline(g: SceneGraph, *, color: bool) -> str:
    """The support tree as a rich tree, as text (with colours on a terminal)."""
    import io

    from rich.text import Text
    from rich.tree import Tree

    from fdc.sim_bridge.pictures import support_tree_rows

    rows = support_tree_rows(g)
    root = Tree(Text(rows[0][1], style=rows[0][2]))
    branches = [root]
    for depth, text, colour in rows[1:]:
        del branches[depth:]
        branches.append(branches[-1].add(Text(text, style=colour)))
    buffer = io.StringIO()
    console(file=buffer, width=10_000, force_terminal=color, no_color=not color,
            soft_wrap=True).print(root)
    return "".join(line.rstrip() + "\n" for line in buffer.getvalue().splitlines())


@scene_app.command()
def generate(
    output: Annotated[Path, typer.Option(
        "-o", "--output", help="Where to write scene.json; with --count, the folder the "
        "scenes go in (scene-000.json, ...).")],
    rooms: Annotated[int, typer.Option("--rooms", min=1, max=500, help="Rooms; with "
                                       "--count, the most a scene has.")] = 6,
    objects: Annotated[int, typer.Option("--objects", min=1, max=5000, help="Objects; "
                                         "with --count, about this many per --rooms rooms.")
                       ] = 150,
    seed: Annotated[int, typer.Option("--seed")] = 0,
    count: Annotated[int | None, typer.Option(
        "--count", min=1, max=10000, help="Generate a family of N scenes of varied room "
        "counts and layouts into the folder -o (deterministic for the seed).")] = None,
    from_bddl: Annotated[str | None, typer.Option(
        "--from-bddl", metavar="ACTIVITY", help="A house for a BEHAVIOR-1K activity (its "
        "name in the `bddl` package's corpus, or a .bddl file): its objects placed as its "
        ":init says (docs/bddl.md); --rooms and --objects do not apply.")] = None,
) -> None:
    """Generate a scene of R rooms and about N objects, or a family of scenes (--count),
    or a house for a BDDL activity (--from-bddl); deterministic for a seed."""
    from fdc.core.files import Outputs, not_writable, write_atomic
    from fdc.sim_bridge.scene.generate import family_file, family_scene, generate_scene

    err = stderr()
    if from_bddl is not None:
        _from_bddl(from_bddl, output, seed, count)
    if count is None:
        if why := not_writable(output):
            raise typer.BadParameter(f"{output} {why}", param_hint="'-o' / '--output'")
        scene = generate_scene(rooms, objects, seed)
        write_atomic(output, scene.to_json())
        err.print(f"wrote {output}: {len(scene.rooms)} rooms, {len(scene.objects)} objects")
        raise typer.Exit(EXIT_OK)
    if why := not_writable(output, folder=True):
        raise typer.BadParameter(f"{output} {why}; with --count it names a folder",
                                 param_hint="'-o' / '--output'")
    sizes = []
    with Outputs() as out:  # the whole family, or none of it
        for k in range(count):
            scene = family_scene(k, seed, rooms, objects)
            out.write(output / family_file(k), scene.to_json())
            sizes.append(len(scene.rooms))
    err.print(f"wrote {count} scene(s) to {output}/: {min(sizes)} to {max(sizes)} rooms")
    raise typer.Exit(EXIT_OK)


def _from_bddl(activity: str, output: Path, seed: int, count: int | None) -> None:
    """`fdc scene generate --from-bddl`: exit 0, 1 when some `:init` fact could not be
    made true (each named), 2 for an activity that cannot be read."""
    from fdc.core.errors import InputError
    from fdc.core.files import not_writable, write_atomic
    from fdc.interop.bddl.scene import activity_scene

    err = stderr()
    if count is not None:
        err.print("error: --from-bddl makes one scene; leave out --count", markup=False)
        raise typer.Exit(EXIT_USAGE)
    if why := not_writable(output):
        raise typer.BadParameter(f"{output} {why}", param_hint="'-o' / '--output'")
    try:
        generated = activity_scene(activity, seed)
    except InputError as e:
        err.print(f"error: {e}", markup=False)
        raise typer.Exit(EXIT_USAGE) from None
    write_atomic(output, generated.scene.to_json())
    for fact in generated.left_out:
        err.print(f"{activity}: warning: not made true: {fact}", markup=False)
    err.print(f"wrote {output}: {len(generated.scene.rooms)} rooms, "
              f"{len(generated.scene.objects)} objects for {activity}"
              + (f"; {len(generated.left_out)} :init fact(s) not made true"
                 if generated.left_out else ""), markup=False)
    raise typer.Exit(EXIT_FINDINGS if generated.left_out else EXIT_OK)


@scene_app.command()
def bind(
    scene: Annotated[Path, typer.Argument(help="The scene.json to bind the activity into.")],
    from_bddl: Annotated[str, typer.Option(
        "--from-bddl", metavar="ACTIVITY", help="A BEHAVIOR-1K activity (its name in the "
        "`bddl` package's corpus, or a .bddl file).")],
    output: Annotated[Path, typer.Option("-o", "--output", help="Where to write the bound "
                                         "scene.json.")],
    seed: Annotated[int, typer.Option("--seed", help="Chooses among matching rooms, pieces "
                                      "and floor spots.")] = 0,
) -> None:
    """Bind a BDDL activity into an existing scene: its furniture and rooms mapped onto
    the scene's where categories match, its items placed as its :init says (docs/bddl.md).
    Exit 0, 1 when some :init fact could not be made true, 2 when it cannot bind."""
    from fdc.core.errors import InputError
    from fdc.core.files import not_writable, write_atomic
    from fdc.interop.bddl.bind import activity_bound

    err = stderr()
    if why := not_writable(output):
        raise typer.BadParameter(f"{output} {why}", param_hint="'-o' / '--output'")
    g = graph_or_exit(scene, ())
    try:
        bound = activity_bound(g.scene, from_bddl, seed)
    except InputError as e:
        err.print(f"{scene}: error: cannot bind {from_bddl}: {e}", markup=False)
        raise typer.Exit(EXIT_USAGE) from None
    write_atomic(output, bound.scene.to_json())
    for fact in bound.left_out:
        err.print(f"{from_bddl}: warning: not made true: {fact}", markup=False)
    pieces = sum(1 for o in bound.scene.objects if (o.source or {}).get("category"))
    err.print(f"wrote {output}: {from_bddl} bound into {scene} ({pieces} piece(s) of "
              f"furniture matched, {len(bound.scene.objects) - len(g.scene.objects)} "
              "item(s) placed)" + (f"; {len(bound.left_out)} :init fact(s) not made true"
                                   if bound.left_out else ""), markup=False)
    raise typer.Exit(EXIT_FINDINGS if bound.left_out else EXIT_OK)
