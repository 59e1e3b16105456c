"""`fdc compile` and `fdc explain`: templates and scenes become task suites.

Exit codes: 0 ok, 1 findings (a template that could not compile on some scene), 2 usage
or input error (a bad template, scene or log; reported with its location).
"""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.text import Text

from fdc.cli.common import (
    EXIT_FINDINGS,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    console,
    file_option,
    input_or_exit,
    progress_bar,
    stderr,
    table,
)

if TYPE_CHECKING:
    from fdc.compiler.compile import TemplateEntry
    from fdc.compiler.manifest import Manifest
    from fdc.compiler.suite import TaskRecord
    from fdc.compiler.timings import Timings
    from fdc.sim_bridge.graph.scene_graph import SceneGraph


#: Process templates over a furnished home have thousands of bindings (every item to
#: every surface); a suite samples this many per template and scene unless told.
DEFAULT_MAX_PER_TEMPLATE = 25


def _entries(templates: list[Path] | None) -> list[TemplateEntry]:
    """Check the templates (the built-in library by default); exit 2 on any error."""
    from fdc.compiler.compile import load_entries
    from fdc.core.problems import render_text

    entries, result = load_entries([str(p) for p in templates] if templates else None)
    bad = result.errors or result.usage_error
    if bad:
        for d in result.diagnostics:
            if d.is_error:
                sys.stderr.write(render_text(d, result.sources) + "\n")
        stderr().print(f"error: {len(result.errors)} error(s) in the templates; "
                        "`fdc check` shows them all")
        raise typer.Exit(EXIT_USAGE)
    if not entries:
        stderr().print("error: no template to compile (the files hold no template)")
        raise typer.Exit(EXIT_USAGE)
    return entries


TemplatesOption = Annotated[
    list[Path] | None,
    typer.Option("--templates", "-T",
                 help="Template files or folders (repeatable); default: the built-in library."),
]
HistoryOption = Annotated[
    list[Path] | None,
    typer.Option("--history", help="An experience log per scene, in the scenes' order "
                 "(repeatable); default: simulate one."),
]
CompileHistoryOption = Annotated[
    list[Path] | None,
    typer.Option("--history", help="Experience logs, K per scene (repeatable): the first "
                 "scene's K days in order, then the next scene's; default: simulate."),
]


def compile_command(
    scenes: Annotated[list[Path], typer.Argument(
        help="Scene files (scene.json), or folders: every *.json in one, in name order.")],
    templates: TemplatesOption = None,
    history: CompileHistoryOption = None,
    simulate_history: Annotated[
        bool, typer.Option("--simulate-history/--no-history",
                           help="Simulate an oracle's experience when no log is given.")
    ] = True,
    experiences: Annotated[
        int | None, typer.Option("--experiences", min=1, help="Experiences (days) per scene: "
                                 "K simulated with seeds SEED, SEED+1, ... (default 1), or "
                                 "the number of --history logs per scene.")
    ] = None,
    interactions: Annotated[
        int, typer.Option(min=1, max=50, help="Pick-and-place interactions to simulate.")
    ] = 5,
    seed: Annotated[int, typer.Option(help="Seed of every random choice.")] = 0,
    max_per_template: Annotated[
        int, typer.Option(min=0, help="At most K tasks per template and scene, sampled "
                          "with the seed (0: every binding).")
    ] = DEFAULT_MAX_PER_TEMPLATE,
    max_atoms: Annotated[
        int | None, typer.Option(min=1, help="Largest ground goal (atoms) before a template "
                                 "stops (default: the limit goal_atoms, 100000).")
    ] = None,
    jobs: Annotated[int, typer.Option("--jobs", "-j", min=1, help="Worker processes.")] = 1,
    output: Annotated[
        Path, file_option("--output", "-o", help="The suite; manifest.json goes beside it.")
    ] = Path("suite.jsonl"),
    timings: Annotated[
        bool, typer.Option("--timings", help="Print the time each pass took (on stderr).")
    ] = False,
) -> None:
    """Compile templates on scenes into a task suite (suite.jsonl + manifest.json)."""

    from fdc.compiler.compile import CompileOptions
    from fdc.compiler.emit import emit_suite
    from fdc.compiler.pipeline import compile_suite, job_entries
    from fdc.compiler.prepare import SceneJob
    from fdc.compiler.timings import Pass
    from fdc.core.errors import InputError
    from fdc.core.files import cannot_write, not_writable

    err = stderr()
    scenes = _scene_files(scenes)
    days = _days(len(scenes), len(history or []), experiences, simulate_history)
    for p in scenes:
        input_or_exit(p, "the scene file", err)
    for p in history or []:
        input_or_exit(p, "the experience log", err)
    manifest_path = output.parent / "manifest.json"
    if why := not_writable(manifest_path):  # before minutes of compiling, not after
        raise cannot_write(manifest_path, why)
    entries = _entries(templates)
    options = CompileOptions(seed=seed, max_per_template=max_per_template or None)
    if max_atoms is not None:
        options = replace(options, max_atoms=max_atoms)
    jobs_ = [SceneJob(str(s), str(history[k * days + d]) if history else None,
                      simulate_history, interactions, day=d + 1)
             for k, s in enumerate(scenes) for d in range(days)]
    per_template = jobs <= 1 or len(jobs_) <= 1
    total = sum(len(job_entries(j, entries)) for j in jobs_) if per_template else len(jobs_)
    with progress_bar(err) as progress:
        bar = progress.add_task("compiling", total=total)
        try:
            result, refs = compile_suite(
                jobs_, entries, options, workers=jobs,
                on_template=(lambda e: progress.update(bar, advance=1,
                                                       description=f"compiling {e.name}"))
                if per_template else None,
                on_scene=None if per_template else (lambda j: progress.update(bar, advance=1)),
            )
        except InputError as e:
            err.print(f"error: {e}")
            raise typer.Exit(EXIT_USAGE) from None
        except KeyboardInterrupt:
            err.print("interrupted: nothing written")
            raise typer.Exit(EXIT_INTERRUPTED) from None
    manifest, manifest_path = result.timings.run(Pass.EMIT, emit_suite, output, result, refs,
                                                  entries, options)
    _summary(manifest)
    if timings:
        _timings(result.timings)
    err.print(f"wrote {manifest.tasks} task(s) to {output} and the manifest to {manifest_path}")
    failed: dict[str, list[str]] = {}  # an error -> the templates it stopped
    for name, t in manifest.per_template.items():
        for e in t.errors:
            failed.setdefault(e, []).append(name)
    for e, names in failed.items():  # a scene no experience is simulated in: said once
        which = f"template {names[0]}" if len(names) == 1 else \
            f"{len(names)} templates ({', '.join(names[:5])}{', ...' if len(names) > 5 else ''})"
        err.print(f"error: {which}: {e}", markup=False, highlight=False)
    raise typer.Exit(EXIT_FINDINGS if failed else EXIT_OK)


def _scene_files(given: list[Path]) -> list[Path]:
    """The scene files: a file as given, a folder's `*.json` files in name order (a
    family of `fdc scene generate --count`); exit 2 for a folder without one."""
    files: list[Path] = []
    for p in given:
        if p.is_dir():
            found = sorted(q for q in p.glob("*.json") if q.is_file())
            if not found:
                stderr().print(f"{p}: error: no scene file (*.json) in the folder",
                               markup=False)
                raise typer.Exit(EXIT_USAGE)
            files.extend(found)
        else:
            files.append(p)
    return files


def _days(scenes: int, logs: int, experiences: int | None, simulate: bool) -> int:
    """The experiences (days) each scene compiles with; exit 2 when the options disagree."""
    err = stderr()
    if logs:
        if logs % scenes or (experiences is not None and logs != experiences * scenes):
            want = f"{experiences} per scene" if experiences is not None else "as many per scene"
            err.print(f"error: {logs} --history log(s) for {scenes} scene(s); give {want}, "
                      "the first scene's in order, then the next scene's")
            raise typer.Exit(EXIT_USAGE)
        return logs // scenes
    if experiences is not None and experiences > 1 and not simulate:
        err.print("error: --experiences simulates the days, and --no-history asks for none; "
                  "give one of them")
        raise typer.Exit(EXIT_USAGE)
    return experiences or 1


def _summary(manifest: Manifest) -> None:
    out = console()
    shown = table("tasks")
    shown.add_column("category")
    shown.add_column("level", justify="right")
    shown.add_column("templates", justify="right")
    shown.add_column("tasks", justify="right")
    groups: Counter[tuple[str, str]] = Counter()
    tasks: Counter[tuple[str, str]] = Counter()
    for t in manifest.per_template.values():
        key = (t.category or "-", str(t.level) if t.level is not None else "-")
        groups[key] += 1
        tasks[key] += t.tasks
    for key in sorted(groups):
        shown.add_row(key[0], key[1], str(groups[key]), str(tasks[key]))
    shown.add_section()
    shown.add_row("all", "", str(len(manifest.per_template)), str(manifest.tasks))
    out.print(shown)
    if manifest.drops:
        drops = table("dropped bindings")
        drops.add_column("reason")
        drops.add_column("bindings", justify="right")
        for reason, n in sorted(manifest.drops.items(), key=lambda p: (-p[1], p[0])):
            drops.add_row(reason, str(n))
        out.print(drops)


def _timings(timings: Timings) -> None:
    """Seconds per pass, summed over templates, scenes and worker processes."""
    shown = table("time per pass")
    shown.add_column("pass")
    shown.add_column("seconds", justify="right")
    shown.add_column("share", justify="right")
    shown.add_column("calls", justify="right")
    total = sum(t.seconds for _, t in timings.rows())
    for name, t in timings.rows():
        share = f"{100 * t.seconds / total:.1f}%" if total else "-"
        shown.add_row(name.value, f"{t.seconds:.3f}", share, str(t.calls))
    shown.add_section()
    shown.add_row("all", f"{total:.3f}", "", "")
    stderr().print(shown)


def explain_command(
    template: Annotated[str, typer.Argument(help="The template's name.")],
    scene: Annotated[Path, typer.Option("--scene", "-s", help="The scene file.")],
    templates: TemplatesOption = None,
    history: Annotated[
        Path | None, typer.Option("--history", help="An experience log; default: simulate.")
    ] = None,
    simulate_history: Annotated[
        bool, typer.Option("--simulate-history/--no-history",
                           help="Simulate an oracle's experience when no log is given.")
    ] = True,
    interactions: Annotated[int, typer.Option(min=1, max=50)] = 5,
    seed: Annotated[int, typer.Option()] = 0,
    limit: Annotated[int, typer.Option(min=1, help="Show at most this many bindings.")] = 50,
    render: Annotated[Path | None, file_option(
        "--render", help="Draw the scene map with the first task's targets, distractors "
        "and bound entities highlighted and labelled (PNG; SVG by the extension).")] = None,
) -> None:
    """Show one template on one scene: its bindings, their ground goals, why others dropped."""
    from fdc.compiler.compile import CompileOptions
    from fdc.compiler.pipeline import compile_template
    from fdc.compiler.prepare import SceneJob, prepare_scene
    from fdc.core.errors import InputError

    err = stderr()
    input_or_exit(scene, "the scene file", err)
    entries = _entries(templates)
    chosen = [e for e in entries if e.name == template]
    if not chosen:
        from fdc.core.problems import did_you_mean

        hint = did_you_mean(template, [e.name for e in entries]) or "see `fdc check`"
        err.print(f"error: no template `{template}`; {hint}")
        raise typer.Exit(EXIT_USAGE)
    options = CompileOptions(seed=seed)
    try:
        compiler, _ = prepare_scene(SceneJob(str(scene), str(history) if history else None,
                                             simulate_history, interactions), options)
    except InputError as e:
        err.print(f"error: {e}")
        raise typer.Exit(EXIT_USAGE) from None
    report = compile_template(compiler, chosen[0], explain=True)
    out = console(soft_wrap=True)
    entry = chosen[0]
    out.print(f"template {entry.name} ({entry.path}) on {scene}")
    if report.error:
        out.print(Text("error", style="red"), f": {report.error}", sep="")
        raise typer.Exit(EXIT_FINDINGS)
    out.print(f"{report.bindings} binding(s) satisfy the constraints; {report.tasks} task(s)")
    for reason, n in sorted(report.drops.items()):
        out.print(f"  dropped {n}: {reason}")
    for o in report.outcomes[:limit]:
        out.print("  " + (" ".join(f"{k}={v}" for k, v in o.binding.items()) or "(no parameter)"),
                  markup=False)
        if o.record is not None:
            out.print(f"    task {o.record.id}: {o.record.goal_pddl}", markup=False)
            for text in o.record.instructions:
                out.print(f"    “{text}”", markup=False)
        elif o.reason is not None:
            out.print(f"    dropped: {o.reason.message}", markup=False)
    if len(report.outcomes) > limit:
        out.print(f"... {len(report.outcomes) - limit} more (use --limit)")
    if render is not None:
        _render_task(compiler.graph, [o.record for o in report.outcomes
                                      if o.record is not None], render)
    raise typer.Exit(EXIT_OK)


def _render_task(graph: SceneGraph, records: list[TaskRecord], path: Path) -> None:
    """The map of `graph` with the first task's entities highlighted (exit 1: no task)."""
    from fdc.core.files import write_atomic
    from fdc.sim_bridge.pictures import entity_roles, render_map

    if not records:
        stderr().print(f"error: no task to draw into {path}: every binding dropped "
                       "(the reasons are above)", markup=False)
        raise typer.Exit(EXIT_FINDINGS)
    task = records[0]
    roles = entity_roles(graph, task.targets, list(task.bindings.values()))
    text = task.instructions[0] if task.instructions else task.goal_pddl
    short = text if len(text) <= 90 else text[:87] + "..."
    title = f"{task.id}: “{short}”"
    fmt = "svg" if path.suffix.lower() == ".svg" else "png"
    write_atomic(path, render_map(graph, fmt=fmt, highlight=roles, title=title))
    stderr().print(f"wrote {path}: task {task.id}, {len(task.targets)} target(s) highlighted",
                   markup=False)
