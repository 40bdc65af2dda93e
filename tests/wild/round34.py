"""Round 34 of kernels from the wild, merged into ``tests.wild.CORPUS``: CUDA kernels
people copy from blogs and tutorials, each taken as written with a WGSL port as a
WebGPU port would write it (so that the port runs here, on lavapipe and SwiftShader,
and the original on the GPU machine), both judged by one float64 (or exact integer)
reference.

- Simon Boehm's SGEMM_CUDA (siboehm/SGEMM_CUDA, src/kernels): kernel 5
  ``sgemm2DBlocktiling`` in both of runner.cu's instantiations (BM = BN = 128 when M and N
  reach 128, else 64; BK = TM = TN = 8; ``__launch_bounds__``, ``assert`` on blockDim),
  and kernel 6 ``sgemmVectorize`` (float4 loads through ``reinterpret_cast``, A
  transposed into As, C updated a float4 at a time) in the 128 branch; C = alpha*A@B +
  beta*C with sgemm.cu's alpha 0.5 and beta 3.0, the ``CEIL_DIV`` grid, no bounds checks
  (M and N multiples of BM, K of BK). The ports bind A, B and C as ``array<vec4<f32>>``
  for kernel 6.
- Justin Luitjens's "Faster Parallel Reductions on Kepler" (the post's listings, as in
  NVIDIA-developer-blog/code-samples posts/parallel_reduction_with_shfl): ``warpReduceSum``
  (``__shfl_down_sync`` for the ``__shfl_down`` sm_70 and later lack), ``blockReduceSum``
  (``static __shared__ int shared[32]``), ``deviceReduceKernel`` launched twice as
  ``deviceReduce`` does (512 threads over ``min(ceil(N/512), 1024)`` blocks, then
  ``<<<1, 1024>>>(out, out, blocks)`` in place: ``arguments=("out", "out", "N")`` and
  the launch's own N), and ``deviceReduceWarpAtomicKernel`` (256 threads, up to 2048
  blocks, ``atomicAdd`` into an ``out`` the host zeroes), over ints. Ports use WGSL
  subgroups (``subgroupShuffleDown`` from the adapter's ``subgroup_size``); the
  two-launch port is a spec of its own, as SwiftShader allows 256 invocations and the
  partial sums left in ``out[1:]`` depend on the block size.
- Greg Ruetsch's "Finite Difference Methods in CUDA C/C++" (finite-difference.cu):
  ``derivative_x`` with ``__constant__`` coefficients ``c_ax..c_dx`` (buffers of one
  float each, copied into the symbols), a 4 x (mx+8) shared pencil with the periodic
  images of a grid whose ends are one point (period mx-1), mx = my = mz = 64 as the
  file's constants (one size).
- Mark Harris's "Using Shared Memory in CUDA C/C++" (shared-memory.cu): ``staticReverse``
  (``__shared__ int s[64]``) and ``dynamicReverse`` (``extern __shared__``, n*sizeof(int)
  bytes), one block of n threads, in place; the ports size the workgroup (and the
  dynamic one its array) by ``override n``.

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

# ruff: noqa: E501  (the CUDA sources keep their authors' long lines, as written)

from __future__ import annotations

import numpy as np

from forge import BufferSpec, Dispatch, KernelSpec, Schedule, ceil_div

from . import Wild

# -- siboehm/SGEMM_CUDA: kernel 5, sgemm2DBlocktiling ---------------------------------------

_SGEMM_2D_CUDA = r"""
// siboehm/SGEMM_CUDA, src/kernels/5_kernel_2D_blocktiling.cuh, as written but for
// <cublas_v2.h> (a host library header the kernel uses nothing from; NVRTC cannot open
// it). runner.cu's runSgemm2DBlocktiling launches, with BK = TM = TN = 8,
//   BM = BN = 128 when M >= 128 and N >= 128, else (for the missing bounds checks) 64:
//   dim3 gridDim(CEIL_DIV(N, BN), CEIL_DIV(M, BM));
//   dim3 blockDim((BM * BN) / (TM * TN));
//   sgemm2DBlocktiling<BM, BN, BK, TM, TN><<<gridDim, blockDim>>>(M, N, K, alpha, A, B, beta, C);
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
  const uint cRow = blockIdx.y;
  const uint cCol = blockIdx.x;

  const uint totalResultsBlocktile = BM * BN;
  // A thread is responsible for calculating TM*TN elements in the blocktile
  const uint numThreadsBlocktile = totalResultsBlocktile / (TM * TN);

  // ResultsPerBlock / ResultsPerThread == ThreadsPerBlock
  assert(numThreadsBlocktile == blockDim.x);

  // BN/TN are the number of threads to span a column
  const int threadCol = threadIdx.x % (BN / TN);
  const int threadRow = threadIdx.x / (BN / TN);

  // allocate space for the current blocktile in smem
  __shared__ float As[BM * BK];
  __shared__ float Bs[BK * BN];

  // Move blocktile to beginning of A's row and B's column
  A += cRow * BM * K;
  B += cCol * BN;
  C += cRow * BM * N + cCol * BN;

  // calculating the indices that this thread will load into SMEM
  const uint innerRowA = threadIdx.x / BK;
  const uint innerColA = threadIdx.x % BK;
  // calculates the number of rows of As that are being loaded in a single step
  // by a single block
  const uint strideA = numThreadsBlocktile / BK;
  const uint innerRowB = threadIdx.x / BN;
  const uint innerColB = threadIdx.x % BN;
  // for both As and Bs we want each load to span the full column-width, for
  // better GMEM coalescing (as opposed to spanning full row-width and iterating
  // across columns)
  const uint strideB = numThreadsBlocktile / BN;

  // allocate thread-local cache for results in registerfile
  float threadResults[TM * TN] = {0.0};
  // register caches for As and Bs
  float regM[TM] = {0.0};
  float regN[TN] = {0.0};

  // outer-most loop over block tiles
  for (uint bkIdx = 0; bkIdx < K; bkIdx += BK) {
    // populate the SMEM caches
    for (uint loadOffset = 0; loadOffset < BM; loadOffset += strideA) {
      As[(innerRowA + loadOffset) * BK + innerColA] =
          A[(innerRowA + loadOffset) * K + innerColA];
    }
    for (uint loadOffset = 0; loadOffset < BK; loadOffset += strideB) {
      Bs[(innerRowB + loadOffset) * BN + innerColB] =
          B[(innerRowB + loadOffset) * N + innerColB];
    }
    __syncthreads();

    // advance blocktile
    A += BK;     // move BK columns to right
    B += BK * N; // move BK rows down

    // calculate per-thread results
    for (uint dotIdx = 0; dotIdx < BK; ++dotIdx) {
      // block into registers
      for (uint i = 0; i < TM; ++i) {
        regM[i] = As[(threadRow * TM + i) * BK + dotIdx];
      }
      for (uint i = 0; i < TN; ++i) {
        regN[i] = Bs[dotIdx * BN + threadCol * TN + i];
      }
      for (uint resIdxM = 0; resIdxM < TM; ++resIdxM) {
        for (uint resIdxN = 0; resIdxN < TN; ++resIdxN) {
          threadResults[resIdxM * TN + resIdxN] +=
              regM[resIdxM] * regN[resIdxN];
        }
      }
    }
    __syncthreads();
  }

  // write out the results
  for (uint resIdxM = 0; resIdxM < TM; ++resIdxM) {
    for (uint resIdxN = 0; resIdxN < TN; ++resIdxN) {
      C[(threadRow * TM + resIdxM) * N + threadCol * TN + resIdxN] =
          alpha * threadResults[resIdxM * TN + resIdxN] +
          beta * C[(threadRow * TM + resIdxM) * N + threadCol * TN + resIdxN];
    }
  }
}
"""

_SGEMM_2D_WGSL = """
// a WebGPU port of SGEMM_CUDA's kernel 5 (sgemm2DBlocktiling): a BM x BN block tile, TM x
// TN results a thread, BM and BN as the runner picks them filled in; WGSL has no pointer
// arithmetic, so A, B and C move by offsets
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
const numThreadsBlocktile: u32 = (BM * BN) / (TM * TN);

var<workgroup> As: array<f32, BM * BK>;
var<workgroup> Bs: array<f32, BK * BN>;

@compute @workgroup_size(numThreadsBlocktile)
fn sgemm2DBlocktiling(@builtin(workgroup_id) blockIdx: vec3<u32>,
                      @builtin(local_invocation_index) threadIdx: u32) {
    let N = u32(p.N);
    let K = u32(p.K);
    let cRow = blockIdx.y;
    let cCol = blockIdx.x;

    // BN/TN are the number of threads to span a column
    let threadCol = threadIdx % (BN / TN);
    let threadRow = threadIdx / (BN / TN);

    // Move blocktile to beginning of A's row and B's column
    var a = cRow * BM * K;
    var b = cCol * BN;
    let c = cRow * BM * N + cCol * BN;

    // calculating the indices that this thread will load into SMEM
    let innerRowA = threadIdx / BK;
    let innerColA = threadIdx % BK;
    let strideA = numThreadsBlocktile / BK;
    let innerRowB = threadIdx / BN;
    let innerColB = threadIdx % BN;
    let strideB = numThreadsBlocktile / BN;

    var threadResults: array<f32, TM * TN>;
    var regM: array<f32, TM>;
    var regN: array<f32, TN>;

    // outer-most loop over block tiles
    for (var bkIdx = 0u; bkIdx < K; bkIdx += BK) {
        // populate the SMEM caches
        for (var loadOffset = 0u; loadOffset < BM; loadOffset += strideA) {
            As[(innerRowA + loadOffset) * BK + innerColA] =
                A[a + (innerRowA + loadOffset) * K + innerColA];
        }
        for (var loadOffset = 0u; loadOffset < BK; loadOffset += strideB) {
            Bs[(innerRowB + loadOffset) * BN + innerColB] =
                B[b + (innerRowB + loadOffset) * N + innerColB];
        }
        workgroupBarrier();

        // advance blocktile
        a += BK;      // move BK columns to right
        b += BK * N;  // move BK rows down

        // calculate per-thread results
        for (var dotIdx = 0u; dotIdx < BK; dotIdx++) {
            // block into registers
            for (var i = 0u; i < TM; i++) {
                regM[i] = As[(threadRow * TM + i) * BK + dotIdx];
            }
            for (var i = 0u; i < TN; i++) {
                regN[i] = Bs[dotIdx * BN + threadCol * TN + i];
            }
            for (var resIdxM = 0u; resIdxM < TM; resIdxM++) {
                for (var resIdxN = 0u; resIdxN < TN; resIdxN++) {
                    threadResults[resIdxM * TN + resIdxN] += regM[resIdxM] * regN[resIdxN];
                }
            }
        }
        workgroupBarrier();
    }

    // write out the results
    for (var resIdxM = 0u; resIdxM < TM; resIdxM++) {
        for (var resIdxN = 0u; resIdxN < TN; resIdxN++) {
            let o = c + (threadRow * TM + resIdxM) * N + threadCol * TN + resIdxN;
            C[o] = p.alpha * threadResults[resIdxM * TN + resIdxN] + p.beta * C[o];
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
            "alpha * threadResults[resIdxM * TN + resIdxN] +\n          beta * C[",
            "beta * threadResults[resIdxM * TN + resIdxN] +\n          alpha * C[",
        ),
        "CUDA: B advanced BK columns, not BK rows": (
            "cuda",
            "B += BK * N; // move BK rows down",
            "B += BK; // move BK rows down",
        ),
        "CUDA: no barrier before the next tile is loaded": (
            "cuda",
            "      }\n    }\n    __syncthreads();\n  }",
            "      }\n    }\n  }",
        ),
        "alpha and beta swapped": (
            "wgsl",
            "C[o] = p.alpha * threadResults[resIdxM * TN + resIdxN] + p.beta * C[o];",
            "C[o] = p.beta * threadResults[resIdxM * TN + resIdxN] + p.alpha * C[o];",
        ),
        "B advanced BK columns, not BK rows": (
            "wgsl",
            "b += BK * N;  // move BK rows down",
            "b += BK;  // move BK rows down",
        ),
        "no barrier before the next tile is loaded": (
            "wgsl",
            "            }\n        }\n        workgroupBarrier();\n    }",
            "            }\n        }\n    }",
        ),
        "As loads stop one stride short": (
            "wgsl",
            "loadOffset < BM; loadOffset += strideA",
            "loadOffset + strideA < BM; loadOffset += strideA",
        ),
        "regM read along the tile's k, not its rows": (
            "wgsl",
            "regM[i] = As[(threadRow * TM + i) * BK + dotIdx];",
            "regM[i] = As[(threadRow * TM + dotIdx) * BK + i];",
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
            "regN[i] = Bs[dotIdx * BN + threadCol * TN + i];",
            "regN[i] = Bs[dotIdx * BK + threadCol * TN + i];",
        ),
        "CUDA: no barrier between the tile's loads and reads": (
            "cuda",
            "          B[(innerRowB + loadOffset) * N + innerColB];\n    }\n    __syncthreads();\n",
            "          B[(innerRowB + loadOffset) * N + innerColB];\n    }\n",
        ),
        "Bs row stride BK, not BN": (
            "wgsl",
            "regN[i] = Bs[dotIdx * BN + threadCol * TN + i];",
            "regN[i] = Bs[dotIdx * BK + threadCol * TN + i];",
        ),
        "no barrier between the tile's loads and reads": (
            "wgsl",
            "B[b + (innerRowB + loadOffset) * N + innerColB];\n        }\n        workgroupBarrier();\n",
            "B[b + (innerRowB + loadOffset) * N + innerColB];\n        }\n",
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
// siboehm/SGEMM_CUDA, src/kernels/6_kernel_vectorize.cuh, as written but for
// <cublas_v2.h> (NVRTC cannot open it; the kernel uses nothing from it). runner.cu's
// runSgemmVectorize launches, with BK = TM = TN = 8 and BM = BN = 128 when M >= 128 and
// N >= 128 (else 64, a branch that loads half the tile: tests/test_wild_round34.py):
//   dim3 gridDim(CEIL_DIV(N, BN), CEIL_DIV(M, BM));
//   dim3 blockDim((BM * BN) / (TM * TN));
//   sgemmVectorize<BM, BN, BK, TM, TN><<<gridDim, blockDim>>>(M, N, K, alpha, A, B, beta, C);
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
  const uint cRow = blockIdx.y;
  const uint cCol = blockIdx.x;

  // BN/TN are the number of threads to span a column
  const int threadCol = threadIdx.x % (BN / TN);
  const int threadRow = threadIdx.x / (BN / TN);

  // allocate space for the current blocktile in smem
  __shared__ float As[BM * BK];
  __shared__ float Bs[BK * BN];

  // Move blocktile to beginning of A's row and B's column
  A += cRow * BM * K;
  B += cCol * BN;
  C += cRow * BM * N + cCol * BN;

  // calculating the indices that this thread will load into SMEM
  // we'll load 128bit / 32bit = 4 elements per thread at each step
  const uint innerRowA = threadIdx.x / (BK / 4);
  const uint innerColA = threadIdx.x % (BK / 4);
  const uint innerRowB = threadIdx.x / (BN / 4);
  const uint innerColB = threadIdx.x % (BN / 4);

  // allocate thread-local cache for results in registerfile
  float threadResults[TM * TN] = {0.0};
  float regM[TM] = {0.0};
  float regN[TN] = {0.0};

  // outer-most loop over block tiles
  for (uint bkIdx = 0; bkIdx < K; bkIdx += BK) {
    // populate the SMEM caches
    // transpose A while loading it
    float4 tmp =
        reinterpret_cast<float4 *>(&A[innerRowA * K + innerColA * 4])[0];
    As[(innerColA * 4 + 0) * BM + innerRowA] = tmp.x;
    As[(innerColA * 4 + 1) * BM + innerRowA] = tmp.y;
    As[(innerColA * 4 + 2) * BM + innerRowA] = tmp.z;
    As[(innerColA * 4 + 3) * BM + innerRowA] = tmp.w;

    reinterpret_cast<float4 *>(&Bs[innerRowB * BN + innerColB * 4])[0] =
        reinterpret_cast<float4 *>(&B[innerRowB * N + innerColB * 4])[0];
    __syncthreads();

    // advance blocktile
    A += BK;     // move BK columns to right
    B += BK * N; // move BK rows down

    // calculate per-thread results
    for (uint dotIdx = 0; dotIdx < BK; ++dotIdx) {
      // block into registers
      for (uint i = 0; i < TM; ++i) {
        regM[i] = As[dotIdx * BM + threadRow * TM + i];
      }
      for (uint i = 0; i < TN; ++i) {
        regN[i] = Bs[dotIdx * BN + threadCol * TN + i];
      }
      for (uint resIdxM = 0; resIdxM < TM; ++resIdxM) {
        for (uint resIdxN = 0; resIdxN < TN; ++resIdxN) {
          threadResults[resIdxM * TN + resIdxN] +=
              regM[resIdxM] * regN[resIdxN];
        }
      }
    }
    __syncthreads();
  }

  // write out the results
  for (uint resIdxM = 0; resIdxM < TM; resIdxM += 1) {
    for (uint resIdxN = 0; resIdxN < TN; resIdxN += 4) {
      // load C vector into registers
      float4 tmp = reinterpret_cast<float4 *>(
          &C[(threadRow * TM + resIdxM) * N + threadCol * TN + resIdxN])[0];
      // perform GEMM update in reg
      tmp.x = alpha * threadResults[resIdxM * TN + resIdxN] + beta * tmp.x;
      tmp.y = alpha * threadResults[resIdxM * TN + resIdxN + 1] + beta * tmp.y;
      tmp.z = alpha * threadResults[resIdxM * TN + resIdxN + 2] + beta * tmp.z;
      tmp.w = alpha * threadResults[resIdxM * TN + resIdxN + 3] + beta * tmp.w;
      // write back
      reinterpret_cast<float4 *>(
          &C[(threadRow * TM + resIdxM) * N + threadCol * TN + resIdxN])[0] =
          tmp;
    }
  }
}
"""

_SGEMM_VECTORIZE_WGSL = """
// a WebGPU port of SGEMM_CUDA's kernel 6 (sgemmVectorize): A, B and C bound as vec4s
// (reinterpret_cast<float4 *>), A transposed into As while loading, C updated a vec4 at a
// time; workgroup memory cannot be reinterpreted, so Bs takes B's vec4 lane by lane
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
    let cRow = blockIdx.y;
    let cCol = blockIdx.x;

    // BN/TN are the number of threads to span a column
    let threadCol = threadIdx % (BN / TN);
    let threadRow = threadIdx / (BN / TN);

    // Move blocktile to beginning of A's row and B's column (offsets in floats)
    var a = cRow * BM * K;
    var b = cCol * BN;
    let c = cRow * BM * N + cCol * BN;

    // we'll load 128bit / 32bit = 4 elements per thread at each step
    let innerRowA = threadIdx / (BK / 4u);
    let innerColA = threadIdx % (BK / 4u);
    let innerRowB = threadIdx / (BN / 4u);
    let innerColB = threadIdx % (BN / 4u);

    var threadResults: array<f32, TM * TN>;
    var regM: array<f32, TM>;
    var regN: array<f32, TN>;

    // outer-most loop over block tiles
    for (var bkIdx = 0u; bkIdx < K; bkIdx += BK) {
        // transpose A while loading it
        let tmp = A[(a + innerRowA * K + innerColA * 4u) / 4u];
        As[(innerColA * 4u + 0u) * BM + innerRowA] = tmp.x;
        As[(innerColA * 4u + 1u) * BM + innerRowA] = tmp.y;
        As[(innerColA * 4u + 2u) * BM + innerRowA] = tmp.z;
        As[(innerColA * 4u + 3u) * BM + innerRowA] = tmp.w;

        let tmpB = B[(b + innerRowB * N + innerColB * 4u) / 4u];
        Bs[innerRowB * BN + innerColB * 4u + 0u] = tmpB.x;
        Bs[innerRowB * BN + innerColB * 4u + 1u] = tmpB.y;
        Bs[innerRowB * BN + innerColB * 4u + 2u] = tmpB.z;
        Bs[innerRowB * BN + innerColB * 4u + 3u] = tmpB.w;
        workgroupBarrier();

        // advance blocktile
        a += BK;      // move BK columns to right
        b += BK * N;  // move BK rows down

        // calculate per-thread results
        for (var dotIdx = 0u; dotIdx < BK; dotIdx++) {
            // block into registers
            for (var i = 0u; i < TM; i++) {
                regM[i] = As[dotIdx * BM + threadRow * TM + i];
            }
            for (var i = 0u; i < TN; i++) {
                regN[i] = Bs[dotIdx * BN + threadCol * TN + i];
            }
            for (var resIdxM = 0u; resIdxM < TM; resIdxM++) {
                for (var resIdxN = 0u; resIdxN < TN; resIdxN++) {
                    threadResults[resIdxM * TN + resIdxN] += regM[resIdxM] * regN[resIdxN];
                }
            }
        }
        workgroupBarrier();
    }

    // write out the results
    for (var resIdxM = 0u; resIdxM < TM; resIdxM += 1u) {
        for (var resIdxN = 0u; resIdxN < TN; resIdxN += 4u) {
            // load C vector into registers
            let o = (c + (threadRow * TM + resIdxM) * N + threadCol * TN + resIdxN) / 4u;
            var tmp = C[o];
            // perform GEMM update in reg
            tmp.x = p.alpha * threadResults[resIdxM * TN + resIdxN] + p.beta * tmp.x;
            tmp.y = p.alpha * threadResults[resIdxM * TN + resIdxN + 1u] + p.beta * tmp.y;
            tmp.z = p.alpha * threadResults[resIdxM * TN + resIdxN + 2u] + p.beta * tmp.z;
            tmp.w = p.alpha * threadResults[resIdxM * TN + resIdxN + 3u] + p.beta * tmp.w;
            // write back
            C[o] = tmp;
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
            "regM[i] = As[dotIdx * BM + threadRow * TM + i];",
            "regM[i] = As[(threadRow * TM + i) * BK + dotIdx];",
        ),
        "CUDA: tmp.w stored in tmp.z's row": (
            "cuda",
            "As[(innerColA * 4 + 3) * BM + innerRowA] = tmp.w;",
            "As[(innerColA * 4 + 2) * BM + innerRowA] = tmp.w;",
        ),
        "CUDA: third lane of C takes the second's result": (
            "cuda",
            "tmp.z = alpha * threadResults[resIdxM * TN + resIdxN + 2]",
            "tmp.z = alpha * threadResults[resIdxM * TN + resIdxN + 1]",
        ),
        "As not transposed back": (
            "wgsl",
            "regM[i] = As[dotIdx * BM + threadRow * TM + i];",
            "regM[i] = As[(threadRow * TM + i) * BK + dotIdx];",
        ),
        "tmp.w stored in tmp.z's row": (
            "wgsl",
            "As[(innerColA * 4u + 3u) * BM + innerRowA] = tmp.w;",
            "As[(innerColA * 4u + 2u) * BM + innerRowA] = tmp.w;",
        ),
        "third lane of C takes the second's result": (
            "wgsl",
            "tmp.z = p.alpha * threadResults[resIdxM * TN + resIdxN + 2u]",
            "tmp.z = p.alpha * threadResults[resIdxM * TN + resIdxN + 1u]",
        ),
        "A's vec4 index not divided by 4": (
            "wgsl",
            "let tmp = A[(a + innerRowA * K + innerColA * 4u) / 4u];",
            "let tmp = A[(a + innerRowA * K) / 4u + innerColA * 4u];",
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
// Justin Luitjens, "Faster Parallel Reductions on Kepler" (NVIDIA Developer Blog), the
// post's listings (NVIDIA-developer-blog/code-samples, posts/parallel_reduction_with_shfl:
// warp_reduce.h, block_reduce.h, device_reduce_stable.h, device_reduce_warp_atomic.h)
// with __shfl_down_sync(0xffffffff, ...) for the __shfl_down that CUDA 9 deprecated and
// sm_70 and later do not have. The host:
//   void deviceReduce(int *in, int* out, int N) {
//     int threads = 512;
//     int blocks = min((N + threads - 1) / threads, 1024);
//     deviceReduceKernel<<<blocks, threads>>>(in, out, N);
//     deviceReduceKernel<<<1, 1024>>>(out, out, blocks);
//   }
//   void deviceReduceWarpAtomic(int *in, int* out, int N) {
//     int threads=256;
//     int blocks=min((N+threads-1)/threads,2048);
//     cudaMemsetAsync(out,0,sizeof(int));
//     deviceReduceWarpAtomicKernel<<<blocks,threads>>>(in,out,N);
//   }
__inline__ __device__
int warpReduceSum(int val) {
  for (int offset = warpSize/2; offset > 0; offset /= 2)
    val += __shfl_down_sync(0xffffffff, val, offset);
  return val;
}

__inline__ __device__
int blockReduceSum(int val) {

  static __shared__ int shared[32]; // Shared mem for 32 partial sums
  int lane = threadIdx.x % warpSize;
  int wid = threadIdx.x / warpSize;

  val = warpReduceSum(val);     // Each warp performs partial reduction

  if (lane==0) shared[wid]=val; // Write reduced value to shared memory

  __syncthreads();              // Wait for all partial reductions

  //read from shared memory only if that warp existed
  val = (threadIdx.x < blockDim.x / warpSize) ? shared[lane] : 0;

  if (wid==0) val = warpReduceSum(val); //Final reduce within first warp

  return val;
}

__global__ void deviceReduceKernel(int *in, int* out, int N) {
  int sum = 0;
  //reduce multiple elements per thread
  for (int i = blockIdx.x * blockDim.x + threadIdx.x;
       i < N;
       i += blockDim.x * gridDim.x) {
    sum += in[i];
  }
  sum = blockReduceSum(sum);
  if (threadIdx.x==0)
    out[blockIdx.x]=sum;
}

__global__ void deviceReduceWarpAtomicKernel(int *in, int* out, int N) {
  int sum = int(0);
  for(int i = blockIdx.x * blockDim.x + threadIdx.x;
      i < N;
      i += blockDim.x * gridDim.x) {
    sum += in[i];
  }
  sum = warpReduceSum(sum);
  if ((threadIdx.x & (warpSize - 1)) == 0)
    atomicAdd(out, sum);
}
"""

_WARP_ATOMIC_WGSL = """
// a WebGPU port of the post's deviceReduceWarpAtomicKernel: warpReduceSum over the
// subgroup (its size is the adapter's: 8 on lavapipe, 4 on SwiftShader, 32 on NVIDIA),
// then lane 0 of each adds its sum into out[0] (zeroed by the host first)
enable subgroups;

@group(0) @binding(0) var<storage, read> input: array<i32>;
@group(0) @binding(1) var<storage, read_write> out: array<atomic<i32>>;
override N: u32;

fn warpReduceSum(v: i32, warpSize: u32) -> i32 {
    var val = v;
    for (var offset = warpSize / 2u; offset > 0u; offset /= 2u) {
        val += subgroupShuffleDown(val, offset);
    }
    return val;
}

@compute @workgroup_size(256)
fn deviceReduceWarpAtomicKernel(@builtin(workgroup_id) blockIdx: vec3<u32>,
                                @builtin(local_invocation_index) threadIdx: u32,
                                @builtin(num_workgroups) gridDim: vec3<u32>,
                                @builtin(subgroup_invocation_id) lane: u32,
                                @builtin(subgroup_size) warpSize: u32) {
    var sum = 0i;
    for (var i = blockIdx.x * 256u + threadIdx; i < N; i += 256u * gridDim.x) {
        sum += input[i];
    }
    sum = warpReduceSum(sum, warpSize);
    if (lane == 0u) {
        atomicAdd(&out[0], sum);
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
            "      i += blockDim.x * gridDim.x) {\n    sum += in[i];\n  }\n  sum = warpReduceSum(sum);",
            "      i += N) {\n    sum += in[i];\n  }\n  sum = warpReduceSum(sum);",
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
            "val = (threadIdx.x < blockDim.x / warpSize) ? shared[lane] : 0;",
            "val = shared[lane];",
        ),
        "CUDA: no barrier before the partial sums are read": (
            "cuda",
            "  __syncthreads();              // Wait for all partial reductions\n",
            "",
        ),
        "CUDA: shuffle offset halves from 8": (
            "cuda",
            "for (int offset = warpSize/2; offset > 0; offset /= 2)",
            "for (int offset = warpSize/4; offset > 0; offset /= 2)",
        ),
        "CUDA: grid-stride tail dropped": (
            "cuda",
            "       i < N;\n       i += blockDim.x * gridDim.x) {\n    sum += in[i];\n  }\n  sum = blockReduceSum(sum);",
            "       i < N - 1;\n       i += blockDim.x * gridDim.x) {\n    sum += in[i];\n  }\n  sum = blockReduceSum(sum);",
        ),
    },
)

_REDUCE_STABLE_WGSL = """
// a WebGPU port of the post's deviceReduce: deviceReduceKernel over 256 invocations (the
// most SwiftShader allows; the post's 512 and 1024 elsewhere), its second launch reading
// out in place (a binding cannot be both of one dispatch's inputs, so it has an entry
// point of its own). A subgroup is 4 to 128 wide here (8 on lavapipe, 4 on SwiftShader),
// not CUDA's 32: shared holds a partial sum for each of up to 64 subgroups, and the first
// subgroup adds them up in strides of its width before its own warpReduceSum
enable subgroups;

@group(0) @binding(0) var<storage, read> input: array<i32>;
@group(0) @binding(1) var<storage, read_write> out: array<i32>;
override N: u32;

const blockDim: u32 = 256u;
var<workgroup> sdata: array<i32, 64>;  // Shared mem for up to 64 partial sums (`shared` is reserved)

fn warpReduceSum(v: i32, warpSize: u32) -> i32 {
    var val = v;
    for (var offset = warpSize / 2u; offset > 0u; offset /= 2u) {
        val += subgroupShuffleDown(val, offset);
    }
    return val;
}

fn blockReduceSum(v: i32, threadIdx: u32, lane: u32, warpSize: u32) -> i32 {
    let wid = threadIdx / warpSize;
    var val = warpReduceSum(v, warpSize);     // Each warp performs partial reduction
    if (lane == 0u) { sdata[wid] = val; }    // Write reduced value to shared memory
    workgroupBarrier();                       // Wait for all partial reductions
    // read from shared memory only if that warp existed
    val = 0;
    for (var w = lane; w < blockDim / warpSize; w += warpSize) {
        val += sdata[w];
    }
    return warpReduceSum(val, warpSize);      // Final reduce (the first warp's is used)
}

@compute @workgroup_size(blockDim)
fn deviceReduceKernel(@builtin(workgroup_id) blockIdx: vec3<u32>,
                      @builtin(local_invocation_index) threadIdx: u32,
                      @builtin(num_workgroups) gridDim: vec3<u32>,
                      @builtin(subgroup_invocation_id) lane: u32,
                      @builtin(subgroup_size) warpSize: u32) {
    var sum = 0i;
    // reduce multiple elements per thread
    for (var i = blockIdx.x * blockDim + threadIdx; i < N; i += blockDim * gridDim.x) {
        sum += input[i];
    }
    sum = blockReduceSum(sum, threadIdx, lane, warpSize);
    if (threadIdx == 0u) {
        out[blockIdx.x] = sum;
    }
}

@compute @workgroup_size(blockDim)
fn deviceReduceKernelInPlace(@builtin(workgroup_id) blockIdx: vec3<u32>,
                             @builtin(local_invocation_index) threadIdx: u32,
                             @builtin(num_workgroups) gridDim: vec3<u32>,
                             @builtin(subgroup_invocation_id) lane: u32,
                             @builtin(subgroup_size) warpSize: u32) {
    var sum = 0i;
    for (var i = blockIdx.x * blockDim + threadIdx; i < N; i += blockDim * gridDim.x) {
        sum += out[i];
    }
    sum = blockReduceSum(sum, threadIdx, lane, warpSize);
    if (threadIdx == 0u) {
        out[blockIdx.x] = sum;
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
            "for (var w = lane; w < blockDim / warpSize; w += warpSize) {",
            "for (var w = lane; w < warpSize; w += warpSize) {",
        ),
        "no barrier before the partial sums are read": (
            "wgsl",
            "    workgroupBarrier();                       // Wait for all partial reductions\n",
            "",
        ),
        "shuffle offsets start at the subgroup's width": (
            "wgsl",
            "for (var offset = warpSize / 2u; offset > 0u; offset /= 2u)",
            "for (var offset = warpSize; offset > 0u; offset /= 2u)",
        ),
        "grid-stride tail dropped": (
            "wgsl",
            "i < N; i += blockDim * gridDim.x) {\n        sum += input[i];",
            "i + 1u < N; i += blockDim * gridDim.x) {\n        sum += input[i];",
        ),
        "second launch reads the input again": (
            "wgsl",
            "        sum += out[i];",
            "        sum += input[i];",
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
// Greg Ruetsch, "Finite Difference Methods in CUDA C/C++, Part 1" (NVIDIA Developer Blog):
// NVIDIA-developer-blog/code-samples, series/cuda-cpp/finite-difference/finite-difference.cu,
// the declarations and derivative_x as written (checkCuda, the other kernels and the host
// left out, with the host's own globals: `float fx = 1.0f, fy = 1.0f, fz = 1.0f;`, which
// NVRTC refuses as host variables, and `dim3 grid[3][2], block[3][2];`).
// setDerivativeParameters copies into the symbols, with dsinv = mx-1.f,
//   ax = 4.f/5.f * dsinv, bx = -1.f/5.f * dsinv, cx = 4.f/105.f * dsinv, dx = -1.f/280.f * dsinv
// and launches derivative_x<<<dim3(my / sPencils, mz, 1), dim3(mx, sPencils, 1)>>>(d_f, d_df)
#include <stdio.h>
#include <assert.h>

const int mx = 64, my = 64, mz = 64;

// shared memory tiles will be m*-by-*Pencils
// sPencils is used when each thread calculates the derivative at one point
// lPencils is used for coalescing in y and z where each thread has to
//     calculate the derivative at mutiple points
const int sPencils = 4;  // small # pencils
const int lPencils = 32; // large # pencils

// stencil coefficients
__constant__ float c_ax, c_bx, c_cx, c_dx;
__constant__ float c_ay, c_by, c_cy, c_dy;
__constant__ float c_az, c_bz, c_cz, c_dz;

// -------------
// x derivatives
// -------------

__global__ void derivative_x(float *f, float *df)
{
  __shared__ float s_f[sPencils][mx+8]; // 4-wide halo

  int i   = threadIdx.x;
  int j   = blockIdx.x*blockDim.y + threadIdx.y;
  int k  = blockIdx.y;
  int si = i + 4;       // local i for shared memory access + halo offset
  int sj = threadIdx.y; // local j for shared memory access

  int globalIdx = k * mx * my + j * mx + i;

  s_f[sj][si] = f[globalIdx];

  __syncthreads();

  // fill in periodic images in shared memory array
  if (i < 4) {
    s_f[sj][si-4]  = s_f[sj][si+mx-5];
    s_f[sj][si+mx] = s_f[sj][si+1];
  }

  __syncthreads();

  df[globalIdx] =
    ( c_ax * ( s_f[sj][si+1] - s_f[sj][si-1] )
    + c_bx * ( s_f[sj][si+2] - s_f[sj][si-2] )
    + c_cx * ( s_f[sj][si+3] - s_f[sj][si-3] )
    + c_dx * ( s_f[sj][si+4] - s_f[sj][si-4] ) );
}
"""

_DERIVATIVE_WGSL = """
// a WebGPU port of the post's derivative_x: the coefficients the host copies into
// __constant__ symbols are uniforms of one float each, the pencil of sPencils rows of mx
// points with a 4-wide halo a workgroup array
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

var<workgroup> s_f: array<array<f32, mx + 8u>, sPencils>;  // 4-wide halo

@compute @workgroup_size(mx, sPencils)
fn derivative_x(@builtin(local_invocation_id) threadIdx: vec3<u32>,
                @builtin(workgroup_id) blockIdx: vec3<u32>) {
    let i = threadIdx.x;
    let j = blockIdx.x * sPencils + threadIdx.y;
    let k = blockIdx.y;
    let si = i + 4u;        // local i for shared memory access + halo offset
    let sj = threadIdx.y;   // local j for shared memory access

    let globalIdx = k * mx * my + j * mx + i;

    s_f[sj][si] = f[globalIdx];

    workgroupBarrier();

    // fill in periodic images in shared memory array
    if (i < 4u) {
        s_f[sj][si - 4u] = s_f[sj][si + mx - 5u];
        s_f[sj][si + mx] = s_f[sj][si + 1u];
    }

    workgroupBarrier();

    df[globalIdx] =
        ( c_ax * ( s_f[sj][si + 1u] - s_f[sj][si - 1u] )
        + c_bx * ( s_f[sj][si + 2u] - s_f[sj][si - 2u] )
        + c_cx * ( s_f[sj][si + 3u] - s_f[sj][si - 3u] )
        + c_dx * ( s_f[sj][si + 4u] - s_f[sj][si - 4u] ) );
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
            "s_f[sj][si-4]  = s_f[sj][si+mx-5];",
            "s_f[sj][si-4]  = s_f[sj][si+mx-4];",
        ),
        "CUDA: right image from the point itself": (
            "cuda",
            "s_f[sj][si+mx] = s_f[sj][si+1];",
            "s_f[sj][si+mx] = s_f[sj][si];",
        ),
        "CUDA: no barrier before the images are filled": (
            "cuda",
            "  s_f[sj][si] = f[globalIdx];\n\n  __syncthreads();\n",
            "  s_f[sj][si] = f[globalIdx];\n\n",
        ),
        "CUDA: c_bx and c_cx swapped": (
            "cuda",
            "+ c_bx * ( s_f[sj][si+2] - s_f[sj][si-2] )\n    + c_cx",
            "+ c_cx * ( s_f[sj][si+2] - s_f[sj][si-2] )\n    + c_bx",
        ),
        "left image of period mx, not mx-1": (
            "wgsl",
            "s_f[sj][si - 4u] = s_f[sj][si + mx - 5u];",
            "s_f[sj][si - 4u] = s_f[sj][si + mx - 4u];",
        ),
        "right image from the point itself": (
            "wgsl",
            "s_f[sj][si + mx] = s_f[sj][si + 1u];",
            "s_f[sj][si + mx] = s_f[sj][si];",
        ),
        "no barrier before the images are filled": (
            "wgsl",
            "    s_f[sj][si] = f[globalIdx];\n\n    workgroupBarrier();\n",
            "    s_f[sj][si] = f[globalIdx];\n\n",
        ),
        "c_bx and c_cx swapped": (
            "wgsl",
            "+ c_bx * ( s_f[sj][si + 2u] - s_f[sj][si - 2u] )\n        + c_cx",
            "+ c_cx * ( s_f[sj][si + 2u] - s_f[sj][si - 2u] )\n        + c_bx",
        ),
        "pencil row from the block's x extent": (
            "wgsl",
            "let j = blockIdx.x * sPencils + threadIdx.y;",
            "let j = blockIdx.x * mx + threadIdx.y;",
        ),
    },
)


# -- "Using Shared Memory in CUDA C/C++": staticReverse and dynamicReverse --------------------

_REVERSE_CUDA = r"""
// Mark Harris, "Using Shared Memory in CUDA C/C++" (NVIDIA Developer Blog):
// NVIDIA-developer-blog/code-samples, series/cuda-cpp/shared-memory/shared-memory.cu, the
// kernels as written; main launches, for n = 64,
//   staticReverse<<<1,n>>>(d_d, n);
//   dynamicReverse<<<1,n,n*sizeof(int)>>>(d_d, n);
#include <stdio.h>

__global__ void staticReverse(int *d, int n)
{
  __shared__ int s[64];
  int t = threadIdx.x;
  int tr = n-t-1;
  s[t] = d[t];
  __syncthreads();
  d[t] = s[tr];
}

__global__ void dynamicReverse(int *d, int n)
{
  extern __shared__ int s[];
  int t = threadIdx.x;
  int tr = n-t-1;
  s[t] = d[t];
  __syncthreads();
  d[t] = s[tr];
}
"""

_STATIC_REVERSE_WGSL = """
// a WebGPU port of the post's staticReverse: one workgroup of n invocations (n an
// override, the launch's blockDim)
@group(0) @binding(0) var<storage, read_write> d: array<i32>;
override n: u32;

var<workgroup> s: array<i32, 64>;

@compute @workgroup_size(n)
fn staticReverse(@builtin(local_invocation_index) t: u32) {
    let tr = n - t - 1u;
    s[t] = d[t];
    workgroupBarrier();
    d[t] = s[tr];
}
"""

_DYNAMIC_REVERSE_WGSL = """
// a WebGPU port of the post's dynamicReverse: WGSL's nearest to an extern __shared__
// array sized at launch is a workgroup array sized by an override (n, what the launch's
// n*sizeof(int) bytes hold)
@group(0) @binding(0) var<storage, read_write> d: array<i32>;
override n: u32;

var<workgroup> s: array<i32, n>;

@compute @workgroup_size(n)
fn dynamicReverse(@builtin(local_invocation_index) t: u32) {
    let tr = n - t - 1u;
    s[t] = d[t];
    workgroupBarrier();
    d[t] = s[tr];
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
            "  s[t] = d[t];\n  __syncthreads();\n  d[t] = s[tr];\n}\n\n__global__ void dynamicReverse",
            "  s[t] = d[t];\n  d[t] = s[tr];\n}\n\n__global__ void dynamicReverse",
        ),
        "CUDA: tr one past the mirror": ("cuda", "int tr = n-t-1;", "int tr = n-t;"),
        "no barrier between the copy and the reversed read": (
            "wgsl",
            "    workgroupBarrier();\n",
            "",
        ),
        "tr one past the mirror": ("wgsl", "let tr = n - t - 1u;", "let tr = n - t;"),
        "mirrored about 64, not n": ("wgsl", "let tr = n - t - 1u;", "let tr = 64u - t - 1u;"),
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
            "  extern __shared__ int s[];\n  int t = threadIdx.x;\n  int tr = n-t-1;\n  s[t] = d[t];\n  __syncthreads();\n",
            "  extern __shared__ int s[];\n  int t = threadIdx.x;\n  int tr = n-t-1;\n  s[t] = d[t];\n",
        ),
        "CUDA: reads its own element back": (
            "cuda",
            "  extern __shared__ int s[];\n  int t = threadIdx.x;\n  int tr = n-t-1;\n  s[t] = d[t];\n  __syncthreads();\n  d[t] = s[tr];",
            "  extern __shared__ int s[];\n  int t = threadIdx.x;\n  int tr = n-t-1;\n  s[t] = d[t];\n  __syncthreads();\n  d[t] = s[t];",
        ),
        "no barrier between the copy and the reversed read": (
            "wgsl",
            "    workgroupBarrier();\n",
            "",
        ),
        "reads its own element back": ("wgsl", "d[t] = s[tr];", "d[t] = s[t];"),
        "copies the reversed element in": (
            "wgsl",
            "s[t] = d[t];",
            "s[t] = d[tr];",
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
