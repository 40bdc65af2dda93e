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

A matmul with a rounding ``prepass`` (``ir.matmul(..., input_dtype="tf32",
prepass=True)``, CUDA only) rounds each element once instead, in a launch of its own
before the GEMM (``prepass_kernel``): ``a`` into ``a_tf32`` (m x k) and ``b`` into
``b_tf32`` (n x k), both K-major, which the GEMM then reads as a ``"tf32rz"`` GEMM of a
row-major ``a`` and col-major ``b`` (``Matmul.rounded_operands``): its truncation leaves
rounded values as they are, so the tensor-core paths need no rounding pass over shared
memory. A block of 32 x 8 threads takes a 32 x 32 tile of ``a`` or of ``b``; an operand
stored along m or n (``a`` col-major, ``b`` row-major) is transposed through shared
memory on its way, the others are rounded in place of a copy.
"""

from __future__ import annotations

__all__ = [
    "ROUNDING",
    "ROUNDING_RZ",
    "SCALAR",
    "VECTOR",
    "functions",
    "PREPASS_TILE",
    "PREPASS_MAX_WORKGROUPS",
    "PREPASS_INPUTS",
    "prepass_kernel",
    "prepass_workgroups",
]

#: The scalar and vec4 rounding functions' names, as the lowerings call them.
SCALAR = "fg_tf32"
VECTOR = "fg_tf32x4"

_WGSL_SCALAR = """\
// x rounded to TF32 as cvt.rna.tf32.f32 rounds (forge.ir.to_tf32): half a TF32 ulp added
// to the magnitude, the low 13 bits cleared; an infinity or a NaN is kept as it is (the
// choice is made on the bits, so no float but x and the result is formed)
fn fg_tf32(x: f32) -> f32 {
    let bits = bitcast<u32>(x);
    let special = (bits & 0x7f800000u) == 0x7f800000u;
    return bitcast<f32>(select((bits + 0x1000u) & 0xffffe000u, bits, special));
}
"""

_WGSL = (
    _WGSL_SCALAR
    + """
fn fg_tf32x4(x: vec4<f32>) -> vec4<f32> {
    let bits = bitcast<vec4<u32>>(x);
    let special = (bits & vec4<u32>(0x7f800000u)) == vec4<u32>(0x7f800000u);
    let rounded = (bits + vec4<u32>(0x1000u)) & vec4<u32>(0xffffe000u);
    return bitcast<vec4<f32>>(select(rounded, bits, special));
}
"""
)

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


#: The side of the square tiles of a and b a prepass workgroup rounds (its workgroup is
#: ``forge.ir._kernel.PREPASS_SCHEDULE``, 32 x 8), and the most workgroups it launches
#: (WebGPU's limit per dimension; each strides over the tiles past it).
PREPASS_TILE = 32
PREPASS_MAX_WORKGROUPS = 65535
#: A prepass's rounding function (cvt.rna's rounding, under a name of its own: the GEMM's
#: SIMT lowering defines ``fg_tf32`` as truncation) and, on WGSL, the names the module
#: gives the inputs, whose own names the GEMM's operands take.
_PREPASS_ROUNDING = "fg_prepass_tf32"
PREPASS_INPUTS = {"a": "fg_a_in", "b": "fg_b_in"}


def _tiles(rows: int, cols: int) -> int:
    return -(-rows // PREPASS_TILE) * -(-cols // PREPASS_TILE)


def prepass_workgroups(body, size) -> int:
    """The prepass's workgroups at ``size``: one per 32 x 32 tile of a and of b, at
    most ``PREPASS_MAX_WORKGROUPS``."""
    dims = body.dims(size)
    tiles = _tiles(dims["m"], dims["k"]) + _tiles(dims["k"], dims["n"])
    return min(tiles, PREPASS_MAX_WORKGROUPS)


def _stored(body, operand: str) -> tuple[str, str, str]:
    """(rows, cols, transposed) of ``operand`` as it lies in memory, row-major: a is m
    x k row-major or k x m col-major, b k x n row-major or n x k col-major; it is
    transposed on its way when its rows do not run along m or n."""
    if operand == "a":
        outer, along_k = "fg_p.m", body.a_layout == "row"
    else:
        outer, along_k = "fg_p.n", body.b_layout == "col"
    return (outer, "fg_p.k", "false") if along_k else ("fg_p.k", outer, "true")


def _comment(entry: str, body) -> str:
    return f"""\
// The first launch: a and b rounded to TF32 once, into a_tf32 (m x k) and b_tf32
// (n x k), both K-major, which the GEMM, the second launch, reads as they are:
//   {entry}
// A 32x8 workgroup per {PREPASS_TILE}x{PREPASS_TILE} tile of a (the tiles below a's tile
// count) or of b, striding over the tiles past the grid. Here a is {body.a_layout}-major
// and b {body.b_layout}-major; an operand whose rows do not run along m or n is
// transposed through workgroup memory."""


def prepass_kernel(entry: str, body, target: str, vectors=None) -> str:
    """The ``target`` text of ``<entry>_round``, a prepass matmul's first launch (module
    docstring), after its rounding function; it reads the uniform ``fg_Params`` the
    GEMM's module declares. On WGSL it reads a and b as ``PREPASS_INPUTS`` names them
    and writes a_tf32 and b_tf32 under the GEMM's names ``a`` and ``b``, arrays of
    ``vectors[name]``-vectors where the GEMM declares them so."""
    (a_rows, a_cols, a_t), (b_rows, b_cols, b_t) = _stored(body, "a"), _stored(body, "b")
    t, last = PREPASS_TILE, PREPASS_TILE - 1
    tiles_b = f"((fg_p.k + {last}u) / {t}u) * ((fg_p.n + {last}u) / {t}u)"
    tiles_a = f"((fg_p.m + {last}u) / {t}u) * ((fg_p.k + {last}u) / {t}u)"
    scalar = {"wgsl": _WGSL_SCALAR, "cuda": _CUDA}[target]
    rounding = scalar.replace("fg_tf32(", f"{_PREPASS_ROUNDING}(")
    if target == "cuda":
        return f"""{rounding}
{_comment(entry, body)}
extern "C" __global__ void __launch_bounds__({t * 8}) {entry}_round(
        const float* __restrict__ a,
        const float* __restrict__ b,
        float* __restrict__ a_tf32,
        float* __restrict__ b_tf32,
        const fg_Params fg_p) {{
    __shared__ float fg_tile[{t}][{t + 1}];
    const unsigned int fg_a_tiles = {tiles_a};
    const unsigned int fg_tiles = fg_a_tiles + {tiles_b};
    for (unsigned int fg_t = blockIdx.x; fg_t < fg_tiles; fg_t += gridDim.x) {{
        const bool fg_is_a = fg_t < fg_a_tiles;
        // the operand as it lies: rows x cols, row-major; rounded as it lies or transposed
        const float* const fg_src = fg_is_a ? a : b;
        float* const fg_dst = fg_is_a ? a_tf32 : b_tf32;
        const unsigned int fg_rows = fg_is_a ? {a_rows} : {b_rows};
        const unsigned int fg_cols = fg_is_a ? {a_cols} : {b_cols};
        const bool fg_transposed = fg_is_a ? {a_t} : {b_t};
        const unsigned int fg_index = fg_is_a ? fg_t : fg_t - fg_a_tiles;
        const unsigned int fg_col_tiles = (fg_cols + {last}u) / {t}u;
        const unsigned int fg_r0 = fg_index / fg_col_tiles * {t}u;
        const unsigned int fg_c0 = fg_index % fg_col_tiles * {t}u;
        #pragma unroll
        for (unsigned int fg_j = threadIdx.y; fg_j < {t}u; fg_j += 8u) {{
            const unsigned int fg_r = fg_r0 + fg_j, fg_c = fg_c0 + threadIdx.x;
            if (fg_r < fg_rows && fg_c < fg_cols) {{
                const size_t fg_i = (size_t)fg_r * fg_cols + fg_c;
                const float fg_v = {_PREPASS_ROUNDING}(fg_src[fg_i]);
                if (fg_transposed) {{
                    fg_tile[fg_j][threadIdx.x] = fg_v;
                }} else {{
                    fg_dst[fg_i] = fg_v;
                }}
            }}
        }}
        if (fg_transposed) {{  // the same for the whole block
            __syncthreads();
            #pragma unroll
            for (unsigned int fg_j = threadIdx.y; fg_j < {t}u; fg_j += 8u) {{
                // element (fg_c0 + fg_j, fg_r0 + x) of the transpose, cols x rows
                const unsigned int fg_r = fg_c0 + fg_j, fg_c = fg_r0 + threadIdx.x;
                if (fg_r < fg_cols && fg_c < fg_rows) {{
                    fg_dst[(size_t)fg_r * fg_rows + fg_c] = fg_tile[threadIdx.x][fg_j];
                }}
            }}
            __syncthreads();  // before the next tile overwrites fg_tile
        }}
    }}
}}
"""
    vectors = vectors or {}

    def store(name: str, index: str, value: str) -> str:
        width = vectors.get(name)
        at = f"{name}[{index} / {width}u][{index} % {width}u]" if width else f"{name}[{index}]"
        return f"{at} = {value};"

    a_in, b_in = PREPASS_INPUTS["a"], PREPASS_INPUTS["b"]
    return f"""{rounding}
{_comment(entry, body)}
// Here a and b are a_tf32 and b_tf32, and {a_in} and {b_in} the inputs a and b.
var<workgroup> fg_prepass_tile: array<array<f32, {t + 1}>, {t}>;

@compute @workgroup_size({t}, 8, 1)
fn {entry}_round(@builtin(workgroup_id) fg_wid: vec3<u32>,
        @builtin(num_workgroups) fg_nwg: vec3<u32>,
        @builtin(local_invocation_id) fg_lid3: vec3<u32>) {{
    let fg_a_tiles = {tiles_a};
    let fg_tiles = fg_a_tiles + {tiles_b};
    for (var fg_t = fg_wid.x; fg_t < fg_tiles; fg_t += fg_nwg.x) {{
        let fg_is_a = fg_t < fg_a_tiles;
        // the operand as it lies: rows x cols, row-major; rounded as it lies or transposed
        let fg_rows = select({b_rows}, {a_rows}, fg_is_a);
        let fg_cols = select({b_cols}, {a_cols}, fg_is_a);
        let fg_transposed = select({b_t}, {a_t}, fg_is_a);
        let fg_index = select(fg_t - fg_a_tiles, fg_t, fg_is_a);
        let fg_col_tiles = (fg_cols + {last}u) / {t}u;
        let fg_r0 = fg_index / fg_col_tiles * {t}u;
        let fg_c0 = fg_index % fg_col_tiles * {t}u;
        for (var fg_j = fg_lid3.y; fg_j < {t}u; fg_j += 8u) {{
            let fg_r = fg_r0 + fg_j;
            let fg_c = fg_c0 + fg_lid3.x;
            if (fg_r < fg_rows && fg_c < fg_cols) {{
                let fg_i = fg_r * fg_cols + fg_c;
                var fg_x: f32;
                if (fg_is_a) {{ fg_x = {a_in}[fg_i]; }} else {{ fg_x = {b_in}[fg_i]; }}
                let fg_v = {_PREPASS_ROUNDING}(fg_x);
                if (fg_transposed) {{
                    fg_prepass_tile[fg_j][fg_lid3.x] = fg_v;
                }} else if (fg_is_a) {{
                    {store("a", "fg_i", "fg_v")}
                }} else {{
                    {store("b", "fg_i", "fg_v")}
                }}
            }}
        }}
        if (fg_transposed) {{  // the same for the whole workgroup
            workgroupBarrier();
            for (var fg_j = fg_lid3.y; fg_j < {t}u; fg_j += 8u) {{
                // element (fg_c0 + fg_j, fg_r0 + x) of the transpose, cols x rows
                let fg_r = fg_c0 + fg_j;
                let fg_c = fg_r0 + fg_lid3.x;
                if (fg_r < fg_cols && fg_c < fg_rows) {{
                    let fg_i = fg_r * fg_rows + fg_c;
                    let fg_v = fg_prepass_tile[fg_lid3.x][fg_j];
                    if (fg_is_a) {{
                        {store("a", "fg_i", "fg_v")}
                    }} else {{
                        {store("b", "fg_i", "fg_v")}
                    }}
                }}
            }}
            workgroupBarrier();  // before the next tile overwrites the tile
        }}
    }}
}}
"""
