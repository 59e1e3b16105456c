"""Write docs/library.md: every built-in template with one instruction rendered on the
example apartment (over the simulated experience `fdc compile` uses by default).

    .venv/bin/python scripts/library_doc.py [--seed S]

`tests/compiler/test_library.py` checks that the page lists every template.
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from pathlib import Path

from fdc.compiler.prepare import SceneJob
from fdc.compiler.printer import inline
from fdc.compiler.shards import compile_sharded, suite_records
from fdc.compiler.templates import TemplateEntry, load_entries
from fdc.core.files import write_atomic

REPO = Path(__file__).resolve().parents[1]
SCENE = "examples/scenes/apartment.json"

HEADER = """# The built-in template library

`fdc compile SCENE` compiles these templates by default (`domain/templates/`, over the
built-in domain `fdc-home`): FindingDory's memory tasks in its 11 categories, over the
robot's experience (simulated, or given with `--history`), ManiTaskGen's process
tasks (levels 1-3) and outcome tasks (level 4), and memory-manipulation tasks (about the
experience, done by moving items in the world it left behind: language.md). Each row
shows one instruction rendered on the example apartment (`{scene}`, seed {seed}; "-"
when the template makes no task there) and the template's goal. `fdc explain TEMPLATE
--scene SCENE` shows every binding.

This page is written by `scripts/library_doc.py`.

| category | count | count in the original |
|---|---|---|
{counts}
"""

ORIGINAL = {
    "object-recall": 2, "interaction": 6, "conditional-interaction": 7,
    "object-attribute": 5, "spatial-relationship": 5, "room-visitation": 5,
    "interaction-order": 16, "time-point": 2, "duration": 3, "unordered-revisit": 6,
    "ordered-revisit": 3,
}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render(entries: list[TemplateEntry], examples: dict[str, str], seed: int) -> str:
    groups: dict[str, list[TemplateEntry]] = defaultdict(list)
    for e in entries:
        groups[e.category or "-"].append(e)
    memory = [c for c in ORIGINAL if c in groups]
    others = sorted(c for c in groups if c not in ORIGINAL)
    counts = "\n".join(
        f"| {c} | {len(groups[c])} | {ORIGINAL.get(c, '-')} |" for c in [*memory, *others])
    out = [HEADER.format(scene=SCENE, seed=seed, counts=counts)]
    for c in [*memory, *others]:
        out.append(f"\n## {c}\n\n| template | level | example instruction | goal |\n"
                   "|---|---|---|---|")
        for e in sorted(groups[c], key=lambda e: e.name):
            goal = inline(e.template.goal) if e.template.goal is not None else ""
            level = str(e.level) if e.level is not None else "-"
            out.append(f"| `{e.name}` | {level} | {_cell(examples.get(e.name, '-'))} | "
                       f"`{_cell(goal)}` |")
    return "\n".join(out) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    entries, result = load_entries(None)
    if result.errors:
        raise SystemExit("the built-in library has errors: run `fdc check domain`")
    from fdc.agents.oracle import witness
    from fdc.compiler.options import CompileOptions

    run = compile_sharded([SceneJob(str(REPO / SCENE))], entries,
                          CompileOptions(seed=args.seed, max_per_template=1, witness=witness))
    examples = {r.template: r.instructions[0] for r in suite_records(run, entries)}
    write_atomic(REPO / "docs" / "library.md", render(entries, examples, args.seed))
    print(f"wrote docs/library.md: {len(entries)} templates, {len(examples)} with an example")


if __name__ == "__main__":
    main()
