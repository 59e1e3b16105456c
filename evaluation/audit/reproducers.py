"""Reproducers: for each disagreement, the fdc command lines that show it again.

The first is always the audit of that one task (`fdc audit SUITE --task ID`, with the
options the audit was run with). When the report is written to a file, each task with
a disagreement also gets a folder beside it (`REPORT.repro/<task id>/`) holding a
one-task suite (`suite.jsonl`, and its `manifest.json`: the suite's, describing the
one-task suite, so that the experience of a memory task is found as before) and the
files its commands read: the plan acted out (`plan-replay.jsonl`, a trajectory) when the
replay disagrees, the idle agent's predictions (`idle.jsonl`) when it succeeds; then
each check's own commands run on that suite:

| check | commands |
|---|---|
| `plan` | `fdc validate ONE --solve` |
| `replay` | `fdc verify ONE -t plan-replay.jsonl` |
| `oracle`, `walk` | `fdc run-baseline oracle ONE -o oracle.jsonl`, `fdc evaluate ...` |
| `idle` | `fdc evaluate ONE -p idle.jsonl` (and `fdc validate ONE` for a process task) |
| `random` | `fdc run-baseline random ONE -o random.jsonl --seed N`, `fdc evaluate ...` |
| `start`, `answer`, `frames` | `fdc validate ONE` |

Commands name files as the audit was given them, so they run from the folder `fdc
audit` was run in; every command on a one-task suite names its scene (`--scene`).
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from fdc.agents.actions import ActionName, AgentAction
from fdc.agents.predictions import Prediction
from fdc.compiler.suite import suite_lines
from fdc.core.files import FileNames
from fdc.core.hashing import sha256_text
from fdc.evaluation.memory import frames_expected
from fdc.sim_bridge.world.trajectory import trajectory_text

from .checks import DEFAULT_CHANCE_BOUND, TaskAudit

if TYPE_CHECKING:
    from fdc.compiler.reopen import ReopenedSuite

#: The planner's default time per task (as `fdc validate`'s and `fdc audit`'s).
DEFAULT_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class Invocation:
    """How the audit was run (the files as given), and where one-task suites go (None:
    the report goes to standard output, and only the audit command is given)."""

    suite: str
    scene: str | None = None
    experience: str | None = None
    seed: int = 0
    chance_bound: float = DEFAULT_CHANCE_BOUND
    timeout_s: float = DEFAULT_TIMEOUT_S
    planner: str | None = None
    folder: Path | None = None


class Reproducers:
    """The commands and files of each disagreement of one audit."""

    def __init__(self, invocation: Invocation, suite: ReopenedSuite) -> None:
        self.run = invocation
        self.suite = suite
        self._names = FileNames(invocation.folder) if invocation.folder is not None else None

    def task_folder(self, audit: TaskAudit) -> Path | None:
        return self._names.path(audit.record.id, "") if self._names is not None else None

    def commands(self, audit: TaskAudit, check: str) -> list[str]:
        """The command lines that show `check`'s disagreement on the task (module doc)."""
        run = self.run
        own = ["fdc", "audit", run.suite, "--task", audit.record.id,
               *self._planning(), *(["--seed", str(run.seed)] if run.seed else []),
               *(["--chance-bound", f"{run.chance_bound:g}"]
                 if run.chance_bound != DEFAULT_CHANCE_BOUND else []),
               *(["--scene", run.scene] if run.scene else []),
               *(["--experience", run.experience] if run.experience else [])]
        out = [own]
        folder = self.task_folder(audit)
        if folder is not None:
            out += self._on_one(audit, check, folder)
        return [shlex.join(c) for c in out]

    def _planning(self) -> list[str]:
        run = self.run
        return [*(["--timeout", f"{run.timeout_s:g}"] if run.timeout_s != DEFAULT_TIMEOUT_S
                  else []), *(["--planner", run.planner] if run.planner else [])]

    def _on_one(self, audit: TaskAudit, check: str, folder: Path) -> list[list[str]]:
        one = str(folder / "suite.jsonl")
        scene = ["--scene", str(self.suite.scene_file(audit.record))]
        log = self.run.experience
        validate = ["fdc", "validate", one, *scene]

        def agent(name: str) -> list[list[str]]:
            preds = str(folder / f"{name}.jsonl")
            seed = ["--seed", str(self.run.seed)] if name == "random" else []
            return [["fdc", "run-baseline", name, one, "-o", preds, *seed, *scene,
                     *(["--experience", log] if log else [])],
                    ["fdc", "evaluate", one, "-p", preds, *scene,
                     *(["--history", log] if log else [])]]

        if check == "plan":
            return [[*validate, "--solve", *self._planning()]]
        if check == "replay":
            return [["fdc", "verify", one, "-t", str(folder / "plan-replay.jsonl"), *scene]]
        if check in ("oracle", "walk"):
            return agent("oracle")
        if check == "random":
            return agent("random")
        if check == "idle":
            judge = [["fdc", "evaluate", one, "-p", str(folder / "idle.jsonl"), *scene,
                      *(["--history", log] if log else [])]]
            return [validate, *judge] if audit.acted else judge
        if check in ("start", "answer", "frames"):
            return [validate]
        return []

    def files(self, audits: Iterable[TaskAudit]) -> dict[Path, str]:
        """The files the commands of these tasks' disagreements read, by path."""
        out: dict[Path, str] = {}
        for a in audits:
            out.update(self.task_files(a))
        return out

    def task_files(self, a: TaskAudit) -> dict[Path, str]:
        """The files the commands of one task's disagreements read, by path (written a
        task at a time as the report is: `files` of a suite is theirs together)."""
        out: dict[Path, str] = {}
        manifest = self.suite.read_manifest()
        folder = self.task_folder(a)
        disagreeing = {k for k, o in a.outcomes.items() if o.status == "disagree"}
        if folder is not None and disagreeing:
            text = "".join(suite_lines([a.record]))
            out[folder / "suite.jsonl"] = text
            if manifest is not None:
                one = manifest.model_copy(update={"suite": "suite.jsonl",
                                                  "suite_sha256": sha256_text(text)})
                out[folder / "manifest.json"] = one.to_json()
            if "replay" in disagreeing and a.replay is not None:
                out[folder / "plan-replay.jsonl"] = trajectory_text(a.replay.header,
                                                                    a.replay.snapshots)
            if "idle" in disagreeing:
                out[folder / "idle.jsonl"] = self._idle(a)
        return out

    def _idle(self, audit: TaskAudit) -> str:
        """The idle agent's prediction: `call_end` at once; for a memory task, the frame
        where the task starts (the log's last) for each target."""
        r = audit.record
        if audit.memory and audit.outcomes["frames"].status != "n/a":
            last = len(self.suite.experience(r).frames) - 1
            prediction = Prediction(task_id=r.id, frames=[last] * frames_expected(r))
        else:
            prediction = Prediction(task_id=r.id,
                                    actions=[AgentAction(action=ActionName.CALL_END)])
        return json.dumps(prediction.model_dump(mode="json", exclude_none=True),
                          sort_keys=True) + "\n"
