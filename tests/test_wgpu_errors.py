"""Errors on the wgpu backend: inputs wgpu would crash on or reject are refused by our
own checks first, wgpu's own validation errors become ``GpuValidation`` with wgpu's
message, invalid WGSL is a ``CompileError`` with naga's log, and after device loss every
call raises ``DeviceLost`` while a fresh context works. After each refused call the
context stays usable and other views keep their bytes."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import forge
from forge import (
    Access,
    AllocationError,
    BindingUsage,
    BufferSpec,
    CompileError,
    DeviceLost,
    GpuValidation,
    InvalidArgument,
    KernelSpec,
    Schedule,
    UnsupportedFeature,
)
from oracle.pytest_plugin import require_available

RW = BindingUsage.STORAGE_READ_WRITE
UNIFORM = BindingUsage.UNIFORM
N = 256

_FILL_WGSL = """\
@group(GROUP) @binding(0) var<storage, read_write> y: ARRAY;
@compute @workgroup_size(64)
fn ${entry}(@builtin(global_invocation_id) g: vec3<u32>) {
    if (g.x < LENGTH) { y[g.x] = 7.0; }
}
"""


def _fill_source(fixed: int | None = None, group: int = 0) -> str:
    array, length = (
        ("array<f32>", "arrayLength(&y)")
        if fixed is None
        else (f"array<f32, {fixed}>", f"{fixed}u")
    )
    return _FILL_WGSL.replace("GROUP", str(group)).replace("ARRAY", array).replace("LENGTH", length)


def _fill(
    fixed: int | None = None, *, count=None, grid=None, kernel_id="test_wgpu_fill", group: int = 0
) -> KernelSpec:
    """A one-buffer kernel writing 7.0; ``fixed`` makes its array fixed-size."""
    source = _fill_source(fixed, group)
    return KernelSpec(
        id=kernel_id,
        entry_point="fill",
        sources={"wgsl": source},
        buffers=(BufferSpec(0, "f32", Access.READ_WRITE, group=group, name="y", count=count),),
        grid=grid,
    )


class Env:
    """A context with a sentinel view that every refused call must leave untouched."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.sentinel_bytes = np.random.default_rng(11).integers(0, 2**32, 512, dtype=np.uint32)
        self.sentinel = ctx.allocate_and_write(self.sentinel_bytes, 9, usage=RW)
        self.y = ctx.allocate_transient(N * 4, 0, usage=RW)

    def assert_healthy(self) -> None:
        assert np.array_equal(self.ctx.read_buffer_u32(self.sentinel), self.sentinel_bytes)
        self.ctx.write_view(self.y, np.zeros(N, np.float32))
        self.ctx.run_kernel(_fill(), Schedule(64), [self.y], N)
        assert self.ctx.read_buffer_f32(self.y).tolist() == [7.0] * N


@pytest.fixture
def env(request):
    require_available(request.config, "wgpu")
    ctx = forge.open_context("wgpu")
    try:
        yield Env(ctx)
    finally:
        ctx.close()


def test_wgpu_validation_errors_carry_wgpus_message_and_change_nothing(env):
    fixed = _fill(1024, kernel_id="test_wgpu_fixed")  # needs 4096 bytes bound
    with pytest.raises(GpuValidation, match="expects 4096") as info:
        env.ctx.run_kernel(fixed, Schedule(64), [env.y], N)
    assert "bound with size 1024" in str(info.value)
    with pytest.raises(GpuValidation, match="expects 4096"):
        env.ctx.dispatch(fixed, Schedule(64), [env.y], N)
    env.assert_healthy()


def test_invalid_wgsl_is_a_compile_error_with_nagas_log(env):
    broken = KernelSpec(
        id="test_wgpu_broken",
        entry_point="fill",
        sources={"wgsl": _fill_source().replace("7.0", "7u")},
        buffers=(BufferSpec(0, "f32", Access.READ_WRITE, name="y"),),
    )
    before = env.ctx.compile_count
    with pytest.raises(CompileError) as info:
        env.ctx.run_kernel(broken, Schedule(64), [env.y], N)
    error = info.value
    assert error.target == "wgsl" and "fn fill" in error.source
    assert "wgsl:" in error.log and "u32" in error.log
    assert env.ctx.compile_count == before  # nothing cached
    env.assert_healthy()


def test_the_binding_follows_the_access_the_shader_declares(env):
    """The shader declares y read_write while the spec calls it an input: it is bound
    writable (so a read-only view is refused, saying which usage to use), and runs."""
    declared_rw = KernelSpec(
        id="test_wgpu_declared_rw",
        entry_point="fill",
        sources={"wgsl": _fill_source()},
        buffers=(BufferSpec(0, "f32", Access.READ, name="y"),),
    )
    read_only = env.ctx.allocate_transient(N * 4, 0)
    with pytest.raises(InvalidArgument, match="use STORAGE_READ_WRITE"):
        env.ctx.run_kernel(declared_rw, Schedule(64), [read_only], N)
    writable = env.ctx.allocate_transient(N * 4, 0, usage=RW)
    env.ctx.run_kernel(declared_rw, Schedule(64), [writable], N)
    assert env.ctx.read_buffer_f32(writable).tolist() == [7.0] * N
    env.assert_healthy()


def test_a_layout_that_disagrees_with_the_shader_is_a_compile_error(env):
    """A uniform block where the shader declares a storage buffer: the pipeline cannot be
    made, and the error carries wgpu's log."""
    wrong = KernelSpec(
        id="test_wgpu_wrong_access",
        entry_point="fill",
        sources={"wgsl": _fill_source()},
        buffers=(BufferSpec.uniform(0, (("n", "u32"),), name="y"),),
    )
    view = env.ctx.allocate_transient(16, 0, usage=forge.BindingUsage.UNIFORM)
    with pytest.raises(CompileError, match="kernel test_wgpu_wrong_access") as info:
        env.ctx.run_kernel(wrong, Schedule(64), [view], N)
    assert "binding" in info.value.log.lower() or "storage" in info.value.log.lower()
    env.assert_healthy()


def test_zero_size_views_never_reach_wgpu(env):
    with pytest.raises(InvalidArgument, match="non-empty"):
        env.ctx.allocate_transient(0, 0, usage=RW)
    empty = _fill(count=lambda n: 0, kernel_id="test_wgpu_empty")  # needs zero bytes
    for forged in (
        replace(env.y, length_bytes=0),
        forge.BufferView(
            env.y.offset,
            0,
            0,
            usage=RW,
            slab=env.y.slab,
            owner=env.y.owner,
            position=env.y.position,
        ),
    ):
        with pytest.raises(AllocationError, match="does not match"):
            env.ctx.run_kernel(empty, Schedule(64), [forged], N)
        with pytest.raises(AllocationError):
            env.ctx.read_buffer_f32(forged)
    env.assert_healthy()


def test_misaligned_out_of_slab_and_forged_views_are_refused(env):
    ctx, y = env.ctx, env.y
    capacity = ctx.allocator.slab_capacity(y.slab)
    bad = [
        replace(y, offset=y.offset + 4),  # misaligned
        replace(y, offset=capacity - 64),  # reaches past the slab
        replace(y, slab=0),  # another usage's slab
        replace(y, position=y.position + ctx.allocator.alignment),
        forge.BufferView(0, N * 4, 0, usage=RW),
    ]  # never allocated
    for view in bad:
        with pytest.raises(AllocationError):
            ctx.run_kernel(_fill(), Schedule(64), [view], N)
        with pytest.raises(AllocationError):
            ctx.write_view(view, np.ones(4, np.float32))
        with pytest.raises(AllocationError):
            ctx.read_buffer_u32_into(view, np.zeros(4, np.uint32))
    env.assert_healthy()


def test_mismatched_buffer_lists_are_refused(env):
    ctx = env.ctx
    kernel = forge.get_kernel("raw_affine")
    x = ctx.allocate_and_write(np.ones(N, np.float32), 0)
    u = ctx.allocate_and_write(kernel.pack_uniform(N), 2, usage=UNIFORM)
    resident_out = ctx.allocate_transient(N * 4, 1, usage=BindingUsage.STORAGE_READ_RESIDENT)
    cases = [
        ([x, env.y, u], "binding"),  # y is at binding 0, not 1
        ([x, resident_out, u], "cannot be bound there"),  # resident is read-only
        ([x, u], "binds 3 buffers, got 2"),
        ([u, x, resident_out], "binding"),
    ]
    for views, fragment in cases:
        with pytest.raises(InvalidArgument, match=fragment):
            ctx.run_kernel(kernel, Schedule(64), views, N)
    env.assert_healthy()


def test_element_counts_beyond_the_dispatch_limits_are_unsupported(env):
    limit = env.ctx.constraints.max_workgroups_per_dimension[0]
    one = _fill(count=lambda n: 1, kernel_id="test_wgpu_one")  # tiny views, huge count
    with pytest.raises(UnsupportedFeature, match="workgroups"):
        env.ctx.run_kernel(one, Schedule(64), [env.y], 64 * limit * limit + 1)
    wide = _fill(grid=lambda schedule, n: (limit + 1, 1, 1), kernel_id="test_wgpu_wide")
    with pytest.raises(UnsupportedFeature, match=str(limit)):
        env.ctx.run_kernel(wide, Schedule(64), [env.y], N)
    with pytest.raises(UnsupportedFeature, match="workgroups"):
        env.ctx.dispatch(wide, Schedule(64), [env.y], N)
    negative = _fill(grid=lambda schedule, n: (-1, 1, 1), kernel_id="test_wgpu_negative")
    with pytest.raises(InvalidArgument, match="workgroups"):
        env.ctx.run_kernel(negative, Schedule(64), [env.y], N)
    env.assert_healthy()


def test_bind_groups_beyond_the_device_limit_are_unsupported(env):
    groups = env.ctx.device.limits["max-bind-groups"]
    far = _fill(group=groups, kernel_id="test_wgpu_far_group")
    view = env.ctx.allocate_transient(N * 4, 0, group=groups, usage=RW)
    with pytest.raises(UnsupportedFeature, match="bind groups"):
        env.ctx.run_kernel(far, Schedule(64), [view], N)
    env.assert_healthy()


def test_a_bad_fence_is_refused(env):
    with pytest.raises(InvalidArgument, match="never handed out"):
        env.ctx.wait(10**9)
    with pytest.raises(InvalidArgument, match="fence"):
        env.ctx.wait("last")
    env.assert_healthy()


def test_capacity_beyond_the_max_buffer_size_is_an_allocation_error(request):
    require_available(request.config, "wgpu")
    with pytest.raises(AllocationError, match="max_buffer_size"):
        forge.open_context("wgpu", capacity_bytes=1 << 44)


def test_after_device_loss_every_call_raises_and_a_fresh_context_works(request):
    require_available(request.config, "wgpu")
    ctx = forge.open_context("wgpu")
    kernel = forge.get_kernel("raw_affine")
    x = ctx.allocate_and_write(np.ones(N, np.float32), 0)
    y = ctx.allocate_transient(N * 4, 1, usage=RW)
    u = ctx.allocate_and_write(kernel.pack_uniform(N), 2, usage=UNIFORM)
    ctx.run_kernel(kernel, Schedule(64), [x, y, u], N)
    ctx.device.destroy()
    calls = [
        lambda: ctx.allocate_transient(16, 0),
        lambda: ctx.allocate_and_write(np.ones(4, np.float32), 0),
        lambda: ctx.write_view(x, np.zeros(4, np.float32)),
        lambda: ctx.read_buffer_f32(y),
        lambda: ctx.read_buffer_u32_into(y, np.zeros(4, np.uint32)),
        lambda: ctx.run_kernel(kernel, Schedule(64), [x, y, u], N),
        lambda: ctx.dispatch(kernel, Schedule(64), [x, y, u], N),
        lambda: ctx.wait(),
        ctx.clear_transient_allocations,
        ctx.clear_resident,
    ]
    for call in calls:
        with pytest.raises(DeviceLost, match="destroyed"):
            call()
    assert ctx.lost
    ctx.close()
    ctx.close()
    with pytest.raises(forge.ContextClosed):
        ctx.read_buffer_f32(y)
    with forge.open_context("wgpu") as fresh:
        xs = fresh.allocate_and_write(np.arange(N, dtype=np.float32), 0)
        ys = fresh.allocate_transient(N * 4, 1, usage=RW)
        us = fresh.allocate_and_write(kernel.pack_uniform(N), 2, usage=UNIFORM)
        fresh.run_kernel(kernel, Schedule(64), [xs, ys, us], N)
        np.testing.assert_array_equal(
            fresh.read_buffer_f32(ys), 2 * np.arange(N, dtype=np.float32) + 0.5
        )


def test_a_loss_seen_by_wgpu_mid_call_marks_the_context_lost(request):
    """Loss that our own poll-thread check cannot see (the device dies under a call)
    is recognised from wgpu's message."""
    require_available(request.config, "wgpu")
    ctx = forge.open_context("wgpu")
    try:
        view = ctx.allocate_and_write(np.ones(N, np.float32), 0)
        from backends.wgpu import _native

        # Destroyed in wgpu-native only, hidden from the context's destroyed check.
        _native.destroy_natively(ctx.device)
        assert not _native.device_destroyed(ctx.device)
        with pytest.raises(DeviceLost, match="lost"):
            ctx.read_buffer_f32(view)
        with pytest.raises(DeviceLost):
            ctx.allocate_transient(16, 0)
    finally:
        ctx.close()
