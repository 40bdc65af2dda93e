"""TF32 rounding in generated code: a matmul that declares TF32 inputs
(``ir.matmul("f32", input_dtype="tf32")``) rounds each f32 element of ``a`` and ``b`` as
PTX's ``cvt.rna.tf32.f32`` does before it multiplies it (``forge.ir.to_tf32``, the
meaning the numpy evaluator gives it): to 10 explicit mantissa bits, to nearest, ties
away from zero; infinities and NaNs kept. One that declares ``"tf32rz"`` truncates
instead (``to_tf32(..., "rz")``): the SIMT lowerings clear the low 13 bits of each finite
element (``ROUNDING_RZ``), and the tensor-core paths give the f32 bits to the tensor
core unconverted, which reads them so.

On the bits of a finite value that is: add half a TF32 ulp (``0x1000``) to the magnitude
(the sign bit is apart, so a tie moves away from zero), then clear the low 13 bits. A
carry out of the mantissa moves the value into the next binade, and past the largest
TF32 value (``0x7F7FE000``) into an infinity of its sign, as rounding to nearest does; a
value whose exponent field is all ones (Inf or NaN) is left alone, since the addition
would turn a NaN with a small payload into an infinity or carry into the sign bit.

The SIMT lowerings (``_matmul.py``, both targets) round each element once, as they
stage it in workgroup memory; the tensor-core pipeline (``_mma_pipeline.py``) rounds its
fragments with the instruction itself (``cvt.rna.tf32.f32``, sm_80 and later), as they
leave shared memory. The instruction's lowering (on sm_86: no half ulp added at or past
infinity, then the mask) also clears the low 13 bits of a NaN, so a NaN whose payload
lies there alone becomes an infinity on the tensor-core path only; finite values and
infinities agree bit for bit (``tests/test_tf32.py`` checks both on the device).
"""

from __future__ import annotations

__all__ = ["ROUNDING", "ROUNDING_RZ", "SCALAR", "VECTOR", "functions"]

#: The scalar and vec4 rounding functions' names, as the lowerings call them.
SCALAR = "fg_tf32"
VECTOR = "fg_tf32x4"

_WGSL = """\
// x rounded to TF32 as cvt.rna.tf32.f32 rounds (forge.ir.to_tf32): half a TF32 ulp added
// to the magnitude, the low 13 bits cleared; an infinity or a NaN is kept as it is (the
// choice is made on the bits, so no float but x and the result is formed)
fn fg_tf32(x: f32) -> f32 {
    let bits = bitcast<u32>(x);
    let special = (bits & 0x7f800000u) == 0x7f800000u;
    return bitcast<f32>(select((bits + 0x1000u) & 0xffffe000u, bits, special));
}

fn fg_tf32x4(x: vec4<f32>) -> vec4<f32> {
    let bits = bitcast<vec4<u32>>(x);
    let special = (bits & vec4<u32>(0x7f800000u)) == vec4<u32>(0x7f800000u);
    let rounded = (bits + vec4<u32>(0x1000u)) & vec4<u32>(0xffffe000u);
    return bitcast<vec4<f32>>(select(rounded, bits, special));
}
"""

_CUDA = """\
// x rounded to TF32 as cvt.rna.tf32.f32 rounds (forge.ir.to_tf32), on any architecture:
// half a TF32 ulp added to the magnitude, the low 13 bits cleared; an infinity or a NaN
// is kept as it is
__device__ __forceinline__ float fg_tf32(float x) {
    const unsigned int bits = __float_as_uint(x);
    const bool special = (bits & 0x7f800000u) == 0x7f800000u;
    return __uint_as_float(special ? bits : (bits + 0x1000u) & 0xffffe000u);
}
"""

_WGSL_RZ = """\
// x truncated to TF32 (forge.ir.to_tf32(x, "rz")): the low 13 bits cleared, as a tensor
// core reads f32; an infinity or a NaN is kept as it is
fn fg_tf32(x: f32) -> f32 {
    let bits = bitcast<u32>(x);
    let special = (bits & 0x7f800000u) == 0x7f800000u;
    return bitcast<f32>(select(bits & 0xffffe000u, bits, special));
}

fn fg_tf32x4(x: vec4<f32>) -> vec4<f32> {
    let bits = bitcast<vec4<u32>>(x);
    let special = (bits & vec4<u32>(0x7f800000u)) == vec4<u32>(0x7f800000u);
    return bitcast<vec4<f32>>(select(bits & vec4<u32>(0xffffe000u), bits, special));
}
"""

_CUDA_RZ = """\
// x truncated to TF32 (forge.ir.to_tf32(x, "rz")): the low 13 bits cleared, as a tensor
// core reads f32; an infinity or a NaN is kept as it is
__device__ __forceinline__ float fg_tf32(float x) {
    const unsigned int bits = __float_as_uint(x);
    const bool special = (bits & 0x7f800000u) == 0x7f800000u;
    return __uint_as_float(special ? bits : bits & 0xffffe000u);
}
"""

#: The rounding functions by target: ``fg_tf32`` (f32 to f32) on both, and on WGSL
#: ``fg_tf32x4`` (vec4<f32>); ``ROUNDING`` rounds to nearest, ``ROUNDING_RZ`` truncates.
ROUNDING = {"wgsl": _WGSL, "cuda": _CUDA}
ROUNDING_RZ = {"wgsl": _WGSL_RZ, "cuda": _CUDA_RZ}


def functions(target: str, rounding: str) -> str:
    """The text of ``fg_tf32`` (and on WGSL ``fg_tf32x4``) for ``target`` that reduce to
    TF32 as ``forge.ir.to_tf32(..., rounding)`` does."""
    return (ROUNDING_RZ if rounding == "rz" else ROUNDING)[target]
