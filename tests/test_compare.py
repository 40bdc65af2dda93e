"""``oracle.compare`` and tolerances: the check order (shape, dtype, non-finite pattern,
values), the NaN / Inf / -0.0 / subnormal policy, ULP distance, tolerance merging."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from forge import InvalidArgument
from oracle import (
    MASKED_NONFINITE,
    Tolerance,
    compare,
    default_tolerance,
    element_matches,
    flush_subnormals,
    nonfinite_expected,
    resolve_tolerance,
    ulp_distance,
)
from oracle._compare import log2_histogram

F32, F64, F16 = np.float32, np.float64, np.float16
EXACT = {"atol": 0.0, "rtol": 0.0, "ulp": 0}


def _next(x, dtype=F32, steps=1):
    value = dtype(x)
    for _ in range(steps):
        value = np.nextafter(value, dtype(np.inf), dtype=dtype)
    return value


def _sub(dtype=F32):
    return np.finfo(dtype).smallest_subnormal * dtype(3)


# (id, got, want, dtype, tolerance overrides, passes, kind of the first mismatch)
PAIRS = [
    ("equal", 1.5, 1.5, F32, None, True, None),
    ("one ulp", _next(1.0), 1.0, F32, None, True, None),
    ("four ulp", _next(1.0, steps=4), 1.0, F32, {"rtol": 0, "atol": 0}, True, None),
    (
        "five ulp, ulp budget only",
        _next(1.0, steps=5),
        1.0,
        F32,
        {"rtol": 0, "atol": 0},
        False,
        "value",
    ),
    ("five ulp, inside rtol", _next(1.0, steps=5), 1.0, F32, None, True, None),
    ("nan vs nan", np.nan, np.nan, F32, None, True, None),
    (
        "nan payloads differ",
        np.array([0x7FC00001], np.uint32).view(F32)[0],
        np.array([0x7FC12345], np.uint32).view(F32)[0],
        F32,
        None,
        True,
        None,
    ),
    ("nan vs number", np.nan, 1.0, F32, None, False, "nan"),
    ("number vs nan", 1.0, np.nan, F32, None, False, "nan"),
    ("nan forbidden", np.nan, np.nan, F32, {"nan": "forbid"}, False, "nan"),
    ("+inf vs +inf", np.inf, np.inf, F32, None, True, None),
    ("-inf vs -inf", -np.inf, -np.inf, F32, None, True, None),
    ("+inf vs -inf", np.inf, -np.inf, F32, None, False, "inf"),
    ("inf vs max, huge atol", np.inf, np.finfo(F32).max, F32, {"atol": 1e300}, False, "inf"),
    ("max vs inf", np.finfo(F32).max, np.inf, F32, None, False, "inf"),
    ("-0.0 vs +0.0", -0.0, 0.0, F32, None, True, None),
    ("-0.0 vs +0.0, signed zeros", -0.0, 0.0, F32, {"signed_zeros": True}, False, "signed zero"),
    ("subnormal vs zero, flushed", _sub(), 0.0, F32, EXACT, True, None),
    (
        "subnormal vs zero, kept",
        _sub(),
        0.0,
        F32,
        {**EXACT, "flush_subnormals": False},
        False,
        "value",
    ),
    (
        "-subnormal vs +0, flushed, signed",
        -_sub(),
        0.0,
        F32,
        {"signed_zeros": True},
        False,
        "signed zero",
    ),
    (
        "largest subnormal vs smallest normal",
        np.nextafter(np.finfo(F32).tiny, F32(0)),
        np.finfo(F32).tiny,
        F32,
        {"rtol": 0, "atol": 0, "flush_subnormals": False},
        True,
        None,
    ),
    ("cancellation inside atol", 1e-7, 0.0, F32, None, True, None),
    ("small value vs zero", 1e-5, 0.0, F32, None, False, "value"),
    ("large, inside rtol", 1e30 * (1 + 4e-6), 1e30, F32, None, True, None),
    ("large, outside rtol", 1.0001e30, 1e30, F32, None, False, "value"),
    ("opposite tiny signs inside atol", -1e-8, 1e-8, F32, None, True, None),
    ("opposite tiny signs, exact", -1e-8, 1e-8, F32, EXACT, False, "value"),
    ("i32 equal", 7, 7, np.int32, None, True, None),
    ("i32 off by one", 8, 7, np.int32, None, False, "value"),
    ("i32 off by one, atol 1", 8, 7, np.int32, {"atol": 1}, True, None),
    ("u32 extremes", 2**32 - 1, 0, np.uint32, None, False, "value"),
    ("f64 one ulp", _next(1.0, F64), 1.0, F64, None, True, None),
    ("f64 relative 1e-9", 1.0 + 1e-9, 1.0, F64, None, False, "value"),
    ("f16 one ulp", _next(1.0, F16), 1.0, F16, None, True, None),
    ("f16 inf vs max", np.inf, np.finfo(F16).max, F16, None, False, "inf"),
]


@pytest.mark.parametrize(
    "name,got,want,dtype,tolerance,passes,kind", PAIRS, ids=[p[0] for p in PAIRS]
)
def test_edge_case_pairs(name, got, want, dtype, tolerance, passes, kind):
    with np.errstate(over="ignore"):
        result = compare(np.array([got], dtype), np.array([want], dtype), tolerance)
    assert result.passed is passes, result.report(name)
    assert result.mismatches == (0 if passes else 1)
    if kind is not None:
        assert result.first_mismatches[0].kind == kind
        assert result.first_mismatches[0].index == (0,)


def test_there_are_at_least_thirty_edge_case_pairs():
    assert len(PAIRS) >= 30


def test_shape_is_checked_before_dtype():
    result = compare(np.zeros(3, F32), np.zeros(4, F64))
    assert not result.passed and result.reason == "shape"
    assert "shape differs" in result.report()


def test_dtype_is_checked_before_values():
    result = compare(np.zeros(3, F32), np.zeros(3, F64))
    assert not result.passed and result.reason == "dtype" and result.mismatches == 0
    assert "f32" in result.report() and "f64" in result.report()


def test_non_finite_pattern_is_counted_apart_from_value_errors():
    got = np.array([np.nan, 1.0, 2.0, np.inf], F32)
    want = np.array([0.0, 1.5, 2.0, np.inf], F32)
    result = compare(got, want)
    assert (result.mismatches, result.nonfinite_mismatches) == (2, 1)
    assert [m.kind for m in result.first_mismatches] == ["nan", "value"]
    assert result.max_abs == pytest.approx(0.5)  # maxima cover pairs finite on both sides


def test_report_names_first_mismatches_and_largest_errors_with_indices():
    want = np.arange(12, dtype=F32).reshape(3, 4)
    got = want.copy()
    got[1, 2] += 100
    got[2, 3] += 1
    result = compare(got, want)
    assert [m.index for m in result.first_mismatches] == [(1, 2), (2, 3)]
    assert result.largest[0].index == (1, 2)
    text = result.report("C")
    assert "MISMATCH in 2 of 12" in text and "[1,2] got 106.0 want 6.0" in text


def test_empty_arrays_match():
    result = compare(np.zeros(0, F32), np.zeros(0, F32))
    assert result.passed and result.count == 0 and result.max_ulp == 0


def test_ulp_distance_crosses_zero_and_ignores_zero_sign():
    tiny = np.finfo(F32).smallest_subnormal
    a = np.array([-tiny, -0.0, 1.0], F32)
    b = np.array([tiny, 0.0, 2.0], F32)
    assert ulp_distance(a, b).tolist() == [2, 0, 2**23]


def test_ulp_distance_refuses_mixed_or_integer_dtypes():
    with pytest.raises(InvalidArgument):
        ulp_distance(np.zeros(2, F32), np.zeros(2, F64))
    with pytest.raises(InvalidArgument):
        ulp_distance(np.zeros(2, np.int32), np.zeros(2, np.int32))


# -- declared departures from IEEE-754: masked elements, the flushed expectation ------------
def test_nonfinite_expected_elements_are_masked_only_when_asked():
    want = np.array([np.inf, np.nan, -np.inf, 1.0], F32)
    got = np.array([0.0, 0.0, 7.0, 1.0], F32)  # what a finite-math device may leave
    strict = compare(got, want)
    assert not strict.passed and strict.nonfinite_mismatches == 3 and strict.masked == 0
    masked = compare(got, want, indeterminate=nonfinite_expected(want))
    assert masked.passed and masked.masked == 3 and masked.mismatches == 0, masked.report()
    assert f"masked: {MASKED_NONFINITE} (3 elements not judged)" in masked.report()
    assert masked.as_dict()["masked"] == 3


def test_a_wrong_element_beside_masked_ones_still_fails():
    want = np.array([np.inf, 6.0, 2.0, 3.0], F32)
    got = np.array([0.0, _next(6.0, steps=1000), np.nan, np.inf], F32)
    result = compare(got, want, indeterminate=nonfinite_expected(want))
    assert not result.passed and result.masked == 1
    assert [(m.index, m.kind) for m in result.first_mismatches] == [
        ((1,), "value"),
        ((2,), "nan"),
        ((3,), "inf"),
    ]
    assert result.max_ulp == 1000  # a masked element adds nothing to the maxima


def test_an_element_may_match_the_flushed_expectation_instead():
    # mul on an H200: (-1e-39) * 6.49e7 is -6.49e-32, but the device flushed the
    # subnormal input and returned -0.0; under an exact tolerance only the flushed
    # expectation explains it.
    want = np.array([F32(-1e-39) * F32(6.49e7), 6.0], F32)
    flushed = np.array([-0.0, 6.0], F32)
    got = np.array([-0.0, 6.0], F32)
    assert not compare(got, want, EXACT).passed
    result = compare(got, want, EXACT, flushed=flushed)
    assert result.passed and result.flushed == 1 and result.max_abs == 0, result.report()
    assert "1 elements match only the expectation with subnormals flushed" in result.report()
    both = compare(want, want, EXACT, flushed=flushed)  # matching want needs no flush
    assert both.passed and both.flushed == 0


def test_an_element_matching_neither_expectation_fails_against_want():
    want = np.array([0.3, 6.0], F32)
    flushed = np.array([0.0, 6.0], F32)
    got = np.array([0.5, 6.0], F32)
    result = compare(got, want, flushed=flushed)
    assert not result.passed and result.flushed == 0
    assert result.first_mismatches[0].want == F32(0.3)


def test_a_flushed_nan_explains_zero_times_inf():
    # subnormal * inf: numpy says inf, a flushing device computes 0 * inf = NaN.
    want, flushed, got = (np.array([v], F32) for v in (np.inf, np.nan, np.nan))
    assert not compare(got, want).passed
    assert compare(got, want, flushed=flushed).flushed == 1


def test_flushed_and_indeterminate_must_have_the_layout_of_want():
    want = np.zeros(3, F32)
    with pytest.raises(InvalidArgument, match="flushed"):
        compare(want, want, flushed=np.zeros(4, F32))
    with pytest.raises(InvalidArgument, match="flushed"):
        compare(want, want, flushed=np.zeros(3, F64))
    with pytest.raises(InvalidArgument, match="indeterminate"):
        compare(want, want, indeterminate=np.zeros(2, bool))


def test_flush_subnormals_keeps_the_sign_and_every_other_value():
    sub = np.finfo(F32).smallest_subnormal
    x = np.array([-sub, sub, np.finfo(F32).tiny, -2.0, np.nan, np.inf], F32)
    out = flush_subnormals(x)
    assert out[:2].tolist() == [0.0, 0.0] and np.signbit(out[:2]).tolist() == [True, False]
    np.testing.assert_array_equal(out[2:], x[2:])
    ints = np.arange(3, dtype=np.int32)
    assert flush_subnormals(ints) is ints
    record = np.zeros(1, [("a", F32), ("n", np.uint32)])
    record["a"], record["n"] = -sub, 5
    flushed = flush_subnormals(record)
    assert flushed["a"][0] == 0 and np.signbit(flushed["a"][0]) and flushed["n"][0] == 5


def test_nonfinite_expected_unites_every_expectation_given():
    want = np.array([np.inf, 1.0, 2.0], F32)
    flushed = np.array([np.inf, np.nan, 2.0], F32)
    assert nonfinite_expected(want).tolist() == [True, False, False]
    assert nonfinite_expected(want, flushed).tolist() == [True, True, False]
    assert nonfinite_expected(want, None).tolist() == [True, False, False]


def test_element_matches_agrees_with_compare():
    want = np.array([1.0, 2.0, np.nan], F32)
    got = np.array([1.0, 2.5, np.nan], F32)
    assert element_matches(got, want).tolist() == [True, False, True]


# -- tolerances -------------------------------------------------------------------------------
def test_defaults_are_keyed_by_dtype():
    assert default_tolerance(F32).ulp == 4
    assert default_tolerance(F64).rtol < default_tolerance(F32).rtol
    assert default_tolerance(np.int32) == Tolerance()


def test_kernel_and_backend_overrides_merge_in_order():
    table = {
        "f32": {"ulp": 64, "atol": 1e-4},
        "backend:wgpu": {"ulp": 256},
        "backend:cuda": {"f32": {"rtol": 1e-3}, "f64": {"ulp": 9}},
    }
    assert resolve_tolerance(F32, table).ulp == 64
    on_wgpu = resolve_tolerance(F32, table, "wgpu")
    assert (on_wgpu.ulp, on_wgpu.atol) == (256, 1e-4)
    on_cuda = resolve_tolerance(F32, table, "cuda")
    assert (on_cuda.ulp, on_cuda.rtol) == (64, 1e-3)
    assert resolve_tolerance(F64, table, "cuda").ulp == 9
    assert resolve_tolerance(F32, table, "wgpu", {"ulp": 1}).ulp == 1
    assert resolve_tolerance(F32, table, "wgpu", {"f64": {"ulp": 1}}).ulp == 256


def test_bad_tolerances_are_refused_with_the_reason():
    with pytest.raises(InvalidArgument, match="unknown tolerance fields"):
        Tolerance().merged({"ulps": 3})
    with pytest.raises(InvalidArgument, match="atol"):
        Tolerance(atol=-1)
    with pytest.raises(InvalidArgument, match="nan policy"):
        Tolerance(nan="ignore")
    with pytest.raises(InvalidArgument, match="neither a dtype"):
        resolve_tolerance(F32, {"float": {"ulp": 2}})


def test_loosest_accepts_what_either_accepts():
    a, b = Tolerance(atol=1e-3, ulp=2, signed_zeros=True), Tolerance(rtol=1e-2, ulp=8)
    loose = a.loosest(b)
    assert (loose.atol, loose.rtol, loose.ulp, loose.signed_zeros) == (1e-3, 1e-2, 8, False)


# -- properties -------------------------------------------------------------------------------
floats32 = hnp.arrays(F32, st.integers(0, 64), elements=st.floats(width=32, allow_nan=True))
finite32 = st.floats(width=32, allow_nan=False, allow_infinity=False)


@settings(max_examples=200, deadline=None)
@given(floats32)
def test_every_array_matches_itself(array):
    assert compare(array, array.copy(), EXACT).passed


@settings(max_examples=200, deadline=None)
@given(finite32, finite32)
def test_ulp_distance_is_symmetric_and_zero_only_for_equal_values(a, b):
    x, y = np.array([a], F32), np.array([b], F32)
    d = int(ulp_distance(x, y)[0])
    assert d == int(ulp_distance(y, x)[0])
    assert (d == 0) == (x[0] == y[0])


@settings(max_examples=200, deadline=None)
@given(finite32, finite32, finite32)
def test_ulp_distance_adds_up_along_the_number_line(a, b, c):
    lo, mid, hi = sorted((a, b, c))
    x, y, z = (np.array([v], F32) for v in (lo, mid, hi))
    assert int(ulp_distance(x, z)[0]) == int(ulp_distance(x, y)[0]) + int(ulp_distance(y, z)[0])


@settings(max_examples=200, deadline=None)
@given(finite32.filter(lambda v: abs(v) < 1e38), st.integers(0, 8))
def test_a_perturbation_of_k_ulp_passes_exactly_when_k_is_within_the_budget(value, steps):
    want = np.array([value], F32)
    got = want.copy()
    for _ in range(steps):
        got = np.nextafter(got, F32(np.inf))
    tolerance = {"atol": 0.0, "rtol": 0.0, "ulp": 4, "flush_subnormals": False}
    assert compare(got, want, tolerance).passed is (steps <= 4)


def test_nan_against_an_infinity_is_accepted_only_where_asked_and_counted():
    """In the edge input set, which of NaN and Inf a float computation reaches depends
    on its order and precision; infinities of opposite sign, a finite value, or any NaN
    under nan="forbid" still fail."""
    want = np.array([np.inf, np.nan, -np.inf, 1.0, np.nan], np.float32)
    got = np.array([np.nan, np.inf, np.inf, np.nan, np.nan], np.float32)
    strict = compare(got, want)
    assert strict.mismatches == 4
    loose = compare(got, want, nonfinite_either=True)
    assert loose.nonfinite_either == 2 and loose.mismatches == 2
    assert "NaN where the reference has an infinity" in loose.report()
    assert compare(got, want, {"nan": "forbid"}, nonfinite_either=True).nonfinite_either == 0


def test_error_histograms_count_every_judged_element_in_power_of_two_bins():
    want = np.array([1.0, 1.0, 1.0, 1.0, np.nan, 0.0], np.float32)
    one_ulp = np.nextafter(np.float32(1), np.float32(2))
    got = np.array(
        [1.0, one_ulp, 1.0 + 3 * np.finfo(np.float32).eps, 1.0, np.nan, 1e-3], np.float32
    )
    c = compare(got, want, {"atol": 1e-2})
    # ulp: two exact, one at 1, one at 3 (bin [2, 4)), 0.0 -> 1e-3 is ~10^9 ulp; NaN unjudged
    assert c.histogram["ulp"][:3] == [[0, 2], [1.0, 1], [2.0, 1]]
    assert sum(n for _, n in c.histogram["ulp"]) == 5
    # relative error of an expected zero is infinite
    assert c.histogram["rel"][0] == [0, 2] and c.histogram["rel"][-1] == ["inf", 1]
    assert c.as_dict()["histogram"] == c.histogram


def test_log2_histogram_bins_values_by_their_power_of_two():
    assert log2_histogram(np.array([0.0, 0.75, 1.0, 1.99, 2.0, np.inf])) == [
        [0, 1],
        [0.5, 1],
        [1.0, 2],
        [2.0, 1],
        ["inf", 1],
    ]


def test_a_flushing_reference_flushes_operands_and_results_but_not_bits():
    """What a device that flushes subnormals computes, intermediates included (round 5
    of kernels from the wild: ``(x * 0.5) * big`` of a tiny x is 0 on SwiftShader, a
    MISMATCH against the reference that flushed only its inputs and results)."""
    from oracle._compare import flushing

    tiny = float(np.finfo(np.float32).tiny)
    x = np.array([1.2e-38, 3.0, -1.5e-38, 1e-45], np.float32)

    def scaled(x):
        return (x * np.float32(0.5)) * np.float32(1e38)

    plain, flushed = scaled(x), flushing(scaled, tiny)(x)
    assert plain[0] > 0.5 and flushed[0] == 0 and flushed[1] == plain[1]
    assert flushed[2] == 0 and np.signbit(flushed[2]) and flushed[3] == 0
    bits = flushing(lambda x: (x.view(np.uint32) >> np.uint32(1)).view(np.float32), tiny)(x)
    assert bits.view(np.uint32)[3] == np.uint32(0)  # 1e-45's bits halved, read as bits
    assert bits.view(np.uint32)[0] == x.view(np.uint32)[0] >> 1
    total = flushing(lambda x: np.sum(x * np.float32(1e-30)), tiny)(x)
    assert total == np.float32(3.0) * np.float32(1e-30)  # the tiny products dropped

    def in_place(x, y):
        y[:] = x * np.float32(0.25)

    y = np.zeros(4, np.float32)
    flushing(in_place, tiny)(x, y)
    assert y[0] == 0 and y[1] == np.float32(0.75)


def test_a_comparison_keeps_a_sample_of_its_mismatches_spread_over_the_output():
    """``spread``: where the mismatches are, all of them up to 256, else 256 or fewer
    evenly spaced over them (the report names the input families they lie in)."""
    want = np.zeros(10_000, np.float32)
    few = want.copy()
    few[[3, 500, 9999]] = 1.0
    assert compare(few, want).spread == (3, 500, 9999)
    many = want.copy()
    many[1000:9000] = 1.0
    spread = compare(many, want).spread
    assert 200 <= len(spread) <= 256 and spread[0] == 1000 and spread[-1] >= 8900
    assert all(1000 <= i < 9000 for i in spread) and list(spread) == sorted(set(spread))
    assert compare(want, want).spread == ()


@pytest.mark.parametrize(
    "dtype, got, want",
    [
        # torchvision's NMS mask word: every bit set where one was (round 63)
        (np.uint64, 2**64 - 1, 2**40),
        # the low bit of a word past 2^53, which float64 rounds away
        (np.uint64, 2**63 + 1, 2**63),
        (np.int64, -(2**63), 2**63 - 1),
        (np.int64, 2**62 + 1, 2**62),
    ],
)
def test_64_bit_integers_are_compared_exactly(dtype, got, want):
    got, want = np.array([got, 7], dtype), np.array([want, 7], dtype)
    result = compare(got, want)
    assert not result.passed and result.mismatches == 1, result
    assert list(element_matches(got, want)) == [False, True]
    assert compare(want, want).passed
