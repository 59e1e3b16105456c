"""pyproject.toml ships every folder of the package: each folder of a package's tree
holding Python or data files is a listed package (else setuptools warns "Package would
be ignored" at every install, as it did for `fdc.domain.templates.*`), and each data file
matches a `package-data` glob of its package or of a package above it."""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path, PurePosixPath

REPO = Path(__file__).resolve().parents[1]
#: Never shipped: caches and build output.
SKIP = {"__pycache__", ".mypy_cache", ".pytest_cache", "node_modules"}


def _config() -> dict:  # type: ignore[type-arg]
    return tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]


def _folder(package: str, dirs: dict[str, str]) -> Path:
    """The folder of a package, by `package-dir` (a subpackage lies under its parent's)."""
    parts = package.split(".")
    for n in range(len(parts), 0, -1):
        head = ".".join(parts[:n])
        if head in dirs:
            return REPO.joinpath(dirs[head], *parts[n:])
    return REPO.joinpath(*parts)


def _shipped_folders() -> dict[str, Path]:
    """Every folder below the mapped roots that holds a file to ship, by the dotted
    name it would import as (None for a name Python cannot import)."""
    dirs = _config()["package-dir"]
    out: dict[str, Path] = {}
    for root_name, root in dirs.items():
        base = REPO / root
        for folder in [base, *sorted(p for p in base.rglob("*") if p.is_dir())]:
            rel = folder.relative_to(base).parts
            if any(p in SKIP or p.startswith(".") for p in rel):
                continue
            if not any(f.is_file() for f in folder.iterdir()):
                continue
            out[".".join((root_name, *rel))] = folder
    return out


def test_every_folder_with_files_is_a_listed_package() -> None:
    cfg = _config()
    listed = set(cfg["packages"])
    missing = [name for name, folder in _shipped_folders().items()
               if all(part.isidentifier() for part in name.split("."))
               and any(f.suffix == ".py" or _is_data(f) for f in folder.iterdir() if f.is_file())
               and name not in listed]
    assert missing == [], f"add them to [tool.setuptools] packages: {missing}"
    for name in listed:  # and every listed package exists
        assert _folder(name, cfg["package-dir"]).is_dir(), name


def _is_data(f: Path) -> bool:
    return f.suffix not in (".py", ".pyc") and not f.name.startswith(".")


def test_every_data_file_matches_a_package_data_glob() -> None:
    cfg = _config()
    dirs, data = cfg["package-dir"], cfg["package-data"]
    unshipped = []
    for name, folder in _shipped_folders().items():
        for f in sorted(p for p in folder.iterdir() if p.is_file() and _is_data(p)):
            if f.name in ("README.md",):
                continue
            owners = [p for p in data if (name == p or name.startswith(p + "."))
                      and f.is_relative_to(_folder(p, dirs))]
            if not any(fnmatch.fnmatch(
                    PurePosixPath(f.relative_to(_folder(p, dirs))).as_posix(), glob)
                    or PurePosixPath(f.relative_to(_folder(p, dirs))).match(glob)
                    for p in owners for glob in data[p]):
                unshipped.append(str(f.relative_to(REPO)))
    assert unshipped == [], f"no package-data glob ships them: {unshipped}"


def test_the_template_library_is_shipped() -> None:
    # the folder that cannot be a package (`memory-manipulation`) rides on a glob
    folders = _shipped_folders()
    assert "fdc.domain.memory-manipulation" not in folders
    assert any(name.endswith("memory-manipulation") for name in folders)
