"""Micro-batching: concurrent requests share one model call.

Why: a reward model called from an RL loop gets many small requests at once;
one forward pass over all of them costs far less than one per request. A batch
closes when it holds `max_batch` records or `max_wait_s` after its first
request arrived, whichever comes first; a request is never split, so one over
`max_batch` is scored alone, and a request that would overflow a batch opens
the next. Batches run one at a time on one worker thread, so models (not
thread-safe) see one call at a time and the event loop stays free. A request
whose caller stopped waiting (the server's timeout, a client that went away)
before its batch started is dropped, not scored; a batch already running
finishes (a model call cannot be stopped part way).
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable, Generic, Sequence, TypeVar

T = TypeVar("T")
R = TypeVar("R")


@dataclass
class _Item(Generic[T]):
    request: T
    size: int
    future: asyncio.Future = field(repr=False)


class MicroBatcher(Generic[T, R]):
    """Collect requests into batches and run `fn` once per batch.

    `fn(requests)` returns one result per request; `size(request)` is what
    `max_batch` counts (records). If `fn` raises, each request of the batch is
    retried alone, so one bad request fails only itself.
    """

    def __init__(self, fn: Callable[[Sequence[T]], list[R]], size: Callable[[T], int], *, max_batch: int,
                 max_wait_s: float) -> None:
        self.fn, self.size, self.max_batch, self.max_wait_s = fn, size, max_batch, max_wait_s
        self.queue: asyncio.Queue[_Item[T]] = asyncio.Queue()
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="qascore-score")
        self.task: asyncio.Task | None = None
        self.batches = 0   # model calls made (a figure for /health and the load test)
        self.requests = 0

    @property
    def enabled(self) -> bool:
        return self.max_batch > 1 and self.max_wait_s > 0

    def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self._loop())

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            try:
                await self.task
            except asyncio.CancelledError:
                pass
        self.executor.shutdown(wait=False)

    async def submit(self, request: T) -> R:
        fut = asyncio.get_running_loop().create_future()
        await self.queue.put(_Item(request, self.size(request), fut))
        return await fut

    async def _loop(self) -> None:
        loop = asyncio.get_running_loop()
        carry: _Item[T] | None = None
        while True:
            first = carry if carry is not None else await self.queue.get()
            carry = None
            batch, n = [first], first.size
            deadline = loop.time() + self.max_wait_s
            while self.enabled and n < self.max_batch:
                left = deadline - loop.time()
                if left <= 0:
                    break
                try:
                    nxt = await asyncio.wait_for(self.queue.get(), left)
                except asyncio.TimeoutError:
                    break
                if n + nxt.size > self.max_batch:
                    carry = nxt
                    break
                batch.append(nxt)
                n += nxt.size
            # a request whose caller gave up while it queued (timed out, disconnected: its future is
            # cancelled) is not scored: it would hold the worker for nobody (issue 42)
            batch = [b for b in batch if not b.future.done()]
            if batch:
                await loop.run_in_executor(self.executor, self._run, batch, loop)

    def _run(self, batch: list[_Item[T]], loop: asyncio.AbstractEventLoop) -> None:
        self.batches += 1
        self.requests += len(batch)
        try:
            outs: list[Any] = list(self.fn([b.request for b in batch]))
        except Exception as err:  # noqa: BLE001 - retried one by one so only the bad request fails
            outs = [err] if len(batch) == 1 else []
            for b in batch if len(batch) > 1 else ():
                try:
                    outs.append(self.fn([b.request])[0])
                except Exception as err:  # noqa: BLE001
                    outs.append(err)
        for b, out in zip(batch, outs):
            if isinstance(out, BaseException):
                loop.call_soon_threadsafe(_set_exception, b.future, out)
            else:
                loop.call_soon_threadsafe(_set_result, b.future, out)


def _set_result(fut: asyncio.Future, value: Any) -> None:
    if not fut.done():
        fut.set_result(value)


def _set_exception(fut: asyncio.Future, err: BaseException) -> None:
    if not fut.done():
        fut.set_exception(err)
