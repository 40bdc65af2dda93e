"""The IR's operations, one row each: its type rule, its numpy meaning, and how WGSL and
CUDA C spell it. The builders (``forge.ir``), the numpy evaluator and both emitters read
these rows; DEVELOPERS.md says how to add one.

Type rules (``Operation.rule``), checked by the builders in ``_expr.py``:

- ``arithmetic``: two numbers of one dtype, giving that dtype (``add``, ``min``...);
- ``division``: two floats of one dtype (integer division rounds differently in numpy,
  WGSL and CUDA C, so it is not in the IR);
- ``comparison``: two numbers of one dtype, giving ``bool``;
- ``logical``: bools, giving ``bool``;
- ``negation``: a signed number; ``abs``: any number (``abs`` of a u32 is the u32);
- ``float``: one float, giving its dtype (the elementwise functions);
- ``select`` and ``cast`` have builders of their own.

Numpy meanings round every result to its dtype, as a device does. Where device
functions are approximations (exp, log, tanh, erf, sigmoid, rsqrt) the evaluator
computes in float64 and rounds once, so it is the accurate answer the approximations are
measured against.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..types import is_float_dtype
from ._dtypes import FLOATS, INT_RANGE, NUMPY_DTYPES, as_dtype
from ._erf import erf64

__all__ = ["Operation", "OPERATIONS", "Reduction", "REDUCTIONS", "LEAVES"]

#: Nodes that are values rather than operations: the lowering binds them.
LEAVES = ("const", "param", "load", "index", "row", "col")


@dataclass(frozen=True)
class Operation:
    """One IR operation.

    ``numpy(expr, *args)`` computes it over argument arrays. ``symbol`` is its infix
    (binary) or prefix (unary) operator in the IR's notation and in both targets; an
    operation without one is written as a call. ``wgsl`` is the WGSL builtin, or with
    ``wgsl_helper`` a float32 helper function of ``forge.emit._approx`` (an f16
    argument goes through f32); ``wgsl_f64`` is False where naga cannot lower it for
    f64. ``cuda`` is the CUDA C function for (float, double); integer arguments use the
    operation's name. ``cuda_half`` is the function of ``cuda_fp16.h`` / ``cuda_bf16.h``
    for f16 and bf16; without one, a half value goes through the float function and is
    rounded once (the operators +, -, *, / and comparisons are the headers' own)."""

    name: str
    rule: str
    numpy: Callable[..., np.ndarray]
    symbol: str | None = None
    wgsl: str | None = None
    wgsl_helper: bool = False
    wgsl_f64: bool = True
    cuda: tuple[str, str] | None = None
    cuda_half: str | None = None


def _via_f64(function: Callable[[np.ndarray], np.ndarray]):
    return lambda e, a: as_dtype(function(np.asarray(a, np.float64)), e.dtype)


def _rounded(function: Callable[..., np.ndarray]):
    return lambda e, *args: as_dtype(function(*args), e.dtype)


def _rsqrt(x: np.ndarray) -> np.ndarray:
    return 1.0 / np.sqrt(x)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def _cast(e, a: np.ndarray) -> np.ndarray:
    """Float to integer rounds toward zero and saturates (NaN gives 0)."""
    source = np.asarray(a)
    target = NUMPY_DTYPES[e.dtype]
    if is_float_dtype(source.dtype) and target.kind in "iu":
        info = np.iinfo(target)
        wide = np.trunc(source.astype(np.float64))
        wide = np.where(np.isnan(wide), 0.0, np.clip(wide, info.min, info.max))
        return wide.astype(target)
    return source.astype(target)


def _extremum(float_op, int_op):
    """Float min/max ignore a NaN operand (numpy fmin/fmax); integers compare."""

    def op(e, a, b):
        return as_dtype((float_op if e.dtype in FLOATS else int_op)(a, b), e.dtype)

    return op


def _bool(function: Callable[..., np.ndarray]):
    return lambda e, *args: function(*args)


def _float_function(
    name: str, numpy, wgsl: str, cuda: tuple[str, str], *, helper: bool = False
) -> Operation:
    return Operation(
        name, "float", _via_f64(numpy), wgsl=wgsl, wgsl_helper=helper, wgsl_f64=False, cuda=cuda
    )


OPERATIONS: dict[str, Operation] = {
    op.name: op
    for op in (
        Operation("add", "arithmetic", _rounded(np.add), "+"),
        Operation("sub", "arithmetic", _rounded(np.subtract), "-"),
        Operation("mul", "arithmetic", _rounded(np.multiply), "*"),
        Operation("div", "division", _rounded(np.divide), "/"),
        Operation("lt", "comparison", _bool(np.less), "<"),
        Operation("le", "comparison", _bool(np.less_equal), "<="),
        Operation("gt", "comparison", _bool(np.greater), ">"),
        Operation("ge", "comparison", _bool(np.greater_equal), ">="),
        Operation("eq", "comparison", _bool(np.equal), "=="),
        Operation("ne", "comparison", _bool(np.not_equal), "!="),
        Operation("and", "logical", _bool(np.logical_and), "&&"),
        Operation("or", "logical", _bool(np.logical_or), "||"),
        Operation("not", "not", _bool(np.logical_not), "!"),
        Operation("neg", "negation", _rounded(np.negative), "-"),
        # __hmin/__hmax return the other operand for one NaN, as fmin/fmax do
        Operation(
            "min",
            "arithmetic",
            _extremum(np.fmin, np.minimum),
            wgsl="min",
            cuda=("fminf", "fmin"),
            cuda_half="__hmin",
        ),
        Operation(
            "max",
            "arithmetic",
            _extremum(np.fmax, np.maximum),
            wgsl="max",
            cuda=("fmaxf", "fmax"),
            cuda_half="__hmax",
        ),
        Operation(
            "abs", "abs", _rounded(np.abs), wgsl="abs", cuda=("fabsf", "fabs"), cuda_half="__habs"
        ),
        Operation("select", "select", lambda e, c, t, f: as_dtype(np.where(c, t, f), e.dtype)),
        Operation("cast", "cast", _cast),
        _float_function("sqrt", np.sqrt, "sqrt", ("sqrtf", "sqrt")),
        _float_function("rsqrt", _rsqrt, "inverseSqrt", ("rsqrtf", "rsqrt")),
        _float_function("exp", np.exp, "exp", ("expf", "exp")),
        _float_function("log", np.log, "log", ("logf", "log")),
        _float_function("tanh", np.tanh, "fg_tanh_f32", ("tanhf", "tanh"), helper=True),
        _float_function("erf", erf64, "fg_erf_f32", ("erff", "erf"), helper=True),
        _float_function(
            "sigmoid", _sigmoid, "fg_sigmoid_f32", ("fg_sigmoid_f32", "fg_sigmoid_f64"), helper=True
        ),
    )
}


@dataclass(frozen=True)
class Reduction:
    """A row reduction (``row_sum``, ``row_max``): ``combine`` is the operation that
    merges two partial results, ``identity(dtype)`` the value of an empty row and
    ``numpy(values, dtype)`` its meaning over a (rows, cols) array, keeping (rows, 1)."""

    name: str
    combine: str
    identity: Callable[[str], float | int]
    numpy: Callable[[np.ndarray, str], np.ndarray]


def _sum(values: np.ndarray, dtype: str) -> np.ndarray:
    """Float sums accumulate in float64 and round once (the accurate answer); integer
    sums wrap at 32 bits."""
    if dtype in FLOATS:
        return as_dtype(np.sum(values.astype(np.float64), axis=1, keepdims=True), dtype)
    return np.sum(values, axis=1, keepdims=True, dtype=NUMPY_DTYPES[dtype])


def _max(values: np.ndarray, dtype: str) -> np.ndarray:
    """A float maximum ignores NaN, like ``max``."""
    if dtype in FLOATS:
        return as_dtype(np.fmax.reduce(values, axis=1, keepdims=True, initial=-np.inf), dtype)
    return np.max(values, axis=1, keepdims=True, initial=_lowest(dtype))


def _lowest(dtype: str) -> float | int:
    return float("-inf") if dtype in FLOATS else INT_RANGE[dtype][0]


REDUCTIONS: dict[str, Reduction] = {
    r.name: r
    for r in (
        Reduction("sum", "add", lambda dtype: 0, _sum),
        Reduction("max", "max", _lowest, _max),
    )
}
