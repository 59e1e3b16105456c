"""The describe and render passes: a task's instructions, in words.

**Describe** gives every entity an instruction names its shortest unique description
(`fdc.instructions.describe`). An ambiguous one drops the binding when the template says
`(:ambiguity reject)`; under `widen` it is kept, with every entity the description fits,
for the ground pass to widen the goal over. The descriptions of the goal's targets come
after grounding (they are the goal's). **Render** fills every instruction variant with
those values in the sandboxed renderer (`fdc.instructions.render`).
See docs/architecture.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fdc.instructions.lint import names_used
from fdc.instructions.render import EntityText, Renderer, RenderError, RenderLimitError
from fdc.instructions.variants import jinja_name

from .drops import Drop, DropCode

if TYPE_CHECKING:
    from fdc.instructions.describe import Describer, Description

    from .templates import TemplateEntry


@dataclass(frozen=True)
class Words:
    """What the instructions of one binding say of its parameters."""

    used: frozenset[str]  # the names the instructions use
    values: dict[str, Any]  # the values of the parameters they name, by Jinja name
    ambiguous: dict[str, Description]  # `widen`: ambiguous parameters -> their words

    @property
    def fits(self) -> dict[str, tuple[str, ...]]:
        """Every entity the words of each ambiguous parameter fit."""
        return {p: d.fits for p, d in self.ambiguous.items()}

    def ambiguity(self, binding: Mapping[str, str]) -> Drop:
        """Why the binding drops when its words cannot be widened (a multi-goal)."""
        name = min(self.ambiguous)
        return ambiguous_drop(name, binding[name], self.ambiguous[name])


def describe_parameters(describer: Describer, entry: TemplateEntry,
                        binding: Mapping[str, str]) -> Words | Drop:
    """Describe every parameter an instruction names, or why the binding drops."""
    t = entry.template
    used = frozenset().union(*(names_used(text) for text in entry.texts))
    values: dict[str, Any] = {}
    ambiguous: dict[str, Description] = {}
    for p in t.parameters:
        name = jinja_name(p.name)
        if name not in used:
            continue
        d = describer.describe(binding[p.name], p.types)
        if not d.unique:
            if t.ambiguity == "reject":
                return ambiguous_drop(p.name, binding[p.name], d)
            ambiguous[p.name] = d
        values[name] = _entity_text(d)
    return Words(used, values, ambiguous)


def ambiguous_drop(parameter: str, entity: str, d: Description) -> Drop:
    """`parameter` = `entity` dropped as ambiguous: the words tried, and who else they fit."""
    return Drop(DropCode.AMBIGUOUS, parameter, (entity,), description=d.definite,
                rivals=tuple(e for e in d.fits if e != entity))


def describe_targets(describer: Describer, words: Words, targets: Sequence[str]
                     ) -> dict[str, Any]:
    """Every value the instructions may use: the parameters', and the goal's targets."""
    described = [_entity_text(describer.describe(e)) for e in targets] \
        if "targets" in words.used else []
    return {**words.values, "targets": described, "n_targets": len(targets)}


def render_variants(renderer: Renderer, texts: Sequence[str], values: Mapping[str, Any]
                    ) -> list[str] | Drop:
    """Every instruction variant rendered with `values`, or why the binding drops."""
    rendered: list[str] = []
    for text in texts:
        try:
            rendered.append(renderer.render(text, values))
        except RenderLimitError as e:
            return Drop(DropCode.RENDER_LIMIT, e.limit)
        except RenderError as e:
            return Drop(DropCode.UNRENDERABLE, str(e))
    return rendered


def _entity_text(d: Description) -> EntityText:
    return EntityText(d.phrase, d.entity, d.definite, value=d.value, inside=d.inside,
                      relation=d.relation, relation_kind=d.relation_kind, clause=d.clause)
