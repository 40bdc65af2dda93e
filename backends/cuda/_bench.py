"""Benchmarks of the CUDA backend against raw cuda.bindings baselines measured in the
same process (PERFORMANCE.md targets P5, P7, P8). Run on a GPU machine:

    python -m backends.cuda._bench [--json PATH] [--repeats 7]

Each figure is a median of ``--repeats`` runs; each ratio compares with its baseline
from the same run.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import forge
from forge import BindingUsage, Schedule

from ._context import CudaComputeContext
from ._driver import call, driver
from ._nvrtc import STATS

MIB = 1 << 20
AFFINE = forge.get_kernel("raw_affine")


def _median(function, repeats: int) -> float:
    return statistics.median(function() for _ in range(repeats))


def _views(ctx, n: int):
    x = np.ones(n, np.float32)
    return [ctx.allocate_and_write(x, 0),
            ctx.allocate_transient(x.nbytes, 1, usage=BindingUsage.STORAGE_READ_WRITE),
            ctx.allocate_and_write(AFFINE.pack_uniform(n), 2, usage=BindingUsage.UNIFORM)]


def launch_overhead(ctx, repeats: int, samples: int = 2000) -> dict:
    """P5: host time per sample of run_kernel on a tiny kernel, against a raw
    cuLaunchKernel loop with its arguments packed once; and graph replay per kernel."""
    n = 1024
    views = _views(ctx, n)
    ctx.run_kernel(AFFINE, Schedule(64), views, n, warmups=10)
    (loaded,) = [v for v in ctx.module_cache.values() if v.kernel is AFFINE]
    holders = [ctypes.c_uint64(ctx.slab + views[0].offset),
               ctypes.c_uint64(ctx.slab + views[1].offset),
               ctypes.create_string_buffer(AFFINE.pack_uniform(n).tobytes(), 16)]
    pointers = (ctypes.c_void_p * 3)(*[ctypes.addressof(h) for h in holders])
    args = (loaded.function, n // 64, 1, 1, 64, 1, 1, 0, ctx.stream, ctypes.addressof(pointers), 0)
    launch = driver.cuLaunchKernel

    def raw() -> float:
        start = time.perf_counter()
        for _ in range(samples):
            launch(*args)
        call(driver.cuStreamSynchronize, ctx.stream)
        return (time.perf_counter() - start) / samples

    def harness() -> float:
        start = time.perf_counter()
        ctx.run_kernel(AFFINE, Schedule(64), views, n, samples=samples)
        return (time.perf_counter() - start) / samples

    raw_s, harness_s = _median(raw, repeats), _median(harness, repeats)
    ctx.begin_graph_capture()
    for _ in range(100):
        ctx.dispatch(AFFINE, Schedule(64), views, n)
    graph = ctx.end_graph_capture()
    start_event, end_event = (call(driver.cuEventCreate, 0) for _ in range(2))

    def replay() -> float:
        call(driver.cuEventRecord, start_event, ctx.stream)
        ctx.launch_graph(graph)
        call(driver.cuEventRecord, end_event, ctx.stream)
        call(driver.cuEventSynchronize, end_event)
        return call(driver.cuEventElapsedTime, start_event, end_event) * 1e-3 / 100

    replay_s = _median(replay, repeats)
    graph.close()
    ctx.clear_transient_allocations()
    return {"raw_launch_us": raw_s * 1e6, "run_kernel_per_sample_us": harness_s * 1e6,
            "p5_ratio": harness_s / raw_s, "graph_replay_us_per_kernel": replay_s * 1e6}


def transfers(ctx, repeats: int, size: int = 256 * MIB) -> dict:
    """P7: allocate_and_write / write_view_prefetch / reads of ``size`` bytes, against
    a plain pinned cuMemcpyHtoDAsync (and DtoH) of the same size."""
    pageable = np.random.default_rng(0).integers(0, 255, size, dtype=np.uint8)
    pinned = ctx.pinned_empty(size, np.uint8)
    pinned[:] = pageable
    target = ctx.allocate_transient(size, 0)
    device = ctx.slab + target.offset

    def timed(body) -> float:
        ctx.synchronize()
        start = time.perf_counter()
        body()
        ctx.synchronize()
        return size / (time.perf_counter() - start) / 1e9

    def baseline_h2d():
        call(driver.cuMemcpyHtoDAsync, device, pinned.ctypes.data, size, ctx.stream)

    def baseline_d2h():
        call(driver.cuMemcpyDtoHAsync, pinned.ctypes.data, device, size, ctx.stream)

    def allocate_and_write():
        ctx.clear_transient_allocations()  # the ring would fill up over the repeats
        ctx.allocate_and_write(pageable, 0)

    out = np.empty(size, np.uint8)
    results = {
        "pinned_h2d_GBps": _median(lambda: timed(baseline_h2d), repeats),
        "pinned_d2h_GBps": _median(lambda: timed(baseline_d2h), repeats),
    }
    target = ctx.allocate_transient(size, 0)
    results["write_view_prefetch_GBps"] = _median(
        lambda: timed(lambda: ctx.write_view_prefetch(target, pageable)), repeats)
    results["write_view_GBps"] = _median(lambda: timed(lambda: ctx.write_view(target, pageable)), repeats)
    results["write_view_from_pinned_GBps"] = _median(
        lambda: timed(lambda: ctx.write_view(target, pinned)), repeats)
    results["read_into_pageable_GBps"] = _median(
        lambda: timed(lambda: ctx.read_buffer_u32_into(target, out.view(np.uint32))), repeats)
    assert np.array_equal(out, pageable), "the benchmark's readback differs from what it wrote"
    ctx.clear_transient_allocations()
    results["allocate_and_write_GBps"] = _median(lambda: timed(allocate_and_write), repeats)
    results["p7_allocate_and_write_ratio"] = (results["allocate_and_write_GBps"]
                                              / results["pinned_h2d_GBps"])
    results["p7_write_view_prefetch_ratio"] = (results["write_view_prefetch_GBps"]
                                               / results["pinned_h2d_GBps"])
    ctx.clear_transient_allocations()
    return results


_CHILD = """
import time, json, numpy as np, forge
from backends.cuda import CudaComputeContext, compile_stats
ctx = CudaComputeContext(16 << 20)
k = forge.get_kernel("raw_affine")
x = np.ones(1024, np.float32)
v = [ctx.allocate_and_write(x, 0), ctx.allocate_transient(x.nbytes, 1, usage=forge.BindingUsage.STORAGE_READ_WRITE),
     ctx.allocate_and_write(k.pack_uniform(1024), 2, usage=forge.BindingUsage.UNIFORM)]
t = time.perf_counter(); ctx.run_kernel(k, forge.Schedule(64), v, 1024); t = time.perf_counter() - t
print(json.dumps({"first_run_ms": t * 1e3, **compile_stats.snapshot()}))
"""


def compile_cache() -> dict:
    """P8: the first run in a fresh process, with an empty and then a warm disk cache."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, FORGE_CACHE_DIR=cache,
                   PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
        runs = [json.loads(subprocess.run([sys.executable, "-c", _CHILD], env=env, check=True,
                                          capture_output=True, text=True).stdout.splitlines()[-1])
                for _ in range(2)]
    return {"cold_process": runs[0], "warm_process": runs[1]}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="also write the results to this file")
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args(argv)
    with CudaComputeContext(600 * MIB) as ctx:
        results = {"device": ctx.adapter.as_dict(), "repeats": args.repeats,
                   "launch": launch_overhead(ctx, args.repeats),
                   "transfers": transfers(ctx, args.repeats)}
    results["compile_cache"] = compile_cache()
    results["this_process_compile_stats"] = STATS.snapshot()
    text = json.dumps(results, indent=2, default=str)
    print(text)
    if args.json:
        with open(args.json, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
