"""`fdc import bddl`: activities in, a domain, one template per activity and a report out.

Every activity either becomes a template that `fdc check` accepts or is reported with
the reason it could not (`translate.REASONS`): BDDL's parser refused it, its goal needs
what fdc cannot say, or the generated template failed fdc's own check (each template is
checked with the generated domain before it is written, so the output is check-clean).

See docs/bddl.md.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fdc.domain import builtin_domain_files
from fdc.interop.bddl.corpus import Activity, Unreadable, read_activities
from fdc.interop.bddl.domain import DOMAIN_NAME, domain_text, read_home
from fdc.interop.bddl.translate import REASONS, Template, Unsupported, template_name, translate
from fdc.interop.bddl.vocabulary import build_vocabulary

DOMAIN_FILE = f"{DOMAIN_NAME}.pddl"
TEMPLATES_DIR = "templates"
REPORT_FILE = "report.json"


@dataclass(frozen=True)
class Failure:
    """An activity that did not become a template, and why."""

    activity: str
    path: str
    reason: str  # a key of REASONS
    detail: str


@dataclass
class ImportResult:
    domain: str
    templates: list[Template] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    total: int = 0

    def by_reason(self) -> Counter[str]:
        return Counter(f.reason for f in self.failures)

    def files(self) -> dict[str, str]:
        """The files to write, by path relative to the output folder."""
        out = {DOMAIN_FILE: self.domain}
        for t in self.templates:
            out[f"{TEMPLATES_DIR}/{t.name}.pddl"] = t.text
        out[REPORT_FILE] = json.dumps(self.report(), indent=2, sort_keys=True) + "\n"
        return out

    def report(self) -> dict[str, Any]:
        reasons = self.by_reason()
        return {
            "activities": self.total,
            "imported": len(self.templates),
            "check_clean": len(self.templates),
            "share": round(len(self.templates) / self.total, 4) if self.total else 0.0,
            "domain": DOMAIN_FILE,
            "not_imported_by_reason": {
                r: {"count": n, "meaning": REASONS[r]} for r, n in sorted(reasons.items())},
            "not_imported": [
                {"activity": f.activity, "file": f.path, "reason": f.reason, "detail": f.detail}
                for f in self.failures],
            "approximated": {
                t.activity: t.approximations for t in self.templates if t.approximations},
            "templates": {t.activity: f"{TEMPLATES_DIR}/{t.name}.pddl" for t in self.templates},
        }


def import_files(files: Sequence[tuple[str, Path]]) -> ImportResult:
    """Read, translate and check every activity of `files`."""
    read = read_activities(files)
    activities = [a for a in read if isinstance(a, Activity)]
    failures = [Failure(u.name, u.path, "unreadable", u.reason)
                for u in read if isinstance(u, Unreadable)]
    vocab = build_vocabulary(activities, read_home())
    domain = domain_text(vocab)
    templates: list[Template] = []
    seen: dict[str, str] = {}
    for a in activities:
        name = template_name(a.name)
        if name in seen:
            failures.append(Failure(a.name, a.path, "form",
                                    f"template `{name}` is also {seen[name]}'s name"))
            continue
        seen[name] = a.name
        try:
            templates.append(translate(a, vocab))
        except Unsupported as e:
            failures.append(Failure(a.name, a.path, e.reason, e.detail))
        except (KeyError, ValueError, IndexError) as e:  # a malformed problem BDDL accepted
            failures.append(Failure(a.name, a.path, "form", f"{type(e).__name__}: {e}"))
    kept, refused = _check(domain, templates)
    paths = {a.name: a.path for a in activities}
    failures.extend(Failure(t.activity, paths[t.activity], "fdc-check", why)
                    for t, why in refused)
    failures.sort(key=lambda f: f.activity)
    kept.sort(key=lambda t: t.name)
    return ImportResult(domain, kept, failures, len(read))


def _check(domain: str, templates: list[Template]
           ) -> tuple[list[Template], list[tuple[Template, str]]]:
    """The templates `fdc check` accepts with the domain (no diagnostic at all), and the
    others with the first diagnostic; a domain that fails is every template's failure."""
    from fdc.compiler.check import check_sources
    from fdc.core.problems import SourceFile

    library = [SourceFile.read(str(p)) for p in builtin_domain_files()]
    sources = [SourceFile(DOMAIN_FILE, domain)]
    by_path = {}
    for t in templates:
        path = f"{TEMPLATES_DIR}/{t.name}.pddl"
        by_path[path] = t
        sources.append(SourceFile(path, t.text))
    result = check_sources(sources, library)
    first: dict[str, str] = {}
    for d in result.diagnostics:
        first.setdefault(d.file or "", f"{d.code}: {d.message}")
    if DOMAIN_FILE in first:
        return [], [(t, f"the generated domain: {first[DOMAIN_FILE]}") for t in templates]
    kept = [t for p, t in by_path.items() if p not in first]
    refused = [(t, first[p]) for p, t in by_path.items() if p in first]
    return kept, refused
