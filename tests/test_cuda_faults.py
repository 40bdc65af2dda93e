"""On the GPU: a CUDA kernel that makes an illegal address, or hangs, costs only its own
verdict. Evaluations before and after it, in the same session, pass (issue 11,
observation 4: before, every later evaluation in the process errored with
cuDevicePrimaryCtxRetain: CUDA_ERROR_ILLEGAL_ADDRESS)."""

from __future__ import annotations

import time

import pytest

import oracle
from forge import BufferSpec, KernelSpec, Schedule, ceil_div
from oracle import Session, Verdict
from oracle.pytest_plugin import require_available
from tests.reliability._process import run_python

_GOOD = """
extern "C" __global__ void twice(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i];
}
"""
_ILLEGAL = """
extern "C" __global__ void twice(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float* far = (float*)0x10;  // an address nothing maps: CUDA_ERROR_ILLEGAL_ADDRESS
    if (i < n) far[i] = 2.0f * x[i];
}
"""
_SPIN = """
extern "C" __global__ void twice(const float* x, float* y, int n) {
    // clock64() is a volatile asm read of the SM's clock: no compiler may drop the loop
    // (a loop on a volatile local was judged MISMATCH, not TIMEOUT, on the H200).
    while (clock64() >= 0) { }
}
"""


def _twice(x, y, params):
    y[:] = 2 * x


def _kernel(name: str, source: str) -> KernelSpec:
    return KernelSpec(
        id=f"cuda_{name}",
        entry_point="twice",
        sources={"cuda": source},
        buffers=(
            BufferSpec(0, "f32", "read", name="x"),
            BufferSpec(1, "f32", "read_write", name="y"),
            BufferSpec.uniform(2, (("n", "i32"),)),
        ),
        reference=_twice,
        params=lambda n: {"n": n},
        grid=lambda s, n: (ceil_div(n, 128), 1, 1),
        schedules=(Schedule(128),),
        test_sizes=(1000,),
    )


GOOD, ILLEGAL, SPIN = _kernel("good", _GOOD), _kernel("illegal", _ILLEGAL), _kernel("spin", _SPIN)


@pytest.fixture(autouse=True)
def _cuda(request):
    require_available(request.config, "cuda")


def _verdicts(session, kernels, timeout_s=30.0):
    return [
        oracle.evaluate(
            session.runner("cuda"), k, size=1000, samples=1, timeout_s=timeout_s
        ).verdict
        for k in kernels
    ]


def test_an_illegal_address_costs_only_its_own_verdict_in_workers():
    with Session(timeout_s=30) as session:
        assert _verdicts(session, [GOOD, ILLEGAL, GOOD, ILLEGAL, GOOD]) == [
            Verdict.PASS,
            Verdict.DEVICE_LOST,
            Verdict.PASS,
            Verdict.DEVICE_LOST,
            Verdict.PASS,
        ]


_IN_PROCESS = """
from oracle import Session
from tests.test_cuda_faults import GOOD, ILLEGAL, _verdicts
with Session(isolate=False, timeout_s=30) as session:
    print("VERDICTS", [str(v) for v in _verdicts(session, [GOOD, ILLEGAL, GOOD])])
"""


def test_in_process_the_rest_is_not_run_instead_of_a_cascade_of_errors():
    """In its own interpreter: a fault in-process poisons the process's primary context
    for as long as anything holds it, so it must not share the test session's (on the
    H200 every later CUDA test in that process errored)."""
    finished = run_python(_IN_PROCESS, timeout=300)
    assert finished.returncode == 0, finished.stdout + finished.stderr
    assert (
        f"VERDICTS {[str(Verdict.PASS), str(Verdict.DEVICE_LOST), str(Verdict.NOT_RUN)]}"
        in finished.stdout
    ), finished.stdout + finished.stderr


def test_a_hung_kernel_times_out_and_the_next_kernel_passes():
    with Session(timeout_s=2.0) as session:
        start = time.monotonic()
        assert _verdicts(session, [SPIN, GOOD], timeout_s=2.0) == [Verdict.TIMEOUT, Verdict.PASS]
        assert time.monotonic() - start < 90


_UNDERFLOW = """
extern "C" __global__ void twice(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = 2.0f * x[i];
        // the left halo: right for every block but the first, where i - 1 == -1
        if (threadIdx.x == 0) y[i - 1] = 2.0f * x[i - 1];
    }
}
"""


def test_a_negative_index_lands_in_the_guard_before_the_buffer_and_is_reported():
    """A signed underflow writes y[-1]: the guard elements before the buffer catch it
    (the values inside are right), so the verdict says where it wrote."""
    kernel = _kernel("underflow", _UNDERFLOW)
    with Session(timeout_s=30) as session:
        ev = oracle.evaluate(session.runner("cuda"), kernel, size=1000, samples=1)
    assert ev.verdict is Verdict.MISMATCH, ev.report()
    assert "written before its start" in ev.report(), ev.report()
