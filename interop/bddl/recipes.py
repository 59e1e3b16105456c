"""Substances made during a task, from BEHAVIOR's transition rules: the recipes a
generated house (`Scene.recipes`) lists for the substances its activity's goal names.

The `bddl` package ships BEHAVIOR's transition map (`generated_data/transition_map/
tm_jsons/*.json`). Read here (at import and generation time only; fdc's default path
never imports `bddl`) are the rules that make a substance by heat, which fdc's embedded
world carries out (`transitions`' `make`: the item set down on a heat source that is
on):

| BEHAVIOR's rules | what they make | fdc recipe |
|---|---|---|
| `substance_cooking` | `cooked__rice` from `rice` | the substance in the item |
| `substance_watercooking` | `cooked__black_bean` from `black_bean`, `cooked__water` | both in it |
| `melting` | `melted__butter` from a `butter` (an object) | the object inside the item |
| `mixing_stick` | `lemonade` from `water`, `granulated_sugar`, `lemon_juice` | stirred (`mix`) |

A recipe is listed when its output, its inputs and (recursively) the recipes of its input
substances have names in the vocabulary; one with an input the activity's vocabulary does
not name is left out (nothing could hold that input).

See docs/bddl.md.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from fdc.interop.bddl.corpus import require_bddl
from fdc.interop.bddl.vocabulary import Vocabulary

#: The transition-map files read, each a list of rules made by heat.
HEAT_FILES = ("substance_cooking", "substance_watercooking", "melting")
#: ... and those whose rules stir the inputs with a mixing tool (only substances).
MIX_FILES = ("mixing_stick",)


@dataclass(frozen=True)
class Rule:
    """One of BEHAVIOR's rules: its output synset, input synsets (substances and objects
    alike, as the file lists them) and the file it comes from."""

    output: str
    inputs: tuple[str, ...]
    kind: str


def _files() -> Path:
    require_bddl()
    import bddl

    return Path(bddl.__file__).parent / "generated_data" / "transition_map" / "tm_jsons"


def read_rules() -> list[Rule]:
    """The heat rules of BEHAVIOR's transition map with one output synset each."""
    out: list[Rule] = []
    for name in (*HEAT_FILES, *MIX_FILES):
        for r in json.loads((_files() / f"{name}.json").read_text(encoding="utf-8")):
            outputs = list(r.get("output_synsets") or {})
            if len(outputs) != 1 or r.get("input_states"):
                continue
            out.append(Rule(outputs[0], tuple(sorted(r.get("input_synsets") or {})), name))
    return out


def recipes_for(wanted: Iterable[str], vocab: Vocabulary, rules: list[Rule] | None = None
                ) -> list[dict[str, object]]:
    """The recipes (`Scene.recipes` entries: output, substances, items, kind) that make the
    substance synsets `wanted`, and those of their input substances, recursively, in fdc's
    names; sorted by output and inputs."""
    rules = read_rules() if rules is None else rules
    by_output: dict[str, list[Rule]] = {}
    for r in rules:
        by_output.setdefault(r.output, []).append(r)
    todo, seen = sorted(set(wanted)), set()
    found: dict[tuple[str, tuple[str, ...], tuple[str, ...], str], dict[str, object]] = {}
    while todo:
        s = todo.pop()
        if s in seen:
            continue
        seen.add(s)
        for r in by_output.get(s, []):
            if s not in vocab.substances:
                continue
            subs = [i for i in r.inputs if i in vocab.substances]
            items = [vocab.names[i] for i in r.inputs
                     if i not in vocab.substances and i in vocab.names]
            if len(subs) + len(items) != len(r.inputs):
                continue  # an input the vocabulary does not name
            kind = "mix" if r.kind in MIX_FILES else "heat"
            if kind == "mix" and items:
                continue  # stirred: substances only
            key = (vocab.substances[s], tuple(vocab.substances[i] for i in subs), tuple(items),
                   kind)
            found[key] = {"output": key[0], "substances": list(key[1]),
                          "items": list(key[2]), "kind": kind}
            todo.extend(subs)
    return [found[k] for k in sorted(found)]


__all__ = ["HEAT_FILES", "MIX_FILES", "Rule", "read_rules", "recipes_for"]
