"""`fdc run-agent vlm SUITE --endpoint URL --model NAME -o preds.jsonl`: a vision-language
model, served by an OpenAI-compatible server, answers a suite's memory tasks.

Each memory task is asked as `fdc export vlm` writes it (`fdc.interop.vlm`: the frames
sub-sampled to a budget, labelled, then the instruction and the answer rule, images
inlined as data URLs), through `fdc.agents.vlm.ChatClient` (retries, a disk cache); the
reply is read strictly. The predictions name the frames of every well-formed reply; a
malformed reply is written as `"frames": []` (no answer: `fdc evaluate` scores it a
failure) and counted; a task whose request failed has no line. Beside the predictions,
`<name>.replies.jsonl` records every reply and how it was read.

Exit codes: 0 every memory task answered well-formed; 1 some reply malformed or some
request failed; 2 usage or input error, or a server that cannot be used (unreachable,
refusing the key, model or path); 130 interrupted (the replies so far stay cached).
See docs/cli.md.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from fdc.cli.common import (
    EXIT_FINDINGS,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    FramesDirs,
    MaxFrames,
    file_option,
    open_suite_or_exit,
    progress_bar,
    stderr,
)

if TYPE_CHECKING:
    from fdc.agents.vlm import ChatClient
    from fdc.compiler.suite import TaskRecord
    from fdc.interop.vlm import FrameSources

run_agent_app = typer.Typer(
    help="Run an agent on a suite and write the predictions `fdc evaluate` scores.",
    no_args_is_help=True)


@run_agent_app.command()
def vlm(
    suite: Annotated[Path, typer.Argument(help="The task suite (suite.jsonl).")],
    endpoint: Annotated[str, typer.Option(
        help="The OpenAI-compatible server: its base URL (http://127.0.0.1:8000), its /v1 "
        "URL or its chat-completions URL.")],
    model: Annotated[str, typer.Option(help="The model name the server serves.")],
    output: Annotated[Path, file_option("--output", "-o", help="The predictions file.")],
    frames: FramesDirs = None,
    max_frames: MaxFrames = 32,
    cache: Annotated[Path | None, typer.Option(
        help="The reply cache folder (default: <output name>.vlm-cache beside the "
        "predictions).")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Ask every request again "
                                           "and cache nothing.")] = False,
    timeout: Annotated[float, typer.Option(min=0.1, help="Seconds to wait for one reply.")
                       ] = 120.0,
    retries: Annotated[int, typer.Option(
        min=0, help="Tries again after a timeout, a dropped connection, 408, 429 or 5xx.")
                       ] = 4,
    backoff: Annotated[float, typer.Option(
        min=0.0, help="Seconds before the first retry; doubled for each next one.")] = 1.0,
    max_tokens: Annotated[int, typer.Option(min=1, help="The reply's token budget.")] = 256,
    scene: Annotated[Path | None, typer.Option(
        help="The scene file (default: the one each task names).")] = None,
    experience: Annotated[Path | None, typer.Option(
        help="The experience log (default: the manifest beside the suite says which).")
                          ] = None,
) -> None:
    """Ask a vision-language model every memory task of a suite, through an
    OpenAI-compatible chat-completions server (vLLM, Ollama, OpenAI), and write its
    answers as predictions; malformed replies are scored as failures and counted."""
    from fdc.agents.predictions import Prediction
    from fdc.agents.vlm import ChatClient, VlmServerError
    from fdc.compiler.reopen import ReopenError
    from fdc.core.files import Outputs
    from fdc.interop.vlm import FramesError, FrameSources, is_memory_question

    err = stderr()
    opened = open_suite_or_exit(suite, err, scenes=[scene] if scene else [],
                                experiences=[experience] if experience else [])
    tasks = [r for r in opened.records if is_memory_question(r)]
    others = len(opened.records) - len(tasks)
    cache_dir = None if no_cache else (
        cache if cache is not None else output.parent / f"{output.stem}.vlm-cache")
    client = ChatClient(endpoint, model, cache=cache_dir, timeout_s=timeout,
                        retries=retries, backoff_s=backoff, max_tokens=max_tokens)
    counts = {"answered": 0, "malformed": 0, "failed": 0}
    answerable = 0
    predictions: list[str] = []
    replies: list[str] = []
    try:
        with FrameSources(opened, frames or [], max_frames) as sources:
            _frames_first(sources, tasks)
            with progress_bar(err) as progress:
                bar = progress.add_task(f"asking {model}", total=len(tasks))
                for task in tasks:
                    status, reply = _ask(task, sources, client)
                    counts[status] += 1
                    answerable += bool(reply["answerable"])
                    replies.append(json.dumps(reply, sort_keys=True, ensure_ascii=False)
                                   + "\n")
                    if status != "failed":
                        predictions.append(json.dumps(Prediction(
                            task_id=task.id, frames=reply["frames"]).model_dump(
                                mode="json", exclude_none=True), sort_keys=True) + "\n")
                    progress.update(bar, advance=1)
        with Outputs() as out:
            out.write(output, "".join(predictions))
            out.write(output.parent / f"{output.stem}.replies.jsonl", "".join(replies))
    except (FramesError, ReopenError, VlmServerError) as e:
        err.print(f"error: {e}", markup=False)
        raise typer.Exit(EXIT_USAGE) from None
    except KeyboardInterrupt:
        done = sum(counts.values())
        err.print(f"interrupted after {done} of {len(tasks)} task(s); nothing written"
                  + ("; the replies so far are cached, a rerun resumes" if cache_dir else ""))
        raise typer.Exit(EXIT_INTERRUPTED) from None
    err.print(_summary(output, counts, answerable, client, others), markup=False)
    raise typer.Exit(EXIT_FINDINGS if counts["malformed"] or counts["failed"] else EXIT_OK)


def _frames_first(sources: FrameSources, tasks: list[TaskRecord]) -> None:
    """Every memory task's frames found (or rendered) before the first request."""
    for task in tasks:
        sources.frames(task)


def _ask(task: TaskRecord, sources: FrameSources, client: ChatClient
         ) -> tuple[str, dict[str, Any]]:
    """One memory task asked and its reply read: a status (answered, malformed,
    failed) and the line of the replies file."""
    from fdc.agents.vlm import VlmRequestError
    from fdc.interop.vlm import (
        data_url,
        memory_messages,
        parse_answer,
        select_frames,
        targets_of,
    )

    shown = select_frames(sources.frames(task).frames, sources.budget)
    messages = memory_messages(task, shown, lambda f: data_url(f.path))
    seen = {f.frame for f in shown}
    answerable = bool(task.valid_frames) and all(
        any(f in seen for f in v) for v in task.valid_frames or [])
    line: dict[str, Any] = {"task_id": task.id, "model": client.model,
                            "answerable": answerable}
    try:
        reply = client.complete(messages)
    except VlmRequestError as e:
        return "failed", {**line, "status": "failed", "problem": str(e)}
    line["cached"] = reply.cached
    line["reply"] = reply.text
    if reply.text is None:
        return "malformed", {**line, "status": "malformed", "frames": [],
                             "problem": "the response has no choices[0].message.content"}
    answer = parse_answer(reply.text, targets_of(task)[0], {f.frame for f in shown})
    if answer.frames is None:
        return "malformed", {**line, "status": "malformed", "frames": [],
                             "problem": answer.problem}
    return "answered", {**line, "status": "answered", "frames": answer.frames}


def _summary(output: Path, counts: dict[str, int], answerable: int, client: ChatClient,
             others: int) -> str:
    total = sum(counts.values())
    text = (f"wrote {counts['answered'] + counts['malformed']} prediction(s) to {output} for "
            f"{total} memory task(s) ({answerable} with a valid frame among those shown): "
            f"{counts['answered']} answered, {counts['malformed']} "
            f"malformed (scored as failures), {counts['failed']} failed requests (no "
            f"prediction); {client.asked} request(s) sent, {client.from_cache} from the cache")
    if others:
        text += f"; {others} other task(s) not asked (the VLM agent answers memory tasks)"
    return text
