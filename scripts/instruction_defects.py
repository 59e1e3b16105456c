"""Count the instruction defects of issue 17 in compiled suites (a measurement, not a
check: `fdc validate`'s listener is the check).

    python scripts/instruction_defects.py out/suite.jsonl [more suites...]

Per suite: instructions, and those with stacked locatives (a place phrase whose noun is
followed by another place: "on the nightstand in the box"; a coordination "in the
fridge or in the cabinet" is not one), "on"/"off" a compartment or drawer, "a" before a
vowel sound, and "all the <plural>" in a task with one target.
"""

from __future__ import annotations

import json
import re
import sys

_WORD = r"(?!(?:the|that|and|then|it|which|so|of|to|or|but|either)\b)[\w'-]+"
STACKED = re.compile(rf"\b(?:on|in|into|onto|off|from|inside|next to|near) the "
                     rf"(?:{_WORD} ){{0,3}}{_WORD} (?:on|in|inside|next to) the\b", re.I)
ON_COMPARTMENT = re.compile(rf"\b(?:on|onto|off) the (?:{_WORD} )*?(?:compartment|drawer)\b",
                            re.I)
A_VOWEL = re.compile(r"\ba ([aeiou]\w*)", re.I)
CONSONANT_SOUND = re.compile(r"(uni|use|usu|one|eu|ur)", re.I)
ALL_THE_PLURAL = re.compile(r"\ball the \w+s\b")


def count(path: str) -> dict[str, int]:
    out = {"instructions": 0, "stacked": 0, "on-compartment": 0, "a-vowel": 0,
           "plural-for-one": 0}
    with open(path, encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            for t in r["instructions"]:
                out["instructions"] += 1
                out["stacked"] += bool(STACKED.search(t))
                out["on-compartment"] += bool(ON_COMPARTMENT.search(t))
                m = A_VOWEL.search(t)
                out["a-vowel"] += bool(m and not CONSONANT_SOUND.match(m.group(1)))
                out["plural-for-one"] += len(r["targets"]) == 1 and \
                    bool(ALL_THE_PLURAL.search(t)) and "everything" not in t
    return out


def main(paths: list[str]) -> int:
    for p in paths:
        print(p, " ".join(f"{k} {v}" for k, v in count(p).items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
