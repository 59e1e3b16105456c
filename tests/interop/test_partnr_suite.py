"""An imported PARTNR suite can be validated and exported: its records have no template
(`template_file` names the episodes file, which is not read), `fdc validate` checks the
records themselves and, given the imported scene, that the goal's entities are in it;
the exports name the tasks they cannot write instead of failing."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fdc.cli import app
from tests.interop.test_partnr_verify import SAMPLE, World, sample_episode

runner = CliRunner()


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("partnr") / "suite.jsonl"
    result = runner.invoke(app, ["import", "partnr", str(SAMPLE), "-o", str(out)])
    assert result.exit_code == 0, result.output
    return out


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert "Traceback" not in result.output
    return result.exit_code, result.stdout, result.output


def test_validate_checks_the_records_and_warns_the_scene_is_unchecked(suite: Path) -> None:
    code, stdout, out = run("validate", str(suite), "--format", "json")
    assert code == 0, out
    report = json.loads(stdout)
    assert report["errors"] == 0 and report["tasks"] == 20
    codes = {f["code"] for t in report["task_reports"] for f in t["findings"]}
    assert codes == {"unchecked-start"}
    strict, _, _ = run("validate", str(suite), "--strict")
    assert strict == 1


def test_validate_with_the_scene_checks_the_goals_entities(tmp_path: Path) -> None:
    raw = sample_episode(0)
    world = World(raw)
    scene = tmp_path / "scene.json"
    scene.write_text(world.graph.scene.to_json())
    data = {"episodes": [raw]}
    episodes = tmp_path / "one.json.gz"
    episodes.write_bytes(gzip.compress(json.dumps(data).encode()))
    suite = tmp_path / "suite.jsonl"
    assert run("import", "partnr", str(episodes), "-o", str(suite))[0] == 0
    code, _, out = run("validate", str(suite), "--scene", str(scene))
    assert code == 0, out
    record = json.loads(suite.read_text())
    record["goal"]["propositions"][0]["items"] = ["ghost_:0000"]
    record["goal_pddl"] = ""
    suite.write_text(json.dumps(record) + "\n")
    code, _, out = run("validate", str(suite), "--scene", str(scene))
    assert code == 1
    assert "error[unknown-entity]" in out and "`ghost_:0000`" in out


def test_the_exports_name_what_they_cannot_write(suite: Path, tmp_path: Path) -> None:
    # no task can be written: said once, with why, and nothing written (issue 36)
    code, stdout, out = run("export", "pddl", str(suite), "-o", str(tmp_path / "pddl"))
    assert code == 2 and stdout == "", out
    assert out.count("imported from PARTNR: no template domain to plan in") == 1
    assert not (tmp_path / "pddl").exists()
    code, stdout, out = run("export", "habitat", str(suite), "-o", str(tmp_path / "hab"))
    assert code == 2 and stdout == "", out
    assert "is a Habitat scene id, not an fdc scene file" in out
    assert not (tmp_path / "hab").exists()
    code, stdout, out = run("export", "partnr", str(suite), "-o", str(tmp_path / "e.json.gz"))
    assert code == 0, out
    back = json.loads(gzip.decompress((tmp_path / "e.json.gz").read_bytes()))
    assert len(back["episodes"]) == 20
