"""Reading BDDL activities with the `bddl` package's own parser.

The package is an optional extra (`pip install 'fdc[bddl]'`): it is imported here, on
first use, and a missing package is an `InputError` that says how to install it. A file
BDDL's parser refuses is a problem about that file (`Unreadable`), never a traceback.

See docs/bddl.md.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from fdc.core.errors import InputError
from fdc.core.inputs import InputFileError, InputKind, read_input_text

#: What BDDL's parser gives for a formula: a name, or a list of formulas.
Sexp = Any

INSTALL_HINT = "install it with `pip install 'fdc[bddl]'` (the `bddl` package, 3.6.0)"


def require_bddl() -> ModuleType:
    """The `bddl` package, or an `InputError` saying how to install it."""
    try:
        module = importlib.import_module("bddl")
        importlib.import_module("bddl.parsing")
    except ImportError as e:
        raise InputError(f"reading BDDL needs the `bddl` package: {INSTALL_HINT}") from e
    return module


@dataclass(frozen=True)
class Activity:
    """One BDDL problem as BDDL's parser reads it (names in lower case, as it has them).

    `objects`: each declared synset's instances, in file order; `init`: the initial
    facts; `goal`: the goal's conjuncts (the top `and` taken apart, as BDDL keeps them)."""

    name: str
    path: str
    objects: dict[str, list[str]]
    init: list[Sexp]
    goal: list[Sexp]

    def synset_of(self) -> dict[str, str]:
        """Each instance's synset."""
        return {i: s for s, insts in self.objects.items() for i in insts}


@dataclass(frozen=True)
class Unreadable:
    """A file BDDL's parser refused, and its words."""

    name: str
    path: str
    reason: str


def corpus_root() -> Path:
    """The folder of BEHAVIOR-1K's activity definitions the `bddl` package ships."""
    require_bddl()
    from bddl.config import ACTIVITY_CONFIGS_PATH

    return Path(ACTIVITY_CONFIGS_PATH)


def activity_files(paths: Iterable[str | Path], corpus: bool = False
                   ) -> list[tuple[str, Path]]:
    """(activity name, problem file) for each file given, each `.bddl` problem under each
    folder given (domain files left out), and with `corpus` every activity the `bddl`
    package ships (its `problem0.bddl`). A file named `problemN.bddl` is named after its
    folder (BEHAVIOR's layout), any other after its stem. An `InputError` for a path that
    does not exist."""
    found: list[tuple[str, Path]] = []
    roots = [Path(p) for p in paths]
    if corpus:
        root = corpus_root()
        found.extend((d.name, d / "problem0.bddl") for d in sorted(root.iterdir())
                     if (d / "problem0.bddl").is_file())
    for p in roots:
        if p.is_dir():
            found.extend((_name(f), f) for f in sorted(p.rglob("*.bddl"))
                         if not f.name.startswith("domain_"))
        elif p.is_file():
            found.append((_name(p), p))
        else:
            raise InputError(f"{p}: no such file or folder")
    return found


def _name(path: Path) -> str:
    if path.stem.startswith("problem") and path.stem[len("problem"):].isdigit():
        n = int(path.stem[len("problem"):])
        return path.parent.name if n == 0 else f"{path.parent.name}-{n}"
    return path.stem


def parse_activity(name: str, text: str, path: str = "<text>") -> Activity | Unreadable:
    """`text` read by BDDL's `parse_problem` (against its `omnigibson` domain)."""
    require_bddl()
    from bddl.parsing import parse_problem

    out = io.StringIO()
    try:
        # BDDL's parser prints what it does not recognise; those words are not ours to show.
        with contextlib.redirect_stdout(out):
            _, objects, init, goal = parse_problem(name, 0, "omnigibson",
                                                   predefined_problem=text)
    except RecursionError:
        return Unreadable(name, path, "nested too deeply")
    except Exception as e:  # BDDL's parser raises bare Exceptions (and IndexError...)
        return Unreadable(name, path, str(e) or type(e).__name__)
    if not isinstance(goal, list) or not goal:
        return Unreadable(name, path, "no goal")
    return Activity(name, path, {str(k): list(v) for k, v in objects.items()},
                    list(init), list(goal))


def read_activities(files: Sequence[tuple[str, Path]]) -> list[Activity | Unreadable]:
    """Each file parsed; a file that cannot be read is `Unreadable` with the reader's
    words."""
    out: list[Activity | Unreadable] = []
    for name, path in files:
        try:
            text = read_input_text(path, InputKind.TEMPLATE)
        except InputFileError as e:
            out.append(Unreadable(name, os.fspath(path), e.reason))
            continue
        out.append(parse_activity(name, text, os.fspath(path)))
    return out
