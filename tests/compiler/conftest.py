"""Shared fixtures for the compiler tests: the real PDDL corpus in ../shared/fixtures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO.parent / "shared" / "fixtures" / "pddl" / "classical-domains"

#: The corpus's known-broken pairs (its README) and what must be reported for each.
KNOWN_BROKEN = {
    "fridge": ("P002", "fridge/domain.pddl", "`-compressor` is neither a number nor a name"),
    "tyreworld": ("N205", "tyreworld/domain.pddl", "unknown constant or object `wrench`"),
    "elevators-00-adl/m10-strips.pddl": (
        "N210",
        "elevators-00-adl/m10-strips.pddl",
        "domain `miconic` is defined again",
    ),
}


def corpus_pairs() -> list[dict[str, str]]:
    if not CORPUS.is_dir():
        return []
    return list(json.loads((CORPUS / "pairs.json").read_text())["pairs"])


def broken_reason(pair: dict[str, str]) -> tuple[str, str, str] | None:
    for key, reason in KNOWN_BROKEN.items():
        if pair["problem"] == key or pair["problem"].startswith(key + "/"):
            return reason
    return None


@pytest.fixture(scope="session")
def corpus() -> Path:
    if not CORPUS.is_dir():
        pytest.skip(f"the PDDL corpus is not at {CORPUS}")
    return CORPUS
