"""Write docs/instructions.md: the describer's rules and 60 rendered instructions.

Compiles the example apartment with the built-in library (`fdc compile`, seed 0, two
tasks per template), takes instructions round-robin over the categories (templates in
order, one variant each, the variant chosen by the task's position), and writes the page.
Run from the repository's root after a change of the describer, the renderer or the
library: `python scripts/instructions_doc.py`, then read the diff.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SAMPLES = 60

RULES = """\
# Instructions: how fdc says what a task asks

An instruction is the half of a task that a person or a model reads. fdc renders it from
the template's Jinja text (see [language.md](language.md#instructions)) with a
**referring expression** for every entity it names, and reads it back with a
**listener** before a suite passes `fdc validate`.

## The describer's rules

`fdc.instructions.describe` names each entity with the shortest description that no
other entity of the scene fits (among those of the same kind and name):

1. **The name**: an item's or a piece of furniture's name ("the banana"), a room's ("the
   kitchen"); a surface by its furniture ("the table", "the second shelf of the
   bookshelf": shelves are numbered from the bottom, "the lower compartment of the
   fridge"); a part whose name is its furniture's is named by its level ("the first
   level of the shelf", not "the first shelf of the shelf"). Surfaces of one piece of
   furniture whose names say the same (Habitat's
   sub-meshes `shelf.0000`, `shelf.0001`, ...) are named by their height, when they are
   at least 0.1 m apart: "the bottom shelf", "the top shelf", "the second shelf from
   the top of the bookshelf" (counted from the nearer end).
2. **Adjectives**, in English order: size, shape, colour, material ("the small round
   white plate"); a surface takes its furniture's ("the top of the white cabinet").
3. **One relation**, at most, after the adjectives, in this order of preference: where
   an item stands ("the mug on the desk", "the milk in the lower compartment of the
   fridge": *in* a compartment, a drawer or a container, *on* a top or a shelf); its
   room ("the lamp in the bedroom"); both at once, the room as a modifier ("the mug on
   the kitchen table"); a landmark next to a piece of furniture or a surface, furniture
   whose name is unique in the room, within 0.6 m ("the counter next to the fridge");
   what stands on it ("the shelf with a vase on it").
4. Every combination is tried from the smallest; ties go by the order above. A relation
   is compared by its words: "on the table" tells nothing apart when there are two
   tables.
5. **The last resort, its place**: furniture (or a surface of it) that nothing above
   singles out is named by its place left to right among the furniture of its name in
   its room, as seen from the room's doorway, with no other feature: "the left
   counter", "the right counter" (two); "the leftmost cabinet", "the second cabinet
   from the right", "the top of the rightmost cabinet" (three or more, counted from the
   nearer end), with its room as a modifier when another room has furniture of that
   name in that place ("the left kitchen cabinet"). The doorway is the room's door
   nearest, along the floor, to where the robot starts, looking at the room's centre;
   a room without doors has no left and right. A place is given only when the order
   is clear: neighbours at least 0.5 m apart across the view, from the end counted
   from up to the piece named (one behind another is not to the left of it).
6. When nothing singles an entity out, the template's `:ambiguity` decides: `reject`
   drops the binding (the manifest counts it), `widen` keeps it and widens the goal to
   every entity the words fit.

## Sentences

- **No stacked locatives.** A description with a relation next to another place, or
  the object of a verb of putting (put, place, set, move, bring, take, fit, store,
  carry) with a place later in its clause, is rewritten: the object is taken from
  where it is in a clause of its own ("Take the book from the nightstand and put it in
  the box that is on the bed.", "Take the blue plate from the table and place it
  somewhere beside the bowl.", not "Place the blue plate on the table somewhere beside
  the bowl"), any other gets a relative clause ("the box that is on the bed"). The
  split is not made when the sentence says "it" or "its" of another entity after the
  item ("..., then close it": "it" would be ambiguous); the relative clause is then
  closed by a comma when a place that could continue it follows ("on", "in", "next
  to", ...; not a direction: "the book that is on the desk to the kitchen"), and the
  listener warns. The library's templates name such an entity again instead ("then
  close the wardrobe", "the right part of the sofa").
- **Prepositions by what the target is**: `{{ s | on }}` says "in the lower compartment
  of the fridge" or "on the desk"; `{{ s | off }}` "out of ..." or "off ...".
- **Articles by sound** (`{{ x | a }}`: "an apple", "a unicorn", "an hour"), **number by
  the set's size** (`{{ c | all_the(n_targets) }}`: "the mug", "both mugs", "all the
  mugs"), a **pronoun** for a second mention (`{{ x | it }}`).
- **Typography**: one line, single spaces, no space before punctuation, no doubled
  punctuation, a capital first letter.
- `fdc check` warns on `a {{ x }}` (J608) and on the plural of a one-entity parameter
  (J609), and refuses unknown filters (J603).

## The listener

`fdc validate` reads every instruction back without its bindings
(`fdc.instructions.listen`): each definite mention ("the red mug", "the counter that is
next to the cabinet", "the left counter", "Take the book from the nightstand") is
resolved against the scene, in the state the task starts in, by the describer's own
vocabulary. A mention followed by a clause about the robot's past ("the pen you picked
up yesterday") and, in a memory task, any mention is narrowed by the items the robot
moved. A mention that fits several entities is an `ambiguous-reference`; one that fits
none, or an entity the task is not about, a `wrong-reference`.

It also warns on wording that misleads though every mention resolves
(`listen.wording`; `fdc compile` prints a warning per kind with its first instance,
`fdc validate` lists each):

- `attachment-ambiguity`: "Place the blue plate on the table somewhere beside the bowl"
  ("on the table" reads as where to put it);
- `nested-repetition`: "the first shelf of the shelf";
- `punctuation-before-destination`: "Put the clock that is on the nightstand, in the
  wardrobe, then close it.";
- `stranded-preposition`: "Return to the spot you lifted what you held at 20:26
  yesterday from."

`python scripts/instruction_defects.py [--by-template] SUITE.jsonl...` counts every kind
(these and issue 17's: stacked locatives, "on" a compartment, "a" before a vowel, a
plural for one target) in compiled suites.

## Variety

The manifest reports, per template, the number of distinct instruction texts
(`instructions`) and the distinct word bigrams over all word bigrams of those texts
(`bigram_ratio`).
"""


def compile_suite(out: Path) -> Path:
    suite = out / "suite.jsonl"
    subprocess.run([sys.executable, "-m", "fdc", "compile", "examples/scenes/apartment.json",
                    "--seed", "0", "--max-per-template", "2", "-o", str(suite)],
                   cwd=REPO, check=True, stdout=subprocess.DEVNULL)
    return suite


def sample(suite: Path, n: int = SAMPLES) -> list[tuple[str, str, str]]:
    """(category, template, instruction), round-robin over the categories."""
    by_category: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for k, line in enumerate(suite.read_text(encoding="utf-8").splitlines()):
        r = json.loads(line)
        text = r["instructions"][k % len(r["instructions"])]
        by_category[r["category"] or "-"].append((r["template"], text))
    queues = {c: sorted(v) for c, v in sorted(by_category.items())}
    out: list[tuple[str, str, str]] = []
    while len(out) < n and any(queues.values()):
        for c, q in queues.items():
            if q and len(out) < n:
                template, text = q.pop(0)
                out.append((c, template, text))
    return out


def page(samples: list[tuple[str, str, str]]) -> str:
    bar = "\\|"
    rows = "\n".join(f"| {c} | `{t}` | {x.replace('|', bar)} |" for c, t, x in samples)
    return (RULES + f"\n## A sample of {len(samples)} instructions\n\n"
            "Rendered from the example apartment (`fdc compile examples/scenes/"
            "apartment.json --seed 0 --max-per-template 2`) by "
            "`python scripts/instructions_doc.py`, which writes this page.\n\n"
            "| category | template | instruction |\n|---|---|---|\n" + rows + "\n")


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="fdc-instructions.") as d:
        suite = compile_suite(Path(d))
        text = page(sample(suite))
    (REPO / "docs" / "instructions.md").write_text(text, encoding="utf-8")
    print("wrote docs/instructions.md", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
