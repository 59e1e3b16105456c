"""The installed BEHAVIOR-1K corpus as the BDDL benchmarks read it (bddl_bind.py,
bddl_scenes.py import it by name, the benchmarks folder on the path): every activity
parsed, imported by `fdc import bddl --corpus`, the vocabulary the scene generators
use, and the imported templates loaded as fdc's template entries."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from fdc.compiler.templates import TemplateEntry, load_entries
from fdc.interop.bddl.corpus import Activity, activity_files, read_activities
from fdc.interop.bddl.domain import read_home
from fdc.interop.bddl.importer import ImportResult, import_files
from fdc.interop.bddl.vocabulary import Vocabulary, build_vocabulary


@dataclass
class Corpus:
    activities: dict[str, Activity]  # by name
    result: ImportResult  # what `fdc import bddl --corpus` writes
    vocab: Vocabulary
    entries: dict[str, TemplateEntry]  # the imported templates, by template name
    templates: dict[str, str]  # activity name -> its template's name (check-clean ones)


def read_corpus() -> Corpus:
    """The whole installed corpus, imported (module doc)."""
    files = activity_files([], corpus=True)
    activities = {a.name: a for a in read_activities(files) if isinstance(a, Activity)}
    result = import_files(files)
    vocab = build_vocabulary(list(activities.values()), read_home())
    with tempfile.TemporaryDirectory() as tmp:
        for rel, text in result.files().items():
            path = Path(tmp) / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        entries, _ = load_entries([tmp])
    return Corpus(activities, result, vocab, {e.name: e for e in entries},
                  {t.activity: t.name for t in result.templates})
