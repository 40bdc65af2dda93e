"""Round 24's findings (tests/wild/round24.py), each pinned by the smallest run that
shows it. Each ``xfail(strict=True)`` is an oracle gap found in round 24, still open:
it states the right verdict, fails today, and once fixed passes, which a strict xfail
reports, so the mark comes off."""

from __future__ import annotations

import dataclasses

import ml_dtypes
import numpy as np
import pytest

import oracle
from forge import BufferSpec, KernelSpec, Schedule, ceil_div
from oracle import Verdict
from oracle.pytest_plugin import require_available
from tests.wild import mutant
from tests.wild.round24 import E5M2_QUANT, FOCAL_LOSS, LOGSUMEXP_MASKED

_ROW_MAX = """
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> m: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let row = gid.x;
    if (row >= arrayLength(&m)) { return; }
    var best = x[row * 16u];
    for (var c = 1u; c < 16u; c++) { best = max(best, x[row * 16u + c]); }
    m[row] = best;
}
"""


def test_nan_taken_as_missing_is_accepted_unless_the_kernel_says_nan_propagates(request):
    """A row max through WGSL's max drops a NaN input (maxNum) where np.max propagates
    it: accepted by default, the report saying so (issue 11: no false alarm on the NaN
    the default inputs hold). A kernel that means NaN to propagate (torch.argmax's
    NaN-wins, round 24's argmax on CUDA) declares ``nan="propagate"``: then dropping
    it fails (round 24 found a NaN-ignoring argmax passing with no way to say so)."""
    require_available(request.config, "wgpu")
    kernel = KernelSpec(
        id="r24_row_max",
        entry_point="main",
        sources={"wgsl": _ROW_MAX},
        dims=("rows", "cols"),
        buffers=(
            BufferSpec(0, "f32", "read", name="x", count="rows*cols"),
            BufferSpec(1, "f32", "read_write", name="m", count="rows"),
        ),
        reference=lambda x, m: x.reshape(len(m), -1).max(axis=1),
        grid=lambda s, size: (ceil_div(size.rows, 64), 1, 1),
        schedules=(Schedule(64),),
    )
    ev = oracle.evaluate("wgpu", kernel, size="rows=512,cols=16", seed=0, samples=0)
    if ev.semantics.nonfinite_indeterminate:
        pytest.skip("this adapter's NaN results are indeterminate")
    assert ev.passed and "NaN inputs taken as missing" in ev.report(), ev.report()
    strict = dataclasses.replace(kernel, tolerance={"f32": {"nan": "propagate"}})
    ev = oracle.evaluate("wgpu", strict, size="rows=512,cols=16", seed=0, samples=0)
    assert ev.failing and "nan=propagate" in ev.report(), ev.report()


def test_a_default_named_like_a_wgsl_override_is_applied_or_refused(request):
    require_available(request.config, "wgpu")
    kernel = dataclasses.replace(FOCAL_LOSS.kernel, defaults={"alpha": 0.5, "gamma": 1.0})
    ev = oracle.evaluate("wgpu", kernel, size=4096, seed=0, samples=0)
    report = ev.report()
    assert ev.passed or ("override" in report and "alpha" in report), report


_CONSTANT_CODES = """
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> q: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x < arrayLength(&q)) { q[gid.x] = 0xDBDBDBDBu; }
}
"""


def test_an_fp8_code_equal_to_a_poison_byte_is_judged_as_a_value(request):
    """A code one step off that equals a poison byte (0xDB) is a value within a declared
    one-step tolerance, not 'never written'."""
    require_available(request.config, "wgpu")
    kernel = KernelSpec(
        id="r24_fp8_poison_byte",
        entry_point="main",
        sources={"wgsl": _CONSTANT_CODES},
        buffers=(
            BufferSpec(0, "f32", "read", name="x"),
            BufferSpec(1, "f8e5m2", "read_write", name="q"),
        ),
        # -192, one E5M2 step from the kernel's -224
        reference=lambda x, q: np.full(x.size, -192.0, np.float32).astype(ml_dtypes.float8_e5m2),
        grid=lambda s, n: (ceil_div(ceil_div(n, 4), 64), 1, 1),
        schedules=(Schedule(64),),
        tolerance={"f8e5m2": {"ulp": 1}},
    )
    ev = oracle.evaluate("wgpu", kernel, size=64, seed=0, samples=0)
    assert ev.outputs["q"].unwritten == 0 and ev.passed, ev.report()


def test_the_right_e5m2_quantizer_passes_where_a_tolerated_code_equals_the_poison(request):
    require_available(request.config, "wgpu")
    ev = oracle.evaluate("wgpu", E5M2_QUANT.kernel, size=10007, seed=1, samples=0)
    assert ev.passed, ev.report()


def test_an_fp8_quantizer_is_judged_by_its_rounding(request):
    """By default an FP8 output is the code numpy rounds to, or, where the value before
    rounding lies within a float32 computation's error of a tie, the other one (round
    24 found one step allowed everywhere, so a quantizer that truncates passed: 49% of
    its codes one step toward zero). The round's own quantizer rounds twice, through
    f16, which a single rounding differs from at 0.1 to 0.4% of codes: judged by its
    rounding that is a MISMATCH, which is why it declares one step."""
    require_available(request.config, "wgpu")
    truncating = dataclasses.replace(
        mutant(E5M2_QUANT, "truncated, not rounded"),
        tolerance=None,
        domain={"x": (0.0, 2000.0)},
        nonfinite_inputs=False,
    )
    ev = oracle.evaluate("wgpu", truncating, size=4096, seed=0, samples=0)
    assert ev.failing and ev.outputs["q"].comparison.mismatches > 1000, ev.report()
    twice = dataclasses.replace(E5M2_QUANT.kernel, tolerance=None)
    ev = oracle.evaluate("wgpu", twice, size=10007, seed=1, samples=0)
    # (37 codes of 10007 since the drawn inputs hold f16 ties, round 57: an input on
    # one, 0.812744140625, is rounded twice on its way to E5M2, where numpy rounds once)
    assert ev.failing and 0 < ev.outputs["q"].comparison.mismatches < 60, ev.report()
    assert ev.outputs["q"].comparison.max_ulp == 1, ev.report()
    declared = oracle.evaluate("wgpu", E5M2_QUANT.kernel, size=10007, seed=1, samples=0)
    assert declared.passed, declared.report()


def test_a_fully_masked_logsumexp_row_is_inconclusive_where_infinities_are_indeterminate(
    request,
):
    """torch.logsumexp of an all -inf row is -inf; SwiftShader's non-finite results are
    indeterminate, so those rows cannot be judged there: INCONCLUSIVE, saying why (not a
    pass, not a mismatch). The corpus harness counts it as a failed original (a harness
    gap: no ``Wild`` field says an original is inconclusive by design on an adapter)."""
    require_available(request.config, "browser")
    ev = oracle.evaluate(
        "browser", LOGSUMEXP_MASKED.kernel, size="rows=64,cols=77", seed=0, samples=0
    )
    if not ev.semantics.nonfinite_indeterminate:
        assert ev.passed, ev.report()
        return
    assert ev.verdict is Verdict.INCONCLUSIVE, ev.report()
    assert "masked in every input set" in ev.report()
