"""FindingDory's high-level interface to a memory task: the robot's history (the
experience log's frames) and the instruction in, frame indices out. See docs/agents.md."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from fdc.agents.env import is_manipulation
from fdc.core.jsonl import loads

if TYPE_CHECKING:
    from fdc.compiler.suite import TaskRecord
    from fdc.sim_bridge.world.experience import Experience, Frame


class FrameSelection:
    """FindingDory's high-level interface: the robot's history (the experience log's
    frames: time, room, visible objects) and an instruction in, frame indices out (one
    per target: one for a single goal, one per target, in visiting order, for a
    multi-goal task)."""

    def __init__(self, task: TaskRecord, experience: Experience) -> None:
        if is_manipulation(task):
            raise ValueError(f"task `{task.id}` is a manipulation task: use ManipulationEnv")
        self.task = task
        self.experience = experience
        self.instruction = task.instructions[0] if task.instructions else task.goal_pddl
        self.frames_wanted = len(task.valid_frames) if task.valid_frames else 1

    @property
    def history(self) -> tuple[Frame, ...]:
        return self.experience.frames

    def frame_text(self, index: int) -> str:
        """One line per frame, FindingDory's overlay and what was in view."""
        f = self.experience.frames[index]
        hh, mm = divmod(round(f.clock_min), 60)
        seen = ", ".join(f.visible_objects) or "nothing"
        held = f"; holding {f.held}" if f.held else ""
        return f"Frame {f.index} at {hh:02d}:{mm:02d} in {f.room or 'no room'}: sees {seen}{held}"

    def prompt(self) -> str:
        """The whole history as text, then the instruction and what to answer."""
        lines = [self.frame_text(k) for k in range(len(self.experience.frames))]
        lines.append(f"Instruction: {self.instruction}")
        lines.append(f"Answer with {self.frames_wanted} frame index(es).")
        return "\n".join(lines)

    def answer(self, frames: Sequence[int]) -> list[int]:
        """The chosen frames, checked: as many as the task has targets, each a frame of
        the history (ValueError with the reason otherwise)."""
        chosen = [int(f) for f in frames]
        if len(chosen) != self.frames_wanted:
            raise ValueError(f"task `{self.task.id}` wants {self.frames_wanted} frame(s), "
                             f"not {len(chosen)}")
        n = len(self.experience.frames)
        bad = [f for f in chosen if not 0 <= f < n]
        if bad:
            raise ValueError(f"frame(s) {bad} outside the history (0-{n - 1})")
        return chosen

    @staticmethod
    def parse(text: str) -> list[int]:
        """Frame indices from an answer written as a JSON list (`[12, 40]`); ValueError
        when it is not one (hostile nesting and numbers too: `fdc.core.jsonl.loads`)."""
        value = loads(text)
        if not isinstance(value, list) or not all(isinstance(v, int) for v in value):
            raise ValueError("the answer must be a JSON list of frame indices")
        return [int(v) for v in value]


__all__ = ["FrameSelection"]
