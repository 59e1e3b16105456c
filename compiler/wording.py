"""The describe and render passes: a task's instructions, in words.

**Describe** gives every entity an instruction names its shortest unique description
(`fdc.instructions.describe`). An ambiguous one drops the binding when the template says
`(:ambiguity reject)`; under `widen` it is kept, with every entity the description fits,
for the ground pass to widen the goal over. The descriptions of the goal's targets come
after grounding (they are the goal's). **Render** fills every instruction variant with
those values in the sandboxed renderer (`fdc.instructions.render`).
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

    from .compile import TemplateEntry


@dataclass(frozen=True)
class Words:
    """What the instructions of one binding say of its parameters."""

    used: frozenset[str]  # the names the instructions use
    values: dict[str, Any]  # the values of the parameters they name, by Jinja name
    widen: dict[str, tuple[str, ...]]  # ambiguous parameters -> every entity that fits


def describe_parameters(describer: Describer, entry: TemplateEntry,
                        binding: Mapping[str, str]) -> Words | Drop:
    """Describe every parameter an instruction names, or why the binding drops."""
    t = entry.template
    used = frozenset().union(*(names_used(text) for text in entry.texts))
    values: dict[str, Any] = {}
    widen: dict[str, tuple[str, ...]] = {}
    for p in t.parameters:
        name = jinja_name(p.name)
        if name not in used:
            continue
        d = describer.describe(binding[p.name], p.types)
        if not d.unique:
            if t.ambiguity == "reject":
                return Drop(DropCode.AMBIGUOUS, p.name, (binding[p.name],))
            widen[p.name] = d.fits
        values[name] = _entity_text(d)
    return Words(used, values, widen)


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
    return EntityText(d.phrase, d.entity, d.definite, value=d.value)
