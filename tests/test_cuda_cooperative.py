"""A kernel that waits for its whole grid (cooperative groups' ``grid.sync()``) is
launched cooperatively (round 23 gap 5): launched with ``cuLaunchKernel``, its
``grid_group`` has no workspace, ``sync()`` traps and the context is lost. The backend
finds the grid sync in the source, launches such a kernel with
``cuLaunchCooperativeKernel``, and first checks that the grid fits on the device all at
once (``cuOccupancyMaxActiveBlocksPerMultiprocessor`` x SMs), refusing one that does
not with the largest grid that does.

Detection and the launch path run here on the simulated driver; the last test runs the
round's grid-sync sum on a real GPU (``--require-backend cuda``), which no machine
without one can prove."""

from __future__ import annotations

import dataclasses
import gc

import numpy as np
import pytest

import oracle
from forge import BindingUsage, Schedule, UnsupportedFeature, sources
from oracle.pytest_plugin import require_available
from tests.test_cuda_fake_driver import OK, device_array, install, ptr, real, u32
from tests.wild.round23 import GRID_SYNC_SUM

# -- detection -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "body, expected",
    [
        ("cg::grid_group grid = cg::this_grid(); grid.sync();", True),
        ("auto g = cooperative_groups::this_grid(); g.sync();", True),
        ("cg::this_grid().sync();", True),
        ("cg::grid_group grid = cg::this_grid(); cg::sync(grid);", True),
        ("auto block = cg::this_thread_block(); block.sync();", False),
        ("cg::grid_group grid = cg::this_grid(); if (grid.thread_rank() == 0) {}", False),
        ("__syncthreads();", False),
    ],
)
def test_a_grid_sync_is_found_in_the_kernels_body(body, expected):
    source = (
        "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
        f"__global__ void k(float* x) {{ {body} }}"
    )
    assert sources.cuda_grid_sync(source, "k") is expected


def test_a_grid_sync_in_a_helper_counts_and_one_in_another_kernel_does_not():
    helper = """
__device__ void barrier(cg::grid_group& g) { g.sync(); }
__global__ void a(float* x) { barrier(cg::this_grid()); }
__global__ void b(float* x) { }
"""
    assert sources.cuda_grid_sync(helper, "a") and sources.cuda_grid_sync(helper, "b")
    two = """
__global__ void a(float* x) { cg::this_grid().sync(); }
__global__ void b(float* x) { }
"""
    assert sources.cuda_grid_sync(two, "a") and not sources.cuda_grid_sync(two, "b<float>")


def test_the_rounds_grid_sync_sum_is_found():
    kernel = GRID_SYNC_SUM.kernel
    assert sources.cuda_grid_sync(kernel.sources["cuda"], kernel.entry_point)


# -- the launch, on the simulated driver ----------------------------------------------


@pytest.fixture
def cooperative_driver(monkeypatch, tmp_path):
    """The simulated driver, with a cooperative launch and an occupancy query: 4
    blocks of 256 threads per SM (132 SMs), and a model of the grid-sync sum."""
    from backends.cuda import _driver

    monkeypatch.setenv("FORGE_CACHE_DIR", str(tmp_path / "cache"))
    gc.collect()
    fake = install(monkeypatch)
    fake.cooperative_launches = 0
    fake.per_sm = 4

    def grid_sum(args, grid, block):
        n = u32(args[3])
        x = device_array(ptr(args[0]), n, np.float32)
        device_array(ptr(args[2]), 1, np.float32)[0] = np.float32(x.sum(dtype=np.float64))

    fake.kernels["grid_sum"] = (grid_sum, (8, 8, 8, 4))

    plain = fake.cuLaunchKernel
    fake.plain_launches = []

    def cuLaunchKernel(function, *args):
        fake.plain_launches.append(function.name)
        return plain(function, *args)

    def cuLaunchCooperativeKernel(function, gx, gy, gz, bx, by, bz, shared, stream, params):
        fake.cooperative_launches += 1
        if gx * gy * gz > fake.per_sm * 132:
            return (real.CUresult.CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE,)
        return plain(function, gx, gy, gz, bx, by, bz, shared, stream, params, 0)

    def cuOccupancyMaxActiveBlocksPerMultiprocessor(function, threads, shared):
        return (OK, fake.per_sm)

    fake.cuLaunchKernel = cuLaunchKernel
    fake.cuLaunchCooperativeKernel = cuLaunchCooperativeKernel
    fake.cuOccupancyMaxActiveBlocksPerMultiprocessor = cuOccupancyMaxActiveBlocksPerMultiprocessor
    yield fake
    gc.collect()
    _driver.default_arch.cache_clear()


def _run(kernel, n: int = 4096, timed: bool = False):
    from backends.cuda import CudaComputeContext

    with CudaComputeContext(1 << 22) as ctx:
        x = np.linspace(-1, 1, n, dtype=np.float32)
        rw = BindingUsage.STORAGE_READ_WRITE
        views = [
            ctx.allocate_and_write(x, 0),
            ctx.allocate_transient(4 * 1024, 1, usage=rw),
            ctx.allocate_transient(4, 2, usage=rw),
        ]
        ctx.run_kernel(kernel, Schedule(256), views, n)
        if timed:  # timed twice: the second time would replay a graph of the samples
            for _ in range(2):
                ctx.run_kernel(kernel, Schedule(256), views, n, warmups=1, samples=3)
            assert ctx.sample_graph_replays == 0 and ctx.sample_graph_captures == 0
        return float(ctx.read_buffer_f32(views[2])[0]), float(x.sum(dtype=np.float64))


def test_a_grid_sync_kernel_is_launched_cooperatively(cooperative_driver):
    fake = cooperative_driver
    got, want = _run(GRID_SYNC_SUM.kernel)
    assert fake.cooperative_launches == 1 and "grid_sum" not in fake.plain_launches
    assert got == pytest.approx(want, abs=1e-3)


def test_timed_samples_of_a_grid_sync_kernel_are_cooperative_launches_too(cooperative_driver):
    """Warm-ups and samples go through the same launch; a cooperative launch is timed
    directly, never captured into the samples' graph."""
    fake = cooperative_driver
    got, want = _run(GRID_SYNC_SUM.kernel, timed=True)
    assert fake.cooperative_launches == 1 + 2 * (1 + 3)
    assert "grid_sum" not in fake.plain_launches and got == pytest.approx(want, abs=1e-3)


def test_a_grid_too_large_to_be_resident_is_refused_with_the_largest_that_fits(
    cooperative_driver,
):
    fake = cooperative_driver
    fake.per_sm = 0  # say, a block too large for an SM to hold with its registers
    with pytest.raises(UnsupportedFeature, match=r"grid.sync\(\).*at most 0 blocks"):
        _run(GRID_SYNC_SUM.kernel)
    fake.per_sm = 1
    wide = dataclasses.replace(GRID_SYNC_SUM.kernel, id="r23_grid_sum_wide", grid=(133, 1, 1))
    with pytest.raises(
        UnsupportedFeature,
        match=r"at most 132 blocks of 256 threads fit \(1 per SM x 132 SMs\).*133",
    ):
        _run(wide)
    assert fake.cooperative_launches == 0


def test_a_kernel_without_a_grid_sync_keeps_the_plain_launch(cooperative_driver):
    import forge
    from backends.cuda import CudaComputeContext

    fake = cooperative_driver
    with CudaComputeContext(1 << 20) as ctx:
        x = np.arange(10, dtype=np.float32)
        kernel = forge.get_kernel("raw_affine")
        views = [
            ctx.allocate_and_write(x, 0),
            ctx.allocate_transient(x.nbytes, 1, usage=BindingUsage.STORAGE_READ_WRITE),
            ctx.allocate_and_write(
                kernel.pack_uniform(10, a=3.0, b=1.0), 2, usage=BindingUsage.UNIFORM
            ),
        ]
        ctx.run_kernel(kernel, Schedule(64), views, 10)
    assert fake.cooperative_launches == 0 and "raw_affine" in fake.plain_launches


# -- on the GPU (the later session) -----------------------------------------------------


def test_the_rounds_grid_sync_sum_passes_on_cuda(request):
    """Not run without a GPU: cuLaunchCooperativeKernel and the co-residency check
    against the real occupancy are the device's to prove."""
    require_available(request.config, "cuda")
    kernel = GRID_SYNC_SUM.kernel
    for size in kernel.test_sizes:
        ev = oracle.evaluate("cuda", kernel, size=size, samples=3)
        assert ev.passed, ev.report()
    too_wide = dataclasses.replace(kernel, id="r23_grid_sum_too_wide", grid=(1 << 20, 1, 1))
    ev = oracle.evaluate("cuda", too_wide, size=8192, samples=0)
    assert not ev.passed and "grid.sync()" in ev.report(), ev.report()
