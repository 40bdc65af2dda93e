"""The numpy meaning of IR expressions: the CPU oracle every backend is judged against.

Each operation's result is rounded to its dtype, as on the device. Where the device
functions are approximations (exp, log, tanh, erf, sigmoid, rsqrt) the evaluator computes
in float64 and rounds once, so it is the accurate answer the approximations are measured
against; sums are accumulated in float64 for the same reason. Integer arithmetic wraps
at 32 bits; float-to-integer casts round toward zero and saturate (NaN gives 0); float
``min``/``max`` ignore a NaN operand (numpy ``fmin``/``fmax``).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ._erf import erf64
from ._expr import FLOATS, Expr, IRError

__all__ = ["Evaluator", "NUMPY_DTYPES", "as_dtype"]

NUMPY_DTYPES = {"bool": np.dtype(np.bool_), "f16": np.dtype(np.float16),
                "f32": np.dtype(np.float32), "f64": np.dtype(np.float64),
                "i32": np.dtype(np.int32), "u32": np.dtype(np.uint32)}


def as_dtype(value, dtype: str) -> np.ndarray:
    return np.asarray(value).astype(NUMPY_DTYPES[dtype], copy=False)


def _via_f64(function: Callable[[np.ndarray], np.ndarray]):
    return lambda e, a: as_dtype(function(np.asarray(a, np.float64)), e.dtype)


def _rsqrt(x: np.ndarray) -> np.ndarray:
    return 1.0 / np.sqrt(x)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def _cast(e: Expr, a: np.ndarray) -> np.ndarray:
    source = np.asarray(a)
    target = NUMPY_DTYPES[e.dtype]
    if source.dtype.kind == "f" and target.kind in "iu":
        info = np.iinfo(target)
        wide = np.trunc(source.astype(np.float64))
        wide = np.where(np.isnan(wide), 0.0, np.clip(wide, info.min, info.max))
        return wide.astype(target)
    return source.astype(target)


def _minmax(float_op, int_op):
    def op(e: Expr, a, b):
        return as_dtype((float_op if e.dtype in FLOATS else int_op)(a, b), e.dtype)
    return op


_OPS: dict[str, Callable] = {
    "add": lambda e, a, b: as_dtype(np.add(a, b), e.dtype),
    "sub": lambda e, a, b: as_dtype(np.subtract(a, b), e.dtype),
    "mul": lambda e, a, b: as_dtype(np.multiply(a, b), e.dtype),
    "div": lambda e, a, b: as_dtype(np.divide(a, b), e.dtype),
    "lt": lambda e, a, b: np.less(a, b),
    "le": lambda e, a, b: np.less_equal(a, b),
    "gt": lambda e, a, b: np.greater(a, b),
    "ge": lambda e, a, b: np.greater_equal(a, b),
    "eq": lambda e, a, b: np.equal(a, b),
    "ne": lambda e, a, b: np.not_equal(a, b),
    "and": lambda e, a, b: np.logical_and(a, b),
    "or": lambda e, a, b: np.logical_or(a, b),
    "not": lambda e, a: np.logical_not(a),
    "min": _minmax(np.fmin, np.minimum),
    "max": _minmax(np.fmax, np.maximum),
    "neg": lambda e, a: as_dtype(np.negative(a), e.dtype),
    "abs": lambda e, a: as_dtype(np.abs(a), e.dtype),
    "select": lambda e, c, t, f: as_dtype(np.where(c, t, f), e.dtype),
    "sqrt": _via_f64(np.sqrt),
    "rsqrt": _via_f64(_rsqrt),
    "exp": _via_f64(np.exp),
    "log": _via_f64(np.log),
    "tanh": _via_f64(np.tanh),
    "erf": _via_f64(erf64),
    "sigmoid": _via_f64(_sigmoid),
    "cast": _cast,
}


def _reduce(op: str, dtype: str, values: np.ndarray) -> np.ndarray:
    """Reduce a (rows, cols) array along its rows, keeping a (rows, 1) shape."""
    if op == "sum":
        if dtype in FLOATS:
            return as_dtype(np.sum(values.astype(np.float64), axis=1, keepdims=True), dtype)
        return np.sum(values, axis=1, keepdims=True, dtype=NUMPY_DTYPES[dtype])
    if dtype in FLOATS:
        return as_dtype(np.fmax.reduce(values, axis=1, keepdims=True, initial=-np.inf), dtype)
    lowest = np.iinfo(NUMPY_DTYPES[dtype]).min
    return np.max(values, axis=1, keepdims=True, initial=lowest)


class Evaluator:
    """Evaluates expressions over numpy arrays. ``leaf(expr)`` gives the value of a
    load, param or index node; ``full_shape`` is the (rows, cols) shape a row reduction
    spans. Shared subexpressions are computed once."""

    def __init__(self, leaf: Callable[[Expr], np.ndarray],
                 full_shape: tuple[int, int] | None = None) -> None:
        self._leaf = leaf
        self._full_shape = full_shape
        self._memo: dict[tuple, np.ndarray] = {}

    def __call__(self, expr: Expr) -> np.ndarray:
        cached = self._memo.get(expr.key)
        if cached is not None:
            return cached
        with np.errstate(all="ignore"):
            value = self._compute(expr)
        self._memo[expr.key] = value
        return value

    def _compute(self, e: Expr) -> np.ndarray:
        if e.op == "const":
            return np.asarray(e.attr[0], NUMPY_DTYPES[e.dtype])
        if e.op in ("param", "load", "index", "row", "col"):
            return self._leaf(e)
        if e.op == "reduce":
            if self._full_shape is None:
                raise IRError(f"{e} reduces over a row, which this pattern does not have")
            values = np.broadcast_to(self(e.args[0]), self._full_shape)
            return _reduce(e.attr[0], e.dtype, values)
        return _OPS[e.op](e, *(self(a) for a in e.args))
