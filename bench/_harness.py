"""P5 and P7: what the CUDA harness adds on the host. P5: ``run_kernel``'s cost per
sample on a tiny kernel against a bare cuda.bindings launch loop (the row: a launch
timed before, which replays its cached graph; the first and second timings of a
launch, direct and capturing, in its notes), and graph replay per kernel; P7:
uploads of a large array against a pinned DMA, with the host's own copy bandwidth
(what bounds an upload from pageable memory) measured alongside."""

from __future__ import annotations

import ctypes
import time

import numpy as np

import forge
from forge import Schedule

from ._env import Bench
from ._report import MIB, Goal, Row, bandwidth_gbps, failed_row, format_bytes, guarded
from ._timing import CudaTimer, alternate, host_seconds, median
from ._workload import bind_views, host_array, host_seconds_per_sample

__all__ = ["p5", "p7"]

_TINY = 1024  # elements of the tiny kernel: 16 workgroups of 64
_GRAPH_KERNELS = 100  # launches captured in the replayed graph
_GRAPH_REPLAYS = 20  # replays queued back to back per timed sample


def _tiny(ctx):
    """The tiny kernel (IR affine, 1024 elements), bound and compiled."""
    kernel, schedule = forge.get_kernel("affine"), Schedule(64)
    views = bind_views(ctx, kernel, _TINY, {"x": host_array(_TINY, 30)})
    ctx.run_kernel(kernel, schedule, views, _TINY, warmups=10)
    return kernel, schedule, views


def _raw_launch(ctx, kernel, schedule, views):
    """(function, grid, block, kernelParams address, holders) for a bare launch of the
    tiny kernel: arguments packed once, as a hand-written loop would."""
    loaded = ctx.compiled(kernel, schedule, _TINY)
    holders = [
        ctypes.c_uint64(ctx.slab + views[0].offset),
        ctypes.c_uint64(ctx.slab + views[1].offset),
        ctypes.create_string_buffer(kernel.pack_uniform(_TINY).tobytes()),
    ]
    pointers = (ctypes.c_void_p * 3)(*[ctypes.addressof(h) for h in holders])
    grid = kernel.workgroups(schedule, _TINY)
    return (
        loaded.function,
        grid,
        schedule.workgroup_size,
        ctypes.addressof(pointers),
        (holders, pointers),
    )


# -- P5 ---------------------------------------------------------------------------------
def p5(env: Bench) -> list[Row]:
    return guarded("P5", "run_kernel host overhead, CUDA", lambda: _p5_samples(env)) + guarded(
        "P5", "graph replay, CUDA", lambda: _p5_graph(env)
    )


def _bindings_loop(ctx, count: int, args: tuple) -> float:
    """Host seconds per launch of a bare cuda.bindings loop (each result checked),
    until the stream is done: the P5 baseline."""
    from backends.cuda import driver
    from backends.cuda import driver_call as call

    launch = driver.cuLaunchKernel
    start = time.perf_counter()
    for _ in range(count):
        (err,) = launch(*args)
        if err:
            raise RuntimeError(f"a baseline launch failed: {err!r}")
    call(driver.cuStreamSynchronize, ctx.stream)
    return (time.perf_counter() - start) / count


def _elapsed_read_us(ctx, count: int) -> float:
    """Host microseconds of one checked cuEventElapsedTime through cuda.bindings, the
    read run_kernel makes per sample."""
    from backends.cuda import driver
    from backends.cuda import driver_call as call

    events = [call(driver.cuEventCreate, driver.CUevent_flags.CU_EVENT_DEFAULT) for _ in "ab"]
    try:
        for event in events:
            call(driver.cuEventRecord, event, ctx.stream)
        call(driver.cuEventSynchronize, events[1])
        elapsed, (a, b) = driver.cuEventElapsedTime, events
        start = time.perf_counter()
        for _ in range(count):
            err, _ms = elapsed(a, b)
            if err:
                raise RuntimeError(f"cuEventElapsedTime failed: {err!r}")
        return (time.perf_counter() - start) / count * 1e6
    finally:
        for event in events:
            call(driver.cuEventDestroy, event)


def _p5_samples(env: Bench) -> Row:
    ctx = env.cuda()
    kernel, schedule, views = _tiny(ctx)
    function, grid, block, params, keep = _raw_launch(ctx, kernel, schedule, views)
    count, rounds = env.sizes.launch_samples, env.sizes.rounds
    bindings_args = (function, *grid, *block, 0, ctx.stream, params, 0)

    def harness(on=views) -> float:
        return host_seconds_per_sample(ctx, kernel, schedule, on, _TINY, count)

    env.progress(f"P5: {count} launches per figure, {rounds} rounds")
    # The first and second timing of a launch, on fresh views (a new launch) each round.
    first, second = [], []
    for _ in range(rounds):
        fresh = bind_views(ctx, kernel, _TINY, {"x": host_array(_TINY, 31)})
        first.append(harness(fresh))
        second.append(harness(fresh))
    harness(), harness()  # the steady state: this launch's graph is built
    captures = ctx.sample_graph_captures
    values = alternate(
        {"raw": lambda: _bindings_loop(ctx, count, bindings_args), "harness": harness}, rounds
    )
    if ctx.sample_graph_captures != captures:
        raise AssertionError("the steady-state rounds built a graph again: the cache missed")
    device = float(np.median(ctx.run_kernel(kernel, schedule, views, _TINY, samples=count))) / 1e3
    read = _elapsed_read_us(ctx, count)
    del keep
    raw, ours = (median(values[k]) * 1e6 for k in ("raw", "harness"))
    once, twice = median(first) * 1e6, median(second) * 1e6
    return Row(
        "P5",
        "run_kernel per sample, tiny kernel, CUDA",
        "cuda.bindings cuLaunchKernel loop, args packed once",
        raw,
        ours,
        "us",
        Goal("<=", 1.2),
        notes=(
            f"steady state (a launch timed before): one cuGraphLaunch of a cached "
            f"graph of the {count} launches + event records, then {count} elapsed-"
            f"time reads ({read:.2f} us each); device time per sample {device:.2f} us "
            f"(median). First timing of a launch: {once:.2f} us/sample (direct: a "
            f"launch + a record per sample); second: {twice:.2f} us/sample (captures "
            f"and instantiates the graph, then replays it)"
        ),
        raw={
            "rounds_us": {k: [v * 1e6 for v in vs] for k, vs in values.items()},
            "first_call_us": [v * 1e6 for v in first],
            "second_call_us": [v * 1e6 for v in second],
            "elapsed_read_us": read,
            "device_sample_us": device,
            "samples": count,
        },
    )


def _raw_graph(function, grid, block, params):
    """The same 100 launches captured with bare driver calls on a stream of our own."""
    from backends.cuda import driver
    from backends.cuda import driver_call as call

    stream = call(driver.cuStreamCreate, driver.CUstream_flags.CU_STREAM_NON_BLOCKING)
    call(
        driver.cuStreamBeginCapture,
        stream,
        driver.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL,
    )
    for _ in range(_GRAPH_KERNELS):
        call(driver.cuLaunchKernel, function, *grid, *block, 0, stream, params, 0)
    graph = call(driver.cuStreamEndCapture, stream)
    executable = call(driver.cuGraphInstantiate, graph, 0)
    call(driver.cuGraphUpload, executable, stream)
    call(driver.cuStreamSynchronize, stream)
    return stream, graph, executable


def _p5_graph(env: Bench) -> Row:
    from backends.cuda import driver
    from backends.cuda import driver_call as call

    ctx = env.cuda()
    kernel, schedule, views = _tiny(ctx)
    ctx.begin_graph_capture()
    for _ in range(_GRAPH_KERNELS):
        ctx.dispatch(kernel, schedule, views, _TINY)
    graph = ctx.end_graph_capture()
    function, grid, block, params, keep = _raw_launch(ctx, kernel, schedule, views)
    stream, raw_graph, raw_exec = _raw_graph(function, grid, block, params)
    timer = CudaTimer(ctx)
    s = env.sizes
    per_kernel = _GRAPH_KERNELS * _GRAPH_REPLAYS

    def ours() -> float:
        work = lambda: [ctx.launch_graph(graph) for _ in range(_GRAPH_REPLAYS)]  # noqa: E731
        return median(timer.seconds(work, 1, s.samples)) / per_kernel * 1e6

    def single() -> float:
        return (
            median(timer.seconds(lambda: ctx.launch_graph(graph), 1, s.samples))
            / _GRAPH_KERNELS
            * 1e6
        )

    def raw() -> float:
        # Replayed on the context's stream so the same events time it.
        def work():
            return [call(driver.cuGraphLaunch, raw_exec, ctx.stream) for _ in range(_GRAPH_REPLAYS)]

        return median(timer.seconds(work, 1, s.samples)) / per_kernel * 1e6

    try:
        env.progress(f"P5 graph: {_GRAPH_KERNELS} kernels, {_GRAPH_REPLAYS} replays per sample")
        values = alternate({"raw": raw, "ours": ours, "single": single}, s.rounds)
    finally:
        timer.close()
        graph.close()
        ctx.synchronize()
        call(driver.cuGraphExecDestroy, raw_exec)
        call(driver.cuGraphDestroy, raw_graph)
        call(driver.cuStreamDestroy, stream)
        del keep
    base, mine, one = (median(values[k]) for k in ("raw", "ours", "single"))
    return Row(
        "P5",
        f"graph replay per kernel, {_GRAPH_KERNELS}-kernel graph, CUDA",
        "cuGraphLaunch of the same launches captured bare",
        base,
        mine,
        "us",
        Goal("<=", 1.0, on="ours"),
        notes=(
            f"{_GRAPH_REPLAYS} replays back to back between two events; one replay "
            f"alone: {one:.2f} us/kernel (adds the host's launch latency, paid once "
            f"per replay)"
        ),
        raw={"rounds_us": values},
    )


# -- P7 ---------------------------------------------------------------------------------
def p7(env: Bench) -> list[Row]:
    try:
        transfers = _Transfers(env, env.cuda())
    except Exception as exc:  # noqa: BLE001 - the shared setup failed: one row says why
        return [failed_row("P7", "host-to-device transfers, CUDA", exc)]
    return [
        row
        for what, measure in (
            ("uploads", transfers.upload_rows),
            ("host copy bound", transfers.host_copy_row),
            ("staging settings", transfers.staging_row),
            ("read back", transfers.read_row),
        )
        for row in guarded("P7", what, measure)
    ]


def transfer_gbps(ctx, size: int, rounds: int, work, setup=None) -> float:
    """GB/s of ``work()`` moving ``size`` bytes, until everything it enqueued on ``ctx``
    is done: host-timed (an upload's host work counts), median of ``rounds``."""

    def prepare() -> None:
        if setup is not None:
            setup()
        ctx.synchronize()

    def run() -> None:
        work()
        ctx.synchronize()

    return bandwidth_gbps(size, median(host_seconds(run, rounds, prepare)))


class _Transfers:
    """P7's shared setup: a pageable and a pinned source of the same bytes, a device
    view, and the pinned DMA every row compares with."""

    def __init__(self, env: Bench, ctx) -> None:
        from backends.cuda import driver
        from backends.cuda import driver_call as call

        self.env, self.ctx = env, ctx
        self.size = size = env.sizes.transfer_bytes
        self.pageable = np.random.default_rng(0).integers(0, 256, size, dtype=np.uint8)
        self.pinned = ctx.pinned_empty(size, np.uint8)
        self.pinned[:] = self.pageable
        device = ctx.slab + ctx.allocate_transient(size, 0).offset
        env.progress(f"P7: {format_bytes(size)} transfers")
        self.pinned_h2d = self.gbps(
            lambda: call(
                driver.cuMemcpyHtoDAsync, device, self.pinned.ctypes.data, size, ctx.stream
            )
        )

    def gbps(self, work, setup=None, ctx=None) -> float:
        return transfer_gbps(ctx or self.ctx, self.size, self.env.sizes.rounds, work, setup)

    def _row(self, what: str, figure: float, goal: bool, notes: str = "", **raw) -> Row:
        return Row(
            "P7",
            f"{what}, {format_bytes(self.size)}",
            "pinned cuMemcpyHtoD",
            self.pinned_h2d,
            figure,
            "GB/s",
            Goal(">=", 0.8) if goal else None,
            notes=notes,
            raw=raw,
        )

    def upload_rows(self) -> list[Row]:
        ctx = self.ctx
        staging = ctx.staging_settings
        staged = (
            f"staged: {format_bytes(staging['chunk_bytes'])} chunks x "
            f"{staging['buffers']} pinned buffers, {staging['threads']} copy threads"
        )
        rows = []
        for source, label, notes in (
            (self.pageable, "pageable numpy", staged),
            (self.pinned, "ctx.pinned_empty", "DMA'd directly"),
        ):
            write = self.gbps(
                lambda s=source: ctx.allocate_and_write(s, 0), setup=ctx.clear_transient_allocations
            )
            target = ctx.allocate_transient(self.size, 0)
            prefetch = self.gbps(lambda s=source, t=target: ctx.write_view_prefetch(t, s))
            rows.append(self._row(f"allocate_and_write from {label}", write, True, notes))
            rows.append(self._row(f"write_view_prefetch from {label}", prefetch, True, notes))
        return rows

    def host_copy_row(self) -> Row:
        """The host's own copy bandwidth from pageable into pinned memory, by threads:
        an upload from pageable memory cannot beat it."""
        from backends.cuda import Copier, host_cores

        cores = host_cores()
        by_threads = {}
        for threads in sorted({1, 2, 4, 8, 16, cores}):
            copier = Copier(threads)
            try:
                by_threads[threads] = self.gbps(lambda c=copier: c.copy(self.pinned, self.pageable))
            finally:
                copier.close()
        top = max(by_threads, key=lambda t: by_threads[t])
        listing = ", ".join(f"{t}: {g:.1f}" for t, g in by_threads.items())
        return self._row(
            "host memcpy pageable -> pinned (bounds the pageable rows)",
            by_threads[top],
            False,
            notes=f"GB/s by threads {listing}; best {top} of {cores} cores",
            by_threads=by_threads,
        )

    def staging_row(self) -> Row:
        """allocate_and_write from pageable memory under other staging settings."""
        from backends.cuda import CudaComputeContext

        configs = [(16, 4, None), (16, 4, 16), (32, 4, 8), (32, 6, 16), (8, 8, 16), (64, 3, 16)]
        results = {}
        for chunk, count, threads in configs:
            key = f"{chunk} MiB x{count}, threads={threads or 'default'}"
            with CudaComputeContext(
                self.size + MIB,
                staging_chunk_bytes=chunk * MIB,
                staging_buffers=count,
                staging_threads=threads,
            ) as other:
                results[key] = self.gbps(
                    lambda o=other: o.allocate_and_write(self.pageable, 0),
                    setup=other.clear_transient_allocations,
                    ctx=other,
                )
            self.env.progress(f"  staging {key}: {results[key]:.1f} GB/s")
        top = max(results, key=lambda k: results[k])
        listing = "; ".join(f"{k}: {v:.1f}" for k, v in results.items())
        return self._row(
            "allocate_and_write from pageable, best staging setting",
            results[top],
            False,
            notes=f"best {top}; all (GB/s): {listing}",
            settings=results,
        )

    def read_row(self) -> Row:
        """Reads back (informative): into pageable memory through staging, against a
        pinned cuMemcpyDtoH."""
        from backends.cuda import driver
        from backends.cuda import driver_call as call

        ctx = self.ctx
        view = ctx.allocate_and_write(self.pinned, 0)
        out = np.empty(self.size // 4, np.uint32)
        pinned_d2h = self.gbps(
            lambda: call(
                driver.cuMemcpyDtoHAsync,
                self.pinned.ctypes.data,
                ctx.slab + view.offset,
                self.size,
                ctx.stream,
            )
        )
        staged = self.gbps(lambda: ctx.read_buffer_u32_into(view, out))
        if not np.array_equal(out.view(np.uint8), self.pageable):
            raise AssertionError("the bytes read back differ from those written")
        return Row(
            "P7",
            f"read_buffer_u32_into pageable, {format_bytes(self.size)}",
            "pinned cuMemcpyDtoH",
            pinned_d2h,
            staged,
            "GB/s",
            None,
            notes="informative: P7's target is on uploads",
        )
