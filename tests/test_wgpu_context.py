"""What the wgpu backend adds to the shared contract: usage-split slabs, identity and
limits read from the real adapter, raw WGSL kernels end to end, the pipeline cache,
GPU timestamps and the forced host-clock fallback, readback without new arrays, and
f64. Real runs on the adapter wgpu finds (lavapipe in CI)."""

from __future__ import annotations

import time

import numpy as np
import pytest

import forge
from forge import Access, BindingUsage, BufferSpec, KernelSpec, MemoryTopology, Schedule
from oracle.pytest_plugin import require_available

READ = BindingUsage.STORAGE_READ
RW = BindingUsage.STORAGE_READ_WRITE
UNIFORM = BindingUsage.UNIFORM
RESIDENT = BindingUsage.STORAGE_READ_RESIDENT

# Every kind of binding in one dispatch: read-only x, resident r, uniform p, and two
# read-write outputs (two of them, in a second bind group).
_MIXED_WGSL = """\
struct Params { a: f32, n: u32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> r: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;
@group(1) @binding(0) var<storage, read_write> z: array<f32>;
@group(1) @binding(1) var<storage, read_write> w: array<f32>;

@compute @workgroup_size(${wg_x})
fn ${entry}(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
            @builtin(local_invocation_index) lid: u32) {
    let i = (wg.y * groups.x + wg.x) * ${wg_x}u + lid;
    if (i < p.n) {
        z[i] = p.a * x[i] + r[i];
        w[i] = x[i] - r[i];
    }
}
"""


def _mixed_reference(x, r, p, z, w):
    z[:] = np.float32(p["a"]) * x + r
    w[:] = x - r


MIXED = KernelSpec(
    id="test_wgpu_mixed",
    entry_point="mixed",
    sources={"wgsl": _MIXED_WGSL},
    reference=_mixed_reference,
    params=lambda n: {"n": n},
    defaults={"a": 3.0},
    buffers=(
        BufferSpec(0, "f32", Access.READ, name="x"),
        BufferSpec(1, "f32", Access.READ, name="r"),
        BufferSpec.uniform(2, (("a", "f32"), ("n", "u32"))),
        BufferSpec(0, "f32", Access.READ_WRITE, group=1, name="z"),
        BufferSpec(1, "f32", Access.READ_WRITE, group=1, name="w"),
    ),
)

# A raw kernel the IR could not express: one workgroup per row, a tree reduction in
# workgroup memory.
_ROW_SUM_WGSL = """\
struct Params { rows: u32, cols: u32 }
@group(0) @binding(0) var<storage, read> m: array<f32>;
@group(0) @binding(1) var<storage, read_write> sums: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;
var<workgroup> part: array<f32, ${wg_x}>;

@compute @workgroup_size(${wg_x})
fn ${entry}(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let row = wg.x;
    var acc = 0.0;
    for (var c = lid; c < p.cols; c += ${wg_x}u) {
        acc += m[row * p.cols + c];
    }
    part[lid] = acc;
    workgroupBarrier();
    for (var stride = ${wg_x}u / 2u; stride > 0u; stride /= 2u) {
        if (lid < stride) { part[lid] += part[lid + stride]; }
        workgroupBarrier();
    }
    if (lid == 0u && row < p.rows) { sums[row] = part[0]; }
}
"""
_COLS = 300


def _row_sum_reference(m, sums, p):
    sums[:] = m.reshape(int(p["rows"]), int(p["cols"])).sum(axis=1, dtype=np.float64)


ROW_SUM = KernelSpec(
    id="test_wgpu_row_sum",
    entry_point="row_sum",
    sources={"wgsl": _ROW_SUM_WGSL},
    reference=_row_sum_reference,
    params=lambda rows: {"rows": rows, "cols": _COLS},
    grid=lambda schedule, rows: (rows, 1, 1),
    buffers=(
        BufferSpec(0, "f32", Access.READ, name="m", count=lambda rows: rows * _COLS),
        BufferSpec(1, "f32", Access.READ_WRITE, name="sums"),
        BufferSpec.uniform(2, (("rows", "u32"), ("cols", "u32"))),
    ),
)

# Busy work whose length the uniform sets: for comparing device and host clocks.
_SPIN_WGSL = """\
struct Params { n: u32, iterations: u32 }
@group(0) @binding(0) var<storage, read_write> y: array<f32>;
@group(0) @binding(1) var<uniform> p: Params;

@compute @workgroup_size(64)
fn ${entry}(@builtin(global_invocation_id) g: vec3<u32>) {
    var acc = f32(g.x);
    for (var i = 0u; i < p.iterations; i++) { acc = acc * 0.999 + 1.0; }
    if (g.x < p.n) { y[g.x] = acc; }
}
"""
SPIN = KernelSpec(
    id="test_wgpu_spin",
    entry_point="spin",
    sources={"wgsl": _SPIN_WGSL},
    params=lambda n: {"n": n},
    buffers=(
        BufferSpec(0, "f32", Access.READ_WRITE, name="y"),
        BufferSpec.uniform(1, (("n", "u32"), ("iterations", "u32"))),
    ),
)

_F64_WGSL = """\
@group(0) @binding(0) var<storage, read> x: array<f64>;
@group(0) @binding(1) var<storage, read_write> y: array<f64>;

@compute @workgroup_size(64)
fn ${entry}(@builtin(global_invocation_id) g: vec3<u32>) {
    if (g.x < arrayLength(&y)) { y[g.x] = x[g.x] * x[g.x] + f64(1.0) / f64(3.0); }
}
"""
F64_SQUARE = KernelSpec(
    id="test_wgpu_f64",
    entry_point="f64_square",
    sources={"wgsl": _F64_WGSL},
    requires={"f64"},
    buffers=(
        BufferSpec(0, "f64", Access.READ, name="x"),
        BufferSpec(1, "f64", Access.READ_WRITE, name="y"),
    ),
)


@pytest.fixture
def ctx(request):
    require_available(request.config, "wgpu")
    context = forge.open_context("wgpu")
    try:
        yield context
    finally:
        context.close()


def _run_reference(kernel, inputs, n, **uniform):
    """The kernel's numpy meaning over copies of ``inputs`` (uniform packed in)."""
    arrays = []
    for spec in kernel.buffers:
        if spec.access is Access.UNIFORM:
            arrays.append(kernel.pack_uniform(n, **uniform)[0])
        elif spec.access is Access.READ:
            arrays.append(inputs[spec.name].copy())
        else:
            arrays.append(np.zeros(spec.element_count(n), spec.dtype))
    kernel.run_reference(arrays)
    return {
        spec.name: a for spec, a in zip(kernel.buffers, arrays) if spec.access is Access.READ_WRITE
    }


# -- usage -----------------------------------------------------------------------------


def test_read_only_read_write_and_resident_views_live_in_different_gpu_buffers(ctx):
    views = {usage: ctx.allocate_transient(64, 0, usage=usage) for usage in BindingUsage}
    assert views[READ].slab == views[UNIFORM].slab
    assert len({views[READ].slab, views[RW].slab, views[RESIDENT].slab}) == 3
    buffers = {usage: ctx.slab_buffer(view.slab) for usage, view in views.items()}
    assert buffers[READ] is buffers[UNIFORM]
    assert len({id(buffers[u]) for u in (READ, RW, RESIDENT)}) == 3
    import wgpu

    assert buffers[UNIFORM].usage & wgpu.BufferUsage.UNIFORM
    assert not buffers[RW].usage & wgpu.BufferUsage.UNIFORM


def test_resident_views_survive_clear_until_clear_resident(ctx):
    table = np.arange(1000, dtype=np.float32) * 3
    resident = ctx.allocate_and_write(table, 1, usage=RESIDENT)
    transient = ctx.allocate_and_write(np.ones(16, np.float32), 0)
    ctx.clear_transient_allocations()
    np.testing.assert_array_equal(ctx.read_buffer_f32(resident), table)
    with pytest.raises(forge.AllocationError, match="no longer live"):
        ctx.read_buffer_f32(transient)
    again = ctx.allocate_and_write(np.ones(16, np.float32), 0)
    assert ctx.read_buffer_f32(again).tolist() == [1.0] * 16
    ctx.clear_resident()
    with pytest.raises(forge.AllocationError, match="no longer live"):
        ctx.read_buffer_f32(resident)
    reused = ctx.allocate_and_write(np.full(4, 9, np.float32), 1, usage=RESIDENT)
    assert ctx.read_buffer_f32(reused).tolist() == [9.0] * 4
    # The rest was freed: all that is in use is the new view and the padding that
    # aligns its start.
    used = ctx.allocator.used_bytes(reused.slab)
    assert reused.length_bytes <= used < reused.length_bytes + ctx.allocator.alignment


def test_allocator_alignment_is_the_devices_offset_alignment(ctx):
    limits = ctx.device.limits
    want = max(
        limits["min-storage-buffer-offset-alignment"], limits["min-uniform-buffer-offset-alignment"]
    )
    assert ctx.allocator.alignment == want
    offsets = [
        ctx.allocate_transient(size, 0, usage=usage).offset
        for usage in BindingUsage
        for size in (1, 5, 33)
    ]
    assert all(offset % want == 0 for offset in offsets)


def test_one_dispatch_binds_read_only_resident_uniform_and_two_read_write_views(ctx):
    n = 5000
    rng = np.random.default_rng(3)
    x = rng.standard_normal(n).astype(np.float32)
    r = rng.standard_normal(n).astype(np.float32)
    views = [
        ctx.allocate_and_write(x, 0),
        ctx.allocate_and_write(r, 1, usage=RESIDENT),
        ctx.allocate_and_write(MIXED.pack_uniform(n, a=-2.0), 2, usage=UNIFORM),
        ctx.allocate_transient(n * 4, 0, group=1, usage=RW),
        ctx.allocate_transient(n * 4, 1, group=1, usage=RW),
    ]
    ctx.run_kernel(MIXED, Schedule(128), views, n)
    want = _run_reference(MIXED, {"x": x, "r": r}, n, a=-2.0)
    np.testing.assert_allclose(ctx.read_buffer_f32(views[3]), want["z"], rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(ctx.read_buffer_f32(views[4]), want["w"])
    np.testing.assert_array_equal(ctx.read_buffer_f32(views[0]), x)  # inputs unmodified


# -- kernels -----------------------------------------------------------------------


def test_raw_wgsl_row_sum_matches_its_numpy_reference(ctx):
    rows = 77
    m = np.random.default_rng(5).uniform(-1, 1, rows * _COLS).astype(np.float32)
    views = [
        ctx.allocate_and_write(m, 0),
        ctx.allocate_transient(rows * 4, 1, usage=RW),
        ctx.allocate_and_write(ROW_SUM.pack_uniform(rows), 2, usage=UNIFORM),
    ]
    times = ctx.run_kernel(ROW_SUM, Schedule(64), views, rows, warmups=1, samples=2)
    assert len(times) == 2
    want = _run_reference(ROW_SUM, {"m": m}, rows)["sums"]
    np.testing.assert_allclose(ctx.read_buffer_f32(views[1]), want, rtol=1e-5, atol=1e-5)


def test_the_pipeline_cache_compiles_each_source_once(ctx):
    rows = 4
    m = np.ones(rows * _COLS, np.float32)
    views = [
        ctx.allocate_and_write(m, 0),
        ctx.allocate_transient(rows * 4, 1, usage=RW),
        ctx.allocate_and_write(ROW_SUM.pack_uniform(rows), 2, usage=UNIFORM),
    ]
    before = ctx.compile_count
    ctx.run_kernel(ROW_SUM, Schedule(64), views, rows)
    assert ctx.compile_count == before + 1
    ctx.run_kernel(ROW_SUM, Schedule(64), views, rows, warmups=2, samples=3)
    ctx.wait(ctx.dispatch(ROW_SUM, Schedule(64), views, rows))
    assert ctx.compile_count == before + 1
    ctx.run_kernel(ROW_SUM, Schedule(128), views, rows)  # new source text: one compile
    assert ctx.compile_count == before + 2
    assert ctx.read_buffer_f32(views[1]).tolist() == [float(_COLS)] * rows


def test_a_repeated_run_does_not_make_its_source_again_and_a_copy_shares_the_pipeline(
    ctx, monkeypatch
):
    from dataclasses import replace

    rows = 4
    views = [
        ctx.allocate_and_write(np.ones(rows * _COLS, np.float32), 0),
        ctx.allocate_transient(rows * 4, 1, usage=RW),
        ctx.allocate_and_write(ROW_SUM.pack_uniform(rows), 2, usage=UNIFORM),
    ]
    made = []
    source = ctx.kernel_source
    monkeypatch.setattr(ctx, "kernel_source", lambda *a: made.append(a) or source(*a))
    before = ctx.compile_count
    for _ in range(3):
        ctx.run_kernel(ROW_SUM, Schedule(64), views, rows)
    assert len(made) == 1 and ctx.compile_count == before + 1
    copy = replace(ROW_SUM)  # another object, the same source: the same pipeline
    ctx.run_kernel(copy, Schedule(64), views, rows)
    assert len(made) == 2 and ctx.compile_count == before + 1
    assert ctx.read_buffer_f32(views[1]).tolist() == [float(_COLS)] * rows


def test_dispatch_fences_complete_in_order_and_wait_needs_a_real_fence(ctx):
    n = 2048
    y = ctx.allocate_transient(n * 4, 0, usage=RW)
    fences = []
    for iterations in (10, 20, 30):
        u = ctx.allocate_and_write(SPIN.pack_uniform(n, iterations=iterations), 1, usage=UNIFORM)
        fences.append(ctx.dispatch(SPIN, Schedule(64), [y, u], n))
    assert fences == sorted(fences) and len(set(fences)) == 3
    ctx.wait(fences[0])
    ctx.wait(fences[-1])
    want = np.arange(n, dtype=np.float32)
    for _ in range(30):
        want = want * np.float32(0.999) + np.float32(1.0)
    np.testing.assert_allclose(ctx.read_buffer_f32(y), want, rtol=1e-5)
    with pytest.raises(forge.InvalidArgument, match="never handed out"):
        ctx.wait(fences[-1] + 100)


# -- timing ----------------------------------------------------------------------------


def _spin_views(ctx, n, iterations):
    return [
        ctx.allocate_transient(n * 4, 0, usage=RW),
        ctx.allocate_and_write(SPIN.pack_uniform(n, iterations=iterations), 1, usage=UNIFORM),
    ]


def _require_timestamps(ctx):
    if "timestamp-query" not in ctx.device.adapter.features:
        pytest.skip(f"{ctx.adapter.name} offers no timestamp-query")


def test_samples_are_timed_with_gpu_timestamps_when_offered(ctx):
    _require_timestamps(ctx)
    assert ctx.timing_source == "gpu-timestamp" and ctx.timestamp_supported
    assert ctx.constraints.timestamp_query and ctx.timestamp_period_ns > 0
    views = _spin_views(ctx, 4096, 100)
    times = ctx.run_kernel(SPIN, Schedule(64), views, 4096, warmups=3, samples=5)
    assert len(times) == 5 and all(isinstance(t, int) and t > 0 for t in times)


def test_more_samples_than_one_readback_batch_all_come_back(ctx):
    _require_timestamps(ctx)
    from backends.wgpu import _context

    samples = _context._MAX_BATCH + _context._SUBMIT_EVERY + 3
    views = _spin_views(ctx, 64, 1)
    times = ctx.run_kernel(SPIN, Schedule(64), views, 64, warmups=2, samples=samples)
    assert len(times) == samples and min(times) > 0


def test_timestamps_of_a_long_kernel_agree_with_the_host_clock(ctx):
    _require_timestamps(ctx)
    n, samples = 1 << 14, 3
    views = _spin_views(ctx, n, 1)
    ctx.run_kernel(SPIN, Schedule(64), views, n)  # compile outside the measurement
    iterations = 1 << 10
    while True:  # grow the kernel until one run is long next to host overheads (>= 20 ms)
        views = _spin_views(ctx, n, iterations)
        start = time.perf_counter_ns()
        times = ctx.run_kernel(SPIN, Schedule(64), views, n, samples=samples)
        host = time.perf_counter_ns() - start
        if min(times) >= 20_000_000 or iterations >= 1 << 26:
            break
        iterations *= 4
    # The device cannot have run longer than the host waited for it, and a kernel this
    # long dominates the host's wait: a wrong tick scale would miss both by far.
    assert sum(times) <= host
    assert sum(times) >= 0.5 * host, (times, host)


def test_ticks_are_scaled_by_the_timestamp_period(ctx, monkeypatch):
    monkeypatch.setattr(ctx, "_period_ns", 2.5)  # e.g. a 400 MHz timer
    ticks = np.array([100, 104, 7, 7, 2**40, 2**40 + 1000], np.uint64)
    assert ctx._ticks_to_ns(ticks) == [10, 2, 2500]  # an empty pass reads as one tick
    with pytest.raises(forge.GpuValidation, match="backwards"):
        ctx._ticks_to_ns(np.array([10, 9], np.uint64))


def test_forced_host_clock_fallback_says_so_and_still_times(request):
    require_available(request.config, "wgpu")
    with forge.open_context("wgpu", timestamps=False) as ctx:
        assert ctx.timing_source == "host-wall-clock" and not ctx.timestamp_supported
        assert not ctx.constraints.timestamp_query
        assert "timestamp-query" not in ctx.device.features
        n = 1000
        kernel = forge.get_kernel("raw_affine")
        x = np.arange(n, dtype=np.float32)
        views = [
            ctx.allocate_and_write(x, 0),
            ctx.allocate_transient(n * 4, 1, usage=RW),
            ctx.allocate_and_write(kernel.pack_uniform(n, a=3.0, b=1.0), 2, usage=UNIFORM),
        ]
        times = ctx.run_kernel(kernel, Schedule(64), views, n, warmups=2, samples=4)
        assert len(times) == 4 and all(isinstance(t, int) and t > 0 for t in times)
        np.testing.assert_array_equal(ctx.read_buffer_f32(views[1]), 3 * x + 1)


# -- identity --------------------------------------------------------------------------


def test_identity_and_constraints_come_from_the_real_adapter(ctx):
    adapter, device = ctx.device.adapter, ctx.device
    info = adapter.info
    assert ctx.adapter.name == info["device"] and ctx.adapter.backend == info["backend_type"]
    assert ctx.adapter.vendor_id == info["vendor_id"]
    assert ctx.adapter.device_type == info["adapter_type"]
    c = ctx.constraints
    for limit, value in [
        ("max-storage-buffer-binding-size", c.max_storage_binding_size),
        ("max-buffer-size", c.max_buffer_size),
        ("max-compute-workgroup-storage-size", c.max_workgroup_storage_bytes),
        ("max-compute-invocations-per-workgroup", c.max_invocations_per_workgroup),
        ("max-uniform-buffer-binding-size", c.max_uniform_binding_size),
    ]:
        assert value == device.limits[limit] == adapter.limits[limit], limit  # all granted
    offered = set(adapter.features)
    for feature, flag in [
        ("shader-f16", c.shader_f16),
        ("shader-f64", c.shader_f64),
        ("subgroup", c.subgroups),
        ("timestamp-query", c.timestamp_query),
    ]:
        assert flag == (feature in offered) == (feature in device.features), feature
    # Experimental in wgpu-native 0.32: never requested, so never usable here.
    assert not c.cooperative_matrix and "cooperative-matrix" not in device.features


def test_an_adapter_can_be_chosen_by_index_and_a_bad_index_lists_them(request):
    require_available(request.config, "wgpu")
    with forge.open_context("wgpu", adapter_index=0) as ctx:
        view = ctx.allocate_and_write(np.arange(8, dtype=np.float32), 0)
        assert ctx.read_buffer_f32(view).tolist() == list(range(8))
    with pytest.raises(forge.GpuUnavailable, match="0: "):
        forge.open_context("wgpu", adapter_index=10_000)
    with pytest.raises(forge.InvalidArgument, match="power_preference"):
        forge.open_context("wgpu", power_preference="fast")


# -- bytes -----------------------------------------------------------------------------


def test_reads_larger_than_the_staging_buffer_come_back_whole(ctx, monkeypatch):
    from backends.wgpu import _context

    monkeypatch.setattr(_context, "_STAGING_CAP", 4096)
    data = np.random.default_rng(1).integers(0, 256, 10_001, dtype=np.uint8)
    view = ctx.allocate_and_write(data, 0)
    out = np.zeros(2500, np.uint32)
    ctx.read_buffer_u32_into(view, out)
    np.testing.assert_array_equal(out.view(np.uint8), data[:10_000])


def test_odd_length_writes_keep_the_rest_of_the_view(ctx):
    view = ctx.allocate_and_write(np.arange(16, dtype=np.uint8), 0)
    ctx.write_view(view, b"\xff\xfe\xfd\xfc\xfb")
    got = ctx.read_buffer_u32(view).view(np.uint8)
    assert got.tolist() == [255, 254, 253, 252, 251] + list(range(5, 16))
    odd = ctx.allocate_and_write(b"abcdefg", 0)
    word = np.zeros(1, np.uint32)
    ctx.read_buffer_u32_into(odd, word)
    assert word.view(np.uint8).tobytes() == b"abcd"


def test_a_binding_as_large_as_the_device_allows_runs(request):
    require_available(request.config, "wgpu")
    n = 32 << 20  # 128 MiB of f32: WebGPU's default binding cap, which must not apply
    with forge.open_context("wgpu", capacity_bytes=5 * n * 4 // 2 + (1 << 20)) as ctx:
        if ctx.constraints.max_storage_binding_size < n * 4:
            pytest.skip(
                f"{ctx.adapter.name} binds at most {ctx.constraints.max_storage_binding_size} bytes"
            )
        kernel = forge.get_kernel("raw_affine")
        x = np.full(n, 2.0, np.float32)
        x[-1] = 5.0
        views = [
            ctx.allocate_and_write(x, 0),
            ctx.allocate_transient(n * 4, 1, usage=RW),
            ctx.allocate_and_write(kernel.pack_uniform(n), 2, usage=UNIFORM),
        ]
        ctx.run_kernel(kernel, Schedule(256, items_per_invocation=4), views, n)
        out = ctx.read_buffer_f32(views[1])
        assert out[0] == 4.5 and out[-1] == 10.5 and np.count_nonzero(out == 4.5) == n - 1


# -- f64 -------------------------------------------------------------------------------


def test_f64_kernel_uses_shader_f64_where_offered(ctx):
    if not ctx.constraints.shader_f64:
        pytest.skip(f"{ctx.adapter.name} does not offer shader-f64")
    assert "shader-f64" in ctx.device.features
    x = np.linspace(-2, 2, 1001)
    views = [ctx.allocate_and_write(x, 0), ctx.allocate_transient(x.nbytes, 1, usage=RW)]
    ctx.run_kernel(F64_SQUARE, Schedule(64), views, x.size)
    got = ctx.read_buffer_f64(views[1])
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, x * x + 1.0 / 3.0, rtol=1e-15, atol=1e-15)
    assert abs(got[500] - 1.0 / 3.0) < 1e-15  # beyond f32 precision


def test_unified_topology_is_possible_but_wgpu_forbids_mixed_usage_of_one_buffer(request):
    require_available(request.config, "wgpu")
    with forge.open_context("wgpu", topology=MemoryTopology.unified()) as ctx:
        n = 64
        kernel = forge.get_kernel("raw_affine")
        views = [
            ctx.allocate_and_write(np.ones(n, np.float32), 0),
            ctx.allocate_transient(n * 4, 1, usage=RW),
            ctx.allocate_and_write(kernel.pack_uniform(n), 2, usage=UNIFORM),
        ]
        with pytest.raises(forge.GpuValidation, match="conflicting usages"):
            ctx.run_kernel(kernel, Schedule(64), views, n)
        ctx.write_view(views[0], np.full(n, 2.0, np.float32))  # still usable
        assert ctx.read_buffer_f32(views[0]).tolist() == [2.0] * n
