"""Round 40 of kernels from the wild, merged into ``tests.wild.CORPUS``: CUDA kernels
with warp shuffles and half arithmetic after public projects (host code left out; each
host's launch sequence is the kernel's ``launches``), with WGSL ports as a WebGPU port
would write them (they run here on lavapipe and SwiftShader; the CUDA kernels on the
GPU machine).

The CUDA kernels are written for this corpus after the sources named below: read, not
copied (the project's rule for public code: round 40 first took them verbatim, and
they were rewritten on 2026-12-06). What is theirs is kept: each ``__global__``
function's name, qualifiers, signature and parameter names (``static``,
``__restrict__``, ``const int64_t ncols``, ``size_t const size``, ``int *partial_sums
= NULL``: the spec and the launches bind to them), ``WARP_SIZE``, ``NUM_OF_BLOCKS`` and
``NUM_OF_THREADS``, the shuffles (``__shfl_xor_sync`` of a float and an int under
``#pragma unroll``, ``__shfl_up_sync`` with a width and an ``int`` mask), the shared
memory (ggml's two arrays sized for 1024 threads, the samples' ``half2`` array, the
scan's ``extern __shared__`` ints and the uniform add's one int), the barriers, the
launch geometry and sequence, the half arithmetic (``__hfma2``/``__hadd2`` and the
``half2`` operators, ``half2 acc(0.f, 0.f)``, the lanes added in float, low + high and
``.y + .x``) and the bugs the round pins: fp16ScalarProduct's loops starting at
``threadIdx.x + blockDim.x + blockIdx.x`` and uniform_add's ``id > len``. What is ours:
the helpers' and locals' names, the comments, the order of equivalent statements and
the formatting; ggml's greater-or-tied ``if``/``else if`` is one condition, the
sample's two seven-step ``reduceInShared`` ladders are loops (``treeSum_intrinsics``,
``treeSum_operators``), and the dead stores of zero into shared memory before the
fp16 loops are gone. The WGSL ports are ours and unchanged.

- llama.cpp's ``argmax_f32`` (ggml-org/llama.cpp at 02838c7a, ggml/src/ggml-cuda/
  argmax.cu; MIT): ``static __global__``, ``__restrict__``, ``const int64_t ncols``,
  two ``__shfl_xor_sync`` butterflies (a float and an int) under ``#pragma unroll``,
  first occurrence kept on ties (an equal value at a smaller column wins), the
  warps' results through ``__shared__`` arrays sized for 1024 threads; blocks of
  ``min(1024, ncols rounded up to 32)``, a row a block.
- NVIDIA/cuda-samples' fp16ScalarProduct (Samples/0_Introduction/fp16ScalarProduct/
  fp16ScalarProduct.cu at ca37378c; BSD 3-clause): ``scalarProductKernel_intrinsics``
  (``__hfma2``, ``__hadd2`` through a shared-memory tree, ``__float2half2_rn``,
  ``__low2float``/``__high2float``) and ``scalarProductKernel_native`` (``half2``
  operators ``*`` and ``+``, ``half2 acc(0.f, 0.f)``, ``(float)total.y``): products
  accumulated in half, 128 blocks of 128 threads, the sample's inputs (``rand() % 4``
  and ``rand() % 2``, whole numbers).
- NVIDIA/cuda-samples' shfl_scan (Samples/2_Concepts_and_Techniques/shfl_scan/
  shfl_scan.cu at 306af8d2; BSD 3-clause): ``shfl_scan_test`` (``__shfl_up_sync`` with a
  width, an ``extern __shared__ int`` array of the warps' totals, a mask ``(1 <<
  (blockDim.x / warpSize)) - 1`` held in an ``int``, a default argument ``int
  *partial_sums = NULL``) and ``uniform_add``, launched as the sample's host does: the
  blocks' scans, the partial sums' scan with the third argument left to its default,
  and the uniform add on ``d_data + blockSize``.

What they showed (pinned in tests/test_wild_round40.py; lavapipe and SwiftShader here,
NVRTC for sm_90; not run on a GPU: the CUDA originals and mutants run there later):

- Inexpressible, fixed: a launch's schedule was one for every target, so ggml's host
  block (``min(1024, ncols rounded up to 32)``) was refused on the port, which declares
  @workgroup_size(256) and cannot run 1024 where 256 is the most. A ``Dispatch``'s
  schedule may now map targets (``schedule={"cuda": block_of}``); a target it leaves
  out runs what its entry point declares.
- Inexpressible, fixed: shfl_scan's host launches ``shfl_scan_test(d_partial_sums,
  32)``, the third parameter left to its ``= NULL``, and ``uniform_add(d_data +
  blockSize, ...)``. ``arguments=`` had to name every parameter, and no name could carry
  an offset. Trailing parameters with a default (a null pointer or a number) may now be
  left out, and ``"data + 256"`` passes the buffer that many elements on (the CUDA
  backend adds the bytes to its address; an offset past the buffer is refused).
- Unclear message, fixed: fp16ScalarProduct adds in half (``__hfma2``, ``__hadd2``),
  so against a float64 dot product 90 of its 128 f32 results were off by 1 to 3 in
  5310 (whole numbers past 2048 round to even in half), a MISMATCH whose report spoke
  of fma and loop limits but not of half. Where a kernel computes in half and its
  wider float outputs are off by a few f16 roundings, the report now says so and what
  to do; the reference here rounds as the kernel does (each step in float16).
- The oracle catches the sample's own bug: each loop starts at ``threadIdx.x +
  blockDim.x + blockIdx.x`` (``*`` meant), the blocks overlap and the first 128 pairs
  are never read; its own check compares its two kernels, which share the line. The
  corpus judges what the loop reads (so the original passes); against the products it
  means, the port fails.
- No oracle gap in argmax: the oracle draws rows of zeros and rows with repeated +inf,
  where the first-occurrence tie-break decides, so the tie-break dropped fails on the
  port (and, simulated in numpy, on the CUDA original: lane order is not column order
  past 1024 columns); -inf, -FLT_MAX and NaN never win, -1 where nothing is above
  -FLT_MAX, as the kernel starts.
- Every original passed on reference, wgpu and browser (the f16 port is UNSUPPORTED on
  SwiftShader, which has no shader-f16), every WGSL mutant failed, and every CUDA
  original and mutant compiles with NVRTC and binds as the source means (checked
  again after the rewrite, at every test size).
"""

# ruff: noqa: E501  (long lines of CUDA and WGSL, and the mutants')

from __future__ import annotations

import numpy as np

from forge import BufferSpec, Dispatch, KernelSpec, Schedule

from . import Wild

# -- 1. llama.cpp's ggml-cuda/argmax.cu: argmax_f32 ----------------------------------------
# After ggml-org/llama.cpp at 02838c7a (MIT): read, not copied. ``#include "argmax.cuh"``,
# "common.cuh" and "sum.cuh" bring ggml's whole common header; what the kernel takes from
# it (WARP_SIZE, FLT_MAX through <cfloat>) is written in its place. The host: a block a row of
# ``min(1024, (ne00 + WARP_SIZE - 1) / WARP_SIZE * WARP_SIZE)`` threads.

_ARGMAX_CUDA = r"""#include <cfloat>
#include <cstdint>

// kernel-forge corpus: a row argmax after llama.cpp's ggml-cuda argmax_f32 (read, not
// copied). ggml's common.cuh gives WARP_SIZE; nothing else from it is used.
#define WARP_SIZE 32

// One block per row. Each thread scans a strided slice for its best (value, column);
// a shuffle butterfly settles each warp, and with more than one warp the warps'
// candidates go through shared memory into a second butterfly in warp 0. A candidate
// wins if it is larger, or equal and further left, so the first maximum is reported.
static __global__ void argmax_f32(const float * __restrict__ x, int32_t * __restrict__ dst, const int64_t ncols) {
    const int64_t row  = blockIdx.x;
    const float * line = x + row * ncols;

    int   best_col = -1;
    float best     = -FLT_MAX;
    for (int32_t c = threadIdx.x; c < ncols; c += blockDim.x) {
        const float v = line[c];
        if (v > best) {
            best_col = c;
            best     = v;
        }
    }

#pragma unroll
    for (int mask = WARP_SIZE/2; mask > 0; mask >>= 1) {
        const float v = __shfl_xor_sync(0xFFFFFFFF, best,     mask, WARP_SIZE);
        const int   c = __shfl_xor_sync(0xFFFFFFFF, best_col, mask, WARP_SIZE);
        if (v > best || (v == best && c < best_col)) {
            best_col = c;
            best     = v;
        }
    }

    const int n_warps = blockDim.x / WARP_SIZE;
    const int warp    = threadIdx.x / WARP_SIZE;
    const int lane    = threadIdx.x % WARP_SIZE;
    if (n_warps > 1) {
        constexpr int max_warps = 1024 / WARP_SIZE;
        __shared__ int   warp_col[max_warps];
        __shared__ float warp_best[max_warps];
        if (lane == 0) {
            warp_col[warp]  = best_col;
            warp_best[warp] = best;
        }
        __syncthreads();

        if (warp == 0) {
            // lanes with no warp to read keep what warp 0 found
            if (lane < n_warps) {
                best_col = warp_col[lane];
                best     = warp_best[lane];
            }
#pragma unroll
            for (int mask = WARP_SIZE/2; mask > 0; mask >>= 1) {
                const float v = __shfl_xor_sync(0xFFFFFFFF, best,     mask, WARP_SIZE);
                const int   c = __shfl_xor_sync(0xFFFFFFFF, best_col, mask, WARP_SIZE);
                if (v > best || (v == best && c < best_col)) {
                    best_col = c;
                    best     = v;
                }
            }
        }
    }

    if (threadIdx.x == 0) {
        dst[row] = best_col;
    }
}
"""

# A WebGPU port: 256 invocations a row (WebGPU's most), each its strided columns as the
# CUDA threads do, then a tree through workgroup memory with the same rule (greater, or
# equal at a smaller column).
_ARGMAX_WGSL = """
struct Params { ncols: i32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<i32>;
@group(0) @binding(2) var<uniform> p: Params;

const FLT_MAX: f32 = 3.40282346638528859812e+38f;
var<workgroup> s_val: array<f32, 256>;
var<workgroup> s_col: array<i32, 256>;

@compute @workgroup_size(256)
fn argmax_f32(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let row = i32(wg.x);
    let tid = i32(lid.x);
    var maxval = -FLT_MAX;
    var argmax = -1;
    for (var col = tid; col < p.ncols; col += 256) {
        let val = x[row * p.ncols + col];
        if (val > maxval) {
            maxval = val;
            argmax = col;
        }
    }
    s_val[tid] = maxval;
    s_col[tid] = argmax;
    workgroupBarrier();
    for (var offset = 128; offset > 0; offset >>= 1u) {
        if (tid < offset) {
            let val = s_val[tid + offset];
            let col = s_col[tid + offset];
            if (val > s_val[tid]) {
                s_val[tid] = val;
                s_col[tid] = col;
            } else if (val == s_val[tid] && col < s_col[tid]) {
                s_col[tid] = col;
            }
        }
        workgroupBarrier();
    }
    if (tid == 0) {
        dst[row] = s_col[0];
    }
}
"""

_FLT_MAX = float(np.finfo(np.float32).max)


def _argmax_reference(x, dst, p):
    """The first column holding the row's largest value above -FLT_MAX (the kernel's
    start, so -inf, -FLT_MAX and NaN never win: ``val > maxval`` is false for them);
    -1 where there is none."""
    rows = x.astype(np.float64)
    with np.errstate(invalid="ignore"):
        valid = rows > -_FLT_MAX
    best = np.where(valid, rows, -np.inf).max(axis=1, initial=-np.inf)
    first = np.argmax(valid & (rows == best[:, None]), axis=1).astype(np.int32)
    return np.where(valid.any(axis=1), first, -1).astype(np.int32)


def _argmax_block(schedule, size):
    # ggml_cuda_argmax: std::min<int64_t>(1024, (ne00 + WARP_SIZE - 1) / WARP_SIZE * WARP_SIZE)
    return Schedule(min(1024, (size.ncols + 31) // 32 * 32))


ARGMAX = Wild(
    KernelSpec(
        id="wild_r40_ggml_argmax_f32_shfl_xor_ties",
        entry_point="argmax_f32",
        sources={"cuda": _ARGMAX_CUDA, "wgsl": _ARGMAX_WGSL},
        dims=("nrows", "ncols"),
        buffers=(
            BufferSpec(0, "f32", "read", name="x", count="nrows*ncols", shape=("nrows", "ncols")),
            BufferSpec(1, "i32", "read_write", name="dst", count="nrows"),
            BufferSpec.uniform(2, (("ncols", "i32"),), name="p"),
        ),
        reference=_argmax_reference,
        params=lambda size: {"ncols": size.ncols},
        launches=(
            Dispatch(
                "argmax_f32",
                grid=lambda s, size: (size.nrows, 1, 1),
                # the host's block on CUDA; the port runs the 256 it declares
                schedule={"cuda": _argmax_block},
            ),
        ),
        schedules=(Schedule(256),),
        # blocks of 1024 (32 warps), 96 (3 warps: the last warp's lanes past n_warps
        # keep warp 0's result) and 32 (one warp, no shared step)
        test_sizes=("nrows=6,ncols=1500", "nrows=5,ncols=70", "nrows=3,ncols=7"),
    ),
    {
        "CUDA: ties not resolved to the first column": (
            "cuda",
            "\n        if (v > best || (v == best && c < best_col)) {",
            "\n        if (v > best) {",
        ),
        "CUDA: butterfly from offset 8": (
            "cuda",
            "#pragma unroll\n    for (int mask = WARP_SIZE/2; mask > 0; mask >>= 1) {",
            "#pragma unroll\n    for (int mask = WARP_SIZE/4; mask > 0; mask >>= 1) {",
        ),
        "CUDA: the last warp's result left out": (
            "cuda",
            "if (lane < n_warps) {",
            "if (lane < n_warps - 1) {",
        ),
        "CUDA: no barrier before the warps' results are read": (
            "cuda",
            "        __syncthreads();\n\n        if (warp == 0) {",
            "\n        if (warp == 0) {",
        ),
        "CUDA: the row's stride one short": (
            "cuda",
            "const float * line = x + row * ncols;",
            "const float * line = x + row * (ncols - 1);",
        ),
        "ties not resolved to the first column": (
            "wgsl",
            " else if (val == s_val[tid] && col < s_col[tid]) {\n                s_col[tid] = col;\n            }",
            "",
        ),
        "the tree from offset 64": (
            "wgsl",
            "for (var offset = 128; offset > 0; offset >>= 1u) {",
            "for (var offset = 64; offset > 0; offset >>= 1u) {",
        ),
        "starts at 0, not -FLT_MAX": ("wgsl", "var maxval = -FLT_MAX;", "var maxval = 0.0;"),
    },
    races=frozenset({"CUDA: no barrier before the warps' results are read"}),
)


# -- 2. NVIDIA/cuda-samples' fp16ScalarProduct: products accumulated in half2 ---------------
# After Samples/0_Introduction/fp16ScalarProduct/fp16ScalarProduct.cu at ca37378c (BSD
# 3-clause): read, not copied; host code left out. The host: 128 blocks of 128
# threads over 128 * 128 * 16 half2 pairs, each ``rand() % 4`` (x) and ``rand() % 2``
# (y); main() sums the 128 results on the host and compares the two kernels. Each loop
# starts at ``threadIdx.x + blockDim.x + blockIdx.x``, as in the sample (the sample means
# ``blockDim.x * blockIdx.x``; both kernels share it, so its own check cannot see it):
# the reference computes what that indexing reads.

_FP16_CUDA = r"""#include "cuda_fp16.h"
#include "helper_cuda.h"

// kernel-forge corpus: the two dot products of NVIDIA's cuda-samples
// fp16ScalarProduct (read, not copied). The sums stay in half2 the whole way: per
// thread over a grid-strided run of pairs, then a halving tree in shared memory; only
// the final two lanes are added in float.

#define NUM_OF_BLOCKS 128
#define NUM_OF_THREADS 128

// sum the block's NUM_OF_THREADS partials into v[0], with the half2 intrinsics
__forceinline__ __device__ void treeSum_intrinsics(half2 *const v) {
  const unsigned t = threadIdx.x;
#pragma unroll
  for (unsigned half_width = NUM_OF_THREADS / 2; half_width > 0; half_width /= 2) {
    if (t < half_width) v[t] = __hadd2(v[t], v[t + half_width]);
    __syncthreads();
  }
}

// the same tree, with half2's operator+
__forceinline__ __device__ void treeSum_operators(half2 *const v) {
  const unsigned t = threadIdx.x;
#pragma unroll
  for (unsigned width = NUM_OF_THREADS / 2; width >= 1; width >>= 1) {
    if (t < width) v[t] = v[t] + v[t + width];
    __syncthreads();
  }
}

// Both kernels start each thread at threadIdx.x + blockDim.x + blockIdx.x, as the
// sample does (a '+' where blockDim.x * blockIdx.x was meant): kept, it is what the
// corpus pins.
__global__ void scalarProductKernel_intrinsics(half2 const *const a,
                                               half2 const *const b,
                                               float *const results,
                                               size_t const size) {
  __shared__ half2 partial[NUM_OF_THREADS];
  const int stride = gridDim.x * blockDim.x;

  half2 acc = __float2half2_rn(0.f);
  for (int i = threadIdx.x + blockDim.x + blockIdx.x; i < size; i += stride) {
    acc = __hfma2(a[i], b[i], acc);
  }
  partial[threadIdx.x] = acc;
  __syncthreads();

  treeSum_intrinsics(partial);
  if (threadIdx.x == 0) {
    const half2 total = partial[0];
    results[blockIdx.x] = __low2float(total) + __high2float(total);
  }
}

__global__ void scalarProductKernel_native(half2 const *const a,
                                           half2 const *const b,
                                           float *const results,
                                           size_t const size) {
  __shared__ half2 partial[NUM_OF_THREADS];
  const int stride = gridDim.x * blockDim.x;

  half2 acc(0.f, 0.f);
  for (int i = threadIdx.x + blockDim.x + blockIdx.x; i < size; i += stride) {
    acc = a[i] * b[i] + acc;
  }
  partial[threadIdx.x] = acc;
  __syncthreads();

  treeSum_operators(partial);
  if (threadIdx.x == 0) {
    const half2 total = partial[0];
    results[blockIdx.x] = (float)total.y + (float)total.x;
  }
}
"""

# A WebGPU port of the intrinsics kernel (``enable f16;``): vec2<f16> lanes, ``fma``
# for ``__hfma2``, the same tree through workgroup memory, the same loop start.
_FP16_WGSL = """
enable f16;
struct Params { size: u32 }
@group(0) @binding(0) var<storage, read> a: array<vec2<f16>>;
@group(0) @binding(1) var<storage, read> b: array<vec2<f16>>;
@group(0) @binding(2) var<storage, read_write> results: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;

const NUM_OF_THREADS: u32 = 128u;
var<workgroup> shArray: array<vec2<f16>, NUM_OF_THREADS>;

@compute @workgroup_size(NUM_OF_THREADS)
fn scalarProductKernel_intrinsics(@builtin(local_invocation_id) lid: vec3<u32>,
                                  @builtin(workgroup_id) wid: vec3<u32>,
                                  @builtin(num_workgroups) nwg: vec3<u32>) {
    let stride = nwg.x * NUM_OF_THREADS;
    shArray[lid.x] = vec2<f16>(0.0h);
    var value = vec2<f16>(0.0h);
    for (var i = lid.x + NUM_OF_THREADS + wid.x; i < p.size; i += stride) {
        value = fma(a[i], b[i], value);
    }
    shArray[lid.x] = value;
    workgroupBarrier();
    for (var s = 64u; s > 0u; s >>= 1u) {
        if (lid.x < s) {
            shArray[lid.x] = shArray[lid.x] + shArray[lid.x + s];
        }
        workgroupBarrier();
    }
    if (lid.x == 0u) {
        let result = shArray[0];
        results[wid.x] = f32(result.x) + f32(result.y);
    }
}
"""

_BLOCKS = _THREADS = 128


def _fp16_inputs(rng, count, size):
    """generateInput: x = rand() % 4, y = rand() % 2, as halves."""
    pairs = np.empty((count, 2), np.float16)
    pairs[:, 0] = rng.integers(0, 4, count)
    pairs[:, 1] = rng.integers(0, 2, count)
    return pairs


def _half(values):
    return values.astype(np.float16).astype(np.float64)


def fp16_scalar_products(a, b, size, intended=False):
    """Each block's result as the kernels compute it: per thread, from ``tid +
    blockDim.x + blockIdx.x`` (as in the sample; ``intended``: ``tid + blockDim.x *
    blockIdx.x``) in strides of the grid, the products added in half (fused: the
    float64 sum rounded once), both lanes; then the shared tree in half, and the two
    lanes added in float."""
    a, b = np.asarray(a, np.float64).reshape(-1, 2), np.asarray(b, np.float64).reshape(-1, 2)
    block = np.arange(_BLOCKS)[:, None]
    tid = np.arange(_THREADS)[None, :]
    first = tid + (_THREADS * block if intended else _THREADS + block)
    value = np.zeros((_BLOCKS, _THREADS, 2))
    stride = _BLOCKS * _THREADS
    for k in range(max(0, -(-(int(size) - int(first.min())) // stride))):
        i = first + k * stride
        inside = i < int(size)
        j = np.where(inside, i, 0)
        value = np.where(inside[..., None], _half(a[j] * b[j] + value), value)
    width = _THREADS
    while width > 1:
        width //= 2
        value[:, :width] = _half(value[:, :width] + value[:, width : 2 * width])
    low, high = value[:, 0, 0].astype(np.float32), value[:, 0, 1].astype(np.float32)
    return low + high


def _fp16_reference(a, b, results, p):
    results[:] = fp16_scalar_products(a, b, p["size"])


def _fp16_kernel(entry: str, wgsl: bool) -> KernelSpec:
    return KernelSpec(
        id=f"wild_r40_cuda_samples_fp16_{entry}_half2",
        entry_point=entry,
        sources={"cuda": _FP16_CUDA, **({"wgsl": _FP16_WGSL} if wgsl else {})},
        buffers=(
            BufferSpec(0, "vec2<f16>", "read", name="a", fill=_fp16_inputs),
            BufferSpec(1, "vec2<f16>", "read", name="b", fill=_fp16_inputs),
            BufferSpec(2, "f32", "read_write", name="results", count=_BLOCKS),
            BufferSpec.uniform(3, (("size", "u32"),), name="p"),
        ),
        reference=_fp16_reference,
        params=lambda n: {"size": int(n)},
        grid=(_BLOCKS, 1, 1),
        schedules=(Schedule(_THREADS),),
        # the sample's 128 * 128 * 16 pairs (sums past 2048, where half rounds whole
        # numbers), and fewer than one grid's stride: threads with nothing to add
        test_sizes=(_BLOCKS * _THREADS * 16, 5000),
    )


FP16_INTRINSICS = Wild(
    _fp16_kernel("scalarProductKernel_intrinsics", wgsl=True),
    {
        "CUDA: the products not accumulated": (
            "cuda",
            "acc = __hfma2(a[i], b[i], acc);",
            "acc = __hmul2(a[i], b[i]);",
        ),
        "CUDA: the tree's first step left out": (
            "cuda",
            "half_width = NUM_OF_THREADS / 2;",
            "half_width = NUM_OF_THREADS / 4;",
        ),
        "CUDA: the high lane dropped": (
            "cuda",
            "results[blockIdx.x] = __low2float(total) + __high2float(total);",
            "results[blockIdx.x] = __low2float(total);",
        ),
        "the products not accumulated": (
            "wgsl",
            "value = fma(a[i], b[i], value);",
            "value = a[i] * b[i];",
        ),
        "the tree from 32": (
            "wgsl",
            "for (var s = 64u; s > 0u; s >>= 1u) {",
            "for (var s = 32u; s > 0u; s >>= 1u) {",
        ),
        "the high lane dropped": ("wgsl", "f32(result.x) + f32(result.y)", "f32(result.x)"),
    },
)

FP16_NATIVE = Wild(
    _fp16_kernel("scalarProductKernel_native", wgsl=False),
    {
        "CUDA: the low lane dropped": (
            "cuda",
            "results[blockIdx.x] = (float)total.y + (float)total.x;",
            "results[blockIdx.x] = (float)total.y;",
        ),
        "CUDA: the loop one stride late": (
            "cuda",
            "  for (int i = threadIdx.x + blockDim.x + blockIdx.x; i < size; i += stride) {\n    acc = a[i] * b[i] + acc;",
            "  for (int i = threadIdx.x + blockDim.x + blockIdx.x + stride; i < size; i += stride) {\n    acc = a[i] * b[i] + acc;",
        ),
    },
)


# -- 3. NVIDIA/cuda-samples' shfl_scan: shfl_scan_test and uniform_add ----------------------
# After Samples/2_Concepts_and_Techniques/shfl_scan/shfl_scan.cu at 306af8d2 (BSD
# 3-clause): read, not copied; the integral-image kernels of shfl_integral_image.cuh and
# the host code left out. shuffle_simple_test's launches, blocks of 256 and 8 warps' sums of
# dynamic shared memory: the blocks' scans writing each block's sum, the sums' scan in
# one block of min(n / 256, 256) threads with ``partial_sums`` left to its default
# (NULL), and the uniform add on ``d_data + blockSize`` over gridSize - 1 blocks. The
# sums' scan spans one block, so n is at most 65536 (the sample's), a multiple of 8192
# (whole warps of sums). The sample fills ones; here small whole numbers.

_SCAN_CUDA = r"""// kernel-forge corpus: the simple prefix sum of NVIDIA's cuda-samples shfl_scan
// (read, not copied); the integral-image part of the sample is not here.

#include <stdio.h>

#include <cuda_runtime.h>

#include <helper_cuda.h>
#include <helper_functions.h>

// An inclusive scan of one block, in three levels: __shfl_up_sync within each warp,
// the same over the warps' totals (kept in dynamic shared memory) in warp 0, and each
// warp then adds the totals of the warps before it. With partial_sums given, the last
// thread also stores the block's total, for a second launch to scan and uniform_add to
// spread over the following blocks.
__global__ void shfl_scan_test(int *data, int width, int *partial_sums = NULL) {
  extern __shared__ int warp_totals[];
  const int gid = blockIdx.x * blockDim.x + threadIdx.x;
  const int warp = threadIdx.x / warpSize;
  const int lane = gid % warpSize;
  const unsigned int everyone = 0xffffffff;

  int x = data[gid];
#pragma unroll
  for (int d = 1; d <= width; d *= 2) {
    const int below = __shfl_up_sync(everyone, x, d, width);
    if (lane >= d) x += below;
  }

  // the warp's last lane holds its total
  if (threadIdx.x % warpSize == warpSize - 1) {
    warp_totals[warp] = x;
  }
  __syncthreads();

  const int n_warps = blockDim.x / warpSize;
  if (warp == 0 && lane < n_warps) {
    int total = warp_totals[lane];
    int mask = (1 << n_warps) - 1;  // one bit a warp total, an int as in the sample
    for (int d = 1; d <= n_warps; d *= 2) {
      const int below = __shfl_up_sync(mask, total, d, n_warps);
      if (lane >= d) total += below;
    }
    warp_totals[lane] = total;
  }
  __syncthreads();

  if (warp > 0) x += warp_totals[warp - 1];
  data[gid] = x;

  if (partial_sums != NULL && threadIdx.x == blockDim.x - 1) {
    partial_sums[blockIdx.x] = x;
  }
}

// Adds partial_sums[blockIdx.x] to every element of the block; the host passes data
// one block on, so block k receives the scanned total of blocks 0..k.
__global__ void uniform_add(int *data, int *partial_sums, int len) {
  __shared__ int addend;
  const int gid = blockIdx.x * blockDim.x + threadIdx.x;
  if (gid > len) return;

  if (threadIdx.x == 0) addend = partial_sums[blockIdx.x];
  __syncthreads();
  data[gid] += addend;
}
"""

# A WebGPU port: each block's inclusive scan through workgroup memory (Hillis-Steele over
# 256, WGSL has no warp shuffles to rely on), the sums' scan as an entry point of its own
# (a binding cannot be swapped between launches), and the uniform add reading one block on.
_SCAN_WGSL = """
struct Params { n: u32 }
@group(0) @binding(0) var<storage, read_write> data: array<i32>;
@group(0) @binding(1) var<storage, read_write> partial_sums: array<i32>;
@group(0) @binding(2) var<uniform> p: Params;

var<workgroup> sums: array<i32, 256>;
var<workgroup> buf: i32;

fn block_scan(t: u32, v: i32) -> i32 {
    var value = v;
    sums[t] = value;
    workgroupBarrier();
    for (var i = 1u; i < 256u; i *= 2u) {
        var n = 0;
        if (t >= i) { n = sums[t - i]; }
        workgroupBarrier();
        value += n;
        sums[t] = value;
        workgroupBarrier();
    }
    return value;
}

@compute @workgroup_size(256)
fn shfl_scan_test(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let id = wg.x * 256u + lid.x;
    let value = block_scan(lid.x, data[id]);
    data[id] = value;
    if (lid.x == 255u) {
        partial_sums[wg.x] = value;
    }
}

@compute @workgroup_size(256)
fn scan_partial_sums(@builtin(local_invocation_id) lid: vec3<u32>) {
    let count = p.n / 256u;
    var v = 0;
    if (lid.x < count) { v = partial_sums[lid.x]; }
    let value = block_scan(lid.x, v);
    if (lid.x < count) { partial_sums[lid.x] = value; }
}

@compute @workgroup_size(256)
fn uniform_add(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let id = wg.x * 256u + lid.x;
    if (lid.x == 0u) {
        buf = partial_sums[wg.x];
    }
    workgroupBarrier();
    data[256u + id] += buf;
}
"""

_SCAN_BLOCK = 256


def _scan_launches(size):
    n = int(size)
    grid, partials = n // _SCAN_BLOCK, n // _SCAN_BLOCK
    p_block = min(partials, _SCAN_BLOCK)
    shmem = _SCAN_BLOCK // 32 * 4  # nWarps * sizeof(int), for both scans
    return (
        # shfl_scan_test<<<gridSize, blockSize, shmem_sz>>>(d_data, 32, d_partial_sums);
        Dispatch(
            "shfl_scan_test",
            grid=(grid, 1, 1),
            schedule={"cuda": Schedule(_SCAN_BLOCK)},
            shared_bytes=shmem,
            arguments=("data", "width", "partial_sums"),
        ),
        # shfl_scan_test<<<p_gridSize, p_blockSize, shmem_sz>>>(d_partial_sums, 32);
        Dispatch(
            {"cuda": "shfl_scan_test", "wgsl": "scan_partial_sums"},
            grid=(-(-partials // p_block), 1, 1),
            schedule={"cuda": Schedule(p_block)},
            shared_bytes=shmem,
            arguments=("partial_sums", "width"),
        ),
        # uniform_add<<<gridSize - 1, blockSize>>>(d_data + blockSize, d_partial_sums, n_elements);
        Dispatch(
            "uniform_add",
            grid=(grid - 1, 1, 1),
            schedule={"cuda": Schedule(_SCAN_BLOCK)},
            arguments=(f"data + {_SCAN_BLOCK}", "partial_sums", "n"),
        ),
    )


def _scan_values(rng, count, size):
    return rng.integers(0, 10, count).astype(np.int32)


def _scan_reference(data, partial_sums, p):
    """The inclusive prefix sum in place, and each block's running total (its last
    element's scan) in the partial sums."""
    scanned = np.cumsum(data, dtype=np.int64).astype(np.int32)
    return scanned, scanned[_SCAN_BLOCK - 1 :: _SCAN_BLOCK].copy()


SHFL_SCAN = Wild(
    KernelSpec(
        id="wild_r40_cuda_samples_shfl_scan_default_null_and_offset_pointer",
        entry_point="shfl_scan_test",
        sources={"cuda": _SCAN_CUDA, "wgsl": _SCAN_WGSL},
        buffers=(
            BufferSpec(0, "i32", "read_write", name="data", inout=True, fill=_scan_values),
            BufferSpec(
                1, "i32", "read_write", name="partial_sums", count=lambda n: n // _SCAN_BLOCK
            ),
            BufferSpec.uniform(2, (("n", "u32"),), name="p"),
        ),
        reference=_scan_reference,
        params=lambda n: {"n": int(n)},
        defaults={"width": 32},
        launches=_scan_launches,
        schedules=(Schedule(_SCAN_BLOCK),),
        # the sample's 65536 (8 warps of sums) and 8192 (one warp of sums)
        test_sizes=(65536, 8192),
    ),
    {
        "CUDA: the warp's scan one step short": (
            "cuda",
            "  for (int d = 1; d <= width; d *= 2) {",
            "  for (int d = 1; d < width / 2; d *= 2) {",
        ),
        "CUDA: the warps' sums added from the same warp": (
            "cuda",
            "x += warp_totals[warp - 1];",
            "x += warp_totals[warp];",
        ),
        "CUDA: a block's sum from its first thread": (
            "cuda",
            "if (partial_sums != NULL && threadIdx.x == blockDim.x - 1) {",
            "if (partial_sums != NULL && threadIdx.x == 0) {",
        ),
        "CUDA: no barrier before the warps' sums are scanned": (
            "cuda",
            "    warp_totals[warp] = x;\n  }\n  __syncthreads();\n",
            "    warp_totals[warp] = x;\n  }\n",
        ),
        "the scan one step short": (
            "wgsl",
            "for (var i = 1u; i < 256u; i *= 2u) {",
            "for (var i = 1u; i < 128u; i *= 2u) {",
        ),
        "the uniform add on the block itself": (
            "wgsl",
            "data[256u + id] += buf;",
            "data[id] += buf;",
        ),
        "the partial sums' last left unscanned": (
            "wgsl",
            "let count = p.n / 256u;",
            "let count = p.n / 256u - 1u;",
        ),
    },
    races=frozenset({"CUDA: no barrier before the warps' sums are scanned"}),
)

ROUND40: dict = {w.kernel.id: w for w in (ARGMAX, FP16_INTRINSICS, FP16_NATIVE, SHFL_SCAN)}
