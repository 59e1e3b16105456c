"""Parse the 441 real PDDL pairs with fdc, the `pddl` package and unified-planning.

    python benchmarks/parse.py [--limit N] [--skip-up] [--timeout SECONDS]

Each pair is read and parsed into the tool's own typed model, the domain re-parsed for
every pair:

* fdc: `check_sources` on the pair: the full typed AST and every check. A pair counts
  as parsed when it has no errors.
* pddl (0.5.1): `DomainParser()` and `ProblemParser()` built once (their Lark parsers
  are the costly part) and reused. Their transformers keep state between parses (the
  type hierarchy, the requirements), so it is reset before each file.
* unified-planning: `PDDLReader().parse_problem(domain, problem)`, a fresh reader per
  pair, since a reader keeps state between parses (its total-cost fluent); the one-time
  build of its grammar happens before timing.

Every tool runs in its own worker process, so the tools do not share a heap, and a pair
that takes longer than `--timeout` is abandoned: its worker is killed and replaced.
The pairs are interleaved (fdc, pddl, unified-planning on pair 1, then on pair 2, ...),
so a slow moment of the machine costs every tool alike. Each ratio of throughputs is
taken over the pairs both tools parse.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import platform
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

REPO = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = REPO.parent / "shared" / "fixtures" / "pddl" / "classical-domains"

#: The issue's targets: fdc's throughput over each other tool's, and import time.
TARGET_RATIOS = {"pddl": 1.6, "up": 20.0}
TARGET_IMPORT_SECONDS = 0.3

TOOL_NAMES = {"fdc": "fdc", "pddl": "pddl 0.5.1", "up": "unified-planning"}

ParsePair = Callable[[str, str], None]


class Rejected(Exception):
    """The tool answered, but with errors (fdc's diagnostics)."""


# ---------------------------------------------------------------------------- the tools
# Each setup runs once per worker process, before any timing, and returns the function
# that parses one pair (raising on failure) and a function reporting on the worker.


def setup_fdc() -> tuple[ParsePair, Callable[[], dict[str, Any]]]:
    from fdc.compiler import parse
    from fdc.compiler.check import check_sources
    from fdc.core.problems import SourceFile

    parse._parser()  # built on first use; build it now, outside the timing

    def parse_pair(domain: str, problem: str) -> None:
        result = check_sources([SourceFile.read(domain), SourceFile.read(problem)])
        if result.errors:
            d = result.errors[0]
            raise Rejected(f"{d.code} {d.message}")

    def report() -> dict[str, Any]:
        info = parse._parser.cache_info()
        return {"parser builds": info.misses, "parser reuses": info.hits}

    return parse_pair, report


def setup_pddl() -> tuple[ParsePair, Callable[[], dict[str, Any]]]:
    from pddl.parser.domain import DomainParser
    from pddl.parser.problem import ProblemParser

    domain_parser = DomainParser()
    problem_parser = ProblemParser()

    def parse_pair(domain: str, problem: str) -> None:
        for parser, path in ((domain_parser, domain), (problem_parser, problem)):
            # The Lark parser calls the transformer's bound methods: re-initialising the
            # same transformer object drops the previous file's state, parser and all kept.
            parser._transformer.__init__()  # type: ignore[misc]
            with open(path, encoding="utf-8") as f:  # as `pddl.parse_domain` reads
                parser(f.read())

    return parse_pair, dict


def setup_up() -> tuple[ParsePair, Callable[[], dict[str, Any]]]:
    from unified_planning.io import PDDLReader

    PDDLReader()  # the first reader builds the grammar

    def parse_pair(domain: str, problem: str) -> None:
        PDDLReader().parse_problem(domain, problem)

    return parse_pair, dict


SETUPS: dict[str, Callable[[], tuple[ParsePair, Callable[[], dict[str, Any]]]]] = {
    "fdc": setup_fdc,
    "pddl": setup_pddl,
    "up": setup_up,
}


def worker(tool: str, conn: Connection) -> None:
    """Parse the pairs the main process sends; answer (ok, seconds, error) for each."""
    start = time.perf_counter()
    parse_pair, report = SETUPS[tool]()
    conn.send(time.perf_counter() - start)
    while (job := conn.recv()) is not None:
        domain, problem = job
        start = time.perf_counter()
        try:
            parse_pair(domain, problem)
            error = ""
        except Exception as e:  # any failure of the tool counts against it
            error = f"{type(e).__name__}: {' '.join(str(e).split())[:160]}"
        conn.send((not error, time.perf_counter() - start, error))
    conn.send(report())


# ---------------------------------------------------------------------------- running


@dataclass
class Outcome:
    ok: bool
    seconds: float
    error: str = ""


@dataclass
class ToolRun:
    """One tool's worker (replaced after a timeout) and its outcomes, by pair index."""

    tool: str
    timeout: float
    outcomes: dict[int, Outcome] = field(default_factory=dict)
    setup_seconds: list[float] = field(default_factory=list)
    reports: list[dict[str, Any]] = field(default_factory=list)
    process: Any = None
    conn: Connection | None = None

    def start(self) -> None:
        ctx = mp.get_context("spawn")
        here, there = ctx.Pipe()
        self.process = ctx.Process(target=worker, args=(self.tool, there), daemon=True)
        self.process.start()
        there.close()
        self.conn = here
        self.setup_seconds.append(self.conn.recv())

    def parse(self, index: int, domain: Path, problem: Path) -> Outcome:
        if self.conn is None:
            self.start()
        assert self.conn is not None
        self.conn.send((str(domain), str(problem)))
        try:
            if self.conn.poll(self.timeout):
                outcome = Outcome(*self.conn.recv())
            else:
                self.kill()
                outcome = Outcome(False, self.timeout, f"timeout after {self.timeout:g} s")
        except EOFError:  # the worker died (out of memory, say): a failure, not a result
            outcome = Outcome(False, 0.0, f"worker died (exit code {self.kill()})")
        self.outcomes[index] = outcome
        return outcome

    def kill(self) -> int | None:
        """End this run's own worker (by its handle); its exit code."""
        code = None
        if self.process is not None:
            self.process.kill()
            self.process.join()
            code = self.process.exitcode
        if self.conn is not None:
            self.conn.close()
        self.process = self.conn = None
        return code

    def stop(self) -> None:
        if self.conn is not None:
            self.conn.send(None)
            self.reports.append(self.conn.recv())
            assert self.process is not None
            self.process.join()
            self.conn.close()
        self.process = self.conn = None


@dataclass(frozen=True)
class Pair:
    domain: Path
    problem: Path
    name: str
    size: int  # bytes of both files


def load_pairs(corpus: Path, limit: int | None) -> list[Pair]:
    listed = json.loads((corpus / "pairs.json").read_text())["pairs"]
    pairs = []
    for p in listed[:limit]:
        domain, problem = corpus / p["domain"], corpus / p["problem"]
        size = domain.stat().st_size + problem.stat().st_size
        pairs.append(Pair(domain, problem, p["problem"], size))
    return pairs


def run(
    pairs: Sequence[Pair], tools: Sequence[str], timeout: float, console: Console
) -> list[ToolRun]:
    runs = [ToolRun(tool, timeout) for tool in tools]
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[current]}"),
    )
    with Progress(*columns, console=console, transient=False) as progress:
        for r in runs:
            progress.console.log(f"starting the {TOOL_NAMES[r.tool]} worker")
            r.start()
        task = progress.add_task("parsing pairs", total=len(pairs), current="")
        for i, pair in enumerate(pairs):
            for r in runs:
                progress.update(task, current=f"{TOOL_NAMES[r.tool]}: {pair.name}")
                outcome = r.parse(i, pair.domain, pair.problem)
                if outcome.error.startswith("timeout"):
                    progress.console.log(f"{TOOL_NAMES[r.tool]}: {pair.name}: {outcome.error}")
            progress.advance(task)
        for r in runs:
            r.stop()
    return runs


# ---------------------------------------------------------------------------- import time


def import_seconds(statement: str, repeat: int = 5) -> float:
    """Median wall time of `python -c statement` minus that of `python -c pass`."""

    def once(code: str) -> float:
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        return time.perf_counter() - start

    bare = statistics.median(once("pass") for _ in range(repeat))
    full = statistics.median(once(statement) for _ in range(repeat))
    return full - bare


# ---------------------------------------------------------------------------- reporting


def mb_per_s(size: int, seconds: float) -> float:
    return size / 1e6 / seconds if seconds > 0 else 0.0


def summary_table(runs: Sequence[ToolRun], pairs: Sequence[Pair]) -> Table:
    table = Table(title=f"Parsing {len(pairs)} (domain, problem) pairs, each into the tool's model")
    for header in (
        "tool",
        "parsed",
        "failed",
        "timeouts",
        "MB",
        "seconds",
        "MB/s",
        "median ms/pair",
    ):
        table.add_column(header, justify="left" if header == "tool" else "right")
    for r in runs:
        ok = [i for i, o in r.outcomes.items() if o.ok]
        size = sum(pairs[i].size for i in ok)
        seconds = sum(r.outcomes[i].seconds for i in ok)
        timeouts = sum(o.error.startswith("timeout") for o in r.outcomes.values())
        median = statistics.median(r.outcomes[i].seconds for i in ok) * 1e3 if ok else 0.0
        table.add_row(
            TOOL_NAMES[r.tool],
            f"{len(ok)}/{len(pairs)}",
            str(len(r.outcomes) - len(ok) - timeouts),
            str(timeouts),
            f"{size / 1e6:.2f}",
            f"{seconds:.2f}",
            f"{mb_per_s(size, seconds):.3f}",
            f"{median:.1f}",
        )
    return table


def ratio_table(runs: Sequence[ToolRun], pairs: Sequence[Pair]) -> tuple[Table, list[bool]]:
    fdc = next(r for r in runs if r.tool == "fdc")
    table = Table(title="fdc against each tool, over the pairs both parse")
    for header in ("ratio", "common pairs", "MB", "fdc MB/s", "other MB/s", "ratio", "target", ""):
        table.add_column(header, justify="left" if header == "ratio" else "right")
    met: list[bool] = []
    for other in runs:
        if other is fdc:
            continue
        common = [i for i, o in other.outcomes.items() if o.ok and fdc.outcomes[i].ok]
        size = sum(pairs[i].size for i in common)
        fdc_rate = mb_per_s(size, sum(fdc.outcomes[i].seconds for i in common))
        other_rate = mb_per_s(size, sum(other.outcomes[i].seconds for i in common))
        ratio = fdc_rate / other_rate if common else 0.0
        target = TARGET_RATIOS[other.tool]
        met.append(ratio >= target)
        table.add_row(
            f"fdc / {TOOL_NAMES[other.tool]}",
            str(len(common)),
            f"{size / 1e6:.2f}",
            f"{fdc_rate:.3f}",
            f"{other_rate:.3f}",
            f"{ratio:.2f}x",
            f">= {target:g}x",
            "[green]met" if met[-1] else "[red]missed",
        )
    return table, met


def failure_lines(
    run: ToolRun, pairs: Sequence[Pair], shown: int = 4, width: int = 116
) -> list[str]:
    """The most common failure reasons of one tool, with an example pair each."""
    kinds: Counter[str] = Counter()
    example: dict[str, str] = {}
    for i, o in sorted(run.outcomes.items()):
        if o.ok:
            continue
        kind, _, message = o.error.partition(": ")
        if kind == "Rejected":  # fdc's diagnostics: name the code
            kind, _, message = message.partition(" ")
        elif kind.startswith("timeout"):
            kind, message = "timeout", o.error
        kinds[kind] += 1
        example.setdefault(kind, f"{pairs[i].name}: {message}")
    lines = []
    for kind, n in kinds.most_common(shown):
        line = f"{n:>4} x {kind}, e.g. {example[kind]}"
        lines.append(line if len(line) <= width else line[: width - 1] + "…")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="parse only the first N pairs")
    parser.add_argument("--skip-up", action="store_true", help="leave unified-planning out")
    parser.add_argument(
        "--timeout", type=float, default=300.0, help="seconds a tool may spend on a pair"
    )
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="the corpus folder")
    args = parser.parse_args(argv)

    console = Console(highlight=False, width=max(Console().width, 120))
    if not (args.corpus / "pairs.json").is_file():
        console.print(f"[red]no corpus at {args.corpus} (pairs.json missing)")
        return 2
    pairs = load_pairs(args.corpus, args.limit)
    tools = ["fdc", "pddl"] + ([] if args.skip_up else ["up"])
    console.print(
        f"Python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs; "
        f"{len(pairs)} pairs, {sum(p.size for p in pairs) / 1e6:.2f} MB, "
        f"timeout {args.timeout:g} s a pair"
    )

    started = time.perf_counter()
    runs = run(pairs, tools, args.timeout, console)
    console.print(f"ran in {time.perf_counter() - started:.0f} s\n")

    console.print(summary_table(runs, pairs))
    ratios, met = ratio_table(runs, pairs)
    console.print(ratios)

    for r in runs:
        lines = failure_lines(r, pairs)
        if lines:
            console.print(f"{TOOL_NAMES[r.tool]}: why pairs failed")
            for line in lines:
                console.print("  " + line, markup=False)

    console.print("\nOne-time costs (not in the figures above)")
    setups = ", ".join(
        f"{TOOL_NAMES[r.tool]} {' + '.join(f'{s:.2f}' for s in r.setup_seconds)} s" for r in runs
    )
    console.print(f"  worker setup (imports, parser builds): {setups}")

    fdc = next(r for r in runs if r.tool == "fdc")
    # Only a worker that finished reports; one killed after a timeout cannot.
    builds = [rep["parser builds"] for rep in fdc.reports]
    reuses = sum(rep["parser reuses"] for rep in fdc.reports)
    built_once = bool(builds) and all(b == 1 for b in builds)
    built = "+".join(map(str, builds)) or "?"
    console.print(
        f"  fdc's Lark parser (parse._parser.cache_info()): built {built} "
        f"time(s) in {len(fdc.setup_seconds)} worker(s), reused {reuses} times  target: once  "
        + ("[green]met" if built_once else "[red]missed")
    )

    package = import_seconds("import fdc.compiler")
    front_end = import_seconds("import fdc.compiler.check, fdc.compiler.printer")
    import_ok = front_end <= TARGET_IMPORT_SECONDS
    console.print(
        f"  import fdc.compiler: {package:.3f} s; with the whole front end "
        f"(check, printer): {front_end:.3f} s  target: <= {TARGET_IMPORT_SECONDS} s  "
        + ("[green]met" if import_ok else "[red]missed")
    )
    console.print("  (import times: median of 5 fresh interpreters, minus a bare interpreter)")
    return 0 if all(met) and built_once and import_ok else 1


if __name__ == "__main__":
    sys.exit(main())
