"""Executors: where shard tasks (`shards.run_shard`) run. Each yields a shard's output
as it finishes, in any order (the merge orders them); closing its iterator cancels the
shards not yet finished, and the finished ones are already in the cache.

- `LocalExecutor(jobs)`: this machine; one job runs the shards in this process, more
  run them in as many worker processes (spawned: the same on every platform).
- `DaskExecutor(scheduler)`: a dask.distributed cluster (the optional extra `fdc[dask]`),
  one dask task per shard. A shard whose worker dies is run again on another worker by
  the scheduler; the shard's output comes back to this process, which alone writes the
  cache, so workers need fdc installed but no shared file system.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any

from fdc.core.errors import InputError

from .shards import ShardOutput, ShardTask, run_shard


class LocalExecutor:
    """Shards in this process (`jobs` 1) or in `jobs` worker processes."""

    def __init__(self, jobs: int = 1) -> None:
        self.jobs = jobs

    def run(self, tasks: Sequence[ShardTask]) -> Iterator[ShardOutput]:
        if self.jobs <= 1 or len(tasks) <= 1:
            for task in tasks:
                yield run_shard(task)
            return
        import multiprocessing
        from concurrent.futures import as_completed

        ctx = multiprocessing.get_context("spawn")
        pool = ProcessPoolExecutor(max_workers=min(self.jobs, len(tasks)), mp_context=ctx)
        futures: list[Future[ShardOutput]] = [pool.submit(run_shard, t) for t in tasks]
        try:
            for fut in as_completed(futures):
                yield fut.result()
        finally:
            for fut in futures:
                fut.cancel()
            pool.shutdown(wait=True, cancel_futures=True)


class DaskExecutor:
    """Shards on the dask.distributed cluster whose scheduler is at `scheduler`
    (`tcp://HOST:PORT`); `retries`: how many times a shard that raised runs again."""

    def __init__(self, scheduler: str, retries: int = 2, timeout_s: float = 30.0) -> None:
        self.scheduler = scheduler
        self.retries = retries
        self.timeout_s = timeout_s

    def run(self, tasks: Sequence[ShardTask]) -> Iterator[ShardOutput]:
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
        futures = [client.submit(run_shard, t, key=f"fdc-shard-{t.shard.key}", pure=False,
                                 retries=self.retries) for t in tasks]
        try:
            for fut in distributed.as_completed(futures):
                yield fut.result()
        finally:
            client.cancel(futures)
            client.close()
