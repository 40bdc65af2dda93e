"""The conformance suite: the OracleContext contract, run identically on every known
backend. An unavailable backend is SKIPPED with its reason (or fails under
``--require-backend``), never passed."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import forge
from backends import SlabContext
from forge import (
    AllocationError,
    BindingUsage,
    ContextClosed,
    InvalidArgument,
    Schedule,
    UnsupportedFeature,
)
from oracle import TIMING_SOURCES

RW = BindingUsage.STORAGE_READ_WRITE
UNIFORM = BindingUsage.UNIFORM


def _slab_backed(ctx):
    """The context, when it offers SlabContext's members beyond the contract (compile
    counts, async dispatch and fences, checkpoints); else the test is skipped, visibly."""
    if not isinstance(ctx, SlabContext):
        pytest.skip(
            f"{ctx.backend_name} is not slab-backed: the test uses members beyond OracleContext"
        )
    return ctx


def _affine_views(ctx, x, a=2.0, b=0.5):
    kernel = forge.get_kernel("raw_affine")
    n = x.size
    views = [
        ctx.allocate_and_write(x, 0),
        ctx.allocate_transient(x.nbytes, 1, usage=RW),
        ctx.allocate_and_write(kernel.pack_uniform(n, a=a, b=b), 2, usage=UNIFORM),
    ]
    return kernel, views


def test_identity_constraints_and_timing_source_are_described(forge_context):
    ctx = forge_context
    assert ctx.adapter.name and ctx.adapter.backend
    c = ctx.constraints
    assert c.max_invocations_per_workgroup >= 64 and min(c.max_workgroup_size) >= 1
    assert c.max_storage_binding_size > 0 and c.max_buffer_size > 0
    assert ctx.timing_source in TIMING_SOURCES
    assert ctx.timestamp_supported == (ctx.timing_source != "host-wall-clock")


def test_bytes_round_trip_as_f32_f64_and_u32(forge_context):
    ctx = forge_context
    f32 = np.linspace(-3, 3, 1000, dtype=np.float32)
    f64 = np.linspace(-3, 3, 333, dtype=np.float64)
    u32 = (np.arange(77, dtype=np.uint64) * 2654435761 % 2**32).astype(np.uint32)
    views = [ctx.allocate_and_write(a, i) for i, a in enumerate((f32, f64, u32))]
    np.testing.assert_array_equal(ctx.read_buffer_f32(views[0]), f32)
    np.testing.assert_array_equal(ctx.read_buffer_f64(views[1]), f64)
    out = np.zeros(77, np.uint32)
    ctx.read_buffer_u32_into(views[2], out)
    np.testing.assert_array_equal(out, u32)


def test_u32_readback_fills_the_callers_array_prefix(forge_context):
    ctx = forge_context
    view = ctx.allocate_and_write(np.arange(16, dtype=np.uint32), 0)
    out = np.full(4, 99, np.uint32)
    ctx.read_buffer_u32_into(view, out)
    assert out.tolist() == [0, 1, 2, 3]
    for bad in (np.zeros(4, np.float32), np.zeros(17, np.uint32), np.zeros(8, np.uint32)[::2]):
        with pytest.raises(InvalidArgument):
            ctx.read_buffer_u32_into(view, bad)


def test_u32_readback_into_the_callers_array_allocates_no_array(forge_context):
    ctx = forge_context
    words = np.arange(1 << 20, dtype=np.uint32)  # 4 MiB
    view = ctx.allocate_and_write(words, 0)
    out = np.zeros_like(words)
    ctx.read_buffer_u32_into(view, out)  # lazily made staging exists from here on
    out[:] = 0
    tracemalloc.start()
    try:
        ctx.read_buffer_u32_into(view, out)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    np.testing.assert_array_equal(out, words)
    assert peak < 64 << 10, f"reading 4 MiB into a given array traced {peak} bytes"


def test_view_offsets_respect_the_adapter_alignment(forge_context):
    ctx = forge_context
    c = ctx.constraints
    for usage in BindingUsage:
        for size in (4, 100, 1000):
            view = ctx.allocate_transient(size, 0, usage=usage)
            align = (
                c.min_uniform_offset_alignment
                if usage is UNIFORM
                else c.min_storage_offset_alignment
            )
            assert view.offset % align == 0 and view.usage is usage


def test_write_view_overwrites_a_prefix_and_leaves_other_views_alone(forge_context):
    ctx = forge_context
    a = ctx.allocate_and_write(np.zeros(64, np.float32), 0)
    b = ctx.allocate_and_write(np.full(64, 7, np.float32), 1)
    ctx.write_view(a, np.ones(16, np.float32))
    assert ctx.read_buffer_f32(a).tolist() == [1.0] * 16 + [0.0] * 48
    with pytest.raises(InvalidArgument, match="do not fit"):
        ctx.write_view(a, np.ones(65, np.float32))
    assert ctx.read_buffer_f32(a).tolist() == [1.0] * 16 + [0.0] * 48
    assert ctx.read_buffer_f32(b).tolist() == [7.0] * 64


def test_raw_kernel_matches_numpy_under_each_baseline_schedule(forge_context):
    ctx = forge_context
    x = np.random.default_rng(0).standard_normal(10_000).astype(np.float32)
    for schedule in forge.get_kernel("raw_affine").schedules:
        kernel, views = _affine_views(ctx, x, a=-1.5, b=0.25)
        times = ctx.run_kernel(kernel, schedule, views, x.size, warmups=1, samples=3)
        assert len(times) == 3 and all(isinstance(t, int) and t > 0 for t in times)
        np.testing.assert_allclose(
            ctx.read_buffer_f32(views[1]),
            np.float32(-1.5) * x + np.float32(0.25),
            rtol=2e-7,
            atol=1e-7,
        )
        ctx.clear_transient_allocations()


def test_plugin_kernel_runs_on_every_backend(forge_context):
    ctx = forge_context
    kernel = forge.get_kernel("demo_square")
    x = np.arange(1000, dtype=np.float32) / 7
    views = [
        ctx.allocate_and_write(x, 0),
        ctx.allocate_transient(x.nbytes, 1, usage=RW),
        ctx.allocate_and_write(kernel.pack_uniform(x.size), 2, usage=UNIFORM),
    ]
    ctx.run_kernel(kernel, Schedule(128), views, x.size)
    np.testing.assert_allclose(ctx.read_buffer_f32(views[1]), x * x, rtol=1e-7)


def test_a_second_run_compiles_nothing(forge_context):
    ctx = _slab_backed(forge_context)
    x = np.ones(256, np.float32)
    kernel, views = _affine_views(ctx, x)
    ctx.run_kernel(kernel, Schedule(64), views, x.size)
    compiled = ctx.compile_count
    ctx.run_kernel(kernel, Schedule(64), views, x.size)
    assert ctx.compile_count == compiled


def test_async_dispatches_complete_before_their_views_are_released(forge_context):
    ctx = _slab_backed(forge_context)
    x = np.arange(4096, dtype=np.float32)
    outputs = []
    for i in range(8):
        kernel, views = _affine_views(ctx, x, a=float(i), b=1.0)
        ctx.dispatch(kernel, Schedule(64), views, x.size)
        outputs.append(views[1])
    ctx.wait()
    for i, view in enumerate(outputs):
        np.testing.assert_allclose(ctx.read_buffer_f32(view), np.float32(i) * x + 1, rtol=1e-7)


def test_clear_releases_views_and_stale_views_are_refused(forge_context):
    ctx = forge_context
    view = ctx.allocate_and_write(np.ones(8, np.float32), 0)
    ctx.clear_transient_allocations()
    with pytest.raises(AllocationError, match="no longer live"):
        ctx.read_buffer_f32(view)
    fresh = ctx.allocate_and_write(np.full(8, 3, np.float32), 0)
    assert ctx.read_buffer_f32(fresh).tolist() == [3.0] * 8


def test_checkpoint_restore_keeps_the_bytes_below_it(forge_context):
    ctx = _slab_backed(forge_context)
    kept = ctx.allocate_and_write(np.full(32, 5, np.float32), 0)
    mark = ctx.write_checkpoint()
    scratch = ctx.allocate_and_write(np.full(32, 9, np.float32), 1)
    ctx.restore_checkpoint(mark)
    reused = ctx.allocate_and_write(np.full(32, 1, np.float32), 1)
    assert reused.offset == scratch.offset
    assert ctx.read_buffer_f32(kept).tolist() == [5.0] * 32


def test_exhaustion_raises_and_overwrites_nothing(forge_context):
    ctx = forge_context
    keep = ctx.allocate_and_write(np.full(64, 4, np.float32), 0)
    with pytest.raises(AllocationError):
        ctx.allocate_transient(1 << 60, 1)
    with pytest.raises(AllocationError):
        while True:
            ctx.allocate_transient(1 << 20, 1)
    assert ctx.read_buffer_f32(keep).tolist() == [4.0] * 64


def test_mismatched_buffers_are_refused_and_the_context_stays_usable(forge_context):
    ctx = forge_context
    x = np.ones(100, np.float32)
    kernel, views = _affine_views(ctx, x)
    bad_lists = [views[:2], [views[1], views[0], views[2]], [views[0], views[0], views[2]]]
    for bad in bad_lists:
        with pytest.raises(InvalidArgument):
            ctx.run_kernel(kernel, Schedule(64), bad, x.size)
    with pytest.raises(InvalidArgument, match="needs 800 bytes"):
        ctx.run_kernel(kernel, Schedule(64), views, 200)
    ctx.run_kernel(kernel, Schedule(64), views, x.size)
    assert ctx.read_buffer_f32(views[1]).tolist() == [2.5] * 100


def test_schedules_beyond_the_adapter_limits_are_unsupported(forge_context):
    ctx = forge_context
    x = np.ones(100, np.float32)
    kernel, views = _affine_views(ctx, x)
    too_big = ctx.constraints.max_invocations_per_workgroup * 2
    with pytest.raises(UnsupportedFeature):
        ctx.run_kernel(kernel, Schedule((too_big, 1, 1)), views, x.size)


def test_views_of_another_context_are_refused(forge_context):
    other = forge.open_context("reference")
    try:
        foreign = other.allocate_and_write(np.ones(4, np.float32), 0)
        with pytest.raises(AllocationError, match="not allocated by this context"):
            forge_context.read_buffer_f32(foreign)
    finally:
        other.close()


def test_closed_context_refuses_every_call_and_close_is_idempotent(forge_context):
    ctx = forge_context
    view = ctx.allocate_and_write(np.ones(4, np.float32), 0)
    ctx.close()
    ctx.close()
    assert ctx.closed
    for call in (
        lambda: ctx.read_buffer_f32(view),
        lambda: ctx.allocate_transient(4, 0),
        ctx.clear_transient_allocations,
        lambda: ctx.write_view(view, b"1234"),
    ):
        with pytest.raises(ContextClosed):
            call()


def test_zero_size_and_bad_data_are_refused(forge_context):
    ctx = forge_context
    with pytest.raises(InvalidArgument):
        ctx.allocate_and_write(b"", 0)
    with pytest.raises(InvalidArgument):
        ctx.allocate_transient(0, 0)
    with pytest.raises(InvalidArgument):
        ctx.allocate_and_write(object(), 0)
