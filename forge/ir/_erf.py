"""An accurate, vectorised float64 ``erf`` for the numpy evaluator (numpy has none).

Below |x| = 2.5 it sums the everywhere-positive series
``erf(x) = 2/sqrt(pi) * exp(-x^2) * sum_n 2^n x^(2n+1) / (1*3*...*(2n+1))``, which has no
cancellation; above, ``erfc`` comes from its continued fraction
``sqrt(pi) * exp(x^2) * erfc(x) = 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + ...))))``, evaluated
from the tail. Both are accurate to a few float64 ulps (a test checks it against
``math.erf`` and ``math.erfc``), far below the float32 resolution the oracle judges.
"""

from __future__ import annotations

import numpy as np

__all__ = ["erf64", "erfc64"]

_SPLIT = 2.5
_SERIES_TERMS = 90  # 2x^2 = 12.5 at the split: the terms fall below 1e-17 by n = 80
_FRACTION_DEPTH = 120  # the fraction converges to float64 precision by x = 2.5 at this depth
_TWO_OVER_SQRT_PI = 1.1283791670955126
_SQRT_PI = 1.7724538509055159


def _series(x: np.ndarray) -> np.ndarray:
    x2 = x * x
    term = x.copy()
    total = x.copy()
    for n in range(1, _SERIES_TERMS):
        term = term * (2.0 * x2) / (2 * n + 1)
        total += term
    return _TWO_OVER_SQRT_PI * np.exp(-x2) * total


def _erfc_fraction(x: np.ndarray) -> np.ndarray:
    tail = x.copy()
    for k in range(_FRACTION_DEPTH, 0, -1):
        tail = x + (0.5 * k) / tail
    return np.exp(-x * x) / (_SQRT_PI * tail)


def erf64(values: np.ndarray) -> np.ndarray:
    """``erf`` of ``values`` in float64 (NaN stays NaN, +-Inf gives +-1)."""
    x = np.asarray(values, dtype=np.float64)
    out = np.empty_like(x)
    magnitude = np.abs(x)
    small = magnitude < _SPLIT
    large = (magnitude >= _SPLIT) & np.isfinite(x)
    with np.errstate(all="ignore"):
        out[small] = _series(x[small])
        out[large] = np.sign(x[large]) * (1.0 - _erfc_fraction(magnitude[large]))
    out[np.isinf(x)] = np.sign(x[np.isinf(x)])
    out[np.isnan(x)] = np.nan
    return out


def erfc64(values: np.ndarray) -> np.ndarray:
    """``erfc`` of non-negative finite ``values`` in float64, accurate in relative terms
    (used to fit the WGSL ``erf`` approximation)."""
    x = np.asarray(values, dtype=np.float64)
    with np.errstate(all="ignore"):
        return np.where(x < _SPLIT, 1.0 - erf64(x), _erfc_fraction(np.maximum(x, _SPLIT)))
