"""CudaComputeContext behaviour beyond the shared contract: staging and pinned copies,
prefetch, graphs, checkpoints, the module cache, uniforms by value, loss and recovery.

Each test runs twice: on the simulated driver (``simulated``: the backend's own logic,
in CI) and on the real GPU (``gpu``: skipped with its reason where there is none, and
failed instead under ``--require-backend cuda``). A few run on only one of them, and
say why. Run on the GPU machine with:

    pytest tests/test_cuda_context.py tests/test_cuda_driver.py --require-backend cuda
"""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import forge
from forge import (
    AllocationError,
    BindingUsage,
    BufferSpec,
    CompileError,
    DeviceLost,
    InvalidArgument,
    KernelSpec,
    Schedule,
)
from forge.kernel import Access
from oracle.pytest_plugin import require_available
from tests.test_cuda_fake_driver import device_array, install, ptr

ROOT = Path(__file__).resolve().parents[1]
RW = BindingUsage.STORAGE_READ_WRITE
UNIFORM = BindingUsage.UNIFORM
AFFINE = forge.get_kernel("raw_affine")

# A kernel that spins on the SM clock for ``kcycles`` thousand cycles: the "long kernel"
# a prefetch must overlap. The simulated driver runs it as a no-op.
_SPIN_CUDA = """\
struct Params { unsigned int kcycles; };
extern "C" __global__ void ${entry}(float* out, const Params p) {
    const long long start = clock64();
    const long long cycles = 1000ll * p.kcycles;
    while (clock64() - start < cycles) { }
    if (threadIdx.x == 0 && blockIdx.x == 0) out[0] = 1.0f;
}
"""


def _single_block_kernel(name: str, source: str, field: str) -> KernelSpec:
    """A CUDA-only test kernel of one block: one float output and one u32 parameter."""
    return KernelSpec(
        id=name,
        entry_point=name,
        buffers=(
            BufferSpec(0, "f32", Access.READ_WRITE, name="out", count=lambda n: 1),
            BufferSpec.uniform(1, ((field, "u32"),)),
        ),
        sources={"cuda": source},
        grid=lambda schedule, size: (1, 1, 1),
    )


SPIN = _single_block_kernel("test_spin", _SPIN_CUDA, "kcycles")

# Stores through an address taken from the uniform block (0x10: never mapped), which
# is an illegal address the compiler cannot see coming.
_OOB_CUDA = """\
struct Params { unsigned int address; };
extern "C" __global__ void ${entry}(float* out, const Params p) {
    volatile float* bad = (volatile float*)(unsigned long long)p.address;
    *bad = out[0];
}
"""
OOB = _single_block_kernel("test_oob_write", _OOB_CUDA, "address")

# An entry point with two parameters, where the kernel binds three buffers; one is
# unnamed, so the source's signature cannot be matched by name or position and the
# driver's parameter count is what catches it (tests/test_cuda_arguments.py covers the
# signatures that can be read).
_SHORT_CUDA = """\
extern "C" __global__ void ${entry}(const float* in, float*) {
}
"""
SHORT = KernelSpec(
    id="test_short_signature",
    entry_point="test_short_signature",
    buffers=AFFINE.buffers,
    sources={"cuda": _SHORT_CUDA},
)


def _simulate_test_kernels(fake) -> None:
    def spin(args, grid, block):
        device_array(ptr(args[0]), 1, np.float32)[0] = 1.0

    fake.kernels["test_spin"] = (spin, (8, 4))
    fake.kernels["test_oob_write"] = (lambda args, grid, block: fake.fault(), (8, 4))
    fake.kernels["test_short_signature"] = (lambda args, grid, block: None, (8, 8))


@pytest.fixture(params=["simulated", "gpu"])
def mode(request, monkeypatch, tmp_path):
    """``"simulated"`` with the simulated driver installed, or ``"gpu"`` (the real
    device: skipped with the reason where there is none)."""
    from backends.cuda import _driver

    monkeypatch.setenv("FORGE_CACHE_DIR", str(tmp_path / "cache"))
    if request.param == "gpu":
        require_available(request.config, "cuda")
        yield "gpu"
        return
    gc.collect()
    fake = install(monkeypatch)
    _simulate_test_kernels(fake)
    request.node.fake = fake
    yield "simulated"
    gc.collect()
    _driver.default_arch.cache_clear()


@pytest.fixture
def open_ctx(mode):
    """A factory of contexts, all closed after the test."""
    from backends.cuda import CudaComputeContext

    opened = []

    def factory(capacity_bytes=64 << 20, **options):
        ctx = CudaComputeContext(capacity_bytes, **options)
        opened.append(ctx)
        return ctx

    yield factory
    for ctx in opened:
        ctx.close()


@pytest.fixture
def ctx(open_ctx):
    return open_ctx()


def _affine_views(ctx, x, a=2.0, b=0.5):
    return [
        ctx.allocate_and_write(x, 0),
        ctx.allocate_transient(x.nbytes, 1, usage=RW),
        ctx.allocate_and_write(AFFINE.pack_uniform(x.size, a=a, b=b), 2, usage=UNIFORM),
    ]


def _assert_affine(got, x, a, b, err_msg=""):
    """``got`` is a*x + b in float32, fused (one rounding, as NVRTC contracts it) or not
    (two roundings): within one ulp of the product plus one of the result of the exact
    value."""
    a32, b32 = np.float32(a), np.float32(b)
    exact = np.float64(a32) * x.astype(np.float64) + np.float64(b32)
    bound = np.spacing(np.abs(a32 * x)).astype(np.float64) + np.spacing(
        np.abs(exact).astype(np.float32)
    ).astype(np.float64)
    error = np.abs(got.astype(np.float64) - exact)
    assert np.all(error <= bound), (
        f"{err_msg} a*x+b off by more than 2 ulp at {np.flatnonzero(error > bound)[:5]}"
    )


# -- identity -------------------------------------------------------------------------
def test_identity_and_constraints_come_from_the_device(ctx):
    adapter, c = ctx.adapter, ctx.constraints
    assert adapter.backend == "cuda" and adapter.vendor_id == 0x10DE
    assert adapter.architecture.startswith("sm_") and adapter.architecture[3:].isdigit()
    assert "PCI" in adapter.driver_info and "NVRTC" in adapter.driver_info
    assert c.warp_size == 32 and c.subgroup_size == (32, 32)
    assert c.max_invocations_per_workgroup >= 1024
    assert c.max_workgroups_per_dimension[0] >= 65535
    assert c.max_workgroup_storage_bytes >= 48 << 10
    assert c.max_storage_binding_size == ctx.allocator.capacity
    assert c.multiprocessor_count > 0 and c.l2_cache_bytes > 0
    assert c.total_memory_bytes >= ctx.allocator.capacity
    assert c.shader_f16 and c.shader_f64
    assert ctx.timing_source == "cuda-event" and ctx.timestamp_supported


def test_one_slab_backs_every_usage(ctx):
    views = [ctx.allocate_transient(64, 0, usage=usage) for usage in BindingUsage]
    assert {v.slab for v in views} == {0}
    assert ctx.slab != 0 and len(ctx.allocator.topology.slabs) == 1
    assert ctx.prefetch_stream is None, "the prefetch stream is created on first use only"


def test_bad_construction_is_refused(mode, open_ctx):
    with pytest.raises(InvalidArgument):
        open_ctx(0)
    with pytest.raises(forge.GpuUnavailable, match="no CUDA device 7"):
        open_ctx(1 << 20, device=7)
    with pytest.raises(AllocationError, match="device slab"):
        open_ctx(1 << 52)  # 4 PiB: more than any device holds


# -- copies ---------------------------------------------------------------------------
def test_staged_copies_larger_than_the_ring_round_trip(open_ctx):
    ctx = open_ctx(8 << 20, staging_chunk_bytes=64 << 10, staging_buffers=2)
    data = np.random.default_rng(1).integers(0, 2**32, (1 << 18) + 3, dtype=np.uint32)
    view = ctx.allocate_and_write(data, 0)
    out = np.zeros_like(data)
    ctx.read_buffer_u32_into(view, out)
    assert np.array_equal(out, data), "a staged write or read lost or reordered chunks"
    ctx.write_view(view, data[::-1].copy())
    assert np.array_equal(ctx.read_buffer_u32(view), data[::-1])


def test_pinned_arrays_are_copied_directly_and_outlive_the_context(ctx, monkeypatch):
    # No staging buffer is taken for them. (The context's opening may have used
    # staging already: the float-semantics probe runs when no earlier context of the
    # process, nor the cache, has its result.)
    taken = []
    acquire = ctx._res.staging._acquire
    monkeypatch.setattr(ctx._res.staging, "_acquire", lambda: taken.append(1) or acquire())
    source = ctx.pinned_empty(5000, np.float32)
    source[:] = np.arange(5000, dtype=np.float32) * 0.5
    view = ctx.allocate_and_write(source, 0)
    sink = ctx.pinned_empty(5000, np.uint32)
    ctx.read_buffer_u32_into(view, sink)
    assert np.array_equal(sink.view(np.float32), source)
    assert not taken, "pinned arrays must not go through staging"
    ctx.close()
    source[:] = 7.0  # the memory stays valid after the context is closed
    assert float(source.sum()) == 35000.0


def test_f64_readback_round_trips(ctx):
    data = np.linspace(-1e300, 1e300, 4097)
    assert np.array_equal(ctx.read_buffer_f64(ctx.allocate_and_write(data, 0)), data)


# -- prefetch -------------------------------------------------------------------------
def test_a_prefetched_write_is_seen_by_kernels_after_join(ctx):
    x = np.arange(4096, dtype=np.float32)
    views = _affine_views(ctx, x, a=3.0, b=1.0)
    ctx.write_view_prefetch(views[0], x * 2)
    assert ctx.prefetch_stream is not None
    ctx.join_prefetch()
    ctx.run_kernel(AFFINE, Schedule(64), views, x.size)
    _assert_affine(ctx.read_buffer_f32(views[1]), x * 2, 3.0, 1.0)
    ctx.write_view_prefetch(views[0], x * 4)  # a read joins on its own
    np.testing.assert_array_equal(ctx.read_buffer_f32(views[0]), x * 4)


def test_a_prefetched_uniform_is_used_by_value(ctx):
    x = np.ones(256, np.float32)
    views = _affine_views(ctx, x, a=1.0, b=0.0)
    ctx.write_view_prefetch(views[2], AFFINE.pack_uniform(x.size, a=5.0, b=-1.0))
    ctx.join_prefetch()
    ctx.run_kernel(AFFINE, Schedule(64), views, x.size)
    assert ctx.read_buffer_f32(views[1]).tolist() == [4.0] * 256


def test_the_prefetch_stream_overlaps_a_long_kernel(mode, ctx):
    if mode != "gpu":
        pytest.skip("overlap is a property of the device's copy engines: GPU only")
    from cuda.bindings import driver

    payload = np.random.default_rng(2).standard_normal(4 << 20).astype(np.float32)  # 16 MiB
    target = ctx.allocate_and_write(np.zeros_like(payload), 0)
    out = ctx.allocate_transient(4, 0, usage=RW)
    spin_args = ctx.allocate_and_write(SPIN.pack_uniform(1, kcycles=400_000), 1, usage=UNIFORM)
    ctx.dispatch(SPIN, Schedule(32), [out, spin_args], 1)  # compile and load first
    ctx.write_view_prefetch(target, payload[:1])  # create the prefetch stream
    ctx.synchronize()

    def event():
        return driver.cuEventCreate(0)[1]

    spin_start, spin_end, copy_done = event(), event(), event()
    try:
        driver.cuEventRecord(spin_start, ctx.stream)
        ctx.dispatch(SPIN, Schedule(32), [out, spin_args], 1)  # ~200 ms at 2 GHz
        driver.cuEventRecord(spin_end, ctx.stream)
        ctx.write_view_prefetch(target, payload)
        driver.cuEventRecord(copy_done, ctx.prefetch_stream)
        ctx.synchronize()
        spin_ms = driver.cuEventElapsedTime(spin_start, spin_end)[1]
        copy_ms = driver.cuEventElapsedTime(spin_start, copy_done)[1]
    finally:
        for e in (spin_start, spin_end, copy_done):
            driver.cuEventDestroy(e)
    assert copy_ms < spin_ms, (
        f"the 16 MiB prefetch finished {copy_ms:.3f} ms after the spin kernel started, but "
        f"the kernel ran {spin_ms:.3f} ms: the copy waited for the compute stream"
    )
    ctx.join_prefetch()
    np.testing.assert_array_equal(ctx.read_buffer_f32(target), payload)


# -- graphs ---------------------------------------------------------------------------
def _graph_setup(ctx, launches=8):
    x = np.random.default_rng(3).standard_normal(10_000).astype(np.float32)
    source = ctx.allocate_and_write(x, 0)
    outputs, uniforms = [], []
    for i in range(launches):
        outputs.append(ctx.allocate_transient(x.nbytes, 1, usage=RW))
        uniforms.append(
            ctx.allocate_and_write(
                AFFINE.pack_uniform(x.size, a=float(i) - 3.5, b=0.25 * i), 2, usage=UNIFORM
            )
        )
    return x, source, outputs, uniforms


def _dispatch_all(ctx, source, outputs, uniforms, n):
    for out, uni in zip(outputs, uniforms):
        ctx.dispatch(AFFINE, Schedule(64), [source, out, uni], n)


def test_a_captured_graph_replays_like_direct_launches(ctx):
    x, source, outputs, uniforms = _graph_setup(ctx)
    _dispatch_all(ctx, source, outputs, uniforms, x.size)
    direct = [ctx.read_buffer_f32(v) for v in outputs]
    for i, got in enumerate(direct):
        _assert_affine(got, x, i - 3.5, 0.25 * i)
    for v in outputs:
        ctx.write_view(v, np.zeros_like(x))
    ctx.begin_graph_capture()
    _dispatch_all(ctx, source, outputs, uniforms, x.size)
    graph = ctx.end_graph_capture()
    assert graph.launches == 8 and graph.node_count == 8
    assert all(not ctx.read_buffer_f32(v).any() for v in outputs), (
        "capturing must record the launches, not run them"
    )
    ctx.launch_graph(graph)
    for i, v in enumerate(outputs):
        np.testing.assert_array_equal(
            ctx.read_buffer_f32(v), direct[i], err_msg=f"replayed launch {i} differs from direct"
        )
    # Replays read the views' current bytes, but took the uniforms by value.
    ctx.write_view(source, x * 2)
    ctx.write_view(uniforms[0], AFFINE.pack_uniform(x.size, a=100.0, b=100.0))
    ctx.launch_graph(graph)
    ctx.launch_graph(graph)
    _assert_affine(ctx.read_buffer_f32(outputs[0]), x * 2, -3.5, 0.0)
    graph.close()
    with pytest.raises(InvalidArgument, match="closed"):
        ctx.launch_graph(graph)


def test_a_kernel_first_compiled_inside_a_capture_works(ctx):
    x = np.arange(1000, dtype=np.float32)
    views = _affine_views(ctx, x, a=-2.0, b=3.0)
    ctx.begin_graph_capture()
    ctx.dispatch(AFFINE, Schedule(128), views, x.size)  # compiles and loads mid-capture
    graph = ctx.end_graph_capture()
    ctx.launch_graph(graph)
    _assert_affine(ctx.read_buffer_f32(views[1]), x, -2.0, 3.0)


def test_a_capture_refuses_copies_and_waits_and_the_context_survives(ctx):
    x = np.arange(256, dtype=np.float32)
    views = _affine_views(ctx, x)
    ctx.begin_graph_capture()
    refused = [
        lambda: ctx.allocate_and_write(x, 0),
        lambda: ctx.read_buffer_f32(views[0]),
        lambda: ctx.write_view(views[0], x),
        lambda: ctx.write_view_prefetch(views[0], x),
        lambda: ctx.run_kernel(AFFINE, Schedule(64), views, x.size),
        ctx.synchronize,
        ctx.begin_graph_capture,
    ]
    for call in refused:
        with pytest.raises(InvalidArgument):
            call()
    used = ctx.allocator.used_bytes()
    graph = ctx.end_graph_capture()
    assert ctx.allocator.used_bytes() == used, "a refused call must not allocate"
    with pytest.raises(InvalidArgument, match="no graph capture"):
        ctx.end_graph_capture()
    assert graph.launches == 0
    ctx.run_kernel(AFFINE, Schedule(64), views, x.size)
    _assert_affine(ctx.read_buffer_f32(views[1]), x, 2.0, 0.5)


def test_a_graph_over_released_views_refuses_to_replay(open_ctx):
    ctx, other = open_ctx(), open_ctx()
    x = np.ones(512, np.float32)
    views = _affine_views(ctx, x)
    ctx.begin_graph_capture()
    ctx.dispatch(AFFINE, Schedule(64), views, x.size)
    graph = ctx.end_graph_capture()
    with pytest.raises(InvalidArgument, match="another context"):
        other.launch_graph(graph)
    ctx.clear_transient_allocations()
    with pytest.raises(AllocationError, match="released since its capture"):
        ctx.launch_graph(graph)


# -- ring management with device work -----------------------------------------------
def test_checkpoint_restore_keeps_bytes_below_it_after_device_work(ctx):
    x = np.arange(2048, dtype=np.float32)
    kept = _affine_views(ctx, x, a=1.0, b=1.0)
    ctx.run_kernel(AFFINE, Schedule(64), kept, x.size)
    mark = ctx.write_checkpoint()
    scratch = _affine_views(ctx, x, a=9.0, b=9.0)
    ctx.dispatch(AFFINE, Schedule(64), scratch, x.size)  # still running when restored
    ctx.restore_checkpoint(mark)
    with pytest.raises(AllocationError, match="no longer live"):
        ctx.read_buffer_f32(scratch[1])
    reused = ctx.allocate_and_write(np.full(2048, -1, np.float32), 0)
    assert reused.offset == scratch[0].offset
    np.testing.assert_array_equal(ctx.read_buffer_f32(kept[1]), x + 1)
    np.testing.assert_array_equal(ctx.read_buffer_f32(kept[0]), x)
    assert ctx.read_buffer_f32(reused).tolist() == [-1.0] * 2048


def test_advance_read_head_releases_views_before_an_offset(ctx):
    x = np.arange(1024, dtype=np.float32)
    first = ctx.allocate_and_write(x, 0)
    second = ctx.allocate_and_write(x * 2, 1)
    ctx.advance_read_head(first.end)
    with pytest.raises(AllocationError):
        ctx.read_buffer_f32(first)
    np.testing.assert_array_equal(ctx.read_buffer_f32(second), x * 2)


# -- kernels ----------------------------------------------------------------------------
def test_a_second_run_loads_and_compiles_nothing(ctx):
    from backends.cuda import compile_stats

    x = np.ones(1000, np.float32)
    ctx.run_kernel(AFFINE, Schedule(64), _affine_views(ctx, x), x.size)
    loads, stats = ctx.module_loads, compile_stats.snapshot()
    ctx.run_kernel(AFFINE, Schedule(64), _affine_views(ctx, x, a=4.0), x.size, samples=3)
    # the first run may also have loaded the float-semantics probe of an adapter this
    # cache root had not met (alone, in a fresh cache: 2); the second loads nothing
    assert ctx.module_loads == loads >= 1
    assert compile_stats.snapshot() == stats, "the second run touched NVRTC or its cache"
    ((key, loaded),) = [(k, m) for k, m in ctx.module_cache.items() if k[1] == ("raw_affine",)]
    assert key[1] == ("raw_affine",) and loaded.kernel is AFFINE
    assert loaded.image.startswith("cubin sm_")


def test_a_new_context_loads_the_compiled_kernel_from_disk(open_ctx):
    from backends.cuda import compile_stats

    x = np.ones(1000, np.float32)
    first = open_ctx()
    first.run_kernel(AFFINE, Schedule(256, items_per_invocation=4), _affine_views(first, x), x.size)
    first.close()
    before = compile_stats.snapshot()
    second = open_ctx()
    second.run_kernel(
        AFFINE, Schedule(256, items_per_invocation=4), _affine_views(second, x), x.size
    )
    after = compile_stats.snapshot()
    assert after["compiles"] == before["compiles"], "NVRTC ran again for a cached kernel"
    assert after["disk_hits"] == before["disk_hits"] + 1 and second.module_loads == 1


def test_samples_are_event_timed_positive_nanoseconds(ctx):
    x = np.ones(1 << 16, np.float32)
    times = ctx.run_kernel(
        AFFINE, Schedule(256), _affine_views(ctx, x), x.size, warmups=2, samples=25
    )
    assert len(times) == 25 and all(isinstance(t, int) and t > 0 for t in times)


def test_uniform_blocks_go_by_value_from_the_host_copy_or_the_device(ctx):
    x = np.arange(512, dtype=np.float32)
    views = _affine_views(ctx, x, a=2.0, b=1.0)
    record = AFFINE.pack_uniform(x.size, a=-1.0, b=1.0)
    ctx.write_view(views[2], record.tobytes()[:4])  # only field a changes
    ctx.run_kernel(AFFINE, Schedule(64), views, x.size)
    _assert_affine(ctx.read_buffer_f32(views[1]), x, -1.0, 1.0)
    ctx._uniforms.clear()  # no host copy: the launch reads the block from the device
    ctx.run_kernel(AFFINE, Schedule(64), views, x.size)
    _assert_affine(ctx.read_buffer_f32(views[1]), x, -1.0, 1.0)
    fresh = ctx.allocate_transient(16, 2, usage=UNIFORM)
    ctx.write_view(fresh, AFFINE.pack_uniform(x.size, a=0.5, b=0.0))
    ctx.run_kernel(AFFINE, Schedule(64), [views[0], views[1], fresh], x.size)
    np.testing.assert_array_equal(ctx.read_buffer_f32(views[1]), x * np.float32(0.5))


def test_an_entry_point_that_cannot_take_the_buffers_is_a_compile_error(mode, ctx):
    x = np.ones(64, np.float32)
    views = _affine_views(ctx, x)
    ctx.run_kernel(AFFINE, Schedule(64), views, x.size)
    if mode == "gpu":
        from cuda.bindings import driver

        (loaded,) = ctx.module_cache.values()
        try:
            supported = not driver.cuFuncGetParamCount(loaded.function)[0]
        except Exception:  # no such binding, or a driver without the symbol
            supported = False
        if not supported:
            pytest.skip(
                "this driver cannot report parameter counts (cuFuncGetParamCount), "
                "so entry-point signatures go unchecked"
            )
    with pytest.raises(CompileError, match="takes 2 parameters"):
        ctx.run_kernel(SHORT, Schedule(64), views, x.size)
    ctx.write_view(views[1], np.zeros_like(x))
    ctx.run_kernel(AFFINE, Schedule(64), views, x.size)
    assert ctx.read_buffer_f32(views[1]).tolist() == [2.5] * 64


def test_a_grid_of_no_or_negative_workgroups_is_refused_before_the_driver(ctx):
    x = np.ones(64, np.float32)
    views = _affine_views(ctx, x)
    for grid, fragment in (((0, 1, 1), "no workgroups"), ((-1, 1, 1), ">= 0")):
        bad = KernelSpec(
            id=f"test_grid_{grid[0]}",
            entry_point="raw_affine",
            buffers=AFFINE.buffers,
            sources=AFFINE.sources,
            grid=lambda schedule, size, grid=grid: grid,
        )
        with pytest.raises(InvalidArgument, match=fragment):
            ctx.run_kernel(bad, Schedule(64), views, x.size)
    ctx.run_kernel(AFFINE, Schedule(64), views, x.size)
    assert ctx.read_buffer_f32(views[1]).tolist() == [2.5] * 64


# -- lifetime and loss ------------------------------------------------------------------
def test_an_unclosed_context_is_freed_by_its_finalizer(mode, open_ctx, request):
    if mode != "simulated":
        pytest.skip("what was freed is only observable on the simulated driver")
    from backends.cuda import CudaComputeContext

    fake = request.node.fake
    ctx = CudaComputeContext(1 << 20)
    ctx.allocate_and_write(np.ones(4, np.float32), 0)
    assert fake.retains >= 1 and fake.context.device_memory
    del ctx
    gc.collect()
    assert fake.retains == 0, "the finalizer must release the primary context"


def test_a_pinned_array_keeps_the_primary_context_until_it_dies(mode, open_ctx, request):
    if mode != "simulated":
        pytest.skip("retain counts are only observable on the simulated driver")
    fake = request.node.fake
    ctx = open_ctx(1 << 20)
    pinned = ctx.pinned_empty((4, 4), np.float64)
    ctx.close()
    assert fake.retains == 1 and pinned.shape == (4, 4)
    del pinned
    gc.collect()
    assert fake.retains == 0 and not fake.host_memory


def test_an_illegal_address_loses_the_context_and_a_fresh_one_works(mode, open_ctx):
    if mode == "gpu":
        pytest.skip(
            "on the GPU this runs in a subprocess: test_gpu_illegal_address_in_a_subprocess"
        )
    _lose_and_recover(open_ctx)


def test_a_pinned_array_holding_the_faulted_context_is_named_then_recovery_works(
    mode, open_ctx, request
):
    """A pinned array outlives the context that faulted, so the driver cannot destroy
    the poisoned primary context: a new context says so (what holds it, how to
    recover) instead of a bare sticky error, and works once the array is gone."""
    if mode == "gpu":
        pytest.skip(
            "on the GPU this runs in a subprocess: test_gpu_illegal_address_in_a_subprocess"
        )
    _lose_and_recover(open_ctx, hold_pinned=True)
    gc.collect()
    assert request.node.fake.retains == 0 and not request.node.fake.host_memory


def _lose_and_recover(open_ctx, strict: bool = True, hold_pinned: bool = False) -> dict:
    """Fault a context, check every later call is DeviceLost, then open a fresh one
    (with ``hold_pinned``, while a pinned array of the faulted context is still alive).
    Returns what happened, for the subprocess variant to report. With ``strict`` off, a
    driver that refuses a fresh context in the faulted process is reported, not raised
    (the caller then proves recovery in a new process)."""
    ctx = open_ctx(4 << 20)
    pinned = ctx.pinned_empty((16,), np.float32) if hold_pinned else None
    view = ctx.allocate_and_write(np.ones(4, np.float32), 0)
    out = ctx.allocate_transient(4, 0, usage=RW)
    args = ctx.allocate_and_write(OOB.pack_uniform(1, address=16), 1, usage=UNIFORM)
    with pytest.raises(DeviceLost) as info:
        ctx.run_kernel(OOB, Schedule(32), [out, args], 1)
    assert "ILLEGAL_ADDRESS" in str(info.value) and ctx.lost
    later = [
        lambda: ctx.read_buffer_f32(view),
        lambda: ctx.allocate_transient(4, 0),
        lambda: ctx.run_kernel(AFFINE, Schedule(64), [], 0),
        ctx.synchronize,
        lambda: ctx.write_view(view, b"1234"),
    ]
    for call in later:
        with pytest.raises(DeviceLost):
            call()
    ctx.close()
    if hold_pinned:  # the fault is held: refused, saying why, until the holder is gone
        with pytest.raises(DeviceLost, match="still held, by a pinned array"):
            open_ctx(4 << 20)
        del pinned
        gc.collect()
    try:
        fresh = open_ctx(4 << 20)
    except DeviceLost as exc:
        if strict:
            raise
        return {"lost": ctx.lost, "fresh_ok": False, "fresh_error": str(exc)}
    x = np.arange(100, dtype=np.float32)
    views = _affine_views(fresh, x, a=2.0, b=0.5)
    fresh.run_kernel(AFFINE, Schedule(64), views, x.size)
    got = fresh.read_buffer_f32(views[1])
    _assert_affine(got, x, 2.0, 0.5)
    fresh.close()
    return {"lost": ctx.lost, "fresh_ok": True}


_LOSS_CHILD = """
import json, sys
sys.path.insert(0, sys.argv[1])
from tests.test_cuda_context import _lose_and_recover
from backends.cuda import CudaComputeContext
opened = []
def open_ctx(capacity, **kw):
    opened.append(CudaComputeContext(capacity, **kw))
    return opened[-1]
result = _lose_and_recover(open_ctx, strict=False, hold_pinned=len(sys.argv) > 2)
print(json.dumps(result))
"""

_FRESH_PROCESS = """
import sys
sys.path.insert(0, sys.argv[1])
import numpy as np
from tests.test_cuda_context import _affine_views, _assert_affine, AFFINE
from backends.cuda import CudaComputeContext
from forge import Schedule
with CudaComputeContext(4 << 20) as ctx:
    x = np.arange(100, dtype=np.float32)
    views = _affine_views(ctx, x, a=2.0, b=0.5)
    ctx.run_kernel(AFFINE, Schedule(64), views, x.size)
    _assert_affine(ctx.read_buffer_f32(views[1]), x, 2.0, 0.5)
print("fresh process ok")
"""


@pytest.mark.parametrize("held", [False, True], ids=["alone", "pinned-array-held"])
def test_gpu_illegal_address_in_a_subprocess(request, tmp_path, held):
    """A sticky fault on the real device, in its own process so nothing else shares the
    faulted context: DeviceLost, every later call DeviceLost, and a fresh context works
    once the faulted one is closed (the primary context's last release destroys it)."""
    require_available(request.config, "cuda")
    env = dict(os.environ, FORGE_CACHE_DIR=str(tmp_path), PYTHONPATH=str(ROOT))
    result = subprocess.run(
        [sys.executable, "-c", _LOSS_CHILD, str(ROOT)] + (["hold"] if held else []),
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert result.returncode == 0, (
        f"the loss-and-recovery run failed:\n{result.stdout[-4000:]}\n{result.stderr[-4000:]}"
    )
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert "ILLEGAL_ADDRESS" in report["lost"], report
    if not report["fresh_ok"]:
        # The driver keeps the fault for the rest of that process (CUDA documents sticky
        # errors so); recovery is then a new process, which must work.
        fresh = subprocess.run(
            [sys.executable, "-c", _FRESH_PROCESS, str(ROOT)],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            cwd=ROOT,
        )
        assert fresh.returncode == 0 and "fresh process ok" in fresh.stdout, (
            f"in-process recovery failed ({report['fresh_error']}) and so did a new "
            f"process:\n{fresh.stdout[-2000:]}\n{fresh.stderr[-2000:]}"
        )


def test_closed_context_refuses_the_cuda_only_calls(ctx):
    ctx.close()
    for call in (
        ctx.join_prefetch,
        ctx.begin_graph_capture,
        ctx.synchronize,
        lambda: ctx.pinned_empty(4),
    ):
        with pytest.raises(forge.ContextClosed):
            call()
