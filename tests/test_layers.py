"""The import structure: packages form the layers docs/architecture.md documents.

Every import of every module counts, those inside functions included; imports under
`if TYPE_CHECKING:` are left aside (they never run). The test fails on an import against
the layer order, on an import cycle between packages, and on one between modules.
"""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import networkx as nx
import pytest

REPO = Path(__file__).resolve().parents[1]

#: Package -> layer: a module may import its own package and packages of lower layers.
#: Packages of one layer are independent of each other.
LAYERS: dict[str, int] = {
    "fdc.core": 0,
    "fdc.domain": 0,
    "fdc.sim_bridge": 1,
    "fdc.predicates": 2,
    "fdc.instructions": 3,
    "fdc.compiler": 4,
    "fdc.agents": 5,
    "fdc.interop": 5,
    "fdc.evaluation": 6,
    "fdc": 7,  # the package root: the version re-exported, the format registry, the CLI
}

#: Inside `fdc.sim_bridge`, its subpackages are layers too: geometry, the scene format,
#: the scene graph, the world models, then what reads them all (Habitat, pictures), and
#: the renderer, which also reads Habitat imports' URDFs.
SIM_BRIDGE: dict[str, int] = {
    "fdc.sim_bridge.geometry": 0,
    "fdc.sim_bridge.scene": 1,
    "fdc.sim_bridge.graph": 2,
    "fdc.sim_bridge.world": 3,
    "fdc.sim_bridge.habitat": 4,
    "fdc.sim_bridge.pictures": 4,
    "fdc.sim_bridge.render": 5,  # draws Habitat imports (their URDFs)
}


@cache
def modules() -> dict[str, Path]:
    """Every module of the installed package, by dotted name, from pyproject's mapping."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    package_dir: dict[str, str] = config["tool"]["setuptools"]["package-dir"]
    out: dict[str, Path] = {}
    for package, folder in package_dir.items():
        for path in sorted((REPO / folder).rglob("*.py")):
            parts = list(path.relative_to(REPO / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            name = ".".join([package, *parts])
            if package == "fdc" and len(parts) > 0 and f"fdc.{parts[0]}" in package_dir:
                continue  # a folder mapped on its own
            out[name] = path
    return out


def _type_checking_only(tree: ast.AST) -> set[int]:
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                skip.update(id(n) for n in ast.walk(child))
    return skip


def _targets(module: str, node: ast.Import | ast.ImportFrom, mods: dict[str, Path]
             ) -> Iterator[str]:
    if isinstance(node, ast.Import):
        bases = [a.name for a in node.names]
        names: list[str] = []
    else:
        if node.level:
            parts = module.split(".")
            is_package = mods[module].name == "__init__.py"
            parts = parts[: len(parts) - node.level + (1 if is_package else 0)]
            base = ".".join(parts + ([node.module] if node.module else []))
        else:
            base = node.module or ""
        bases = [base]
        names = [f"{base}.{a.name}" for a in node.names]
    for name in [*bases, *names]:
        while name and name not in mods and "." in name:
            name = name.rsplit(".", 1)[0]
        if name in mods and name.startswith("fdc"):
            yield name


@cache
def imports() -> dict[str, set[str]]:
    """Module -> the fdc modules it imports (anywhere but under TYPE_CHECKING)."""
    mods = modules()
    out: dict[str, set[str]] = {}
    for name, path in mods.items():
        tree = ast.parse(path.read_text(), str(path))
        skip = _type_checking_only(tree)
        found: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom) and id(node) not in skip:
                found.update(t for t in _targets(name, node, mods) if t != name)
        out[name] = found
    return out


def package_of(module: str) -> str:
    for package in sorted(LAYERS, key=len, reverse=True):
        if module == package or module.startswith(package + "."):
            return package
    raise AssertionError(f"{module} is in no layer: add its package to LAYERS")


def _sub_layer(module: str) -> int | None:
    for prefix, layer in SIM_BRIDGE.items():
        if module == prefix or module.startswith(prefix + "."):
            return layer
    return None


def test_every_module_found() -> None:
    mods = modules()
    assert "fdc.compiler.ground" in mods and "fdc.cli" in mods
    for m in mods:
        package_of(m)  # every module has a layer


def test_packages_import_only_lower_layers() -> None:
    wrong = []
    for module, targets in imports().items():
        mine = package_of(module)
        for t in targets:
            theirs = package_of(t)
            if theirs != mine and LAYERS[theirs] >= LAYERS[mine]:
                wrong.append(f"{module} (layer {LAYERS[mine]}) imports {t} "
                             f"(layer {LAYERS[theirs]})")
    assert not wrong, "imports against the layer order:\n" + "\n".join(sorted(wrong))


def test_sim_bridge_subpackages_are_layers() -> None:
    wrong = []
    for module, targets in imports().items():
        mine = _sub_layer(module)
        if mine is None:
            continue
        for t in targets:
            theirs = _sub_layer(t)
            same = theirs == mine and t.split(".")[2] == module.split(".")[2]
            if theirs is not None and not same and theirs >= mine:
                wrong.append(f"{module} imports {t}")
    assert not wrong, "sim_bridge imports against its layers:\n" + "\n".join(sorted(wrong))


@pytest.mark.parametrize("level", ["package", "module"])
def test_no_import_cycles(level: str) -> None:
    graph = nx.DiGraph()
    for module, targets in imports().items():
        for t in targets:
            a, b = (package_of(module), package_of(t)) if level == "package" else (module, t)
            if a != b:
                graph.add_edge(a, b)
    cycles = [sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1]
    assert not cycles, f"{level} import cycles: {cycles}"


def test_the_check_sees_imports_inside_functions(tmp_path: Path) -> None:
    tree = ast.parse("def f():\n    from fdc.compiler import ground\n"
                     "if TYPE_CHECKING:\n    from fdc.agents import env\n")
    skip = _type_checking_only(tree)
    found = {t for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)
             and id(n) not in skip for t in _targets("fdc.core.files", n, modules())}
    assert found == {"fdc.compiler", "fdc.compiler.ground"}
