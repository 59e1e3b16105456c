"""Habitat scene dataset configs, read without habitat-sim: the template registry.

A `*.scene_dataset_config.json` lists, per section (stages, objects, articulated
objects, scene instances, semantic descriptors), folders and globs of config files and
inline `configs` that modify or create templates. Templates get handles (their config's
path relative to the dataset, or their `template_handle`); a name resolves by exact
handle, then by short name (the file name without its config suffix), then by the first
handle, in sorted order, that contains it — Habitat's substring lookup, made
deterministic.
See docs/habitat.md.
"""

from __future__ import annotations

import glob
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fdc.core.errors import InputError
from fdc.core.inputs import InputFileError, InputKind, read_input_text
from fdc.core.jsonl import loads
from fdc.core.problems import Diagnostic, error

SUFFIXES: dict[str, tuple[str, ...]] = {
    "stages": (".stage_config.json", ".glb", ".ply", ".obj"),
    "objects": (".object_config.json", ".glb", ".ply", ".obj"),
    "articulated_objects": (".ao_config.json", ".urdf"),
    "scene_instances": (".scene_instance.json",),
    "semantic_scene_descriptor_instances": (".semantic_config.json",),
}


@dataclass(frozen=True)
class Template:
    handle: str
    section: str
    attributes: dict[str, Any]  # defaults < file < inline overrides
    base_dir: Path  # relative asset paths start here
    source: Path | None  # the config file (None: an inline-only template)

    @property
    def short_name(self) -> str:
        return short_name(self.handle)


def short_name(handle: str) -> str:
    name = handle.rsplit("/", 1)[-1]
    for suffix in sorted({s for v in SUFFIXES.values() for s in v}, key=len, reverse=True):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


@dataclass
class Dataset:
    path: Path
    root: Path
    sections: dict[str, dict[str, Template]] = field(default_factory=dict)
    named_semantics: dict[str, str] = field(default_factory=dict)
    scene_defaults: dict[str, Any] = field(default_factory=dict)
    #: Per section, config files that could not be read, by handle: why.
    unreadable: dict[str, dict[str, Diagnostic]] = field(default_factory=dict)

    def lookup(self, section: str, name: str) -> Template | None:
        table = self.sections.get(section, {})
        return table[found] if (found := _resolve(table, name)) is not None else None

    def unreadable_config(self, section: str, name: str) -> Diagnostic | None:
        """Why the config a name would resolve to could not be read (None: no such)."""
        table = self.unreadable.get(section, {})
        return table[found] if (found := _resolve(table, name)) is not None else None

    def handles(self, section: str) -> list[str]:
        return sorted(self.sections.get(section, {}))


class ConfigError(InputError):
    """A config file that cannot be read as JSON; `diagnostic` locates it."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(f"{diagnostic.file}: {diagnostic.message}")
        self.diagnostic = diagnostic


def _resolve(table: dict[str, Any], name: str) -> str | None:
    """The handle a name resolves to: exact, by short name, else by substring."""
    if name in table:
        return name
    for handle in sorted(table):
        if short_name(handle) == name:
            return handle
    for handle in sorted(table):
        if name in handle:
            return handle
    return None


def read_json(path: Path, code: str = "H003") -> Any:
    """A JSON config file, read within fdc's input limits; `ConfigError` (located) when it
    cannot be read, is not UTF-8 text or not JSON."""
    hint = "a Habitat config is a UTF-8 JSON file"
    try:
        return loads(read_input_text(path, InputKind.HABITAT_CONFIG))
    except InputFileError as e:
        raise ConfigError(error(code, f"cannot read the file: {e.reason}", file=str(path),
                                hint=e.hint or hint)) from None
    except json.JSONDecodeError as e:
        raise ConfigError(error(code, f"not JSON: {e.msg} (column {e.colno})", file=str(path),
                                line=e.lineno, hint=hint)) from None


def _expand(root: Path, patterns: list[str], suffixes: tuple[str, ...]) -> list[Path]:
    out: list[Path] = []
    for pat in patterns:
        full = root / pat
        matches = sorted(glob.glob(str(full))) if any(c in pat for c in "*?[") else [str(full)]
        for m in matches:
            p = Path(m)
            if p.is_dir():
                out.extend(sorted(q for q in p.iterdir()
                                  if q.is_file() and q.name.endswith(suffixes)))
            elif p.is_file() and p.name.endswith(suffixes):
                out.append(p)
    return out


def _handle(root: Path, path: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return Path(*[part for part in path.parts]).as_posix()


def load_dataset(config_path: Path) -> tuple[Dataset | None, list[Diagnostic]]:
    """Read a scene dataset config and every config file it points at. A config file
    that cannot be read is kept aside (`Dataset.unreadable`): it is an error where a
    scene uses it, not where nobody does."""
    findings: list[Diagnostic] = []
    try:
        cfg = read_json(config_path, "H000")
    except ConfigError as e:
        return None, [e.diagnostic]
    if not isinstance(cfg, dict):
        return None, [error("H000", "a dataset config is a JSON object", file=str(config_path))]
    root = config_path.parent
    ds = Dataset(path=config_path, root=root)
    for section, suffixes in SUFFIXES.items():
        sec = cfg.get(section, {}) or {}
        if not isinstance(sec, dict):
            findings.append(error("H000", "a section is a JSON object", section,
                                  file=str(config_path)))
            continue
        table: dict[str, Template] = {}
        defaults = sec.get("default_attributes", {}) or {}
        if not isinstance(defaults, dict):
            findings.append(error("H000", "`default_attributes` is a JSON object",
                                  f"{section}.default_attributes", file=str(config_path)))
            defaults = {}
        if section == "scene_instances":
            ds.scene_defaults = dict(defaults)
        paths = sec.get("paths", {}) or {}
        for ext, patterns in (paths.items() if isinstance(paths, dict) else ()):
            if not isinstance(patterns, list) or not all(isinstance(x, str) for x in patterns):
                findings.append(error("H000", "paths are a list of strings",
                                      f"{section}.paths.{ext}", file=str(config_path)))
                continue
            allowed = tuple(x for x in suffixes if x.endswith(ext)) or (ext,)
            for p in _expand(root, list(patterns), allowed):
                attrs: dict[str, Any] = dict(defaults)
                if p.name.endswith(".json"):
                    try:
                        loaded = read_json(p)
                    except ConfigError as e:
                        ds.unreadable.setdefault(section, {})[_handle(root, p)] = e.diagnostic
                        continue
                    if not isinstance(loaded, dict):
                        ds.unreadable.setdefault(section, {})[_handle(root, p)] = error(
                            "H003", "a config is a JSON object", file=str(p))
                        continue
                    attrs.update(loaded)
                else:
                    attrs.setdefault("render_asset", p.name)
                h = _handle(root, p)
                table[h] = Template(h, section, attrs, p.parent, p)
        configs = sec.get("configs", []) or []
        for k, c in enumerate(configs if isinstance(configs, list) else []):
            if not isinstance(c, dict):
                continue
            attrs = dict(defaults)
            base, src = root, None
            if "original_file" in c:
                orig = root / str(c["original_file"])
                try:
                    loaded = read_json(orig)
                except ConfigError as e:
                    handle = c.get("template_handle", "?")
                    findings.append(error("H001", f"missing asset `{orig}` needed by template "
                                          f"`{handle}`: {e.diagnostic.message}",
                                          f"{section}.configs[{k}].original_file",
                                          file=str(config_path)))
                    continue
                if isinstance(loaded, dict):
                    attrs.update(loaded)
                base, src = orig.parent, orig
            extra = c.get("attributes", {}) or {}
            attrs.update(extra if isinstance(extra, dict) else {})
            h = str(c.get("template_handle") or (_handle(root, src) if src
                                                 else f"{section}_{k}"))
            table[h] = Template(h, section, attrs, base, src)
        if section == "semantic_scene_descriptor_instances":
            for key, value in sec.items():
                if key != "paths" and isinstance(value, str):
                    ds.named_semantics[key] = value
        ds.sections[section] = table
    return ds, findings
