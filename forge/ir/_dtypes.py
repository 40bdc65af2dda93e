"""The IR's dtypes: the ones of the dtype table (``forge.types.SCALAR_TYPES``) its type
rules, evaluator and emitters cover, plus ``bool``, the type of conditions, which no
buffer holds.

TF32 is no dtype of a buffer: it is a precision a matmul may declare for its f32 inputs,
which reduces each of them to TF32 as ``to_tf32`` does before it multiplies:
``input_dtype="tf32"`` rounds to nearest (``cvt.rna.tf32.f32``), ``input_dtype="tf32rz"``
truncates (the low bits dropped, as a tensor core reads f32 it is given unconverted)."""

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
    "TF32_ROUNDINGS",
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


#: How each TF32 input precision reduces a float32 to TF32 (``to_tf32``'s ``rounding``).
TF32_ROUNDINGS = {"tf32": "rna", "tf32rz": "rz"}


def to_tf32(values: Any, rounding: str = "rna") -> np.ndarray:
    """``values`` (as float32) reduced to TF32, float32 values whose low 13 bits are zero.

    ``rounding="rna"`` rounds as PTX's ``cvt.rna.tf32.f32``: to the nearest value with 10
    explicit mantissa bits, ties away from zero. On the bits: add half a TF32 ulp
    (0x1000) to the magnitude and clear the low 13 bits. A carry into the exponent is
    right (the next binade, and past the largest TF32 value, 0x7F7FE000, an infinity of
    the value's sign); subnormals round the same way (to 10 bits of the fraction). The
    hardware's instruction may differ at one kind of input only: a NaN whose payload
    lies in the 13 dropped bits alone, whose low bits its lowering clears too (an
    infinity comes out).

    ``rounding="rz"`` truncates (rounds toward zero): the low 13 bits cleared, which is
    what a tensor core reads of a float32 it is given unconverted.

    Either way infinities and NaNs are kept as they are (their exponent field is all
    ones, where the addition would change a NaN's payload or carry into the sign)."""
    if rounding not in TF32_ROUNDINGS.values():
        raise ValueError(
            f"to_tf32 rounds 'rna' (to nearest) or 'rz' (toward zero), got {rounding!r}"
        )
    x = np.array(values, dtype=np.float32, copy=True)
    bits = x.view(np.uint32)
    finite = (bits & _F32_EXPONENT) != _F32_EXPONENT
    half = _TF32_HALF if rounding == "rna" else np.uint32(0)
    bits[finite] = (bits[finite] + half) & _TF32_KEPT
    return x
