"""Round 57 of kernels from the wild, merged into ``tests.wild.CORPUS``: quantisation and
type conversion as inference code publishes it, each written for this corpus after the
public source named below (read, not copied: the project's rule for public code). The
point is rounding: which way a tie goes (C's ``roundf`` away from zero, PTX's
``cvt.rni`` and WGSL's ``round`` to even, a bias added to the bits), saturation at the
ends of int8, -0.0, and NaN where the source says what it becomes. What is theirs is
kept: each ``__global__`` function's name, template parameters and parameter names,
types and order, the block layouts and launch geometry, and the numerics (a division
by the scale or a product by its reciprocal, the rounding instruction, the order of a
warp's sums, the half stores). What is ours: the comments, the locals' names where the
source's say nothing, the order of equivalent statements, the formatting, the kernel
around a conversion helper, and the WebGPU ports.

- vLLM's static per-tensor int8 quantisation (vllm-project/vllm at 00b0571e, Apache-2.0,
  ``csrc/quantization/compressed_tensors/int8_quant_kernels.cu``):
  ``static_scaled_int8_quant_kernel<scalar_t, scale_type>``, one block a token, 16
  elements a thread through ``vec_n_t`` then the row's tail one at a time, ``x / scale``
  rounded and saturated by ``float_to_int8_rn``'s inline ``cvt.rni.sat.s8.f32`` (ties
  to even, NaN to 0). The scale here is 1/8, so that the default inputs' grid of 1/16
  lands on ties. The port packs four quants a word (``round`` is ties-to-even in WGSL).
- vLLM's dynamic per-token int8 quantisation (same file): ``dynamic_scaled_int8_quant_kernel``,
  each thread's ``fmaxf`` of ``fabsf``, a ``cub::BlockReduce<float, 1024>`` (with
  ``<cub/block/block_reduce.cuh>`` and a max functor of our own, as round 26 found
  ``<cub/cub.cuh>`` refused under NVRTC), thread 0 storing ``absmax / 127``, a barrier,
  then each element times ``127 / absmax``. A row of zeros gives ``0 * inf``, NaN,
  which ``cvt.rni.sat`` makes 0; the port guards that row instead (WGSL's conversion
  of NaN to an integer has no defined result).
- llama.cpp's ``quantize_q8_1`` (ggerganov/llama.cpp at 6cb07fb0, MIT,
  ``ggml-cuda/quantize.cu``): a warp a 32-element block, ``warp_reduce_max`` of
  ``fabsf`` and ``warp_reduce_sum`` by ``__shfl_xor_sync``, ``d = amax / 127``, the
  quant ``roundf(xi / d)`` (ties away from zero) or 0 where the block is all zero, the
  row padded with zeros to ``kx_padded``, lane 0 storing ``d`` and the sum as halves.
  The port rounds away from zero by hand (WGSL has no ``roundf``).
- PyTorch's ``c10::detail::round_to_nearest_even`` (pytorch/pytorch at 00b01c16,
  BSD-3-Clause, ``c10/util/BFloat16.h``): float to bfloat16 on the bits, NaN to
  ``0x7FC0``, else ``(bits + 0x7FFF + lsb) >> 16``; the elementwise kernel around it is
  ours. Its inputs are drawn by the entry (``_bf16_inputs``: ties, NaNs of both signs
  and payloads, the largest finite). The default families held no float whose low 16
  bits are exactly 0x8000 (a bfloat16 tie), so a bias of 0x8000 (ties away) passed
  them: an oracle gap, fixed (``oracle._inputs._narrow_ties``, tests/test_wild_round57.py).
- web-rwkv's int8 matrix quantiser, its ``quantize`` pass (cryscan/web-rwkv at
  03835308, MIT or Apache-2.0, ``src/shaders/quant_mat_int8.wgsl``): a block of 128
  halves mapped onto [0, 1] by the block's (min, max) that ``compute_minmax`` left as
  packed halves, ``saturate``, then ``pack4x8unorm`` (WGSL: ``floor(0.5 + 255 e)``);
  ``BLOCK_SIZE`` and ``INT8_BLOCK_SIZE``, which web-rwkv's preprocessor fills in,
  as constants (128 and 128). The first pass is left out: the two passes read ``shape`` from two
  uniforms (each tensor's own), the spec has one; the ranges are drawn as it leaves
  them, below and above 0 (a constant block divides 0 by 0 there).

Against a reference that does not clip (the cast left to numpy), vLLM's static kernel
was failed as leaving unwritten the saturated 127s that equal a poison byte: a false
alarm of the judge, fixed. What they showed is pinned in tests/test_wild_round57.py
and summed up there.
"""

# ruff: noqa: E501  (long lines of CUDA and WGSL, and the mutants')

from __future__ import annotations

import numpy as np

from forge import BufferSpec, KernelSpec, Schedule, ceil_div

from . import Wild

# -- 1. vLLM: static_scaled_int8_quant_kernel --------------------------------------------

_STATIC_INT8_CUDA = r"""// kernel-forge corpus: vLLM's static int8 quantisation (read, not copied).
#include <cstdint>

// N elements loaded or stored as one aligned access
template <typename T, int N>
struct alignas(sizeof(T) * N) vec_n_t {
    T val[N];
};

// nearest integer, ties to even, clamped to [-128, 127]; NaN gives 0
static inline __device__ int8_t float_to_int8_rn(float x) {
    uint32_t word;
    asm volatile("cvt.rni.sat.s8.f32 %0, %1;" : "=r"(word) : "f"(x));
    return reinterpret_cast<const int8_t&>(word);
}

namespace vllm {

template <typename scalar_t, typename scale_type>
__global__ void static_scaled_int8_quant_kernel(
    scalar_t const* __restrict__ input, int8_t* __restrict__ out,
    scale_type const* scale_ptr, const int hidden_size) {
    int const VEC_SIZE = 16;
    using in_vec_t = vec_n_t<scalar_t, VEC_SIZE>;
    using out_vec_t = vec_n_t<int8_t, VEC_SIZE>;

    int const tid = threadIdx.x;
    int64_t const token_idx = blockIdx.x;
    scale_type const scale_val = *scale_ptr;

    // the token's row, offset in 64 bits (tokens * hidden may pass 2^31)
    input += token_idx * hidden_size;
    out += token_idx * hidden_size;

    auto const* in_vecs = reinterpret_cast<in_vec_t const*>(input);
    auto* out_vecs = reinterpret_cast<out_vec_t*>(out);
    int64_t const whole_vecs = hidden_size / VEC_SIZE;

    for (int i = tid; i < whole_vecs; i += blockDim.x) {
        in_vec_t src = in_vecs[i];
        out_vec_t dst;
#pragma unroll
        for (int j = 0; j < VEC_SIZE; ++j) {
            dst.val[j] = float_to_int8_rn(static_cast<float>(src.val[j]) / scale_val);
        }
        out_vecs[i] = dst;
    }
    // what is left past the last whole vector, one element a thread
    int64_t const tail = whole_vecs * VEC_SIZE;
    for (int64_t i = tail + tid; i < hidden_size; i += blockDim.x) {
        out[i] = float_to_int8_rn(static_cast<float>(input[i]) / scale_val);
    }
}

}  // namespace vllm
"""

# The port: one workgroup a token, four quants a word (the row's length a multiple of 4).
_STATIC_INT8_WGSL = """
struct Params { hidden_size: i32 }
@group(0) @binding(0) var<storage, read> input: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@group(0) @binding(2) var<storage, read> scale_ptr: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;

const THREADS = 256u;

@compute @workgroup_size(256)
fn static_scaled_int8_quant_kernel(@builtin(workgroup_id) wg: vec3<u32>,
                                   @builtin(local_invocation_id) lid: vec3<u32>) {
    let words = u32(p.hidden_size) / 4u;
    let row = wg.x * words;
    let scale_val = scale_ptr[0];
    for (var i = lid.x; i < words; i += THREADS) {
        // round() takes ties to even, as cvt.rni does; the clamp saturates
        let q = clamp(round(input[row + i] / scale_val), vec4<f32>(-128.0), vec4<f32>(127.0));
        out[row + i] = pack4xI8(vec4<i32>(q));
    }
}
"""


def _quarter(rng, count, size):
    """The per-tensor scale: 1/8, a power of two, so x / scale is exact and the grid of
    1/16 in the default inputs lands on halves."""
    return np.full(count, 0.125, np.float32)


def _static_int8_reference(input, out, scale_ptr, tokens, hidden):
    q = np.rint(input.astype(np.float32) / scale_ptr[0])
    return np.clip(q, -128, 127).astype(np.int8).reshape(-1)


STATIC_INT8 = Wild(
    KernelSpec(
        id="wild_r57_vllm_static_scaled_int8_quant",
        entry_point="vllm::static_scaled_int8_quant_kernel<float, float>",
        entry_points={"wgsl": "static_scaled_int8_quant_kernel"},
        sources={"cuda": _STATIC_INT8_CUDA, "wgsl": _STATIC_INT8_WGSL},
        dims=("tokens", "hidden"),
        buffers=(
            BufferSpec(
                0, "f32", "read", name="input", count="tokens*hidden", shape=("tokens", "hidden")
            ),
            BufferSpec(1, "i8", "read_write", name="out", count="tokens*hidden"),
            BufferSpec(2, "f32", "read", name="scale_ptr", count=1, fill=_quarter),
            BufferSpec.uniform(3, (("hidden_size", "i32"),), name="p"),
        ),
        reference=_static_int8_reference,
        params=lambda size: {"hidden_size": size.hidden},
        # grid(num_tokens), block(min(hidden_size, 1024)): the kernel strides over any
        # block; one size here
        grid=lambda s, size: (size.tokens, 1, 1),
        schedules=(Schedule(256),),
        nonfinite_inputs=False,  # activations
        # a row of 1000 has a tail of 8 past its vectors; rows whose length is no
        # multiple of 16 are misaligned for vec_n_t after the first, as in vLLM: one row
        test_sizes=("tokens=7,hidden=1024", "tokens=1,hidden=1000", "tokens=3,hidden=48"),
    ),
    {
        "CUDA: truncates instead of rounding": ("cuda", "cvt.rni.sat.s8.f32", "cvt.rzi.sat.s8.f32"),
        "CUDA: the vectors multiply by the scale": (
            "cuda",
            "static_cast<float>(src.val[j]) / scale_val",
            "static_cast<float>(src.val[j]) * scale_val",
        ),
        "CUDA: the tail starts a vector late": (
            "cuda",
            "int64_t const tail = whole_vecs * VEC_SIZE;",
            "int64_t const tail = (whole_vecs + 1) * VEC_SIZE;",
        ),
        "ties away from zero": (
            "wgsl",
            "round(input[row + i] / scale_val)",
            "sign(input[row + i] / scale_val) * floor(abs(input[row + i] / scale_val) + 0.5)",
        ),
        "saturates at 128, which wraps": (
            "wgsl",
            "vec4<f32>(127.0)",
            "vec4<f32>(128.0)",
        ),
        "multiplies by the scale": (
            "wgsl",
            "input[row + i] / scale_val",
            "input[row + i] * scale_val",
        ),
    },
)


# -- 2. vLLM: dynamic_scaled_int8_quant_kernel -------------------------------------------

_DYNAMIC_INT8_CUDA = r"""// kernel-forge corpus: vLLM's dynamic per-token int8 quantisation (read, not copied).
#include <cstdint>
#include <cub/block/block_reduce.cuh>

template <typename T, int N>
struct alignas(sizeof(T) * N) vec_n_t {
    T val[N];
};

// the larger of two, for cub's block reduction
struct MaxOfTwo {
    __device__ __forceinline__ float operator()(float a, float b) const { return fmaxf(a, b); }
};

static inline __device__ int8_t float_to_int8_rn(float x) {
    uint32_t word;
    asm volatile("cvt.rni.sat.s8.f32 %0, %1;" : "=r"(word) : "f"(x));
    return reinterpret_cast<const int8_t&>(word);
}

namespace vllm {

template <typename scalar_t, typename scale_type>
__global__ void dynamic_scaled_int8_quant_kernel(
    scalar_t const* __restrict__ input, int8_t* __restrict__ out,
    scale_type* scale, const int hidden_size) {
    constexpr int VEC_SIZE = 16;
    using in_vec_t = vec_n_t<scalar_t, VEC_SIZE>;
    using out_vec_t = vec_n_t<int8_t, VEC_SIZE>;
    int const tid = threadIdx.x;
    int64_t const token_idx = blockIdx.x;

    input += token_idx * hidden_size;
    out += token_idx * hidden_size;
    auto const* in_vecs = reinterpret_cast<in_vec_t const*>(input);
    auto* out_vecs = reinterpret_cast<out_vec_t*>(out);
    int64_t const whole_vecs = hidden_size / VEC_SIZE;

    // this thread's largest magnitude, over its vectors then the tail
    float thread_absmax = 0.0f;
    for (int64_t i = tid; i < whole_vecs; i += blockDim.x) {
        in_vec_t src = in_vecs[i];
#pragma unroll
        for (int j = 0; j < VEC_SIZE; ++j) {
            thread_absmax = fmaxf(thread_absmax, fabsf(static_cast<float>(src.val[j])));
        }
    }
    int64_t const tail = whole_vecs * VEC_SIZE;
    for (int64_t i = tail + tid; i < hidden_size; i += blockDim.x) {
        thread_absmax = fmaxf(thread_absmax, fabsf(static_cast<float>(input[i])));
    }

    // the token's: thread 0 gets the block's maximum and publishes it
    using BlockReduce = cub::BlockReduce<float, 1024>;
    __shared__ typename BlockReduce::TempStorage reduce_storage;
    float const reduced = BlockReduce(reduce_storage).Reduce(thread_absmax, MaxOfTwo{});
    __shared__ float block_absmax_val;
    if (tid == 0) {
        block_absmax_val = reduced;
        scale[token_idx] = block_absmax_val / 127.0f;
    }
    __syncthreads();

    float const tmp_scale = 127.0f / block_absmax_val;
    for (int64_t i = tid; i < whole_vecs; i += blockDim.x) {
        in_vec_t src = in_vecs[i];
        out_vec_t dst;
#pragma unroll
        for (int j = 0; j < VEC_SIZE; ++j) {
            dst.val[j] = float_to_int8_rn(static_cast<float>(src.val[j]) * tmp_scale);
        }
        out_vecs[i] = dst;
    }
    for (int64_t i = tail + tid; i < hidden_size; i += blockDim.x) {
        out[i] = float_to_int8_rn(static_cast<float>(input[i]) * tmp_scale);
    }
}

}  // namespace vllm
"""

# The port: a workgroup of 256 a token, the maximum by a tree in workgroup memory, four
# quants a word. A row of zeros is quantised to zeros by a select (vLLM gets there
# through cvt.rni.sat of 0 * inf).
_DYNAMIC_INT8_WGSL = """
struct Params { hidden_size: i32 }
@group(0) @binding(0) var<storage, read> input: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@group(0) @binding(2) var<storage, read_write> scale: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;

const THREADS = 256u;
var<workgroup> peaks: array<f32, THREADS>;

@compute @workgroup_size(256)
fn dynamic_scaled_int8_quant_kernel(@builtin(workgroup_id) wg: vec3<u32>,
                                    @builtin(local_invocation_id) lid: vec3<u32>) {
    let token = wg.x;
    let words = u32(p.hidden_size) / 4u;
    let row = token * words;
    var peak = 0.0;
    for (var i = lid.x; i < words; i += THREADS) {
        let m = abs(input[row + i]);
        peak = max(peak, max(max(m.x, m.y), max(m.z, m.w)));
    }
    peaks[lid.x] = peak;
    workgroupBarrier();
    for (var stride = THREADS / 2u; stride > 0u; stride >>= 1u) {
        if (lid.x < stride) {
            peaks[lid.x] = max(peaks[lid.x], peaks[lid.x + stride]);
        }
        workgroupBarrier();
    }
    let absmax = peaks[0];
    if (lid.x == 0u) {
        scale[token] = absmax / 127.0;
    }
    let tmp_scale = select(0.0, 127.0 / absmax, absmax > 0.0);
    for (var i = lid.x; i < words; i += THREADS) {
        let q = clamp(round(input[row + i] * tmp_scale), vec4<f32>(-128.0), vec4<f32>(127.0));
        out[row + i] = pack4xI8(vec4<i32>(q));
    }
}
"""


def _tie_rows(rng, count, size):
    """Activations a token a row: most rows drawn around 0 (every fourth of one sign,
    negative, with one element of a larger magnitude), one row of zeros, and rows whose
    maximum is 127/16, so that the scale's reciprocal is 16 and values on a grid of 1/32
    land on halves (the ties the default families never reach through a maximum)."""
    rows, width = size.tokens, size.hidden
    x = rng.normal(0.0, 1.5, (rows, width)).astype(np.float32)
    for r in range(rows):
        kind = r % 4
        if kind == 1:  # ties: j/32 with |j| < 254, the maximum 127/16 somewhere
            x[r] = rng.integers(-253, 254, width) / np.float32(32)
            x[r, rng.integers(width)] = np.float32(127 / 16) * rng.choice([-1.0, 1.0])
        elif kind == 2:  # one sign, the largest magnitude negative
            x[r] = -np.abs(x[r])
        elif kind == 3 and r == 3:
            x[r] = 0.0
            x[r, ::7] = -0.0
    return x.reshape(-1)


def _dynamic_int8_reference(input, out, scale, tokens, hidden):
    x = input.reshape(tokens, hidden).astype(np.float32)
    absmax = np.abs(x).max(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = (np.float32(127) / absmax).astype(np.float32)
        q = np.rint(x * inv[:, None])
    q = np.where(np.isnan(q), 0, np.clip(q, -128, 127))  # cvt.rni.sat: NaN to 0
    out[:] = q.astype(np.int8).reshape(-1)
    scale[:] = absmax / np.float32(127)


def _dynamic_int8_spec(kernel_id: str, target: str, source: str, entry: str, threads: int):
    return KernelSpec(
        id=kernel_id,
        entry_point=entry,
        sources={target: source},
        dims=("tokens", "hidden"),
        buffers=(
            BufferSpec(0, "f32", "read", name="input", count="tokens*hidden", fill=_tie_rows),
            BufferSpec(1, "i8", "read_write", name="out", count="tokens*hidden"),
            BufferSpec(2, "f32", "read_write", name="scale", count="tokens"),
            BufferSpec.uniform(3, (("hidden_size", "i32"),), name="p"),
        ),
        reference=_dynamic_int8_reference,
        params=lambda size: {"hidden_size": size.hidden},
        grid=lambda s, size: (size.tokens, 1, 1),
        schedules=(Schedule(threads),),
        nonfinite_inputs=False,  # activations (the fill draws none)
        test_sizes=("tokens=5,hidden=2048", "tokens=1,hidden=1000", "tokens=4,hidden=1040"),
    )


# vLLM launches min(hidden_size, 1024) threads under a BlockReduce of 1024, which counts
# all 1024: the sizes here are 1000 and more, the block 1024
DYNAMIC_INT8 = Wild(
    _dynamic_int8_spec(
        "wild_r57_vllm_dynamic_scaled_int8_quant",
        "cuda",
        _DYNAMIC_INT8_CUDA,
        "vllm::dynamic_scaled_int8_quant_kernel<float, float>",
        1024,
    ),
    {
        "CUDA: the vectors' maximum of signed values": (
            "cuda",
            "fmaxf(thread_absmax, fabsf(static_cast<float>(src.val[j])))",
            "fmaxf(thread_absmax, static_cast<float>(src.val[j]))",
        ),
        "CUDA: 128 over the maximum": (
            "cuda",
            "127.0f / block_absmax_val",
            "128.0f / block_absmax_val",
        ),
        "CUDA: no barrier before the maximum is read": (
            "cuda",
            "    __syncthreads();\n\n    float const tmp_scale",
            "\n    float const tmp_scale",
        ),
    },
    races=frozenset({"CUDA: no barrier before the maximum is read"}),
)

# the port: 256 invocations, WebGPU's default limit
DYNAMIC_INT8_WGSL = Wild(
    _dynamic_int8_spec(
        "wild_r57_vllm_dynamic_scaled_int8_quant_wgsl",
        "wgsl",
        _DYNAMIC_INT8_WGSL,
        "dynamic_scaled_int8_quant_kernel",
        256,
    ),
    {
        "the maximum of signed values": (
            "wgsl",
            "let m = abs(input[row + i]);",
            "let m = input[row + i];",
        ),
        "the scale stored as the maximum": (
            "wgsl",
            "scale[token] = absmax / 127.0;",
            "scale[token] = absmax;",
        ),
        "ties away from zero": (
            "wgsl",
            "round(input[row + i] * tmp_scale)",
            "trunc(input[row + i] * tmp_scale + 0.5 * sign(input[row + i]))",
        ),
    },
)


# -- 3. llama.cpp: quantize_q8_1 ----------------------------------------------------------

_Q8_1_CUDA = r"""// kernel-forge corpus: llama.cpp's quantize_q8_1 (read, not copied).
#include <cuda_fp16.h>
#include <cstdint>

#define WARP_SIZE 32
#define QK8_1 32

// 32 quants, their scale d and d * (their sum), 36 bytes
typedef struct {
    half2 ds;
    int8_t qs[QK8_1];
} block_q8_1;

static __device__ __forceinline__ float warp_reduce_sum(float x) {
#pragma unroll
    for (int mask = 16; mask > 0; mask >>= 1) {
        x += __shfl_xor_sync(0xffffffff, x, mask, 32);
    }
    return x;
}

static __device__ __forceinline__ float warp_reduce_max(float x) {
#pragma unroll
    for (int mask = 16; mask > 0; mask >>= 1) {
        x = fmaxf(x, __shfl_xor_sync(0xffffffff, x, mask, 32));
    }
    return x;
}

// one thread an element of a row padded to kx_padded; a warp is one block of 32
static __global__ void quantize_q8_1(const float * __restrict__ x, void * __restrict__ vy, const int kx, const int kx_padded) {
    const int ix = blockDim.x*blockIdx.x + threadIdx.x;
    if (ix >= kx_padded) {
        return;
    }
    const int iy = blockDim.y*blockIdx.y + threadIdx.y;
    const int i_padded = iy*kx_padded + ix;

    block_q8_1 * y = (block_q8_1 *) vy;
    const int ib = i_padded / QK8_1;   // which block
    const int iqs = i_padded % QK8_1;  // which quant of it

    const float xi = ix < kx ? x[iy*kx + ix] : 0.0f;  // zeros past the row
    float amax = fabsf(xi);
    float sum = xi;
    amax = warp_reduce_max(amax);
    sum = warp_reduce_sum(sum);

    const float d = amax / 127;
    const int8_t q = amax == 0.0f ? 0 : roundf(xi / d);
    y[ib].qs[iqs] = q;

    if (iqs > 0) {
        return;
    }
    reinterpret_cast<half&>(y[ib].ds.x) = d;
    reinterpret_cast<half&>(y[ib].ds.y) = sum;
}
"""

# The port: workgroups of 256 as CUDA's blocks, eight blocks of 32 each, the butterflies
# as trees in workgroup memory within each 32 (lane 0's sum is added in the same
# order), a block's 36 bytes as 9 words written by its first 9 invocations. WGSL has no
# roundf: it is written out.
_Q8_1_WGSL = """
struct Params { kx: i32, kx_padded: i32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> vy: array<u32>;
@group(0) @binding(2) var<uniform> p: Params;

const QK8_1 = 32u;
const BLOCK_WORDS = 9u;

var<workgroup> peaks: array<f32, 256>;
var<workgroup> sums: array<f32, 256>;
var<workgroup> quants: array<i32, 256>;

// C's roundf: to the nearest integer, halves away from zero
fn roundf(v: f32) -> f32 {
    let t = trunc(v);
    return select(t, t + sign(v), abs(v - t) >= 0.5);
}

@compute @workgroup_size(256, 1)
fn quantize_q8_1(@builtin(global_invocation_id) gid: vec3<u32>,
                 @builtin(local_invocation_id) lid: vec3<u32>) {
    let ix = i32(gid.x);
    let iy = i32(gid.y);
    let me = lid.x;
    let iqs = me % QK8_1;
    let first = me - iqs;  // this block's first slot in the workgroup's arrays
    let xi = select(0.0, x[iy * p.kx + min(ix, p.kx - 1)], ix < p.kx);
    peaks[me] = abs(xi);
    sums[me] = xi;
    workgroupBarrier();
    for (var stride = 16u; stride > 0u; stride >>= 1u) {
        if (iqs < stride) {
            peaks[me] = max(peaks[me], peaks[me + stride]);
            sums[me] = sums[me] + sums[me + stride];
        }
        workgroupBarrier();
    }
    let amax = peaks[first];
    let d = amax / 127.0;
    quants[me] = select(i32(roundf(xi / d)), 0, amax == 0.0);
    workgroupBarrier();

    if (ix >= p.kx_padded) {
        return;
    }
    let ib = u32(iy * p.kx_padded + ix) / QK8_1;
    if (iqs == 0u) {
        vy[ib * BLOCK_WORDS] = pack2x16float(vec2<f32>(d, sums[first]));
    } else if (iqs <= 8u) {
        let k = first + 4u * (iqs - 1u);
        vy[ib * BLOCK_WORDS + iqs] = pack4xI8(vec4<i32>(quants[k], quants[k + 1u], quants[k + 2u], quants[k + 3u]));
    }
}
"""

_PADDING = 512  # MATRIX_ROW_PADDING: kx_padded is kx rounded up to it


def _padded(kx: int) -> int:
    return ceil_div(int(kx), _PADDING) * _PADDING


def _q8_1_rows(rng, count, size):
    """Activations: blocks of 32 drawn around 0, blocks of zeros, blocks of one large
    magnitude, and blocks whose maximum is 127/16 with the rest on a grid of 1/32, so
    that d is 1/16 and x / d lands on halves (roundf's ties)."""
    x = rng.normal(0.0, 1.5, count).astype(np.float32)
    for start in range(0, count, 32):
        kind = (start // 32) % 5
        stop = min(start + 32, count)
        n = stop - start
        if kind == 1:
            x[start:stop] = rng.integers(-253, 254, n) / np.float32(32)
            x[start + rng.integers(n)] = np.float32(127 / 16) * rng.choice([-1.0, 1.0])
        elif kind == 2:
            x[start:stop] = 0.0
        elif kind == 3:
            x[start:stop] *= np.float32(100)  # the f16 sum stays finite
    return x


def _q8_1_reference(x, vy, rows, kx):
    kxp = _padded(kx)
    xs = np.zeros((rows, kxp), np.float32)
    xs[:, :kx] = x.reshape(rows, kx)
    blocks = xs.reshape(-1, 32)
    amax = np.abs(blocks).max(axis=1)
    # lane 0's sum: the butterfly's order, in float32
    s = blocks.copy()
    lanes = np.arange(32)
    for mask in (16, 8, 4, 2, 1):
        s = (s + s[:, lanes ^ mask]).astype(np.float32)
    d = (amax / np.float32(127)).astype(np.float32)
    with np.errstate(divide="ignore", invalid="ignore"):
        v = (blocks / d[:, None]).astype(np.float32).astype(np.float64)
    q = np.where(amax[:, None] == 0, 0.0, np.sign(v) * np.floor(np.abs(v) + 0.5))  # roundf
    raw = np.zeros((blocks.shape[0], 36), np.uint8)
    raw[:, 0:4] = np.stack([d, s[:, 0]], axis=1).astype(np.float16).view(np.uint8).reshape(-1, 4)
    raw[:, 4:] = q.astype(np.int8).view(np.uint8)
    return raw.reshape(-1)


Q8_1 = Wild(
    KernelSpec(
        id="wild_r57_llama_cpp_quantize_q8_1",
        entry_point="quantize_q8_1",
        sources={"cuda": _Q8_1_CUDA, "wgsl": _Q8_1_WGSL},
        dims=("rows", "kx"),
        buffers=(
            BufferSpec(0, "f32", "read", name="x", count="rows*kx", fill=_q8_1_rows),
            BufferSpec(
                1,
                "u8",
                "read_write",
                name="vy",
                count=lambda size: size.rows * _padded(size.kx) // 32 * 36,
            ),
            BufferSpec.uniform(2, (("kx", "i32"), ("kx_padded", "i32")), name="p"),
        ),
        reference=_q8_1_reference,
        params=lambda size: {"kx": size.kx, "kx_padded": _padded(size.kx)},
        # quantize_row_q8_1_cuda: (ceil(kx_padded / 256), ky) blocks of 256 (the port: of 32)
        grid=lambda s, size: (ceil_div(_padded(size.kx), s.workgroup_size[0]), size.rows, 1),
        schedules=(Schedule((256, 1)),),
        test_sizes=("rows=3,kx=1000", "rows=1,kx=100", "rows=2,kx=1536"),
    ),
    {
        "CUDA: rintf, ties to even": ("cuda", "roundf(xi / d)", "rintf(xi / d)"),
        "CUDA: d over 128": ("cuda", "const float d = amax / 127;", "const float d = amax / 128;"),
        "CUDA: reads past the row instead of zeros": (
            "cuda",
            "const float xi = ix < kx ? x[iy*kx + ix] : 0.0f;",
            "const float xi = x[iy*kx + ix];",
        ),
        "round, ties to even": ("wgsl", "i32(roundf(xi / d))", "i32(round(xi / d))"),
        "the maximum of signed values": ("wgsl", "peaks[me] = abs(xi);", "peaks[me] = xi;"),
        "the sum stops a level early": (
            "wgsl",
            "sums[me] = sums[me] + sums[me + stride];",
            "sums[me] = select(sums[me] + sums[me + stride], sums[me], stride == 1u);",
        ),
    },
)


# -- 4. PyTorch: c10::detail::round_to_nearest_even (f32 to bf16 on the bits) -------------

_BF16_CUDA = r"""// kernel-forge corpus: c10's float to bfloat16 rounding (read, not copied); the kernel is ours.
#include <cstdint>

// to bfloat16's bits, to nearest with ties to even; every NaN becomes 0x7FC0
__device__ __forceinline__ uint16_t round_to_nearest_even(float src) {
    if (isnan(src)) {
        return UINT16_C(0x7FC0);
    }
    uint32_t const bits = __float_as_uint(src);
    // 0x7FFF, plus one where the kept part is odd: a tie then carries into it
    uint32_t const rounding_bias = ((bits >> 16) & 1) + UINT32_C(0x7FFF);
    return static_cast<uint16_t>((bits + rounding_bias) >> 16);
}

extern "C" __global__ void f32_to_bf16(const float* __restrict__ in, uint16_t* __restrict__ out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = round_to_nearest_even(in[i]);
    }
}
"""

# The port: two conversions a word (n even), the NaN test on the bits.
_BF16_WGSL = """
@group(0) @binding(0) var<storage, read> src: array<vec2<u32>>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

fn round_to_nearest_even(bits: u32) -> u32 {
    if ((bits & 0x7fffffffu) > 0x7f800000u) {
        return 0x7fc0u;
    }
    let rounding_bias = ((bits >> 16u) & 1u) + 0x7fffu;
    return (bits + rounding_bias) >> 16u;
}

@compute @workgroup_size(256)
fn f32_to_bf16(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i < arrayLength(&out)) {
        let pair = src[i];
        out[i] = round_to_nearest_even(pair.x) | (round_to_nearest_even(pair.y) << 16u);
    }
}
"""


def _bf16_inputs(rng, count, size):
    """Floats of every kind, as bits: random bit patterns of every exponent, halfway
    cases (low 16 bits exactly 0x8000, kept part odd and even), values one below and
    one above a tie, +-0, +-Inf, the largest finite (rounds to Inf), subnormals, and
    NaNs of either sign with small and full payloads."""
    bits = rng.integers(0, 2**32, count, dtype=np.uint64).astype(np.uint32)
    kind = np.arange(count) % 8
    upper = rng.integers(0, 2**16, count, dtype=np.uint64).astype(np.uint32) << 16
    finite_upper = np.where((upper & 0x7F800000) == 0x7F800000, upper & 0xBF7F0000, upper)
    bits = np.where(kind == 1, finite_upper | 0x8000, bits)  # ties
    bits = np.where(
        kind == 2, finite_upper | (0x8000 + rng.choice([-1, 1], count)).astype(np.uint32), bits
    )
    specials = np.array(
        [
            0x00000000,
            0x80000000,
            0x7F800000,
            0xFF800000,
            0x7F7FFFFF,
            0xFF7FFFFF,
            0x7FC00000,
            0xFFC00000,
            0x7FFFFFFF,
            0xFFFFFFFF,
            0x7F800001,
            0x00008000,
            0x00018000,
            0x80000001,
        ],
        np.uint32,
    )
    at = np.flatnonzero(kind == 3)
    bits[at] = specials[np.arange(at.size) % specials.size]
    return bits.view(np.float32)


def _bf16_reference(src, out):
    bits = src.view(np.uint32).astype(np.uint64)
    rounded = ((bits + ((bits >> 16) & 1) + 0x7FFF) >> 16) & 0xFFFF
    return np.where(np.isnan(src), 0x7FC0, rounded).astype(np.uint16)


BF16_RNE = Wild(
    KernelSpec(
        id="wild_r57_c10_round_to_nearest_even_bf16",
        entry_point="f32_to_bf16",
        sources={"cuda": _BF16_CUDA, "wgsl": _BF16_WGSL},
        buffers=(
            BufferSpec(0, "f32", "read", name="src", fill=_bf16_inputs),
            BufferSpec(1, "u16", "read_write", name="out"),
            BufferSpec.uniform(2, (("n", "i32"),)),
        ),
        reference=_bf16_reference,
        params=lambda n: {"n": int(n)},
        grid=lambda s, n: (ceil_div(int(n), 256), 1, 1),
        schedules=(Schedule(256),),
        test_sizes=(4096, 2, 2050),
    ),
    {
        "CUDA: truncates": (
            "cuda",
            "return static_cast<uint16_t>((bits + rounding_bias) >> 16);",
            "return static_cast<uint16_t>(bits >> 16);",
        ),
        "CUDA: ties away from zero": (
            "cuda",
            "((bits >> 16) & 1) + UINT32_C(0x7FFF)",
            "UINT32_C(0x8000)",
        ),
        "CUDA: no NaN test": ("cuda", "if (isnan(src)) {", "if (false) {"),
        "truncates": ("wgsl", "return (bits + rounding_bias) >> 16u;", "return bits >> 16u;"),
        "ties away from zero": ("wgsl", "((bits >> 16u) & 1u) + 0x7fffu", "0x8000u"),
        "ties to odd": (
            "wgsl",
            "((bits >> 16u) & 1u) + 0x7fffu",
            "(1u - ((bits >> 16u) & 1u)) + 0x7fffu",
        ),
        "no NaN test": ("wgsl", "if ((bits & 0x7fffffffu) > 0x7f800000u) {", "if (false) {"),
    },
    nonfinite_only=frozenset({"CUDA: no NaN test", "no NaN test"}),
)


# -- 5. web-rwkv: quant_mat_int8's quantize pass (pack4x8unorm over a block's range) -----

_RWKV_INT8_WGSL = """// kernel-forge corpus: web-rwkv's int8 matrix quantiser, its second pass (read, not copied).
struct Input {
    @builtin(global_invocation_id) uid: vec3<u32>,
    @builtin(num_workgroups) b: vec3<u32>,
};

@group(0) @binding(0) var<uniform> shape: vec4<u32>;                   // [L]
@group(0) @binding(1) var<storage, read> input: array<vec2<u32>>;      // f16 x 4
@group(0) @binding(2) var<storage, read_write> minmax: array<u32>;     // (min, max) as f16 a block
@group(0) @binding(3) var<storage, read_write> output: array<u32>;     // u8 x 4

const BLOCK_SIZE: u32 = 128u;
const INT8_BLOCK_SIZE: u32 = 128u;
const INT8_BLOCK_STEP: u32 = INT8_BLOCK_SIZE / 4u;  // vec4s a block

fn unpack4x16float(x: vec2<u32>) -> vec4<f32> {
    return vec4<f32>(unpack2x16float(x.x), unpack2x16float(x.y));
}

@compute @workgroup_size(BLOCK_SIZE, 1, 1)
fn quantize(in: Input) {
    let index = in.uid.x;
    if index >= shape.x {
        return;
    }
    let m = unpack2x16float(minmax[index / INT8_BLOCK_STEP]);
    let v = unpack4x16float(input[index]);
    // the block's range onto [0, 1]; pack4x8unorm takes floor(0.5 + 255 e)
    let x = saturate((v - m[0]) / (m[1] - m[0]));
    output[index] = pack4x8unorm(x);
}
"""


def _block_ranges(rng, count, size):
    """A block's (min, max) as the first pass leaves them, f16: below and above 0,
    never equal (a constant block divides 0 by 0 in the source)."""
    lo = -np.exp2(rng.uniform(-2.0, 2.0, count // 2))
    hi = np.exp2(rng.uniform(-2.0, 2.0, count // 2))
    return np.stack([lo, hi], axis=1).astype(np.float16).reshape(-1)


def _rwkv_int8_reference(shape, input, minmax, output, n):
    m = minmax.astype(np.float32).reshape(-1, 2)
    v = input.astype(np.float32).reshape(-1, 128)
    lo, hi = m[:, 0:1], m[:, 1:2]
    e = np.clip((v - lo) / (hi - lo), 0.0, 1.0)
    return np.floor(np.float32(0.5) + np.float32(255) * e).astype(np.uint8).reshape(-1)


RWKV_INT8 = Wild(
    KernelSpec(
        id="wild_r57_web_rwkv_quant_mat_int8_unorm",
        entry_point="quantize",
        sources={"wgsl": _RWKV_INT8_WGSL},
        buffers=(
            BufferSpec.uniform(0, (("shape", "vec4<u32>"),), name="shape"),
            BufferSpec(1, "f16", "read", name="input"),
            BufferSpec(
                2, "f16", "read", name="minmax", count=lambda n: 2 * (n // 128), fill=_block_ranges
            ),
            BufferSpec(3, "u8", "read_write", name="output"),
        ),
        reference=_rwkv_int8_reference,
        params=lambda n: {"shape": (n // 4, 1, 1, 1)},
        grid=lambda s, n: (ceil_div(n // 4, 128), 1, 1),
        schedules=(Schedule(128),),
        nonfinite_inputs=False,  # weights; saturate() of a NaN has no defined result
        test_sizes=(128 * 77, 128, 128 * 64),
    ),
    {
        "a word's block indexed in elements": (
            "wgsl",
            "minmax[index / INT8_BLOCK_STEP]",
            "minmax[index / INT8_BLOCK_SIZE]",
        ),
        "the range taken from zero": ("wgsl", "/ (m[1] - m[0])", "/ m[1]"),
        "packed as snorm": ("wgsl", "pack4x8unorm(x)", "pack4x8snorm(x)"),
    },
)


ROUND57: dict[str, Wild] = {
    wild.kernel.id: wild
    for wild in (
        STATIC_INT8,
        DYNAMIC_INT8,
        DYNAMIC_INT8_WGSL,
        Q8_1,
        BF16_RNE,
        RWKV_INT8,
    )
}
