"""Ctrl-C (a KeyboardInterrupt) during a call: the interrupt propagates, the context
is lost and says why, the process survives, and nothing the device may still call
back into has been freed (wgpu-native crashed the process at the next call when it
called a freed work-done callback)."""

from __future__ import annotations

import numpy as np
import pytest

import forge
from forge import BindingUsage, DeviceLost, Schedule
from oracle.pytest_plugin import require_available

# The simulated CUDA driver (see test_timeout.py for why it is imported this way).
from tests.test_cuda_fake_driver import fake_driver  # noqa: F401

from ._process import run_python

N = 64


def _affine_views(ctx, kernel):
    x = np.arange(N, dtype=np.float32)
    return [
        ctx.allocate_and_write(x, 0),
        ctx.allocate_transient(x.nbytes, 1, usage=BindingUsage.STORAGE_READ_WRITE),
        ctx.allocate_and_write(kernel.pack_uniform(N), 2, usage=BindingUsage.UNIFORM),
    ]


def _interrupt(*_args, **_kwargs):
    raise KeyboardInterrupt


def test_an_interrupted_call_leaves_the_context_lost_saying_so(forge_context):
    ctx = forge_context
    kernel = forge.get_kernel("raw_affine")
    views = _affine_views(ctx, kernel)
    ctx._launch = _interrupt  # the interrupt arrives while the kernel runs
    with pytest.raises(KeyboardInterrupt):
        ctx.run_kernel(kernel, Schedule(64), views, N)
    assert "run_kernel was interrupted by KeyboardInterrupt" in ctx.lost
    with pytest.raises(DeviceLost, match="interrupted by KeyboardInterrupt"):
        ctx.read_buffer_f32(views[1])
    ctx.close()
    assert ctx.closed


_CTRL_C_IN_A_WAIT = """
import gc, signal
import forge
from forge import DeviceLost, Schedule
from tests.reliability._spin import SPIN, spin_views
from backends.wgpu import _native

ctx = forge.open_context("wgpu")
n, views = spin_views(ctx, seconds=3.0)
handle = _native.native_handle(ctx.device)
ctx.timeout_s = 60  # a bounded wait: it polls, with a work-done callback

def interrupt(*_):
    raise KeyboardInterrupt  # what Ctrl-C raises


signal.signal(signal.SIGALRM, interrupt)
signal.setitimer(signal.ITIMER_REAL, 0.5)
try:
    ctx.run_kernel(SPIN, Schedule(64), views, n)
    print("not interrupted")
except KeyboardInterrupt:
    print("interrupted")
gc.collect()
try:
    ctx.read_buffer_u32(views[0])
except DeviceLost as exc:
    print("lost:", exc)
# Let the device finish the spin and run every callback it was handed.
_native.wait_idle(handle)
print("callbacks ran")
"""


def test_ctrl_c_in_a_bounded_wgpu_wait_leaves_no_dangling_callback(request):
    require_available(request.config, "wgpu")
    out = run_python(_CTRL_C_IN_A_WAIT, timeout=120).check().stdout
    assert "interrupted\n" in out and "lost:" in out and "interrupted by KeyboardInterrupt" in out
    assert "callbacks ran" in out


def test_an_interrupted_cuda_wait_on_a_hung_device_closes_without_waiting(fake_driver, monkeypatch):
    """On the simulated driver: Ctrl-C while polling a hung device loses the context,
    and closing it does not synchronize (the fake fails a blocking wait when hung)."""
    from backends import _base
    from backends.cuda import CudaComputeContext

    fake = fake_driver
    fake.lazy_events = True
    ctx = CudaComputeContext(1 << 20)
    kernel = forge.get_kernel("raw_affine")
    views = _affine_views(ctx, kernel)
    ctx.timeout_s = 30
    fake.hung = True
    monkeypatch.setattr(_base.time, "sleep", _interrupt)  # Ctrl-C between two polls
    with pytest.raises(KeyboardInterrupt):
        ctx.run_kernel(kernel, Schedule(64), views, N)
    monkeypatch.undo()
    assert "interrupted" in ctx.lost
    synchronized = fake.calls.get("cuStreamSynchronize", 0)
    ctx.close()
    assert fake.calls.get("cuStreamSynchronize", 0) == synchronized
    fake.hung = False


def test_an_interrupt_while_waiting_for_the_lock_leaves_the_context_usable(forge_context):
    """Not every KeyboardInterrupt stops a call: one raised before the call began
    (here, by a lock whose acquire is interrupted) leaves the context as it was."""
    ctx = forge_context
    lock = ctx._lock

    class InterruptedLock:
        def __enter__(self):
            raise KeyboardInterrupt

        def __exit__(self, *exc):
            return False

    ctx._lock = InterruptedLock()
    with pytest.raises(KeyboardInterrupt):
        ctx.allocate_transient(16, 0)
    ctx._lock = lock
    assert ctx.lost is None
    assert ctx.read_buffer_u32(
        ctx.allocate_and_write(np.arange(4, dtype=np.uint32), 0)
    ).tolist() == [0, 1, 2, 3]
