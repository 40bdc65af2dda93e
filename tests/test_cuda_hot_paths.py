"""The CUDA backend's hot paths (PERFORMANCE.md P5, P7), on the simulated driver.

The launch path: libcuda's entry points through ctypes (``native``) and the
cuda.bindings fallback give the same results, per-sample times and typed errors (the
simulated driver hands out C function pointers into itself; on the GPU the whole
tests/test_cuda_context.py suite runs the native path). Staging: the copier's parts
and the upload pipeline deliver every byte in order.
"""

from __future__ import annotations

import numpy as np
import pytest

import forge
from forge import BindingUsage, DeviceLost, Schedule

from tests.test_cuda_fake_driver import fake_driver  # noqa: F401  (fixture)

AFFINE = forge.get_kernel("raw_affine")


@pytest.fixture(params=["native", "cuda.bindings"])
def path_ctx(request, fake_driver):  # noqa: F811
    from backends.cuda import CudaComputeContext

    fake_driver.native_entry_points = request.param == "native"
    ctx = CudaComputeContext(1 << 20)
    yield request.param, ctx, fake_driver
    ctx.close()
    assert not fake_driver.callback_errors, fake_driver.callback_errors


def _views(ctx, x, a=3.0, b=1.0):
    return [ctx.allocate_and_write(x, 0),
            ctx.allocate_transient(x.nbytes, 1, usage=BindingUsage.STORAGE_READ_WRITE),
            ctx.allocate_and_write(AFFINE.pack_uniform(x.size, a=a, b=b), 2,
                                   usage=BindingUsage.UNIFORM)]


def test_the_context_reports_the_launch_path_it_uses(path_ctx):
    path, ctx, _ = path_ctx
    assert ctx.launch_path == path


def test_run_kernel_computes_and_times_each_sample_on_both_paths(path_ctx):
    _, ctx, fake = path_ctx
    x = np.arange(100, dtype=np.float32)
    views = _views(ctx, x)
    before = fake.calls.get("cuLaunchKernel", 0)
    times = ctx.run_kernel(AFFINE, Schedule(64), views, x.size, warmups=3, samples=7)
    assert fake.calls["cuLaunchKernel"] - before == 10
    # The simulated clock advances 1000 ns + threads/64 per launch (2 blocks of 64).
    assert times == [1002] * 7
    np.testing.assert_array_equal(ctx.read_buffer_f32(views[1]), 3 * x + 1)


def test_dispatch_and_graph_replay_run_through_the_path(path_ctx):
    _, ctx, fake = path_ctx
    x = np.arange(10, dtype=np.float32)
    views = _views(ctx, x, a=2.0, b=0.0)
    ctx.dispatch(AFFINE, Schedule(64), views, x.size)
    ctx.begin_graph_capture()
    for _ in range(3):
        ctx.dispatch(AFFINE, Schedule(64), views, x.size)
    graph = ctx.end_graph_capture()
    ctx.launch_graph(graph)
    ctx.wait()
    assert fake.calls["cuGraphLaunch"] == 1
    assert graph.node_count == 3
    np.testing.assert_array_equal(ctx.read_buffer_f32(views[1]), 2 * x)


def test_a_failed_launch_is_a_typed_error_on_both_paths(path_ctx):
    _, ctx, fake = path_ctx
    x = np.ones(10, np.float32)
    views = _views(ctx, x)
    ctx.run_kernel(AFFINE, Schedule(64), views, x.size, samples=3)  # makes its events
    fake.fault()  # an illegal address: every later call fails with it
    with pytest.raises(DeviceLost, match="cuLaunchKernel.*CUDA_ERROR_ILLEGAL_ADDRESS"):
        ctx.run_kernel(AFFINE, Schedule(64), views, x.size, warmups=1, samples=3)
    assert ctx.lost


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
    with CudaComputeContext(64 << 20, staging_chunk_bytes=chunk, staging_buffers=3,
                            staging_threads=4) as ctx:
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


def test_staging_threads_must_be_positive(fake_driver):  # noqa: F811
    from backends.cuda import CudaComputeContext

    with pytest.raises(forge.InvalidArgument, match="staging_threads"):
        CudaComputeContext(1 << 20, staging_threads=0)
