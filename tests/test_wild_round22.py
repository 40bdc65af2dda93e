"""Round 22's findings pinned by the smallest kernels that show them (tests/wild/round22.py
has the kernels from the wild): the widening WGSL's builtins earn is applied to every
output of a kernel that calls them, integers and elements no builtin reaches included,
and an undefined ``atan2(0, 0)`` is not found once it has passed through a comparison.
Each test states the right verdict; those that fail are oracle gaps to fix."""

from __future__ import annotations

import numpy as np
import pytest

import oracle
from forge import BufferSpec, KernelSpec, ceil_div
from oracle import Session, Verdict
from oracle.pytest_plugin import require_available


@pytest.fixture(scope="module")
def session():
    """One worker per backend for this module's evaluations: a fresh worker for each
    is a second of start-up (1.2 s on lavapipe, 2026-12-06)."""
    with Session(timeout_s=60) as shared:
        yield shared


_BUILTIN_AND_INDEX = """
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> f: array<f32>;
@group(0) @binding(2) var<storage, read_write> idx: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= arrayLength(&x)) { return; }
    f[i] = CALL;
    idx[i] = select(i * 1000u, i * 1000u + 7u, i >= 100u);  // off by 7 past element 100
}
"""


def _builtin_and_index(call: str, numpy_call) -> KernelSpec:
    def reference(x, f, idx):
        value = numpy_call(x.astype(np.float64)).astype(np.float32)
        return value, (np.arange(x.size) * 1000).astype(np.uint32)

    return KernelSpec(
        id="r22_builtin_and_index",
        entry_point="main",
        sources={"wgsl": _BUILTIN_AND_INDEX.replace("CALL", call)},
        buffers=(
            BufferSpec(0, "f32", "read", name="x", fill=(-3.0, 3.0)),
            BufferSpec(1, "f32", "read_write", name="f"),
            BufferSpec(2, "u32", "read_write", name="idx"),
        ),
        reference=reference,
        grid=lambda s, n: (ceil_div(n, 64), 1, 1),
        nonfinite_inputs=False,
    )


@pytest.mark.parametrize(
    "call, numpy_call",
    [("atan2(x[i], 1.0)", lambda x: np.arctan2(x, 1.0)), ("sin(x[i])", np.sin)],
    ids=["atan2", "sin"],
)
def test_an_integer_output_is_not_widened_by_a_builtin_the_kernel_calls(
    request, call, numpy_call, session
):
    """An index off by 7 is wrong whatever else the kernel computes with atan2 or sin
    (it passed: ulp >= 4096, or rtol >= 2**-11 of 1e5, on the u32 output)."""
    require_available(request.config, "wgpu")
    kernel = _builtin_and_index(call, numpy_call)
    ev = oracle.evaluate(session.runner("wgpu"), kernel, size=4099, samples=0)
    assert ev.verdict is Verdict.MISMATCH, ev.report()
    assert not ev.outputs["idx"].passed, ev.report()


_SIN_AND_SCALE = """
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> s: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= arrayLength(&x)) { return; }
    s[i] = sin(x[i]);
    y[i] = x[i] * 1.0003;  // meant: x[i]
}
"""


def test_a_float_output_no_sine_reaches_is_not_widened_by_one(request, session):
    """y = x * 1.0003 where y = x is meant: 2500 float32 ulp off, in an output no sine
    reaches (it passed under the blanket atol = rtol = 2**-11)."""
    require_available(request.config, "wgpu")
    kernel = KernelSpec(
        id="r22_sin_and_scale",
        entry_point="main",
        sources={"wgsl": _SIN_AND_SCALE},
        buffers=(
            BufferSpec(0, "f32", "read", name="x", fill=(-3.0, 3.0)),
            BufferSpec(1, "f32", "read_write", name="s"),
            BufferSpec(2, "f32", "read_write", name="y"),
        ),
        reference=lambda x, s, y: (np.sin(x.astype(np.float64)).astype(np.float32), x.copy()),
        grid=lambda s, n: (ceil_div(n, 64), 1, 1),
        nonfinite_inputs=False,
    )
    ev = oracle.evaluate(session.runner("wgpu"), kernel, size=4099, samples=0)
    assert ev.verdict is Verdict.MISMATCH, ev.report()
    assert not ev.outputs["y"].passed, ev.report()


_ATAN2_BIN = """
@group(0) @binding(0) var<storage, read> gx: array<f32>;
@group(0) @binding(1) var<storage, read> gy: array<f32>;
@group(0) @binding(2) var<storage, read_write> bin: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= arrayLength(&bin)) { return; }
    let a = atan2(gy[i], gx[i]);
    var b = 0u;
    if (a > 1.0) { b = 10000u; }  // scaled past the 4096 ulp the oracle allows atan2
    bin[i] = b;
}
"""


def _half_zeros(rng, count, size):
    v = rng.uniform(-1.0, 1.0, count).astype(np.float32)
    v[: count // 2] = 0.0
    return v


@pytest.mark.parametrize("backend", ["wgpu", "browser"])
def test_an_undefined_atan2_is_found_through_a_comparison(request, backend, session):
    """WGSL leaves atan2(0, 0) undefined (lavapipe: 3 pi / 4); a bin chosen by comparing
    it may be either, as a float output from it may be anything. The NaN-tainted rerun
    of the reference gives NaN > 1.0 = false, the same bin as numpy's 0, so lavapipe's
    bin failed a right kernel at every (0, 0) element."""
    require_available(request.config, backend)
    kernel = KernelSpec(
        id="r22_atan2_bin",
        entry_point="main",
        sources={"wgsl": _ATAN2_BIN},
        buffers=(
            BufferSpec(0, "f32", "read", name="gx", fill=_half_zeros),
            BufferSpec(1, "f32", "read", name="gy", fill=_half_zeros),
            BufferSpec(2, "u32", "read_write", name="bin"),
        ),
        reference=lambda gx, gy, bin: np.where(np.arctan2(gy, gx) > 1.0, 10000, 0).astype(
            np.uint32
        ),
        grid=lambda s, n: (ceil_div(n, 64), 1, 1),
    )
    ev = oracle.evaluate(session.runner(backend), kernel, size=1000, samples=0)
    assert ev.passed, ev.report()
