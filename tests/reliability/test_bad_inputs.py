"""Bad inputs across the contract, on every backend: each raises a typed ForgeError that
names the problem, the process survives, every other view keeps its bytes, and the
context stays usable."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

import numpy as np
import pytest

import forge
from forge import (AllocationError, BindingUsage, BufferView, CompileError, ForgeError,
                   InvalidArgument, KernelSpec, Schedule, UnsupportedFeature)

RW = BindingUsage.STORAGE_READ_WRITE
UNIFORM = BindingUsage.UNIFORM
N = 256


@dataclass
class Env:
    """A context with a sentinel view whose bytes must survive every bad call, and a
    valid affine argument list to corrupt."""

    ctx: object
    kernel: KernelSpec
    sentinel: BufferView
    sentinel_bytes: np.ndarray
    views: list

    def stale_view(self) -> BufferView:
        mark = self.ctx.write_checkpoint()
        view = self.ctx.allocate_transient(N * 4, 0)
        self.ctx.restore_checkpoint(mark)
        return view

    def foreign_view(self) -> BufferView:
        other = forge.open_context("reference")
        try:
            return other.allocate_and_write(np.ones(N, np.float32), 0)
        finally:
            other.close()

    def run(self, views=None, n=N, schedule=Schedule(64), kernel=None, **kw):
        return self.ctx.run_kernel(kernel or self.kernel, schedule,
                                   self.views if views is None else views, n, **kw)


def _swap(seq, i, j):
    seq = list(seq)
    seq[i], seq[j] = seq[j], seq[i]
    return seq


def _with(seq, i, value):
    seq = list(seq)
    seq[i] = value
    return seq


def _kernel_variant(**changes) -> KernelSpec:
    base = forge.get_kernel("raw_affine")
    fields = dict(id=base.id + "_variant", entry_point=base.entry_point, buffers=base.buffers,
                  sources=base.sources, reference=base.reference, params=base.params,
                  defaults=base.defaults)
    fields.update(changes)
    return KernelSpec(**fields)


_BROKEN_SOURCES = {"wgsl": "fn raw_affine( { this is not WGSL",
                   "cuda": 'extern "C" __global__ void raw_affine( { this is not CUDA'}

# (id, call, expected error, message fragment)
CASES: list[tuple[str, Callable[[Env], object], type, str]] = [
    # allocation
    ("alloc-zero", lambda e: e.ctx.allocate_transient(0, 0), InvalidArgument, "non-empty"),
    ("alloc-negative", lambda e: e.ctx.allocate_transient(-16, 0), InvalidArgument, "non-empty"),
    ("alloc-float-size", lambda e: e.ctx.allocate_transient(16.0, 0), InvalidArgument, "int"),
    ("alloc-over-capacity", lambda e: e.ctx.allocate_transient(1 << 62, 0), AllocationError, "capacity"),
    ("alloc-usage-string", lambda e: e.ctx.allocate_transient(16, 0, usage="uniform"), InvalidArgument, "BindingUsage"),
    ("alloc-negative-binding", lambda e: e.ctx.allocate_transient(16, -1), InvalidArgument, "binding"),
    ("write-empty-bytes", lambda e: e.ctx.allocate_and_write(b"", 0), InvalidArgument, "non-empty"),
    ("write-empty-array", lambda e: e.ctx.allocate_and_write(np.zeros(0, np.float32), 0), InvalidArgument, "non-empty"),
    ("write-dict", lambda e: e.ctx.allocate_and_write({"a": 1}, 0), InvalidArgument, "bytes-like"),
    ("write-list", lambda e: e.ctx.allocate_and_write([1.0, 2.0], 0), InvalidArgument, "bytes-like"),
    ("write-strided-memoryview", lambda e: e.ctx.allocate_and_write(memoryview(np.ones(8, np.float32))[::2], 0), InvalidArgument, "contiguous"),
    # overwriting views
    ("write-view-too-much", lambda e: e.ctx.write_view(e.views[0], np.ones(N + 1, np.float32)), InvalidArgument, "do not fit"),
    ("write-view-stale", lambda e: e.ctx.write_view(e.stale_view(), b"1234"), AllocationError, "no longer live"),
    ("write-view-foreign", lambda e: e.ctx.write_view(e.foreign_view(), b"1234"), AllocationError, "not allocated by this context"),
    ("write-view-forged", lambda e: e.ctx.write_view(BufferView(0, 64, 0), b"1234"), AllocationError, "not allocated by this context"),
    ("write-view-str", lambda e: e.ctx.write_view(e.views[0], "text"), InvalidArgument, "bytes-like"),
    ("write-view-not-a-view", lambda e: e.ctx.write_view((0, 64), b"1234"), InvalidArgument, "BufferView"),
    # reading back
    ("read-f32-odd-length", lambda e: e.ctx.read_buffer_f32(e.ctx.allocate_transient(10, 0)), InvalidArgument, "whole number"),
    ("read-f64-odd-length", lambda e: e.ctx.read_buffer_f64(e.ctx.allocate_transient(12, 0)), InvalidArgument, "whole number"),
    ("read-u32-into-float", lambda e: e.ctx.read_buffer_u32_into(e.views[0], np.zeros(4, np.float32)), InvalidArgument, "uint32"),
    ("read-u32-into-too-big", lambda e: e.ctx.read_buffer_u32_into(e.views[0], np.zeros(N + 1, np.uint32)), InvalidArgument, "holds"),
    ("read-u32-into-strided", lambda e: e.ctx.read_buffer_u32_into(e.views[0], np.zeros(8, np.uint32)[::2]), InvalidArgument, "contiguous"),
    ("read-u32-into-readonly", lambda e: e.ctx.read_buffer_u32_into(e.views[0], np.frombuffer(bytes(16), np.uint32)), InvalidArgument, "writable"),
    ("read-u32-into-list", lambda e: e.ctx.read_buffer_u32_into(e.views[0], [0, 0]), InvalidArgument, "uint32"),
    ("read-stale", lambda e: e.ctx.read_buffer_f32(e.stale_view()), AllocationError, "no longer live"),
    ("read-tampered-length", lambda e: e.ctx.read_buffer_f32(replace(e.views[0], length_bytes=N * 8)), AllocationError, "does not match"),
    ("read-tampered-offset", lambda e: e.ctx.read_buffer_f32(replace(e.views[0], offset=e.views[0].offset + 256)), AllocationError, "does not match"),
    # kernel arguments
    ("run-too-few-buffers", lambda e: e.run(e.views[:2]), InvalidArgument, "binds 3 buffers, got 2"),
    ("run-too-many-buffers", lambda e: e.run(e.views + [e.views[0]]), InvalidArgument, "binds 3 buffers, got 4"),
    ("run-swapped-buffers", lambda e: e.run(_swap(e.views, 0, 1)), InvalidArgument, "binding"),
    ("run-read-only-output", lambda e: e.run(_with(e.views, 1, e.ctx.allocate_transient(N * 4, 1))), InvalidArgument, "cannot be bound there"),
    ("run-storage-as-uniform", lambda e: e.run(_with(e.views, 2, e.ctx.allocate_transient(16, 2))), InvalidArgument, "cannot be bound there"),
    ("run-uniform-too-small", lambda e: e.run(_with(e.views, 2, e.ctx.allocate_transient(4, 2, usage=UNIFORM))), InvalidArgument, "bytes at size"),
    ("run-count-beyond-views", lambda e: e.run(n=N + 1), InvalidArgument, "needs 1028 bytes"),
    ("run-count-negative", lambda e: e.run(n=-1), InvalidArgument, "element count"),
    ("run-count-float", lambda e: e.run(n=256.0), InvalidArgument, "element_count must be an int"),
    ("run-zero-samples", lambda e: e.run(samples=0), InvalidArgument, "samples >= 1"),
    ("run-negative-warmups", lambda e: e.run(warmups=-1), InvalidArgument, "warmups >= 0"),
    ("run-workgroup-too-big", lambda e: e.run(schedule=Schedule((1 << 20, 1, 1))), UnsupportedFeature, "max_workgroup_size"),
    ("run-schedule-string", lambda e: e.run(schedule="wg=64"), InvalidArgument, "Schedule"),
    ("run-kernel-string", lambda e: e.run(kernel="raw_affine"), InvalidArgument, "KernelSpec"),
    ("run-view-in-wrong-group", lambda e: e.run(_with(e.views, 1, e.ctx.allocate_transient(N * 4, 1, group=1, usage=RW))), InvalidArgument, "the view is at group 1 binding 1"),
    ("run-stale-view", lambda e: e.run(_with(e.views, 0, e.stale_view())), AllocationError, "no longer live"),
    ("run-foreign-view", lambda e: e.run(_with(e.views, 0, e.foreign_view())), AllocationError, "not allocated by this context"),
    ("run-missing-feature", lambda e: e.run(kernel=_kernel_variant(requires={"no_such_feature"})), UnsupportedFeature, "no_such_feature"),
    ("run-no-source-for-target", lambda e: e.run(kernel=_kernel_variant(sources={}, reference=None)), UnsupportedFeature, "kernel raw_affine_variant"),
    # ring management
    ("restore-future-checkpoint", lambda e: e.ctx.restore_checkpoint(e.ctx.write_checkpoint() + 5), AllocationError, "cannot be restored"),
    ("advance-outside-live-region", lambda e: e.ctx.advance_read_head(1 << 62), AllocationError, "outside slab"),
]


@pytest.fixture
def env(forge_context):
    ctx = forge_context
    kernel = forge.get_kernel("raw_affine")
    sentinel_bytes = np.random.default_rng(7).integers(0, 2**32, 1024, dtype=np.uint32)
    sentinel = ctx.allocate_and_write(sentinel_bytes, 5, usage=RW)
    x = np.arange(N, dtype=np.float32)
    views = [ctx.allocate_and_write(x, 0), ctx.allocate_transient(N * 4, 1, usage=RW),
             ctx.allocate_and_write(kernel.pack_uniform(N), 2, usage=UNIFORM)]
    return Env(ctx, kernel, sentinel, sentinel_bytes, views)


def _still_healthy(env: Env) -> None:
    assert np.array_equal(env.ctx.read_buffer_u32(env.sentinel), env.sentinel_bytes), \
        "a bad call changed the bytes of an unrelated view"
    env.ctx.write_view(env.views[1], np.zeros(N, np.float32))
    env.run()
    np.testing.assert_allclose(env.ctx.read_buffer_f32(env.views[1]),
                               2.0 * np.arange(N, dtype=np.float32) + 0.5, rtol=1e-7)


def test_there_are_at_least_forty_cases():
    assert len(CASES) >= 40


# Device features are the kernel's: the numpy reference needs none, so a host backend
# runs a kernel that requires one (issue 13).
_DEVICE_ONLY = {"run-missing-feature"}


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_bad_input_raises_a_typed_error_and_loses_nothing(env, case):
    name, call, error, fragment = case
    if name in _DEVICE_ONLY and getattr(env.ctx, "target", None) is None:
        call(env)  # runs: the reference evaluates numpy, which needs no device feature
        _still_healthy(env)
        return
    with pytest.raises(error) as info:
        call(env)
    assert isinstance(info.value, ForgeError)
    assert fragment in str(info.value), f"message does not name the problem: {info.value}"
    _still_healthy(env)


def test_a_source_that_fails_to_compile_raises_compile_error(env):
    if getattr(env.ctx, "target", None) is None:
        pytest.skip(f"the {env.ctx.backend_name} backend compiles no source")
    kernel = _kernel_variant(id="broken_source", sources=_BROKEN_SOURCES)
    with pytest.raises(CompileError) as info:
        env.run(kernel=kernel)
    assert info.value.log and info.value.source and info.value.target == env.ctx.target
    _still_healthy(env)
