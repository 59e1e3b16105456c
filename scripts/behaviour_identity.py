"""Digests of fdc's compile outputs, to show that a refactoring changed no behaviour.

    python scripts/behaviour_identity.py -o DIGESTS.json [--compare BEFORE.json]

Runs, with the `fdc` beside this interpreter and this repository as the working folder
(records name scenes relative to it), in a fixed folder (/tmp/fdc-identity, emptied first,
so that paths written into outputs are the same on every run):

* the apartment (examples/scenes/apartment.json), default library, seeds 0 and 7, with
  `--max-per-template 1` (one task per template and scene, the witness on, for speed);
* the memory library (domain/templates/memory) on the apartment, seed 3, two per template;
* a generated scene (`fdc scene generate --rooms 3 --objects 40 --seed 5`) and its suite;
* the Habitat fixture (../shared/fixtures/habitat, dataset_0) as tests/interop/
  test_habitat_export.py makes it: `fdc import habitat`, `fdc compile --no-history` of
  tests/interop/data/habitat_export/templates.pddl, `fdc export habitat` (its exit 1,
  some tasks not expressible, is expected; what it says is kept as export.txt).

It writes the sha256 of every output file (by its path under the run folder) as JSON;
with `--compare`, it exits 1 naming each file whose digest differs from that file's.
A few minutes of one core.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RUN = Path("/tmp/fdc-identity")
HABITAT = Path("/work/shared/fixtures/habitat/habitat-sim/data/test_assets")
DATASET_0 = HABITAT / "dataset_tests/dataset_0/test_dataset_0.scene_dataset_config.json"
APARTMENT = "examples/scenes/apartment.json"


def _fdc(*args: str, codes: tuple[int, ...] = (0,)) -> str:
    fdc = Path(sys.executable).parent / "fdc"
    done = subprocess.run([str(fdc), *args], cwd=REPO, capture_output=True, text=True)
    if done.returncode not in codes:
        sys.exit(f"fdc {' '.join(args)} exited {done.returncode}:\n{done.stdout}{done.stderr}")
    return done.stdout


def runs() -> None:
    """Every run of the module docstring, into RUN."""
    for seed in ("0", "7"):
        _fdc("compile", APARTMENT, "--seed", seed, "--max-per-template", "1",
             "-o", str(RUN / f"apartment-{seed}" / "suite.jsonl"))
    _fdc("compile", APARTMENT, "-T", "domain/templates/memory", "--seed", "3",
         "--max-per-template", "2", "-o", str(RUN / "memory" / "suite.jsonl"))
    scene = RUN / "generated" / "scene.json"
    _fdc("scene", "generate", "--rooms", "3", "--objects", "40", "--seed", "5", "-o", str(scene))
    _fdc("compile", str(scene), "--max-per-template", "1",
         "-o", str(RUN / "generated" / "suite.jsonl"))
    habitat = RUN / "habitat"
    _fdc("import", "habitat", str(DATASET_0), "--scene", "dataset_test_scene",
         "-o", str(habitat / "scene.json"))
    _fdc("compile", str(habitat / "scene.json"), "-T",
         "tests/interop/data/habitat_export/templates.pddl", "--no-history",
         "-o", str(habitat / "suite.jsonl"))
    said = _fdc("export", "habitat", str(habitat / "suite.jsonl"), "-o", str(habitat / "out"),
                "--data-root", str(habitat), codes=(0, 1))  # 1: some tasks not expressible
    (habitat / "export.txt").write_text(said)


def digests() -> dict[str, str]:
    out: dict[str, str] = {}
    for path in sorted(RUN.rglob("*")):
        if path.is_file() and ".cache" not in path.relative_to(RUN).as_posix():
            out[path.relative_to(RUN).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("-o", "--output", type=Path, required=True, help="the digests (JSON)")
    parser.add_argument("--compare", type=Path, help="digests of an earlier run to compare")
    args = parser.parse_args()
    shutil.rmtree(RUN, ignore_errors=True)
    runs()
    found = digests()
    args.output.write_text(json.dumps(found, indent=1, sort_keys=True) + "\n")
    print(f"{len(found)} files digested into {args.output}")
    if args.compare is None:
        return 0
    before: dict[str, str] = json.loads(args.compare.read_text())
    differ = sorted(k for k in before.keys() | found.keys() if before.get(k) != found.get(k))
    for name in differ:
        print(f"differs: {name}")
    print("identical" if not differ else f"{len(differ)} file(s) differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
