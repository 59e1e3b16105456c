"""Rendering instructions: templates are third-party input, so Jinja runs sandboxed.

`Renderer` compiles each instruction variant once, in a `SandboxedEnvironment` with
`StrictUndefined` (a misspelt name is an error, never an empty string) and fdc's filters.
Parameters reach an instruction as `EntityText`: a string holding the entity's bare noun
phrase ("red mug"), so every text filter works on it, with the entity's `id`, its
definite `description` ("the red mug", what `ref` prints) and `indefinite` form.
Whitespace is normalised: an instruction is one line of single-spaced words.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fdc.core.errors import FdcError
from fdc.instructions.filters import FILTERS, article


class RenderError(FdcError, ValueError):
    """An instruction that cannot be rendered with these values."""


class EntityText(str):
    """An entity as an instruction sees it: its bare noun phrase, with attributes."""

    id: str
    description: str
    indefinite: str

    def __new__(cls, phrase: str, ident: str, description: str, value: bool = False
                ) -> EntityText:
        obj = super().__new__(cls, phrase)
        obj.id = ident
        obj.description = description
        obj.indefinite = phrase if value else f"{article(phrase)} {phrase}"
        return obj


class Renderer:
    """Renders instruction texts; each distinct text is compiled once."""

    def __init__(self) -> None:
        from jinja2 import StrictUndefined
        from jinja2.sandbox import ImmutableSandboxedEnvironment

        self.env = ImmutableSandboxedEnvironment(
            undefined=StrictUndefined, autoescape=False, trim_blocks=True, lstrip_blocks=True
        )
        self.env.filters.update(FILTERS)
        self._compiled: dict[str, Any] = {}

    def render(self, text: str, values: Mapping[str, Any]) -> str:
        from jinja2 import TemplateError

        compiled = self._compiled.get(text)
        try:
            if compiled is None:
                compiled = self._compiled[text] = self.env.from_string(text)
            out = compiled.render(**values)
        except TemplateError as e:
            raise RenderError(e.message or type(e).__name__) from None
        except (ValueError, TypeError, ArithmeticError) as e:
            raise RenderError(str(e)) from None
        return " ".join(out.split())
