"""Timers: CUDA events on a context's compute stream, torch's CUDA events, the host
clock; and ``alternate``, which interleaves a baseline with ours so that drifts of a
shared machine (clocks, neighbours) hit both alike."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

__all__ = ["median", "CudaTimer", "torch_seconds", "host_seconds", "alternate"]


def median(values) -> float:
    values = list(values)
    if not values:
        raise ValueError("no samples to take a median of")
    return float(statistics.median(values))


class CudaTimer:
    """Times work enqueued on ``ctx``'s compute stream between two CUDA events, as
    ``run_kernel`` times its samples; for baselines made of raw driver calls."""

    def __init__(self, ctx) -> None:
        from backends.cuda import driver
        from backends.cuda import driver_call as call

        self._call, self._driver = call, driver
        self.ctx = ctx
        flags = driver.CUevent_flags.CU_EVENT_DEFAULT
        self._start = call(driver.cuEventCreate, flags)
        self._end = call(driver.cuEventCreate, flags)

    def seconds(
        self, enqueue: Callable[[], object], warmups: int = 2, samples: int = 10
    ) -> list[float]:
        """Per-sample seconds of ``enqueue()`` (which enqueues on ``ctx.stream``)."""
        call, driver = self._call, self._driver
        call(driver.cuCtxSetCurrent, self.ctx.ctx)
        stream = self.ctx.stream
        for _ in range(warmups):
            enqueue()
        out = []
        for _ in range(samples):
            call(driver.cuEventRecord, self._start, stream)
            enqueue()
            call(driver.cuEventRecord, self._end, stream)
            call(driver.cuEventSynchronize, self._end)
            out.append(call(driver.cuEventElapsedTime, self._start, self._end) * 1e-3)
        return out

    def close(self) -> None:
        for event in (self._start, self._end):
            try:
                self._driver.cuEventDestroy(event)
            except Exception:  # a context already torn down took its events with it
                pass


def torch_seconds(
    torch, work: Callable[[], object], warmups: int = 2, samples: int = 10
) -> list[float]:
    """Per-sample seconds of ``work()`` on torch's current stream, by torch's events."""
    for _ in range(warmups):
        work()
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    out = []
    for _ in range(samples):
        start.record()
        work()
        end.record()
        end.synchronize()
        out.append(start.elapsed_time(end) * 1e-3)
    return out


def host_seconds(
    work: Callable[[], object], repeats: int = 5, setup: Callable[[], object] | None = None
) -> list[float]:
    """Host wall-clock seconds of ``work()``, ``setup()`` (untimed) before each."""
    out = []
    for _ in range(repeats):
        if setup is not None:
            setup()
        start = time.perf_counter()
        work()
        out.append(time.perf_counter() - start)
    return out


def alternate(figures: dict[str, Callable[[], float]], rounds: int) -> dict[str, list[float]]:
    """Each figure measured ``rounds`` times, in turn (a, b, a, b...); every value kept
    (take the median)."""
    results: dict[str, list[float]] = {name: [] for name in figures}
    for _ in range(rounds):
        for name, figure in figures.items():
            results[name].append(figure())
    return results
