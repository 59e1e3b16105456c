"""docs/instructions.md is written by scripts/instructions_doc.py: the describer's rules
and 60 instructions sampled round-robin over the categories."""

from __future__ import annotations

import importlib.util
import json
from collections import Counter
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[2]


def script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("instructions_doc",
                                                  REPO / "scripts" / "instructions_doc.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_sample_goes_round_the_categories(tmp_path: Path) -> None:
    suite = tmp_path / "suite.jsonl"
    rows = [{"category": c, "template": f"{c}-{k}", "instructions": [f"Do {c} {k}."]}
            for c in ("b", "a") for k in range(3)]
    suite.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    picked = script().sample(suite, 4)
    assert [c for c, _, _ in picked] == ["a", "b", "a", "b"]
    assert "| a | `a-0` | Do a 0. |" in script().page(picked)


def test_the_page_holds_sixty_instructions_of_every_category() -> None:
    text = (REPO / "docs" / "instructions.md").read_text(encoding="utf-8")
    rows = [line for line in text.splitlines() if line.startswith("| ") and "`" in line]
    assert len(rows) == 60
    assert len({r.split("|")[1].strip() for r in rows}) >= 15


def test_the_defect_count_finds_each_defect(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location(
        "instruction_defects", REPO / "scripts" / "instruction_defects.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    suite = tmp_path / "suite.jsonl"
    texts = ["Put the book on the nightstand in the box.", "Put it on the lower compartment.",
             "Go to a apple.", "Take all the mugs off the desk.",
             "Take the book from the nightstand and put it in the box that is on the bed.",
             "Put the apple in the fridge or in the cabinet."]
    suite.write_text(json.dumps({"instructions": texts, "targets": ["mug_0"]}) + "\n",
                     encoding="utf-8")
    assert module.count(str(suite)) == {"instructions": 6, "stacked": 1,
                                        "on-compartment": 1, "a-vowel": 1,
                                        "plural-for-one": 1, "attachment-ambiguity": 1,
                                        "nested-repetition": 0,
                                        "punctuation-before-destination": 0,
                                        "stranded-preposition": 0}
    # the kinds of issue 36, each once, and by template
    texts = ["Place the plate on the table somewhere beside the bowl.",
             "Put the mug on the first shelf of the shelf.",
             "Put the clock that is on the nightstand, in the wardrobe, then close it.",
             "Return to the spot you lifted what you held at 20:26 yesterday from."]
    suite.write_text(json.dumps({"instructions": texts, "targets": ["mug_0"],
                                 "template": "t"}) + "\n", encoding="utf-8")
    by: dict[str, Counter[str]] = {}
    counts = module.count(str(suite), by)
    assert [k for k, v in counts.items() if v] == [
        "instructions", "attachment-ambiguity", "nested-repetition",
        "punctuation-before-destination", "stranded-preposition"]
    assert by["nested-repetition"] == Counter({"t": 1})
