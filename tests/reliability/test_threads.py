"""The threading contract (backends/_base.py): threads sharing one context take turns.
Several threads running, dispatching, reading, releasing and checkpointing on one
context, while another closes it, get right data or typed errors, never a crash (two
threads on one wgpu context used to abort the process in wgpu-native, or read each
other's results), and every thread sees ContextClosed after the close."""

from __future__ import annotations

import json
import threading

import numpy as np
import pytest

from forge import ContextClosed
from oracle.pytest_plugin import require_available

from ._process import run_python

_HAMMER = """
{setup}
from tests.reliability._stress import hammer
hammer({backend!r})
"""
# The simulated CUDA driver, for CI: it proves the CUDA backend's own bookkeeping under
# threads; the real driver runs the same test on the GPU machine.
_SIMULATED_CUDA = """
import pytest
from tests.test_cuda_fake_driver import install
install(pytest.MonkeyPatch())
"""


def _hammer(backend: str, setup: str = "") -> dict:
    finished = run_python(_HAMMER.format(backend=backend, setup=setup), timeout=240).check()
    summary = json.loads(finished.stdout.strip().splitlines()[-1])
    assert not summary["failures"], "\n".join(summary["failures"][:5])
    assert not any(summary["alive"]), f"threads still running after the close: {summary}"
    assert all(summary["closed"]), f"a thread never saw ContextClosed: {summary}"
    assert min(summary["ok"]) > 0, f"a thread got no call through: {summary}"
    return summary


def test_threads_sharing_a_context_get_right_data_or_typed_errors(request, forge_backend_name):
    require_available(request.config, forge_backend_name)
    _hammer(forge_backend_name)


def test_threads_sharing_a_context_on_the_simulated_cuda_driver():
    _hammer("cuda", setup=_SIMULATED_CUDA)


def test_close_from_another_thread_waits_for_the_call_in_progress(forge_context):
    """close() takes the context's lock: it returns only after the call holding it."""
    ctx = forge_context
    view = ctx.allocate_and_write(np.arange(4, dtype=np.uint32), 0)
    closed = threading.Event()
    with ctx._lock:  # a call in progress on this thread
        closer = threading.Thread(target=lambda: (ctx.close(), closed.set()))
        closer.start()
        assert not closed.wait(0.2), "close() did not wait for the call in progress"
        assert ctx.read_buffer_u32(view).tolist() == [0, 1, 2, 3]  # re-entrant
    closer.join(timeout=30)
    assert closed.is_set() and ctx.closed
    with pytest.raises(ContextClosed):
        ctx.read_buffer_u32(view)
