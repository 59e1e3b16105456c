"""The resolve/typecheck pass, and its driver over many files.

`check_sources` takes every parsed file at once, so problems and templates find their
domain among the definitions given (and fdc's built-in domains). Every finding is a
`Diagnostic`; nothing here raises on bad input. `TypeChecker` checks each definition:
domains are resolved in `fdc.compiler.domains`, formulas typed in
`fdc.compiler.formulas`; here, the domain, problem and template checks that use both.

See docs/architecture.md.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fdc.core.inputs import InputFileError
from fdc.core.problems import Diagnostic, SourceFile, did_you_mean, sort_key
from fdc.domain import builtin_domain_files
from fdc.instructions.lint import lint_instructions
from fdc.instructions.variants import FileRef, Inline, read_variants

from . import ast as A
from .domains import BUILTIN_FUNCTIONS, ERROR, WARNING, DomainInfo
from .formulas import FormulaChecker, _Context, _Var
from .parse import ParseResult, parse_source

__all__ = ("BUILTIN_FUNCTIONS", "CheckResult", "DomainInfo", "TypeChecker", "check_paths",
           "check_sources", "expand_paths", "missing_message")


class TypeChecker(FormulaChecker):
    """Checks the definitions of a set of files against each other."""

    # ------------------------------------------------------------------ domains
    def check_domain(self, info: DomainInfo) -> None:
        self.path = info.path
        domain = info.domain
        seen: dict[str, A.Node] = {}
        actions: list[A.Action | A.DurativeAction] = [*domain.actions, *domain.durative_actions]
        for action in actions:
            if action.name in seen:
                self._duplicate("action", action.name, action, seen[action.name])
            seen[action.name] = action
            self._check_parameters(info, action.parameters, "action", action.name)
            scope = self._scope(action.parameters)
            ctx_objects = info.constants
            if isinstance(action, A.Action):
                pairs = [
                    (action.precondition, "condition", "the precondition"),
                    (action.effect, "effect", "the effect"),
                ]
            else:
                pairs = [
                    (action.duration, "duration", "the duration"),
                    (action.condition, "durative-condition", "the condition"),
                    (action.effect, "durative-effect", "the effect"),
                ]
                scope["?duration"] = _Var((), A.TypedName.make(name="?duration"), True, False)
            for formula, kind, words in pairs:
                if formula is not None:
                    ctx = _Context(f"{words} of action `{action.name}`", kind, ctx_objects)
                    self.formula(info, formula, scope, ctx)
        for d in domain.derived:
            self._check_parameters(
                info, d.predicate.parameters, "derived predicate", d.predicate.name
            )
            scope = self._scope(d.predicate.parameters)
            ctx = _Context(f"derived predicate `{d.predicate.name}`", "condition", info.constants)
            self.formula(info, d.body, scope, ctx)
        if domain.constraints is not None:
            ctx = _Context(
                f"the constraints of domain `{domain.name}`", "constraint", info.constants
            )
            self.formula(info, domain.constraints, {}, ctx)

    # ------------------------------------------------------------------ registry
    def check_registry(self, info: DomainInfo) -> None:
        """A domain that templates use must agree with fdc's predicate checkers."""
        from fdc.predicates.builtin import default_registry

        self.path = info.path
        domain = info.domain
        problems = default_registry().signature_problems(
            domain.predicates, domain.functions, type_parents=info.parents
        )
        decls: dict[str, A.Node] = {**{f.name: f for f in domain.functions}}
        decls.update({p.name: p for p in domain.predicates})
        known = default_registry().default_thresholds()
        seen_thresholds: set[str] = set()
        for t in domain.thresholds:
            if t.name not in known:
                self.report(
                    ERROR,
                    "R705",
                    f"unknown threshold `{t.name}`",
                    self.name_span(t, t.name),
                    did_you_mean(t.name, sorted(known))
                    or "the thresholds are listed in docs/predicates.md",
                )
            elif not (t.value >= 0 and math.isfinite(t.value)):
                self.report(ERROR, "R705", f"threshold `{t.name}` must be finite and >= 0", t.span)
            elif t.name in seen_thresholds:
                self.report(ERROR, "R705", f"threshold `{t.name}` is set twice", t.span)
            seen_thresholds.add(t.name)
        for problem in problems:
            (name,) = problem.entities
            self.report(
                ERROR,
                _REGISTRY_CODES.get(problem.code, "R701"),
                problem.message,
                self.name_span(decls.get(name, domain), name),
                problem.hint,
            )

    # ------------------------------------------------------------------ problems
    def check_problem(self, info: DomainInfo, problem: A.Problem, path: str) -> None:
        self.path = path
        objects: dict[str, A.TypedName] = {}
        for o in problem.objects:
            self._check_types(info, o.types, o.span)
            if o.name in objects:
                self.report(
                    WARNING,
                    "N206",
                    f"object `{o.name}` is declared twice",
                    o.span,
                    "drop one declaration",
                )
            elif o.name in info.constants:
                self.report(
                    WARNING,
                    "N208",
                    f"object `{o.name}` repeats constant `{o.name}` of domain `{info.domain.name}`",
                    o.span,
                    "the domain's constants are objects of every problem already",
                )
            objects[o.name] = o
        where = f"problem `{problem.name}`"
        init_ctx = _Context(f"the initial state of {where}", "init", objects)
        for fact in problem.init:
            self.formula(info, fact, {}, init_ctx)
            if isinstance(fact, A.Comparison) and fact.op != "=":
                self.report(
                    ERROR,
                    "T305",
                    f"the initial state sets values with `=`, not `{fact.op}`",
                    fact.span,
                )
        if problem.goal is not None:
            self.formula(
                info, problem.goal, {}, _Context(f"the goal of {where}", "condition", objects)
            )
        if problem.constraints is not None:
            ctx = _Context(f"the constraints of {where}", "constraint", objects)
            self.formula(info, problem.constraints, {}, ctx)
        if problem.metric is not None:
            ctx = _Context(f"the metric of {where}", "condition", objects)
            self.numeric(info, problem.metric.expr, {}, ctx)

    # ------------------------------------------------------------------ templates
    def _instructions(self, info: DomainInfo, template: A.Template, path: str,
                      scope: dict[str, Any]) -> set[str]:
        """Lint the template's instruction variants; the parameters they mention."""
        inline = [Inline(i.text, i.span) for i in template.instructions]
        ref = template.instruction_file
        file_ref = FileRef(ref.path, ref.span) if ref is not None else None
        problems: list[Diagnostic] = []
        variants = read_variants(inline, file_ref, path, self.sources, problems)
        # a parameter that holds one entity (not a category, a colour, a number)
        entities = {"movable", "furniture", "surface", "room"}
        single = {name for name, var in scope.items()
                  if var.types and all(entities & info.ancestors(t) for t in var.types)}
        used: set[str] = lint_instructions(variants, template.name, scope, problems, single)
        self.diagnostics.extend(problems)
        return used

    def check_template(self, info: DomainInfo, template: A.Template, path: str) -> None:
        self.path = path
        where = f"template `{template.name}`"
        self._check_parameters(info, template.parameters, "template", template.name)
        scope = self._scope(template.parameters, report_unused=True)
        if template.constraints is not None:
            ctx = _Context(f"the binding constraints of {where}", "binding", info.constants, True)
            self.formula(info, template.constraints, scope, ctx)
        if template.goal is None:
            self.report(
                ERROR,
                "G503",
                f"{where} has no goal",
                self.name_span(template, template.name),
                "add `(:goal ...)`: what must hold for the task to succeed",
            )
        elif isinstance(template.goal, A.Empty) or template.goal == A.And(parts=()):
            self.report(
                ERROR,
                "G503",
                f"{where} has an empty goal",
                template.goal.span,
                "a task whose goal is always true tests nothing; state what must hold",
            )
        else:
            ctx = _Context(f"the goal of {where}", "template-goal", info.constants, True)
            self.formula(info, template.goal, scope, ctx)
        if not template.instructions and template.instruction_file is None:
            self.report(
                ERROR,
                "G503",
                f"{where} has no instruction",
                self.name_span(template, template.name),
                'add `(:instruction "...")` or `(:instruction-file "name.j2")`',
            )
        used_in_text = self._instructions(info, template, path, scope)
        for name in used_in_text:
            if name in scope:
                scope[name].used = True
        self._unused(template.parameters, scope)
        if info.domain.durative_actions:
            da = info.domain.durative_actions[0]
            self.report(
                WARNING,
                "G504",
                f"domain `{info.domain.name}` has durative actions (`{da.name}`, ...), "
                "which fdc's planner export ignores",
                template.domain.span,
                "process tasks are solved with the domain's classical actions",
            )


_REGISTRY_CODES = {
    "no-checker": "R701",
    "not-a-predicate": "R702",
    "not-a-function": "R702",
    "arity": "R703",
    "parameter-type": "R704",
}


# ---------------------------------------------------------------------------- driver



@dataclass
class CheckResult:
    units: list[A.SourceUnit]
    sources: dict[str, SourceFile]
    diagnostics: list[Diagnostic]
    usage_error: bool = False
    domains: dict[str, DomainInfo] = field(default_factory=dict)  # resolved, by name
    templates: dict[str, tuple[str, A.Template]] = field(default_factory=dict)  # name -> path

    @property
    def definition_count(self) -> int:
        return sum(len(u.definitions) for u in self.units)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.is_error]


def expand_paths(paths: Sequence[str]) -> tuple[list[str], list[str]]:
    """Files named (reading them refuses what is not a regular file), and `.pddl` files
    under folders named (sorted); plus missing paths."""
    files: list[str] = []
    missing: list[str] = []
    for p in paths:
        if os.path.isdir(p):
            found = sorted(str(f) for f in Path(p).rglob("*.pddl") if f.is_file())
            if not found:
                missing.append(p)
            files.extend(found)
        elif os.path.exists(p):
            files.append(p)
        else:
            missing.append(p)
    return list(dict.fromkeys(files)), missing


def missing_message(path: str) -> str:
    """Why `expand_paths` found nothing at `path`."""
    return "no .pddl file in this folder" if os.path.isdir(path) else "no such file or folder"


def check_sources(
    sources: Sequence[SourceFile],
    library: Sequence[SourceFile] = (),
    *,
    texts: Sequence[SourceFile] = (),
    parse: Callable[[SourceFile], ParseResult] = parse_source,
) -> CheckResult:
    """Parse and check `sources`; `library` files (built-in domains) resolve names only.

    `texts` are instruction files as an editor holds them (read from disk when not
    given); `parse` parses one file (an editor passes a cached `parse_source`).
    """
    all_sources = {s.path: s for s in (*texts, *library, *sources)}
    diagnostics: list[Diagnostic] = []
    units: list[A.SourceUnit] = []
    lib_units: list[A.SourceUnit] = []
    for src, bucket in [*((s, lib_units) for s in library), *((s, units) for s in sources)]:
        result = parse(src)
        if bucket is units:
            diagnostics.extend(result.diagnostics)
        if result.unit is not None:
            bucket.append(result.unit)
    checker = TypeChecker(all_sources)
    lib_paths = {u.path for u in lib_units}
    domains: dict[str, DomainInfo] = {}
    # Built-in domains first; a user's domain of the same name replaces the built-in one.
    for unit, own in [*((u, False) for u in lib_units), *((u, True) for u in units)]:
        for d in unit.definitions:
            if isinstance(d, A.Domain):
                if own and d.name in domains and domains[d.name].path not in lib_paths:
                    checker.path = unit.path
                    checker.report(
                        ERROR,
                        "N210",
                        f"domain `{d.name}` is defined again (first in {domains[d.name].path})",
                        checker.name_span(d, d.name),
                        "give each domain its own name",
                    )
                    continue
                info = checker.resolve_domain(d, unit.path)
                if own:
                    domains[d.name] = info
                else:
                    domains.setdefault(d.name, info)
    unparsed = len(units) < len(sources)
    # A definition the parser already complained about is not checked further: its
    # placeholder nodes would only produce follow-on errors.
    broken = {
        (d.file, defn.span)
        for d in diagnostics
        for unit in units
        if unit.path == d.file
        for defn in unit.definitions
        if defn.span.start <= d.span.start < defn.span.end
    }
    for info in domains.values():
        if info.path not in lib_paths and (info.path, info.domain.span) not in broken:
            checker.guarded(info.path, info.domain, checker.check_domain, info)
    templates: dict[str, tuple[str, A.Template]] = {}
    template_domains: list[DomainInfo] = []
    for unit in units:
        for d in unit.definitions:
            if isinstance(d, A.Domain) or (unit.path, d.span) in broken:
                continue
            ref = d.domain
            found = domains.get(ref.name)
            checker.path = unit.path
            if found is None:
                if ref.name:
                    checker.report(
                        ERROR,
                        "N201",
                        f"unknown domain `{ref.name}`",
                        ref.span,
                        did_you_mean(ref.name, list(domains))
                        or (
                            "its file may be among those that did not parse; fix them first"
                            if unparsed
                            else "pass the domain's file to `fdc check` along with this one"
                        ),
                    )
                continue
            if isinstance(d, A.Problem):
                checker.guarded(unit.path, d, checker.check_problem, found, d, unit.path)
            else:
                if d.name in templates:
                    checker.report(
                        ERROR,
                        "N210",
                        f"template `{d.name}` is defined again (first in {templates[d.name][0]})",
                        checker.name_span(d, d.name),
                        "template names identify tasks: give each its own",
                    )
                templates.setdefault(d.name, (unit.path, d))
                if found not in template_domains:
                    template_domains.append(found)
                checker.guarded(unit.path, d, checker.check_template, found, d, unit.path)
    for info in template_domains:
        if info.path not in lib_paths and (info.path, info.domain.span) not in broken:
            checker.check_registry(info)
    diagnostics.extend(d for d in checker.diagnostics if d.file not in lib_paths)
    diagnostics.sort(key=sort_key)
    own_sources = {p: s for p, s in checker.sources.items() if p not in lib_paths}
    return CheckResult(units, own_sources, diagnostics, domains=domains, templates=templates)


def check_paths(paths: Sequence[str], builtin: bool = True) -> CheckResult:
    """`fdc check`: read every file under `paths` and check them together."""
    files, missing = expand_paths(paths)
    sources: list[SourceFile] = []
    diagnostics: list[Diagnostic] = []
    usage_error = bool(missing)
    for m in missing:
        diagnostics.append(
            Diagnostic(
                severity=ERROR,
                code="P001",
                message=missing_message(m),
                file=m,
                hint="check the path",
            )
        )
    for f in files:
        try:
            sources.append(SourceFile.read(f))
        except InputFileError as e:
            usage_error = True
            diagnostics.append(
                Diagnostic(severity=ERROR, code="P001", message=f"cannot read the file: {e.reason}",
                           file=f, hint=e.hint)
            )
    library: list[SourceFile] = []
    if builtin:
        own = {os.path.realpath(s.path) for s in sources}
        library = [
            SourceFile.read(str(p))
            for p in builtin_domain_files()
            if os.path.realpath(p) not in own
        ]
    result = check_sources(sources, library)
    result.diagnostics[:0] = diagnostics
    result.usage_error = usage_error
    return result
