"""The judge's look at the direction of rounding (``oracle._judge.one_way_rounding``):
a bf16 output within its tolerance everywhere, yet off the reference's
rounding to nearest one way at many elements, is a conversion that truncates; a right
kernel's float32 errors cross a rounding boundary rarely and either way."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from oracle import compare
from oracle._judge import ONE_WAY_COUNT, _rounds_to_nearest, one_way_rounding

BF16 = ml_dtypes.bfloat16


def _values(n: int = 4099, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(n) * 10.0 ** rng.uniform(-3, 3, n)).astype(np.float32)


def _truncated(x: np.ndarray) -> np.ndarray:
    """f32 to bf16 by dropping the low 16 bits, as a kernel writes ``u32 >> 16``."""
    return ((x.view(np.uint32) >> 16).astype(np.uint16)).view(BF16)


def _judged(got: np.ndarray, want: np.ndarray):
    first = compare(got, want)  # bf16's default tolerance
    assert first.passed, first.report()  # within it everywhere: only the direction tells
    return one_way_rounding(got, want, first)


def test_a_truncating_conversion_fails_toward_zero():
    x = _values()
    judged = _judged(_truncated(x), x.astype(BF16))
    assert not judged.passed
    assert judged.one_way.startswith("rounded toward zero")
    assert judged.mismatches > len(x) // 3  # about half the elements differ
    assert "rounded toward zero" in judged.report("y")


def test_rounding_down_fails_down_on_values_of_both_signs():
    x = _values(seed=1)
    rne = x.astype(BF16)
    below = np.where(rne.astype(np.float32) > x, np.nextafter(rne, BF16(-np.inf)), rne)
    judged = _judged(below.astype(BF16), rne)
    assert not judged.passed and judged.one_way.startswith("rounded down")


def test_a_right_kernel_s_float32_errors_pass_whichever_way_they_lean():
    """Values moved by up to 64 float32 ulps, all the same way, before rounding: they
    cross a bf16 boundary at about 1 in 500 elements, too few to count."""
    x = _values(20011, seed=2)
    moved = (x.astype(np.float64) * (1 + 64 * 2.0**-24)).astype(np.float32)
    judged = _judged(moved.astype(BF16), x.astype(BF16))
    assert judged.passed, judged.report()


def test_errors_either_way_pass_however_many():
    """A kernel that rounds twice (bf16 intermediates) differs at many elements, in
    both directions: not one way."""
    x = _values(seed=3)
    rng = np.random.default_rng(3)
    rne = x.astype(BF16)
    step = np.where(rng.random(x.size) < 0.5, -np.inf, np.inf).astype(BF16)
    off = np.where(rng.random(x.size) < 0.3, np.nextafter(rne, step), rne).astype(BF16)
    judged = _judged(off, rne)
    assert judged.passed, judged.report()


def test_a_sum_that_loses_its_small_terms_is_off_one_way_by_many_steps_and_not_judged_so():
    """A right f16-accumulating kernel on one-sign inputs: each addition rounds to
    nearest, yet the terms below half a step of the running sum are lost, always down.
    Its error is many steps and the tolerance (the rounding bound) judges it; the
    direction check is for one-step roundings only."""
    x = _values(seed=5)
    rne = x.astype(BF16)
    low = rne.copy()
    for _ in range(6):  # six steps down
        low = np.nextafter(low, BF16(-np.inf)).astype(BF16)
    first = compare(low, rne, {"ulp": 8})
    assert first.passed, first.report()
    judged = one_way_rounding(low, rne, first)
    assert judged.passed, judged.report()


def test_a_device_that_flushes_subnormals_is_not_counted():
    tiny = np.full(1000, 1e-39, np.float32)  # subnormal in float32 and bf16
    want = tiny.astype(BF16)
    judged = _judged(np.zeros(1000, BF16), want)
    assert judged.passed, judged.report()


def test_too_few_differing_elements_are_not_judged_by_direction():
    x = _values(ONE_WAY_COUNT - 1, seed=4)
    x[:] = np.float32(1.00390625 + 2.0**-10)  # truncation differs from rounding here
    assert (_truncated(x) != x.astype(BF16)).all()
    judged = _judged(_truncated(x), x.astype(BF16))
    assert judged.passed


@pytest.mark.parametrize(
    "dtype, checked",
    [
        (BF16, True),
        # WGSL lets a conversion to f16 take either neighbour, and CUDA's half
        # intrinsics approximate in f16 (their errors' direction not measured)
        (np.float16, False),
        (np.float32, False),
    ],
)
def test_which_outputs_are_judged_by_direction(dtype, checked):
    assert _rounds_to_nearest(np.dtype(dtype)) is checked
