"""The compiler of one prepared scene (`SceneCompiler`): a built scene graph, its
experience and the states tasks start in, and what the passes ask of them (facts per
domain, descriptions, the judge of goals, the experience's goal frames), cached and
shared by every template of the scene. `SceneCompiler.start` hands each template its
`start.TemplateStart`; the passes and their order are `compiler.pipeline`'s, and
`compiler.prepare` builds a `SceneCompiler` from files
([architecture.md](../docs/architecture.md), "The compile pipeline").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fdc.instructions.describe import Describer
from fdc.instructions.render import thread_renderer
from fdc.predicates.builtin import default_registry
from fdc.sim_bridge.graph.routes import Walker

from .frames import FrameIndex
from .options import CompileOptions
from .scene_facts import SceneFacts, StateFacts
from .start import Judge, TemplateStart, start_snapshots
from .templates import TemplateEntry, is_memory_manipulation_template, is_memory_template

if TYPE_CHECKING:
    from fdc.sim_bridge.graph.scene_graph import SceneGraph
    from fdc.sim_bridge.world.experience import Experience
    from fdc.sim_bridge.world.snapshot import SnapshotState

    from .check import DomainInfo


class SceneCompiler:
    """One built scene graph and its experience, the states tasks start in, and what the
    passes ask of them (facts, descriptions, judgements, goal frames), cached."""

    def __init__(self, graph: SceneGraph, scene: str, scene_sha256: str,
                 experience: Experience | None = None, experience_sha256: str | None = None,
                 options: CompileOptions | None = None, id_scope: str | None = None,
                 no_experience: str | None = None) -> None:
        from fdc.sim_bridge.world.snapshot import SnapshotState

        self.graph = graph
        self.scene = scene
        self.scene_sha256 = scene_sha256
        self.experience = experience
        self.experience_sha256 = experience_sha256
        #: Why no experience could be simulated (its memory templates are skipped).
        self.no_experience = no_experience
        self.options = options or CompileOptions()
        #: Set for a scene file whose content an earlier scene of the compile has too:
        #: it joins the task ids' key, so twins' ids differ (`compiler.record.task_id`).
        self.id_scope = id_scope
        self.registry = default_registry()
        self.renderer = thread_renderer()
        initial, after = start_snapshots(graph, experience)
        self.states: dict[str, SnapshotState] = {"initial": SnapshotState(graph, initial)}
        if after is not None:
            self.states["after"] = SnapshotState(graph, after)
        self._facts: dict[str, SceneFacts] = {}
        self._state_facts: dict[tuple[str, str], StateFacts] = {}
        self._describers: dict[tuple[str, str], Describer] = {}
        self._judges: dict[tuple[str, str], Judge] = {}
        self._frames: FrameIndex | None = None

    # ----- per-domain views -------------------------------------------------------

    def facts(self, domain: DomainInfo) -> SceneFacts:
        name = domain.domain.name
        found = self._facts.get(name)
        if found is None:
            found = self._facts[name] = SceneFacts(self.graph, domain, self.experience,
                                                   self.registry)
        return found

    def state_facts(self, domain: DomainInfo, start: str) -> StateFacts:
        key = (domain.domain.name, start)
        found = self._state_facts.get(key)
        if found is None:
            found = self._state_facts[key] = StateFacts(self.facts(domain), self.states[start])
        return found

    def describer(self, domain: DomainInfo, start: str) -> Describer:
        key = (domain.domain.name, start)
        found = self._describers.get(key)
        if found is None:
            found = self._describers[key] = Describer(self.facts(domain), self.states[start])
        return found

    def judge(self, domain: DomainInfo, start: str) -> Judge:
        """The judge of goals in state `start` (`initial`, `after`) of the scene."""
        key = (domain.domain.name, start)
        found = self._judges.get(key)
        if found is None:
            found = self._judges[key] = Judge(self.states[start],
                                              self.state_facts(domain, start),
                                              self.registry, self.experience)
        return found

    def start_state(self, entry: TemplateEntry) -> tuple[str, bool]:
        """The state `entry`'s tasks start in, and whether it is a memory template (with
        no experience, a memory template's tasks start where process tasks do)."""
        memory = is_memory_template(entry.template, self.registry)
        return ("after" if memory and "after" in self.states else "initial"), memory

    def start(self, entry: TemplateEntry) -> TemplateStart:
        """Where `entry`'s tasks start on this scene, and what its passes read there."""
        state, memory = self.start_state(entry)
        manipulation = memory and is_memory_manipulation_template(entry.template,
                                                                  self.registry)
        answered_by_frames = memory and state == "after" and not manipulation
        return TemplateStart(
            state=state, memory=memory, manipulation=manipulation, domain=entry.domain,
            snapshot=self.states[state], facts=self.facts(entry.domain),
            state_facts=self.state_facts(entry.domain, state),
            describer=self.describer(entry.domain, state),
            judge=self.judge(entry.domain, state), scene=self.scene,
            scene_sha256=self.scene_sha256,
            experience_sha256=self.experience_sha256 if memory else None,
            id_scope=self.id_scope, seed=self.options.seed,
            frames=self.goal_frames if answered_by_frames else None)

    # ----- memory tasks ---------------------------------------------------------------

    def goal_frames(self) -> tuple[FrameIndex, Walker]:
        """The experience's goal frames and the walker between them, built on first use
        and shared by every memory template of the scene (the walker by all of the
        graph's route searches)."""
        if self._frames is None:
            assert self.experience is not None
            self._frames = FrameIndex(self.graph, self.states["after"], self.experience)
        walker: Walker = self.graph.walker
        return self._frames, walker
