"""Content hashes: what a manifest, a trajectory header or an experience log records of
the files it was made from, so that it is never read against other ones.
See docs/architecture.md."""

from __future__ import annotations

import hashlib
from typing import Protocol


class CanonicalJson(Protocol):
    """A value with one canonical JSON text (a scene: `Scene.to_json()`)."""

    def to_json(self) -> str: ...


def sha256_text(text: str | bytes) -> str:
    """The hex sha256 of `text` (UTF-8 when a string)."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    return hashlib.sha256(data).hexdigest()


def scene_sha256(scene: CanonicalJson) -> str:
    """sha256 of a scene's canonical JSON (`Scene.to_json()`): trajectory headers and
    experience logs record it so they are not verified in another scene."""
    return sha256_text(scene.to_json())
