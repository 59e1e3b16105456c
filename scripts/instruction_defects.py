"""Count the instruction defects of issue 17 in compiled suites (a measurement, not a
check: `fdc validate`'s listener is the check).

    python scripts/instruction_defects.py out/suite.jsonl [more suites...]

Per suite: instructions, and those with stacked locatives (a place phrase whose noun is
followed by another place: "on the nightstand in the box"; a coordination "in the
fridge or in the cabinet" is not one), "on"/"off" a compartment or drawer, "a" before a
vowel sound, and "all the <plural>" in a task with one target; and the misleading
wording of issue 36 the listener finds (`fdc.instructions.listen.WORDING`): attachment
ambiguity, nested repetition, punctuation before a destination, stranded prepositions.

    python scripts/instruction_defects.py --by-template out/suite.jsonl

adds, per kind, the templates with defects and how many.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter

from fdc.instructions.listen import WORDING, wording

_WORD = r"(?!(?:the|that|and|then|it|which|so|of|to|or|but|either)\b)[\w'-]+"
STACKED = re.compile(rf"\b(?:on|in|into|onto|off|from|inside|next to|near) the "
                     rf"(?:{_WORD} ){{0,3}}{_WORD} (?:on|in|inside|next to) the\b", re.I)
ON_COMPARTMENT = re.compile(rf"\b(?:on|onto|off) the (?:{_WORD} )*?(?:compartment|drawer)\b",
                            re.I)
A_VOWEL = re.compile(r"\ba ([aeiou]\w*)", re.I)
CONSONANT_SOUND = re.compile(r"(uni|use|usu|one|eu|ur)", re.I)
ALL_THE_PLURAL = re.compile(r"\ball the \w+s\b")


def defects(text: str, targets: int) -> list[str]:
    """The kinds of defect of one instruction of a task with `targets` targets."""
    out = []
    if STACKED.search(text):
        out.append("stacked")
    if ON_COMPARTMENT.search(text):
        out.append("on-compartment")
    m = A_VOWEL.search(text)
    if m and not CONSONANT_SOUND.match(m.group(1)):
        out.append("a-vowel")
    if targets == 1 and ALL_THE_PLURAL.search(text) and "everything" not in text:
        out.append("plural-for-one")
    out.extend(kind for kind, _ in wording(text))
    return out


def count(path: str, by_template: dict[str, Counter[str]] | None = None) -> dict[str, int]:
    """Instructions, and those with each kind of defect, in the suite at `path`; with
    `by_template`, also the count per kind and template."""
    out = dict.fromkeys(["instructions", "stacked", "on-compartment", "a-vowel",
                         "plural-for-one", *WORDING], 0)
    with open(path, encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            for t in r["instructions"]:
                out["instructions"] += 1
                for kind in defects(t, len(r["targets"])):
                    out[kind] += 1
                    if by_template is not None:
                        by_template.setdefault(kind, Counter())[r.get("template", "?")] += 1
    return out


def main(args: list[str]) -> int:
    by = "--by-template" in args
    paths = [a for a in args if a != "--by-template"]
    if not paths:
        print("usage: python scripts/instruction_defects.py [--by-template] SUITE.jsonl...",
              file=sys.stderr)
        return 2
    for p in paths:
        found: dict[str, Counter[str]] = {}
        try:
            counts = count(p, found if by else None)
        except (OSError, ValueError, KeyError, TypeError) as e:
            print(f"error: {p}: cannot read the suite ({type(e).__name__}: {e}); expected a "
                  "suite.jsonl that fdc compile wrote", file=sys.stderr)
            return 2
        print(p, " ".join(f"{k} {v}" for k, v in counts.items()))
        for kind, templates in sorted(found.items()):
            print(f"  {kind}:", ", ".join(f"{t} {n}" for t, n in templates.most_common()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
