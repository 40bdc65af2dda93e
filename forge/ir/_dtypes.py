"""The IR's dtypes: the ones of the dtype table (``forge.types.SCALAR_TYPES``) its type
rules, evaluator and emitters cover, plus ``bool``, the type of conditions, which no
buffer holds.

TF32 is no dtype of a buffer: it is a precision a matmul may declare for its f32 inputs
(``ir.matmul("f32", input_dtype="tf32")``), which rounds each of them as
``to_tf32`` does before it multiplies."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..types import BOOL, SCALAR_TYPES, ScalarType

__all__ = [
    "TYPES",
    "DTYPES",
    "FLOATS",
    "INTEGERS",
    "NUMPY_DTYPES",
    "INT_RANGE",
    "as_dtype",
    "TF32_DROPPED_BITS",
    "to_tf32",
]

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


#: The mantissa bits of a float32 that TF32 drops: it keeps 10 of the 23 (and the sign
#: and the 8 exponent bits), so a TF32 value is a float32 whose low 13 bits are zero.
TF32_DROPPED_BITS = 13
_TF32_HALF = np.uint32(1 << (TF32_DROPPED_BITS - 1))  # 0x1000: half a TF32 ulp
_TF32_KEPT = np.uint32(0xFFFFFFFF ^ ((1 << TF32_DROPPED_BITS) - 1))  # 0xFFFFE000
_F32_EXPONENT = np.uint32(0x7F800000)


def to_tf32(values: Any) -> np.ndarray:
    """``values`` (as float32) rounded to TF32 as PTX's ``cvt.rna.tf32.f32`` rounds: to
    the nearest value with 10 explicit mantissa bits, ties away from zero, as float32
    values whose low 13 bits are zero. On the bits: add half a TF32 ulp (0x1000) to the
    magnitude and clear the low 13 bits. A carry into the exponent is right (the next
    binade, and past the largest TF32 value, 0x7F7FE000, an infinity of the value's
    sign); subnormals round the same way (to 10 bits of the fraction); infinities and
    NaNs are kept as they are (their exponent field is all ones, where the addition
    would change a NaN's payload or carry into the sign). The hardware's instruction
    may differ at one kind of input only: a NaN whose payload lies in the 13 dropped
    bits alone, whose low bits its lowering clears too (an infinity comes out)."""
    x = np.array(values, dtype=np.float32, copy=True)
    bits = x.view(np.uint32)
    finite = (bits & _F32_EXPONENT) != _F32_EXPONENT
    bits[finite] = (bits[finite] + _TF32_HALF) & _TF32_KEPT
    return x
