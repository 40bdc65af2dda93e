"""B1: the browser backend (WebGPU in headless Chromium) beside the wgpu backend, in
the same run: bytes per second moved in and out (the target: at least 200 MB/s each
way on a 2-core machine), ``run_kernel``'s host cost per sample on a tiny kernel, and
what opening a context costs. Both backends run on whatever adapter they have here
(Chromium's SwiftShader and lavapipe on CI's machine); every figure is the host clock
around the contract's own calls, so the two are measured alike."""

from __future__ import annotations

import functools
import time

import numpy as np

import forge
from forge import Schedule

from ._env import Bench
from ._report import MIB, Goal, Row, format_bytes, guarded
from ._timing import alternate, median
from ._workload import bind_views, host_array, host_seconds_per_sample

__all__ = ["b1"]

_TINY = 1024
_MB = 1e6
_GOAL_MB_S = 200.0  # docs/PERFORMANCE.md, target "browser": each way, on CI's 2-core machine


def b1(env: Bench) -> list[Row]:
    from backends.browser import INLINE_LIMIT

    # the largest transfer that rides in the channel's messages, and a large one
    sizes = sorted({INLINE_LIMIT, env.sizes.transfer_bytes})
    rows = guarded("B1", "opening a context", lambda: _opening(env))
    for nbytes in sizes:
        rows += guarded(
            "B1", f"transfers of {format_bytes(nbytes)}", functools.partial(_transfers, env, nbytes)
        )
    rows += guarded("B1", "run_kernel host overhead", lambda: _overhead(env))
    return rows


def _open(name: str, capacity: int = 16 * MIB):
    return forge.open_context(name, capacity_bytes=capacity)


def _opening(env: Bench) -> list[Row]:
    """Seconds to open (and close) a context: the first in the process (Chromium is
    launched) and the ones after (a tab is reused)."""

    def seconds(name: str) -> float:
        start = time.perf_counter()
        _open(name).close()
        return time.perf_counter() - start

    first = seconds("browser")
    values = alternate(
        {"wgpu": lambda: seconds("wgpu"), "browser": lambda: seconds("browser")}, env.sizes.rounds
    )
    return [
        Row(
            "B1",
            "open + close a context, browser",
            "the same, wgpu",
            median(values["wgpu"]) * 1e3,
            median(values["browser"]) * 1e3,
            "ms",
            notes=f"the first in the process, Chromium launched: {first * 1e3:.0f} ms",
            raw={
                "first_ms": first * 1e3,
                "rounds_ms": {k: [v * 1e3 for v in vs] for k, vs in values.items()},
            },
        )
    ]


class _Transfer:
    """Moving ``nbytes`` into a view and back out of it through the contract
    (``write_view``, then a 4-byte read that makes it land; ``read_buffer_u32_into``),
    checked once for equality."""

    def __init__(self, ctx, nbytes: int) -> None:
        self.ctx, self.nbytes = ctx, nbytes
        self.data = host_array(nbytes // 4, 50).view(np.uint32)
        self.out = np.zeros_like(self.data)
        self.probe_out = np.zeros(1, np.uint32)
        self.view = ctx.allocate_transient(nbytes, 0)
        self.probe = ctx.allocate_transient(4, 1)

    def write(self) -> float:
        start = time.perf_counter()
        self.ctx.write_view(self.view, self.data)
        self.ctx.read_buffer_u32_into(self.probe, self.probe_out)  # the bytes have landed
        return self.nbytes / (time.perf_counter() - start) / _MB

    def read(self) -> float:
        start = time.perf_counter()
        self.ctx.read_buffer_u32_into(self.view, self.out)
        return self.nbytes / (time.perf_counter() - start) / _MB

    def check(self) -> None:
        self.write()
        self.read()
        if not np.array_equal(self.out, self.data):
            raise AssertionError(
                f"{self.ctx.backend_name}: {self.nbytes} bytes read back differ from those written"
            )


def _transfers(env: Bench, nbytes: int) -> list[Row]:
    capacity = 4 * nbytes + 4 * MIB
    with _open("wgpu", capacity) as wgpu_ctx, _open("browser", capacity) as browser_ctx:
        theirs, ours = _Transfer(wgpu_ctx, nbytes), _Transfer(browser_ctx, nbytes)
        theirs.check()
        ours.check()
        values = alternate(
            {
                "wgpu in": theirs.write,
                "browser in": ours.write,
                "wgpu out": theirs.read,
                "browser out": ours.read,
            },
            env.sizes.rounds,
        )
    from backends.browser import INLINE_LIMIT

    path = "in the channel's messages" if nbytes <= INLINE_LIMIT else "over HTTP"
    goal = Goal(">=", _GOAL_MB_S, on="ours") if nbytes > INLINE_LIMIT else None
    return [
        Row(
            "B1",
            f"{direction} {format_bytes(nbytes)}, browser",
            "the same, wgpu",
            median(values[f"wgpu {key}"]),
            median(values[f"browser {key}"]),
            "MB/s",
            goal,
            notes=f"{what}; the bytes go {path}; checked equal",
            raw={"rounds": {k: v for k, v in values.items() if k.endswith(key)}},
        )
        for key, direction, what in (
            ("in", "upload", "write_view and a 4-byte read that waits for it"),
            ("out", "readback", "read_buffer_u32_into a caller's array"),
        )
    ]


def _overhead(env: Bench) -> list[Row]:
    """``run_kernel`` of a tiny kernel: host time per sample of many samples in one
    call, and of calls of one sample each (where the page's round trip shows)."""
    kernel, schedule = forge.get_kernel("affine"), Schedule(64)
    x = host_array(_TINY, 40)
    count = env.sizes.launch_samples
    calls = max(3, count // 20)
    with _open("wgpu") as wgpu_ctx, _open("browser") as browser_ctx:
        bound = {}
        for ctx in (wgpu_ctx, browser_ctx):
            views = bind_views(ctx, kernel, _TINY, {"x": x})
            ctx.run_kernel(kernel, schedule, views, _TINY, warmups=10)
            bound[ctx.backend_name] = (ctx, views)

        def many(name: str) -> float:
            ctx, views = bound[name]
            return host_seconds_per_sample(ctx, kernel, schedule, views, _TINY, count)

        def single(name: str) -> float:
            ctx, views = bound[name]
            start = time.perf_counter()
            for _ in range(calls):
                ctx.run_kernel(kernel, schedule, views, _TINY, samples=1)
            return (time.perf_counter() - start) / calls

        values = alternate(
            {
                f"{f.__name__} {n}": functools.partial(f, n)
                for f in (many, single)
                for n in ("wgpu", "browser")
            },
            env.sizes.rounds,
        )
        timing = {name: ctx.timing_source for name, (ctx, _) in bound.items()}
    us = {key: median(vs) * 1e6 for key, vs in values.items()}
    note = f"timing: wgpu {timing['wgpu']}, browser {timing['browser']}"
    return [
        Row(
            "B1",
            f"run_kernel per sample, {count} samples a call, tiny kernel, browser",
            "the same, wgpu",
            us["many wgpu"],
            us["many browser"],
            "us",
            notes=note,
            raw={"rounds_us": {k: [v * 1e6 for v in vs] for k, vs in values.items()}},
        ),
        Row(
            "B1",
            "run_kernel of one sample, tiny kernel, browser",
            "the same, wgpu",
            us["single wgpu"],
            us["single browser"],
            "us",
            notes=f"{note}; {calls} calls a figure: the page's round trip per call",
        ),
    ]
