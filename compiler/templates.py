"""The templates a compile takes: `load_entries` checks template files (the built-in
library by default) into `TemplateEntry`s, and `is_memory_template` /
`is_memory_manipulation_template` say which kind of task a template makes, which decides
where its tasks start (`compiler.start`) and what a later day compiles
([architecture.md](../docs/architecture.md), "The compile pipeline").
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fdc.core.hashing import sha256_text
from fdc.core.inputs import InputKind, read_input_bytes
from fdc.core.problems import SourceFile
from fdc.domain import LIBRARY_ROOT, builtin_template_files
from fdc.instructions.variants import variant_texts
from fdc.predicates.registry import Kind as CheckerKind
from fdc.predicates.registry import Registry

from . import ast as A

if TYPE_CHECKING:
    from .check import DomainInfo


@dataclass(frozen=True)
class TemplateEntry:
    """A checked template, ready to compile."""

    name: str
    path: str
    template: A.Template
    domain: DomainInfo
    texts: tuple[str, ...]  # instruction variants, as written
    sha256: str  # of the template's file
    source: SourceFile  # the template's file: errors about its goal are located in it

    @property
    def category(self) -> str | None:
        return self.template.category

    @property
    def level(self) -> int | None:
        return self.template.level


def is_memory_template(t: A.Template, registry: Registry) -> bool:
    """Whether a template is about the experience: tagged `memory`, or reading a history
    predicate or function."""
    if "memory" in t.tags:
        return True
    for part in (t.constraints, t.goal):
        if part is None:
            continue
        for n in part.walk():
            name = n.predicate if isinstance(n, A.Atom) else n.name \
                if isinstance(n, A.FunctionTerm) else None
            if name is not None and name in registry and \
                    registry.checker(name).kind is CheckerKind.HISTORY:
                return True
    return False


def is_memory_manipulation_template(t: A.Template, registry: Registry) -> bool:
    """Whether a memory template (`is_memory_template`) asks for manipulation: its
    goal names a fluent other than where the robot is (`(on ?o ?s)`), so its tasks
    start where the experience ends and are acted out, planned and scored as
    manipulation tasks, not answered with frames. The fluents of where the robot is
    (`Registry.robot_place`) are those a memory task's goal may name and still be
    answered by returning somewhere."""
    if t.goal is None or not is_memory_template(t, registry):
        return False
    robot_place = registry.robot_place()
    return any(isinstance(n, A.Atom) and n.predicate not in robot_place
               and n.predicate in registry
               and registry.checker(n.predicate).kind is CheckerKind.FLUENT
               for n in t.goal.walk())


def load_entries(paths: Sequence[str] | None) -> tuple[list[TemplateEntry], Any]:
    """Check template files (the built-in library when `paths` is None) and return the
    templates ready to compile, with the check result (its diagnostics for the CLI)."""
    from .check import check_paths

    files = [str(p) for p in builtin_template_files()] if paths is None else list(paths)
    result = check_paths(files)
    entries: list[TemplateEntry] = []
    if result.errors or result.usage_error:
        return entries, result
    for name, (path, t) in sorted(result.templates.items()):
        domain = result.domains[t.domain.name]
        entries.append(TemplateEntry(name, _display(path), t, domain,
                                     tuple(variant_texts(
                                         [i.text for i in t.instructions],
                                         t.instruction_file.path if t.instruction_file else None,
                                         path)),
                                     sha256_text(read_input_bytes(path, InputKind.TEMPLATE)),
                                     result.sources[path]))
    return entries, result


def domain_files(entries: Sequence[TemplateEntry]) -> dict[str, str]:
    """The domain files of `entries` that are not fdc's built-in ones, as records show
    paths, each with the sha256 of its bytes (the manifest's `domains`)."""
    from fdc.domain import builtin_domain_files

    builtin = {Path(p).resolve() for p in builtin_domain_files()}
    out: dict[str, str] = {}
    for e in entries:
        path = e.domain.path
        if not path or Path(path).resolve() in builtin or not Path(path).is_file():
            continue
        out[_display(path)] = sha256_text(read_input_bytes(path, InputKind.TEMPLATE))
    return out


def _display(path: str) -> str:
    """A template's path as records show it: relative to the working folder when inside
    it, to the built-in library for built-in templates."""
    try:
        return "fdc:domain/" + Path(path).resolve().relative_to(LIBRARY_ROOT).as_posix()
    except ValueError:
        pass
    p = Path(os.path.abspath(path))
    try:
        return p.relative_to(Path.cwd()).as_posix()
    except ValueError:
        return p.as_posix()
