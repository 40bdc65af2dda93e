"""The numpy evaluator: the CPU meaning every backend is judged against. Each rule is
checked against an independent computation (math module, float64, numpy float16)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from forge import ir
from forge.ir import Evaluator, erf64
from forge.ir._erf import erfc64
from forge.ir._eval import NUMPY_DTYPES


def _eval(expr, **values):
    """Evaluate ``expr`` with loads and params taken from ``values`` by name."""

    def leaf(e):
        return np.asarray(values[e.attr[0]]).astype(NUMPY_DTYPES[e.dtype])

    return Evaluator(leaf)(expr)


def test_erf64_matches_the_math_module_to_a_few_float64_ulps():
    x = np.concatenate(
        [
            np.linspace(-7, 7, 20001),
            np.geomspace(1e-300, 1e-2, 200),
            [2.4999999999, 2.5, 2.5000000001, -0.0],
        ]
    )
    want = np.array([math.erf(v) for v in x])
    ulps = np.abs(erf64(x) - want) / np.spacing(np.maximum(np.abs(want), 1e-300))
    assert ulps.max() <= 16
    assert erf64(np.array([-0.0]))[0] == 0.0


def test_erf64_special_values():
    assert np.array_equal(erf64(np.array([np.inf, -np.inf, 40.0, -40.0])), [1, -1, 1, -1])
    assert np.isnan(erf64(np.array([np.nan]))[0])


def test_erfc64_is_accurate_in_relative_terms_in_the_tail():
    # 1 - erf loses a few digits just below the 2.5 split; 1e-11 is still 10^4 times
    # finer than the float32 fit it serves.
    x = np.linspace(0.0, 9.0, 3001)
    want = np.array([math.erfc(v) for v in x])
    assert (np.abs(erfc64(x) - want) / want).max() < 1e-11


def test_transcendentals_are_computed_in_float64_and_rounded_once():
    x = np.linspace(-30, 30, 10001, dtype=np.float32)
    for fn, ref in (
        (ir.exp, np.exp),
        (ir.tanh, np.tanh),
        (ir.sigmoid, lambda v: 1 / (1 + np.exp(-v))),
        (ir.erf, erf64),
    ):
        got = _eval(fn(ir.input("x")), x=x)
        with np.errstate(over="ignore"):
            want = ref(x.astype(np.float64)).astype(np.float32)
        assert got.dtype == np.float32
        np.testing.assert_array_equal(got, want)
    positive = np.geomspace(1e-30, 1e30, 1001).astype(np.float32)
    np.testing.assert_array_equal(
        _eval(ir.rsqrt(ir.input("x")), x=positive),
        (1 / np.sqrt(positive.astype(np.float64))).astype(np.float32),
    )
    np.testing.assert_array_equal(
        _eval(ir.log(ir.input("x")), x=positive),
        np.log(positive.astype(np.float64)).astype(np.float32),
    )


def test_float_to_int_casts_round_toward_zero_saturate_and_send_nan_to_zero():
    x = np.array([-3.7, 3.7, 1e10, -1e10, np.nan, np.inf, -np.inf, -0.5], np.float32)
    assert _eval(ir.cast(ir.input("x"), "i32"), x=x).tolist() == [
        -3,
        3,
        2**31 - 1,
        -(2**31),
        0,
        2**31 - 1,
        -(2**31),
        0,
    ]
    assert _eval(ir.cast(ir.input("x"), "u32"), x=x).tolist() == [
        0,
        3,
        2**32 - 1,
        0,
        0,
        2**32 - 1,
        0,
        0,
    ]


def test_integer_casts_reinterpret_and_arithmetic_wraps():
    i = np.array([-1, 2**31 - 1], np.int32)
    assert _eval(ir.cast(ir.input("i", "i32"), "u32"), i=i).tolist() == [2**32 - 1, 2**31 - 1]
    u = np.array([2**32 - 1, 5], np.uint32)
    assert _eval(ir.input("u", "u32") + 2, u=u).tolist() == [1, 7]
    assert _eval(ir.input("i", "i32") * 2, i=i).tolist() == [-2, -2]


def test_float_min_max_ignore_nan_like_ieee_minnum():
    a = np.array([np.nan, 1.0, np.nan], np.float32)
    b = np.array([2.0, np.nan, np.nan], np.float32)
    got = _eval(ir.max(ir.input("a"), ir.input("b")), a=a, b=b)
    assert got[:2].tolist() == [2.0, 1.0] and np.isnan(got[2])
    assert _eval(ir.min(ir.input("a"), ir.input("b")), a=a, b=b)[:2].tolist() == [2.0, 1.0]


def test_select_evaluates_both_sides_but_takes_one():
    x = np.array([-1.0, 0.0, np.nan, 4.0], np.float32)
    relu = ir.select(ir.input("x") < 0.0, 0.0, ir.input("x"))
    got = _eval(relu, x=x)
    assert got[[0, 1, 3]].tolist() == [0.0, 0.0, 4.0] and np.isnan(got[2])


def test_f16_arithmetic_rounds_each_operation_like_numpy_float16():
    a = np.linspace(-100, 100, 997).astype(np.float16)
    b = np.linspace(3, 7, 997).astype(np.float16)
    e = ir.input("a", "f16") * ir.input("b", "f16") + ir.input("a", "f16")
    np.testing.assert_array_equal(_eval(e, a=a, b=b), a * b + a)


def test_row_reductions_accumulate_in_float64_and_broadcast_per_row():
    rng = np.random.default_rng(3)
    values = rng.standard_normal((5, 1000)).astype(np.float32)
    x = ir.input("x")
    leaf = lambda e: values if e.op == "load" else None  # noqa: E731
    evaluate = Evaluator(leaf, values.shape)
    total = evaluate(ir.row_sum(x * x))
    assert total.shape == (5, 1)
    squares = (values.astype(np.float64) ** 2).sum(1).astype(np.float32)
    np.testing.assert_array_equal(total[:, 0], squares)
    assert evaluate(ir.row_sum(ir.const(2.0))).tolist() == [[2000.0]] * 5
    assert evaluate(ir.row_max(x))[:, 0].tolist() == values.max(1).tolist()


def test_an_empty_row_reduces_to_the_identity():
    empty = np.zeros((3, 0), np.float32)
    evaluate = Evaluator(lambda e: empty, empty.shape)
    assert evaluate(ir.row_sum(ir.input("x"))).tolist() == [[0.0]] * 3
    assert evaluate(ir.row_max(ir.input("x"))).tolist() == [[-np.inf]] * 3


def test_a_reduction_outside_rows_is_refused():
    with pytest.raises(ir.IRError, match="reduces over a row"):
        Evaluator(lambda e: np.ones(3, np.float32))(ir.row_sum(ir.input("x")))


def test_map_evaluation_reads_in_out_buffers_before_writing():
    kernel = ir.kernel("scale_in_place", ir.map(y=ir.input("y") * 2.0 + ir.cast(ir.index(), "f32")))
    y = np.array([1.0, 2.0, 3.0, 99.0], np.float32)
    kernel.run_reference([y, kernel.pack_uniform(3)[0]])
    assert y.tolist() == [2.0, 5.0, 8.0, 99.0]


def test_matmul_leaves_c_unread_when_beta_is_zero():
    kernel = ir.kernel(
        "mm", ir.matmul(), shape={"m": 2, "n": 3, "k": 4}, defaults={"alpha": 2.0, "beta": 0.0}
    )
    a = np.arange(8, dtype=np.float32)
    b = np.arange(12, dtype=np.float32)
    c = np.full(6, np.nan, np.float32)
    kernel.run_reference([a, b, c, kernel.pack_uniform(0)[0]])
    np.testing.assert_array_equal(c.reshape(2, 3), 2 * a.reshape(2, 4) @ b.reshape(4, 3))
    c2 = np.ones(6, np.float32)
    kernel.run_reference([a, b, c2, kernel.pack_uniform(0, beta=0.5)[0]])
    np.testing.assert_array_equal(c2.reshape(2, 3), 2 * a.reshape(2, 4) @ b.reshape(4, 3) + 0.5)


def test_matmul_column_major_operands_are_read_transposed():
    kernel = ir.kernel(
        "mm_t",
        ir.matmul(a_layout="col", b_layout="col"),
        shape={"m": 2, "n": 3, "k": 4},
        defaults={"alpha": 1.0, "beta": 0.0},
    )
    a_t = np.arange(8, dtype=np.float32)  # stored k x m
    b_t = np.arange(12, dtype=np.float32)  # stored n x k
    c = np.zeros(6, np.float32)
    kernel.run_reference([a_t, b_t, c, kernel.pack_uniform(0)[0]])
    np.testing.assert_array_equal(c.reshape(2, 3), a_t.reshape(4, 2).T @ b_t.reshape(3, 4).T)


def test_transpose_writes_the_transposed_matrix():
    kernel = ir.kernel("t", ir.transpose("i32"), shape={"rows": 2, "cols": 3})
    x = np.arange(6, dtype=np.int32)
    y = np.zeros(6, np.int32)
    kernel.run_reference([x, y, kernel.pack_uniform(0)[0]])
    assert y.reshape(3, 2).tolist() == [[0, 3], [1, 4], [2, 5]]
