"""Diagnostics latency of `fdc lsp` after a change, on the built-in library.

    python benchmarks/lsp.py [--changes N] [--gap SECONDS] [--burst K]

Starts `python -m fdc lsp` over stdio with pygls's own client, the workspace being the
built-in library (`domain/`: the domain and its 16 template files), opens every
template, then edits them in turn: each change misspells the first predicate of the
first goal of one template file (or puts it back). The latency of a change is the time
from sending `didChange` to receiving that file's `publishDiagnostics` with the new
state (a diagnostic, or none):
it includes the check of the whole workspace and the JSON-RPC round trip. Changes come
`--gap` seconds apart (an isolated edit, checked at once); `--burst` sends each change as
a burst of keystrokes instead, which the server's debounce (`fdc.lsp.server.DEBOUNCE_S`)
checks once, after the last. Prints the median and the 95th percentile.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

from lsprotocol import types as lsp
from pygls.lsp.client import BaseLanguageClient

LIBRARY = Path(__file__).resolve().parents[1] / "domain"


def misspelt(text: str) -> str:
    """The text with the first predicate (or function) of its first goal missing its
    last letter."""
    from fdc.compiler.lexer import tokenize

    toks = list(tokenize(text))
    goal = next(i for i, t in enumerate(toks) if t.type == "K_GOAL")
    atom = next(t for a, t in zip(toks[goal:], toks[goal + 1:], strict=False)
                if a.type == "LPAR" and t.type == "NAME")
    return text[: atom.end_pos - 1] + text[atom.end_pos :]


async def run(changes: int, gap_s: float, burst: int) -> list[float]:
    client = BaseLanguageClient("fdc-benchmark", "1")
    arrived: dict[str, asyncio.Queue[list[lsp.Diagnostic]]] = {}

    @client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params: lsp.PublishDiagnosticsParams) -> None:
        arrived.setdefault(params.uri, asyncio.Queue()).put_nowait(params.diagnostics)

    await client.start_io(sys.executable, "-m", "fdc", "lsp")
    await client.initialize_async(lsp.InitializeParams(
        capabilities=lsp.ClientCapabilities(), root_uri=LIBRARY.as_uri(),
        workspace_folders=[lsp.WorkspaceFolder(uri=LIBRARY.as_uri(), name="domain")]))
    client.initialized(lsp.InitializedParams())
    templates = sorted((LIBRARY / "templates").rglob("*.pddl"))
    texts = {p.as_uri(): p.read_text() for p in templates}
    for uri, text in texts.items():
        arrived.setdefault(uri, asyncio.Queue())
        client.text_document_did_open(lsp.DidOpenTextDocumentParams(
            text_document=lsp.TextDocumentItem(uri=uri, language_id="pddl", version=1,
                                               text=text)))
    await asyncio.sleep(2.0)  # the first check: imports, the parser's tables
    latencies: list[float] = []
    versions = dict.fromkeys(texts, 1)
    uris = list(texts)
    for i in range(changes):
        uri = uris[i % len(uris)]
        broken = (i // len(uris)) % 2 == 0
        text = texts[uri]
        if broken:
            text = misspelt(text)
        queue = arrived[uri]
        while not queue.empty():
            queue.get_nowait()
        # A burst: the last `burst` states of the text as typed, keystrokes 20 ms apart
        # (a deletion or an insertion of one letter each); timed from the last.
        steps = [text[: len(text) - k] if k else text for k in range(burst - 1, -1, -1)]
        for n, step in enumerate(steps):
            if n:
                await asyncio.sleep(0.02)
            versions[uri] += 1
            start = time.perf_counter()
            client.text_document_did_change(lsp.DidChangeTextDocumentParams(
                text_document=lsp.VersionedTextDocumentIdentifier(
                    uri=uri, version=versions[uri]),
                content_changes=[lsp.TextDocumentContentChangeEvent_Type2(text=step)]))
        while True:
            diagnostics = await asyncio.wait_for(queue.get(), timeout=30)
            codes = [d.code for d in diagnostics]
            if codes == [] if not broken else codes in (["N203"], ["N204"]):
                break  # the last state's: the misspelt name alone, or nothing
        latencies.append(time.perf_counter() - start)
        await asyncio.sleep(gap_s)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return latencies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--changes", type=int, default=64, help="changes to time")
    parser.add_argument("--gap", type=float, default=0.3, help="seconds between changes")
    parser.add_argument("--burst", type=int, default=1,
                        help="keystrokes per change (1: an isolated edit)")
    args = parser.parse_args()
    from fdc.lsp.server import DEBOUNCE_S

    latencies = asyncio.run(run(args.changes, args.gap, max(args.burst, 1)))
    ms = sorted(x * 1000 for x in latencies)
    p95 = ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]
    kind = "isolated changes" if args.burst == 1 else \
        f"bursts of {args.burst} keystrokes 20 ms apart (debounce {DEBOUNCE_S * 1000:.0f} ms)"
    print(f"fdc lsp, built-in library ({LIBRARY}): {len(ms)} {kind}")
    print(f"  diagnostics after the last change: median {statistics.median(ms):.1f} ms, "
          f"p95 {p95:.1f} ms, max {ms[-1]:.1f} ms")


if __name__ == "__main__":
    main()
