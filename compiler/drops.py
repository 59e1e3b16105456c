"""Why a binding does not become a task: a code, the entities concerned, the words.

A drop is data: the pass that drops a binding says why with a `Drop` (its `DropCode`,
what the reason is about, the entities it names), never with text to be parsed back.
Two texts are derived from it here: `message`, the reason in full as `fdc explain` shows
it, and `key`, the reason without the entities it names, under which the manifest counts
drops (a tie between `m1` and `m2` and one between `m3` and `m4` for the same argmax
count together; an ambiguous description of `?o` counts under "ambiguous description of
?o" whatever the words and the rivals were). A false constraint is a drop too, but no
binding it prunes was ever a candidate: it is not `counted`.
See docs/architecture.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum


class DropCode(StrEnum):
    """One per way a binding can drop, in the order the passes judge them."""

    CONSTRAINT_FALSE = "constraint-false"  # bind: a constraint is false (not counted)
    AMBIGUOUS = "ambiguous"  # describe: an entity the instructions name is ambiguous
    GOAL_FALSE = "goal-false"  # ground: the goal folds to false
    STEP_FALSE = "step-false"  # ground: a step of `then` folds to false
    TIE = "tie"  # ground: a tie for an arg-extreme's best value
    ORDER_UNDEFINED = "order-undefined"  # ground: a target whose order is undefined
    TARGET_FALSE = "target-false"  # ground: a target whose goal folds to false
    NO_TARGETS = "no-targets"  # ground: no entity satisfies a multi-goal's condition
    ORDER_TIE = "order-tie"  # ground: two targets tie in the order
    NO_TARGET = "no-target"  # start checks: the goal names no target entity
    ALREADY_TRUE = "already-true"  # start checks: the goal holds where the task starts
    STEP_TRUE = "step-true"  # start checks: a sequence's first step holds there
    INFEASIBLE = "infeasible"  # start checks: the embedded world can never achieve it
    UNRENDERABLE = "unrenderable"  # render: an instruction variant cannot be rendered
    RENDER_LIMIT = "render-limit"  # render: rendering a variant went past a `render_*` limit
    UNSOLVED = "unsolved"  # witness: the oracle finds no trace that certifies it
    DUPLICATE = "duplicate"  # record: the same goal and instructions as a task kept before
    NO_VALID_FRAME = "no-valid-frame"  # frames: a target holds at no frame of the experience
    NO_FRAME_WALK = "no-frame-walk"  # frames: no walk from the start through valid frames


#: The message of each code. `{subject}`: what the reason is about, entities aside (a
#: parameter, a key, a rule, a task id); `{entities}`: the entities, quoted; `{value}`: a
#: tied value; `{description}`, `{rivals}`: an ambiguous description and who else it fits.
_MESSAGES: dict[DropCode, str] = {
    DropCode.CONSTRAINT_FALSE: "constraint {subject} is false",
    DropCode.AMBIGUOUS: "ambiguous description of {subject} = {entities}: "
                        "“{description}” also fits {rivals}",
    DropCode.GOAL_FALSE: "goal folds to false",
    DropCode.STEP_FALSE: "step {subject} of `then` folds to false",
    DropCode.TIE: "tie between {entities} for {subject} (all {value})",
    DropCode.ORDER_UNDEFINED: "the order {subject} of target {entities} is undefined",
    DropCode.TARGET_FALSE: "the goal of target {entities} folds to false",
    DropCode.NO_TARGETS: "no target: no entity satisfies the condition of `{subject}`",
    DropCode.ORDER_TIE: "tie between {entities} in the order {subject} (both {value})",
    DropCode.NO_TARGET: "no target entity",
    DropCode.ALREADY_TRUE: "goal already true at the start",
    DropCode.STEP_TRUE: "step {subject} of `then` already true at the start",
    DropCode.INFEASIBLE: "goal cannot be achieved: {subject}",
    DropCode.UNRENDERABLE: "instruction cannot be rendered: {subject}",
    DropCode.RENDER_LIMIT: "instruction rendering went past the limit `{subject}`",
    DropCode.UNSOLVED: "no agent of fdc's is known to achieve it: the oracle finds no "
                       "trace that certifies it ({subject})",
    DropCode.DUPLICATE: "the same goal and instructions as task `{subject}`",
    DropCode.NO_VALID_FRAME: "{subject} holds at no frame of the experience ({entities})",
    DropCode.NO_FRAME_WALK: "no walk from the start through the valid frames",
}
#: The key of a code whose message names entities (any other's key is its message).
_KEYS: dict[DropCode, str] = {
    DropCode.AMBIGUOUS: "ambiguous description of {subject}",
    DropCode.TIE: "tie for {subject}",
    DropCode.ORDER_UNDEFINED: "the order {subject} of target … is undefined",
    DropCode.TARGET_FALSE: "the goal of target … folds to false",
    DropCode.ORDER_TIE: "tie in the order {subject}",
    DropCode.UNSOLVED: "no agent of fdc's is known to achieve it: the oracle finds no trace that "
                       "certifies it",
    DropCode.DUPLICATE: "the same goal and instructions as another task",
    DropCode.NO_VALID_FRAME: "{subject} holds at no frame of the experience",
}


@dataclass(frozen=True)
class Drop:
    """Why one binding dropped."""

    code: DropCode
    subject: str = ""  # what it is about, entities aside: a parameter, a key, a rule
    entities: tuple[str, ...] = ()  # the entities concerned
    value: str = ""  # the value entities tie at
    description: str = ""  # ambiguous: the words tried ("the plate on the table")
    rivals: tuple[str, ...] = ()  # ambiguous: the other entities those words fit

    @property
    def message(self) -> str:
        """The reason in full: "tie between `a` and `b` for argmax of (f ?x) (all 3)"."""
        return _MESSAGES[self.code].format(subject=self.subject, value=self.value,
                                           entities=_names(self.entities),
                                           description=self.description,
                                           rivals=_names(self.rivals))

    @property
    def key(self) -> str:
        """The reason the manifest counts it under: "tie for argmax of (f ?x)"."""
        return _KEYS.get(self.code, _MESSAGES[self.code]).format(subject=self.subject)

    @property
    def counted(self) -> bool:
        """Whether the manifest counts it: a binding a false constraint prunes is none."""
        return self.code is not DropCode.CONSTRAINT_FALSE


def _names(items: Sequence[str]) -> str:
    quoted = [f"`{i}`" for i in items]
    if len(quoted) < 2:
        return "".join(quoted)
    return ", ".join(quoted[:-1]) + " and " + quoted[-1]
