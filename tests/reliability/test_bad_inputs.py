"""Bad inputs across the contract, on every backend: each raises a typed ForgeError that
names the problem, the process survives, every other view keeps its bytes, and the
context stays usable."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
import pytest

import forge
from forge import (
    AllocationError,
    BindingUsage,
    BufferView,
    CompileError,
    ForgeError,
    InvalidArgument,
    KernelSpec,
    ReferenceFailed,
    Schedule,
    UnsupportedFeature,
)
from oracle.pytest_plugin import require_available

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
        return self.ctx.run_kernel(
            kernel or self.kernel, schedule, self.views if views is None else views, n, **kw
        )


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
    fields = dict(
        id=base.id + "_variant",
        entry_point=base.entry_point,
        buffers=base.buffers,
        sources=base.sources,
        reference=base.reference,
        params=base.params,
        defaults=base.defaults,
    )
    fields.update(changes)
    return KernelSpec(**fields)


def _counted_variant(count) -> KernelSpec:
    """raw_affine whose output buffer's element count is ``count(size)``."""
    base = forge.get_kernel("raw_affine")
    x, y, params = base.buffers
    return _kernel_variant(buffers=(x, replace(y, count=count), params))


_BROKEN_SOURCES = {
    "wgsl": "fn raw_affine( { this is not WGSL",
    "cuda": 'extern "C" __global__ void raw_affine( { this is not CUDA',
}

# (id, call, expected error, message fragment)
CASES: list[tuple[str, Callable[[Env], object], type, str]] = [
    # allocation
    ("alloc-zero", lambda e: e.ctx.allocate_transient(0, 0), InvalidArgument, "non-empty"),
    ("alloc-negative", lambda e: e.ctx.allocate_transient(-16, 0), InvalidArgument, "non-empty"),
    ("alloc-float-size", lambda e: e.ctx.allocate_transient(16.0, 0), InvalidArgument, "int"),
    (
        "alloc-over-capacity",
        lambda e: e.ctx.allocate_transient(1 << 62, 0),
        AllocationError,
        "capacity",
    ),
    (
        "alloc-usage-string",
        lambda e: e.ctx.allocate_transient(16, 0, usage="uniform"),
        InvalidArgument,
        "BindingUsage",
    ),
    (
        "alloc-negative-binding",
        lambda e: e.ctx.allocate_transient(16, -1),
        InvalidArgument,
        "binding",
    ),
    ("write-empty-bytes", lambda e: e.ctx.allocate_and_write(b"", 0), InvalidArgument, "non-empty"),
    (
        "write-empty-array",
        lambda e: e.ctx.allocate_and_write(np.zeros(0, np.float32), 0),
        InvalidArgument,
        "non-empty",
    ),
    ("write-dict", lambda e: e.ctx.allocate_and_write({"a": 1}, 0), InvalidArgument, "bytes-like"),
    (
        "write-list",
        lambda e: e.ctx.allocate_and_write([1.0, 2.0], 0),
        InvalidArgument,
        "bytes-like",
    ),
    (
        "write-strided-memoryview",
        lambda e: e.ctx.allocate_and_write(memoryview(np.ones(8, np.float32))[::2], 0),
        InvalidArgument,
        "contiguous",
    ),
    (
        "write-object-array",
        lambda e: e.ctx.allocate_and_write(np.array([object()] * 4), 0),
        InvalidArgument,
        "Python objects",
    ),
    (
        "write-object-record-array",
        lambda e: e.ctx.allocate_and_write(np.zeros(4, [("a", "f4"), ("b", object)]), 0),
        InvalidArgument,
        "Python objects",
    ),
    (
        "write-released-memoryview",
        lambda e: e.ctx.allocate_and_write(_released(), 0),
        InvalidArgument,
        "released memoryview",
    ),
    (
        "alloc-binding-str",
        lambda e: e.ctx.allocate_transient(16, "a"),
        InvalidArgument,
        "binding must be an int",
    ),
    (
        "alloc-binding-none",
        lambda e: e.ctx.allocate_transient(16, None),
        InvalidArgument,
        "binding must be an int",
    ),
    (
        "alloc-binding-bool",
        lambda e: e.ctx.allocate_transient(16, True),
        InvalidArgument,
        "binding must be an int",
    ),
    (
        "write-binding-str",
        lambda e: e.ctx.allocate_and_write(b"1234", "a"),
        InvalidArgument,
        "binding must be an int",
    ),
    (
        "alloc-group-float",
        lambda e: e.ctx.allocate_transient(16, 0, 1.0),
        InvalidArgument,
        "group must be an int",
    ),
    (
        "alloc-size-numpy-float",
        lambda e: e.ctx.allocate_transient(np.float64(16), 0),
        InvalidArgument,
        "size_bytes must be an int",
    ),
    # overwriting views
    (
        "write-view-too-much",
        lambda e: e.ctx.write_view(e.views[0], np.ones(N + 1, np.float32)),
        InvalidArgument,
        "do not fit",
    ),
    (
        "write-view-stale",
        lambda e: e.ctx.write_view(e.stale_view(), b"1234"),
        AllocationError,
        "no longer live",
    ),
    (
        "write-view-foreign",
        lambda e: e.ctx.write_view(e.foreign_view(), b"1234"),
        AllocationError,
        "not allocated by this context",
    ),
    (
        "write-view-forged",
        lambda e: e.ctx.write_view(BufferView(0, 64, 0), b"1234"),
        AllocationError,
        "not allocated by this context",
    ),
    (
        "write-view-str",
        lambda e: e.ctx.write_view(e.views[0], "text"),
        InvalidArgument,
        "bytes-like",
    ),
    (
        "write-view-object-array",
        lambda e: e.ctx.write_view(e.views[0], np.array([1.0, "a"], dtype=object)),
        InvalidArgument,
        "Python objects",
    ),
    (
        "write-view-released-memoryview",
        lambda e: e.ctx.write_view(e.views[0], _released()),
        InvalidArgument,
        "released memoryview",
    ),
    (
        "write-view-not-a-view",
        lambda e: e.ctx.write_view((0, 64), b"1234"),
        InvalidArgument,
        "BufferView",
    ),
    # reading back
    (
        "read-f32-odd-length",
        lambda e: e.ctx.read_buffer_f32(e.ctx.allocate_transient(10, 0)),
        InvalidArgument,
        "whole number",
    ),
    (
        "read-f64-odd-length",
        lambda e: e.ctx.read_buffer_f64(e.ctx.allocate_transient(12, 0)),
        InvalidArgument,
        "whole number",
    ),
    (
        "read-u32-into-float",
        lambda e: e.ctx.read_buffer_u32_into(e.views[0], np.zeros(4, np.float32)),
        InvalidArgument,
        "uint32",
    ),
    (
        "read-u32-into-too-big",
        lambda e: e.ctx.read_buffer_u32_into(e.views[0], np.zeros(N + 1, np.uint32)),
        InvalidArgument,
        "holds",
    ),
    (
        "read-u32-into-strided",
        lambda e: e.ctx.read_buffer_u32_into(e.views[0], np.zeros(8, np.uint32)[::2]),
        InvalidArgument,
        "contiguous",
    ),
    (
        "read-u32-into-readonly",
        lambda e: e.ctx.read_buffer_u32_into(e.views[0], np.frombuffer(bytes(16), np.uint32)),
        InvalidArgument,
        "writable",
    ),
    (
        "read-u32-into-list",
        lambda e: e.ctx.read_buffer_u32_into(e.views[0], [0, 0]),
        InvalidArgument,
        "uint32",
    ),
    (
        "read-stale",
        lambda e: e.ctx.read_buffer_f32(e.stale_view()),
        AllocationError,
        "no longer live",
    ),
    (
        "read-tampered-length",
        lambda e: e.ctx.read_buffer_f32(replace(e.views[0], length_bytes=N * 8)),
        AllocationError,
        "does not match",
    ),
    (
        "read-tampered-offset",
        lambda e: e.ctx.read_buffer_f32(replace(e.views[0], offset=e.views[0].offset + 256)),
        AllocationError,
        "does not match",
    ),
    # kernel arguments
    (
        "run-too-few-buffers",
        lambda e: e.run(e.views[:2]),
        InvalidArgument,
        "binds 3 buffers, got 2",
    ),
    (
        "run-too-many-buffers",
        lambda e: e.run(e.views + [e.views[0]]),
        InvalidArgument,
        "binds 3 buffers, got 4",
    ),
    ("run-swapped-buffers", lambda e: e.run(_swap(e.views, 0, 1)), InvalidArgument, "binding"),
    (
        "run-read-only-output",
        lambda e: e.run(_with(e.views, 1, e.ctx.allocate_transient(N * 4, 1))),
        InvalidArgument,
        "cannot be bound there",
    ),
    (
        "run-storage-as-uniform",
        lambda e: e.run(_with(e.views, 2, e.ctx.allocate_transient(16, 2))),
        InvalidArgument,
        "cannot be bound there",
    ),
    (
        "run-uniform-too-small",
        lambda e: e.run(_with(e.views, 2, e.ctx.allocate_transient(4, 2, usage=UNIFORM))),
        InvalidArgument,
        "bytes at size",
    ),
    ("run-count-beyond-views", lambda e: e.run(n=N + 1), InvalidArgument, "needs 1028 bytes"),
    ("run-count-negative", lambda e: e.run(n=-1), InvalidArgument, "element count"),
    ("run-count-float", lambda e: e.run(n=256.0), InvalidArgument, "element_count must be an int"),
    (
        "run-float-samples",
        lambda e: e.run(samples=1.5),
        InvalidArgument,
        "samples must be an int >= 1, got 1.5",
    ),
    (
        "run-bool-warmups",
        lambda e: e.run(warmups=True),
        InvalidArgument,
        "warmups must be an int >= 0, got True",
    ),
    (
        "run-too-many-samples",
        lambda e: e.run(samples=10**9),
        InvalidArgument,
        "samples must be <= 1000000",
    ),
    (
        "run-too-many-warmups",
        lambda e: e.run(warmups=10**12),
        InvalidArgument,
        "warmups must be <= 1000000",
    ),
    (
        "run-buffers-not-a-sequence",
        lambda e: e.run(views=5),
        InvalidArgument,
        "buffers must be a sequence",
    ),
    ("run-zero-samples", lambda e: e.run(samples=0), InvalidArgument, "samples must be >= 1"),
    ("run-negative-warmups", lambda e: e.run(warmups=-1), InvalidArgument, "warmups must be >= 0"),
    (
        "run-workgroup-too-big",
        lambda e: e.run(schedule=Schedule((1 << 20, 1, 1))),
        UnsupportedFeature,
        "max_workgroup_size",
    ),
    ("run-schedule-string", lambda e: e.run(schedule="wg=64"), InvalidArgument, "Schedule"),
    ("run-kernel-string", lambda e: e.run(kernel="raw_affine"), InvalidArgument, "KernelSpec"),
    (
        "run-view-in-wrong-group",
        lambda e: e.run(_with(e.views, 1, e.ctx.allocate_transient(N * 4, 1, group=1, usage=RW))),
        InvalidArgument,
        "the view is at group 1 binding 1",
    ),
    (
        "run-stale-view",
        lambda e: e.run(_with(e.views, 0, e.stale_view())),
        AllocationError,
        "no longer live",
    ),
    (
        "run-foreign-view",
        lambda e: e.run(_with(e.views, 0, e.foreign_view())),
        AllocationError,
        "not allocated by this context",
    ),
    (
        "run-grid-four-values",
        lambda e: e.run(kernel=_kernel_variant(grid=lambda s, n: (4, 1, 1, 1))),
        InvalidArgument,
        "grid must give 1 to 3 workgroup counts (ints), got (4, 1, 1, 1)",
    ),
    (
        "run-grid-float",
        lambda e: e.run(kernel=_kernel_variant(grid=lambda s, n: (4.5, 1, 1))),
        InvalidArgument,
        "grid must give 1 to 3 workgroup counts (ints), got (4.5, 1, 1)",
    ),
    (
        "run-grid-none",
        lambda e: e.run(kernel=_kernel_variant(grid=lambda s, n: None)),
        InvalidArgument,
        "grid must give 1 to 3 workgroup counts (ints), got None",
    ),
    (
        "run-grid-negative",
        lambda e: e.run(kernel=_kernel_variant(grid=lambda s, n: (-1, 1, 1))),
        InvalidArgument,
        "asks for (-1, 1, 1) workgroups; each count must be >= 0",
    ),
    (
        "run-grid-raises",
        lambda e: e.run(kernel=_kernel_variant(grid=lambda s, n: 1 // 0)),
        InvalidArgument,
        "grid raised ZeroDivisionError",
    ),
    (
        "run-negative-count",
        lambda e: e.run(kernel=_counted_variant(lambda n: -n)),
        InvalidArgument,
        "count at size 256 is -256; it must be an int >= 0",
    ),
    (
        "run-float-count",
        lambda e: e.run(kernel=_counted_variant(lambda n: n / 2)),
        InvalidArgument,
        "count at size 256 is 128.0; it must be an int >= 0",
    ),
    (
        "run-count-raises",
        lambda e: e.run(kernel=_counted_variant(lambda n: [][n])),
        InvalidArgument,
        "count raised IndexError",
    ),
    (
        "uniform-duplicate-fields",
        lambda e: forge.BufferSpec.uniform(2, (("a", "f32"), ("a", "f32"), ("n", "u32"))),
        InvalidArgument,
        "struct fields ['a'] are declared twice",
    ),
    (
        "uniform-string-value",
        lambda e: e.kernel.pack_uniform(N, a="x"),
        InvalidArgument,
        "uniform field a cannot hold 'x'",
    ),
    (
        "uniform-complex-value",
        lambda e: e.kernel.pack_uniform(N, a=1 + 2j),
        InvalidArgument,
        "uniform field a cannot hold (1+2j)",
    ),
    (
        "uniform-negative-u32",
        lambda e: e.kernel.pack_uniform(N, n=-1),
        InvalidArgument,
        "uniform field n cannot hold -1",
    ),
    (
        "uniform-u32-past-its-range",
        lambda e: e.kernel.pack_uniform(N, n=2**40),
        InvalidArgument,
        "uniform field n cannot hold 1099511627776",
    ),
    (
        "uniform-nan-u32",
        lambda e: e.kernel.pack_uniform(N, n=float("nan")),
        InvalidArgument,
        "uniform field n cannot hold nan",
    ),
    (
        "uniform-params-raises",
        lambda e: _kernel_variant(params=lambda n: {"n": n // 0}).pack_uniform(N),
        InvalidArgument,
        "params raised ZeroDivisionError",
    ),
    (
        "uniform-params-not-a-mapping",
        lambda e: _kernel_variant(params=lambda n: n).pack_uniform(N),
        InvalidArgument,
        "params(size) must return a mapping",
    ),
    (
        "run-missing-feature",
        lambda e: e.run(kernel=_kernel_variant(requires={"no_such_feature"})),
        UnsupportedFeature,
        "no_such_feature",
    ),
    (
        "run-no-source-for-target",
        lambda e: e.run(kernel=_kernel_variant(sources={}, reference=None)),
        UnsupportedFeature,
        "kernel raw_affine_variant",
    ),
    # ring management
    (
        "restore-future-checkpoint",
        lambda e: e.ctx.restore_checkpoint(e.ctx.write_checkpoint() + 5),
        AllocationError,
        "cannot be restored",
    ),
    (
        "advance-outside-live-region",
        lambda e: e.ctx.advance_read_head(1 << 62),
        AllocationError,
        "outside slab",
    ),
    (
        "restore-float-checkpoint",
        lambda e: e.ctx.restore_checkpoint(float(e.ctx.write_checkpoint())),
        InvalidArgument,
        "checkpoint must be an int",
    ),
    (
        "restore-str-checkpoint",
        lambda e: e.ctx.restore_checkpoint("0"),
        InvalidArgument,
        "checkpoint must be an int",
    ),
    (
        "advance-float-offset",
        lambda e: e.ctx.advance_read_head(256.0),
        InvalidArgument,
        "offset must be an int",
    ),
    (
        "advance-str-slab",
        lambda e: e.ctx.advance_read_head(0, slab="0"),
        InvalidArgument,
        "slab must be an int",
    ),
    ("wait-float-fence", lambda e: e.ctx.wait(1.0), InvalidArgument, "fence must be an int"),
    # options
    (
        "timeout-string",
        lambda e: setattr(e.ctx, "timeout_s", "5"),
        InvalidArgument,
        "timeout_s must be None or a number",
    ),
    (
        "timeout-nan",
        lambda e: setattr(e.ctx, "timeout_s", float("nan")),
        InvalidArgument,
        "finite number of seconds > 0, got nan",
    ),
    (
        "timeout-negative",
        lambda e: setattr(e.ctx, "timeout_s", -1),
        InvalidArgument,
        "finite number of seconds > 0, got -1.0",
    ),
    (
        "timeout-zero",
        lambda e: setattr(e.ctx, "timeout_s", 0),
        InvalidArgument,
        "finite number of seconds > 0, got 0.0",
    ),
    (
        "timeout-bool",
        lambda e: setattr(e.ctx, "timeout_s", True),
        InvalidArgument,
        "got True (bool)",
    ),
]


def _released() -> memoryview:
    view = memoryview(b"12345678")
    view.release()
    return view


@pytest.fixture
def env(forge_context):
    ctx = forge_context
    kernel = forge.get_kernel("raw_affine")
    sentinel_bytes = np.random.default_rng(7).integers(0, 2**32, 1024, dtype=np.uint32)
    sentinel = ctx.allocate_and_write(sentinel_bytes, 5, usage=RW)
    x = np.arange(N, dtype=np.float32)
    views = [
        ctx.allocate_and_write(x, 0),
        ctx.allocate_transient(N * 4, 1, usage=RW),
        ctx.allocate_and_write(kernel.pack_uniform(N), 2, usage=UNIFORM),
    ]
    return Env(ctx, kernel, sentinel, sentinel_bytes, views)


def _still_healthy(env: Env) -> None:
    assert np.array_equal(env.ctx.read_buffer_u32(env.sentinel), env.sentinel_bytes), (
        "a bad call changed the bytes of an unrelated view"
    )
    env.ctx.write_view(env.views[1], np.zeros(N, np.float32))
    env.run()
    np.testing.assert_allclose(
        env.ctx.read_buffer_f32(env.views[1]), 2.0 * np.arange(N, dtype=np.float32) + 0.5, rtol=1e-7
    )


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


def test_a_released_view_never_reaches_the_live_view_that_reuses_its_position(env):
    ctx = env.ctx
    mark = ctx.write_checkpoint()
    stale = ctx.allocate_and_write(np.zeros(N, np.float32), 0)
    ctx.restore_checkpoint(mark)
    expected = np.arange(N, dtype=np.float32) * 3
    live = ctx.allocate_and_write(expected, 0)
    assert (live.slab, live.offset, live.length_bytes) == (
        stale.slab,
        stale.offset,
        stale.length_bytes,
    )
    refused = [
        lambda: ctx.write_view(stale, np.full(N, 7, np.float32)),
        lambda: ctx.read_buffer_f32(stale),
        lambda: env.run(_with(env.views, 0, stale)),
    ]
    for call in refused:
        with pytest.raises(AllocationError, match="no longer live"):
            call()
    np.testing.assert_array_equal(ctx.read_buffer_f32(live), expected)
    _still_healthy(env)


def test_a_misspelt_option_is_refused_naming_it(request, forge_backend_name):
    require_available(request.config, forge_backend_name)
    with pytest.raises(InvalidArgument, match="'capacity'") as info:
        forge.open_context(forge_backend_name, capacity=1 << 20)
    if forge_backend_name in ("reference", "wgpu", "cuda"):  # they list their options
        assert "capacity_bytes" in str(info.value)


# Backends that run a kernel's numpy reference as the kernel (the others run its source).
_HOST_BACKENDS = [name for name, entry in forge.backend_entries().items() if not entry.device_code]


@pytest.mark.parametrize("backend", _HOST_BACKENDS)
def test_an_error_in_the_kernels_own_reference_is_typed_and_names_it(backend):
    def broken(x, y, params):
        raise KeyError("missing")

    kernel = _kernel_variant(id="broken_reference", reference=broken)
    with forge.open_context(backend) as ctx:
        views = [
            ctx.allocate_and_write(np.ones(N, np.float32), 0),
            ctx.allocate_transient(N * 4, 1, usage=RW),
            ctx.allocate_and_write(kernel.pack_uniform(N), 2, usage=UNIFORM),
        ]
        with pytest.raises(ReferenceFailed, match=r"broken\) raised KeyError: 'missing'"):
            ctx.run_kernel(kernel, Schedule(64), views, N)
        ctx.run_kernel(forge.get_kernel("raw_affine"), Schedule(64), views, N)
        np.testing.assert_array_equal(ctx.read_buffer_f32(views[1]), np.full(N, 2.5, np.float32))
