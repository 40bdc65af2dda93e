"""The numpy meaning of IR expressions: the CPU oracle every backend is judged against.

Each operation's meaning is its row of the operation table (``_ops.OPERATIONS``, and
``REDUCTIONS`` for row reductions): results are rounded to their dtype as on the
device, device approximations are measured against float64 computed once, sums
accumulate in float64, integer arithmetic wraps at 32 bits.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ._dtypes import NUMPY_DTYPES, as_dtype
from ._expr import Expr, IRError
from ._ops import LEAVES, OPERATIONS, REDUCTIONS

__all__ = ["Evaluator", "NUMPY_DTYPES", "as_dtype"]


class Evaluator:
    """Evaluates expressions over numpy arrays. ``leaf(expr)`` gives the value of a
    load, param or index node; ``full_shape`` is the (rows, cols) shape a row reduction
    spans. Shared subexpressions are computed once."""

    def __init__(
        self, leaf: Callable[[Expr], np.ndarray], full_shape: tuple[int, int] | None = None
    ) -> None:
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
        if e.op in LEAVES:
            return self._leaf(e)
        if e.op == "reduce":
            if self._full_shape is None:
                raise IRError(f"{e} reduces over a row, which this pattern does not have")
            values = np.broadcast_to(self(e.args[0]), self._full_shape)
            return REDUCTIONS[e.attr[0]].numpy(values, e.dtype)
        return OPERATIONS[e.op].numpy(e, *(self(a) for a in e.args))
