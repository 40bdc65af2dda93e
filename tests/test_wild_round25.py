"""Round 25's findings (tests/wild/round25.py), each pinned by the smallest run that
shows it: the one gap it found (wgpu passed a const-expression of -inf that WGSL makes
a shader-creation error) is fixed, and its test states the right verdict."""

from __future__ import annotations

import numpy as np

import oracle
from forge import BufferSpec, KernelSpec, Schedule, ceil_div
from oracle import Verdict
from oracle.pytest_plugin import require_available

# A max pool's "-inf" start written as PyTorch's port writes it: bitcast of the bits of
# -inf. It is a const-expression whose value f32 cannot hold, which WGSL makes a
# shader-creation error (gpuweb#2953); Tint refuses it, naga (wgpu) compiles it.
_MINUS_INF_CONST = """
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> m: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let row = gid.x;
    if (row >= arrayLength(&m)) { return; }
    var best = bitcast<f32>(0xff800000u);  // -inf
    for (var c = 0u; c < 4u; c++) {
        let v = x[row * 4u + c];
        if (v > best) { best = v; }
    }
    m[row] = best;
}
"""


def _row_max_kernel() -> KernelSpec:
    return KernelSpec(
        id="r25_minus_inf_const_row_max",
        entry_point="main",
        sources={"wgsl": _MINUS_INF_CONST},
        buffers=(
            BufferSpec(0, "f32", "read", name="x", count=lambda n: 4 * n),
            BufferSpec(1, "f32", "read_write", name="m"),
        ),
        reference=lambda x, m: x.reshape(len(m), 4).max(axis=1).astype(np.float32),
        grid=lambda s, n: (ceil_div(n, 64), 1, 1),
        schedules=(Schedule(64),),
        nonfinite_inputs=False,
    )


def test_chromium_refuses_a_const_expression_of_minus_infinity(request):
    """The right verdict, as the browser gives it: Tint rejects the shader."""
    require_available(request.config, "browser")
    ev = oracle.evaluate("browser", _row_max_kernel(), size=256, seed=0, samples=0)
    assert ev.verdict is Verdict.ERROR, ev.report()
    assert "cannot be represented" in ev.report(), ev.report()


def test_a_const_expression_of_minus_infinity_is_refused_on_wgpu_too(request):
    """naga compiles it, so the oracle passed on wgpu a kernel no browser will run;
    wgpu refuses it too now, naming the expression and what to write instead."""
    require_available(request.config, "wgpu")
    ev = oracle.evaluate("wgpu", _row_max_kernel(), size=256, seed=0, samples=0)
    assert ev.verdict is Verdict.ERROR, ev.report()
    assert "bitcast<f32>(0xff800000u)" in ev.report() and "Tint" in ev.report(), ev.report()
