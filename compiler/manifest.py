"""The suite manifest (format 1.0): what a `suite.jsonl` was compiled from, what it holds,
and every binding dropped, by reason. `emit.build_manifest` fills it; `fdc schema
manifest` prints its JSON Schema.
See docs/formats/manifest.md.
"""

from __future__ import annotations

import json
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)


class ExperienceRef(_Model):
    """The experience a scene's memory tasks are about."""

    sha256: str
    source: str = Field(description="`fdc-embedded` (simulated) or where a given log came from.")
    simulated: bool
    path: str | None = Field(default=None, description="The log file, when one was given.")
    seed: int | None = None
    frames: int
    interactions: int


class SceneEntry(_Model):
    path: str
    sha256: str = Field(description="sha256 of the scene's canonical JSON.")
    experience: ExperienceRef | None = None
    tasks: int


class TemplateFile(_Model):
    path: str
    sha256: str


class DropExample(_Model):
    """The first binding met that dropped for one reason (scenes in the order given)."""

    scene: str
    binding: dict[str, str] = Field(description="Empty when the reason was found while "
                                    "binding (it is counted per partial binding).")
    code: str = Field(description="The reason's code (`fdc.compiler.drops.DropCode`).")
    message: str = Field(description="The reason in full, entities named, as `fdc explain` "
                         "shows it.")
    entities: list[str] = Field(default_factory=list, description="The entities concerned.")
    description: str | None = Field(default=None, description="`ambiguous`: the words "
                                    "tried for the parameter.")
    rivals: list[str] = Field(default_factory=list, description="`ambiguous`: every other "
                              "entity those words fit.")


class TemplateCounts(_Model):
    """One template over every scene."""

    file: str
    category: str | None = None
    level: int | None = None
    bindings: int = Field(description="Bindings satisfying the constraints, all scenes "
                          "(estimated where `sampled`).")
    sampled: bool = Field(default=False, description="Bindings were drawn by sampling "
                          "on some scene (too many to enumerate).")
    visited: int = Field(description="Bindings examined (fewer under --max-per-template).")
    tasks: int
    drops: dict[str, int] = Field(default_factory=dict, description="Dropped, by reason.")
    drop_examples: dict[str, DropExample] = Field(
        default_factory=dict, description="Per reason of `drops`, the first binding met.")
    errors: list[str] = Field(
        default_factory=list, description="Scenes where the template could not compile."
    )
    instructions: int = Field(default=0, description="Distinct instruction texts of its "
                              "tasks (every variant).")
    bigram_ratio: float = Field(default=0.0, description="Distinct word bigrams over all "
                                "word bigrams of its tasks' instructions (0 to 1: higher "
                                "is more varied).")


class Manifest(_Model):
    """What a `suite.jsonl` was compiled from, and what was dropped (format 1.0)."""

    format_version: Literal["1.0"] = "1.0"
    kind: Literal["fdc-manifest"] = "fdc-manifest"
    fdc_version: str
    suite: str = Field(description="The suite file's name.")
    suite_sha256: str
    seed: int
    max_per_template: int | None = None
    max_atoms: int
    scenes: list[SceneEntry]
    templates: list[TemplateFile] = Field(description="Every template file compiled.")
    domains: list[TemplateFile] = Field(
        default_factory=list, description="The domain files of the templates that are not "
        "fdc's built-in ones (`fdc import bddl`'s `bddl-home.pddl`): reopening the suite "
        "checks the templates with them. Left out of the file when there is none.")
    tasks: int
    per_category: dict[str, int]
    per_level: dict[str, int]
    per_template: dict[str, TemplateCounts]
    drops: dict[str, int] = Field(description="Dropped bindings by reason, all templates.")

    def to_json(self) -> str:
        data = self.model_dump(mode="json")
        if not data["domains"]:  # suites over fdc's own domains read as they always did
            del data["domains"]
        return json.dumps(data, indent=2, sort_keys=True) + "\n"
