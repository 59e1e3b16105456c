"""`fdc export ...`: write compiled suites in other systems' formats (Habitat episodes
and PDDL YAML, PARTNR episodes, PDDL problems, chat requests for vision-language models).

Exit codes: 0 every task written; 1 some task a format cannot express (each named with
why, the rest written); 2 usage or input error (the suite, a scene, a template, a dataset
or the manifest cannot be read), 130 interrupted.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from fdc.cli.common import (
    EXIT_FINDINGS,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    FramesDirs,
    MaxFrames,
    OutputFormat,
    file_option,
    folder_option,
    input_or_exit,
    open_suite_or_exit,
    progress_bar,
    stderr,
)

if TYPE_CHECKING:
    from fdc.interop.habitat.export import HabitatExport

export_app = typer.Typer(
    help="Export task suites to other formats (PDDL, Habitat, PARTNR, BDDL, VLM chat requests).",
    no_args_is_help=True
)


@export_app.command()
def habitat(
    suite: Annotated[Path, typer.Argument(help="The task suite (suite.jsonl).")],
    output: Annotated[Path, folder_option("--output", "-o", help="The folder to write to.")],
    dataset: Annotated[
        Path | None,
        typer.Option(help="The scene dataset config the scenes were imported from "
                     "(default: found beside the scenes' assets)."),
    ] = None,
    data_root: Annotated[
        Path,
        typer.Option(help="The folder habitat-lab runs in: episodes name the dataset "
                     "config and scene instance relative to it."),
    ] = Path("."),
    output_format: Annotated[
        OutputFormat, typer.Option("--format", help="text for people, json for machines.")
    ] = OutputFormat.text,
) -> None:
    """Write process tasks as RearrangeDataset-v0 episodes and every task's goal as
    habitat-lab's PDDL (YAML domain and problems); name each task a format cannot express."""

    from fdc.compiler.reopen import ReopenError
    from fdc.core.problems import render_text
    from fdc.interop.habitat.export import HabitatExportError, export_suite
    from fdc.sim_bridge.graph.scene_graph import SceneLoadError

    err = stderr()
    opened = open_suite_or_exit(suite, err)
    with progress_bar(err) as progress:
        bar = progress.add_task("exporting", total=len(opened.records))
        try:
            result = export_suite(opened, output, dataset, data_root,
                                  lambda: progress.advance(bar))
        except SceneLoadError as e:
            errors = [f for f in e.findings if f.is_error]
            for f in errors:
                err.print(f"{e.path}: {render_text(f)}")
            if not errors:
                err.print(f"{e.path}: error: the scene does not load")
            raise typer.Exit(EXIT_USAGE) from None
        except (HabitatExportError, ReopenError) as e:
            if str(e):
                err.print(str(e))
            raise typer.Exit(EXIT_USAGE) from None
    _report_habitat(output, result, output_format)
    raise typer.Exit(EXIT_FINDINGS if result.unwritten or result.scenes_unwritten
                     else EXIT_OK)


def _report_habitat(output: Path, result: HabitatExport, output_format: OutputFormat) -> None:
    if output_format is OutputFormat.json:
        sys.stdout.write(json.dumps({
            "output": str(output), "tasks": result.tasks, "episodes": result.episodes,
            "problems": result.problems,
            "not_expressible": [u.__dict__ for u in result.unwritten],
            "scenes_not_expressible": [u.__dict__ for u in result.scenes_unwritten]},
            indent=2) + "\n")
        return
    for s in result.scenes_unwritten:
        sys.stdout.write(f"{s.scene}: {s.format}: not expressible for its {s.tasks} "
                         f"task(s): {s.reason}\n")
    for u in result.unwritten:
        sys.stdout.write(f"{u.task}: {u.format}: not expressible: {u.reason}\n")
    by_scene = sum(s.tasks for s in result.scenes_unwritten)
    stderr().print(f"wrote {result.episodes} episode(s) to {output / 'episodes.json.gz'} and "
                   f"{result.problems} PDDL problem(s) to {output / 'pddl'} for {result.tasks} "
                   f"task(s); {len(result.unwritten) + by_scene} not expressible")


@export_app.command()
def partnr(
    suite: Annotated[Path, typer.Argument(help="The task suite (suite.jsonl).")],
    output: Annotated[Path, file_option("-o", "--output", help="The episodes to write "
                                         "(.json.gz).")] = Path("episodes.json.gz"),
) -> None:
    """Write the tasks whose goals PARTNR can express as PARTNR episodes (instruction and
    evaluation); name each task it cannot express, and why (on stdout)."""
    from fdc.core.files import write_atomic
    from fdc.interop.partnr.episodes import episodes_bytes
    from fdc.interop.partnr.tasks import export_records

    err = stderr()
    records = open_suite_or_exit(suite, err).records
    dataset, refused = export_records(records)
    for task_id, why in refused:
        sys.stdout.write(f"{task_id}: not expressible: {why}\n")
    write_atomic(output, episodes_bytes(dataset))
    err.print(f"wrote {output}: {len(dataset.episodes)} episode(s) from {len(records)} task(s)"
              + (f", {len(refused)} not expressible" if refused else ""))
    raise typer.Exit(EXIT_FINDINGS if refused else EXIT_OK)


@export_app.command()
def pddl(
    suite: Annotated[Path, typer.Argument(help="The task suite (suite.jsonl).")],
    output: Annotated[Path, folder_option("--output", "-o", help="The folder to write.")],
    scene: Annotated[
        Path | None,
        typer.Option(help="The scene file for every task (default: the one each names)."),
    ] = None,
) -> None:
    """Write each task as a PDDL problem, with the planning domain (domain.pddl; a
    sequence or multi-goal task gets its own); a memory task starts where the experience
    the manifest names leaves the world."""
    from fdc.interop.pddl import ExportError, export_suite

    err = stderr()
    input_or_exit(suite, "the suite", err)
    try:
        result = export_suite(suite, output, str(scene) if scene else None)
    except ExportError as e:
        err.print(f"error: {e}")
        raise typer.Exit(EXIT_USAGE) from None
    except KeyboardInterrupt:
        err.print("interrupted")
        raise typer.Exit(EXIT_INTERRUPTED) from None
    for task_id, why in result.refused:
        sys.stdout.write(f"{task_id}: not expressible: {why}\n")
    own = f" ({result.own_domains} with a domain of its own)" if result.own_domains else ""
    err.print(f"wrote {result.written} problem(s){own} and index.json to {output}" +
              (f"; skipped {result.skipped} memory task(s): no manifest beside the suite "
               "names the experience they start after" if result.skipped else "") +
              (f"; {len(result.refused)} task(s) not expressible" if result.refused else ""))
    raise typer.Exit(EXIT_FINDINGS if result.refused else EXIT_OK)



@export_app.command()
def bddl(
    suite: Annotated[Path, typer.Argument(help="The task suite (suite.jsonl).")],
    output: Annotated[Path, folder_option("--output", "-o", help="The folder to write.")],
) -> None:
    """Write each task BDDL can express as a BEHAVIOR-1K problem (`TASK_ID.bddl`: objects
    with their synsets, `:init` from the task's start, `:goal` from its ground goal) and
    index.json; name each task it cannot express, and why, on stdout (docs/bddl.md)."""
    from fdc.core.errors import InputError
    from fdc.interop.bddl.export import BddlExportError, export_suite

    err = stderr()
    input_or_exit(suite, "the suite", err)
    try:
        result = export_suite(suite, output)
    except (BddlExportError, InputError) as e:
        err.print(f"error: {e}", markup=False)
        raise typer.Exit(EXIT_USAGE) from None
    except KeyboardInterrupt:
        err.print("interrupted; nothing written")
        raise typer.Exit(EXIT_INTERRUPTED) from None
    for task_id, why in result.refused:
        sys.stdout.write(f"{task_id}: not expressible: {why}\n")
    err.print(f"wrote {len(result.problems)} BDDL problem(s) and index.json to {output}"
              + (f"; {len(result.refused)} task(s) not expressible" if result.refused else ""),
              markup=False)
    raise typer.Exit(EXIT_FINDINGS if result.refused else EXIT_OK)


@export_app.command()
def vlm(
    suite: Annotated[Path, typer.Argument(help="The task suite (suite.jsonl).")],
    output: Annotated[Path, folder_option("--output", "-o", help="The folder to write.")],
    frames: FramesDirs = None,
    max_frames: MaxFrames = 32,
    inline_images: Annotated[bool, typer.Option(
        "--inline-images", help="Images as base64 data URLs inside the JSONL (default: "
        "PNG files under OUTPUT/frames/, named by relative path).")] = False,
    scene: Annotated[Path | None, typer.Option(
        help="The scene file (default: the one each task names).")] = None,
    experience: Annotated[Path | None, typer.Option(
        help="The experience log (default: the manifest beside the suite says which).")
                          ] = None,
) -> None:
    """Write each memory task as a chat request a vision-language model can answer
    (OUTPUT/vlm.jsonl: the instruction, the frames of the day sub-sampled and labelled
    with index and time, the answer set), and each manipulation task with its first view,
    the view where the robot starts (docs/formats/vlm.md)."""
    from fdc.compiler.reopen import ReopenError
    from fdc.core.files import Outputs
    from fdc.interop.vlm import QUESTIONS_FILE, FramesError, FrameSources, export_vlm

    err = stderr()
    opened = open_suite_or_exit(suite, err, scenes=[scene] if scene else [],
                                experiences=[experience] if experience else [])
    try:
        with FrameSources(opened, frames or [], max_frames) as sources, Outputs() as out, \
                progress_bar(err) as progress:
            bar = progress.add_task("exporting", total=len(opened.records))
            result = export_vlm(opened, output, sources, out, inline=inline_images,
                                on_task=lambda: progress.advance(bar))
    except (FramesError, ReopenError) as e:
        err.print(f"error: {e}", markup=False)
        raise typer.Exit(EXIT_USAGE) from None
    except KeyboardInterrupt:
        err.print("interrupted; nothing written")
        raise typer.Exit(EXIT_INTERRUPTED) from None
    for why, n in sorted(result.skipped.items()):
        err.print(f"skipped {n} {why}", markup=False)
    err.print(f"wrote {output / QUESTIONS_FILE}: {result.memory} memory task(s) "
              f"({result.unanswerable} with no valid frame among those shown), "
              f"{result.manipulation} manipulation task(s), {result.images} image(s)",
              markup=False)
    raise typer.Exit(EXIT_OK)
