"""A kernel that runs too long is bounded by the oracle's timeout and reported as
such, not hung on; the context is then lost and a fresh one works."""

from __future__ import annotations

import time

import numpy as np
import pytest

import forge
import oracle
from forge import Access, BufferSpec, KernelSpec, KernelTimeout, Schedule
from oracle.pytest_plugin import require_available
# The simulated CUDA driver, installed for one test and collected before it goes: its
# objects must never meet the real driver in a finalizer (that crashed the H200 run).
from tests.test_cuda_fake_driver import fake_driver  # noqa: F401

_A, _C = 1664525, 1013904223  # a 32-bit linear congruential step

# The inner trip count comes from the uniform: with a constant one NVRTC folds the
# 4096 steps into one multiply-add (seen on the H200), and nothing spins.
_INNER = 4096
# lavapipe (llvmpipe) silently stops an invocation's loops after 65535 iterations in
# all, so there the work is spread over many invocations instead of a long loop.
_CAPPED_OUTER = 15

_WGSL = """\
struct Params { outer: u32, inner: u32, n: u32 }
@group(0) @binding(0) var<storage, read_write> y: array<u32>;
@group(0) @binding(1) var<uniform> p: Params;

@compute @workgroup_size(64)
fn spin(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = (wg.y * groups.x + wg.x) * 64u + lid;
    var acc = 0u;
    for (var j = 0u; j < p.outer; j++) {
        for (var k = 0u; k < p.inner; k++) { acc = acc * 1664525u + 1013904223u; }
    }
    if (i < p.n) { y[i] = acc; }
}
"""

_CUDA = """\
struct Params { unsigned int outer; unsigned int inner; unsigned int n; };
extern "C" __global__ void spin(unsigned int* y, const Params p) {
    const unsigned long long i = ((unsigned long long)blockIdx.y * gridDim.x + blockIdx.x) * 64u + threadIdx.x;
    unsigned int acc = 0u;
    for (unsigned int j = 0; j < p.outer; ++j) {
        for (unsigned int k = 0; k < p.inner; ++k) { acc = acc * 1664525u + 1013904223u; }
    }
    if (i < p.n) y[i] = acc;
}
"""


def _jump(iters: int) -> int:
    """The loop's value after ``iters`` steps, by composing the affine step with
    itself (log2(iters) squarings) instead of running it."""
    a, c, acc_a, acc_c = _A, _C, 1, 0
    while iters:
        if iters & 1:
            acc_a, acc_c = (a * acc_a) % 2**32, (a * acc_c + c) % 2**32
        a, c = (a * a) % 2**32, (a * c + c) % 2**32
        iters >>= 1
    return acc_c


def _closed_form(y, p):
    y[:] = _jump(int(p["outer"]) * _INNER)


SPIN = KernelSpec(
    id="spin", entry_point="spin", description="a dependent loop of `iters` steps",
    buffers=(BufferSpec(0, "u32", Access.READ_WRITE, name="y"),
             BufferSpec.uniform(1, (("outer", "u32"), ("inner", "u32"), ("n", "u32")))),
    sources={"wgsl": _WGSL, "cuda": _CUDA}, reference=_closed_form,
    params=lambda n: {"n": n}, defaults={"outer": 8, "inner": _INNER},
    schedules=(Schedule(64),),
    test_sizes=(1,))


def _run_spin(ctx, n: int, outer: int) -> tuple[int, bool]:
    """Device nanoseconds of one spin of ``n`` invocations x ``outer`` * 4096 steps, and
    whether every invocation computed the right value (all its loop steps ran)."""
    views = [ctx.allocate_transient(4 * n, 0, usage=forge.BindingUsage.STORAGE_READ_WRITE),
             ctx.allocate_and_write(SPIN.pack_uniform(n, outer=outer), 1,
                                    usage=forge.BindingUsage.UNIFORM)]
    ns = min(ctx.run_kernel(SPIN, Schedule(64), views, n, warmups=1, samples=2))
    complete = bool(np.all(ctx.read_buffer_u32(views[0])[:n] == _jump(outer * _INNER)))
    ctx.clear_transient_allocations()
    return ns, complete


def _spin_for(ctx, seconds: float) -> tuple[int, int]:
    """(n, outer) that keep this device busy for about ``seconds``, measured."""
    ns, complete = _run_spin(ctx, 1, 64)
    if complete:  # long loops run: one invocation, as many steps as it takes
        return 1, int(min(2**32 - 1, 64 * seconds * 1e9 / ns))
    ns, complete = _run_spin(ctx, 4096, _CAPPED_OUTER)
    assert complete, "even loops of 61440 steps were cut short"
    return int(min(4 << 20, 4096 * seconds * 1e9 / ns)), _CAPPED_OUTER


def test_a_kernel_that_runs_too_long_is_reported_not_hung_on(request, forge_backend_name):
    require_available(request.config, forge_backend_name)
    ctx = forge.open_context(forge_backend_name)
    try:
        if getattr(ctx, "target", None) is None:
            pytest.skip(f"{forge_backend_name} runs kernels on the calling thread: "
                        "nothing to bound")
        short = oracle.evaluate(ctx, SPIN, size=100, samples=0, timeout_s=30)
        assert short.passed, short.report()  # the kernel is right when it finishes
        n, outer = _spin_for(ctx, seconds=3.0)
        start = time.monotonic()
        ev = oracle.evaluate(ctx, SPIN, size=n, samples=0, timeout_s=0.25,
                             uniform={"outer": outer}, guard=0)
        waited = time.monotonic() - start
        assert ev.verdict == "timeout" and ev.lost, ev.report()
        assert "timeout_s=0.25" in ev.error
        # Bounded: it returned long before the kernel (about 3 s) could have finished.
        assert waited < 2.0, f"the oracle waited {waited:.2f} s for a 0.25 s timeout"
        with pytest.raises(forge.DeviceLost):
            ctx.allocate_transient(4, 0)
    finally:
        ctx.close()
    with forge.open_context(forge_backend_name) as fresh:
        assert oracle.evaluate(fresh, SPIN, size=100, samples=0).passed


def test_kernel_timeout_is_a_device_loss_and_a_timeout_error():
    assert issubclass(KernelTimeout, forge.DeviceLost)
    assert issubclass(KernelTimeout, TimeoutError)


def test_cuda_waits_are_polled_and_bounded_on_a_device_that_never_finishes(fake_driver):
    """On the simulated driver (CI): once the device hangs, every wait the context makes
    under a timeout is a poll that gives up, never a blocking call (the fake fails the
    test on one), and closing the lost context does not wait for the device."""
    from backends.cuda import CudaComputeContext

    fake = fake_driver
    fake.lazy_events = True
    ctx = CudaComputeContext(1 << 20)
    kernel = forge.get_kernel("raw_affine")
    x = np.ones(64, np.float32)
    views = [ctx.allocate_and_write(x, 0),
             ctx.allocate_transient(x.nbytes, 1, usage=forge.BindingUsage.STORAGE_READ_WRITE),
             ctx.allocate_and_write(kernel.pack_uniform(x.size), 2, usage=forge.BindingUsage.UNIFORM)]
    ctx.run_kernel(kernel, Schedule(64), views, x.size)
    ctx.timeout_s = 0.05
    fake.hung = True
    with pytest.raises(KernelTimeout, match="timeout_s=0.05"):
        ctx.run_kernel(kernel, Schedule(64), views, x.size, samples=3)
    assert ctx.lost
    with pytest.raises(forge.DeviceLost):
        ctx.read_buffer_f32(views[1])
    ctx.close()  # must not wait for the hung device
    fake.hung = False
    del ctx, views
