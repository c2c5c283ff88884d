"""Heavy requests off the event loop, each within a time budget.

A replay page re-plays a whole game and draws every frame (about 2 s for a 250-decision pantheon fleet
game on this machine); an event listing writes out a long history. On the event loop, three replay pages
held ``/v1/health`` for 15.6 s (issue 43). Here they run in a small pool of threads
(``max_heavy_requests``), so the event loop keeps answering everything else: the GIL is handed back to
it every few milliseconds (``sys.getswitchinterval``), where a handler on the loop would hold it for
the whole request.

Each request has ``request_budget_s`` from its arrival, waiting for a thread included; past it the
client gets 503 ``request_timeout`` at once, and its work is stopped: it checks its :class:`Deadline`
between steps where it can (each decision of a replay), and where it runs code that cannot (the viewer
drawing frames) :class:`Job` raises :class:`DeadlineExceeded` in its thread at the next bytecode
(CPython's ``PyThreadState_SetAsyncExc``, only while the job runs; C calls finish first). A request
still queued when its budget runs out never starts. At most ``4 * max_heavy_requests`` wait at
once; one more answers 503 ``server_busy`` with ``Retry-After``.
"""

from __future__ import annotations

import asyncio
import ctypes
import math
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from naval_tactics.server.errors import ApiError
from naval_tactics.server.settings import ServerSettings

T = TypeVar("T")
#: Requests allowed to wait for a thread, per thread.
QUEUE_PER_THREAD = 4


class DeadlineExceeded(Exception):
    """Raised by the work itself (:meth:`Deadline.check`) once its request's budget is spent."""


class Deadline:
    """A request's end, on the monotonic clock."""

    def __init__(self, budget_s: float) -> None:
        self.budget_s = budget_s
        self.at = time.monotonic() + budget_s

    def left(self) -> float:
        return self.at - time.monotonic()

    def check(self) -> None:
        """Stop the work (raise :class:`DeadlineExceeded`) when the budget is spent."""
        if time.monotonic() > self.at:
            raise DeadlineExceeded


class Job:
    """The work of one request while it runs in a pool thread (``with job:``), stoppable from another thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._thread: int | None = None

    def __enter__(self) -> None:
        with self._lock:
            self._thread = threading.get_ident()

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            if self._thread is not None:
                _async_raise(self._thread, None)   # a stop that came too late is dropped, not raised later
            self._thread = None

    def stop(self) -> None:
        """Raise :class:`DeadlineExceeded` in the job's thread, if it is still running it."""
        with self._lock:
            if self._thread is not None:
                _async_raise(self._thread, DeadlineExceeded)


def _async_raise(thread: int, exception: type[BaseException] | None) -> None:
    """Have ``thread`` raise ``exception`` at its next bytecode (None: forget one not yet raised)."""
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread),
                                               ctypes.py_object(exception) if exception is not None else None)


class HeavyPool:
    """``settings.max_heavy_requests`` threads for heavy requests, each held to ``settings.request_budget_s``."""

    def __init__(self, settings: ServerSettings) -> None:
        self.budget_s = settings.request_budget_s
        self.threads = settings.max_heavy_requests
        self.pending = 0
        self._pool: ThreadPoolExecutor | None = None

    def pool(self) -> ThreadPoolExecutor:
        """The threads, started on the first heavy request (again after :meth:`close`, as an app's lifespan
        may end and begin again)."""
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.threads, thread_name_prefix="heavy-request")
        return self._pool

    async def run(self, work: Callable[[Deadline], T], stoppable: bool = True) -> T:
        """``work(deadline)`` in a thread; 503 when the server is full of heavy requests or the budget runs out.

        ``stoppable``: the work may be stopped from outside when its budget runs out. Pass False for work that
        holds locks other requests need (the game store's): an exception raised at an arbitrary bytecode could
        leave one held; such work only checks its deadline itself, and its answer is a 503 all the same."""
        if self.pending >= self.threads * (1 + QUEUE_PER_THREAD):   # each thread busy, four waiting for it
            retry = max(1, math.ceil(self.budget_s / 4))
            raise ApiError("server_busy", f"the server is already running or holding {self.pending} heavy requests "
                           f"(replays, event listings, pictures), its limit; retry in {retry} s",
                           details={"max_heavy_requests": self.threads}, headers={"Retry-After": str(retry)})
        deadline = Deadline(self.budget_s)
        job = Job()

        def guarded() -> T:
            deadline.check()   # its budget spent while it waited for a thread: never started
            with job:
                return work(deadline)

        future = asyncio.get_running_loop().run_in_executor(self.pool(), guarded)
        self.pending += 1
        future.add_done_callback(self._finished)
        try:
            return await asyncio.wait_for(asyncio.shield(future), max(0.0, deadline.left()))
        except (TimeoutError, DeadlineExceeded):
            if stoppable:
                job.stop()
            raise self.timeout() from None

    def timeout(self) -> ApiError:
        return ApiError("request_timeout", f"the request did not finish within its budget of {self.budget_s:g} s "
                        "(request_budget_s; the server may be busy with other heavy requests): retry later, or ask "
                        "for less (a shorter game, a later `since`)", details={"request_budget_s": self.budget_s},
                        headers={"Retry-After": str(max(1, math.ceil(self.budget_s / 4)))})

    def _finished(self, _future: asyncio.Future[Any]) -> None:
        self.pending -= 1
        if not _future.cancelled():
            _future.exception()   # retrieved: a timed-out request's late failure is not logged as unretrieved

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
