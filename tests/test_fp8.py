"""FP8 element types (``f8e4m3``, ``f8e5m2``: ``cuda_fp8.h``'s ``__nv_fp8_e4m3`` and
``__nv_fp8_e5m2``, through ml_dtypes): drawn as FP8 values across their range rather
than as bytes, judged by their rounding (near a tie, either code), and
readable by a WGSL kernel as the bytes of u32 words (round 23 of the wild kernels
declared them u8: 230 of 256 codes drawn, none above 48, every -0 and one-step
rounding a mismatch)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import oracle
from forge import BufferSpec, KernelSpec, ceil_div
from oracle import Verdict
from oracle._compare import compare
from oracle._inputs import make_case
from oracle.pytest_plugin import require_available

_DEQUANT = """
struct P { scale: f32, n: u32 }
@group(0) @binding(0) var<storage, read> q: array<u32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> p: P;

// OCP E4M3 (no Inf; 0x7F and 0xFF are NaN), four to a word, the lowest byte first
fn e4m3(b: u32) -> f32 {
    let s = select(1.0, -1.0, (b & 0x80u) != 0u);
    let e = (b >> 3u) & 0xFu;
    let m = f32(b & 7u);
    if ((b & 0x7Fu) == 0x7Fu) { return bitcast<f32>(0x7FC00000u | b); }  // NaN
    if (e == 0u) { return s * m * exp2(-9.0); }
    return s * (1.0 + m / 8.0) * exp2(f32(e) - 7.0);
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= p.n) { return; }
    y[i] = e4m3((q[i / 4u] >> (8u * (i % 4u))) & 0xFFu) * p.scale;
}
"""


def _dequant(source: str = _DEQUANT) -> KernelSpec:
    return KernelSpec(
        id="fp8_dequant",
        entry_point="main",
        sources={"wgsl": source},
        buffers=(
            BufferSpec(0, "f8e4m3", "read", name="q"),
            BufferSpec(1, "f32", "read_write", name="y"),
            BufferSpec.uniform(2, (("scale", "f32"), ("n", "u32"))),
        ),
        reference=lambda q, y, p: q.astype(np.float32) * np.float32(p["scale"]),
        params=lambda n: {"n": n},
        defaults={"scale": 0.5},
        grid=lambda s, n: (ceil_div(n, 64), 1, 1),
    )


def test_fp8_inputs_are_drawn_as_values_across_the_range():
    q = make_case(_dequant(), 4096, 0).arrays["q"]
    assert q.dtype == np.dtype(ml_dtypes.float8_e4m3fn)
    values = q.astype(np.float32)
    finite = values[np.isfinite(values)]
    assert np.isnan(values).any()  # the non-finite family: E4M3's NaN
    assert finite.max() > 100 and finite.max() <= 448 and finite.min() < -1
    assert np.unique(q.view(np.uint8)).size > 100


def test_two_fp8_arrays_compare_within_one_step():
    """compare() of two FP8 arrays (two backends' outputs) allows a step; a kernel
    against its numpy reference is judged by its rounding (tests/test_wild_round24.py)."""
    f8 = ml_dtypes.float8_e4m3fn
    want = np.array([0.5, 1.0, 448.0, -0.0, np.nan], dtype=f8)
    one_step = np.array([0.5, 1.125, 448.0, 0.0, np.nan], dtype=f8)
    assert compare(one_step, want).passed
    assert not compare(one_step, want, {"ulp": 0, "atol": 0, "rtol": 0}).passed
    two_steps = np.array([0.625, 1.0, 384.0, -0.0, np.nan], dtype=f8)
    result = compare(two_steps, want)
    assert not result.passed and result.mismatches == 2 and result.max_ulp == 2


@pytest.mark.parametrize("backend", ["wgpu", "browser"])
def test_a_wgsl_fp8_dequantizer_reading_words_passes_and_a_wrong_bias_fails(request, backend):
    require_available(request.config, backend)
    ev = oracle.evaluate(backend, _dequant(), size=4099, samples=0)
    assert ev.passed, ev.report()
    wrong = _dequant(_DEQUANT.replace("exp2(f32(e) - 7.0)", "exp2(f32(e) - 8.0)"))
    assert oracle.evaluate(backend, wrong, size=4099, samples=0).verdict is Verdict.MISMATCH


def _returns(x, q):
    return (x * np.float32(0.5)).astype(ml_dtypes.float8_e5m2)


def _writes(x, q):
    q[:] = np.clip(x * 0.5, -448, 448).astype(ml_dtypes.float8_e4m3fn)


def test_a_reference_s_values_before_its_fp8_rounding_are_read_both_ways():
    """What ``Expected.fp8_roundings`` starts from: the reference with its conversions to
    a one-byte float kept in float64, whether it returns them or writes them."""
    from oracle._builtins import before_fp8_rounding

    x = np.array([1.0, 3.3, -7.7], np.float64)
    assert np.allclose(before_fp8_rounding(_returns)(x, None), x * 0.5)
    q = np.zeros(3, np.float64)
    before_fp8_rounding(_writes)(x, q)
    assert np.allclose(q, x * 0.5)
    assert not np.allclose(_returns(x, None).astype(np.float64), x * 0.5)  # it does round
