"""Compile-ahead: the device-free, costly preparation of runs about to be made (the
NVRTC compile of a CUDA candidate, ``Runner.compile_ahead``), made on a few threads of
their own while the device measures the ones before them, so that a measurement only
loads a cached image instead of waiting for its compile.

``CompileAhead`` takes the items it is offered (the tuner offers the next few
candidates it will measure: a bounded window) and prepares each once, in order, on
``threads`` threads. Before an item is measured, ``claim`` settles it: a preparation
not started yet is cancelled (the measurement compiles as it always did), a running one
is waited for (it finishes sooner than a compile started afresh). Nothing it does can
change a verdict: a preparation that raises is counted and forgotten, and the run
reports the error as it would have. ``close`` (and ``cancel_pending``) cancel what has
not started; a compile already inside NVRTC cannot be interrupted, so at most one per
thread runs on to its end, which is all the interpreter's exit waits for.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Hashable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import Any

__all__ = ["CompileAhead", "default_threads"]


#: At most this many compiles at once: each NVRTC compile of a GEMM candidate holds a
#: few hundred MB, and past a window of 2 per thread more threads only compile sooner
#: what the measuring will not reach for a while.
MAX_THREADS = 16


def default_threads() -> int:
    """One thread per core this process may run on, but one (left to the measuring
    and the runners), at least one and at most ``MAX_THREADS``."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # no affinity on this platform
        cores = os.cpu_count() or 1
    return max(1, min(MAX_THREADS, cores - 1))


class CompileAhead:
    """Prepares offered items ahead of their use (see the module docstring):
    ``prepare(item)`` runs at most once per key, on one of ``threads`` threads."""

    def __init__(self, prepare: Callable[[Any], None], threads: int) -> None:
        self._prepare = prepare
        self.threads = max(1, int(threads))
        self._pool: ThreadPoolExecutor | None = None  # started on the first offer
        self._futures: dict[Hashable, Future] = {}  # offered and not claimed yet
        self._offered: set[Hashable] = set()  # every key ever offered
        self._lock = threading.Lock()
        self.closed = False
        self.prepared = 0  # preparations that ran to their end
        self.failed = 0  # preparations that raised (ignored)
        self.claimed_running = 0  # claims that waited for a running preparation

    def __contains__(self, key: Hashable) -> bool:
        """Whether ``key`` was offered (and not cancelled before it started)."""
        return key in self._offered

    def offer(self, items: Iterable[tuple[Hashable, Any]]) -> None:
        """Queue ``(key, item)`` pairs for preparation, in order, each key once."""
        with self._lock:
            if self.closed:
                return
            for key, item in items:
                if key in self._offered:
                    continue
                if self._pool is None:
                    self._pool = ThreadPoolExecutor(
                        self.threads, thread_name_prefix="kforge-compile-ahead"
                    )
                self._offered.add(key)
                self._futures[key] = self._pool.submit(self._run, item)

    def _run(self, item: Any) -> None:
        try:
            self._prepare(item)
        except Exception:  # the run itself reports whatever went wrong, as it would have
            with self._lock:
                self.failed += 1
            return
        with self._lock:
            self.prepared += 1

    def claim(self, key: Hashable) -> None:
        """Settle ``key``'s preparation before its run: cancel it when it has not
        started, wait for it when it is running; nothing when it was never offered."""
        with self._lock:
            future = self._futures.pop(key, None)
        if future is None or future.cancel():
            return
        if not future.done():
            with self._lock:
                self.claimed_running += 1
        wait((future,))  # _run raises nothing; one cancelled by close is done too

    def cancel_pending(self) -> None:
        """Cancel every preparation not started yet (they may be offered again)."""
        with self._lock:
            for key, future in list(self._futures.items()):
                if future.cancel():
                    del self._futures[key]
                    self._offered.discard(key)

    def close(self) -> None:
        """Cancel what has not started and stop the threads without waiting for the
        preparations running (idempotent)."""
        with self._lock:
            self.closed = True
            pool, self._pool = self._pool, None
            futures = list(self._futures.values())
            self._futures.clear()
        for future in futures:
            future.cancel()
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
