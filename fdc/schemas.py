"""The public formats: name -> the pydantic model that defines it (imported lazily).
See docs/formats/."""

from __future__ import annotations

import importlib
import json
from typing import Any

#: `fdc schema NAME` prints `MODELS[NAME]`'s JSON Schema. Values are "module:Class".
MODELS: dict[str, str] = {
    "check-report": "fdc.compiler.diagnostics:CheckReport",
    "validation-report": "fdc.compiler.validate:ValidationReport",
    "audit-report": "fdc.evaluation.audit.report:AuditReport",
    "task": "fdc.compiler.suite:TaskRecord",
    "manifest": "fdc.compiler.manifest:Manifest",
    "experience": "fdc.sim_bridge.world.experience:Experience",
    "scene": "fdc.sim_bridge.scene.schema:Scene",
    "trajectory": "fdc.sim_bridge.world.state:Snapshot",
    "predictions": "fdc.agents.predictions:Prediction",
    "evaluation-report": "fdc.evaluation.report:EvaluationReport",
    "frames": "fdc.sim_bridge.render.index:FramesIndex",
    "suite-frames": "fdc.compiler.suite_frames:SuiteFrames",
    "vlm": "fdc.interop.vlm:VlmQuestion",
}


def schema_json(name: str) -> str:
    """The JSON Schema of format `name`, as canonical (sorted, indented) JSON text."""
    module, _, cls = MODELS[name].partition(":")
    model: Any = getattr(importlib.import_module(module), cls)
    return json.dumps(model.model_json_schema(), indent=2, sort_keys=True) + "\n"
