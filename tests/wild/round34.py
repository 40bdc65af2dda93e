"""Round 34 of kernels from the wild, merged into ``tests.wild.CORPUS``: CUDA kernels
people copy from blogs and tutorials, each with a WGSL port as a WebGPU port would
write it (so that the port runs here, on lavapipe and SwiftShader, and the original on
the GPU machine), both judged by one float64 (or exact integer) reference.

The CUDA kernels are written for this corpus after the sources named below: read, not
copied (the project's rule for public code: round 34 first took them as written,
comments included, and they were rewritten on 2026-12-06). What is theirs is kept:
the entry points and their template parameters (``sgemm2DBlocktiling<BM, BN, BK, TM,
TN>`` with its ``__launch_bounds__`` and ``assert`` on blockDim, ``sgemmVectorize``,
``deviceReduceKernel``, ``deviceReduceWarpAtomicKernel``, ``derivative_x``,
``staticReverse``, ``dynamicReverse``), every parameter's name, type and order, the
preambles the NVRTC compile sees (SGEMM_CUDA's includes, ``#pragma once`` and
``CEIL_DIV``; finite-difference.cu's ``mx``/``my``/``mz``, ``sPencils``/``lPencils``
and its three ``__constant__`` declarator lists, ``c_ax, c_bx, c_cx, c_dx`` first, as
tests/test_wild_round34.py asks), glibc's ``uint`` for the indices, the shared memory
(``As``/``Bs`` and their layouts, A transposed in kernel 6, ``static __shared__ int
shared[32]``, the 4 x (mx + 8) pencil, ``s[64]`` and ``extern __shared__ int s[]``),
the barriers and their places, the thread-to-data mapping, the float4 casts, the
shuffles (``__shfl_down_sync`` from ``warpSize/2``, lane 0's ``atomicAdd``), the
launch sequences, and the numerics: the order of the tile's multiply-adds and of
``alpha * acc + beta * C``, int sums, the stencil's order of terms. What is ours: the
comments, the helpers' names (``warp_sum`` and ``block_sum`` for the post's
``warpReduceSum`` and ``blockReduceSum``), the locals' names (a patch, a tile row and
column, ``aStep``/``bStep``, ``acc``, ``colA``/``rowB``; ``line``, ``h`` and
``pencil`` in ``derivative_x``; ``mirror`` in the reversals), the order of equivalent
statements and the formatting; C's element is updated through a pointer in kernel 5.
The reversals are six statements each, every one of them what the entries test: only
their names and comments could be ours. The WGSL ports are the project's own, and
follow the CUDA's new names and comments, with their bindings, workgroup sizes,
workgroup memory and barriers unchanged.

- Simon Boehm's SGEMM_CUDA (siboehm/SGEMM_CUDA at 1bc13530, MIT,
  ``src/kernels/5_kernel_2D_blocktiling.cuh``, ``6_kernel_vectorize.cuh``, runner.cu
  and sgemm.cu): kernel 5 ``sgemm2DBlocktiling`` in both of runner.cu's
  instantiations (BM = BN = 128 when M and N reach 128, else 64; BK = TM = TN = 8;
  ``__launch_bounds__``, ``assert`` on blockDim), and kernel 6 ``sgemmVectorize``
  (float4 loads through ``reinterpret_cast``, A transposed into As, C updated a float4
  at a time) in the 128 branch; C = alpha*A@B + beta*C with sgemm.cu's alpha 0.5 and
  beta 3.0, the ``CEIL_DIV`` grid, no bounds checks (M and N multiples of BM, K of
  BK). The ports bind A, B and C as ``array<vec4<f32>>`` for kernel 6.
- Justin Luitjens's "Faster Parallel Reductions on Kepler" (the post's listings, as in
  NVIDIA-developer-blog/code-samples at 1c96aecd, BSD-3-Clause,
  ``posts/parallel_reduction_with_shfl``): the warp sum (``__shfl_down_sync`` for the
  ``__shfl_down`` sm_70 and later lack), the block sum (``static __shared__ int
  shared[32]``), ``deviceReduceKernel`` launched twice as ``deviceReduce`` does (512
  threads over ``min(ceil(N/512), 1024)`` blocks, then ``<<<1, 1024>>>(out, out,
  blocks)`` in place: ``arguments=("out", "out", "N")`` and the launch's own N), and
  ``deviceReduceWarpAtomicKernel`` (256 threads, up to 2048 blocks, ``atomicAdd`` into
  an ``out`` the host zeroes), over ints. Ports use WGSL subgroups
  (``subgroupShuffleDown`` from the adapter's ``subgroup_size``); the two-launch port
  is a spec of its own, as SwiftShader allows 256 invocations and the partial sums left
  in ``out[1:]`` depend on the block size.
- Greg Ruetsch's "Finite Difference Methods in CUDA C/C++" (code-samples at 3069da6b,
  Apache-2.0, ``series/cuda-cpp/finite-difference/finite-difference.cu``):
  ``derivative_x`` with ``__constant__`` coefficients ``c_ax..c_dx`` (buffers of one
  float each, copied into the symbols), a 4 x (mx+8) shared pencil with the periodic
  images of a grid whose ends are one point (period mx-1), mx = my = mz = 64 as the
  file's constants (one size).
- Mark Harris's "Using Shared Memory in CUDA C/C++" (code-samples at 1c96aecd,
  BSD-3-Clause, ``series/cuda-cpp/shared-memory/shared-memory.cu``):
  ``staticReverse`` (``__shared__ int s[64]``) and ``dynamicReverse`` (``extern
  __shared__``, n*sizeof(int) bytes), one block of n threads, in place; the ports size the workgroup (and the dynamic one its
  array) by ``override n``.

What they showed (lavapipe and SwiftShader here, NVRTC for sm_90; no GPU: the CUDA
originals and their mutants run on the GPU machine later):

- Every original passed on reference and wgpu (seeds 0 to 4) and on the browser (seeds 0
  and 1); every WGSL mutant failed on lavapipe, and on SwiftShader but one: a shuffle by
  the subgroup's whole width reads past its end, which WGSL leaves indeterminate and
  SwiftShader answers with 0, the sum's identity (``invisible_on``). Every CUDA original
  and mutant compiles with NVRTC and binds as written (deviceReduce's second launch
  takes ``out`` twice and N = blocks).
- Gap, fixed (tests/test_wild_round34.py): SGEMM_CUDA's ``uint`` (glibc's, which
  nvcc's implicit host headers bring in) was undefined under NVRTC, which said only
  ``identifier "uint" is undefined`` twenty times: glibc's ``uint``, ``ushort`` and
  ``ulong`` are pre-included where a source uses them undeclared; the sources compile
  as written. (``<cublas_v2.h>`` is refused with the remedy named; it is left out, as
  is finite-difference.cu's host global ``float fx = 1.0f, ...``, which NVRTC refuses
  with its own clear message.)
- Gap, fixed: ``__constant__ float c_ax, c_bx, c_cx, c_dx;`` was read as c_dx alone, so
  the buffers c_ax, c_bx and c_cx were bound to nothing, silently: on a GPU the right
  derivative_x would have run with three coefficients of zero and been judged MISMATCH.
  Every declarator of a file-scope declaration is read now; the source is as written.
- Gap (strict xfail): runner.cu picks BM and BN, and so the block, by size, which one
  spec can say only with ``launches`` (a Dispatch has its own schedule); but a
  Dispatch's entry point is one name for every target, so the WGSL port is asked for
  ``sgemm2DBlocktiling<64, 64, 8, 8, 8>`` ("Unable to find entry point", nothing about
  ``entry_points``, which a single launch has). One spec per branch here.
- Gap, made an error: a WGSL ``{{wg_x}}`` is filled from the kernel's schedule, not the
  launch's own, and nothing compared the shader's ``@workgroup_size`` with the launch's
  block. dynamicReverse's port written with ``{{wg_x}}`` ran 64 invocations at n = 256
  (the step said 256): MISMATCH on the right kernel, the report blaming robust access;
  at n = 37 it passed only because robust access dropped invocations 37 to 63's writes.
  Round 33's candle fast_max port ran 64 invocations at every size, its launch saying
  256 or 1 (its stride loop hid it). A launch whose schedule is not the workgroup size
  its WGSL declares is now refused, naming the override to use; the ports here, and
  round 33's, size the workgroup by an ``override``.
- A bug of SGEMM_CUDA's own, caught (pinned, passing): in runner.cu's 64 branch (M or N
  below 128) sgemmVectorize's 64 threads load one float4 of A and of B each, 256 of
  As's and Bs's 512 floats; rows 32 to 63 of As and 4 to 7 of Bs are never loaded.
  sgemm.cu's sizes start at 128, so its cuBLAS check never runs that branch. The spec
  here takes the 128 branch.
- My own mistake, caught by naga: the first two-launch port named its array ``shared``,
  a WGSL reserved word. The post's final step (``shared[lane]`` read by the first warp)
  assumes a warp of 32 and at most 32 of them; a subgroup here is 8 (lavapipe) or 4
  (SwiftShader) wide, 32 or 64 of them a workgroup, so the port's first subgroup adds
  the partial sums in strides of its width, written so from the start.
"""

# ruff: noqa: E501  (the kernels' long lines)

from __future__ import annotations

import numpy as np

from forge import BufferSpec, Dispatch, KernelSpec, Schedule, ceil_div

from . import Wild

# -- siboehm/SGEMM_CUDA: kernel 5, sgemm2DBlocktiling ---------------------------------------

_SGEMM_2D_CUDA = r"""
// SGEMM_CUDA's kernel 5 (2D block tiling), written for the corpus after
// src/kernels/5_kernel_2D_blocktiling.cuh, with its preamble but for <cublas_v2.h> (a
// host library header NVRTC cannot open; the kernel uses nothing from it). runner.cu
// launches it with BK = TM = TN = 8 and BM = BN = 128 when M and N reach 128, else 64
// (there are no bounds checks): CEIL_DIV(N, BN) x CEIL_DIV(M, BM) blocks of
// (BM * BN) / (TM * TN) threads, sgemm2DBlocktiling<BM, BN, BK, TM, TN>(M, N, K, alpha, A, B, beta, C)
#pragma once

#include <algorithm>
#include <cassert>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CEIL_DIV(M, N) (((M) + (N)-1) / (N))

template <const int BM, const int BN, const int BK, const int TM, const int TN>
__global__ void __launch_bounds__((BM * BN) / (TM * TN), 1)
    sgemm2DBlocktiling(int M, int N, int K, float alpha, const float *A,
                       const float *B, float beta, float *C) {
  // a TM x TN patch of C a thread, so (BM * BN) / (TM * TN) threads a tile
  const uint threads = (BM * BN) / (TM * TN);
  assert(threads == blockDim.x);

  // the block's tile: rows blockIdx.y * BM of A and C, columns blockIdx.x * BN of B and C
  const uint tileRow = blockIdx.y;
  const uint tileCol = blockIdx.x;
  A += tileRow * BM * K;
  B += tileCol * BN;
  C += tileRow * BM * N + tileCol * BN;

  // the thread's patch in the tile
  const int patchCol = threadIdx.x % (BN / TN);
  const int patchRow = threadIdx.x / (BN / TN);

  __shared__ float As[BM * BK];
  __shared__ float Bs[BK * BN];

  // what the thread copies: an element of a row of the A slice (BK wide) and of the B
  // slice (BN wide), then the rows as many further down as all threads cover at once
  const uint aRow = threadIdx.x / BK;
  const uint aCol = threadIdx.x % BK;
  const uint aStep = threads / BK;
  const uint bRow = threadIdx.x / BN;
  const uint bCol = threadIdx.x % BN;
  const uint bStep = threads / BN;

  float acc[TM * TN] = {0.0};
  float colA[TM] = {0.0};
  float rowB[TN] = {0.0};

  for (uint k0 = 0; k0 < K; k0 += BK) {
    for (uint r = 0; r < BM; r += aStep) {
      As[(aRow + r) * BK + aCol] = A[(aRow + r) * K + aCol];
    }
    for (uint r = 0; r < BK; r += bStep) {
      Bs[(bRow + r) * BN + bCol] = B[(bRow + r) * N + bCol];
    }
    __syncthreads();

    A += BK;     // on to the next BK columns of A
    B += BK * N; // and the next BK rows of B

    for (uint kk = 0; kk < BK; ++kk) {
      // the patch's column of As and row of Bs into registers, their outer product
      // into the patch
      for (uint m = 0; m < TM; ++m) {
        colA[m] = As[(patchRow * TM + m) * BK + kk];
      }
      for (uint n = 0; n < TN; ++n) {
        rowB[n] = Bs[kk * BN + patchCol * TN + n];
      }
      for (uint m = 0; m < TM; ++m) {
        for (uint n = 0; n < TN; ++n) {
          acc[m * TN + n] += colA[m] * rowB[n];
        }
      }
    }
    __syncthreads();
  }

  // C = alpha * A @ B + beta * C over the patch
  for (uint m = 0; m < TM; ++m) {
    for (uint n = 0; n < TN; ++n) {
      float *c = &C[(patchRow * TM + m) * N + patchCol * TN + n];
      *c = alpha * acc[m * TN + n] + beta * *c;
    }
  }
}
"""

_SGEMM_2D_WGSL = """
// the port of kernel 5: a BM x BN tile a workgroup, a TM x TN patch an invocation, BM
// and BN filled in as the runner picks them; A, B and C move by offsets, as WGSL has no
// pointer arithmetic
struct Params { M: i32, N: i32, K: i32, alpha: f32, beta: f32 }

@group(0) @binding(0) var<storage, read> A: array<f32>;
@group(0) @binding(1) var<storage, read> B: array<f32>;
@group(0) @binding(2) var<storage, read_write> C: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;

const BM: u32 = {{BM}}u;
const BN: u32 = {{BN}}u;
const BK: u32 = 8u;
const TM: u32 = 8u;
const TN: u32 = 8u;
const THREADS: u32 = (BM * BN) / (TM * TN);

var<workgroup> As: array<f32, BM * BK>;
var<workgroup> Bs: array<f32, BK * BN>;

@compute @workgroup_size(THREADS)
fn sgemm2DBlocktiling(@builtin(workgroup_id) blockIdx: vec3<u32>,
                      @builtin(local_invocation_index) threadIdx: u32) {
    let N = u32(p.N);
    let K = u32(p.K);

    // the tile's first element in A, B and C
    var a = blockIdx.y * BM * K;
    var b = blockIdx.x * BN;
    let c = blockIdx.y * BM * N + blockIdx.x * BN;

    let patchCol = threadIdx % (BN / TN);
    let patchRow = threadIdx / (BN / TN);

    let aRow = threadIdx / BK;
    let aCol = threadIdx % BK;
    let aStep = THREADS / BK;
    let bRow = threadIdx / BN;
    let bCol = threadIdx % BN;
    let bStep = THREADS / BN;

    var acc: array<f32, TM * TN>;
    var colA: array<f32, TM>;
    var rowB: array<f32, TN>;

    for (var k0 = 0u; k0 < K; k0 += BK) {
        for (var r = 0u; r < BM; r += aStep) {
            As[(aRow + r) * BK + aCol] = A[a + (aRow + r) * K + aCol];
        }
        for (var r = 0u; r < BK; r += bStep) {
            Bs[(bRow + r) * BN + bCol] = B[b + (bRow + r) * N + bCol];
        }
        workgroupBarrier();

        a += BK;      // the next BK columns of A
        b += BK * N;  // the next BK rows of B

        for (var kk = 0u; kk < BK; kk++) {
            for (var m = 0u; m < TM; m++) {
                colA[m] = As[(patchRow * TM + m) * BK + kk];
            }
            for (var n = 0u; n < TN; n++) {
                rowB[n] = Bs[kk * BN + patchCol * TN + n];
            }
            for (var m = 0u; m < TM; m++) {
                for (var n = 0u; n < TN; n++) {
                    acc[m * TN + n] += colA[m] * rowB[n];
                }
            }
        }
        workgroupBarrier();
    }

    for (var m = 0u; m < TM; m++) {
        for (var n = 0u; n < TN; n++) {
            let o = c + (patchRow * TM + m) * N + patchCol * TN + n;
            C[o] = p.alpha * acc[m * TN + n] + p.beta * C[o];
        }
    }
}
"""


def _sgemm_reference(A, B, C, params):
    """C = alpha * A @ B + beta * C, row-major, in float64."""
    a, b = float(params["alpha"]), float(params["beta"])
    return (a * (A.astype(np.float64) @ B.astype(np.float64)) + b * C).astype(np.float32)


def _sgemm_buffers():
    return (
        BufferSpec(0, "f32", "read", name="A", count="M*K", shape=("M", "K")),
        BufferSpec(1, "f32", "read", name="B", count="K*N", shape=("K", "N")),
        BufferSpec(2, "f32", "read_write", name="C", count="M*N", shape=("M", "N"), inout=True),
        BufferSpec.uniform(
            3, (("M", "i32"), ("N", "i32"), ("K", "i32"), ("alpha", "f32"), ("beta", "f32"))
        ),
    )


# sgemm.cu: ``float alpha = 0.5, beta = 3.0; // GEMM input parameters, C=α*AB+β*C``
_SGEMM_SCALARS = {"alpha": 0.5, "beta": 3.0}


# ``uint`` is glibc's <sys/types.h> typedef, which nvcc's implicit host headers bring in
# and NVRTC has not (tests/test_wild_round34.py): given as a -D, the source unchanged
def _sgemm_2d(block: int, test_sizes: tuple, mutants: dict) -> Wild:
    """runSgemm2DBlocktiling's instantiation of BM = BN = ``block``: one spec each, as a
    launch's entry point cannot be named per target (tests/test_wild_round34.py)."""
    return Wild(
        KernelSpec(
            id=f"wild_r34_siboehm_sgemm2DBlocktiling_bm{block}",
            entry_point=f"sgemm2DBlocktiling<{block}, {block}, 8, 8, 8>",
            entry_points={"wgsl": "sgemm2DBlocktiling"},
            sources={"cuda": _SGEMM_2D_CUDA, "wgsl": _SGEMM_2D_WGSL},
            dims=("M", "N", "K"),
            buffers=_sgemm_buffers(),
            reference=_sgemm_reference,
            params=lambda s: {"M": s.M, "N": s.N, "K": s.K},
            defaults=_SGEMM_SCALARS,
            constants={"BM": block, "BN": block},
            grid=lambda s, size: (ceil_div(size.N, block), ceil_div(size.M, block), 1),
            schedules=(Schedule(block * block // 64),),
            test_sizes=test_sizes,
        ),
        mutants,
    )


SGEMM_2D_BM64 = _sgemm_2d(
    64,
    # the runner's else branch (M or N below 128); no bounds checks: M and N multiples of
    # 64, K of BK = 8; M != N != K (a swapped stride shows), one BK tile
    ("M=64,N=192,K=72", "M=192,N=64,K=8", "M=64,N=64,K=64"),
    {
        "CUDA: alpha and beta swapped": (
            "cuda",
            "*c = alpha * acc[m * TN + n] + beta * *c;",
            "*c = beta * acc[m * TN + n] + alpha * *c;",
        ),
        "CUDA: B advanced BK columns, not BK rows": (
            "cuda",
            "B += BK * N; // and the next BK rows of B",
            "B += BK; // and the next BK rows of B",
        ),
        "CUDA: no barrier before the next tile is loaded": (
            "cuda",
            "      }\n    }\n    __syncthreads();\n  }",
            "      }\n    }\n  }",
        ),
        "alpha and beta swapped": (
            "wgsl",
            "C[o] = p.alpha * acc[m * TN + n] + p.beta * C[o];",
            "C[o] = p.beta * acc[m * TN + n] + p.alpha * C[o];",
        ),
        "B advanced BK columns, not BK rows": (
            "wgsl",
            "b += BK * N;  // the next BK rows of B",
            "b += BK;  // the next BK rows of B",
        ),
        "no barrier before the next tile is loaded": (
            "wgsl",
            "            }\n        }\n        workgroupBarrier();\n    }",
            "            }\n        }\n    }",
        ),
        "As loads stop one stride short": (
            "wgsl",
            "r < BM; r += aStep",
            "r + aStep < BM; r += aStep",
        ),
        "regM read along the tile's k, not its rows": (
            "wgsl",
            "colA[m] = As[(patchRow * TM + m) * BK + kk];",
            "colA[m] = As[(patchRow * TM + kk) * BK + m];",
        ),
    },
)

SGEMM_2D_BM128 = _sgemm_2d(
    128,
    # the runner's first branch (M and N at least 128): multiples of 128, K of 8
    ("M=128,N=128,K=64", "M=128,N=256,K=24"),
    {
        "CUDA: Bs row stride BK, not BN": (
            "cuda",
            "rowB[n] = Bs[kk * BN + patchCol * TN + n];",
            "rowB[n] = Bs[kk * BK + patchCol * TN + n];",
        ),
        "CUDA: no barrier between the tile's loads and reads": (
            "cuda",
            "B[(bRow + r) * N + bCol];\n    }\n    __syncthreads();\n",
            "B[(bRow + r) * N + bCol];\n    }\n",
        ),
        "Bs row stride BK, not BN": (
            "wgsl",
            "rowB[n] = Bs[kk * BN + patchCol * TN + n];",
            "rowB[n] = Bs[kk * BK + patchCol * TN + n];",
        ),
        "no barrier between the tile's loads and reads": (
            "wgsl",
            "B[b + (bRow + r) * N + bCol];\n        }\n        workgroupBarrier();\n",
            "B[b + (bRow + r) * N + bCol];\n        }\n",
        ),
        "beta * C read from the row above": (
            "wgsl",
            "+ p.beta * C[o];",
            "+ p.beta * C[o - N];",
        ),
    },
)


# -- siboehm/SGEMM_CUDA: kernel 6, sgemmVectorize (float4, As transposed) -------------------

_SGEMM_VECTORIZE_CUDA = r"""
// SGEMM_CUDA's kernel 6 (vectorised loads), written for the corpus after
// src/kernels/6_kernel_vectorize.cuh, its preamble but for <cublas_v2.h>. runner.cu
// launches it as kernel 5, with BK = TM = TN = 8 and BM = BN = 128 when M and N reach
// 128 (else 64, a branch that loads half the tile: tests/test_wild_round34.py):
// CEIL_DIV(N, BN) x CEIL_DIV(M, BM) blocks of (BM * BN) / (TM * TN) threads,
// sgemmVectorize<BM, BN, BK, TM, TN>(M, N, K, alpha, A, B, beta, C)
#pragma once

#include <algorithm>
#include <cassert>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CEIL_DIV(M, N) (((M) + (N)-1) / (N))

template <const int BM, const int BN, const int BK, const int TM, const int TN>
__global__ void sgemmVectorize(int M, int N, int K, float alpha, float *A,
                               float *B, float beta, float *C) {
  const uint tileRow = blockIdx.y;
  const uint tileCol = blockIdx.x;
  A += tileRow * BM * K;
  B += tileCol * BN;
  C += tileRow * BM * N + tileCol * BN;

  const int patchCol = threadIdx.x % (BN / TN);
  const int patchRow = threadIdx.x / (BN / TN);

  // As holds the A slice transposed (BK rows of BM), Bs the B slice as it is
  __shared__ float As[BM * BK];
  __shared__ float Bs[BK * BN];

  // one float4 of A and one of B a thread a tile
  const uint aRow = threadIdx.x / (BK / 4);
  const uint aQuad = threadIdx.x % (BK / 4);
  const uint bRow = threadIdx.x / (BN / 4);
  const uint bQuad = threadIdx.x % (BN / 4);

  float acc[TM * TN] = {0.0};
  float colA[TM] = {0.0};
  float rowB[TN] = {0.0};

  for (uint k0 = 0; k0 < K; k0 += BK) {
    float4 a4 = reinterpret_cast<float4 *>(&A[aRow * K + aQuad * 4])[0];
    As[(aQuad * 4 + 0) * BM + aRow] = a4.x;
    As[(aQuad * 4 + 1) * BM + aRow] = a4.y;
    As[(aQuad * 4 + 2) * BM + aRow] = a4.z;
    As[(aQuad * 4 + 3) * BM + aRow] = a4.w;

    reinterpret_cast<float4 *>(&Bs[bRow * BN + bQuad * 4])[0] =
        reinterpret_cast<float4 *>(&B[bRow * N + bQuad * 4])[0];
    __syncthreads();

    A += BK;     // on to the next BK columns of A
    B += BK * N; // and the next BK rows of B

    for (uint kk = 0; kk < BK; ++kk) {
      for (uint m = 0; m < TM; ++m) {
        colA[m] = As[kk * BM + patchRow * TM + m];
      }
      for (uint n = 0; n < TN; ++n) {
        rowB[n] = Bs[kk * BN + patchCol * TN + n];
      }
      for (uint m = 0; m < TM; ++m) {
        for (uint n = 0; n < TN; ++n) {
          acc[m * TN + n] += colA[m] * rowB[n];
        }
      }
    }
    __syncthreads();
  }

  // C read, updated and written back a float4 at a time
  for (uint m = 0; m < TM; m += 1) {
    for (uint n = 0; n < TN; n += 4) {
      float4 *c4 = reinterpret_cast<float4 *>(
          &C[(patchRow * TM + m) * N + patchCol * TN + n]);
      float4 c = c4[0];
      c.x = alpha * acc[m * TN + n] + beta * c.x;
      c.y = alpha * acc[m * TN + n + 1] + beta * c.y;
      c.z = alpha * acc[m * TN + n + 2] + beta * c.z;
      c.w = alpha * acc[m * TN + n + 3] + beta * c.w;
      c4[0] = c;
    }
  }
}
"""

_SGEMM_VECTORIZE_WGSL = """
// the port of kernel 6: A, B and C bound as vec4s (the CUDA's float4 casts), A
// transposed into As as it loads, C updated a vec4 at a time; workgroup memory cannot
// be read as vec4s, so Bs takes B's vec4 a lane at a time
struct Params { M: i32, N: i32, K: i32, alpha: f32, beta: f32 }

@group(0) @binding(0) var<storage, read> A: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> B: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> C: array<vec4<f32>>;
@group(0) @binding(3) var<uniform> p: Params;

const BM: u32 = {{BM}}u;
const BN: u32 = {{BN}}u;
const BK: u32 = 8u;
const TM: u32 = 8u;
const TN: u32 = 8u;

var<workgroup> As: array<f32, BM * BK>;
var<workgroup> Bs: array<f32, BK * BN>;

@compute @workgroup_size((BM * BN) / (TM * TN))
fn sgemmVectorize(@builtin(workgroup_id) blockIdx: vec3<u32>,
                  @builtin(local_invocation_index) threadIdx: u32) {
    let N = u32(p.N);
    let K = u32(p.K);

    // the tile's first element in A, B and C, counted in floats
    var a = blockIdx.y * BM * K;
    var b = blockIdx.x * BN;
    let c = blockIdx.y * BM * N + blockIdx.x * BN;

    let patchCol = threadIdx % (BN / TN);
    let patchRow = threadIdx / (BN / TN);

    let aRow = threadIdx / (BK / 4u);
    let aQuad = threadIdx % (BK / 4u);
    let bRow = threadIdx / (BN / 4u);
    let bQuad = threadIdx % (BN / 4u);

    var acc: array<f32, TM * TN>;
    var colA: array<f32, TM>;
    var rowB: array<f32, TN>;

    for (var k0 = 0u; k0 < K; k0 += BK) {
        let a4 = A[(a + aRow * K + aQuad * 4u) / 4u];
        As[(aQuad * 4u + 0u) * BM + aRow] = a4.x;
        As[(aQuad * 4u + 1u) * BM + aRow] = a4.y;
        As[(aQuad * 4u + 2u) * BM + aRow] = a4.z;
        As[(aQuad * 4u + 3u) * BM + aRow] = a4.w;

        let b4 = B[(b + bRow * N + bQuad * 4u) / 4u];
        let bAt = bRow * BN + bQuad * 4u;
        Bs[bAt] = b4.x;
        Bs[bAt + 1u] = b4.y;
        Bs[bAt + 2u] = b4.z;
        Bs[bAt + 3u] = b4.w;
        workgroupBarrier();

        a += BK;      // the next BK columns of A
        b += BK * N;  // the next BK rows of B

        for (var kk = 0u; kk < BK; kk++) {
            for (var m = 0u; m < TM; m++) {
                colA[m] = As[kk * BM + patchRow * TM + m];
            }
            for (var n = 0u; n < TN; n++) {
                rowB[n] = Bs[kk * BN + patchCol * TN + n];
            }
            for (var m = 0u; m < TM; m++) {
                for (var n = 0u; n < TN; n++) {
                    acc[m * TN + n] += colA[m] * rowB[n];
                }
            }
        }
        workgroupBarrier();
    }

    for (var m = 0u; m < TM; m += 1u) {
        for (var n = 0u; n < TN; n += 4u) {
            let o = (c + (patchRow * TM + m) * N + patchCol * TN + n) / 4u;
            var c4 = C[o];
            c4.x = p.alpha * acc[m * TN + n] + p.beta * c4.x;
            c4.y = p.alpha * acc[m * TN + n + 1u] + p.beta * c4.y;
            c4.z = p.alpha * acc[m * TN + n + 2u] + p.beta * c4.z;
            c4.w = p.alpha * acc[m * TN + n + 3u] + p.beta * c4.w;
            C[o] = c4;
        }
    }
}
"""

SGEMM_VECTORIZE = Wild(
    KernelSpec(
        id="wild_r34_siboehm_sgemmVectorize_float4_transposed_As_bm128",
        entry_point="sgemmVectorize<128, 128, 8, 8, 8>",
        entry_points={"wgsl": "sgemmVectorize"},
        sources={"cuda": _SGEMM_VECTORIZE_CUDA, "wgsl": _SGEMM_VECTORIZE_WGSL},
        dims=("M", "N", "K"),
        buffers=_sgemm_buffers(),
        reference=_sgemm_reference,
        params=lambda s: {"M": s.M, "N": s.N, "K": s.K},
        defaults=_SGEMM_SCALARS,
        constants={"BM": 128, "BN": 128},
        grid=lambda s, size: (ceil_div(size.N, 128), ceil_div(size.M, 128), 1),
        schedules=(Schedule(256),),
        # the runner's BM = BN = 128 branch: M and N multiples of 128, K of BK = 8
        test_sizes=("M=128,N=256,K=40", "M=256,N=128,K=8", "M=128,N=128,K=128"),
    ),
    {
        "CUDA: As not transposed back": (
            "cuda",
            "colA[m] = As[kk * BM + patchRow * TM + m];",
            "colA[m] = As[(patchRow * TM + m) * BK + kk];",
        ),
        "CUDA: A's w lane stored in its z row": (
            "cuda",
            "As[(aQuad * 4 + 3) * BM + aRow] = a4.w;",
            "As[(aQuad * 4 + 2) * BM + aRow] = a4.w;",
        ),
        "CUDA: third lane of C takes the second's result": (
            "cuda",
            "c.z = alpha * acc[m * TN + n + 2]",
            "c.z = alpha * acc[m * TN + n + 1]",
        ),
        "As not transposed back": (
            "wgsl",
            "colA[m] = As[kk * BM + patchRow * TM + m];",
            "colA[m] = As[(patchRow * TM + m) * BK + kk];",
        ),
        "A's w lane stored in its z row": (
            "wgsl",
            "As[(aQuad * 4u + 3u) * BM + aRow] = a4.w;",
            "As[(aQuad * 4u + 2u) * BM + aRow] = a4.w;",
        ),
        "third lane of C takes the second's result": (
            "wgsl",
            "c4.z = p.alpha * acc[m * TN + n + 2u]",
            "c4.z = p.alpha * acc[m * TN + n + 1u]",
        ),
        "A's vec4 index not divided by 4": (
            "wgsl",
            "let a4 = A[(a + aRow * K + aQuad * 4u) / 4u];",
            "let a4 = A[(a + aRow * K) / 4u + aQuad * 4u];",
        ),
        "no barrier before the next tile is loaded": (
            "wgsl",
            "            }\n        }\n        workgroupBarrier();\n    }",
            "            }\n        }\n    }",
        ),
    },
)


# -- "Faster Parallel Reductions on Kepler": warpReduceSum, blockReduceSum, deviceReduce ----

_REDUCE_CUDA = r"""
// Justin Luitjens's "Faster Parallel Reductions on Kepler" (NVIDIA Developer Blog),
// written for the corpus after the post's listings (NVIDIA-developer-blog/code-samples,
// posts/parallel_reduction_with_shfl), with __shfl_down_sync over the full mask for
// the post's __shfl_down, which CUDA 9 deprecated and sm_70 and later lack. The post's
// hosts launch:
//   deviceReduce: deviceReduceKernel with 512 threads over min(ceil(N / 512), 1024)
//     blocks, then deviceReduceKernel<<<1, 1024>>>(out, out, blocks) over their sums
//   deviceReduceWarpAtomic: out zeroed, then deviceReduceWarpAtomicKernel with 256
//     threads over min(ceil(N / 256), 2048) blocks

// the warp's total, in lane 0
__inline__ __device__
int warp_sum(int v) {
  for (int offset = warpSize/2; offset > 0; offset /= 2)
    v += __shfl_down_sync(0xffffffff, v, offset);
  return v;
}

// the block's total, in thread 0: each warp's total goes through shared memory to warp 0
__inline__ __device__
int block_sum(int v) {
  static __shared__ int shared[32];  // a total a warp, 32 warps at most
  const int lane = threadIdx.x % warpSize;
  const int warp = threadIdx.x / warpSize;
  v = warp_sum(v);
  if (lane == 0) shared[warp] = v;
  __syncthreads();
  // as many totals as the block has warps; the other lanes add 0
  v = (threadIdx.x < blockDim.x / warpSize) ? shared[lane] : 0;
  if (warp == 0) v = warp_sum(v);
  return v;
}

// each thread sums a grid stride of in; the block's total goes to out[blockIdx.x]
__global__ void deviceReduceKernel(int *in, int* out, int N) {
  int acc = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += blockDim.x * gridDim.x) {
    acc += in[i];
  }
  acc = block_sum(acc);
  if (threadIdx.x == 0)
    out[blockIdx.x] = acc;
}

// each thread sums a grid stride of in; lane 0 of each warp adds the warp's total to out
__global__ void deviceReduceWarpAtomicKernel(int *in, int* out, int N) {
  int acc = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += blockDim.x * gridDim.x) {
    acc += in[i];
  }
  acc = warp_sum(acc);
  if ((threadIdx.x & (warpSize - 1)) == 0)
    atomicAdd(out, acc);
}
"""

_WARP_ATOMIC_WGSL = """
// the port of deviceReduceWarpAtomicKernel: the warp's sum is the subgroup's (as wide
// as the adapter's: 8 on lavapipe, 4 on SwiftShader, 32 on NVIDIA), and lane 0 of each
// subgroup adds it into out[0], which the host zeroes first
enable subgroups;

@group(0) @binding(0) var<storage, read> input: array<i32>;
@group(0) @binding(1) var<storage, read_write> out: array<atomic<i32>>;
override N: u32;

fn subgroup_sum(v: i32, width: u32) -> i32 {
    var total = v;
    for (var offset = width / 2u; offset > 0u; offset /= 2u) {
        total += subgroupShuffleDown(total, offset);
    }
    return total;
}

@compute @workgroup_size(256)
fn deviceReduceWarpAtomicKernel(@builtin(workgroup_id) blockIdx: vec3<u32>,
                                @builtin(local_invocation_index) threadIdx: u32,
                                @builtin(num_workgroups) gridDim: vec3<u32>,
                                @builtin(subgroup_invocation_id) lane: u32,
                                @builtin(subgroup_size) width: u32) {
    var acc = 0i;
    for (var i = blockIdx.x * 256u + threadIdx; i < N; i += 256u * gridDim.x) {
        acc += input[i];
    }
    acc = subgroup_sum(acc, width);
    if (lane == 0u) {
        atomicAdd(&out[0], acc);
    }
}
"""


def _wrapped(total) -> np.int32:
    """An int sum as the kernel's 32-bit additions leave it (two's complement)."""
    return np.array([int(total) & 0xFFFFFFFF], dtype=np.uint32).view(np.int32)[0]


def _warp_atomic_reference(in_, out):
    out[0] = _wrapped(in_.astype(np.int64).sum())


def _warp_atomic_grid(s, size):
    return (min(ceil_div(int(size), 256), 2048), 1, 1)


REDUCE_WARP_ATOMIC = Wild(
    KernelSpec(
        id="wild_r34_luitjens_deviceReduceWarpAtomicKernel_shfl_down",
        entry_point="deviceReduceWarpAtomicKernel",
        sources={"cuda": _REDUCE_CUDA, "wgsl": _WARP_ATOMIC_WGSL},
        dims=("N",),
        buffers=(
            BufferSpec(0, "i32", "read", name="in"),
            BufferSpec(1, "i32", "read_write", name="out", count=1, initial=0),
        ),
        reference=_warp_atomic_reference,
        grid=_warp_atomic_grid,
        schedules=(Schedule(256),),
        # past 2048 blocks of 256 the grid-stride loop comes round again (600001: a tail
        # of 75713 on a second lap); a partial warp; one element
        test_sizes=(10007, 600001, 1),
    ),
    {
        "CUDA: shuffle offsets from 32, not 16": (
            "cuda",
            "for (int offset = warpSize/2; offset > 0; offset /= 2)",
            "for (int offset = warpSize; offset > 0; offset /= 2)",
        ),
        "CUDA: grid-stride loop runs once": (
            "cuda",
            "i += blockDim.x * gridDim.x) {\n    acc += in[i];\n  }\n  acc = warp_sum(acc);",
            "i += N) {\n    acc += in[i];\n  }\n  acc = warp_sum(acc);",
        ),
        "CUDA: every lane adds its sum": (
            "cuda",
            "if ((threadIdx.x & (warpSize - 1)) == 0)",
            "if ((threadIdx.x & (warpSize - 1)) >= 0)",
        ),
        "shuffle offsets stop at 2": (
            "wgsl",
            "offset > 0u; offset /= 2u",
            "offset > 1u; offset /= 2u",
        ),
        "grid-stride loop runs once": (
            "wgsl",
            "i < N; i += 256u * gridDim.x",
            "i < N; i += N",
        ),
        "every lane adds its sum": ("wgsl", "if (lane == 0u) {", "if (lane >= 0u) {"),
        "stride of one workgroup": (
            "wgsl",
            "i < N; i += 256u * gridDim.x",
            "i < N; i += 256u",
        ),
    },
)


def _device_reduce_reference(threads: int, max_blocks: int):
    """deviceReduce's out: [0] the whole sum (the second launch), [1:] the first launch's
    partial sums of its other blocks, left there (the host reads out[0] only)."""

    def reference(in_, out):
        n = in_.shape[0]
        blocks = out.shape[0]
        assert blocks == min(ceil_div(n, threads), max_blocks)
        block_of = (np.arange(n) % (threads * blocks)) // threads
        partial = np.zeros(blocks, dtype=np.int64)
        np.add.at(partial, block_of, in_.astype(np.int64))
        result = np.array([_wrapped(v) for v in partial], dtype=np.int32)
        result[0] = _wrapped(in_.astype(np.int64).sum())
        return result

    return reference


def _blocks(threads: int, max_blocks: int):
    return lambda s, size: min(ceil_div(int(size), threads), max_blocks)


REDUCE_STABLE = Wild(
    KernelSpec(
        id="wild_r34_luitjens_deviceReduceKernel_block_shfl_two_launches",
        entry_point="deviceReduceKernel",
        sources={"cuda": _REDUCE_CUDA},
        dims=("N",),
        buffers=(
            BufferSpec(0, "i32", "read", name="in"),
            BufferSpec(
                1, "i32", "read_write", name="out", count=lambda n: min(ceil_div(n, 512), 1024)
            ),
        ),
        reference=_device_reduce_reference(512, 1024),
        launches=(
            Dispatch(
                "deviceReduceKernel",
                grid=lambda s, size: (_blocks(512, 1024)(s, size), 1, 1),
                schedule=Schedule(512),
            ),
            # deviceReduceKernel<<<1, 1024>>>(out, out, blocks): in place, N = blocks
            Dispatch(
                "deviceReduceKernel",
                grid=(1, 1, 1),
                schedule=Schedule(1024),
                arguments=("out", "out", "N"),
                overrides={"N": _blocks(512, 1024)},
            ),
        ),
        # 1024 blocks of 512 and a second lap (600001); a partial block; one element
        test_sizes=(10007, 600001, 1),
    ),
    {
        "CUDA: partial sums read from every lane": (
            "cuda",
            "v = (threadIdx.x < blockDim.x / warpSize) ? shared[lane] : 0;",
            "v = shared[lane];",
        ),
        "CUDA: no barrier before the partial sums are read": (
            "cuda",
            "  __syncthreads();\n",
            "",
        ),
        "CUDA: shuffle offset halves from 8": (
            "cuda",
            "for (int offset = warpSize/2; offset > 0; offset /= 2)",
            "for (int offset = warpSize/4; offset > 0; offset /= 2)",
        ),
        "CUDA: grid-stride tail dropped": (
            "cuda",
            "i < N; i += blockDim.x * gridDim.x) {\n    acc += in[i];\n  }\n  acc = block_sum(acc);",
            "i < N - 1; i += blockDim.x * gridDim.x) {\n    acc += in[i];\n  }\n  acc = block_sum(acc);",
        ),
    },
)

_REDUCE_STABLE_WGSL = """
// the port of deviceReduce: deviceReduceKernel over 256 invocations (SwiftShader's
// most; the post has 512 and 1024), its second launch an entry point of its own that
// reads out in place (one dispatch cannot bind a buffer as two of its inputs). A
// subgroup here is 4 to 128 wide (8 on lavapipe, 4 on SwiftShader), not CUDA's 32: the
// workgroup keeps a total for each of up to 64 subgroups, and the first subgroup adds
// them in strides of its width before its own subgroup sum
enable subgroups;

@group(0) @binding(0) var<storage, read> input: array<i32>;
@group(0) @binding(1) var<storage, read_write> out: array<i32>;
override N: u32;

const blockDim: u32 = 256u;
var<workgroup> totals: array<i32, 64>;  // a total a subgroup (`shared` is reserved)

fn subgroup_sum(v: i32, width: u32) -> i32 {
    var total = v;
    for (var offset = width / 2u; offset > 0u; offset /= 2u) {
        total += subgroupShuffleDown(total, offset);
    }
    return total;
}

fn workgroup_sum(v: i32, threadIdx: u32, lane: u32, width: u32) -> i32 {
    let mine = subgroup_sum(v, width);
    if (lane == 0u) { totals[threadIdx / width] = mine; }
    workgroupBarrier();
    // only the subgroups the workgroup has; invocation 0's result is the one used
    var gathered = 0;
    for (var w = lane; w < blockDim / width; w += width) {
        gathered += totals[w];
    }
    return subgroup_sum(gathered, width);
}

@compute @workgroup_size(blockDim)
fn deviceReduceKernel(@builtin(workgroup_id) blockIdx: vec3<u32>,
                      @builtin(local_invocation_index) threadIdx: u32,
                      @builtin(num_workgroups) gridDim: vec3<u32>,
                      @builtin(subgroup_invocation_id) lane: u32,
                      @builtin(subgroup_size) width: u32) {
    var acc = 0i;
    for (var i = blockIdx.x * blockDim + threadIdx; i < N; i += blockDim * gridDim.x) {
        acc += input[i];
    }
    acc = workgroup_sum(acc, threadIdx, lane, width);
    if (threadIdx == 0u) {
        out[blockIdx.x] = acc;
    }
}

@compute @workgroup_size(blockDim)
fn deviceReduceKernelInPlace(@builtin(workgroup_id) blockIdx: vec3<u32>,
                             @builtin(local_invocation_index) threadIdx: u32,
                             @builtin(num_workgroups) gridDim: vec3<u32>,
                             @builtin(subgroup_invocation_id) lane: u32,
                             @builtin(subgroup_size) width: u32) {
    var acc = 0i;
    for (var i = blockIdx.x * blockDim + threadIdx; i < N; i += blockDim * gridDim.x) {
        acc += out[i];
    }
    acc = workgroup_sum(acc, threadIdx, lane, width);
    if (threadIdx == 0u) {
        out[blockIdx.x] = acc;
    }
}
"""

REDUCE_STABLE_PORT = Wild(
    KernelSpec(
        id="wild_r34_luitjens_deviceReduceKernel_wgsl_port_subgroups",
        entry_point="deviceReduceKernel",
        sources={"wgsl": _REDUCE_STABLE_WGSL},
        dims=("N",),
        buffers=(
            BufferSpec(0, "i32", "read", name="in"),
            BufferSpec(
                1, "i32", "read_write", name="out", count=lambda n: min(ceil_div(n, 256), 1024)
            ),
        ),
        reference=_device_reduce_reference(256, 1024),
        launches=(
            Dispatch(
                "deviceReduceKernel",
                grid=lambda s, size: (_blocks(256, 1024)(s, size), 1, 1),
                schedule=Schedule(256),
            ),
            Dispatch(
                "deviceReduceKernelInPlace",
                grid=(1, 1, 1),
                schedule=Schedule(256),
                overrides={"N": _blocks(256, 1024)},
            ),
        ),
        # 1024 workgroups of 256 and a second lap (300007); a partial one; one element
        test_sizes=(10007, 300007, 1),
    ),
    {
        "partial sums of the first subgroups only": (
            "wgsl",
            "for (var w = lane; w < blockDim / width; w += width) {",
            "for (var w = lane; w < width; w += width) {",
        ),
        "no barrier before the partial sums are read": (
            "wgsl",
            "    workgroupBarrier();\n",
            "",
        ),
        "shuffle offsets start at the subgroup's width": (
            "wgsl",
            "for (var offset = width / 2u; offset > 0u; offset /= 2u)",
            "for (var offset = width; offset > 0u; offset /= 2u)",
        ),
        "grid-stride tail dropped": (
            "wgsl",
            "i < N; i += blockDim * gridDim.x) {\n        acc += input[i];",
            "i + 1u < N; i += blockDim * gridDim.x) {\n        acc += input[i];",
        ),
        "second launch reads the input again": (
            "wgsl",
            "        acc += out[i];",
            "        acc += input[i];",
        ),
    },
    invisible_on={
        (
            "shuffle offsets start at the subgroup's width",
            "wgsl",
            "swiftshader",
        ): "a shuffle from past the subgroup's end is indeterminate in WGSL; SwiftShader "
        "gives 0, the sum's identity (seeds 0 to 4, every size); lavapipe shows it",
    },
)


# -- "Finite Difference Methods in CUDA C/C++": derivative_x, __constant__ coefficients -----

_DERIVATIVE_CUDA = r"""
// Greg Ruetsch's "Finite Difference Methods in CUDA C/C++, Part 1" (NVIDIA Developer
// Blog): derivative_x written for the corpus after finite-difference.cu, with the
// file's constants and __constant__ declarations; its host code is left out, and with
// it the host globals NVRTC refuses (`float fx = 1.0f, fy = 1.0f, fz = 1.0f;`, the
// dim3 grids and blocks). The host copies (4/5, -1/5, 4/105, -1/280) * (mx - 1) into
// c_ax, c_bx, c_cx and c_dx and launches
// derivative_x<<<dim3(my / sPencils, mz, 1), dim3(mx, sPencils, 1)>>>(d_f, d_df)
#include <stdio.h>
#include <assert.h>

const int mx = 64, my = 64, mz = 64;

// a block of derivative_x takes sPencils lines of mx points along x; lPencils is the
// file's taller tile for its other kernels
const int sPencils = 4;
const int lPencils = 32;

// the eighth-order stencil's weights, a set an axis
__constant__ float c_ax, c_bx, c_cx, c_dx;
__constant__ float c_ay, c_by, c_cy, c_dy;
__constant__ float c_az, c_bz, c_cz, c_dz;

// d/dx along each line, periodic: the line's first and last points are one point
__global__ void derivative_x(float *f, float *df)
{
  // the lines, each with 4 points of halo on both sides
  __shared__ float pencil[sPencils][mx+8];

  const int x = threadIdx.x;
  const int line = threadIdx.y;
  const int y = blockIdx.x*blockDim.y + line;
  const int z = blockIdx.y;
  const int at = z * mx * my + y * mx + x;
  const int h = x + 4;  // x's place in the haloed line

  pencil[line][h] = f[at];

  __syncthreads();

  // the first four threads of a line fill both halos from its other end
  if (x < 4) {
    pencil[line][h-4]  = pencil[line][h+mx-5];
    pencil[line][h+mx] = pencil[line][h+1];
  }

  __syncthreads();

  df[at] =
    ( c_ax * ( pencil[line][h+1] - pencil[line][h-1] )
    + c_bx * ( pencil[line][h+2] - pencil[line][h-2] )
    + c_cx * ( pencil[line][h+3] - pencil[line][h-3] )
    + c_dx * ( pencil[line][h+4] - pencil[line][h-4] ) );
}
"""

_DERIVATIVE_WGSL = """
// the port of derivative_x: the coefficients the host copies into __constant__ symbols
// are uniforms of one float each, the block's lines (sPencils of mx points, 4 of halo
// each side) a workgroup array
const mx = 64u;
const my = 64u;
const mz = 64u;
const sPencils = 4u;

@group(0) @binding(0) var<storage, read> f: array<f32>;
@group(0) @binding(1) var<storage, read_write> df: array<f32>;
@group(0) @binding(2) var<uniform> c_ax: f32;
@group(0) @binding(3) var<uniform> c_bx: f32;
@group(0) @binding(4) var<uniform> c_cx: f32;
@group(0) @binding(5) var<uniform> c_dx: f32;

var<workgroup> pencil: array<array<f32, mx + 8u>, sPencils>;

@compute @workgroup_size(mx, sPencils)
fn derivative_x(@builtin(local_invocation_id) threadIdx: vec3<u32>,
                @builtin(workgroup_id) blockIdx: vec3<u32>) {
    let x = threadIdx.x;
    let line = threadIdx.y;
    let y = blockIdx.x * sPencils + line;
    let z = blockIdx.y;
    let at = z * mx * my + y * mx + x;
    let h = x + 4u;

    pencil[line][h] = f[at];

    workgroupBarrier();

    // both halos from the line's other end; its ends are one point
    if (x < 4u) {
        pencil[line][h - 4u] = pencil[line][h + mx - 5u];
        pencil[line][h + mx] = pencil[line][h + 1u];
    }

    workgroupBarrier();

    df[at] =
        ( c_ax * ( pencil[line][h + 1u] - pencil[line][h - 1u] )
        + c_bx * ( pencil[line][h + 2u] - pencil[line][h - 2u] )
        + c_cx * ( pencil[line][h + 3u] - pencil[line][h - 3u] )
        + c_dx * ( pencil[line][h + 4u] - pencil[line][h - 4u] ) );
}
"""

_MX = 64
_DSINV = np.float32(_MX - 1.0)
_COEFFICIENTS = {
    "c_ax": np.float32(4.0 / 5.0) * _DSINV,
    "c_bx": np.float32(-1.0 / 5.0) * _DSINV,
    "c_cx": np.float32(4.0 / 105.0) * _DSINV,
    "c_dx": np.float32(-1.0 / 280.0) * _DSINV,
}


def _derivative_x_reference(f, df, c_ax, c_bx, c_cx, c_dx):
    """The eighth-order central difference along x with the post's periodic images:
    points 0 and mx-1 are one point, so the halo left of 0 holds mx-5..mx-2 and the halo
    right of mx-1 holds 1..4."""
    g = f.astype(np.float64).reshape(-1, _MX)
    ext = np.concatenate([g[:, _MX - 5 : _MX - 1], g, g[:, 1:5]], axis=1)
    out = np.zeros_like(g)
    for offset, c in zip((1, 2, 3, 4), (c_ax, c_bx, c_cx, c_dx)):
        lo, hi = 4 - offset, 4 + offset
        out += float(c[0]) * (ext[:, hi : hi + _MX] - ext[:, lo : lo + _MX])
    return out.reshape(df.shape).astype(np.float32)


DERIVATIVE_X = Wild(
    KernelSpec(
        id="wild_r34_ruetsch_finite_difference_derivative_x_constant_coefficients",
        entry_point="derivative_x",
        sources={"cuda": _DERIVATIVE_CUDA, "wgsl": _DERIVATIVE_WGSL},
        buffers=(
            BufferSpec(0, "f32", "read", name="f", fill=(-1.0, 1.0)),
            BufferSpec(1, "f32", "read_write", name="df"),
            *(
                BufferSpec(2 + i, "f32", "read", name=name, count=1, fill=value)
                for i, (name, value) in enumerate(_COEFFICIENTS.items())
            ),
        ),
        reference=_derivative_x_reference,
        grid=lambda s, n: (64 // 4, 64, 1),
        schedules=(Schedule((64, 4)),),
        # mx = my = mz = 64 are the file's constants: one size
        test_sizes=(64 * 64 * 64,),
    ),
    {
        "CUDA: left image of period mx, not mx-1": (
            "cuda",
            "pencil[line][h-4]  = pencil[line][h+mx-5];",
            "pencil[line][h-4]  = pencil[line][h+mx-4];",
        ),
        "CUDA: right image from the point itself": (
            "cuda",
            "pencil[line][h+mx] = pencil[line][h+1];",
            "pencil[line][h+mx] = pencil[line][h];",
        ),
        "CUDA: no barrier before the images are filled": (
            "cuda",
            "  pencil[line][h] = f[at];\n\n  __syncthreads();\n",
            "  pencil[line][h] = f[at];\n\n",
        ),
        "CUDA: c_bx and c_cx swapped": (
            "cuda",
            "+ c_bx * ( pencil[line][h+2] - pencil[line][h-2] )\n    + c_cx",
            "+ c_cx * ( pencil[line][h+2] - pencil[line][h-2] )\n    + c_bx",
        ),
        "left image of period mx, not mx-1": (
            "wgsl",
            "pencil[line][h - 4u] = pencil[line][h + mx - 5u];",
            "pencil[line][h - 4u] = pencil[line][h + mx - 4u];",
        ),
        "right image from the point itself": (
            "wgsl",
            "pencil[line][h + mx] = pencil[line][h + 1u];",
            "pencil[line][h + mx] = pencil[line][h];",
        ),
        "no barrier before the images are filled": (
            "wgsl",
            "    pencil[line][h] = f[at];\n\n    workgroupBarrier();\n",
            "    pencil[line][h] = f[at];\n\n",
        ),
        "c_bx and c_cx swapped": (
            "wgsl",
            "+ c_bx * ( pencil[line][h + 2u] - pencil[line][h - 2u] )\n        + c_cx",
            "+ c_cx * ( pencil[line][h + 2u] - pencil[line][h - 2u] )\n        + c_bx",
        ),
        "pencil row from the block's x extent": (
            "wgsl",
            "let y = blockIdx.x * sPencils + line;",
            "let y = blockIdx.x * mx + line;",
        ),
    },
)


# -- "Using Shared Memory in CUDA C/C++": staticReverse and dynamicReverse --------------------

_REVERSE_CUDA = r"""
// Mark Harris's "Using Shared Memory in CUDA C/C++" (NVIDIA Developer Blog): the two
// reversals written for the corpus after shared-memory.cu, whose main launches, for
// n = 64, staticReverse<<<1,n>>>(d_d, n) and dynamicReverse<<<1,n,n*sizeof(int)>>>(d_d, n)
#include <stdio.h>

// a fixed array of 64 ints in shared memory
__global__ void staticReverse(int *d, int n)
{
  __shared__ int s[64];
  int t = threadIdx.x;
  int mirror = n-t-1;
  s[t] = d[t];
  __syncthreads();
  d[t] = s[mirror];
}

// the array sized by the launch (its third parameter, in bytes)
__global__ void dynamicReverse(int *d, int n)
{
  extern __shared__ int s[];
  int t = threadIdx.x;
  int mirror = n-t-1;
  s[t] = d[t];
  __syncthreads();
  d[t] = s[mirror];
}
"""

_STATIC_REVERSE_WGSL = """
// the port of staticReverse: one workgroup of n invocations (n an override, the
// launch's block)
@group(0) @binding(0) var<storage, read_write> d: array<i32>;
override n: u32;

var<workgroup> s: array<i32, 64>;

@compute @workgroup_size(n)
fn staticReverse(@builtin(local_invocation_index) t: u32) {
    let mirror = n - t - 1u;
    s[t] = d[t];
    workgroupBarrier();
    d[t] = s[mirror];
}
"""

_DYNAMIC_REVERSE_WGSL = """
// the port of dynamicReverse: the nearest WGSL has to an extern __shared__ array sized
// by the launch is a workgroup array sized by an override (n, the n ints the launch's
// n*sizeof(int) bytes hold)
@group(0) @binding(0) var<storage, read_write> d: array<i32>;
override n: u32;

var<workgroup> s: array<i32, n>;

@compute @workgroup_size(n)
fn dynamicReverse(@builtin(local_invocation_index) t: u32) {
    let mirror = n - t - 1u;
    s[t] = d[t];
    workgroupBarrier();
    d[t] = s[mirror];
}
"""


def _reverse_reference(d):
    return d[::-1].copy()


def _reverse(entry: str, wgsl: str, shared_bytes, test_sizes: tuple, mutants: dict) -> Wild:
    return Wild(
        KernelSpec(
            id=f"wild_r34_harris_shared_memory_{entry}",
            entry_point=entry,
            sources={"cuda": _REVERSE_CUDA, "wgsl": wgsl},
            buffers=(BufferSpec(0, "i32", "read_write", name="d", inout=True),),
            reference=_reverse_reference,
            launches=(
                Dispatch(
                    entry,
                    grid=(1, 1, 1),
                    schedule=lambda s, size: Schedule(int(size)),
                    shared_bytes=shared_bytes,
                ),
            ),
            test_sizes=test_sizes,
        ),
        mutants,
    )


STATIC_REVERSE = _reverse(
    "staticReverse",
    _STATIC_REVERSE_WGSL,
    None,
    # the post's n = 64 (s[64] holds no more); fewer; one
    (64, 37, 1),
    {
        "CUDA: no barrier between the copy and the reversed read": (
            "cuda",
            "  __shared__ int s[64];\n  int t = threadIdx.x;\n  int mirror = n-t-1;\n  s[t] = d[t];\n  __syncthreads();\n",
            "  __shared__ int s[64];\n  int t = threadIdx.x;\n  int mirror = n-t-1;\n  s[t] = d[t];\n",
        ),
        "CUDA: mirror index one past": (
            "cuda",
            "__shared__ int s[64];\n  int t = threadIdx.x;\n  int mirror = n-t-1;",
            "__shared__ int s[64];\n  int t = threadIdx.x;\n  int mirror = n-t;",
        ),
        "no barrier between the copy and the reversed read": (
            "wgsl",
            "    workgroupBarrier();\n",
            "",
        ),
        "mirror index one past": ("wgsl", "let mirror = n - t - 1u;", "let mirror = n - t;"),
        "mirrored about 64, not n": (
            "wgsl",
            "let mirror = n - t - 1u;",
            "let mirror = 64u - t - 1u;",
        ),
    },
)

DYNAMIC_REVERSE = _reverse(
    "dynamicReverse",
    _DYNAMIC_REVERSE_WGSL,
    lambda s, size: int(size) * 4,  # n*sizeof(int)
    # the post's n = 64; 256 (SwiftShader's most); one
    (64, 256, 1),
    {
        "CUDA: no barrier between the copy and the reversed read": (
            "cuda",
            "  extern __shared__ int s[];\n  int t = threadIdx.x;\n  int mirror = n-t-1;\n  s[t] = d[t];\n  __syncthreads();\n",
            "  extern __shared__ int s[];\n  int t = threadIdx.x;\n  int mirror = n-t-1;\n  s[t] = d[t];\n",
        ),
        "CUDA: reads its own element back": (
            "cuda",
            "  extern __shared__ int s[];\n  int t = threadIdx.x;\n  int mirror = n-t-1;\n  s[t] = d[t];\n  __syncthreads();\n  d[t] = s[mirror];",
            "  extern __shared__ int s[];\n  int t = threadIdx.x;\n  int mirror = n-t-1;\n  s[t] = d[t];\n  __syncthreads();\n  d[t] = s[t];",
        ),
        "no barrier between the copy and the reversed read": (
            "wgsl",
            "    workgroupBarrier();\n",
            "",
        ),
        "reads its own element back": ("wgsl", "d[t] = s[mirror];", "d[t] = s[t];"),
        "copies the reversed element in": (
            "wgsl",
            "s[t] = d[t];",
            "s[t] = d[mirror];",
        ),
    },
)


ROUND34: dict[str, Wild] = {
    w.kernel.id: w
    for w in (
        SGEMM_2D_BM64,
        SGEMM_2D_BM128,
        SGEMM_VECTORIZE,
        REDUCE_WARP_ATOMIC,
        REDUCE_STABLE,
        REDUCE_STABLE_PORT,
        DERIVATIVE_X,
        STATIC_REVERSE,
        DYNAMIC_REVERSE,
    )
}
