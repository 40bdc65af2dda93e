"""Round 29 of kernels from the wild, merged into ``tests.wild.CORPUS``: CUDA kernels of
public ML projects, each as its project writes it, with a WGSL port as a WebGPU port
would write it, so that the port runs here (lavapipe, SwiftShader) and the CUDA original
on the GPU machine, both judged by one float64 (or exact) reference.

- bitsandbytes' ``kDequantizeBlockwise<float, 512, 64, 8, NF4>`` (csrc/kernels.cu): the
  NF4 code in a ``__device__ static float nf4_data[16]``, ``cub::BlockLoad``/
  ``BlockStore`` with ``BLOCK_LOAD_WARP_TRANSPOSE``, absmax per block found by a shift
  (``31 - __clz(blocksize)``), the host's ``blocksize/2`` (bytes a block) and an odd n
  (the last byte's low nibble is no value); ``float *code`` is NULL for NF4
  (``get_ptr(None)``), given as a ``u64`` field of 0. As written, the last tile's idle
  threads read ``absmax`` one past its end (bnb's shapes are multiples of 1024; WGSL's
  robust access clamps it here; not stored either way).
- StyleGAN2-ADA's ``bias_act_kernel<float, 3>`` (torch_utils/ops/bias_act.cu): one
  ``bias_act_kernel_params`` struct by value holding six ``const void*`` (x, b, y set;
  xref, yref, dy NULL) beside its scalars, every activation's branch compiled, the lrelu
  forward with gain sqrt(2) and conv_clamp 256; the WGSL port is a spec of its own (see
  below).
- Megatron-LM's ``scaled_masked_softmax_warp_forward<half, half, float, 7>``
  (megatron/fused_kernels/scaled_masked_softmax.h): ``copy_vector`` specialisations
  (four halves as a ``float2``, four mask bytes as a ``half2``), ``warp_reduce`` with a
  template-template ``ReduceOp`` over ``__shfl_xor_sync`` behind ``#if CUDA_VERSION >=
  9000``, two rows a warp, the -10000.0 fill and zeros for a fully masked row, in an
  anonymous namespace; ``c10::Half`` is ``half`` and ``C10_WARP_SIZE`` a define (the only
  edits: no c10 under NVRTC). The port (``enable f16;``) reduces through workgroup
  memory.
- vLLM's ``vllm::reshape_and_cache_kernel<float, float, Fp8KVCacheDataType::kAuto>``
  (csrc/cache_kernels.cu, its fp8 branch left out): ``int64_t`` slot mapping with -1
  padding tokens skipped, the key cache split in 16-byte groups of ``x``, strided key
  and value views of a kv projection, both caches ``inout`` (the slots not written
  keep their contents). The port reads the int64 slots as ``vec2<i32>``.

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

# ruff: noqa: E501  (the CUDA sources keep their projects' long lines, as written)

from __future__ import annotations

import numpy as np

from forge import BufferSpec, KernelSpec, Schedule, ceil_div

from . import Wild

# -- bitsandbytes kDequantizeBlockwise<float, 512, 64, 8, NF4> ---------------------------

_NF4_CUDA = r"""
// bitsandbytes, csrc/kernels.cu: kDequantizeBlockwise (the NF4 path), launched by
// dequantizeBlockwise<float, NF4> in csrc/ops.cu as
//   kDequantizeBlockwise<T, 512, 64, 8, DATA_TYPE><<<(n+tile_size-1)/tile_size, 64>>>(code, A, absmax, out, blocksize/2, n);
// with tile_size 1024 (values; 512 bytes) and code NULL (get_ptr(None) in functional.py)
#include <cub/block/block_load.cuh>
#include <cub/block/block_store.cuh>
#include <cfloat>

typedef enum DataType_t
{
	General8bit = 0,
	FP4 = 1,
	NF4 = 2,
} DataType_t;

__device__ static float nf4_data[16] = {-1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453, -0.28444138169288635, -0.18477343022823334, -0.09105003625154495, 0.0, 0.07958029955625534, 0.16093020141124725, 0.24611230194568634, 0.33791524171829224, 0.44070982933044434, 0.5626170039176941, 0.7229568362236023, 1.0};

__device__ __forceinline__ float dDequantizeNF4(unsigned char val)
{
  return nf4_data[val & 0x0F];
}

template<typename T, int TILE_SIZE, int THREADS, int NUM_PER_TH, int DATA_TYPE>
__global__ void kDequantizeBlockwise(float *code, unsigned char * A, float * absmax, T *out, const int blocksize, const int n)
{

  const int n_load = (gridDim.x * TILE_SIZE);
  int valid_items_load = 0;
  int valid_items_store = 0;
  const int base_idx = (blockIdx.x * TILE_SIZE);

  T vals[NUM_PER_TH*((DATA_TYPE > 0) ? 2 : 1)];
  unsigned char qvals[NUM_PER_TH];
  float local_abs_max = -FLT_MAX;

  typedef cub::BlockLoad<unsigned char, THREADS, NUM_PER_TH, cub::BLOCK_LOAD_WARP_TRANSPOSE> LoadChar;
  typedef cub::BlockStore<T, THREADS, NUM_PER_TH*((DATA_TYPE > 0) ? 2 : 1), cub::BLOCK_STORE_WARP_TRANSPOSE> StoreT;

  __shared__ typename LoadChar::TempStorage loadchar;
  __shared__ typename StoreT::TempStorage storet;

  for (int i = base_idx; i < n_load; i += gridDim.x*TILE_SIZE)
  {
    if (DATA_TYPE > 0)
    {
      valid_items_load = min(TILE_SIZE, (n+1)/2 - i);
      valid_items_store = min(TILE_SIZE*2, n - i*2);
    }
    else
    {
      valid_items_load = min(TILE_SIZE, n - i);
      valid_items_store = valid_items_load;
    }

    // Since blocksize will always be a power-of-2, we avoid more expensive
    // division by the blocksize and instead use a shift operation.
    // This is equivalent to (i+threadId.x*NUM_PER_TH)/blocksize.
    local_abs_max = __ldg(&absmax[(i+threadIdx.x*NUM_PER_TH) >> (31 - __clz(blocksize))]);

    __syncthreads();
    LoadChar(loadchar).Load(&(A[i]), qvals, valid_items_load, 128);

    switch (DATA_TYPE)
    {
        case General8bit:
          // load code through read-only cache via __ldg
          #pragma unroll NUM_PER_TH
          for(int j = 0; j < NUM_PER_TH; j++)
            vals[j] = __ldg(&code[qvals[j]])*local_abs_max;
          break;
        case NF4:
          #pragma unroll NUM_PER_TH
          for(int j = 0; j < NUM_PER_TH; j++)
          {
            vals[j*2] = dDequantizeNF4(qvals[j] >> 4)* local_abs_max;
            vals[j*2 + 1] = dDequantizeNF4(qvals[j] & 0x0F)* local_abs_max;
          }
          break;
    }

    __syncthreads();
    StoreT(storet).Store(&(out[(DATA_TYPE > 0) ? i*2 : i]), vals, valid_items_store);
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

var<private> nf4_data: array<f32, 16> = array<f32, 16>(-1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453, -0.28444138169288635, -0.18477343022823334, -0.09105003625154495, 0.0, 0.07958029955625534, 0.16093020141124725, 0.24611230194568634, 0.33791524171829224, 0.44070982933044434, 0.5626170039176941, 0.7229568362236023, 1.0);

const TILE_SIZE: i32 = 512;
const NUM_PER_TH: i32 = 8;

fn load_byte(o: i32) -> u32 { return (A[o >> 2u] >> (u32(o & 3) * 8u)) & 0xffu; }

@compute @workgroup_size(64)
fn kDequantizeBlockwise(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let i = i32(wg.x) * TILE_SIZE;
    let t = i32(lid.x);
    let valid_items_load = min(TILE_SIZE, (p.n + 1) / 2 - i);
    let valid_items_store = min(TILE_SIZE * 2, p.n - i * 2);
    // blocksize is in bytes (half the values of a block), a power of two
    let local_abs_max = absmax[(i + t * NUM_PER_TH) >> (31u - countLeadingZeros(u32(p.blocksize)))];
    for (var j = 0; j < NUM_PER_TH; j++) {
        let b = t * NUM_PER_TH + j;
        var q = 128u;
        if (b < valid_items_load) { q = load_byte(i + b); }
        let o = 2 * (i + b);
        if (2 * b < valid_items_store) { out[o] = nf4_data[q >> 4u] * local_abs_max; }
        if (2 * b + 1 < valid_items_store) { out[o + 1] = nf4_data[q & 0x0fu] * local_abs_max; }
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
            "vals[j*2] = dDequantizeNF4(qvals[j] >> 4)* local_abs_max;\n            vals[j*2 + 1] = dDequantizeNF4(qvals[j] & 0x0F)* local_abs_max;",
            "vals[j*2] = dDequantizeNF4(qvals[j] & 0x0F)* local_abs_max;\n            vals[j*2 + 1] = dDequantizeNF4(qvals[j] >> 4)* local_abs_max;",
        ),
        "CUDA: absmax shift one too far": (
            "cuda",
            "(31 - __clz(blocksize))",
            "(32 - __clz(blocksize))",
        ),
        "CUDA: odd count's last byte not loaded": (
            "cuda",
            "valid_items_load = min(TILE_SIZE, (n+1)/2 - i);",
            "valid_items_load = min(TILE_SIZE, n/2 - i);",
        ),
        "nibbles stored low first": (
            "wgsl",
            "out[o] = nf4_data[q >> 4u] * local_abs_max; }\n        if (2 * b + 1 < valid_items_store) { out[o + 1] = nf4_data[q & 0x0fu]",
            "out[o] = nf4_data[q & 0x0fu] * local_abs_max; }\n        if (2 * b + 1 < valid_items_store) { out[o + 1] = nf4_data[q >> 4u]",
        ),
        "absmax indexed by value, not byte": (
            "wgsl",
            "absmax[(i + t * NUM_PER_TH) >>",
            "absmax[(2 * (i + t * NUM_PER_TH)) >>",
        ),
        "odd count's last byte not loaded": (
            "wgsl",
            "min(TILE_SIZE, (p.n + 1) / 2 - i)",
            "min(TILE_SIZE, p.n / 2 - i)",
        ),
    },
)


# -- StyleGAN2-ADA bias_act_kernel<float, 3>: a params struct of void pointers ------------

_BIAS_ACT_CUDA = r"""
// StyleGAN2-ADA / StyleGAN3 (NVlabs), torch_utils/ops/bias_act.h and bias_act.cu:
// the forward pass of a lrelu layer (act 3, grad 0) with its bias on dim 1, gain sqrt(2)
// and conv_clamp 256; the host fills the struct (x, b, y set; xref, yref, dy NULL) and
// launches 128 threads a block, loopX 4
struct bias_act_kernel_params
{
    const void* x;      // [sizeX]
    const void* b;      // [sizeB] or NULL
    const void* xref;   // [sizeX] or NULL
    const void* yref;   // [sizeX] or NULL
    const void* dy;     // [sizeX] or NULL
    void*       y;      // [sizeX]

    int         grad;
    int         act;
    float       alpha;
    float       gain;
    float       clamp;

    int         sizeX;
    int         sizeB;
    int         stepB;
    int         loopX;
};

//------------------------------------------------------------------------
// Helpers.

template <class T> struct InternalType;
template <> struct InternalType<double>     { typedef double scalar_t; };
template <> struct InternalType<float>      { typedef float  scalar_t; };

//------------------------------------------------------------------------
// CUDA kernel.

template <class T, int A>
__global__ void bias_act_kernel(bias_act_kernel_params p)
{
    typedef typename InternalType<T>::scalar_t scalar_t;
    int G                 = p.grad;
    scalar_t alpha        = (scalar_t)p.alpha;
    scalar_t gain         = (scalar_t)p.gain;
    scalar_t clamp        = (scalar_t)p.clamp;
    scalar_t one          = (scalar_t)1;
    scalar_t two          = (scalar_t)2;
    scalar_t expRange     = (scalar_t)80;
    scalar_t halfExpRange = (scalar_t)40;
    scalar_t seluScale    = (scalar_t)1.0507009873554804934193349852946;
    scalar_t seluAlpha    = (scalar_t)1.6732632423543772848170429916717;

    // Loop over elements.
    int xi = blockIdx.x * p.loopX * blockDim.x + threadIdx.x;
    for (int loopIdx = 0; loopIdx < p.loopX && xi < p.sizeX; loopIdx++, xi += blockDim.x)
    {
        // Load.
        scalar_t x = (scalar_t)((const T*)p.x)[xi];
        scalar_t b = (p.b) ? (scalar_t)((const T*)p.b)[(xi / p.stepB) % p.sizeB] : 0;
        scalar_t xref = (p.xref) ? (scalar_t)((const T*)p.xref)[xi] : 0;
        scalar_t yref = (p.yref) ? (scalar_t)((const T*)p.yref)[xi] : 0;
        scalar_t dy = (p.dy) ? (scalar_t)((const T*)p.dy)[xi] : one;
        scalar_t yy = (gain != 0) ? yref / gain : 0;
        scalar_t y = 0;

        // Apply bias.
        ((G == 0) ? x : xref) += b;

        // linear
        if (A == 1)
        {
            if (G == 0) y = x;
            if (G == 1) y = x;
        }

        // relu
        if (A == 2)
        {
            if (G == 0) y = (x > 0) ? x : 0;
            if (G == 1) y = (yy > 0) ? x : 0;
        }

        // lrelu
        if (A == 3)
        {
            if (G == 0) y = (x > 0) ? x : x * alpha;
            if (G == 1) y = (yy > 0) ? x : x * alpha;
        }

        // tanh
        if (A == 4)
        {
            if (G == 0) { scalar_t c = exp(x); scalar_t d = one / c; y = (x < -expRange) ? -one : (x > expRange) ? one : (c - d) / (c + d); }
            if (G == 1) y = x * (one - yy * yy);
            if (G == 2) y = x * (one - yy * yy) * (-two * yy);
        }

        // sigmoid
        if (A == 5)
        {
            if (G == 0) y = (x < -expRange) ? 0 : one / (exp(-x) + one);
            if (G == 1) y = x * yy * (one - yy);
            if (G == 2) y = x * yy * (one - yy) * (one - two * yy);
        }

        // elu
        if (A == 6)
        {
            if (G == 0) y = (x >= 0) ? x : exp(x) - one;
            if (G == 1) y = (yy >= 0) ? x : x * (yy + one);
            if (G == 2) y = (yy >= 0) ? 0 : x * (yy + one);
        }

        // selu
        if (A == 7)
        {
            if (G == 0) y = (x >= 0) ? seluScale * x : (seluScale * seluAlpha) * (exp(x) - one);
            if (G == 1) y = (yy >= 0) ? x * seluScale : x * (yy + seluScale * seluAlpha);
            if (G == 2) y = (yy >= 0) ? 0 : x * (yy + seluScale * seluAlpha);
        }

        // softplus
        if (A == 8)
        {
            if (G == 0) y = (x > expRange) ? x : log(exp(x) + one);
            if (G == 1) y = x * (one - exp(-yy));
            if (G == 2) { scalar_t c = exp(-yy); y = x * c * (one - c); }
        }

        // swish
        if (A == 9)
        {
            if (G == 0)
                y = (x < -expRange) ? 0 : x / (exp(-x) + one);
            else
            {
                scalar_t c = exp(xref);
                scalar_t d = c + one;
                if (G == 1)
                    y = (xref > halfExpRange) ? x : x * c * (xref + d) / (d * d);
                else
                    y = (xref > halfExpRange) ? 0 : x * c * (xref * (two - d) + two * d) / (d * d * d);
                yref = (xref < -expRange) ? 0 : xref / (exp(-xref) + one) * gain;
            }
        }

        // Apply gain.
        y *= gain * dy;

        // Clamp.
        if (clamp >= 0)
        {
            if (G == 0)
                y = (y > -clamp & y < clamp) ? y : (y >= 0) ? clamp : -clamp;
            else
                y = (yref > -clamp & yref < clamp) ? y : 0;
        }

        // Store.
        ((T*)p.y)[xi] = (T)y;
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
    for (var loopIdx = 0; loopIdx < p.loopX && xi < p.sizeX; loopIdx++) {
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
            "((const T*)p.b)[(xi / p.stepB) % p.sizeB]",
            "((const T*)p.b)[xi % p.sizeB]",
        ),
        "CUDA: gain applied before the slope": (
            "cuda",
            "if (G == 0) y = (x > 0) ? x : x * alpha;",
            "if (G == 0) y = (x > 0) ? x * gain : x * alpha;",
        ),
        "CUDA: loop steps by one element": (
            "cuda",
            "loopIdx++, xi += blockDim.x)",
            "loopIdx++, xi++)",
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
// Megatron-LM, megatron/fused_kernels/scaled_masked_softmax.h (also apex/csrc/megatron):
// c10::Half is cuda_fp16.h's half here and C10_WARP_SIZE a define (no c10 under NVRTC);
// dispatch_scaled_masked_softmax_forward launches log2_elements 7 (key_seq_len in
// (64, 128]) as blocks (query_seq_len / 8, attn_heads, batches), threads (32, 4)
#include <assert.h>
#include <cuda_fp16.h>
#include <cfloat>
#include <limits>
#include <stdint.h>

namespace {

template <typename Datatype, int ELEMENTS_PER_LDG>
__device__ __inline__ void copy_vector(Datatype *dst, const Datatype *src);

template <>
__device__ __inline__ void copy_vector<half, 1>(half *dst, const half *src) { *dst = *src; }

template <>
__device__ __inline__ void copy_vector<half, 4>(half *dst, const half *src) { *((float2*) dst) = *((float2*) src); }

template <>
__device__ __inline__ void copy_vector<uint8_t, 1>(uint8_t *dst, const uint8_t *src) { *dst = *src; }

template <>
__device__ __inline__ void copy_vector<uint8_t, 4>(uint8_t *dst, const uint8_t *src) {*((half2*) dst) = *((half2*) src); }

template<typename T>
struct Add {
  __device__ __forceinline__ T operator()(T a, T b) const {
    return a + b;
  }
};

template<typename T>
struct Max {
  __device__ __forceinline__ T operator()(T a, T b) const {
    return a < b ? b : a;
  }
};

template <typename T>
__device__ __forceinline__ T WARP_SHFL_XOR_NATIVE(T value, int laneMask, int width = warpSize, unsigned int mask = 0xffffffff)
{
#if CUDA_VERSION >= 9000
    return __shfl_xor_sync(mask, value, laneMask, width);
#else
    return __shfl_xor(value, laneMask, width);
#endif
}

template <typename acc_t, int WARP_BATCH, int WARP_SIZE, template<typename> class ReduceOp>
__device__ __forceinline__ void warp_reduce(acc_t* sum) {
    ReduceOp<acc_t> r;
    #pragma unroll
    for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2) {
        #pragma unroll
        for (int i = 0;  i < WARP_BATCH;  ++i) {
            acc_t b = WARP_SHFL_XOR_NATIVE(sum[i], offset, WARP_SIZE);
            sum[i] = r(sum[i], b);
        }
    }
}

/*
 * Extended softmax (from native aten pytorch) with following additional features
 * 1) input scaling
 * 2) Explicit masking
 */
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
    // WARP_SIZE and WARP_BATCH must match the return values batches_per_warp and
    // warp_size of method warp_softmax_forward_kernel.
    constexpr int next_power_of_two = 1 << log2_elements;
    constexpr int WARP_SIZE = (next_power_of_two < C10_WARP_SIZE) ? next_power_of_two : C10_WARP_SIZE;
    constexpr int WARP_ITERATIONS = next_power_of_two / WARP_SIZE;
    constexpr int WARP_BATCH = (next_power_of_two <= 128) ? 2 : 1;
    constexpr int ELEMENTS_PER_LDG_STG = (WARP_ITERATIONS < 4) ? 1 : 4;

    // blockDim/threadIdx = (WARP_SIZE, WARPS_PER_BLOCK, )
    // gridDim/blockIdx = (seq_len, attn_heads, batches)
    int first_batch = (blockDim.y * (blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z))+ threadIdx.y) * WARP_BATCH;
    int pad_first_batch = 0;
    if (pad_batches != 1) { // bert style
        pad_first_batch = (blockDim.y * (blockIdx.x + gridDim.x * blockIdx.z) + threadIdx.y) * WARP_BATCH;
    } else { // gpt2 style
        pad_first_batch = (blockDim.y * blockIdx.x + threadIdx.y) * WARP_BATCH;
    }

    // micro_batch_size might not be a multiple of WARP_BATCH. Check how
    // many batches have to computed within this WARP.
    int local_batches = micro_batch_size - first_batch;
    if (local_batches > WARP_BATCH)
        local_batches = WARP_BATCH;

    // there might be multiple batches per warp. compute the index within the batch
    int local_idx = threadIdx.x;

    src += first_batch * element_count + ELEMENTS_PER_LDG_STG * local_idx;
    dst += first_batch * element_count + ELEMENTS_PER_LDG_STG * local_idx;
    mask += pad_first_batch * element_count + ELEMENTS_PER_LDG_STG * local_idx;

    // load data from global memory
    acc_t elements[WARP_BATCH][WARP_ITERATIONS];
    input_t temp_data[ELEMENTS_PER_LDG_STG];
    uint8_t temp_mask[ELEMENTS_PER_LDG_STG];
    #pragma unroll
    for (int i = 0;  i < WARP_BATCH;  ++i) {
        int batch_element_count = (i >= local_batches) ? 0 : element_count;

        #pragma unroll
        for (int it = 0;  it < WARP_ITERATIONS;  it+=ELEMENTS_PER_LDG_STG) {
            int element_index = ELEMENTS_PER_LDG_STG * local_idx + it * WARP_SIZE;

            if (element_index < batch_element_count) {
                int itr_idx = i*element_count+it*WARP_SIZE;
                copy_vector<input_t, ELEMENTS_PER_LDG_STG>(temp_data, src + itr_idx);
                copy_vector<uint8_t, ELEMENTS_PER_LDG_STG>(temp_mask, mask + itr_idx);

                #pragma unroll
                for (int element = 0;  element < ELEMENTS_PER_LDG_STG;  ++element) {
                    if (temp_mask[element] != 1) {
                        elements[i][it + element] = (acc_t)temp_data[element] * scale;
                    } else {
                        elements[i][it + element] = -10000.0;
                    }
                }
            } else {
                #pragma unroll
                for (int element = 0;  element < ELEMENTS_PER_LDG_STG;  ++element) {
                    elements[i][it + element] = -std::numeric_limits<acc_t>::infinity();
                }
            }
        }
    }

    // compute max_value
    acc_t max_value[WARP_BATCH];
    #pragma unroll
    for (int i = 0;  i < WARP_BATCH;  ++i) {
        max_value[i] = elements[i][0];
        #pragma unroll
        for (int it = 1;  it < WARP_ITERATIONS;  ++it) {
            max_value[i] = (max_value[i] > elements[i][it]) ? max_value[i] : elements[i][it];
        }
    }
    warp_reduce<acc_t, WARP_BATCH, WARP_SIZE, Max>(max_value);

    // compute scale value to account for full mask
    acc_t scale_value[WARP_BATCH];
    #pragma unroll
    for (int i = 0;  i < WARP_BATCH;  ++i) {
        scale_value[i] = (max_value[i] == -10000.0) ? 0.0 : 1.0;
    }

    acc_t sum[WARP_BATCH] { 0.0f };
    #pragma unroll
    for (int i = 0;  i < WARP_BATCH;  ++i) {
        #pragma unroll
        for (int it = 0;  it < WARP_ITERATIONS;  ++it) {
            elements[i][it] = std::exp((elements[i][it] - max_value[i]));
            sum[i] += elements[i][it];
        }
    }
    warp_reduce<acc_t, WARP_BATCH, WARP_SIZE, Add>(sum);

    // store result
    output_t out[ELEMENTS_PER_LDG_STG];
    #pragma unroll
    for (int i = 0;  i < WARP_BATCH;  ++i) {
        if (i >= local_batches)
            break;
        #pragma unroll
        for (int it = 0;  it < WARP_ITERATIONS;  it+=ELEMENTS_PER_LDG_STG) {
            int element_index = ELEMENTS_PER_LDG_STG * local_idx + it * WARP_SIZE;
            if (element_index < element_count) {
                #pragma unroll
                for (int element = 0;  element < ELEMENTS_PER_LDG_STG;  ++element) {
                    out[element] = elements[i][it + element] * scale_value[i]/ sum[i];
                }
                copy_vector<output_t, ELEMENTS_PER_LDG_STG>(dst + i * element_count + it * WARP_SIZE, out);
            } else {
                break;
            }
        }
    }
}

}  // end of anonymous namespace
"""

_MASKED_SOFTMAX_WGSL = """
// a WebGPU port of Megatron's scaled masked softmax for keys in (64, 128]: workgroups
// (32, 4) on the same grid, two rows an "warp" (its y), each invocation 4 consecutive
// keys; the warp's max and sum through workgroup memory, halves in, f32 inside
enable f16;
struct Params { scale: f32, micro_batch_size: i32, element_count: i32, pad_batches: i32 }
@group(0) @binding(0) var<storage, read_write> dst: array<f16>;
@group(0) @binding(1) var<storage, read> src: array<f16>;
@group(0) @binding(2) var<storage, read> mask: array<u32>;
@group(0) @binding(3) var<uniform> p: Params;

const WARP_BATCH: i32 = 2;
const ELEMENTS_PER_LDG_STG: i32 = 4;
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
    let first_batch = (4 * i32(wg.x + nwg.x * (wg.y + nwg.y * wg.z)) + i32(lid.y)) * WARP_BATCH;
    var pad_first_batch = 0;
    if (p.pad_batches != 1) {
        pad_first_batch = (4 * i32(wg.x + nwg.x * wg.z) + i32(lid.y)) * WARP_BATCH;
    } else {
        pad_first_batch = (4 * i32(wg.x) + i32(lid.y)) * WARP_BATCH;
    }
    let local_idx = i32(lid.x);
    let element_index = ELEMENTS_PER_LDG_STG * local_idx;
    for (var i = 0; i < WARP_BATCH; i++) {
        let valid = first_batch + i < p.micro_batch_size && element_index < p.element_count;
        let row = (first_batch + i) * p.element_count + element_index;
        let mrow = (pad_first_batch + i) * p.element_count + element_index;
        var elements: array<f32, 4>;
        var max_value = LOWEST;
        for (var e = 0; e < ELEMENTS_PER_LDG_STG; e++) {
            var v = LOWEST;
            if (valid) {
                if (mask_at(mrow + e) != 1u) {
                    v = f32(src[row + e]) * p.scale;
                } else {
                    v = -10000.0;
                }
            }
            elements[e] = v;
            max_value = max(max_value, v);
        }
        max_value = warp_reduce(lid.y, lid.x, max_value, true);
        let scale_value = select(1.0, 0.0, max_value == -10000.0);
        var sum = 0.0;
        for (var e = 0; e < ELEMENTS_PER_LDG_STG; e++) {
            elements[e] = exp(elements[e] - max_value);
            sum += elements[e];
        }
        sum = warp_reduce(lid.y, lid.x, sum, false);
        if (valid) {
            for (var e = 0; e < ELEMENTS_PER_LDG_STG; e++) {
                dst[row + e] = f16(elements[e] * scale_value / sum);
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
            "elements[i][it + element] = -10000.0;",
            "elements[i][it + element] = -10000.0 * scale;",
        ),
        "CUDA: butterfly over half the warp": (
            "cuda",
            "for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2)",
            "for (int offset = WARP_SIZE / 4; offset > 0; offset /= 2)",
        ),
        "CUDA: mask indexed per head": (
            "cuda",
            "mask += pad_first_batch * element_count",
            "mask += first_batch * element_count",
        ),
        "fill scaled with the scores": ("wgsl", "v = -10000.0;", "v = -10000.0 * p.scale;"),
        "tree stops before the last pair": (
            "wgsl",
            "offset > 0u; offset >>= 1u",
            "offset > 1u; offset >>= 1u",
        ),
        "mask indexed per head": (
            "wgsl",
            "let mrow = (pad_first_batch + i)",
            "let mrow = (first_batch + i)",
        ),
        "fully masked rows not zeroed": ("wgsl", "select(1.0, 0.0, max_value == -10000.0)", "1.0"),
    },
)


# -- vLLM reshape_and_cache_kernel<float, float, kAuto>: paged KV-cache scatter -----------

_RESHAPE_AND_CACHE_CUDA = r"""
// vLLM, csrc/cache_kernels.cu (the kAuto path: the cache keeps the model's dtype; the
// fp8 branch and its k_scale/v_scale pointers left out); launched one block a token,
// min(num_heads * head_size, 512) threads
#include <cstdint>

namespace vllm {

enum class Fp8KVCacheDataType {
  kAuto = 0,
  kFp8E4M3 = 1,
  kFp8E5M2 = 2,
};

template <typename scalar_t, typename cache_t, Fp8KVCacheDataType kv_dt>
__global__ void reshape_and_cache_kernel(
    const scalar_t* __restrict__ key,    // [num_tokens, num_heads, head_size]
    const scalar_t* __restrict__ value,  // [num_tokens, num_heads, head_size]
    cache_t* __restrict__ key_cache,     // [num_blocks, num_heads, head_size/x,
                                         // block_size, x]
    cache_t* __restrict__ value_cache,   // [num_blocks, num_heads, head_size,
                                         // block_size]
    const int64_t* __restrict__ slot_mapping,  // [num_tokens]
    const int key_stride, const int value_stride, const int num_heads,
    const int head_size, const int block_size, const int x) {
  const int64_t token_idx = blockIdx.x;
  const int64_t slot_idx = slot_mapping[token_idx];
  if (slot_idx < 0) {
    // Padding token that should be ignored.
    return;
  }

  const int64_t block_idx = slot_idx / block_size;
  const int64_t block_offset = slot_idx % block_size;

  const int n = num_heads * head_size;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    const int64_t src_key_idx = token_idx * key_stride + i;
    const int64_t src_value_idx = token_idx * value_stride + i;

    const int head_idx = i / head_size;
    const int head_offset = i % head_size;
    const int x_idx = head_offset / x;
    const int x_offset = head_offset % x;

    const int64_t tgt_key_idx =
        block_idx * num_heads * (head_size / x) * block_size * x +
        head_idx * (head_size / x) * block_size * x + x_idx * block_size * x +
        block_offset * x + x_offset;
    const int64_t tgt_value_idx =
        block_idx * num_heads * head_size * block_size +
        head_idx * head_size * block_size + head_offset * block_size +
        block_offset;
    scalar_t tgt_key = key[src_key_idx];
    scalar_t tgt_value = value[src_value_idx];
    if constexpr (kv_dt == Fp8KVCacheDataType::kAuto) {
      key_cache[tgt_key_idx] = tgt_key;
      value_cache[tgt_value_idx] = tgt_value;
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
    let token_idx = i32(wg.x);
    let slot_idx = slot_mapping[token_idx].x;
    if (slot_idx < 0) {
        return;
    }
    let block_idx = slot_idx / p.block_size;
    let block_offset = slot_idx % p.block_size;
    let n = p.num_heads * p.head_size;
    for (var i = i32(lid.x); i < n; i += 128) {
        let head_idx = i / p.head_size;
        let head_offset = i % p.head_size;
        let x_idx = head_offset / p.x;
        let x_offset = head_offset % p.x;
        let tgt_key_idx = block_idx * p.num_heads * (p.head_size / p.x) * p.block_size * p.x
            + head_idx * (p.head_size / p.x) * p.block_size * p.x + x_idx * p.block_size * p.x
            + block_offset * p.x + x_offset;
        let tgt_value_idx = block_idx * p.num_heads * p.head_size * p.block_size
            + head_idx * p.head_size * p.block_size + head_offset * p.block_size + block_offset;
        key_cache[tgt_key_idx] = key[token_idx * p.key_stride + i];
        value_cache[tgt_value_idx] = value[token_idx * p.value_stride + i];
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
        "CUDA: padding tokens not skipped": ("cuda", "if (slot_idx < 0) {", "if (slot_idx < -1) {"),
        "CUDA: value cache laid out [block_size, head_size]": (
            "cuda",
            "head_offset * block_size +\n        block_offset;",
            "block_offset * head_size +\n        head_offset;",
        ),
        "CUDA: source rows at stride n": (
            "cuda",
            "token_idx * key_stride + i",
            "token_idx * n + i",
        ),
        "value cache laid out [block_size, head_size]": (
            "wgsl",
            "head_offset * p.block_size + block_offset;",
            "block_offset * p.head_size + head_offset;",
        ),
        "key's 16-byte groups not split by x": (
            "wgsl",
            "x_idx * p.block_size * p.x\n            + block_offset * p.x + x_offset;",
            "block_offset * p.head_size + head_offset;",
        ),
        "source rows at stride n": ("wgsl", "token_idx * p.key_stride + i", "token_idx * n + i"),
        "slot read from the high word": (
            "wgsl",
            "slot_mapping[token_idx].x",
            "slot_mapping[token_idx].y",
        ),
    },
)


ROUND29: dict[str, Wild] = {
    w.kernel.id: w
    for w in (NF4_DEQUANT, BIAS_ACT, BIAS_ACT_WGSL, MASKED_SOFTMAX, RESHAPE_AND_CACHE)
}
