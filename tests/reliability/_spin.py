"""A kernel that spins for as long as it is asked to (``SPIN``), and the calibration
that makes it run for a given time on the device at hand: the runaway kernel of the
timeout, interrupt and exit tests (imported by their subprocesses too)."""

from __future__ import annotations

import numpy as np

import forge
from forge import Access, BufferSpec, KernelSpec, Schedule

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
    const unsigned long long i = ((unsigned long long)blockIdx.y * gridDim.x + blockIdx.x) * 64u
                                 + threadIdx.x;
    unsigned int acc = 0u;
    for (unsigned int j = 0; j < p.outer; ++j) {
        for (unsigned int k = 0; k < p.inner; ++k) { acc = acc * 1664525u + 1013904223u; }
    }
    if (i < p.n) y[i] = acc;
}
"""


def jump(iters: int) -> int:
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
    y[:] = jump(int(p["outer"]) * _INNER)


SPIN = KernelSpec(
    id="spin",
    entry_point="spin",
    description="a dependent loop of `iters` steps",
    buffers=(
        BufferSpec(0, "u32", Access.READ_WRITE, name="y"),
        BufferSpec.uniform(1, (("outer", "u32"), ("inner", "u32"), ("n", "u32"))),
    ),
    sources={"wgsl": _WGSL, "cuda": _CUDA},
    reference=_closed_form,
    params=lambda n: {"n": n},
    defaults={"outer": 8, "inner": _INNER},
    schedules=(Schedule(64),),
    test_sizes=(1,),
)


def run_spin(ctx, n: int, outer: int) -> tuple[int, bool]:
    """Device nanoseconds of one spin of ``n`` invocations x ``outer`` * 4096 steps, and
    whether every invocation computed the right value (all its loop steps ran)."""
    views = [
        ctx.allocate_transient(4 * n, 0, usage=forge.BindingUsage.STORAGE_READ_WRITE),
        ctx.allocate_and_write(
            SPIN.pack_uniform(n, outer=outer), 1, usage=forge.BindingUsage.UNIFORM
        ),
    ]
    ns = min(ctx.run_kernel(SPIN, Schedule(64), views, n, warmups=1, samples=2))
    complete = bool(np.all(ctx.read_buffer_u32(views[0])[:n] == jump(outer * _INNER)))
    ctx.clear_transient_allocations()
    return ns, complete


def spin_for(ctx, seconds: float) -> tuple[int, int]:
    """(n, outer) that keep this device busy for about ``seconds``, measured."""
    ns, complete = run_spin(ctx, 1, 64)
    if complete:  # long loops run: one invocation, as many steps as it takes
        return 1, int(min(2**32 - 1, 64 * seconds * 1e9 / ns))
    ns, complete = run_spin(ctx, 4096, _CAPPED_OUTER)
    assert complete, "even loops of 61440 steps were cut short"
    return int(min(4 << 20, 4096 * seconds * 1e9 / ns)), _CAPPED_OUTER


def spin_views(ctx, seconds: float) -> tuple[int, list]:
    """(n, views) for a spin of about ``seconds`` on ``ctx``: its output and uniform."""
    n, outer = spin_for(ctx, seconds)
    views = [
        ctx.allocate_transient(4 * n, 0, usage=forge.BindingUsage.STORAGE_READ_WRITE),
        ctx.allocate_and_write(
            SPIN.pack_uniform(n, outer=outer), 1, usage=forge.BindingUsage.UNIFORM
        ),
    ]
    return n, views
