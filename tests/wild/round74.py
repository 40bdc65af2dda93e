"""Round 74 of kernels from the wild, merged into ``tests.wild.CORPUS``: speech and audio,
and ggml operators the corpus did not hold yet (it held ggml's rms_norm, bin_bcast,
q4_0 dequantisation, rope, soft_max, argmax, timestep embedding, mmvq, quantize_q8_1
and ggml-webgpu's argmax and row_norm). Each is read, not copied (the project's rule
for public code). What is theirs is kept: the entry points and their parameters
(names, types, order; ggml's ``int64_t`` sizes, its scalars before or after the
pointers), the block and workgroup sizes and launch geometry of their hosts, the shared
and workgroup memory, the barriers where they stand, and the numerics (the order of each
sum, ggml-webgpu's ``1e30`` sentinel). What is ours: the comments, the formatting, the
few macros ggml's headers give (``GGML_UNUSED``, the sort-order enum, the Hopper
guard's constant), the preprocessor's work on ggml-webgpu's templates (rendered as
ggml's ``pre_wgsl.hpp`` renders them for the variant named), and the one WebGPU port.

- ggml-org/llama.cpp (MIT) at 34a50172, ``ggml/src/ggml-cuda/im2col.cu``:
  ``im2col_kernel<float>``, the front end of ``ggml_conv_1d`` that whisper.cpp's
  encoder runs before its two convolutions' matrix products (is_2D false: IH = KH = OH
  = 1), declared with the second convolution's geometry (kernel 3, stride 2, padding 1,
  dilation 1; whisper tiny's 384 channels). Block ``MIN(IC*KH*KW, 256)``, grid
  ``(ceil(IC*KH*KW / 256), OW, MIN(N*OH, 65535))``; the channel and batch strides
  ``IC_IH_IW`` and ``IH_IW`` are the host's ``nb[1] / 4`` and ``nb[2] / 4``, named as
  ggml names them (the channel's stride in the first).
- The same repository at e1a0b914, ``ggml/src/ggml-webgpu/wgsl-shaders/im2col.wgsl``:
  the WebGPU backend's own im2col, rendered with ``INPUT_F32``, ``OUTPUT_F32`` and
  ``WG_SIZE`` 256 (its ``#include "common_decls.tmpl"`` and ``enable f16;`` left out:
  the f32 variant uses neither, and SwiftShader has no f16), element strides in its
  ``Params`` as the host computes them for contiguous tensors.
- The same repository at 036b9f4c, ``ggml/src/ggml-cuda/argsort.cu``:
  ``k_argsort_f32_i32<GGML_SORT_ORDER_DESC>`` (top-k sampling's and MoE routing's
  order), the bitonic path (no CUB, or rows of at most 1024): a row a block, the
  indices padded to a power of two in ``extern __shared__`` memory, padding told by
  ``index >= ncols`` (never a sentinel value), several columns a thread past 1024
  (``CUDA_ARGSORT_BLOCK_SIZE``), ``__syncthreads()`` after each (k, j) stage.
- The same repository at 8fa1895f, ``ggml/src/ggml-webgpu/wgsl-shaders/argsort.wgsl``,
  rendered with ``ORDER`` 1 (descending) and ``WG_SIZE`` 256 (our choice): a tile of
  256 a workgroup, padding told by the sentinel ``-1e30`` (the macro as a ``const``),
  one tile a row here (rows of at most 256: longer rows go through its
  ``argsort_merge.wgsl``, not taken).
- The same repository at 614dee04, ``ggml/src/ggml-cuda/conv-transpose-1d.cu``:
  ``conv_transpose_1d_kernel``, the transposed convolution audio decoders built on
  ggml upsample with (encodec.cpp's decoder; vocoders run it with p0 = 0 and crop the
  output to ``T * s``): sixteen ints by value before the three pointers, one thread an
  output sample summing every input frame whose taps reach it, padding and dilation unused (the host passes 0 and 1), the
  Hopper guard around ``cudaGridDependencySynchronize()``; stride 4, blocks of 256
  (``CUDA_CONV_TRANPOSE_1D_BLOCK_SIZE``). The WebGPU port is ours, the same loops.

Inputs: the oracle's draws, but the argsorts' rows, which hold distinct values, as
ggml's test-backend-ops draws them (a bitonic network is not stable, and ggml's order
among equal keys is its network's, not numpy's).

For the GPU run to confirm: each CUDA original passes on the H100 (im2col's 2-D grid of
``OW`` by ``N*OH`` with a partial last block of columns; the argsort's 2048-wide pad of a
1500-column row, two columns a thread, and its 1-column row; the transposed
convolution's Hopper guard); each CUDA mutant fails by its values or by the illegal
address it makes, and the argsort without its stage barrier by its values or under
compute-sanitizer (``Wild.races``).

What they showed: tests/test_wild_round74.py.
"""

# ruff: noqa: E501  (the CUDA and WGSL keep their sources' long lines)

from __future__ import annotations

import numpy as np

from forge import BufferSpec, Dispatch, KernelSpec, Schedule, ceil_div

from . import Wild

# -- 1. ggml-cuda im2col: whisper's conv1d front end ------------------------------------

# whisper's second encoder convolution: kernel 3, stride 2, padding 1
_KW, _S0, _P0, _D0 = 3, 2, 1, 1


def _ow(iw: int) -> int:
    # ggml_calc_conv_output_size
    return (iw + 2 * _P0 - _D0 * (_KW - 1) - 1) // _S0 + 1


_IM2COL_CUDA = r"""// kernel-forge corpus: ggml-cuda's im2col_kernel (im2col.cu), read, not copied.
// [N, IC, IH, IW] => [N, OH, OW, IC*KH*KW]; whisper's conv1d runs it with IH = KH = OH = 1.
#include <cstdint>

#define MAX_GRIDDIM_Z 65535
#define GGML_UNUSED(x) (void)(x)

template <typename T>
static  __global__ void im2col_kernel(
        const float * x, T * dst,
        int64_t IC, int64_t IW, int64_t IH, int64_t OH, int64_t OW, int64_t KW, int64_t KH,
        int64_t IC_IH_IW, int64_t IH_IW, int64_t N_OH, int64_t KH_KW, int64_t IC_KH_KW,
        int s0, int s1, int p0, int p1, int d0, int d1) {
    // one thread a (channel, tap) of the patch; blockIdx.y the output column
    const int64_t i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i >= IC_KH_KW) {
        return;
    }

    const int64_t iic = i / (KH_KW);
    const int64_t rem = i - iic * KH_KW;
    const int64_t ikh = rem / KW;
    const int64_t ikw = rem - ikh * KW;

    const int64_t  iow = blockIdx.y;
    // (batch, output row) pairs past gridDim.z's limit loop
    for (int64_t iz = blockIdx.z; iz < N_OH; iz+=MAX_GRIDDIM_Z) {
        const int64_t  in = iz / OH;
        const int64_t  ioh = iz - in * OH;

        const int64_t iiw = iow * s0 + ikw * d0 - p0;
        const int64_t iih = ioh * s1 + ikh * d1 - p1;

        const int64_t offset_dst =
            ((in * OH + ioh) * OW + iow) * IC_KH_KW + iic * KH_KW + ikh * KW + ikw;

        if (iih < 0 || iih >= IH || iiw < 0 || iiw >= IW) {
            dst[offset_dst] = 0.0f;
        } else {
            // IC_IH_IW holds the channel's stride (the host's nb[1] / 4), IH_IW the batch's
            const int64_t offset_src = iic * IC_IH_IW + in * IH_IW;
            dst[offset_dst] = x[offset_src + iih * IW + iiw];
        }
    }

    GGML_UNUSED(IC);
    GGML_UNUSED(KH);
}
"""


def _im2col_params(size) -> dict:
    n, ic, iw = int(size.N), int(size.IC), int(size.IW)
    ow = _ow(iw)
    return {
        "IC": ic,
        "IW": iw,
        "IH": 1,
        "OH": 1,
        "OW": ow,
        "KW": _KW,
        "KH": 1,
        "IC_IH_IW": iw,  # nb[1] / 4: the channel's stride
        "IH_IW": ic * iw,  # nb[2] / 4: the batch's stride
        "N_OH": n,
        "KH_KW": _KW,
        "IC_KH_KW": ic * _KW,
        "s0": _S0,
        "s1": 1,
        "p0": _P0,
        "p1": 0,
        "d0": _D0,
        "d1": 1,
    }


def _im2col_reference(x, N, IC, IW):
    """ggml_im2col for 1-D: dst[n, ow, ic, kw] = x[n, ic, ow*s0 + kw*d0 - p0], zero
    outside the row."""
    x = x.reshape(int(N), int(IC), int(IW))
    padded = np.pad(x, ((0, 0), (0, 0), (_P0, _P0)))
    ow = _ow(int(IW))
    taps = np.arange(ow)[:, None] * _S0 + np.arange(_KW)[None, :] * _D0  # (OW, KW)
    cols = padded[:, :, taps]  # (N, IC, OW, KW)
    return {"dst": np.ascontiguousarray(cols.transpose(0, 2, 1, 3)).reshape(-1)}


def _im2col_count(size) -> int:
    return int(size.N) * _ow(int(size.IW)) * int(size.IC) * _KW


# N=2 with whisper tiny's 384 channels (1152 threads a column: four full blocks and a
# partial one), 80 channels (one block of 240), and a small odd case
_IM2COL_SIZES = ("N=2,IC=384,IW=21", "N=1,IC=80,IW=30", "N=3,IC=7,IW=5")

_I64 = (
    "IC",
    "IW",
    "IH",
    "OH",
    "OW",
    "KW",
    "KH",
    "IC_IH_IW",
    "IH_IW",
    "N_OH",
    "KH_KW",
    "IC_KH_KW",
)

IM2COL_CUDA = Wild(
    KernelSpec(
        id="wild_r74_ggml_cuda_im2col_1d_whisper_conv",
        entry_point="im2col_kernel<float>",
        sources={"cuda": _IM2COL_CUDA},
        dims=("N", "IC", "IW"),
        buffers=(
            BufferSpec(0, "f32", "read", name="x", count="N*IC*IW"),
            BufferSpec(1, "f32", "read_write", name="dst", count=_im2col_count),
            BufferSpec.uniform(
                2,
                (
                    *((f, "i64") for f in _I64),
                    *((f, "i32") for f in ("s0", "s1", "p0", "p1", "d0", "d1")),
                ),
                name="params",
            ),
        ),
        reference=_im2col_reference,
        params=_im2col_params,
        launches=(
            Dispatch(
                "im2col_kernel<float>",
                # im2col_cuda: block_nums(num_blocks, OW, MIN(N_OH, MAX_GRIDDIM_Z))
                grid=lambda sch, s: (
                    ceil_div(int(s.IC) * _KW, 256),
                    _ow(int(s.IW)),
                    min(int(s.N), 65535),
                ),
                # MIN(IC_KH_KW, CUDA_IM2COL_BLOCK_SIZE)
                schedule={"cuda": lambda sch, s: Schedule(min(int(s.IC) * _KW, 256))},
            ),
        ),
        schedules=(Schedule(256),),
        test_sizes=_IM2COL_SIZES,
    ),
    {
        "the padding added, not subtracted": (
            "cuda",
            "const int64_t iiw = iow * s0 + ikw * d0 - p0;",
            "const int64_t iiw = iow * s0 + ikw * d0 + p0;",
        ),
        "the right edge read one past": (
            "cuda",
            "iiw < 0 || iiw >= IW)",
            "iiw < 0 || iiw > IW)",
        ),
        "the last tap of the last channel dropped": (
            "cuda",
            "if (i >= IC_KH_KW) {",
            "if (i >= IC_KH_KW - 1) {",
        ),
        "the channel and batch strides swapped": (
            "cuda",
            "const int64_t offset_src = iic * IC_IH_IW + in * IH_IW;",
            "const int64_t offset_src = iic * IH_IW + in * IC_IH_IW;",
        ),
    },
)


# -- 2. ggml-webgpu im2col.wgsl ----------------------------------------------------------

_IM2COL_WGSL = """// kernel-forge corpus: ggml-webgpu's im2col.wgsl (read, not copied), rendered with
// INPUT_F32, OUTPUT_F32 and WG_SIZE 256.

@group(0) @binding(0)
var<storage, read_write> input: array<f32>;

@group(0) @binding(1)
var<storage, read_write> output: array<f32>;

struct Params {
    offset_i: u32,
    offset_o: u32,

    // strides in elements
    si0: u32, si1: u32, si2: u32, si3: u32,
    so0: u32, so1: u32, so2: u32, so3: u32,

    KW: u32, KH: u32, IC: u32,
    IW: u32, IH: u32, N: u32,
    OW: u32, OH: u32,

    s0: u32, s1: u32,  // stride
    p0: u32, p1: u32,  // padding
    d0: u32, d1: u32,  // dilation
}

@group(0) @binding(2)
var<uniform> params: Params;

fn load_input(idx: u32) -> f32 {
    return input[idx];
}

fn store_output(idx: u32, val: f32) {
    output[idx] = val;
}

@compute @workgroup_size(256)
fn main(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) num_wg: vec3<u32>
) {

    let threads_per_group = u32(256);
    let i_out = gid.x + (num_wg.x * threads_per_group) * gid.y;
    let K = params.KW * params.KH * params.IC;
    let M = params.OW * params.OH;
    let total = K * M * params.N;

    if (i_out >= total) {
        return;
    }

    // the output element's (k, m, n)
    var i = i_out;
    let n = i / (K * M);
    i = i % (K * M);
    let m = i / K;
    let k = i % K;

    // m as (oh, ow)
    let oh = m / params.OW;
    let ow = m % params.OW;

    // k as (kw, kh, ic), kw fastest
    let kw = k % params.KW;
    let tmp = k / params.KW;
    let kh = tmp % params.KH;
    let ic = tmp / params.KH;

    let iw_i32 = i32(ow * params.s0 + kw * params.d0) - i32(params.p0);
    let ih_i32 = i32(oh * params.s1 + kh * params.d1) - i32(params.p1);

    if (iw_i32 >= 0 && iw_i32 < i32(params.IW) && ih_i32 >= 0 && ih_i32 < i32(params.IH)) {
        let iw = u32(iw_i32);
        let ih = u32(ih_i32);
        let in_idx = params.offset_i + iw * params.si0 + ih * params.si1 + ic * params.si2 + n * params.si3;
        store_output(params.offset_o + k * params.so0 + ow * params.so1 + oh * params.so2 + n * params.so3, load_input(in_idx));
    } else {
        store_output(params.offset_o + k * params.so0 + ow * params.so1 + oh * params.so2 + n * params.so3, 0.0);
    }
}
"""

_IM2COL_WGSL_FIELDS = (
    "offset_i",
    "offset_o",
    "si0",
    "si1",
    "si2",
    "si3",
    "so0",
    "so1",
    "so2",
    "so3",
    "KW",
    "KH",
    "IC",
    "IW",
    "IH",
    "N",
    "OW",
    "OH",
    "s0",
    "s1",
    "p0",
    "p1",
    "d0",
    "d1",
)


def _im2col_wgsl_params(size) -> dict:
    n, ic, iw = int(size.N), int(size.IC), int(size.IW)
    ow = _ow(iw)
    k = ic * _KW
    # the host's nb / type size for contiguous src [IW, 1, IC, N] and dst [K, OW, 1, N]
    return {
        "offset_i": 0,
        "offset_o": 0,
        "si0": 1,
        "si1": iw,
        "si2": iw,
        "si3": ic * iw,
        "so0": 1,
        "so1": k,
        "so2": k * ow,
        "so3": k * ow,
        "KW": _KW,
        "KH": 1,
        "IC": ic,
        "IW": iw,
        "IH": 1,
        "N": n,
        "OW": ow,
        "OH": 1,
        "s0": _S0,
        "s1": 1,
        "p0": _P0,
        "p1": 0,
        "d0": _D0,
        "d1": 1,
    }


def _im2col_wgsl_reference(input, N, IC, IW):
    return {"output": _im2col_reference(input, N, IC, IW)["dst"]}


IM2COL_WGSL = Wild(
    KernelSpec(
        id="wild_r74_ggml_webgpu_im2col_1d_whisper_conv",
        entry_point="main",
        sources={"wgsl": _IM2COL_WGSL},
        dims=("N", "IC", "IW"),
        buffers=(
            BufferSpec(0, "f32", "read", name="input", count="N*IC*IW"),
            BufferSpec(1, "f32", "read_write", name="output", count=_im2col_count),
            BufferSpec.uniform(2, tuple((f, "u32") for f in _IM2COL_WGSL_FIELDS), name="params"),
        ),
        reference=_im2col_wgsl_reference,
        params=_im2col_wgsl_params,
        grid=lambda sch, s: (ceil_div(_im2col_count(s), 256), 1, 1),
        schedules=(Schedule(256),),
        test_sizes=_IM2COL_SIZES,
    ),
    {
        "the right edge read one past": (
            "wgsl",
            "iw_i32 < i32(params.IW)",
            "iw_i32 <= i32(params.IW)",
        ),
        "the channel decoded by the kernel's width": (
            "wgsl",
            "let ic = tmp / params.KH;",
            "let ic = tmp / params.KW;",
        ),
        "the batch read at the channel's stride": (
            "wgsl",
            "n * params.si3;",
            "n * params.si2;",
        ),
        "the padding taps left unwritten": (
            "wgsl",
            "    } else {\n        store_output(params.offset_o + k * params.so0 + ow * params.so1 + oh * params.so2 + n * params.so3, 0.0);\n    }",
            "    }",
        ),
    },
)


# -- 3. ggml-cuda argsort: a bitonic sort of indices padded to a power of two -----------

_ARGSORT_CUDA = r"""// kernel-forge corpus: ggml-cuda's bitonic argsort (argsort.cu), read, not copied.
// ggml.h's sort order, and the block limit argsort.cuh defines.
#define CUDA_ARGSORT_BLOCK_SIZE 1024

enum ggml_sort_order {
    GGML_SORT_ORDER_ASC,
    GGML_SORT_ORDER_DESC,
};

template<typename T>
static inline __device__ void ggml_cuda_swap(T & a, T & b) {
    T tmp = a;
    a = b;
    b = tmp;
}

// the compare-exchange at (k, j) of column col with col ^ j; an index past ncols is
// padding and always goes last
template<ggml_sort_order order>
static inline __device__ void bitonic_step(const float * x_row, int * dst_row, const int ncols, const int col, const int k, const int j) {
    const int ixj = col ^ j;
    if (ixj <= col) {
        return;
    }
    if ((col & k) == 0) {
        if (dst_row[col] >= ncols ||
            (dst_row[ixj] < ncols && (order == GGML_SORT_ORDER_ASC ?
                x_row[dst_row[col]] > x_row[dst_row[ixj]] :
                x_row[dst_row[col]] < x_row[dst_row[ixj]]))
        ) {
            ggml_cuda_swap(dst_row[col], dst_row[ixj]);
        }
    } else {
        if (dst_row[ixj] >= ncols ||
            (dst_row[col] < ncols && (order == GGML_SORT_ORDER_ASC ?
                x_row[dst_row[col]] < x_row[dst_row[ixj]] :
                x_row[dst_row[col]] > x_row[dst_row[ixj]]))
        ) {
            ggml_cuda_swap(dst_row[col], dst_row[ixj]);
        }
    }
}

// a row a block; each thread owns columns threadIdx.x + m * blockDim.x of the padded
// row, and the lower column of each pair does the exchange
template<ggml_sort_order order>
static __global__ void k_argsort_f32_i32(const float * x, int * dst, const int ncols, int ncols_pad) {
    const int row = blockIdx.x;

    const float * x_row = x + row * ncols;
    extern __shared__ int dst_row[];

    for (int col = threadIdx.x; col < ncols_pad; col += blockDim.x) {
        dst_row[col] = col;
    }

    __syncthreads();

    for (int k = 2; k <= ncols_pad; k *= 2) {
        for (int j = k / 2; j > 0; j /= 2) {
            for (int col = threadIdx.x; col < ncols_pad; col += blockDim.x) {
                bitonic_step<order>(x_row, dst_row, ncols, col, k, j);
            }
            // every exchange of this stage before the next reads
            __syncthreads();
        }
    }

    // the padding stays behind
    for (int col = threadIdx.x; col < ncols; col += blockDim.x) {
        dst[row * ncols + col] = dst_row[col];
    }
}
"""


def _next_pow2(n: int) -> int:
    p = 1
    while p < n:
        p *= 2
    return p


def _distinct_rows(rng, count, size):
    """Distinct values (no ties: a bitonic network orders equal keys its own way), on a
    grid of 1/4 and of both signs, in a random order."""
    return ((rng.permutation(count) - count // 2) * 0.25).astype(np.float32)


def _argsort_desc_reference(x, nrows, ncols):
    rows = x.reshape(int(nrows), int(ncols))
    return np.argsort(-rows.astype(np.float64), axis=1, kind="stable").astype(np.int32).reshape(-1)


ARGSORT_CUDA = Wild(
    KernelSpec(
        id="wild_r74_ggml_cuda_argsort_f32_i32_bitonic_desc",
        entry_point="k_argsort_f32_i32<GGML_SORT_ORDER_DESC>",
        sources={"cuda": _ARGSORT_CUDA},
        dims=("nrows", "ncols"),
        buffers=(
            BufferSpec(0, "f32", "read", name="x", count="nrows*ncols", fill=_distinct_rows),
            BufferSpec(1, "i32", "read_write", name="dst", count="nrows*ncols"),
            BufferSpec.uniform(2, (("ncols", "i32"), ("ncols_pad", "i32")), name="params"),
        ),
        reference=_argsort_desc_reference,
        params=lambda s: {"ncols": int(s.ncols), "ncols_pad": _next_pow2(int(s.ncols))},
        launches=(
            Dispatch(
                "k_argsort_f32_i32<GGML_SORT_ORDER_DESC>",
                grid=lambda sch, s: (int(s.nrows), 1, 1),
                # block_dims: ncols_pad below CUDA_ARGSORT_BLOCK_SIZE, else the limit
                schedule={"cuda": lambda sch, s: Schedule(min(_next_pow2(int(s.ncols)), 1024))},
                shared_bytes=lambda sch, s: _next_pow2(int(s.ncols)) * 4,
            ),
        ),
        schedules=(Schedule(1024),),
        # a 2048-wide pad, two columns a thread (the path without CUB); a 64-wide pad
        # of a 37-column row; one column
        test_sizes=("nrows=4,ncols=1500", "nrows=5,ncols=37", "nrows=3,ncols=1"),
    ),
    {
        "the padding compared as a column": (
            "cuda",
            "(dst_row[ixj] < ncols && (order == GGML_SORT_ORDER_ASC ?",
            "((order == GGML_SORT_ORDER_ASC ?",
        ),
        "the direction taken from j, not k": (
            "cuda",
            "if ((col & k) == 0) {",
            "if ((col & j) == 0) {",
        ),
        "no barrier after a stage": (
            "cuda",
            "            // every exchange of this stage before the next reads\n            __syncthreads();\n",
            "",
        ),
        "the result copied out at the padded width": (
            "cuda",
            "dst[row * ncols + col] = dst_row[col];",
            "dst[row * ncols_pad + col] = dst_row[col];",
        ),
    },
    races=frozenset({"no barrier after a stage"}),
)


# -- 4. ggml-webgpu argsort.wgsl: a tile of 256, a sentinel for the padding -------------

_ARGSORT_WGSL = """// kernel-forge corpus: ggml-webgpu's argsort.wgsl (read, not copied), rendered with
// ORDER 1 (descending) and WG_SIZE 256; the EXTREME_VALUE macro as a const.
@group(0) @binding(0)
var<storage, read_write> src: array<f32>;

@group(0) @binding(1)
var<storage, read_write> dst: array<i32>;

struct Params {
    offset_src: u32,  // elements
    offset_dst: u32,  // elements

    stride_src1: u32,
    stride_src2: u32,
    stride_src3: u32,

    stride_dst1: u32,
    stride_dst2: u32,
    stride_dst3: u32,

    ne0: u32,
    ne1: u32,
    ne2: u32,

    npr: u32,  // tiles a row
    nrows: u32
};

@group(0) @binding(2)
var<uniform> params: Params;

var<workgroup> shmem_idx: array<u32, 256>;

// descending: the padding below every value
const EXTREME_VALUE: f32 = -1e30;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) num_wg: vec3<u32>,
        @builtin(local_invocation_id) lid: vec3<u32>) {
    let linear = wid.x + wid.y * num_wg.x;
    // workgroups past the last tile
    if (linear >= params.npr * params.nrows) {
        return;
    }
    let tile = linear % params.npr;
    var row = linear / params.npr;
    let i3 = row / (params.ne2 * params.ne1);
    row = row % (params.ne2 * params.ne1);
    let i2 = row / params.ne1;
    let i1 = row % params.ne1;

    let row_base = params.offset_src +
        i1 * params.stride_src1 +
        i2 * params.stride_src2 +
        i3 * params.stride_src3;

    let tile_base = tile * 256u;
    let idx = tile_base + lid.x;
    shmem_idx[lid.x] = select(params.ne0, idx, idx < params.ne0);
    workgroupBarrier();

    var k = 2u;
    while (k <= 256u) {
        var j = k >> 1;
        while (j > 0) {
            let ixj = lid.x ^ j;
            if (ixj > lid.x) {
                let dir_up = (lid.x & k) == 0;
                let a_idx = shmem_idx[lid.x];
                let b_idx = shmem_idx[ixj];
                let a_val = select(EXTREME_VALUE, src[row_base + a_idx], a_idx < params.ne0);
                let b_val = select(EXTREME_VALUE, src[row_base + b_idx], b_idx < params.ne0);
                let should_swap = select(
                    (a_val > b_val),
                    (a_val < b_val),
                    dir_up);
                if (should_swap) {
                    shmem_idx[lid.x] = b_idx;
                    shmem_idx[ixj] = a_idx;
                }
            }
            workgroupBarrier();
            j >>= 1;
        }
        k <<= 1;
    }

    if (idx < params.ne0) {
        let row_dst = params.offset_dst +
            i1 * params.stride_dst1 +
            i2 * params.stride_dst2 +
            i3 * params.stride_dst3;
        dst[row_dst + idx] = i32(shmem_idx[lid.x]);
    }
}
"""

_ARGSORT_WGSL_FIELDS = (
    "offset_src",
    "offset_dst",
    "stride_src1",
    "stride_src2",
    "stride_src3",
    "stride_dst1",
    "stride_dst2",
    "stride_dst3",
    "ne0",
    "ne1",
    "ne2",
    "npr",
    "nrows",
)


def _argsort_wgsl_params(size) -> dict:
    rows, cols = int(size.nrows), int(size.ncols)
    # a contiguous [ncols, nrows] tensor; one tile a row (ncols <= WG_SIZE)
    return {
        "offset_src": 0,
        "offset_dst": 0,
        "stride_src1": cols,
        "stride_src2": cols * rows,
        "stride_src3": cols * rows,
        "stride_dst1": cols,
        "stride_dst2": cols * rows,
        "stride_dst3": cols * rows,
        "ne0": cols,
        "ne1": rows,
        "ne2": 1,
        "npr": ceil_div(cols, 256),
        "nrows": rows,
    }


def _argsort_wgsl_reference(src, nrows, ncols):
    return {"dst": _argsort_desc_reference(src, nrows, ncols)}


ARGSORT_WGSL = Wild(
    KernelSpec(
        id="wild_r74_ggml_webgpu_argsort_desc_sentinel",
        entry_point="main",
        sources={"wgsl": _ARGSORT_WGSL},
        dims=("nrows", "ncols"),
        buffers=(
            BufferSpec(0, "f32", "read", name="src", count="nrows*ncols", fill=_distinct_rows),
            BufferSpec(1, "i32", "read_write", name="dst", count="nrows*ncols"),
            BufferSpec.uniform(2, tuple((f, "u32") for f in _ARGSORT_WGSL_FIELDS), name="params"),
        ),
        reference=_argsort_wgsl_reference,
        params=_argsort_wgsl_params,
        grid=lambda sch, s: (int(s.nrows), 1, 1),
        schedules=(Schedule(256),),
        # a padded tile, a full one, a short row
        test_sizes=("nrows=6,ncols=200", "nrows=3,ncols=256", "nrows=4,ncols=5"),
    ),
    {
        "the padding's sentinel above every value": (
            "wgsl",
            "const EXTREME_VALUE: f32 = -1e30;",
            "const EXTREME_VALUE: f32 = 1e30;",
        ),
        "the direction taken from j, not k": (
            "wgsl",
            "let dir_up = (lid.x & k) == 0;",
            "let dir_up = (lid.x & j) == 0;",
        ),
        "no barrier after a compare-exchange step": (
            "wgsl",
            "            workgroupBarrier();\n            j >>= 1;",
            "            j >>= 1;",
        ),
        "the last merge skipped": (
            "wgsl",
            "while (k <= 256u) {",
            "while (k < 256u) {",
        ),
    },
)


# -- 5. ggml-cuda conv_transpose_1d: an audio decoder's upsampling ----------------------

_CT_S0 = 4  # the upsampling stride

_CONV_T1D_CUDA = r"""// kernel-forge corpus: ggml-cuda's conv_transpose_1d_kernel (conv-transpose-1d.cu),
// read, not copied. src0: weights [K, OC, IC]; src1: input [L, IC]; dst [(L-1)*s0 + K, OC].
#define GGML_UNUSED(x) (void)(x)
#define GGML_CUDA_CC_HOPPER 900

static  __global__ void conv_transpose_1d_kernel(
        const int s0, const int p0, const int d0, const int output_size,
        const int src0_ne0, const int src0_ne1, const int src0_ne2, const int src0_ne3,
        const int src1_ne0, const int src1_ne1, const int src1_ne2, const int src1_ne3,
        const int dst_ne0, const int dst_ne1, const int dst_ne2, const int dst_ne3,
        const float * src0, const float * src1,  float * dst) {
#if !defined(GGML_USE_HIP) && __CUDA_ARCH__ >= GGML_CUDA_CC_HOPPER
    cudaGridDependencySynchronize();
#endif
    int global_index = threadIdx.x + blockIdx.x * blockDim.x;
    if (global_index >= output_size) {
        return;
    }

    // one output sample: its channel, and below its position
    int out_index = global_index / dst_ne0;

    float accumulator = 0;

    for (int c = 0; c < src0_ne2; c++) {
        int idx = global_index % dst_ne0;

        int kernel_offset = (src0_ne0 * src0_ne1 * c) + (out_index * src0_ne0);
        int input_offset = src1_ne0 * c;

        // every input frame i whose taps i*s0 .. i*s0 + K - 1 cover idx
        for (int i = 0; i < src1_ne0; i++) {
            if (!(idx >= i*s0 && idx < i*s0 + src0_ne0)) {
                continue;
            }
            int weight_idx = idx - i*s0;

            float kernel_weight = src0[kernel_offset + weight_idx];
            float input_value =  src1[input_offset+i];

            accumulator += kernel_weight * input_value;
        }
    }
    dst[global_index] = accumulator;
    GGML_UNUSED(p0); GGML_UNUSED(d0); GGML_UNUSED(src0_ne3);
    GGML_UNUSED(src1_ne3); GGML_UNUSED(dst_ne3);
    GGML_UNUSED(src1_ne1); GGML_UNUSED(dst_ne1);
    GGML_UNUSED(src1_ne2); GGML_UNUSED(dst_ne2);
#if !defined(GGML_USE_HIP) && __CUDA_ARCH__ >= GGML_CUDA_CC_HOPPER
    cudaTriggerProgrammaticLaunchCompletion();
#endif
}
"""

_CONV_T1D_WGSL = """// kernel-forge corpus: a WebGPU port of ggml-cuda's conv_transpose_1d_kernel (ours):
// one invocation an output sample, the same loops and the same order of the sum.
struct Params {
    s0: i32, p0: i32, d0: i32, output_size: i32,
    src0_ne0: i32, src0_ne1: i32, src0_ne2: i32, src0_ne3: i32,
    src1_ne0: i32, src1_ne1: i32, src1_ne2: i32, src1_ne3: i32,
    dst_ne0: i32, dst_ne1: i32, dst_ne2: i32, dst_ne3: i32,
}

@group(0) @binding(0) var<storage, read> src0: array<f32>;
@group(0) @binding(1) var<storage, read> src1: array<f32>;
@group(0) @binding(2) var<storage, read_write> dst: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;

@compute @workgroup_size(256)
fn conv_transpose_1d_kernel(@builtin(global_invocation_id) gid: vec3<u32>) {
    let global_index = i32(gid.x);
    if (global_index >= p.output_size) {
        return;
    }
    let out_index = global_index / p.dst_ne0;
    let idx = global_index % p.dst_ne0;

    var accumulator = 0.0;
    for (var c = 0; c < p.src0_ne2; c++) {
        let kernel_offset = p.src0_ne0 * p.src0_ne1 * c + out_index * p.src0_ne0;
        let input_offset = p.src1_ne0 * c;
        for (var i = 0; i < p.src1_ne0; i++) {
            if (idx < i * p.s0 || idx >= i * p.s0 + p.src0_ne0) {
                continue;
            }
            let weight_idx = idx - i * p.s0;
            accumulator += src0[kernel_offset + weight_idx] * src1[input_offset + i];
        }
    }
    dst[global_index] = accumulator;
}
"""

_CT_FIELDS = (
    "s0",
    "p0",
    "d0",
    "output_size",
    "src0_ne0",
    "src0_ne1",
    "src0_ne2",
    "src0_ne3",
    "src1_ne0",
    "src1_ne1",
    "src1_ne2",
    "src1_ne3",
    "dst_ne0",
    "dst_ne1",
    "dst_ne2",
    "dst_ne3",
)


def _ct_ol(size) -> int:
    # ggml_calc_conv_transpose_1d_output_size with p0 = 0, d0 = 1
    return (int(size.L) - 1) * _CT_S0 + int(size.K)


def _ct_params(size) -> dict:
    k, oc, ic, length = int(size.K), int(size.OC), int(size.IC), int(size.L)
    ol = _ct_ol(size)
    return {
        "s0": _CT_S0,
        "p0": 0,  # the host's: opts[3] commented out
        "d0": 1,
        "output_size": ol * oc,
        "src0_ne0": k,
        "src0_ne1": oc,
        "src0_ne2": ic,
        "src0_ne3": 1,
        "src1_ne0": length,
        "src1_ne1": ic,
        "src1_ne2": 1,
        "src1_ne3": 1,
        "dst_ne0": ol,
        "dst_ne1": oc,
        "dst_ne2": 1,
        "dst_ne3": 1,
    }


def _ct_ol_n(length: int, k: int) -> int:
    return (length - 1) * _CT_S0 + k


def _conv_t1d_reference(src0, src1, K, OC, IC, L):
    """dst[oc, i*s0 + t] += w[ic, oc, t] * x[ic, i], summed over channels then frames in
    float32, the kernel's order."""
    w = src0.reshape(int(IC), int(OC), int(K))
    x = src1.reshape(int(IC), int(L))
    out = np.zeros((int(OC), _ct_ol_n(int(L), int(K))), np.float32)
    # each output's order in the kernel: channels outermost, frames ascending
    for c in range(int(IC)):
        for i in range(int(L)):
            out[:, i * _CT_S0 : i * _CT_S0 + int(K)] += w[c] * x[c, i]
    return {"dst": out.reshape(-1)}


CONV_T1D = Wild(
    KernelSpec(
        id="wild_r74_ggml_conv_transpose_1d_audio_upsample",
        entry_point="conv_transpose_1d_kernel",
        sources={"cuda": _CONV_T1D_CUDA, "wgsl": _CONV_T1D_WGSL},
        dims=("IC", "OC", "K", "L"),
        buffers=(
            BufferSpec(0, "f32", "read", name="src0", count="IC*OC*K"),
            BufferSpec(1, "f32", "read", name="src1", count="IC*L"),
            BufferSpec(2, "f32", "read_write", name="dst", count=lambda s: _ct_ol(s) * int(s.OC)),
            BufferSpec.uniform(3, tuple((f, "i32") for f in _CT_FIELDS), name="p"),
        ),
        reference=_conv_t1d_reference,
        params=_ct_params,
        # conv_transpose_1d_f32_f32_cuda: CUDA_CONV_TRANPOSE_1D_BLOCK_SIZE (256) a block
        grid=lambda sch, s: (ceil_div(_ct_ol(s) * int(s.OC), 256), 1, 1),
        schedules=(Schedule(256),),
        # kernel twice the stride (a vocoder's), a kernel not a multiple of it, and one
        # shorter than the stride (zeros between the taps)
        test_sizes=("IC=16,OC=8,K=8,L=40", "IC=5,OC=3,K=7,L=13", "IC=3,OC=2,K=3,L=6"),
    ),
    {
        "CUDA: one tap past the kernel": (
            "cuda",
            "idx < i*s0 + src0_ne0)",
            "idx <= i*s0 + src0_ne0)",
        ),
        "CUDA: the input's channel stride its channel count": (
            "cuda",
            "int input_offset = src1_ne0 * c;",
            "int input_offset = src1_ne1 * c;",
        ),
        "CUDA: the last input channel left out": (
            "cuda",
            "for (int c = 0; c < src0_ne2; c++) {",
            "for (int c = 0; c < src0_ne2 - 1; c++) {",
        ),
        "one tap past the kernel": (
            "wgsl",
            "idx >= i * p.s0 + p.src0_ne0)",
            "idx > i * p.s0 + p.src0_ne0)",
        ),
        "the weights' channel at the kernel's stride": (
            "wgsl",
            "out_index * p.src0_ne0;",
            "out_index * p.src0_ne1;",
        ),
        "the first input frame skipped": (
            "wgsl",
            "for (var i = 0; i < p.src1_ne0; i++) {",
            "for (var i = 1; i < p.src1_ne0; i++) {",
        ),
    },
)


ROUND74 = {w.kernel.id: w for w in (IM2COL_CUDA, IM2COL_WGSL, ARGSORT_CUDA, ARGSORT_WGSL, CONV_T1D)}
