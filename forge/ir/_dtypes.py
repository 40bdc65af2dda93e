"""The IR's dtypes: the ones of the dtype table (``forge.types.SCALAR_TYPES``) its type
rules, evaluator and emitters cover, plus ``bool``, the type of conditions, which no
buffer holds."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..types import BOOL, SCALAR_TYPES, ScalarType

__all__ = ["TYPES", "DTYPES", "FLOATS", "INTEGERS", "NUMPY_DTYPES", "INT_RANGE", "as_dtype"]

#: Every IR dtype by name: ``bool`` first, then the storable types the IR computes with.
TYPES: dict[str, ScalarType] = {
    BOOL.name: BOOL,
    **{name: SCALAR_TYPES[name] for name in ("f16", "bf16", "f32", "f64", "i32", "u32")},
}
DTYPES = tuple(TYPES)
FLOATS = tuple(name for name, t in TYPES.items() if t.kind == "float")
INTEGERS = tuple(name for name, t in TYPES.items() if t.kind == "int")
NUMPY_DTYPES = {name: t.numpy for name, t in TYPES.items()}
INT_RANGE = {
    name: (int(np.iinfo(NUMPY_DTYPES[name]).min), int(np.iinfo(NUMPY_DTYPES[name]).max))
    for name in INTEGERS
}


def as_dtype(value: Any, dtype: str) -> np.ndarray:
    """``value`` as an array of IR dtype ``dtype`` (rounded to it, for a float)."""
    return np.asarray(value).astype(NUMPY_DTYPES[dtype], copy=False)
