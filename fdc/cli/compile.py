"""`fdc compile` and `fdc explain`: templates and scenes become task suites.

Exit codes: 0 ok, 1 findings (a template that could not compile on some scene), 2 usage
or input error (a bad template, scene or log; reported with its location).
See docs/cli.md.
"""

from __future__ import annotations

import contextlib
import sys
from collections import Counter
from dataclasses import replace
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

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
    print_table,
    progress_bar,
    stderr,
    table,
)

if TYPE_CHECKING:
    from fdc.compiler.manifest import Manifest
    from fdc.compiler.shards import Executor as ShardExecutor
    from fdc.compiler.suite import TaskRecord
    from fdc.compiler.templates import TemplateEntry
    from fdc.compiler.timings import Timings
    from fdc.sim_bridge.graph.scene_graph import SceneGraph
    from fdc.sim_bridge.world.experience import Experience


#: Process templates over a furnished home have thousands of bindings (every item to
#: every surface); a suite samples this many per template and scene unless told.
DEFAULT_MAX_PER_TEMPLATE = 25


class Executor(StrEnum):
    """Where `fdc compile` runs its shards (`fdc.compiler.executors`)."""

    local = "local"
    dask = "dask"


def _entries(templates: list[Path] | None) -> list[TemplateEntry]:
    """Check the templates (the built-in library by default); exit 2 on any error."""
    from fdc.compiler.templates import load_entries
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
    jobs: Annotated[int, typer.Option("--jobs", "-j", min=1, help="Worker processes of "
                                      "--executor local.")] = 1,
    executor: Annotated[Executor, typer.Option(
        "--executor", help="Where shards compile: local (this machine, --jobs processes) "
        "or dask (a dask.distributed cluster, --scheduler).")] = Executor.local,
    scheduler: Annotated[str | None, typer.Option(
        "--scheduler", help="The dask scheduler's address (tcp://HOST:PORT).")] = None,
    cache: Annotated[Path | None, typer.Option(
        "--cache", help="The shard cache folder (default: beside the suite, SUITE.cache, "
        "e.g. out/suite.cache); a rerun reuses every shard and template it holds.")] = None,
    no_cache: Annotated[bool, typer.Option(
        "--no-cache", help="Keep shards in a temporary folder, removed after the run.")
    ] = False,
    no_witness: Annotated[bool, typer.Option(
        "--no-witness", help="Keep goals that put items by anchors or several into one "
        "cell without asking the oracle for a trace first (much faster; some such tasks "
        "may be unsolvable).")
    ] = False,
    output: Annotated[
        Path, file_option("--output", "-o", help="The suite; manifest.json goes beside it.")
    ] = Path("suite.jsonl"),
    timings: Annotated[
        bool, typer.Option("--timings", help="Print the time each pass took (on stderr).")
    ] = False,
) -> None:
    """Compile templates on scenes into a task suite (suite.jsonl + manifest.json)."""

    import tempfile

    from fdc.agents.oracle import witness
    from fdc.compiler.options import CompileOptions
    from fdc.compiler.prepare import SceneJob
    from fdc.compiler.shards import FolderCache, compile_sharded, timed_emit
    from fdc.core.errors import InputError
    from fdc.core.files import cannot_write, not_writable

    err = stderr()
    scenes = _scene_files(scenes)
    days = _days(len(scenes), len(history or []), experiences, simulate_history)
    runner = _executor(executor, scheduler, jobs)
    for p in scenes:
        input_or_exit(p, "the scene file", err)
    for p in history or []:
        input_or_exit(p, "the experience log", err)
    manifest_path = output.parent / "manifest.json"
    if why := not_writable(manifest_path):  # before minutes of compiling, not after
        raise cannot_write(manifest_path, why)
    folder = cache if cache is not None else output.with_suffix(".cache")
    if not no_cache and (why := not_writable(folder, folder=True)):
        raise cannot_write(folder, why)
    entries = _entries(templates)
    options = CompileOptions(seed=seed, max_per_template=max_per_template or None,
                             witness=None if no_witness else witness)
    if max_atoms is not None:
        options = replace(options, max_atoms=max_atoms)
    jobs_ = [SceneJob(str(s), str(history[k * days + d]) if history else None,
                      simulate_history, interactions, day=d + 1)
             for k, s in enumerate(scenes) for d in range(days)]
    with contextlib.ExitStack() as stack:
        if no_cache:
            folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="fdc-shards-")))
        store = FolderCache(folder)
        with progress_bar(err) as progress:
            bar = progress.add_task("compiling shards", total=None)
            done: list[int] = []
            try:
                run = compile_sharded(
                    jobs_, entries, options, store, runner,
                    on_planned=lambda n: progress.update(bar, total=n),
                    on_shard=lambda _out: (done.append(1), progress.update(bar, advance=1)))
            except InputError as e:
                err.print(f"error: {e}")
                raise typer.Exit(EXIT_USAGE) from None
            except KeyboardInterrupt:
                kept = "" if no_cache else f"; {len(done)} finished shard(s) are kept in " \
                    f"{folder}: rerun to resume"
                err.print(f"interrupted: no suite written{kept}")
                raise typer.Exit(EXIT_INTERRUPTED) from None
        try:
            manifest, manifest_path = timed_emit(output, run, entries, options)
        except InputError as e:  # the cache changed under the merge: nothing written
            err.print(f"error: {e}", markup=False, highlight=False)
            raise typer.Exit(EXIT_USAGE) from None
    _summary(manifest)
    if timings:
        _timings(run.timings)
    err.print(f"wrote {manifest.tasks} task(s) to {output} and the manifest to {manifest_path}")
    _wording_warnings(output, err)
    if store.damaged:
        path, why = next(iter(sorted(store.damaged.items())))
        err.print(f"warning: {len(store.damaged)} damaged cache entr"
                  f"{'y' if len(store.damaged) == 1 else 'ies'} compiled again "
                  f"(first: {path}: {why})", markup=False, highlight=False)
    if run.reused_shards or run.reused_tasks:
        err.print(f"{run.compiled_tasks} task(s) compiled in {run.compiled_shards} shard(s), "
                  f"{run.reused_tasks} reused from {folder}", markup=False, highlight=False)
    failed: dict[str, list[str]] = {}  # an error -> the templates it stopped
    for name, t in manifest.per_template.items():
        for e in t.errors:
            failed.setdefault(e, []).append(name)
    for e, names in failed.items():  # a scene no experience is simulated in: said once
        which = f"template {names[0]}" if len(names) == 1 else \
            f"{len(names)} templates ({', '.join(names[:5])}{', ...' if len(names) > 5 else ''})"
        err.print(f"error: {which}: {e}", markup=False, highlight=False)
    raise typer.Exit(EXIT_FINDINGS if failed else EXIT_OK)


def _wording_warnings(suite: Path, err: Any) -> None:
    """A warning per kind of misleading wording the listener finds in the suite's
    instructions (`fdc.instructions.listen.wording`), with its first instance:
    `fdc validate` lists every one."""
    import json

    from fdc.instructions.listen import wording

    found: dict[str, tuple[int, str, str]] = {}  # kind -> (count, first task, message)
    with open(suite, encoding="utf-8") as f:
        for line in f:
            record = json.loads(line)
            for text in record.get("instructions", []):
                for kind, message in wording(text):
                    n, task, first = found.get(kind, (0, record.get("id", "?"), message))
                    found[kind] = (n + 1, task, first)
    for kind, (n, task, message) in sorted(found.items()):
        err.print(f"warning[{kind}]: {n} instruction(s) (first: task {task}: {message}); "
                  "`fdc validate` lists them", markup=False, highlight=False)


def _executor(kind: Executor, scheduler: str | None, jobs: int) -> ShardExecutor:
    """The executor the options ask for; exit 2 when they disagree."""
    from fdc.compiler.executors import DaskExecutor, LocalExecutor

    if kind is Executor.local:
        if scheduler is not None:
            stderr().print("error: --scheduler is for --executor dask")
            raise typer.Exit(EXIT_USAGE)
        return LocalExecutor(jobs)
    if scheduler is None:
        stderr().print("error: --executor dask needs --scheduler tcp://HOST:PORT (the "
                       "address `dask scheduler` prints)")
        raise typer.Exit(EXIT_USAGE)
    if jobs > 1:
        stderr().print("error: --jobs is for --executor local; a dask cluster runs as many "
                       "shards at once as its workers have threads")
        raise typer.Exit(EXIT_USAGE)
    return DaskExecutor(scheduler)


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
    print_table(out, shown)
    if manifest.drops:
        drops = table("dropped bindings")
        drops.add_column("reason")
        drops.add_column("bindings", justify="right")
        for reason, n in sorted(manifest.drops.items(), key=lambda p: (-p[1], p[0])):
            drops.add_row(reason, str(n))
        print_table(out, drops)


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
    print_table(stderr(), shown)


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
    from fdc.agents.oracle import witness
    from fdc.compiler.options import CompileOptions
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
    options = CompileOptions(seed=seed, witness=witness)
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
    for why in report.unbound:
        out.print(f"  no binding: {why}", markup=False)
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
                                      if o.record is not None], render, compiler.experience)
    raise typer.Exit(EXIT_OK)


def _render_task(graph: SceneGraph, records: list[TaskRecord], path: Path,
                 log: Experience | None) -> None:
    """The map of `graph` with the first task's entities highlighted, in the state the
    task starts in (`task_start_state`: a memory task's items where `log` left them)
    (exit 1: no task)."""
    from fdc.compiler.start import task_start_state
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
    state = task_start_state(graph, task, log)
    write_atomic(path, render_map(graph, fmt=fmt, highlight=roles, title=title, state=state))
    stderr().print(f"wrote {path}: task {task.id}, {len(task.targets)} target(s) highlighted",
                   markup=False)
