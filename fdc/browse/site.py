"""Writing the browser: the page, its script and style (package data, copied as they
are), `data.js` (the index) and `tasks/NNNN.js` (details, `CHUNK` tasks a file), all
staged and put in place together. Opened from disk, the page needs no server: each data
file is a script that hands its JSON to the page (`FDC.index(...)`, `FDC.chunk(...)`),
which `file://` allows where `fetch` is refused. See docs/browse.md."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, ValidationError

from fdc.core.errors import FdcError, InputError
from fdc.core.inputs import InputKind, read_input_bytes, read_input_text

from .data import CHUNK, Extras, Run, chunks, index_data, run_outcomes
from .frames import thumbnail
from .paths import Routes, agent_path
from .scenes import experience_timeline, scene_map, start_of

if TYPE_CHECKING:
    from fdc.compiler.reopen import ReopenedSuite

#: The files of the page itself, in `fdc/browse/assets/`.
ASSETS = ("index.html", "app.js", "style.css")

M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True)
class Site:
    """What was written: the folder, the tasks, the data files."""

    folder: Path
    tasks: int
    files: int


def read_report(path: Path, model: type[M], what: str, how: str) -> M:
    """A JSON report of a suite, or `InputError` saying what was expected and how to get
    one (`how`: the command that writes it)."""
    text = read_input_text(path, InputKind.SUITE)
    try:
        return model.model_validate_json(text)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "the top level"
        raise InputError(f"{path}: not {what} ({first['msg']} at {where}); hint: `{how}` "
                         "writes one") from None


def compact(value: Any) -> str:
    """JSON without spaces, keys sorted: the same value gives the same text."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def score_runs(opened: ReopenedSuite, predictions: Sequence[Path]) -> list[Run]:
    """Each predictions file scored on the suite, named by its file (its path where two
    files share a name), with the path each agent took where it can be drawn
    (`paths.agent_path`)."""
    from fdc.core.hashing import sha256_text
    from fdc.evaluation.score import read_predictions_file, score_predictions

    if not predictions:
        return []
    suite_sha = sha256_text(read_input_bytes(opened.path, InputKind.SUITE))
    records = {r.id: r for r in opened.records}
    routes: Routes = {}
    names = [p.name for p in predictions]
    runs = []
    for path, name in zip(predictions, names, strict=True):
        run = read_predictions_file(path)
        report = score_predictions(opened, suite_sha, run).report
        shown = name if names.count(name) == 1 else str(path)
        predicted = [p for _, p in run.predictions]
        outcomes = run_outcomes(report, predicted)
        for p in predicted:
            record = records.get(p.task_id)
            got = outcomes.get(p.task_id)
            if record is not None and got is not None and got["outcome"] != "not predicted":
                drawn = agent_path(opened, record, p, run.path.parent, routes)
                if drawn is not None:
                    got["path"] = drawn
        runs.append(Run(shown, outcomes))
    return runs


def gather(opened: ReopenedSuite, warn: Callable[[str], None]) -> Extras:
    """Every scene's map and every experience's timeline, with the items it moved where
    it left them (`scenes.start_of`), that can be found (a warning for each that cannot:
    its tasks are shown without it)."""
    extras = Extras()
    manifest = opened.read_manifest()
    for s in manifest.scenes if manifest is not None else []:
        if s.experience is not None:
            e = s.experience
            extras.experience_names[e.sha256] = f"{e.path or 'simulated'}" + (
                f" (seed {e.seed})" if e.path is None and e.seed is not None else "") + \
                f" {e.sha256[:8]}"
    for r in opened.records:
        scene = r.scene or ""
        if scene and scene not in extras.scenes:
            try:
                extras.scenes[scene] = scene_map(opened.graph(r))
            except FdcError as e:
                extras.scenes[scene] = {"missing": str(e)}
                warn(f"{scene}: no map for its tasks: {e}")
        sha = r.experience
        if sha is not None and sha not in extras.experiences:
            try:
                extras.experiences[sha] = experience_timeline(opened.experience(r))
                drawn = extras.scenes.get(scene)
                if drawn is not None and "missing" not in drawn:
                    extras.experiences[sha]["start"] = start_of(
                        drawn, scene_map(opened.graph(r), opened.start_state(r)))
            except FdcError as e:
                extras.experiences[sha] = {"missing": str(e)}
                warn(f"experience {sha[:12]}: no timeline for its tasks: {e}")
    return extras


def record_lines(opened: ReopenedSuite) -> list[str]:
    """The suite's records as its lines hold them (each validated when the suite was
    reopened; kept then, with `keep_text`, else read again and numbered as
    `fdc.core.jsonl` numbers lines): a task's page shows what the file says, and they
    are copied, not parsed and dumped again."""
    kept: list[str] | None = opened.texts
    if kept is not None:
        return kept
    lines = read_input_text(opened.path, InputKind.SUITE).splitlines()
    return [lines[n - 1].strip() for n, _ in opened.lines]


def write_site(opened: ReopenedSuite, extras: Extras, folder: Path, suite_name: str,
               on_chunk: Callable[[int], None] | None = None,
               on_thumb: Callable[[int, int], None] | None = None) -> Site:
    """Write the site into `folder` (see the module), with the thumbnails of
    `extras.thumbs` (`on_thumb(done, total)` after each); nothing is written on an
    error."""
    from fdc.core.files import Outputs

    records = opened.records
    assets = resources.files("fdc.browse") / "assets"
    files = 0
    with Outputs() as out:
        for name in ASSETS:
            out.write(folder / name, (assets / name).read_bytes())
            files += 1
        index = index_data(records, extras, opened.read_manifest(), suite_name)
        out.write(folder / "data.js", f"FDC.index({compact(index)});\n")
        files += 1
        if extras.thumbs:
            for k, (name, src) in enumerate(sorted(extras.thumbs.items())):
                out.write(folder / name, thumbnail(src))
                files += 1
                if on_thumb is not None:
                    on_thumb(k + 1, len(extras.thumbs))
        lines = record_lines(opened)
        for start, more in chunks([r.id for r in records], extras):
            out.write(folder / "tasks" / f"{start // CHUNK:04d}.js",
                      f"FDC.chunk({start},[{','.join(lines[start:start + CHUNK])}],"
                      f"{compact(more)});\n")
            files += 1
            if on_chunk is not None:
                on_chunk(start)
    return Site(folder, len(records), files)
