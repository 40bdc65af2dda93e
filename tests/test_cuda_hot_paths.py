"""The CUDA backend's hot paths (docs/PERFORMANCE.md P5, P7).

Timed samples: the first time a launch is timed, its samples are direct launches; from
its second time on they are one replay of a cached CUDA graph of the same launches and
event records. Both give one real launch per sample, the same results, event-timed
samples and typed errors; the graph is reused while the launch's bytes are unchanged,
and dropped when its views are released, when it falls out of the cache, or when the
context closes. Staging: the copier's parts and the upload pipeline deliver every byte
in order.

Tests taking ``mode`` run on the simulated driver and on the real GPU (skipped with the
reason where there is none); on the GPU machine:

    pytest tests/test_cuda_hot_paths.py --require-backend cuda
"""

from __future__ import annotations

import numpy as np
import pytest

import forge
from forge import (
    BindingUsage,
    BufferSpec,
    DeviceLost,
    InvalidArgument,
    KernelSpec,
    Schedule,
    UnsupportedFeature,
)
from forge.kernel import Access
from tests.test_cuda_context import _affine_views, _assert_affine, mode, open_ctx  # noqa: F401
from tests.test_cuda_fake_driver import R, device_array, fake_driver, ptr, u32  # noqa: F401

AFFINE = forge.get_kernel("raw_affine")
RW = BindingUsage.STORAGE_READ_WRITE

# y += x: after k launches y holds k * x exactly (small integers), so the output counts
# the launches that really ran.
_ACCUMULATE_CUDA = """\
struct Params { unsigned int n; };
extern "C" __global__ void ${entry}(const float* x, float* y, const Params p) {
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p.n) y[i] += x[i];
}
"""
ACCUMULATE = KernelSpec(
    id="test_accumulate",
    entry_point="test_accumulate",
    buffers=(
        BufferSpec(0, "f32", Access.READ, name="x"),
        BufferSpec(1, "f32", Access.READ_WRITE, name="y"),
        BufferSpec.uniform(2, (("n", "u32"),)),
    ),
    sources={"cuda": _ACCUMULATE_CUDA},
    params=lambda size: {"n": size},
)


def _accumulate(args, grid, block):
    n = u32(args[2])
    device_array(ptr(args[1]), n, np.float32)[:] += device_array(ptr(args[0]), n, np.float32)


@pytest.fixture
def fake(mode, request):  # noqa: F811
    """The simulated driver with this file's kernel, or None on the GPU."""
    simulated = getattr(request.node, "fake", None)
    if simulated is not None:
        simulated.kernels["test_accumulate"] = (_accumulate, (8, 8, 4))
    return simulated


def _accumulate_views(ctx, x):
    return [
        ctx.allocate_and_write(x, 0),
        ctx.allocate_and_write(np.zeros_like(x), 1, usage=RW),
        ctx.allocate_and_write(ACCUMULATE.pack_uniform(x.size), 2, usage=BindingUsage.UNIFORM),
    ]


def _assert_samples(times, count):
    assert len(times) == count and all(isinstance(t, int) and t > 0 for t in times), times


def _live_graphs(ctx, fake) -> int:
    """Executable graphs alive: as the simulated driver counts them, else as the
    context holds them."""
    return len(fake.live_executables) if fake is not None else len(ctx._res.graphs)


# -- the timed-sample graph -------------------------------------------------------------
def test_the_launch_path_is_chosen_and_checked(fake, open_ctx):  # noqa: F811
    assert open_ctx().launch_path == "graph"
    assert open_ctx(launch_path="direct").launch_path == "direct"
    with pytest.raises(InvalidArgument, match="launch_path"):
        open_ctx(launch_path="native")


def test_a_repeated_run_replays_one_cached_graph(fake, open_ctx):  # noqa: F811
    ctx = open_ctx()
    x = np.arange(1000, dtype=np.float32)
    views = _affine_views(ctx, x, a=3.0, b=1.0)
    counts = []
    for _ in range(4):
        _assert_samples(
            ctx.run_kernel(AFFINE, Schedule(64), views, x.size, warmups=2, samples=9), 9
        )
        _assert_affine(ctx.read_buffer_f32(views[1]), x, 3.0, 1.0)
        counts.append((ctx.sample_graph_captures, ctx.sample_graph_replays))
    # First run direct; the second captures and replays; later ones only replay.
    assert counts == [(0, 0), (1, 1), (1, 2), (1, 3)]
    assert _live_graphs(ctx, fake) == 1
    if fake is not None:
        assert fake.calls["cuGraphInstantiate"] == 1 and fake.calls["cuGraphLaunch"] == 3


def test_every_sample_is_one_launch_on_either_path(fake, open_ctx):  # noqa: F811
    x = np.arange(1, 301, dtype=np.float32)
    outputs = {}
    for path in ("direct", "graph"):
        ctx = open_ctx(launch_path=path)
        views = _accumulate_views(ctx, x)
        for warmups, samples in ((1, 5), (0, 5), (3, 5), (2, 1)):
            _assert_samples(
                ctx.run_kernel(
                    ACCUMULATE, Schedule(64), views, x.size, warmups=warmups, samples=samples
                ),
                samples,
            )
        outputs[path] = ctx.read_buffer_f32(views[1])
        assert ctx.sample_graph_replays == (2 if path == "graph" else 0)
    # 22 launches in all: the graph replays ran exactly the samples asked for.
    np.testing.assert_array_equal(outputs["direct"], 22 * x)
    np.testing.assert_array_equal(outputs["graph"], outputs["direct"])


def test_graph_replays_compute_what_direct_launches_compute(fake, open_ctx):  # noqa: F811
    x = np.random.default_rng(5).standard_normal(5000).astype(np.float32)
    got = {}
    for path in ("direct", "graph"):
        ctx = open_ctx(launch_path=path)
        views = _affine_views(ctx, x, a=-1.25, b=0.75)
        for _ in range(3):
            ctx.run_kernel(AFFINE, Schedule(128), views, x.size, samples=4)
        got[path] = ctx.read_buffer_f32(views[1])
    np.testing.assert_array_equal(got["graph"], got["direct"])
    _assert_affine(got["graph"], x, -1.25, 0.75)


def _with_a_cached_graph(open_ctx, n: int, a: float):
    """A context, x and affine views computing a * x, whose 3-sample launch has been
    timed twice, so its graph is cached."""
    ctx = open_ctx()
    x = np.arange(n, dtype=np.float32)
    views = _affine_views(ctx, x, a=a, b=0.0)
    for _ in range(2):
        ctx.run_kernel(AFFINE, Schedule(64), views, x.size, samples=3)
    assert (ctx.sample_graph_captures, ctx.sample_graph_replays) == (1, 1)
    return ctx, x, views


def test_new_uniform_bytes_or_inputs_are_never_served_by_a_stale_graph(fake, open_ctx):  # noqa: F811
    ctx, x, views = _with_a_cached_graph(open_ctx, 256, a=2.0)
    # The uniform block goes by value: new bytes are a new launch, not the cached graph.
    ctx.write_view(views[2], AFFINE.pack_uniform(x.size, a=5.0, b=1.0))
    ctx.run_kernel(AFFINE, Schedule(64), views, x.size, samples=3)
    _assert_affine(ctx.read_buffer_f32(views[1]), x, 5.0, 1.0)
    assert ctx.sample_graph_replays == 1
    # Storage views go by address: a replay reads their current bytes.
    ctx.write_view(views[2], AFFINE.pack_uniform(x.size, a=2.0, b=0.0))
    ctx.write_view(views[0], -x)
    ctx.run_kernel(AFFINE, Schedule(64), views, x.size, samples=3)
    assert ctx.sample_graph_replays == 2
    _assert_affine(ctx.read_buffer_f32(views[1]), -x, 2.0, 0.0)


def test_released_views_take_their_graphs_with_them(fake, open_ctx):  # noqa: F811
    ctx = open_ctx()
    x = np.arange(512, dtype=np.float32)
    for round_ in range(2):
        views = _affine_views(ctx, x, a=1.0 + round_, b=0.0)
        for _ in range(3):
            ctx.run_kernel(AFFINE, Schedule(64), views, x.size, samples=2)
        _assert_affine(ctx.read_buffer_f32(views[1]), x, 1.0 + round_, 0.0)
        assert _live_graphs(ctx, fake) == 1
        ctx.clear_transient_allocations()
        assert _live_graphs(ctx, fake) == 0 and not ctx._timed
    assert ctx.sample_graph_captures == 2, "each round captured its own graph"


def test_the_cache_keeps_the_most_recently_timed_launches(fake, open_ctx, monkeypatch):  # noqa: F811
    from backends.cuda import _graphs

    monkeypatch.setattr(_graphs, "_TIMED_CACHE", 3)
    ctx = open_ctx()
    x = np.arange(64, dtype=np.float32)
    views = _affine_views(ctx, x, a=3.0, b=1.0)
    for samples in range(1, 6):  # five launches, each timed twice: five graphs built
        for _ in range(2):
            ctx.run_kernel(AFFINE, Schedule(64), views, x.size, samples=samples)
    assert ctx.sample_graph_captures == 5
    assert _live_graphs(ctx, fake) == 3 and len(ctx._timed) == 3
    ctx.run_kernel(AFFINE, Schedule(64), views, x.size, samples=5)  # still cached
    assert ctx.sample_graph_captures == 5 and ctx.sample_graph_replays == 6
    ctx.close()
    if fake is not None:
        assert not fake.live_executables, "closing the context destroys its graphs"


def test_long_runs_are_timed_in_chunks_of_one_graph(fake, open_ctx, monkeypatch):  # noqa: F811
    from backends.cuda import _context

    monkeypatch.setattr(_context, "_GRAPH_SAMPLES", 5)
    ctx = open_ctx()
    x = np.arange(1, 101, dtype=np.float32)
    views = _accumulate_views(ctx, x)
    # 12 samples = chunks of 5, 5, 2: the second chunk of 5 is already a repeat.
    _assert_samples(ctx.run_kernel(ACCUMULATE, Schedule(64), views, x.size, samples=12), 12)
    assert (ctx.sample_graph_captures, ctx.sample_graph_replays) == (1, 1)
    _assert_samples(ctx.run_kernel(ACCUMULATE, Schedule(64), views, x.size, samples=12), 12)
    assert (ctx.sample_graph_captures, ctx.sample_graph_replays) == (2, 4)
    assert len(ctx._timing_events) == 6, "chunks reuse one chunk's events"
    np.testing.assert_array_equal(ctx.read_buffer_f32(views[1]), 24 * x)


def test_run_kernel_in_a_user_capture_is_refused_and_the_cache_survives(fake, open_ctx):  # noqa: F811
    ctx, x, views = _with_a_cached_graph(open_ctx, 128, a=4.0)
    ctx.begin_graph_capture()
    with pytest.raises(InvalidArgument, match="graph capture"):
        ctx.run_kernel(AFFINE, Schedule(64), views, x.size, samples=3)
    ctx.dispatch(AFFINE, Schedule(64), views, x.size)
    graph = ctx.end_graph_capture()
    assert graph.node_count == 1, "run_kernel's refused call captured nothing"
    ctx.run_kernel(AFFINE, Schedule(64), views, x.size, samples=3)
    assert (ctx.sample_graph_captures, ctx.sample_graph_replays) == (1, 2)
    ctx.launch_graph(graph)
    _assert_affine(ctx.read_buffer_f32(views[1]), x, 4.0, 0.0)


# -- on the simulated driver only: what the driver sees -----------------------------------
@pytest.mark.parametrize("path", ["direct", "graph"])
def test_samples_are_timed_per_launch_by_events(fake_driver, path):  # noqa: F811
    from backends.cuda import CudaComputeContext

    with CudaComputeContext(1 << 20, launch_path=path) as ctx:
        x = np.arange(100, dtype=np.float32)
        views = _affine_views(ctx, x, a=3.0, b=1.0)
        launched = []
        for _ in range(3):
            before = fake_driver.calls.get("cuLaunchKernel", 0)
            times = ctx.run_kernel(AFFINE, Schedule(64), views, x.size, warmups=3, samples=7)
            launched.append(fake_driver.calls["cuLaunchKernel"] - before)
            # The simulated clock advances 1000 ns + threads/64 per launch (2 blocks of
            # 64), whether the launch is direct or a node of a replayed graph.
            assert times == [1002] * 7
        # Graph path: direct; 3 warm-ups + 7 launches captured, then replayed; warm-ups
        # and one replay.
        assert launched == ([10, 10, 10] if path == "direct" else [10, 10, 3])
        assert fake_driver.calls.get("cuGraphLaunch", 0) == (2 if path == "graph" else 0)
        assert fake_driver.calls["cuEventElapsedTime"] == 21


@pytest.mark.parametrize("path", ["direct", "graph"])
def test_each_sample_is_read_once_it_completes(fake_driver, path):  # noqa: F811
    """Samples still running read as not ready: the host waits for each one's end event
    and reads it, rather than waiting for the whole run before reading any."""
    from backends.cuda import CudaComputeContext

    fake_driver.lazy_events = True
    with CudaComputeContext(1 << 20, launch_path=path) as ctx:
        x = np.arange(100, dtype=np.float32)
        views = _affine_views(ctx, x, a=3.0, b=1.0)
        for _ in range(3):
            waits = fake_driver.calls.get("cuEventSynchronize", 0)
            assert ctx.run_kernel(AFFINE, Schedule(64), views, x.size, samples=6) == [1002] * 6
            assert fake_driver.calls["cuEventSynchronize"] - waits == 6
        _assert_affine(ctx.read_buffer_f32(views[1]), x, 3.0, 1.0)


def test_the_graph_holds_a_launch_and_an_event_record_node_per_sample(fake_driver):  # noqa: F811
    from backends.cuda import CudaComputeContext

    with CudaComputeContext(1 << 20) as ctx:
        x = np.arange(10, dtype=np.float32)
        views = _affine_views(ctx, x, a=3.0, b=1.0)
        for _ in range(2):
            ctx.run_kernel(AFFINE, Schedule(64), views, x.size, samples=4)
        (entry,) = ctx._timed.entries()
        nodes = entry.executable.nodes
        kinds = ["launch" if hasattr(n, "kernel") else n.kind for n in nodes]
        assert kinds == ["event"] + ["launch", "event"] * 4
        assert [n.id for n in nodes[::2]] == [int(e) for e in ctx._timing_events[:5]]


@pytest.mark.parametrize("path", ["direct", "graph"])
def test_a_failed_launch_is_a_typed_error(fake_driver, path):  # noqa: F811
    from backends.cuda import CudaComputeContext

    ctx = CudaComputeContext(1 << 20, launch_path=path)
    try:
        x = np.ones(10, np.float32)
        views = _affine_views(ctx, x, a=3.0, b=1.0)
        for _ in range(2):  # the graph path has its graph after two
            ctx.run_kernel(AFFINE, Schedule(64), views, x.size, samples=3)
        fake_driver.fault()  # an illegal address: every later call fails with it
        first_call = "cuGraphLaunch" if path == "graph" else "cuEventRecord"
        with pytest.raises(DeviceLost, match=f"{first_call}.*CUDA_ERROR_ILLEGAL_ADDRESS"):
            ctx.run_kernel(AFFINE, Schedule(64), views, x.size, samples=3)
        assert ctx.lost
        with pytest.raises(DeviceLost):
            ctx.run_kernel(AFFINE, Schedule(64), views, x.size, warmups=1, samples=3)
    finally:
        ctx.close()
    assert not fake_driver.live_executables


def test_a_failed_capture_ends_it_and_the_context_goes_on(fake_driver):  # noqa: F811
    from backends.cuda import CudaComputeContext

    record = fake_driver.cuEventRecordWithFlags

    def no_record_nodes(event, stream, flags, name="cuEventRecordWithFlags"):
        if int(flags):
            return (R.CUDA_ERROR_NOT_SUPPORTED,)
        return record(event, stream, flags, name)

    fake_driver.cuEventRecordWithFlags = no_record_nodes
    with CudaComputeContext(1 << 20) as ctx:
        x = np.arange(50, dtype=np.float32)
        views = _affine_views(ctx, x, a=2.0, b=1.0)
        ctx.run_kernel(AFFINE, Schedule(64), views, x.size, samples=2)
        with pytest.raises(UnsupportedFeature, match="cuEventRecord.*NOT_SUPPORTED"):
            ctx.run_kernel(AFFINE, Schedule(64), views, x.size, samples=2)
        assert fake_driver.capturing is None, "the failed capture was ended"
        assert not fake_driver.live_executables and ctx.sample_graph_captures == 0
        ctx.dispatch(AFFINE, Schedule(64), views, x.size)
        _assert_affine(ctx.read_buffer_f32(views[1]), x, 2.0, 1.0)
        ctx.begin_graph_capture()  # the stream is out of capture mode
        ctx.end_graph_capture().close()


def test_dispatch_and_graph_replay_run_through_the_driver(fake_driver):  # noqa: F811
    from backends.cuda import CudaComputeContext

    with CudaComputeContext(1 << 20) as ctx:
        x = np.arange(10, dtype=np.float32)
        views = _affine_views(ctx, x, a=2.0, b=0.0)
        ctx.dispatch(AFFINE, Schedule(64), views, x.size)
        ctx.begin_graph_capture()
        for _ in range(3):
            ctx.dispatch(AFFINE, Schedule(64), views, x.size)
        graph = ctx.end_graph_capture()
        ctx.launch_graph(graph)
        ctx.wait()
        assert fake_driver.calls["cuGraphLaunch"] == 1
        assert graph.node_count == 3
        np.testing.assert_array_equal(ctx.read_buffer_f32(views[1]), 2 * x)


# -- staging ----------------------------------------------------------------------------
@pytest.mark.parametrize("size", [1, 4 << 20, (4 << 20) + 1, (9 << 20) + 4097])
def test_the_copier_copies_every_byte_in_parts(size):
    from backends.cuda._memory import Copier

    copier = Copier(threads=3)
    try:
        src = np.random.default_rng(size).integers(0, 256, size, dtype=np.uint8)
        dst = np.zeros_like(src)
        futures = copier.start(dst, src)
        assert (len(futures) >= 2) == (size >= 4 << 20), "large copies go to the threads"
        for future in futures:
            future.result()
        np.testing.assert_array_equal(dst, src)
    finally:
        copier.close()


def test_a_pipelined_upload_sends_each_chunk_once_in_order(fake_driver):  # noqa: F811
    from backends.cuda import CudaComputeContext

    chunk = 4 << 20
    with CudaComputeContext(
        64 << 20, staging_chunk_bytes=chunk, staging_buffers=3, staging_threads=4
    ) as ctx:
        data = np.random.default_rng(7).integers(0, 2**32, (5 * chunk + 12) // 4, dtype=np.uint32)
        before = fake_driver.calls.get("cuMemcpyHtoDAsync", 0)
        view = ctx.allocate_and_write(data, 0)
        assert fake_driver.calls["cuMemcpyHtoDAsync"] - before == 6  # 5 chunks + the tail
        assert len(ctx._res.staging._buffers) <= 3
        assert not any(b.held for b in ctx._res.staging._buffers), "a buffer stayed held"
        np.testing.assert_array_equal(ctx.read_buffer_u32(view), data)
        ctx.write_view_prefetch(view, data[::-1].copy())
        ctx.join_prefetch()
        np.testing.assert_array_equal(ctx.read_buffer_u32(view), data[::-1])


def test_bad_staging_settings_are_refused_saying_what_was_given(fake_driver):  # noqa: F811
    from backends.cuda import CudaComputeContext

    with pytest.raises(forge.InvalidArgument, match="staging_threads"):
        CudaComputeContext(1 << 20, staging_threads=0)
    with pytest.raises(forge.InvalidArgument, match="staging_buffers=1 of"):
        CudaComputeContext(1 << 20, staging_buffers=1)
    with pytest.raises(forge.InvalidArgument, match="staging_chunk_bytes=1024"):
        CudaComputeContext(1 << 20, staging_chunk_bytes=1024)
