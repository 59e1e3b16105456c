"""Executors: where shard tasks (`shards.run_shard`) run. Each yields a shard's output
as it finishes, in any order (the merge orders them); closing its iterator cancels the
shards not yet finished, and the finished ones are already in the cache.

- `LocalExecutor(jobs)`: this machine; one job runs the shards in this process, more
  run them in this process and `jobs - 1` worker processes (spawned: the same on every
  platform; this process takes a shard whenever the workers have theirs).
- `DaskExecutor(scheduler)`: a dask.distributed cluster (the optional extra `fdc[dask]`),
  one dask task per shard. A shard whose worker dies is run again on another worker by
  the scheduler; the shard's output comes back to this process, which alone writes the
  cache. Workers need fdc installed and the scene and log files at the paths given (a
  shared file system, or the same paths on every machine); they never write.

Both also `map` any module-level function over a list of calls (`fdc render suite`
renders its experiences so); `in_processes` is the local pool itself (`fdc audit --jobs`
runs its batches of tasks there).
See docs/scale.md.
"""

from __future__ import annotations

import importlib
import multiprocessing
import signal
from collections.abc import Callable, Iterable, Iterator, Sequence, Sized
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from itertools import repeat
from typing import Any, TypeVar

from fdc.core.errors import FdcError, InputError

from .shards import ShardOutput, ShardTask, run_shard

R = TypeVar("R")


class LocalExecutor:
    """Shards in this process (`jobs` 1) or in it and `jobs - 1` worker processes."""

    def __init__(self, jobs: int = 1, here: bool = True) -> None:
        self.jobs = jobs
        #: Whether this process takes calls beside `jobs - 1` workers (`in_processes`);
        #: False: it waits beside `jobs` workers (the same results; a benchmark's
        #: baseline, `benchmarks/validate_share.py`).
        self.here = here

    def run(self, tasks: Sequence[ShardTask]) -> Iterator[ShardOutput]:
        for _, out in self.map(run_shard, [(t,) for t in tasks]):
            yield out

    def map(self, fn: Callable[..., R], calls: Iterable[tuple[Any, ...]],
            names: Iterable[str] | None = None, what: str = "task",
            window: int | None = None) -> Iterator[tuple[int, R]]:
        """`fn(*call)` for each of `calls` (read as they go out; sized: how many, else
        assumed many): (its index, its result) as each finishes, in any order (`names` and
        `what` name a call in the cluster's errors, `window` bounds the calls in flight on
        a cluster; unused here: the pool keeps two a worker)."""
        if self.jobs <= 1 or (isinstance(calls, Sized) and len(calls) <= 1):
            for k, call in enumerate(calls):
                yield k, fn(*call)
            return
        yield from in_processes(fn, calls, self.jobs, here=self.here)


def in_processes(fn: Callable[..., R], calls: Iterable[tuple[Any, ...]], jobs: int, *,
                 here: bool = True) -> Iterator[tuple[int, R]]:
    """`fn(*call)` for each of `calls` in `jobs` processes: this one and at most `jobs - 1`
    spawned worker processes (the same on every platform): (its index, its result) as
    each finishes, in any order. This process takes a call whenever the workers have
    theirs (a few in flight each), rather than wait idle beside `jobs` workers that each
    pay for starting; what a call returns is the same wherever it ran. A finished result
    is let go once yielded, so what is held never grows with the calls. Interrupted,
    closed or failed: the workers are ended at once (`fn` must be a module-level
    function). `here` False: this process only waits, beside `jobs` workers."""
    many = len(calls) if isinstance(calls, Sized) else jobs
    workers = max(0, min(jobs, many) - 1) if here else max(1, min(jobs, many))
    todo = iter(enumerate(calls))
    if workers == 0:
        for k, call in todo:
            yield k, fn(*call)
        return
    pool = ProcessPoolExecutor(max_workers=workers,
                               mp_context=multiprocessing.get_context("spawn"),
                               initializer=ignore_interrupts)
    pending: dict[Future[R], int] = {}
    ahead = 2 * workers  # calls in flight on the workers

    def submit() -> bool:
        nxt = next(todo, None)
        if nxt is not None:
            pending[pool.submit(fn, *nxt[1])] = nxt[0]
        return nxt is not None

    try:
        more = True
        while more and len(pending) < ahead:
            more = submit()
        while more or pending:
            if more and not here:  # this process waits for the workers
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
            elif more:  # the workers have theirs: this process takes the next call
                nxt = next(todo, None)
                if nxt is None:
                    more = False
                else:
                    yield nxt[0], fn(*nxt[1])
                done = {f for f in pending if f.done()}
            else:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                k = pending.pop(fut)
                if more:
                    more = submit()
                yield k, fut.result()
            del done
    except BaseException:  # interrupted, closed or failed: the workers stop now
        for process in list(getattr(pool, "_processes", {}).values()):
            process.terminate()
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


def ignore_interrupts() -> None:
    """A worker leaves Ctrl-C (sent to the whole terminal's process group) to the main
    process, which stops the workers itself: no traceback from each of them."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class DaskExecutor:
    """Shards on the dask.distributed cluster whose scheduler is at `scheduler`
    (`tcp://HOST:PORT`); `retries`: how many times a shard that raised runs again."""

    def __init__(self, scheduler: str, retries: int = 2, timeout_s: float = 30.0) -> None:
        self.scheduler = scheduler
        self.retries = retries
        self.timeout_s = timeout_s

    def run(self, tasks: Sequence[ShardTask]) -> Iterator[ShardOutput]:
        names = [f"the shard of {t.shard.job.path} (day {t.shard.job.day})" for t in tasks]
        keys = [f"fdc-shard-{t.shard.key}" for t in tasks]
        for _, out in self.map(run_shard, [(t,) for t in tasks], names, keys=keys):
            yield out

    def map(self, fn: Callable[..., R], calls: Iterable[tuple[Any, ...]],
            names: Iterable[str] | None = None, what: str = "task",
            keys: Iterable[str] | None = None, window: int | None = None
            ) -> Iterator[tuple[int, R]]:
        """`fn(*call)` for each of `calls`, one dask task each: (its index, its result)
        as each finishes, in any order. `names` say what each call is in an error (else
        "`what` k"), `keys` are their dask keys (else fresh ones). `window`: at most this
        many calls on the cluster at once, the next submitted as one finishes (a sliding
        window; `calls` is read as they go out); None: every call at once."""
        try:  # untyped: Any here
            distributed: Any = importlib.import_module("distributed")
        except ImportError:
            raise InputError("--executor dask needs dask.distributed; hint: "
                             "pip install 'fdc[dask]'") from None
        try:
            client = distributed.Client(self.scheduler, timeout=self.timeout_s,
                                        set_as_default=False)
        except OSError as e:
            raise InputError(f"cannot reach the dask scheduler at {self.scheduler}: {e}"
                             ) from None
        todo = enumerate(zip(calls, names if names is not None else repeat(None),
                             keys if keys is not None else repeat(None), strict=False))
        futures: dict[Any, tuple[int, str | None]] = {}

        def submit() -> Any:
            nxt = next(todo, None)
            if nxt is None:
                return None
            k, (call, name, key) = nxt
            fut = client.submit(fn, *call, pure=False, retries=self.retries,
                                **({"key": key} if key is not None else {}))
            futures[fut] = k, name
            return fut

        try:
            while (window is None or len(futures) < window) and submit() is not None:
                pass
            finished = distributed.as_completed(list(futures), loop=client.loop)
            for fut in finished:
                k, name = futures.pop(fut)
                try:
                    out = fut.result()
                except (FdcError, KeyboardInterrupt, GeneratorExit):
                    raise
                except Exception as e:  # the cluster lost it (KilledWorker), say
                    raise InputError(f"the dask cluster at {self.scheduler} could not run "
                                     f"{name or f'{what} {k}'}: {type(e).__name__}: {e}"
                                     ) from None
                fut.release()  # the workers let the output go
                if window is not None:
                    nxt = submit()
                    if nxt is not None:
                        finished.add(nxt)
                yield k, out
        finally:
            client.cancel(list(futures))
            client.close()
