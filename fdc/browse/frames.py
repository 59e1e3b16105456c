"""Frames in the browser (`fdc browse --frames DIR`, DIR from `fdc render suite`): a
thumbnail of every rendered frame of each experience, written once per frame into the
site (`thumbs/KEY/NNNNNN.jpg`, KEY the frames directory's key), and of each
manipulation task's first view (`thumbs/views/KEY.jpg`). The experience's timeline
gains the list of frames that have one; a task's details the path of its view.
See docs/browse.md."""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from fdc.core.errors import InputError
from fdc.core.inputs import InputKind, read_input_bytes

if TYPE_CHECKING:
    from fdc.compiler.reopen import ReopenedSuite

#: The thumbnails' size (pixels) and JPEG quality.
THUMB_SIZE = (160, 120)
THUMB_QUALITY = 80


@dataclass
class Thumbs:
    """What the site shows of a rendered suite: per experience sha256 its strip (the
    thumbnails' folder in the site and the frames they show, with their times), per task
    id its view's thumbnail, and every thumbnail to write (site path -> source PNG)."""

    strips: dict[str, dict[str, Any]] = field(default_factory=dict)
    views: dict[str, str] = field(default_factory=dict)
    sources: dict[str, Path] = field(default_factory=dict)


def thumbnail(png: Path) -> bytes:
    """A JPEG of at most `THUMB_SIZE` of an RGB PNG (the same bytes every time)."""
    from PIL import Image

    with Image.open(png) as img:
        small = img.convert("RGB")
        small.thumbnail(THUMB_SIZE, Image.Resampling.BILINEAR)
        buf = io.BytesIO()
        small.save(buf, format="JPEG", quality=THUMB_QUALITY, optimize=False)
    return buf.getvalue()


def _inside(root: Path, rel: str, where: str) -> Path:
    p = PurePosixPath(rel)
    if p.is_absolute() or ".." in p.parts or not p.parts:
        raise InputError(f"{where}: `{rel}` is not a path inside {root}")
    return root.joinpath(*p.parts)


def gather_thumbs(opened: ReopenedSuite, folder: Path,
                  warn: Callable[[str], None]) -> Thumbs:
    """The thumbnails of the suite's tasks found in `folder` (`InputError` when it holds
    no readable suite-frames.json; a warning when it was rendered for another suite)."""
    from fdc.compiler.suite_frames import read_suite_frames
    from fdc.core.hashing import sha256_text
    from fdc.sim_bridge.render.index import FramesIndex

    index = read_suite_frames(folder)
    if index.suite_sha256 != sha256_text(read_input_bytes(opened.path, InputKind.SUITE)):
        warn(f"{folder}: rendered for another version of the suite ({index.suite}); its "
             "frames are shown for the tasks it names")
    out = Thumbs()
    for r in opened.records:
        got = index.tasks.get(r.id)
        if got is None:
            continue
        if got.view is not None and r.id not in out.views:
            src = _inside(folder, got.view, f"{folder}/suite-frames.json: {r.id}")
            site = f"thumbs/views/{PurePosixPath(got.view).stem}.jpg"
            out.sources.setdefault(site, src)
            out.views[r.id] = site
        sha = r.experience
        if got.frames is None or sha is None or sha in out.strips:
            continue
        root = _inside(folder, got.frames, f"{folder}/suite-frames.json: {r.id}")
        try:
            frames = FramesIndex.model_validate_json(
                read_input_bytes(root / "index.json", InputKind.MANIFEST))
        except (OSError, ValueError) as e:
            warn(f"{root}: no frames shown for experience {sha[:12]}: {e}")
            continue
        if frames.experience_sha256 != sha:
            warn(f"{root}: shows another experience than {sha[:12]}...: not shown")
            continue
        base = f"thumbs/{got.frames}"
        for f in frames.frames:
            out.sources.setdefault(f"{base}/{f.frame:06d}.jpg",
                                   _inside(root, f.rgb, f"{root}/index.json"))
        out.strips[sha] = {"dir": base, "frames": [f.frame for f in frames.frames],
                           "every": frames.every}
    return out
