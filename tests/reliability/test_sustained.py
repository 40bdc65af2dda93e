"""Sustained asynchronous load: many dispatches in flight while the ring wraps many
times, every output checked. Releasing a range waits for the device work that still
uses it (fences), so the write head never laps data the device is reading."""

from __future__ import annotations

import collections
import os

import numpy as np
import pytest

import forge
from backends import SlabContext
from forge import BindingUsage, Schedule
from oracle.pytest_plugin import require_available

# Dispatches per backend; FORGE_SUSTAINED_DISPATCHES overrides all of them (the GPU
# machine runs 100000 everywhere). wgpu on lavapipe emulates the GPU on the CPU, the
# browser adds a round trip to its page per dispatch and per readback (a few ms on CI's
# machine), and the demo plugin is a copy of the reference machinery, so CI runs them
# at smaller counts; the reference backend's 100000 took 27 s of CI's 2 CPUs
# (2026-12-05), and 20000 still wrap its 64 KiB ring hundreds of times.
_DEFAULT_DISPATCHES = {"wgpu": 5_000, "browser": 2_000, "demo": 10_000, "reference": 20_000}
_FULL = 100_000
_IN_FLIGHT = 6
_N = 256


def _dispatch_count(backend: str) -> int:
    override = os.environ.get("FORGE_SUSTAINED_DISPATCHES")
    return int(override) if override else _DEFAULT_DISPATCHES.get(backend, _FULL)


def _release_through(ctx, view) -> None:
    ctx.advance_read_head(view.end, view.slab)


def test_sustained_dispatches_wrap_the_ring_and_every_output_is_right(request, forge_backend_name):
    require_available(request.config, forge_backend_name)
    # A small slab, so the ring wraps thousands of times.
    ctx = forge.open_context(forge_backend_name, capacity_bytes=64 << 10)
    try:
        if not isinstance(ctx, SlabContext):
            pytest.skip(f"{forge_backend_name} is not slab-backed: no dispatch/fence API")
        kernel = forge.get_kernel("raw_affine")
        schedule = Schedule(64)
        x = np.arange(_N, dtype=np.float32) - 100.0
        uniforms = [kernel.pack_uniform(_N, a=float(i % 13 - 6), b=float(i % 7)) for i in range(91)]
        in_flight: collections.deque = collections.deque()
        checked = wraps = 0
        last_offset = -1
        count = _dispatch_count(forge_backend_name)
        for i in range(count):
            views = [
                ctx.allocate_and_write(x, 0),
                ctx.allocate_transient(_N * 4, 1, usage=BindingUsage.STORAGE_READ_WRITE),
                ctx.allocate_and_write(uniforms[i % 91], 2, usage=BindingUsage.UNIFORM),
            ]
            wraps += views[0].offset < last_offset
            last_offset = views[0].offset
            ctx.dispatch(kernel, schedule, views, _N)
            in_flight.append((i, views))
            if len(in_flight) > _IN_FLIGHT:
                checked += _check_and_release(ctx, *in_flight.popleft(), x)
        while in_flight:
            checked += _check_and_release(ctx, *in_flight.popleft(), x)
        assert checked == count
        assert wraps > count // 100, f"the ring wrapped only {wraps} times"
    finally:
        ctx.close()


def _check_and_release(ctx, i, views, x) -> int:
    got = ctx.read_buffer_f32(views[1])
    want = np.float32(i % 13 - 6) * x + np.float32(i % 7)
    np.testing.assert_allclose(
        got,
        want,
        rtol=1e-6,
        atol=1e-5,
        err_msg=f"dispatch {i} was overwritten or ran on lapped data",
    )
    for view in views:
        _release_through(ctx, view)
    return 1


def test_releasing_views_waits_for_exactly_the_work_that_used_them(forge_context):
    ctx = forge_context
    if not isinstance(ctx, SlabContext):
        pytest.skip(f"{ctx.backend_name} is not slab-backed")
    waited: list[int] = []
    real_wait = ctx._wait
    ctx._wait = lambda fence: (waited.append(fence), real_wait(fence))[1]
    kernel = forge.get_kernel("raw_affine")
    x = np.ones(_N, np.float32)
    batches, fences = [], []
    for a in (1.0, 2.0, 3.0):
        views = [
            ctx.allocate_and_write(x, 0),
            ctx.allocate_transient(_N * 4, 1, usage=BindingUsage.STORAGE_READ_WRITE),
            ctx.allocate_and_write(
                kernel.pack_uniform(_N, a=a, b=0.0), 2, usage=BindingUsage.UNIFORM
            ),
        ]
        fences.append(ctx.dispatch(kernel, Schedule(64), views, _N))
        batches.append(views)
    assert fences == sorted(fences) and len(set(fences)) == 3
    _release_through(ctx, batches[0][1])  # the first dispatch's output
    assert waited[-1] == fences[0], "releasing a view must wait for the work that used it"
    ctx.clear_transient_allocations()
    assert waited[-1] == fences[2], "clear must wait for the last work on any view"
