"""Round 29 of kernels from the wild, merged into ``tests.wild.CORPUS``: CUDA kernels of
public ML projects, each as its project writes it, with a WGSL port as a WebGPU port
would write it, so that the port runs here (lavapipe, SwiftShader) and the CUDA original
on the GPU machine, both judged by one float64 (or exact) reference.

The CUDA kernels are written for this corpus after the sources named below: read, not
copied (the project's rule for public code: round 29 first took them verbatim, comments
included, and they were rewritten on 2026-12-06). What is theirs is kept: the entry
points with their template arguments, namespaces and parameters (names, types, order:
the launch binds them by name), ``bias_act_kernel_params``' fields and their order, the
block sizes and launch geometry, the idioms each entry is about (cub's
``BLOCK_LOAD_WARP_TRANSPOSE`` load and store, the ``__device__ static`` NF4 table, the
``__ldg`` of absmax by a shift ``31 - __clz(blocksize)``, the struct of ``void``
pointers by value with every activation's branch compiled, the vector copies of four
halves as a ``float2`` and four mask bytes as a ``half2``, the template-template reduce
over ``__shfl_xor_sync`` behind ``#if CUDA_VERSION >= 9000``, ``std::exp`` with no
``<cmath>`` included, the anonymous namespace, ``int64_t`` slots and ``if constexpr``
on an ``enum class``), the numerics (operation order, the -10000.0 fill and -inf past
the row, the exp saturation bounds and SELU constants, gain then clamp with its ``&``)
and the pinned behaviour (the last tile's idle threads reading ``absmax`` one past its
end). What is ours: the comments, the helpers', types' and locals' names
(``nf4_level``, ``ComputeType``, ``move_elems``, ``xor_shuffle``, ``warp_allreduce``,
``SumOp``, ``MaxOp``...), the order of equivalent statements and the formatting;
bias_act's activations are one ``switch`` on ``A`` with typed pointers taken once,
vLLM's cache offsets are written in Horner form (the same int64 values). NVRTC compiles
each old and new text, original and CUDA mutant, to PTX with the same count of every
instruction but vLLM's integer index arithmetic (2026-12-06; no GPU in that session).
The WGSL ports are the project's own, written for round 29 after the CUDA; they now use
the CUDA's new local names.

- bitsandbytes' ``kDequantizeBlockwise<float, 512, 64, 8, NF4>``
  (bitsandbytes-foundation/bitsandbytes at c037a306, MIT, csrc/kernels.cu): the NF4 code
  in a ``__device__ static float`` table of 16, ``cub::BlockLoad`` and ``BlockStore`` with
  ``BLOCK_LOAD_WARP_TRANSPOSE``, absmax per block found by a shift (``31 -
  __clz(blocksize)``), the host's ``blocksize/2`` (bytes a block) and an odd n (the last
  byte's low nibble is no value); ``float *code`` is NULL for NF4 (``get_ptr(None)``),
  given as a ``u64`` field of 0. As written, the last tile's idle threads read
  ``absmax`` one past its end (bnb's shapes are multiples of 1024; WGSL's robust access
  clamps it here; not stored either way).
- StyleGAN2-ADA's ``bias_act_kernel<float, 3>`` (NVlabs/stylegan2-ada-pytorch, read at
  NVlabs/stylegan3 8fb5177d, NVIDIA Source Code License, torch_utils/ops/bias_act.cu and
  bias_act.h): one ``bias_act_kernel_params`` struct by value holding six ``const
  void*`` (x, b, y set; xref, yref, dy NULL) beside its scalars, every activation's
  branch compiled, the lrelu forward with gain sqrt(2) and conv_clamp 256; the WGSL port
  is a spec of its own (see below).
- Megatron-LM's ``scaled_masked_softmax_warp_forward<half, half, float, 7>``
  (NVIDIA/Megatron-LM at a5acbf53, BSD 3-clause,
  megatron/fused_kernels/scaled_masked_softmax.h): ``copy_vector`` specialisations (four
  halves as a ``float2``, four mask bytes as a ``half2``), ``warp_reduce`` with a
  template-template ``ReduceOp`` over ``__shfl_xor_sync`` behind ``#if CUDA_VERSION >=
  9000``, two rows a warp, the -10000.0 fill and zeros for a fully masked row, in an
  anonymous namespace; ``c10::Half`` is ``half`` and ``C10_WARP_SIZE`` a define (no c10
  under NVRTC). The port (``enable f16;``) reduces through workgroup memory.
- vLLM's ``vllm::reshape_and_cache_kernel<float, float, Fp8KVCacheDataType::kAuto>``
  (vllm-project/vllm at 693083ae, Apache-2.0, csrc/cache_kernels.cu, its fp8 branch left
  out): ``int64_t`` slot mapping with -1 padding tokens skipped, the key cache split in
  16-byte groups of ``x``, strided key and value views of a kv projection, both caches
  ``inout`` (the slots not written keep their contents). The port reads the int64 slots
  as ``vec2<i32>``.

What they showed (lavapipe and SwiftShader here, NVRTC for sm_90, 2026-12-05; no GPU in
this session: the CUDA originals and their mutants run on the GPU machine later):

- Gap, fixed (backends/cuda/_headers.py, tests/test_wild_round29.py): Megatron's
  softmax, as written, did not compile under NVRTC. It calls ``std::exp`` with only
  ``<limits>``/``<cfloat>`` included (nvcc's implicit ``<cuda_runtime.h>`` declares the
  std math functions; NVRTC: "namespace std has no member exp"), and it tests
  ``CUDA_VERSION``, which its translation unit has from ``<cuda.h>``: undefined, the
  pre-CUDA-9 ``__shfl_xor`` branch was taken ("identifier __shfl_xor is undefined").
  ``<cuda.h>`` itself cannot be included under NVRTC (it declares host functions:
  "host functions are not allowed in JIT mode"), though backends/cuda/_headers.py's
  docstring says it compiles. Now ``implicit_options`` pre-includes ``cmath`` for a
  source that calls ``std::exp``, ``std::sqrt``... without including it, and defines
  ``CUDA_VERSION`` as nvcc's value for this NVRTC where a source tests it without
  defining it or including ``<cuda.h>``.
- Gap, fixed after the round (forge/_bindings.py, tests/test_wild_round29.py): one
  spec could not hold a CUDA
  kernel that takes a struct of pointers (StyleGAN's ``bias_act_kernel_params``) and its
  WGSL port. The pointers are ``u64`` fields named like the buffers (the CUDA backend
  writes their addresses); WGSL has no 64-bit integer, and the uniform layout check
  refuses every way a port can declare those bytes (``array<vec4<u32>, 3>``,
  ``vec2<u32>`` per pointer: "x is a 64-bit integer at byte 0 ... reads x.x, a 32-bit
  integer"), while the remedy it prints (``vec2<u32>`` fields) would break the CUDA
  binding. The check now takes two 32-bit integer words of a 64-bit integer field as
  its bytes; bias_act stays two specs here, as the round wrote it (the CUDA original
  with the pointer struct and the port with the struct's scalars, one reference).
- My own mistake, caught by the oracle: a first "clamp keeps the sign of the input"
  mutant of the bias_act port was equivalent (lrelu and a positive gain keep the sign):
  it passed on lavapipe, and was replaced by the clamp applied before the gain.
- A mutant of mine, ``2 * (...) >> shift`` in WGSL, ran on wgpu (naga accepts it) and
  was refused by Chromium's Tint ("mixing '*' and '>>' requires parenthesis", as WGSL
  requires): wgpu and ``kforge validate`` do not refuse what Tint does here (not fixed;
  the mutant now has the parentheses).
- Every WGSL port passed on reference, wgpu (lavapipe) and browser (SwiftShader, where
  the f16 softmax port is unsupported: no f16) and every WGSL mutant failed on both
  adapters; every CUDA original compiles with NVRTC and binds its
  parameters as the source means (``cuda_arguments`` at each size: ``float *code`` from
  the ``u64`` field, the struct by value, ``const acc_t scale`` from a field, the
  namespaced entry point with an ``enum class`` template argument).
"""

# ruff: noqa: E501  (the CUDA and WGSL sources' long lines)

from __future__ import annotations

import numpy as np

from forge import BufferSpec, KernelSpec, Schedule, ceil_div

from . import Wild

# -- bitsandbytes kDequantizeBlockwise<float, 512, 64, 8, NF4> ---------------------------

_NF4_CUDA = r"""
// kernel-forge corpus: bitsandbytes' blockwise dequantization on its NF4 path
// (kDequantizeBlockwise, csrc/kernels.cu), read, not copied. The host
// (dequantizeBlockwise<float, NF4> in csrc/ops.cu) launches (n + 1023) / 1024 blocks
// of 64 threads with blocksize / 2, the bytes of a quantisation block, and code NULL
// (functional.py's get_ptr(None)): a block turns 512 packed bytes into 1024 floats.
#include <cub/block/block_load.cuh>
#include <cub/block/block_store.cuh>
#include <cfloat>

typedef enum DataType_t { General8bit = 0, FP4 = 1, NF4 = 2 } DataType_t;

// the sixteen NF4 levels in [-1, 1], zero at index 7
__device__ static float nf4_levels[16] = {
    -1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453,
    -0.28444138169288635, -0.18477343022823334, -0.09105003625154495, 0.0,
    0.07958029955625534, 0.16093020141124725, 0.24611230194568634, 0.33791524171829224,
    0.44070982933044434, 0.5626170039176941, 0.7229568362236023, 1.0};

__device__ __forceinline__ float nf4_level(unsigned char nibble) { return nf4_levels[nibble & 0x0F]; }

template<typename T, int TILE_SIZE, int THREADS, int NUM_PER_TH, int DATA_TYPE>
__global__ void kDequantizeBlockwise(float *code, unsigned char * A, float * absmax, T *out, const int blocksize, const int n)
{
  // a 4-bit type packs two values in a byte
  constexpr int VALS_PER_TH = NUM_PER_TH * ((DATA_TYPE > 0) ? 2 : 1);
  typedef cub::BlockLoad<unsigned char, THREADS, NUM_PER_TH, cub::BLOCK_LOAD_WARP_TRANSPOSE> ByteLoad;
  typedef cub::BlockStore<T, THREADS, VALS_PER_TH, cub::BLOCK_STORE_WARP_TRANSPOSE> ValueStore;
  __shared__ typename ByteLoad::TempStorage load_scratch;
  __shared__ typename ValueStore::TempStorage store_scratch;

  unsigned char packed[NUM_PER_TH];
  T vals[VALS_PER_TH];
  float scale = -FLT_MAX;
  int bytes_in = 0;
  int values_out = 0;

  // blocksize is a power of two: the quantisation block of a byte is a shift away
  const int block_shift = 31 - __clz(blocksize);
  const int stride = gridDim.x * TILE_SIZE;

  for (int tile = blockIdx.x * TILE_SIZE; tile < stride; tile += stride)
  {
    if (DATA_TYPE > 0)
    {
      bytes_in = min(TILE_SIZE, (n+1)/2 - tile);
      values_out = min(TILE_SIZE*2, n - tile*2);
    }
    else
    {
      bytes_in = min(TILE_SIZE, n - tile);
      values_out = bytes_in;
    }

    // a thread's bytes lie in one quantisation block: one scale each, read before
    // the thread knows whether its bytes exist
    scale = __ldg(&absmax[(tile + threadIdx.x*NUM_PER_TH) >> block_shift]);

    __syncthreads();
    ByteLoad(load_scratch).Load(&(A[tile]), packed, bytes_in, 128);

    if (DATA_TYPE == NF4)
    {
      #pragma unroll NUM_PER_TH
      for (int k = 0; k < NUM_PER_TH; k++)
      {
        // the high nibble holds the earlier value
        vals[2*k] = nf4_level(packed[k] >> 4) * scale;
        vals[2*k + 1] = nf4_level(packed[k] & 0x0F) * scale;
      }
    }
    else if (DATA_TYPE == General8bit)
    {
      // a byte indexes the 256-entry code, read through the read-only cache
      #pragma unroll NUM_PER_TH
      for (int k = 0; k < NUM_PER_TH; k++)
        vals[k] = __ldg(&code[packed[k]]) * scale;
    }

    __syncthreads();
    ValueStore(store_scratch).Store(&(out[(DATA_TYPE > 0) ? tile*2 : tile]), vals, values_out);
  }
}

template __global__ void kDequantizeBlockwise<float, 512, 64, 8, NF4>(float *code, unsigned char * A, float * absmax, float *out, const int blocksize, const int n);
"""

_NF4_WGSL = """
// a WebGPU port of bitsandbytes' NF4 dequantize: 64 invocations a workgroup, 8 packed
// bytes (16 values) each, the bytes read from u32 words, the NF4 code in a private table
struct Params { blocksize: i32, n: i32 }
@group(0) @binding(0) var<storage, read> A: array<u32>;
@group(0) @binding(1) var<storage, read> absmax: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;

var<private> nf4_levels: array<f32, 16> = array<f32, 16>(-1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453, -0.28444138169288635, -0.18477343022823334, -0.09105003625154495, 0.0, 0.07958029955625534, 0.16093020141124725, 0.24611230194568634, 0.33791524171829224, 0.44070982933044434, 0.5626170039176941, 0.7229568362236023, 1.0);

const TILE_SIZE: i32 = 512;
const NUM_PER_TH: i32 = 8;

fn load_byte(o: i32) -> u32 { return (A[o >> 2u] >> (u32(o & 3) * 8u)) & 0xffu; }

@compute @workgroup_size(64)
fn kDequantizeBlockwise(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let tile = i32(wg.x) * TILE_SIZE;
    let t = i32(lid.x);
    let bytes_in = min(TILE_SIZE, (p.n + 1) / 2 - tile);
    let values_out = min(TILE_SIZE * 2, p.n - tile * 2);
    // blocksize is in bytes (half the values of a block), a power of two
    let scale = absmax[(tile + t * NUM_PER_TH) >> (31u - countLeadingZeros(u32(p.blocksize)))];
    for (var j = 0; j < NUM_PER_TH; j++) {
        let b = t * NUM_PER_TH + j;
        var q = 128u;
        if (b < bytes_in) { q = load_byte(tile + b); }
        let o = 2 * (tile + b);
        if (2 * b < values_out) { out[o] = nf4_levels[q >> 4u] * scale; }
        if (2 * b + 1 < values_out) { out[o + 1] = nf4_levels[q & 0x0fu] * scale; }
    }
}
"""

#: bitsandbytes' NF4 code (functional.py, ``get_4bit_type("nf4")``), as decimals
_NF4_CODE = np.array(
    [
        -1.0,
        -0.6961928009986877,
        -0.5250730514526367,
        -0.39491748809814453,
        -0.28444138169288635,
        -0.18477343022823334,
        -0.09105003625154495,
        0.0,
        0.07958029955625534,
        0.16093020141124725,
        0.24611230194568634,
        0.33791524171829224,
        0.44070982933044434,
        0.5626170039176941,
        0.7229568362236023,
        1.0,
    ]
).astype(np.float32)
_NF4_BLOCK = 64  # values a block (quantize_4bit's default blocksize); the kernel gets 32


def _nf4_absmax(rng, count, size):
    # absmax of 64 weights of a ~N(0, 0.02) layer: around 0.05, never 0
    return rng.uniform(0.01, 0.12, count).astype(np.float32)


def _nf4_reference(A, absmax, out, p):
    n = int(p["n"])
    q = A[: (n + 1) // 2]
    codes = np.stack([q >> 4, q & 0x0F], axis=1).ravel()[:n]
    scale = absmax.astype(np.float64)[np.arange(n) // _NF4_BLOCK]
    return (_NF4_CODE.astype(np.float64)[codes] * scale).astype(np.float32)


NF4_DEQUANT = Wild(
    KernelSpec(
        id="wild_r29_bnb_dequantize_blockwise_nf4_cub_warp_transpose",
        entry_point="kDequantizeBlockwise<float, 512, 64, 8, NF4>",
        entry_points={"wgsl": "kDequantizeBlockwise"},
        sources={"cuda": _NF4_CUDA, "wgsl": _NF4_WGSL},
        buffers=(
            BufferSpec(0, "u8", "read", name="A", count=lambda n: (n + 1) // 2, fill=(0, 255)),
            BufferSpec(
                1,
                "f32",
                "read",
                name="absmax",
                count=lambda n: ceil_div(n, _NF4_BLOCK),
                fill=_nf4_absmax,
            ),
            BufferSpec(2, "f32", "read_write", name="out"),
            BufferSpec.uniform(3, (("blocksize", "i32"), ("n", "i32"), ("code", "u64"))),
        ),
        reference=_nf4_reference,
        params=lambda n: {"blocksize": _NF4_BLOCK // 2, "n": n, "code": 0},
        grid=lambda s, n: (ceil_div(n, 1024), 1, 1),
        schedules=(Schedule(64),),
        # an odd count: the last byte's low nibble is no value; 3 tiles and a partial one
        test_sizes=(3001, 64, 4096),
    ),
    {
        "CUDA: nibbles stored low first": (
            "cuda",
            "vals[2*k] = nf4_level(packed[k] >> 4) * scale;\n        vals[2*k + 1] = nf4_level(packed[k] & 0x0F) * scale;",
            "vals[2*k] = nf4_level(packed[k] & 0x0F) * scale;\n        vals[2*k + 1] = nf4_level(packed[k] >> 4) * scale;",
        ),
        "CUDA: absmax shift one too far": (
            "cuda",
            "31 - __clz(blocksize)",
            "32 - __clz(blocksize)",
        ),
        "CUDA: odd count's last byte not loaded": (
            "cuda",
            "bytes_in = min(TILE_SIZE, (n+1)/2 - tile);",
            "bytes_in = min(TILE_SIZE, n/2 - tile);",
        ),
        "nibbles stored low first": (
            "wgsl",
            "out[o] = nf4_levels[q >> 4u] * scale; }\n        if (2 * b + 1 < values_out) { out[o + 1] = nf4_levels[q & 0x0fu]",
            "out[o] = nf4_levels[q & 0x0fu] * scale; }\n        if (2 * b + 1 < values_out) { out[o + 1] = nf4_levels[q >> 4u]",
        ),
        "absmax indexed by value, not byte": (
            "wgsl",
            "absmax[(tile + t * NUM_PER_TH) >>",
            "absmax[(2 * (tile + t * NUM_PER_TH)) >>",
        ),
        "odd count's last byte not loaded": (
            "wgsl",
            "min(TILE_SIZE, (p.n + 1) / 2 - tile)",
            "min(TILE_SIZE, p.n / 2 - tile)",
        ),
    },
)


# -- StyleGAN2-ADA bias_act_kernel<float, 3>: a params struct of void pointers ------------

_BIAS_ACT_CUDA = r"""
// kernel-forge corpus: StyleGAN2-ADA's fused bias and activation (NVlabs, also in
// StyleGAN3; torch_utils/ops/bias_act.h and bias_act.cu), read, not copied. Run here
// as the forward pass of a leaky ReLU (act 3, grad 0) with its bias on dim 1, gain
// sqrt(2) and clamp 256: the host fills the struct (x, b and y set; xref, yref and dy
// NULL) and launches blocks of 128 threads, each thread loopX elements a block apart.
struct bias_act_kernel_params
{
    // buffers of sizeX elements (b: sizeB); every one but x and y may be NULL
    const void* x;
    const void* b;
    const void* xref;
    const void* yref;
    const void* dy;
    void*       y;

    int         grad;   // 0 forward, 1 first derivative, 2 second
    int         act;
    float       alpha;
    float       gain;
    float       clamp;  // negative: no clamp

    int         sizeX;
    int         sizeB;
    int         stepB;  // elements between two bias entries' spans
    int         loopX;
};

// the type the arithmetic is done in, for each storage type
template <class T> struct ComputeType;
template <> struct ComputeType<double> { typedef double type; };
template <> struct ComputeType<float>  { typedef float  type; };

template <class T, int A>
__global__ void bias_act_kernel(bias_act_kernel_params p)
{
    typedef typename ComputeType<T>::type real;
    const int  G          = p.grad;
    const real alpha      = (real)p.alpha;
    const real gain       = (real)p.gain;
    const real clamp      = (real)p.clamp;
    const real one        = (real)1;
    const real two        = (real)2;
    const real satArg     = (real)80;  // past it exp() saturates: the limits are exact
    const real halfSatArg = (real)40;
    const real seluLambda = (real)1.0507009873554804934193349852946;
    const real seluAlpha  = (real)1.6732632423543772848170429916717;

    const T* xs    = (const T*)p.x;
    const T* bias  = (const T*)p.b;
    const T* xrefs = (const T*)p.xref;
    const T* yrefs = (const T*)p.yref;
    const T* dys   = (const T*)p.dy;
    T*       ys    = (T*)p.y;

    int xi = blockIdx.x * p.loopX * blockDim.x + threadIdx.x;
    for (int k = 0; k < p.loopX && xi < p.sizeX; k++, xi += blockDim.x)
    {
        real x    = (real)xs[xi];
        real b    = bias ? (real)bias[(xi / p.stepB) % p.sizeB] : 0;
        real xref = xrefs ? (real)xrefs[xi] : 0;
        real yref = yrefs ? (real)yrefs[xi] : 0;
        real dy   = dys ? (real)dys[xi] : one;
        real yy   = (gain != 0) ? yref / gain : 0;  // the forward output before its gain
        real y    = 0;

        // the bias goes to the input going forward, to the reference input going back
        if (G == 0)
            x += b;
        else
            xref += b;

        switch (A)
        {
        case 1:  // linear
            if (G == 0 || G == 1) y = x;
            break;
        case 2:  // relu
            if (G == 0) y = (x > 0) ? x : 0;
            if (G == 1) y = (yy > 0) ? x : 0;
            break;
        case 3:  // leaky relu
            if (G == 0) y = (x > 0) ? x : x * alpha;
            if (G == 1) y = (yy > 0) ? x : x * alpha;
            break;
        case 4:  // tanh
            if (G == 0)
            {
                real e = exp(x);
                real inv = one / e;
                y = (x < -satArg) ? -one : (x > satArg) ? one : (e - inv) / (e + inv);
            }
            if (G == 1) y = x * (one - yy * yy);
            if (G == 2) y = x * (one - yy * yy) * (-two * yy);
            break;
        case 5:  // sigmoid
            if (G == 0) y = (x < -satArg) ? 0 : one / (exp(-x) + one);
            if (G == 1) y = x * yy * (one - yy);
            if (G == 2) y = x * yy * (one - yy) * (one - two * yy);
            break;
        case 6:  // elu
            if (G == 0) y = (x >= 0) ? x : exp(x) - one;
            if (G == 1) y = (yy >= 0) ? x : x * (yy + one);
            if (G == 2) y = (yy >= 0) ? 0 : x * (yy + one);
            break;
        case 7:  // selu
            if (G == 0) y = (x >= 0) ? seluLambda * x : (seluLambda * seluAlpha) * (exp(x) - one);
            if (G == 1) y = (yy >= 0) ? x * seluLambda : x * (yy + seluLambda * seluAlpha);
            if (G == 2) y = (yy >= 0) ? 0 : x * (yy + seluLambda * seluAlpha);
            break;
        case 8:  // softplus
            if (G == 0) y = (x > satArg) ? x : log(exp(x) + one);
            if (G == 1) y = x * (one - exp(-yy));
            if (G == 2)
            {
                real e = exp(-yy);
                y = x * e * (one - e);
            }
            break;
        case 9:  // swish
            if (G == 0)
                y = (x < -satArg) ? 0 : x / (exp(-x) + one);
            else
            {
                real e = exp(xref);
                real d = e + one;
                if (G == 1)
                    y = (xref > halfSatArg) ? x : x * e * (xref + d) / (d * d);
                else
                    y = (xref > halfSatArg) ? 0 : x * e * (xref * (two - d) + two * d) / (d * d * d);
                yref = (xref < -satArg) ? 0 : xref / (exp(-xref) + one) * gain;
            }
            break;
        }

        // the gain, then the clamp: going forward the output saturates at +-clamp,
        // going back the gradient is cut where the forward output was clamped
        y *= gain * dy;
        if (clamp >= 0)
        {
            if (G == 0)
                y = (y > -clamp & y < clamp) ? y : (y >= 0) ? clamp : -clamp;
            else
                y = (yref > -clamp & yref < clamp) ? y : 0;
        }

        ys[xi] = (T)y;
    }
}

template __global__ void bias_act_kernel<float, 3>(bias_act_kernel_params p);
"""

_BIAS_ACT_WGSL = """
// a WebGPU port of StyleGAN's fused bias + lrelu (forward): the same loop over loopX
// elements a thread; no pointers in WGSL: the struct keeps the CUDA struct's scalars
struct Params {
    grad: i32,
    act: i32,
    alpha: f32,
    gain: f32,
    clamp: f32,
    sizeX: i32,
    sizeB: i32,
    stepB: i32,
    loopX: i32,
}
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;

@compute @workgroup_size(128)
fn bias_act_kernel(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    var xi = i32(wg.x) * p.loopX * 128 + i32(lid.x);
    for (var k = 0; k < p.loopX && xi < p.sizeX; k++) {
        var v = x[xi] + b[(xi / p.stepB) % p.sizeB];
        var r = select(v * p.alpha, v, v > 0.0);
        r *= p.gain;
        if (p.clamp >= 0.0) {
            r = select(select(-p.clamp, p.clamp, r >= 0.0), r, r > -p.clamp && r < p.clamp);
        }
        y[xi] = r;
        xi += 128;
    }
}
"""


def _bias_act_reference(x, b, y, p):
    C, HW = int(p["sizeB"]), int(p["stepB"])
    v = x.astype(np.float64).reshape(-1, C, HW) + b.astype(np.float64)[None, :, None]
    r = np.where(v > 0, v, v * np.float64(np.float32(p["alpha"]))) * np.float64(
        np.float32(p["gain"])
    )
    c = float(p["clamp"])
    return np.clip(r, -c, c).astype(np.float32).ravel()


def _bias_act_kernel(target: str, pointers: bool) -> KernelSpec:
    """The CUDA original takes its buffers through the struct's pointers (``u64`` fields
    named like them, NULL for the ones the forward pass leaves out); the WGSL port's
    uniform is the struct's scalars. One spec cannot hold both (see the module
    docstring and tests/test_wild_round29.py): two specs, one reference."""
    scalars = (
        ("grad", "i32"),
        ("act", "i32"),
        ("alpha", "f32"),
        ("gain", "f32"),
        ("clamp", "f32"),
        ("sizeX", "i32"),
        ("sizeB", "i32"),
        ("stepB", "i32"),
        ("loopX", "i32"),
    )
    names = ("x", "b", "xref", "yref", "dy", "y")
    fields = tuple((n, "u64") for n in names) + scalars if pointers else scalars
    # bias_act.py's defaults for lrelu: alpha 0.2, gain sqrt(2); StyleGAN3's conv_clamp 256
    defaults = {
        "grad": 0,
        "act": 3,
        "alpha": 0.2,
        "gain": float(np.sqrt(2)),
        "clamp": 256.0,
        "loopX": 4,
    }
    if pointers:
        defaults.update(xref=0, yref=0, dy=0)  # NULL: the forward pass has no refs, dy 1
    return KernelSpec(
        id="wild_r29_stylegan2_bias_act_lrelu_"
        + ("void_pointer_params_struct" if pointers else "wgsl_port"),
        entry_point="bias_act_kernel<float, 3>" if target == "cuda" else "bias_act_kernel",
        sources={target: _BIAS_ACT_CUDA if target == "cuda" else _BIAS_ACT_WGSL},
        dims=("N", "C", "H", "W"),
        buffers=(
            BufferSpec(0, "f32", "read", name="x", count="N*C*H*W"),
            BufferSpec(1, "f32", "read", name="b", count="C"),
            BufferSpec(2, "f32", "read_write", name="y", count="N*C*H*W"),
            BufferSpec.uniform(3, fields, name="p"),
        ),
        reference=_bias_act_reference,
        defaults=defaults,
        params=lambda s: {"sizeX": s.N * s.C * s.H * s.W, "sizeB": s.C, "stepB": s.H * s.W},
        grid=lambda sch, s: (ceil_div(s.N * s.C * s.H * s.W, 4 * 128), 1, 1),
        schedules=(Schedule(128),),
        test_sizes=("2x3x7x9", "1x16x4x4", "3x5x13x11"),
    )


BIAS_ACT = Wild(
    _bias_act_kernel("cuda", pointers=True),
    {
        "CUDA: bias indexed by element, not channel": (
            "cuda",
            "bias[(xi / p.stepB) % p.sizeB]",
            "bias[xi % p.sizeB]",
        ),
        "CUDA: gain applied before the slope": (
            "cuda",
            "if (G == 0) y = (x > 0) ? x : x * alpha;",
            "if (G == 0) y = (x > 0) ? x * gain : x * alpha;",
        ),
        "CUDA: loop steps by one element": (
            "cuda",
            "k++, xi += blockDim.x)",
            "k++, xi++)",
        ),
    },
)

BIAS_ACT_WGSL = Wild(
    _bias_act_kernel("wgsl", pointers=False),
    {
        "bias indexed by element, not channel": (
            "wgsl",
            "b[(xi / p.stepB) % p.sizeB]",
            "b[xi % p.sizeB]",
        ),
        "clamp before the gain": (
            "wgsl",
            "        r *= p.gain;\n        if (p.clamp >= 0.0) {\n            r = select(select(-p.clamp, p.clamp, r >= 0.0), r, r > -p.clamp && r < p.clamp);\n        }",
            "        if (p.clamp >= 0.0) {\n            r = select(select(-p.clamp, p.clamp, r >= 0.0), r, r > -p.clamp && r < p.clamp);\n        }\n        r *= p.gain;",
        ),
        "gain not applied": ("wgsl", "r *= p.gain;", ""),
        "loop steps by one element": ("wgsl", "xi += 128;", "xi += 1;"),
    },
)


# -- Megatron-LM scaled_masked_softmax_warp_forward<half, half, float, 7> -----------------

_MASKED_SOFTMAX_CUDA = r"""
// kernel-forge corpus: Megatron-LM's scaled masked softmax, forward pass
// (megatron/fused_kernels/scaled_masked_softmax.h, also in apex/csrc/megatron), read,
// not copied. A warp owns WARP_BATCH rows of at most 2^log2_elements keys; a lane
// keeps its keys in registers, loaded VEC at a time, and the rows' max and sum go
// round the warp through xor shuffles. A masked key scores -10000 and a row with
// every key masked comes out as zeros. half stands in for c10::Half and
// C10_WARP_SIZE is a define (no c10 under NVRTC); the dispatcher launches
// log2_elements 7 (keys in (64, 128]) on blocks (queries / 8, heads, batches) of
// (32, 4) threads.
#include <assert.h>
#include <cuda_fp16.h>
#include <cfloat>
#include <limits>
#include <stdint.h>

namespace {

// N elements in one access: four halves as a float2, four mask bytes as a half2
template <typename T, int N>
__device__ __inline__ void move_elems(T *to, const T *from);

template <>
__device__ __inline__ void move_elems<half, 1>(half *to, const half *from) { *to = *from; }

template <>
__device__ __inline__ void move_elems<half, 4>(half *to, const half *from) {
    *reinterpret_cast<float2 *>(to) = *reinterpret_cast<const float2 *>(from);
}

template <>
__device__ __inline__ void move_elems<uint8_t, 1>(uint8_t *to, const uint8_t *from) { *to = *from; }

template <>
__device__ __inline__ void move_elems<uint8_t, 4>(uint8_t *to, const uint8_t *from) {
    *reinterpret_cast<half2 *>(to) = *reinterpret_cast<const half2 *>(from);
}

template <typename T>
struct SumOp {
    __device__ __forceinline__ T operator()(T a, T b) const { return a + b; }
};

template <typename T>
struct MaxOp {
    __device__ __forceinline__ T operator()(T a, T b) const { return a < b ? b : a; }
};

// the value of lane (this lane ^ lane_mask); CUDA 9 made the taking-part mask explicit
template <typename T>
__device__ __forceinline__ T xor_shuffle(T v, int lane_mask, int width = warpSize, unsigned int members = 0xffffffff)
{
#if CUDA_VERSION >= 9000
    return __shfl_xor_sync(members, v, lane_mask, width);
#else
    return __shfl_xor(v, lane_mask, width);
#endif
}

// ROWS values a lane, each combined over the WIDTH lanes: every lane gets the result
template <typename acc_t, int ROWS, int WIDTH, template<typename> class Op>
__device__ __forceinline__ void warp_allreduce(acc_t *v) {
    Op<acc_t> op;
    #pragma unroll
    for (int lane_mask = WIDTH / 2; lane_mask > 0; lane_mask /= 2) {
        #pragma unroll
        for (int r = 0; r < ROWS; ++r) {
            acc_t other = xor_shuffle(v[r], lane_mask, WIDTH);
            v[r] = op(v[r], other);
        }
    }
}

template <typename input_t, typename output_t, typename acc_t, int log2_elements>
__global__ void scaled_masked_softmax_warp_forward(
    output_t *dst,
    const input_t *src,
    const uint8_t *mask,
    const acc_t scale,
    int micro_batch_size,
    int element_count,
    int pad_batches)
{
    constexpr int KEYS = 1 << log2_elements;  // a row's capacity
    constexpr int WARP_SIZE = (KEYS < C10_WARP_SIZE) ? KEYS : C10_WARP_SIZE;
    constexpr int PER_LANE = KEYS / WARP_SIZE;
    constexpr int WARP_BATCH = (KEYS <= 128) ? 2 : 1;  // rows a warp
    constexpr int VEC = (PER_LANE < 4) ? 1 : 4;        // keys an access

    // threads (lanes, warps); blocks (query rows / rows a block, heads, batches)
    const int lane = threadIdx.x;
    const int warp = threadIdx.y;
    const int block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    const int row0 = (blockDim.y * block + warp) * WARP_BATCH;
    // the mask has no head axis: [batch, 1, q, k] when pad_batches != 1 (BERT), and
    // no batch axis either when it is 1 (GPT-2)
    int mask_row0 = 0;
    if (pad_batches != 1)
        mask_row0 = (blockDim.y * (blockIdx.x + gridDim.x * blockIdx.z) + warp) * WARP_BATCH;
    else
        mask_row0 = (blockDim.y * blockIdx.x + warp) * WARP_BATCH;

    // the last warp may have fewer rows than WARP_BATCH
    int rows = micro_batch_size - row0;
    if (rows > WARP_BATCH)
        rows = WARP_BATCH;

    const int first_key = VEC * lane;
    src += row0 * element_count + first_key;
    dst += row0 * element_count + first_key;
    mask += mask_row0 * element_count + first_key;

    // the scaled scores; a key past the row's end is -inf
    acc_t vals[WARP_BATCH][PER_LANE];
    input_t in_vec[VEC];
    uint8_t mask_vec[VEC];
    #pragma unroll
    for (int r = 0; r < WARP_BATCH; ++r) {
        const int row_len = (r >= rows) ? 0 : element_count;
        #pragma unroll
        for (int it = 0; it < PER_LANE; it += VEC) {
            if (first_key + it * WARP_SIZE < row_len) {
                const int at = r * element_count + it * WARP_SIZE;
                move_elems<input_t, VEC>(in_vec, src + at);
                move_elems<uint8_t, VEC>(mask_vec, mask + at);
                #pragma unroll
                for (int e = 0; e < VEC; ++e) {
                    if (mask_vec[e] != 1)
                        vals[r][it + e] = (acc_t)in_vec[e] * scale;
                    else
                        vals[r][it + e] = -10000.0;
                }
            } else {
                #pragma unroll
                for (int e = 0; e < VEC; ++e)
                    vals[r][it + e] = -std::numeric_limits<acc_t>::infinity();
            }
        }
    }

    acc_t top[WARP_BATCH];
    #pragma unroll
    for (int r = 0; r < WARP_BATCH; ++r) {
        top[r] = vals[r][0];
        #pragma unroll
        for (int it = 1; it < PER_LANE; ++it)
            top[r] = (top[r] > vals[r][it]) ? top[r] : vals[r][it];
    }
    warp_allreduce<acc_t, WARP_BATCH, WARP_SIZE, MaxOp>(top);

    // a row whose max is the fill has every key masked: it is written as zeros
    acc_t keep[WARP_BATCH];
    #pragma unroll
    for (int r = 0; r < WARP_BATCH; ++r)
        keep[r] = (top[r] == -10000.0) ? 0.0 : 1.0;

    acc_t total[WARP_BATCH] { 0.0f };
    #pragma unroll
    for (int r = 0; r < WARP_BATCH; ++r) {
        #pragma unroll
        for (int it = 0; it < PER_LANE; ++it) {
            vals[r][it] = std::exp((vals[r][it] - top[r]));
            total[r] += vals[r][it];
        }
    }
    warp_allreduce<acc_t, WARP_BATCH, WARP_SIZE, SumOp>(total);

    // back to memory, VEC keys an access, only the rows and keys that exist
    output_t out_vec[VEC];
    #pragma unroll
    for (int r = 0; r < WARP_BATCH; ++r) {
        if (r >= rows)
            break;
        #pragma unroll
        for (int it = 0; it < PER_LANE; it += VEC) {
            if (first_key + it * WARP_SIZE >= element_count)
                break;
            #pragma unroll
            for (int e = 0; e < VEC; ++e)
                out_vec[e] = vals[r][it + e] * keep[r] / total[r];
            move_elems<output_t, VEC>(dst + r * element_count + it * WARP_SIZE, out_vec);
        }
    }
}

}  // namespace
"""

_MASKED_SOFTMAX_WGSL = """
// a WebGPU port of Megatron's scaled masked softmax for keys in (64, 128]: workgroups
// (32, 4) on the same grid, two rows an "warp" (its y), each invocation 4 consecutive
// keys; the warp's max and total through workgroup memory, halves in, f32 inside
enable f16;
struct Params { scale: f32, micro_batch_size: i32, element_count: i32, pad_batches: i32 }
@group(0) @binding(0) var<storage, read_write> dst: array<f16>;
@group(0) @binding(1) var<storage, read> src: array<f16>;
@group(0) @binding(2) var<storage, read> mask: array<u32>;
@group(0) @binding(3) var<uniform> p: Params;

const WARP_BATCH: i32 = 2;
const VEC: i32 = 4;
const LOWEST: f32 = -3.40282346638528859812e+38f;
var<workgroup> red: array<array<f32, 32>, 4>;

fn mask_at(o: i32) -> u32 { return (mask[u32(o) >> 2u] >> ((u32(o) & 3u) * 8u)) & 0xffu; }

fn warp_reduce(w: u32, lane: u32, v: f32, is_max: bool) -> f32 {
    red[w][lane] = v;
    workgroupBarrier();
    for (var offset = 16u; offset > 0u; offset >>= 1u) {
        if (lane < offset) {
            let b = red[w][lane + offset];
            red[w][lane] = select(red[w][lane] + b, max(red[w][lane], b), is_max);
        }
        workgroupBarrier();
    }
    let r = red[w][0];
    workgroupBarrier();
    return r;
}

@compute @workgroup_size(32, 4)
fn scaled_masked_softmax_warp_forward(@builtin(workgroup_id) wg: vec3<u32>,
                                      @builtin(num_workgroups) nwg: vec3<u32>,
                                      @builtin(local_invocation_id) lid: vec3<u32>) {
    let row0 = (4 * i32(wg.x + nwg.x * (wg.y + nwg.y * wg.z)) + i32(lid.y)) * WARP_BATCH;
    var mask_row0 = 0;
    if (p.pad_batches != 1) {
        mask_row0 = (4 * i32(wg.x + nwg.x * wg.z) + i32(lid.y)) * WARP_BATCH;
    } else {
        mask_row0 = (4 * i32(wg.x) + i32(lid.y)) * WARP_BATCH;
    }
    let lane_x = i32(lid.x);
    let first_key = VEC * lane_x;
    for (var r = 0; r < WARP_BATCH; r++) {
        let valid = row0 + r < p.micro_batch_size && first_key < p.element_count;
        let row = (row0 + r) * p.element_count + first_key;
        let mrow = (mask_row0 + r) * p.element_count + first_key;
        var vals: array<f32, 4>;
        var top = LOWEST;
        for (var e = 0; e < VEC; e++) {
            var v = LOWEST;
            if (valid) {
                if (mask_at(mrow + e) != 1u) {
                    v = f32(src[row + e]) * p.scale;
                } else {
                    v = -10000.0;
                }
            }
            vals[e] = v;
            top = max(top, v);
        }
        top = warp_reduce(lid.y, lid.x, top, true);
        let keep = select(1.0, 0.0, top == -10000.0);
        var total = 0.0;
        for (var e = 0; e < VEC; e++) {
            vals[e] = exp(vals[e] - top);
            total += vals[e];
        }
        total = warp_reduce(lid.y, lid.x, total, false);
        if (valid) {
            for (var e = 0; e < VEC; e++) {
                dst[row + e] = f16(vals[e] * keep / total);
            }
        }
    }
}
"""


def _attention_mask(rng, count, size):
    # a padding mask [B, 1, SQ, SK] (1 = masked): each batch keeps a random number of
    # keys, and one of its query rows is masked whole (Megatron writes zeros there)
    m = np.zeros((size.B, size.SQ, size.SK), np.uint8)
    for b in range(size.B):
        m[b, :, rng.integers(1, size.SK + 1) :] = 1
        m[b, rng.integers(0, size.SQ)] = 1
    m |= (rng.random(m.shape) < 0.1).astype(np.uint8)
    return m.ravel()


def _masked_softmax_reference(dst, src, mask, p):
    x = src.astype(np.float64) * np.float64(np.float32(p["scale"]))
    masked = (mask == 1)[:, None]
    x = np.where(masked, -10000.0, x)
    top = x.max(axis=-1, keepdims=True)
    e = np.exp(x - top)
    out = e / e.sum(axis=-1, keepdims=True)
    return np.where(top == -10000.0, 0.0, out).astype(np.float16)


MASKED_SOFTMAX = Wild(
    KernelSpec(
        id="wild_r29_megatron_scaled_masked_softmax_warp_forward_half",
        entry_point="scaled_masked_softmax_warp_forward<half, half, float, 7>",
        entry_points={"wgsl": "scaled_masked_softmax_warp_forward"},
        sources={"cuda": _MASKED_SOFTMAX_CUDA, "wgsl": _MASKED_SOFTMAX_WGSL},
        dims=("B", "H", "SQ", "SK"),
        buffers=(
            BufferSpec(
                0, "f16", "read_write", name="dst", count="B*H*SQ*SK", shape=("B", "H", "SQ", "SK")
            ),
            BufferSpec(
                1, "f16", "read", name="src", count="B*H*SQ*SK", shape=("B", "H", "SQ", "SK")
            ),
            BufferSpec(
                2,
                "u8",
                "read",
                name="mask",
                count="B*SQ*SK",
                shape=("B", "SQ", "SK"),
                fill=_attention_mask,
            ),
            BufferSpec.uniform(
                3,
                (
                    ("scale", "f32"),
                    ("micro_batch_size", "i32"),
                    ("element_count", "i32"),
                    ("pad_batches", "i32"),
                ),
            ),
        ),
        reference=_masked_softmax_reference,
        defines={"C10_WARP_SIZE": 32},
        # scale 1/sqrt(head_dim 64), as Megatron's attention passes it (its softmax_scale)
        defaults={"scale": 0.125},
        params=lambda s: {
            "micro_batch_size": s.B * s.H * s.SQ,
            "element_count": s.SK,
            "pad_batches": s.B,
        },
        grid=lambda sch, s: (s.SQ // 8, s.H, s.B),
        schedules=(Schedule((32, 4)),),
        # key_seq_len in (64, 128] and a multiple of 4, query_seq_len of 8 (the
        # dispatcher's asserts); 68 and 100 leave lanes with no keys
        test_sizes=("2x3x8x128", "1x2x16x68", "2x1x8x100"),
    ),
    {
        "CUDA: fill scaled with the scores": (
            "cuda",
            "vals[r][it + e] = -10000.0;",
            "vals[r][it + e] = -10000.0 * scale;",
        ),
        "CUDA: butterfly over half the warp": (
            "cuda",
            "for (int lane_mask = WIDTH / 2; lane_mask > 0; lane_mask /= 2)",
            "for (int lane_mask = WIDTH / 4; lane_mask > 0; lane_mask /= 2)",
        ),
        "CUDA: mask indexed per head": (
            "cuda",
            "mask += mask_row0 * element_count",
            "mask += row0 * element_count",
        ),
        "fill scaled with the scores": ("wgsl", "v = -10000.0;", "v = -10000.0 * p.scale;"),
        "tree stops before the last pair": (
            "wgsl",
            "offset > 0u; offset >>= 1u",
            "offset > 1u; offset >>= 1u",
        ),
        "mask indexed per head": (
            "wgsl",
            "let mrow = (mask_row0 + r)",
            "let mrow = (row0 + r)",
        ),
        "fully masked rows not zeroed": ("wgsl", "select(1.0, 0.0, top == -10000.0)", "1.0"),
    },
)


# -- vLLM reshape_and_cache_kernel<float, float, kAuto>: paged KV-cache scatter -----------

_RESHAPE_AND_CACHE_CUDA = r"""
// kernel-forge corpus: vLLM's reshape_and_cache (csrc/cache_kernels.cu), read, not
// copied: the kAuto case, where the caches keep the model's dtype (the fp8 branch and
// its k_scale / v_scale pointers are left out). One block a token, min(num_heads *
// head_size, 512) threads, copying the token's key and value into its slot of the
// paged caches.
#include <cstdint>

namespace vllm {

enum class Fp8KVCacheDataType { kAuto = 0, kFp8E4M3 = 1, kFp8E5M2 = 2 };

// key, value:  token rows of [num_heads][head_size], key_stride / value_stride apart
// key_cache:   [num_blocks][num_heads][head_size / x][block_size][x], x elements
//              making 16 bytes
// value_cache: [num_blocks][num_heads][head_size][block_size]
// slot_mapping: a token's slot (block * block_size + offset), -1 for padding
template <typename scalar_t, typename cache_t, Fp8KVCacheDataType kv_dt>
__global__ void reshape_and_cache_kernel(
    const scalar_t* __restrict__ key,
    const scalar_t* __restrict__ value,
    cache_t* __restrict__ key_cache,
    cache_t* __restrict__ value_cache,
    const int64_t* __restrict__ slot_mapping,
    const int key_stride, const int value_stride, const int num_heads,
    const int head_size, const int block_size, const int x) {
  const int64_t token = blockIdx.x;
  const int64_t slot = slot_mapping[token];
  if (slot < 0) return;  // a padding token: nothing to cache

  const int64_t blk = slot / block_size;
  const int64_t in_blk = slot % block_size;
  const int groups = head_size / x;
  const int per_token = num_heads * head_size;

  for (int i = threadIdx.x; i < per_token; i += blockDim.x) {
    const int head = i / head_size;
    const int dim = i % head_size;
    const int64_t key_at =
        (((blk * num_heads + head) * groups + dim / x) * block_size + in_blk) * x + dim % x;
    const int64_t value_at =
        ((blk * num_heads + head) * head_size + dim) * block_size + in_blk;
    scalar_t k = key[token * key_stride + i];
    scalar_t v = value[token * value_stride + i];
    if constexpr (kv_dt == Fp8KVCacheDataType::kAuto) {
      key_cache[key_at] = k;
      value_cache[value_at] = v;
    }
  }
}

}  // namespace vllm
"""

_RESHAPE_AND_CACHE_WGSL = """
// a WebGPU port of vLLM's reshape_and_cache: one workgroup a token, the int64 slot read
// as two i32 words (its low word carries the slot, -1 for a padding token)
struct Params { key_stride: i32, value_stride: i32, num_heads: i32, head_size: i32, block_size: i32, x: i32 }
@group(0) @binding(0) var<storage, read> key: array<f32>;
@group(0) @binding(1) var<storage, read> value: array<f32>;
@group(0) @binding(2) var<storage, read_write> key_cache: array<f32>;
@group(0) @binding(3) var<storage, read_write> value_cache: array<f32>;
@group(0) @binding(4) var<storage, read> slot_mapping: array<vec2<i32>>;
@group(0) @binding(5) var<uniform> p: Params;

@compute @workgroup_size(128)
fn reshape_and_cache_kernel(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let token = i32(wg.x);
    let slot = slot_mapping[token].x;
    if (slot < 0) {
        return;
    }
    let blk = slot / p.block_size;
    let in_blk = slot % p.block_size;
    let per_token = p.num_heads * p.head_size;
    for (var i = i32(lid.x); i < per_token; i += 128) {
        let head = i / p.head_size;
        let dim = i % p.head_size;
        let x_idx = dim / p.x;
        let x_offset = dim % p.x;
        let key_at = blk * p.num_heads * (p.head_size / p.x) * p.block_size * p.x
            + head * (p.head_size / p.x) * p.block_size * p.x + x_idx * p.block_size * p.x
            + in_blk * p.x + x_offset;
        let value_at = blk * p.num_heads * p.head_size * p.block_size
            + head * p.head_size * p.block_size + dim * p.block_size + in_blk;
        key_cache[key_at] = key[token * p.key_stride + i];
        value_cache[value_at] = value[token * p.value_stride + i];
    }
}
"""

_KV_BLOCK_SIZE = 16
_KV_NUM_BLOCKS = 6
_KV_X = 4  # 16 bytes / sizeof(float), as vLLM's cache engine picks x


def _slot_mapping(rng, count, size):
    # distinct slots anywhere in the cache, and padding tokens (-1) among them
    slots = rng.permutation(_KV_NUM_BLOCKS * _KV_BLOCK_SIZE)[:count].astype(np.int64)
    slots[rng.random(count) < 0.25] = -1
    return slots


def _reshape_and_cache_reference(key, value, key_cache, value_cache, slot_mapping, p):
    NH, HS, bs, x = int(p["num_heads"]), int(p["head_size"]), _KV_BLOCK_SIZE, _KV_X
    kc = key_cache.reshape(_KV_NUM_BLOCKS, NH, HS // x, bs, x).copy()
    vc = value_cache.reshape(_KV_NUM_BLOCKS, NH, HS, bs).copy()
    for t, slot in enumerate(slot_mapping):
        if slot < 0:
            continue
        b, o = divmod(int(slot), bs)
        k = key[t * int(p["key_stride"]) :][: NH * HS].reshape(NH, HS // x, x)
        v = value[t * int(p["value_stride"]) :][: NH * HS].reshape(NH, HS)
        kc[b, :, :, o, :] = k
        vc[b, :, :, o] = v
    return {"key_cache": kc.ravel(), "value_cache": vc.ravel()}


RESHAPE_AND_CACHE = Wild(
    KernelSpec(
        id="wild_r29_vllm_reshape_and_cache_int64_slots_padding_skipped",
        entry_point="vllm::reshape_and_cache_kernel<float, float, vllm::Fp8KVCacheDataType::kAuto>",
        entry_points={"wgsl": "reshape_and_cache_kernel"},
        sources={"cuda": _RESHAPE_AND_CACHE_CUDA, "wgsl": _RESHAPE_AND_CACHE_WGSL},
        dims=("T", "NH", "HS"),
        buffers=(
            # key and value are views of a [T, 2, NH, HS] kv projection: stride 2 NH HS
            BufferSpec(0, "f32", "read", name="key", count="T*2*NH*HS"),
            BufferSpec(1, "f32", "read", name="value", count="T*2*NH*HS"),
            BufferSpec(
                2,
                "f32",
                "read_write",
                name="key_cache",
                count=lambda s: _KV_NUM_BLOCKS * s.NH * s.HS * _KV_BLOCK_SIZE,
                inout=True,
            ),
            BufferSpec(
                3,
                "f32",
                "read_write",
                name="value_cache",
                count=lambda s: _KV_NUM_BLOCKS * s.NH * s.HS * _KV_BLOCK_SIZE,
                inout=True,
            ),
            BufferSpec(4, "i64", "read", name="slot_mapping", count="T", fill=_slot_mapping),
            BufferSpec.uniform(
                5,
                (
                    ("key_stride", "i32"),
                    ("value_stride", "i32"),
                    ("num_heads", "i32"),
                    ("head_size", "i32"),
                    ("block_size", "i32"),
                    ("x", "i32"),
                ),
            ),
        ),
        reference=_reshape_and_cache_reference,
        defaults={"block_size": _KV_BLOCK_SIZE, "x": _KV_X},
        params=lambda s: {
            "key_stride": 2 * s.NH * s.HS,
            "value_stride": 2 * s.NH * s.HS,
            "num_heads": s.NH,
            "head_size": s.HS,
        },
        grid=lambda sch, s: (s.T, 1, 1),
        schedules=(Schedule(128),),
        # 6 blocks of 16 slots; 2 x 80 values a token leave the block's second pass partial
        test_sizes=("37x2x80", "1x1x8", "96x4x16"),
    ),
    {
        "CUDA: padding tokens not skipped": (
            "cuda",
            "if (slot < 0) return;",
            "if (slot < -1) return;",
        ),
        "CUDA: value cache laid out [block_size, head_size]": (
            "cuda",
            "* head_size + dim) * block_size + in_blk;",
            "* block_size + in_blk) * head_size + dim;",
        ),
        "CUDA: source rows at stride n": (
            "cuda",
            "token * key_stride + i",
            "token * per_token + i",
        ),
        "value cache laid out [block_size, head_size]": (
            "wgsl",
            "dim * p.block_size + in_blk;",
            "in_blk * p.head_size + dim;",
        ),
        "key's 16-byte groups not split by x": (
            "wgsl",
            "x_idx * p.block_size * p.x\n            + in_blk * p.x + x_offset;",
            "in_blk * p.head_size + dim;",
        ),
        "source rows at stride n": (
            "wgsl",
            "token * p.key_stride + i",
            "token * per_token + i",
        ),
        "slot read from the high word": (
            "wgsl",
            "slot_mapping[token].x",
            "slot_mapping[token].y",
        ),
    },
)


ROUND29: dict[str, Wild] = {
    w.kernel.id: w
    for w in (NF4_DEQUANT, BIAS_ACT, BIAS_ACT_WGSL, MASKED_SOFTMAX, RESHAPE_AND_CACHE)
}
