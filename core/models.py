"""The base of fdc's file records: an immutable pydantic model that refuses unknown
fields and non-finite numbers, so that what a scene, a log, a trajectory or a frames
index says is read exactly once and never changed (docs/formats/)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class FrozenRecord(BaseModel):
    """An immutable record: no unknown fields, no NaN or infinity."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)
