"""Every example in fdc's language, diagnostics and CLI docs runs as the docs say.

Run as a script to rewrite the outputs after a deliberate change (then read the diff):
`python tests/test_docs.py --update docs/language.md docs/diagnostics.md docs/cli.md`.

Conventions in the markdown:
- ```lisp [NAME] / ```jinja NAME: a file (NAME defaults to example.pddl).
  A block without NAME that is not followed by a `$` text block must check clean
  (exit 0, no diagnostics).
- ```text whose first line starts with `$ `: commands run (in a fresh folder holding
  the files given since the last command block, and `examples/`, the repository's);
  their stdout+stderr must match.
- table rows `| `{{ ... }}` | `out` |`: Jinja rendered with fdc's filters must match.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

FDC = str(Path(sys.executable).with_name("fdc"))
PY = sys.executable
REPO = Path(__file__).resolve().parents[1]
DOCS = ["docs/language.md", "docs/diagnostics.md", "docs/cli.md"]
FENCE = re.compile(r"^```(.*)$")


def blocks(text: str) -> Iterator[tuple[list[str], str, int]]:
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if m and m.group(1).strip():
            info = m.group(1).split()
            start = i + 1
            j = start
            while not lines[j].startswith("```"):
                j += 1
            yield info, "\n".join(lines[start:j]) + "\n", start
            i = j + 1
        elif m:
            raise SystemExit(f"fence without info string at line {i + 1}")
        else:
            i += 1


UPDATES: list[tuple[str, str]] = []


def run_commands(block: str, files: dict[str, str], where: str, failures: list[str]) -> None:
    with tempfile.TemporaryDirectory(prefix="fdcdoc.") as d:
        os.symlink(REPO / "examples", os.path.join(d, "examples"))  # the bundled examples
        for name, content in files.items():
            p = os.path.join(d, name)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w", encoding="utf-8") as f:
                f.write(content)
        segments: list[tuple[str, list[str]]] = []
        for line in block.rstrip("\n").split("\n"):
            if line.startswith("$ "):
                segments.append((line[2:], []))
            else:
                segments[-1][1].append(line)
        new_block: list[str] = []
        for cmd, expected in segments:
            real = re.sub(r"(^|; |&& )fdc ", lambda m: m.group(1) + FDC + " ", cmd)
            env = dict(os.environ, PYTHONUNBUFFERED="1", COLUMNS="100", TERM="dumb")
            env.pop("FORCE_COLOR", None)
            proc = subprocess.run(
                real, shell=True, cwd=d, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env
            )
            out = proc.stdout.decode("utf-8", "replace").rstrip("\n")
            exp = "\n".join(expected).rstrip("\n")
            new_block.append("$ " + cmd)
            if out:
                new_block.append(out)
            if out != exp:
                failures.append(
                    f"{where}: `{cmd}` output differs:\n--- expected\n{exp}\n--- actual\n{out}\n"
                )
        UPDATES.append((block, "\n".join(new_block) + "\n"))


def check_clean(files: dict[str, str], where: str, failures: list[str]) -> None:
    with tempfile.TemporaryDirectory(prefix="fdcdoc.") as d:
        for name, content in files.items():
            p = os.path.join(d, name)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w", encoding="utf-8") as f:
                f.write(content)
        proc = subprocess.run(
            [FDC, "check", *[n for n in files if n.endswith(".pddl")]],
            cwd=d,
            capture_output=True,
            env=dict(os.environ, PYTHONUNBUFFERED="1"),
        )
        out = proc.stdout.decode()
        if proc.returncode != 0 or out.strip():
            failures.append(
                f"{where}: example is not clean (exit {proc.returncode}):\n"
                f"{out}{proc.stderr.decode()}"
            )


FILTER_ROW = re.compile(r"^\|\s*`(\{\{.*?\}\})`\s*\|\s*`(.*?)`\s*\|")


def check_filters(text: str, name: str, failures: list[str]) -> int:
    rows = []
    for n, line in enumerate(text.split("\n"), 1):
        m = FILTER_ROW.match(line)
        if m:
            rows.append((n, m.group(1).replace("\\|", "|"), m.group(2).replace("\\|", "|")))
    if not rows:
        return 0
    code = (
        "import json,sys\n"
        "from jinja2.sandbox import SandboxedEnvironment\n"
        "from fdc.instructions.filters import FILTERS\n"
        "env = SandboxedEnvironment(); env.filters.update(FILTERS)\n"
        "ctx = {'o': {'description': 'the red mug'}, 'a': {'description': 'the kettle'},"
        " 'b': {'description': 'the blue bowl'}}\n"
        "rows = json.load(sys.stdin)\n"
        "print(json.dumps([env.from_string(t).render(ctx) for t in rows]))\n"
    )
    import json

    proc = subprocess.run(
        [PY, "-c", code], input=json.dumps([r[1] for r in rows]).encode(), capture_output=True
    )
    if proc.returncode:
        failures.append(f"{name}: filter rendering failed: {proc.stderr.decode()}")
        return len(rows)
    outs = json.loads(proc.stdout)
    for (n, tmpl, exp), out in zip(rows, outs, strict=True):
        if out != exp:
            failures.append(f"{name}:{n}: `{tmpl}` renders `{out}`, docs say `{exp}`")
    return len(rows)


def main(paths: list[str]) -> int:
    failures: list[str] = []
    counts = {"clean": 0, "commands": 0, "filters": 0}
    for path in paths:
        text = Path(path).read_text(encoding="utf-8")
        bl = list(blocks(text))
        pending: dict[str, str] = {}
        for k, (info, content, line) in enumerate(bl):
            lang = info[0]
            where = f"{path}:{line}"
            nxt = bl[k + 1] if k + 1 < len(bl) else None
            nxt_is_cmd = nxt is not None and nxt[0][0] == "text" and nxt[1].startswith("$ ")
            if lang in ("lisp", "jinja"):
                name = info[1] if len(info) > 1 else "example.pddl"
                if name in pending:
                    failures.append(f"{where}: file {name} given twice before a command")
                pending[name] = content
                if nxt_is_cmd or len(info) > 1:
                    continue
                check_clean(pending, where, failures)
                counts["clean"] += 1
                pending = {}
            elif lang == "text" and content.startswith("$ "):
                run_commands(content, pending, where, failures)
                counts["commands"] += 1
                pending = {}
            elif lang in ("text", "sh", "json", "python"):
                pass
            else:
                failures.append(f"{where}: unknown block language {lang!r}")
        if pending:
            failures.append(f"{path}: files never used: {list(pending)}")
        counts["filters"] += check_filters(text, path, failures)
        if UPDATE:
            new = text
            for old, repl in UPDATES:
                if old != repl:
                    new = new.replace("```text\n" + old + "```", "```text\n" + repl + "```", 1)
            UPDATES.clear()
            if new != text:
                Path(path).write_text(new, encoding="utf-8")
                print(f"updated {path}", file=sys.stderr)
    for f in failures:
        print(f)
    print(f"{counts} {len(failures)} failure(s)", file=sys.stderr)
    return 1 if failures else 0


UPDATE = False


@pytest.mark.slow
@pytest.mark.parametrize("doc", DOCS)
def test_doc_examples(doc: str) -> None:
    assert main([str(REPO / doc)]) == 0


if __name__ == "__main__":
    args = sys.argv[1:]
    if args and args[0] == "--update":
        UPDATE = True
        args = args[1:]
    sys.exit(main(args))
