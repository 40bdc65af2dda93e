"""Round 61 of kernels from the wild, merged into ``tests.wild.CORPUS``: tensor-core CUDA
as people write it (WMMA on half, bf16 and TF32 fragments, a half accumulator) and an
asynchronous-copy pipeline, each written for this corpus after the public source named
below: read, not copied (the project's rule for public code). What is theirs is kept:
each ``__global__`` function's name and parameters (names, types, order), the fragment
shapes, layouts and element types, the leading dimensions, the K loop and its bounds
test, the launch geometry the host code gives, the numerics (what is multiplied in
which precision and accumulated in which), and every real bug of the original (named
with each, or made a mutant where it makes the original wrong). What is ours: the
comments, the locals' names where the source's say nothing, the order of equivalent
statements and the formatting.

- NVIDIA's "Programming Tensor Cores in CUDA 9" (NVIDIA-developer-blog/code-samples at
  848a041b, BSD-3-Clause, ``posts/tensor-cores/simpleTensorCoreGEMM.cu``):
  ``wmma_example(half *a, half *b, float *c, int M, int N, int K, float alpha, float
  beta)``, every matrix column-major (``lda = M``, ``ldb = K``, ``ldc = M``), one warp a
  16 x 16 tile of C counted along M over x and along N over y, the bounds test inside
  the K loop, half fragments into a float accumulator, C loaded, scaled and stored in
  place; a 128 x 4 block of 16 warps a 64 x 64 tile, alpha = beta = 2 as its host
  passes them. (Round 16 took the same post's kernel to TF32 and row-major; this is it
  as the post runs it.)
- cuda-samples' ``simple_wmma_tf32gemm`` (NVIDIA/cuda-samples at 2e41896e,
  BSD-3-Clause, ``Samples/3_CUDA_Features/tf32TensorCoreGemm/tf32TensorCoreGemm.cu``):
  A row-major, B column-major (``lda = ldb = k_ld``, ``ldc = n_ld``), float fragments
  of ``precision::tf32`` each element rounded by ``wmma::__float_to_tf32`` before
  ``mma_sync``, K in steps of 8, ``d = alpha * acc + beta * c`` stored row-major in a
  buffer of its own; alpha = 1.1, beta = 1.2 as its host passes them.
- cuda-samples' ``simple_wmma_bf16gemm`` (the same commit and licence,
  ``Samples/3_CUDA_Features/bf16TensorCoreGemm/bf16TensorCoreGemm.cu``): the same
  kernel on ``__nv_bfloat16`` fragments, K in steps of 16. Its real bug: B's tile is
  addressed with row and column swapped (``bCol = i; bRow = warpN * N``, so the tile
  starts at ``b + warpN * 16 + i * K`` and the bounds test compares the tile's N offset
  with K), which the sample never sees (its CPU check is compiled out, and the kernel
  runs only where shared memory is short). The TF32 sample has the fix (the swapped
  lines commented out above the right ones); the original here has it, and the bug as
  the bf16 sample writes it is a mutant.
- Bruce-Lee-LY's cuda_hgemm ``wmmaNaiveKernel`` (Bruce-Lee-LY/cuda_hgemm at 0d26c2e4,
  MIT, ``src/wmma/wmma_naive.cu``): an HGEMM, A M x K row-major, B given N x K
  (column-major K x N), C half, one warp a 16 x 16 tile, ``size_t`` dimensions, and
  the accumulator fragment in half: the sums are half by design (cuBLAS's HGEMM, which
  the repository compares with, also computes in half). The reference says so: it
  rounds the accumulator to half after each 16-deep K step, as the tensor core does
  (the README's "Checking kernels": a half accumulator). Its early return tests
  ``warp_row >= M && warp_col >= N`` (with ``||`` meant); the grid it launches has no
  warp past both, so it is harmless, and kept.
- cuda-samples' ``MatrixMulAsyncCopyMultiStage`` (NVIDIA/cuda-samples at 306af8d2,
  BSD-3-Clause,
  ``Samples/3_CUDA_Features/globalToShmemAsyncCopy/globalToShmemAsyncCopy.cu``): a
  float matrix product of 16 x 16 tiles staged through a 4-stage ``cuda::pipeline``
  (``thread_scope_thread``; ``cuda::memcpy_async`` of one float a thread, which is
  ``cp.async`` on sm_80 and later), ``producer_acquire``/``producer_commit`` ahead of
  the consumer, ``consumer_wait``, ``__syncthreads()`` and ``consumer_release``;
  ``C = A B`` with A ``hA x wA`` and B ``wA x wB``, row-major, ``(C, A, B, wA, wB)``.
  Its real bugs, two races: the copies run one tile past the stages ahead
  (``aStage <= a + aStep * maxPipelineStages`` issues tiles i to i + 4 into 4 stages,
  so tile i + 4 is copied over the stage tile i is read from), and there is no barrier
  after the product (the sample's comment: the next iteration loads another stage; it
  loads the one just read, which a slower thread may still be reading). The sample
  fills A with 1.0 and B with 0.01, where every tile is the same and neither shows.
  The original here issues tiles i to i + 3 and has the barrier; the sample's form is
  a mutant (a race: where its values pass on the GPU, compute-sanitizer must find it).
- alexarmbr's matmul-playground ``tensorcore_naive_sgemm`` (alexarmbr/matmul-playground
  at 1539c44c, no licence file in the repository's listing,
  ``src/kernels/fp16/tensorcore_naive.cuh``, launched as ``src/runner.cu`` launches it):
  the problem compiled in (``#define N 128``, ``M 256``, ``K 64``), blocks of 4 x 2
  warps, each a 16 x 16 tile, A and B half row-major, a float accumulator, then an
  epilogue that takes ``beta`` to half and ``beta_ * c_frag.x[i]`` in half before the
  float sum is stored into the half fragment, D half; alpha = 0.3, beta = 0.7 as its
  host sets them. (Its host check multiplies in half, and its result is discarded.)

Two WebGPU ports: the multistage matmul as a ring of 4 workgroup stages filled by
ordinary loads (WGSL has no asynchronous copy; lavapipe and SwiftShader), and
tensorcore_naive_sgemm's numerics on f16 SIMT, f32 sums and the f16 epilogue (lavapipe:
SwiftShader has no shader-f16); each with mutants of its own.

What they showed is pinned in tests/test_wild_round61.py and summed up there.
"""

# ruff: noqa: E501  (long lines of CUDA, and the mutants')

from __future__ import annotations

import numpy as np

from forge import BufferSpec, KernelSpec, Schedule, ceil_div

from . import Wild

# -- 1. NVIDIA's blog: wmma_example, half fragments, everything column-major ------------

_BLOG_WMMA = r"""// kernel-forge corpus: wmma_example after NVIDIA's "Programming Tensor Cores in CUDA 9" (read, not copied).
#include <mma.h>
using namespace nvcuda;

// WMMA's one shape for half operands
const int WMMA_M = 16;
const int WMMA_N = 16;
const int WMMA_K = 16;

// C = alpha * A * B + beta * C for column-major A (M x K), B (K x N) and C (M x N), the
// three dimensions multiples of 16. A warp owns one 16 x 16 tile of C: warps count
// along M over x, along N over y.
__global__ void wmma_example(half *a, half *b, float *c, int M, int N, int K, float alpha, float beta) {
    // packed, nothing transposed: a column is as long as the matrix is tall
    int lda = M;
    int ldb = K;
    int ldc = M;

    int warpM = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;
    int warpN = (blockIdx.y * blockDim.y + threadIdx.y);

    wmma::fragment<wmma::matrix_a, WMMA_M, WMMA_N, WMMA_K, half, wmma::col_major> a_frag;
    wmma::fragment<wmma::matrix_b, WMMA_M, WMMA_N, WMMA_K, half, wmma::col_major> b_frag;
    wmma::fragment<wmma::accumulator, WMMA_M, WMMA_N, WMMA_K, float> acc_frag;
    wmma::fragment<wmma::accumulator, WMMA_M, WMMA_N, WMMA_K, float> c_frag;

    wmma::fill_fragment(acc_frag, 0.0f);

    for (int i = 0; i < K; i += WMMA_K) {
        int aRow = warpM * WMMA_M;  // the A tile: this warp's rows, K columns from i
        int aCol = i;
        int bRow = i;               // the B tile: K rows from i, this warp's columns
        int bCol = warpN * WMMA_N;

        // a warp past the matrix loads nothing (its tile is never stored either)
        if (aRow < M && aCol < K && bRow < K && bCol < N) {
            wmma::load_matrix_sync(a_frag, a + aRow + aCol * lda, lda);
            wmma::load_matrix_sync(b_frag, b + bRow + bCol * ldb, ldb);
            wmma::mma_sync(acc_frag, a_frag, b_frag, acc_frag);
        }
    }

    // read C's tile, then write alpha * AB + beta * C over it
    int cRow = warpM * WMMA_M;
    int cCol = warpN * WMMA_N;
    if (cRow < M && cCol < N) {
        wmma::load_matrix_sync(c_frag, c + cRow + cCol * ldc, ldc, wmma::mem_col_major);
        for (int e = 0; e < c_frag.num_elements; e++) {
            c_frag.x[e] = alpha * acc_frag.x[e] + beta * c_frag.x[e];
        }
        wmma::store_matrix_sync(c + cRow + cCol * ldc, c_frag, ldc, wmma::mem_col_major);
    }
}
"""


#: from the accumulator's declaration to its last read
_BLOG_ACCUMULATION = _BLOG_WMMA[
    _BLOG_WMMA.index("WMMA_K, float> acc_frag;") : _BLOG_WMMA.index(" + beta * c_frag.x[e];")
]


def _column_major_gemm(a, b, c, dims):
    """alpha * A @ B + beta * C, every matrix stored column-major (a column contiguous)."""
    M, N, K = (int(dims[f]) for f in ("M", "N", "K"))
    alpha, beta = float(dims["alpha"]), float(dims["beta"])
    A = a.reshape(K, M).T.astype(np.float64)
    B = b.reshape(N, K).T.astype(np.float64)
    C = c.reshape(N, M).T.astype(np.float64)
    c[:] = (alpha * (A @ B) + beta * C).T.reshape(-1)


BLOG_WMMA = Wild(
    KernelSpec(
        id="wild_r61_nvidia_blog_wmma_example_half_col_major_alpha_beta",
        entry_point="wmma_example",
        sources={"cuda": _BLOG_WMMA},
        dims=("M", "N", "K"),
        buffers=(
            BufferSpec(0, "f16", "read", name="a", count="M*K"),
            BufferSpec(1, "f16", "read", name="b", count="K*N"),
            BufferSpec(2, "f32", "read_write", name="c", count="M*N", inout=True),
            BufferSpec.uniform(
                3,
                (("M", "i32"), ("N", "i32"), ("K", "i32"), ("alpha", "f32"), ("beta", "f32")),
                name="dims",
            ),
        ),
        reference=_column_major_gemm,
        params=lambda size: {"M": size.M, "N": size.N, "K": size.K, "alpha": 2.0, "beta": 2.0},
        # blockDim 128 x 4: 16 warps, a 64 x 64 tile of C a block
        grid=lambda s, size: (ceil_div(size.M, 64), ceil_div(size.N, 64), 1),
        schedules=(Schedule((128, 4)),),
        nonfinite_inputs=False,
        test_sizes=("M=80,N=48,K=272", "M=16,N=16,K=16", "M=144,N=112,K=1024"),
    ),
    {
        "the K loop stops one tile short": (
            "cuda",
            "for (int i = 0; i < K; i += WMMA_K) {",
            "for (int i = 0; i < K - WMMA_K; i += WMMA_K) {",
        ),
        "B's fragment read row-major": (
            "cuda",
            "half, wmma::col_major> b_frag;",
            "half, wmma::row_major> b_frag;",
        ),
        "C's leading dimension taken as N": ("cuda", "int ldc = M;", "int ldc = N;"),
        # the accumulator's elements then need a conversion to mix with float scalars
        # (``float * __half`` is ambiguous in cuda_fp16.h), which the author adds
        "the products accumulated in half": (
            "cuda",
            _BLOG_ACCUMULATION,
            _BLOG_ACCUMULATION.replace(
                "WMMA_K, float> acc_frag;", "WMMA_K, half> acc_frag;"
            ).replace("alpha * acc_frag.x[e]", "alpha * __half2float(acc_frag.x[e])"),
        ),
    },
)


# -- 2. cuda-samples: simple_wmma_tf32gemm, A row-major, B column-major, D apart ---------

_TF32_SIMPLE = r"""// kernel-forge corpus: simple_wmma_tf32gemm after cuda-samples' tf32TensorCoreGemm (read, not copied).
#include <mma.h>
using namespace nvcuda;

// TF32 fragments are 16 x 16 x 8
#define M 16
#define N 16
#define K 8

// D = alpha * A * B + beta * C: A row-major m_ld x k_ld, B column-major k_ld x n_ld,
// C and D row-major m_ld x n_ld; the dimensions multiples of 16, 16 and 8. A warp owns
// one 16 x 16 tile of D.
__global__ void simple_wmma_tf32gemm(float *a, float *b, float *c, float *d, int m_ld, int n_ld, int k_ld, float alpha, float beta) {
#if __CUDA_ARCH__ >= 800
    int lda = k_ld;  // a row of A and a column of B each hold K elements
    int ldb = k_ld;
    int ldc = n_ld;

    int warpM = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;
    int warpN = (blockIdx.y * blockDim.y + threadIdx.y);

    wmma::fragment<wmma::matrix_a, M, N, K, wmma::precision::tf32, wmma::row_major> a_frag;
    wmma::fragment<wmma::matrix_b, M, N, K, wmma::precision::tf32, wmma::col_major> b_frag;
    wmma::fragment<wmma::accumulator, M, N, K, float> acc_frag;
    wmma::fragment<wmma::accumulator, M, N, K, float> c_frag;

    wmma::fill_fragment(acc_frag, 0.0f);

    for (int i = 0; i < k_ld; i += K) {
        int aRow = warpM * M;
        int aCol = i;
        int bRow = i;
        int bCol = warpN * N;

        if (aRow < m_ld && aCol < k_ld && bRow < k_ld && bCol < n_ld) {
            wmma::load_matrix_sync(a_frag, a + aCol + aRow * lda, lda);
            wmma::load_matrix_sync(b_frag, b + bRow + bCol * ldb, ldb);
            // the fragments hold float32 as loaded: round each to TF32 first
#pragma unroll
            for (int t = 0; t < a_frag.num_elements; t++) {
                a_frag.x[t] = wmma::__float_to_tf32(a_frag.x[t]);
            }
#pragma unroll
            for (int t = 0; t < b_frag.num_elements; t++) {
                b_frag.x[t] = wmma::__float_to_tf32(b_frag.x[t]);
            }
            wmma::mma_sync(acc_frag, a_frag, b_frag, acc_frag);
        }
    }

    int cRow = warpM * M;
    int cCol = warpN * N;
    if (cRow < m_ld && cCol < n_ld) {
        wmma::load_matrix_sync(c_frag, c + cCol + cRow * ldc, ldc, wmma::mem_row_major);
        for (int e = 0; e < c_frag.num_elements; e++) {
            c_frag.x[e] = alpha * acc_frag.x[e] + beta * c_frag.x[e];
        }
        wmma::store_matrix_sync(d + cCol + cRow * ldc, c_frag, ldc, wmma::mem_row_major);
    }
#endif
}
"""


def _row_col_gemm(a, b, c, d, p):
    """D = alpha * A @ B + beta * C: A row-major (m x k), B column-major (stored n x k)."""
    m, n, k = (int(p[f]) for f in ("m_ld", "n_ld", "k_ld"))
    alpha, beta = float(p["alpha"]), float(p["beta"])
    A = a.reshape(m, k).astype(np.float64)
    B = b.reshape(n, k).T.astype(np.float64)
    d[:] = (alpha * (A @ B) + beta * c.reshape(m, n).astype(np.float64)).reshape(-1)


def _row_col_params(alpha: float, beta: float):
    return lambda size: {
        "m_ld": size.M,
        "n_ld": size.N,
        "k_ld": size.K,
        "alpha": alpha,
        "beta": beta,
    }


def _row_col_buffers(operand: str) -> tuple[BufferSpec, ...]:
    return (
        BufferSpec(0, operand, "read", name="a", count="M*K"),
        BufferSpec(1, operand, "read", name="b", count="N*K"),
        BufferSpec(2, "f32", "read", name="c", count="M*N"),
        BufferSpec(3, "f32", "read_write", name="d", count="M*N"),
        BufferSpec.uniform(
            4,
            (
                ("m_ld", "i32"),
                ("n_ld", "i32"),
                ("k_ld", "i32"),
                ("alpha", "f32"),
                ("beta", "f32"),
            ),
            name="p",
        ),
    )


TF32_SIMPLE = Wild(
    KernelSpec(
        id="wild_r61_cuda_samples_simple_wmma_tf32gemm_row_col",
        entry_point="simple_wmma_tf32gemm",
        sources={"cuda": _TF32_SIMPLE},
        dims=("M", "N", "K"),
        buffers=_row_col_buffers("f32"),
        reference=_row_col_gemm,
        params=_row_col_params(1.1, 1.2),
        # blockDim 128 x 4, as the sample launches it where shared memory is short
        grid=lambda s, size: (ceil_div(size.M, 64), ceil_div(size.N, 64), 1),
        schedules=(Schedule((128, 4)),),
        nonfinite_inputs=False,
        test_sizes=("M=80,N=48,K=264", "M=16,N=16,K=8", "M=144,N=112,K=1024"),
    ),
    {
        "the K loop stops one step short": (
            "cuda",
            "for (int i = 0; i < k_ld; i += K) {",
            "for (int i = 0; i + K < k_ld; i += K) {",
        ),
        "B's fragment read row-major": (
            "cuda",
            "wmma::precision::tf32, wmma::col_major> b_frag;",
            "wmma::precision::tf32, wmma::row_major> b_frag;",
        ),
        "D stored column-major": (
            "cuda",
            "wmma::store_matrix_sync(d + cCol + cRow * ldc, c_frag, ldc, wmma::mem_row_major);",
            "wmma::store_matrix_sync(d + cCol + cRow * ldc, c_frag, ldc, wmma::mem_col_major);",
        ),
        "C's leading dimension taken as m_ld": ("cuda", "int ldc = n_ld;", "int ldc = m_ld;"),
    },
)


# -- 3. cuda-samples: simple_wmma_bf16gemm, its B offsets as the TF32 sample fixed them ---

_BF16_SIMPLE = r"""// kernel-forge corpus: simple_wmma_bf16gemm after cuda-samples' bf16TensorCoreGemm (read, not copied).
#include <mma.h>
#include <cuda_bf16.h>
using namespace nvcuda;

// bf16 fragments are 16 x 16 x 16
#define M 16
#define N 16
#define K 16

// D = alpha * A * B + beta * C: A row-major m_ld x k_ld, B column-major k_ld x n_ld
// (both bf16), C and D float row-major m_ld x n_ld; every dimension a multiple of 16.
__global__ void simple_wmma_bf16gemm(__nv_bfloat16 *a, __nv_bfloat16 *b, float *c, float *d, int m_ld, int n_ld, int k_ld, float alpha, float beta) {
#if __CUDA_ARCH__ >= 800
    int lda = k_ld;
    int ldb = k_ld;
    int ldc = n_ld;

    int warpM = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;
    int warpN = (blockIdx.y * blockDim.y + threadIdx.y);

    wmma::fragment<wmma::matrix_a, M, N, K, __nv_bfloat16, wmma::row_major> a_frag;
    wmma::fragment<wmma::matrix_b, M, N, K, __nv_bfloat16, wmma::col_major> b_frag;
    wmma::fragment<wmma::accumulator, M, N, K, float> acc_frag;
    wmma::fragment<wmma::accumulator, M, N, K, float> c_frag;

    wmma::fill_fragment(acc_frag, 0.0f);

    for (int i = 0; i < k_ld; i += K) {
        int aCol = i;
        int aRow = warpM * M;
        int bCol = warpN * N;  // B's tile: K rows from i of this warp's 16 columns
        int bRow = i;

        if (aRow < m_ld && aCol < k_ld && bRow < k_ld && bCol < n_ld) {
            wmma::load_matrix_sync(a_frag, a + aCol + aRow * lda, lda);
            wmma::load_matrix_sync(b_frag, b + bRow + bCol * ldb, ldb);
            wmma::mma_sync(acc_frag, a_frag, b_frag, acc_frag);
        }
    }

    int cCol = warpN * N;
    int cRow = warpM * M;
    if (cRow < m_ld && cCol < n_ld) {
        wmma::load_matrix_sync(c_frag, c + cCol + cRow * ldc, ldc, wmma::mem_row_major);
        for (int e = 0; e < c_frag.num_elements; e++) {
            c_frag.x[e] = alpha * acc_frag.x[e] + beta * c_frag.x[e];
        }
        wmma::store_matrix_sync(d + cCol + cRow * ldc, c_frag, ldc, wmma::mem_row_major);
    }
#endif
}
"""

BF16_SIMPLE = Wild(
    KernelSpec(
        id="wild_r61_cuda_samples_simple_wmma_bf16gemm_row_col",
        entry_point="simple_wmma_bf16gemm",
        sources={"cuda": _BF16_SIMPLE},
        dims=("M", "N", "K"),
        buffers=_row_col_buffers("bf16"),
        reference=_row_col_gemm,
        params=_row_col_params(1.1, 1.2),
        grid=lambda s, size: (ceil_div(size.M, 64), ceil_div(size.N, 64), 1),
        schedules=(Schedule((128, 4)),),
        nonfinite_inputs=False,
        test_sizes=("M=80,N=48,K=272", "M=16,N=16,K=16", "M=144,N=112,K=2048"),
    ),
    {
        "B's tile addressed as the bf16 sample writes it (row and column swapped)": (
            "cuda",
            "int bCol = warpN * N;  // B's tile: K rows from i of this warp's 16 columns\n        int bRow = i;",
            "int bCol = i;\n        int bRow = warpN * N;",
        ),
        "the K loop stops one step short": (
            "cuda",
            "for (int i = 0; i < k_ld; i += K) {",
            "for (int i = 0; i + K < k_ld; i += K) {",
        ),
        "alpha and beta swapped": (
            "cuda",
            "c_frag.x[e] = alpha * acc_frag.x[e] + beta * c_frag.x[e];",
            "c_frag.x[e] = beta * acc_frag.x[e] + alpha * c_frag.x[e];",
        ),
    },
)


# -- 4. cuda_hgemm: wmmaNaiveKernel, a half accumulator by design ------------------------

_HGEMM_WMMA_NAIVE = r"""// kernel-forge corpus: wmmaNaiveKernel after Bruce-Lee-LY's cuda_hgemm (read, not copied).
#include <mma.h>
#include <cuda_fp16.h>

#define WMMA_M 16
#define WMMA_N 16
#define WMMA_K 16

#define WARP_SIZE 32

#define div_ceil(a, b) (((a) + (b) - 1) / (b))

using namespace nvcuda;

// C (M x N, row-major, half) = A (M x K, row-major) B, with B given N x K (column-major
// K x N); a warp a block, one 16 x 16 tile of C, summed in half as an HGEMM does.
__global__ void wmmaNaiveKernel(const half *__restrict__ A, const half *__restrict__ B, half *__restrict__ C, size_t M,
                                size_t N, size_t K) {
    const size_t K_tiles = div_ceil(K, WMMA_K);

    const size_t warp_row = blockIdx.y * WMMA_M;
    const size_t warp_col = blockIdx.x * WMMA_N;

    if (warp_row >= M && warp_col >= N) {
        return;
    }

    wmma::fragment<wmma::accumulator, WMMA_M, WMMA_N, WMMA_K, half> C_frag;
    wmma::fill_fragment(C_frag, 0.0);

#pragma unroll
    for (size_t i = 0; i < K_tiles; ++i) {
        wmma::fragment<wmma::matrix_a, WMMA_M, WMMA_N, WMMA_K, half, wmma::row_major> A_frag;
        wmma::fragment<wmma::matrix_b, WMMA_M, WMMA_N, WMMA_K, half, wmma::col_major> B_frag;

        // the K step's 16 columns of this warp's rows of A, and of its columns of B
        wmma::load_matrix_sync(A_frag, A + warp_row * K + i * WMMA_K, K);
        wmma::load_matrix_sync(B_frag, B + warp_col * K + i * WMMA_K, K);

        wmma::mma_sync(C_frag, A_frag, B_frag, C_frag);
    }

    wmma::store_matrix_sync(C + warp_row * N + warp_col, C_frag, N, wmma::mem_row_major);
}
"""

#: the depth of one ``mma_sync`` of half fragments: the accumulator is rounded to half
#: after each
_HGEMM_K_STEP = 16


def _hgemm_reference(A, B, C):
    """A @ B.T summed as the kernel sums it: each 16-deep K step's products added to the
    half accumulator and the sum rounded to half (the tensor core's step: its products
    are exact and summed wide, the result rounded to the accumulator's type)."""
    acc = np.zeros(C.shape, np.float16)
    for k0 in range(0, A.shape[1], _HGEMM_K_STEP):
        step = (
            A[:, k0 : k0 + _HGEMM_K_STEP].astype(np.float64)
            @ B[:, k0 : k0 + _HGEMM_K_STEP].astype(np.float64).T
        )
        acc = (acc.astype(np.float64) + step).astype(np.float16)
    C[...] = acc


HGEMM_WMMA_NAIVE = Wild(
    KernelSpec(
        id="wild_r61_cuda_hgemm_wmma_naive_half_accumulator",
        entry_point="wmmaNaiveKernel",
        sources={"cuda": _HGEMM_WMMA_NAIVE},
        dims=("M", "N", "K"),
        buffers=(
            BufferSpec(0, "f16", "read", name="A", count="M*K", shape=("M", "K"), fill=(-1.0, 1.0)),
            BufferSpec(1, "f16", "read", name="B", count="N*K", shape=("N", "K"), fill=(-1.0, 1.0)),
            BufferSpec(2, "f16", "read_write", name="C", count="M*N", shape=("M", "N")),
            BufferSpec.uniform(3, (("M", "u64"), ("N", "u64"), ("K", "u64")), name="p"),
        ),
        reference=_hgemm_reference,
        params=lambda size: {"M": size.M, "N": size.N, "K": size.K},
        # dim3 block(WARP_SIZE); dim3 grid(div_ceil(N, WMMA_N), div_ceil(M, WMMA_M))
        grid=lambda s, size: (ceil_div(size.N, 16), ceil_div(size.M, 16), 1),
        schedules=(Schedule(32),),
        nonfinite_inputs=False,
        test_sizes=("M=80,N=48,K=256", "M=16,N=16,K=16", "M=48,N=112,K=1024"),
    ),
    {
        "the last K tile left out": (
            "cuda",
            "for (size_t i = 0; i < K_tiles; ++i) {",
            "for (size_t i = 0; i + 1 < K_tiles; ++i) {",
        ),
        "B's fragment read row-major": (
            "cuda",
            "half, wmma::col_major> B_frag;",
            "half, wmma::row_major> B_frag;",
        ),
        "C stored with M as its leading dimension": (
            "cuda",
            "wmma::store_matrix_sync(C + warp_row * N + warp_col, C_frag, N, wmma::mem_row_major);",
            "wmma::store_matrix_sync(C + warp_row * N + warp_col, C_frag, M, wmma::mem_row_major);",
        ),
    },
)


# -- 5. cuda-samples: MatrixMulAsyncCopyMultiStage, a 4-stage cuda::pipeline ------------

_ASYNC_MULTISTAGE = r"""// kernel-forge corpus: MatrixMulAsyncCopyMultiStage after cuda-samples' globalToShmemAsyncCopy (read, not copied).
#include <cuda/pipeline>

// C = A * B, row-major: A is hA x wA, B is wA x wB, C is hA x wB, each side a multiple of
// the block. A block of BLOCK_SIZE x BLOCK_SIZE threads computes one tile of C; the
// tiles of A and B it reads go through shared memory by asynchronous copies, up to
// maxPipelineStages tiles ahead of the product.
template <int BLOCK_SIZE>
__global__ void MatrixMulAsyncCopyMultiStage(float *__restrict__ C, const float *__restrict__ A,
                                             const float *__restrict__ B, int wA, int wB) {
    constexpr size_t maxPipelineStages = 4;

    // one tile of A and one of B per stage
    __shared__ float As[maxPipelineStages][BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float Bs[maxPipelineStages][BLOCK_SIZE][BLOCK_SIZE];

    float Csub = 0.0;

    // A's tiles run along this block's rows, from aBegin to aEnd in steps of aStep;
    // B's down this block's columns in steps of bStep
    const int aBegin = wA * BLOCK_SIZE * blockIdx.y;
    const int aEnd = aBegin + wA - 1;
    int aStep = BLOCK_SIZE;
    const int bBegin = BLOCK_SIZE * blockIdx.x;
    int bStep = BLOCK_SIZE * wB;

    cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
    const auto shape1 = cuda::aligned_size_t<alignof(float)>(sizeof(float));

    for (int a = aBegin, b = bBegin, i = 0, aStage = aBegin, bStage = bBegin, iStage = 0; a <= aEnd;
         a += aStep, b += bStep, ++i) {
        // issue the copies of every tile fewer than maxPipelineStages ahead of this one,
        // each thread one element of each, into the stage its index rotates to
        for (; aStage < a + aStep * maxPipelineStages; aStage += aStep, bStage += bStep, ++iStage) {
            if (aStage <= aEnd) {
                const int j = iStage % maxPipelineStages;
                pipe.producer_acquire();
                cuda::memcpy_async(&As[j][threadIdx.y][threadIdx.x], &A[aStage + wA * threadIdx.y + threadIdx.x], shape1,
                                   pipe);
                cuda::memcpy_async(&Bs[j][threadIdx.y][threadIdx.x], &B[bStage + wB * threadIdx.y + threadIdx.x], shape1,
                                   pipe);
                pipe.producer_commit();
            }
        }
        // this thread's oldest batch has landed; the barrier makes everyone's visible
        pipe.consumer_wait();
        __syncthreads();

        const int j = i % maxPipelineStages;
        for (int k = 0; k < BLOCK_SIZE; ++k) {
            Csub += As[j][threadIdx.y][k] * Bs[j][k][threadIdx.x];
        }

        pipe.consumer_release();
        // the next iteration's copy lands in the stage just read
        __syncthreads();
    }

    const int c = wB * BLOCK_SIZE * blockIdx.y + BLOCK_SIZE * blockIdx.x;
    C[c + wB * threadIdx.y + threadIdx.x] = Csub;
}
"""


# The WebGPU port (WGSL has no asynchronous copy): the same ring of 4 stages in
# workgroup memory, filled up to 3 tiles ahead by ordinary loads, a barrier before the
# product and one after it.
_ASYNC_MULTISTAGE_WGSL = """
struct Params { hA: i32, wA: i32, wB: i32 }
@group(0) @binding(0) var<storage, read_write> C: array<f32>;
@group(0) @binding(1) var<storage, read> A: array<f32>;
@group(0) @binding(2) var<storage, read> B: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;

const BLOCK_SIZE = 16u;
const maxPipelineStages = 4u;

var<workgroup> As: array<array<array<f32, 16>, 16>, 4>;
var<workgroup> Bs: array<array<array<f32, 16>, 16>, 4>;

@compute @workgroup_size(16, 16)
fn MatrixMulAsyncCopyMultiStage(@builtin(workgroup_id) wg: vec3<u32>,
                                @builtin(local_invocation_id) lid: vec3<u32>) {
    let wA = u32(p.wA);
    let wB = u32(p.wB);
    let aBegin = wA * BLOCK_SIZE * wg.y;
    let aEnd = aBegin + wA - 1u;
    let aStep = BLOCK_SIZE;
    let bBegin = BLOCK_SIZE * wg.x;
    let bStep = BLOCK_SIZE * wB;

    var Csub = 0.0;
    var aStage = aBegin;
    var bStage = bBegin;
    var iStage = 0u;
    var i = 0u;
    for (var a = aBegin; a <= aEnd; a += aStep) {
        // fill the stages up to maxPipelineStages - 1 tiles past this one
        while (aStage < a + aStep * maxPipelineStages) {
            if (aStage <= aEnd) {
                let j = iStage % maxPipelineStages;
                As[j][lid.y][lid.x] = A[aStage + wA * lid.y + lid.x];
                Bs[j][lid.y][lid.x] = B[bStage + wB * lid.y + lid.x];
            }
            aStage += aStep;
            bStage += bStep;
            iStage += 1u;
        }
        workgroupBarrier();

        let j = i % maxPipelineStages;
        for (var k = 0u; k < BLOCK_SIZE; k++) {
            Csub += As[j][lid.y][k] * Bs[j][k][lid.x];
        }
        // the next iteration's load lands in the stage just read
        workgroupBarrier();
        i += 1u;
    }

    let c = wB * BLOCK_SIZE * wg.y + BLOCK_SIZE * wg.x;
    C[c + wB * lid.y + lid.x] = Csub;
}
"""


#: from the copies' issue to the trailing barrier: where the sample differs
_ASYNC_ISSUE_TO_RELEASE = _ASYNC_MULTISTAGE[
    _ASYNC_MULTISTAGE.index("for (; aStage < a") : _ASYNC_MULTISTAGE.index(
        "        __syncthreads();\n    }\n"
    )
    + len("        __syncthreads();\n")
]


def _matmul_reference(C, A, B, p):
    hA, wA, wB = (int(p[f]) for f in ("hA", "wA", "wB"))
    C[:] = (A.reshape(hA, wA).astype(np.float64) @ B.reshape(wA, wB)).reshape(-1)


ASYNC_MULTISTAGE = Wild(
    KernelSpec(
        id="wild_r61_cuda_samples_matrixmul_async_copy_multistage_pipeline",
        entry_point="MatrixMulAsyncCopyMultiStage<16>",
        sources={"cuda": _ASYNC_MULTISTAGE, "wgsl": _ASYNC_MULTISTAGE_WGSL},
        entry_points={"wgsl": "MatrixMulAsyncCopyMultiStage"},
        dims=("hA", "wA", "wB"),
        buffers=(
            BufferSpec(0, "f32", "read_write", name="C", count="hA*wB"),
            BufferSpec(1, "f32", "read", name="A", count="hA*wA"),
            BufferSpec(2, "f32", "read", name="B", count="wA*wB"),
            BufferSpec.uniform(3, (("hA", "i32"), ("wA", "i32"), ("wB", "i32")), name="p"),
        ),
        reference=_matmul_reference,
        params=lambda size: {"hA": size.hA, "wA": size.wA, "wB": size.wB},
        arguments=("C", "A", "B", "wA", "wB"),
        # dim3 threads(block_size, block_size); dim3 grid(wB / threads.x, hA / threads.y)
        grid=lambda s, size: (size.wB // 16, size.hA // 16, 1),
        schedules=(Schedule((16, 16)),),
        test_sizes=("hA=48,wA=80,wB=32", "hA=16,wA=16,wB=16"),
    ),
    {
        "as the sample writes it: a tile past the stages ahead, no barrier after the product": (
            "cuda",
            _ASYNC_ISSUE_TO_RELEASE,
            _ASYNC_ISSUE_TO_RELEASE.replace(
                "aStage < a + aStep * maxPipelineStages", "aStage <= a + aStep * maxPipelineStages"
            ).replace(
                "        // the next iteration's copy lands in the stage just read\n        __syncthreads();\n",
                "",
            ),
        ),
        "the copies not waited for": ("cuda", "        pipe.consumer_wait();\n", ""),
        "the product reads the stage being filled": (
            "cuda",
            "const int j = i % maxPipelineStages;\n        for",
            "const int j = (i + 1) % maxPipelineStages;\n        for",
        ),
        "the tile loop stops one tile short": (
            "cuda",
            "iStage = 0; a <= aEnd;",
            "iStage = 0; a + aStep <= aEnd;",
        ),
        "the port has no barrier after the product": (
            "wgsl",
            "        // the next iteration's load lands in the stage just read\n        workgroupBarrier();\n",
            "",
        ),
        "the port's product reads the next stage": (
            "wgsl",
            "let j = i % maxPipelineStages;\n        for",
            "let j = (i + 1u) % maxPipelineStages;\n        for",
        ),
        "the port's tile loop stops one tile short": (
            "wgsl",
            "for (var a = aBegin; a <= aEnd; a += aStep) {",
            "for (var a = aBegin; a + aStep <= aEnd; a += aStep) {",
        ),
    },
    races=frozenset(
        {
            "as the sample writes it: a tile past the stages ahead, no barrier after the product",
            "the copies not waited for",
        }
    ),
)


# -- 6. matmul-playground: tensorcore_naive_sgemm, a float accumulator, a half epilogue ---

_PLAYGROUND_NAIVE = r"""// kernel-forge corpus: tensorcore_naive_sgemm after alexarmbr's matmul-playground (read, not copied).
#include <mma.h>
#include <cuda_fp16.h>

// the problem is compiled in
#define N 128
#define M 256
#define K 64

// a block holds 2 x 4 warps, each one 16 x 16 tile of D
#define M_TILES_PER_BLOCK 2
#define N_TILES_PER_BLOCK 4

#define TILE_DIM 16
#define WARP_SIZE 32

using namespace nvcuda;

// D = alpha * A * B + beta * C, every matrix half and row-major: A is M x K, B K x N,
// C and D M x N. The products are summed in float; beta * C is taken in half.
__global__ void tensorcore_naive_sgemm(half* A, half* B, half* C, half* D, float alpha, float beta)
{
  const unsigned int warpIdx = threadIdx.x / WARP_SIZE;
  const unsigned int warpsPerBlock = blockDim.x / WARP_SIZE;
  // warps along x walk N, the y threads walk M, a tile apart
  const unsigned int warpRowIdx = (threadIdx.y + blockIdx.y * blockDim.y) * TILE_DIM;
  const unsigned int warpColIdx = (blockIdx.x * warpsPerBlock + warpIdx) * TILE_DIM;

  wmma::fragment<wmma::matrix_a, TILE_DIM, TILE_DIM, TILE_DIM, half, wmma::row_major> a_frag;
  wmma::fragment<wmma::matrix_b, TILE_DIM, TILE_DIM, TILE_DIM, half, wmma::row_major> b_frag;
  wmma::fragment<wmma::accumulator, TILE_DIM, TILE_DIM, TILE_DIM, half> c_frag;
  wmma::fragment<wmma::accumulator, TILE_DIM, TILE_DIM, TILE_DIM, float> acc_frag;
  wmma::fill_fragment(acc_frag, 0.0f);

  unsigned int k_idx = 0;
  while (k_idx < K)
  {
    // the tiles' first elements, row * stride + column
    const unsigned int A_tile_index = warpRowIdx * K + k_idx;
    const unsigned int B_tile_index = k_idx * N + warpColIdx;
    wmma::load_matrix_sync(a_frag, A + A_tile_index, K);
    wmma::load_matrix_sync(b_frag, B + B_tile_index, N);
    wmma::mma_sync(acc_frag, a_frag, b_frag, acc_frag);
    k_idx += TILE_DIM;
  }

  const unsigned int CD_tile_index = warpRowIdx * N + warpColIdx;
  wmma::load_matrix_sync(c_frag, C + CD_tile_index, N, wmma::mem_row_major);

  // beta in half scales C in half; the sum is float, stored as half
  const half beta_ = (half) beta;
  for (int i = 0; i < c_frag.num_elements; i++)
  {
    c_frag.x[i] = alpha * acc_frag.x[i] + (float) (beta_ * c_frag.x[i]);
  }

  wmma::store_matrix_sync(D + CD_tile_index, c_frag, N, wmma::mem_row_major);
}
"""


# The WebGPU port (f16 where the adapter has shader-f16: lavapipe, not SwiftShader): the
# same blocks of 4 x 2 "warps" of 32 invocations, each warp's 16 x 16 tile of D spread
# over its lanes 8 elements each, the products summed in f32, beta and beta * C in f16.
_PLAYGROUND_NAIVE_WGSL = """
enable f16;

struct Params { alpha: f32, beta: f32 }
@group(0) @binding(0) var<storage, read> A: array<f16>;
@group(0) @binding(1) var<storage, read> B: array<f16>;
@group(0) @binding(2) var<storage, read> C: array<f16>;
@group(0) @binding(3) var<storage, read_write> D: array<f16>;
@group(0) @binding(4) var<uniform> p: Params;

const N = 128u;
const M = 256u;
const K = 64u;
const TILE_DIM = 16u;
const WARP_SIZE = 32u;
alias acc_t = f32;

@compute @workgroup_size(128, 2)
fn tensorcore_naive_sgemm(@builtin(workgroup_id) wg: vec3<u32>,
                          @builtin(local_invocation_id) lid: vec3<u32>) {
    let warpIdx = lid.x / WARP_SIZE;
    let lane = lid.x % WARP_SIZE;
    let warpsPerBlock = 128u / WARP_SIZE;
    let warpRowIdx = (lid.y + wg.y * 2u) * TILE_DIM;
    let warpColIdx = (wg.x * warpsPerBlock + warpIdx) * TILE_DIM;
    let beta_ = f16(p.beta);
    for (var e = lane; e < TILE_DIM * TILE_DIM; e += WARP_SIZE) {
        let row = warpRowIdx + e / TILE_DIM;
        let col = warpColIdx + e % TILE_DIM;
        var acc = acc_t(0.0);
        for (var k = 0u; k < K; k++) {
            acc += acc_t(f32(A[row * K + k]) * f32(B[k * N + col]));
        }
        let scaled = beta_ * C[row * N + col];
        D[row * N + col] = f16(p.alpha * f32(acc) + f32(scaled));
    }
}
"""


def _playground_reference(A, B, C, D, alpha, beta):
    """alpha * A @ B + beta * C, as its author states it: the kernel's half epilogue
    (beta and beta * C in half) is within what the oracle allows a half output."""
    D[...] = alpha * (A.astype(np.float64) @ B.astype(np.float64)) + beta * C.astype(np.float64)


PLAYGROUND_NAIVE = Wild(
    KernelSpec(
        id="wild_r61_matmul_playground_tensorcore_naive_half_epilogue",
        entry_point="tensorcore_naive_sgemm",
        sources={"cuda": _PLAYGROUND_NAIVE, "wgsl": _PLAYGROUND_NAIVE_WGSL},
        dims=("M", "N", "K"),
        buffers=(
            BufferSpec(0, "f16", "read", name="A", count="M*K", shape=("M", "K")),
            BufferSpec(1, "f16", "read", name="B", count="K*N", shape=("K", "N")),
            BufferSpec(2, "f16", "read", name="C", count="M*N", shape=("M", "N")),
            BufferSpec(3, "f16", "read_write", name="D", count="M*N", shape=("M", "N")),
            BufferSpec.uniform(4, (("alpha", "f32"), ("beta", "f32")), name="p"),
        ),
        reference=_playground_reference,
        defaults={"alpha": 0.3, "beta": 0.7},
        # dim3 gridDim(N / (4 * 16), M / (2 * 16)); dim3 blockDim(32 * 4, 2)
        grid=lambda s, size: (size.N // 64, size.M // 32, 1),
        schedules=(Schedule((128, 2)),),
        nonfinite_inputs=False,
        # M, N and K are the source's macros: the one size it computes
        test_sizes=("M=256,N=128,K=64",),
    ),
    {
        "B's fragment read column-major": (
            "cuda",
            "half, wmma::row_major> b_frag;",
            "half, wmma::col_major> b_frag;",
        ),
        "the K loop stops one tile short": (
            "cuda",
            "while (k_idx < K)",
            "while (k_idx + TILE_DIM < K)",
        ),
        "C's rows read K apart": (
            "cuda",
            "wmma::load_matrix_sync(c_frag, C + CD_tile_index, N, wmma::mem_row_major);",
            "wmma::load_matrix_sync(c_frag, C + CD_tile_index, K, wmma::mem_row_major);",
        ),
        "the port's K loop stops one tile short": (
            "wgsl",
            "for (var k = 0u; k < K; k++) {",
            "for (var k = 0u; k + TILE_DIM < K; k++) {",
        ),
        "the port reads B column-major": (
            "wgsl",
            "f32(B[k * N + col])",
            "f32(B[col * K + k])",
        ),
        "the port sums the products in f16": ("wgsl", "alias acc_t = f32;", "alias acc_t = f16;"),
    },
)


ROUND61: dict[str, Wild] = {
    w.kernel.id: w
    for w in (
        BLOG_WMMA,
        TF32_SIMPLE,
        BF16_SIMPLE,
        HGEMM_WMMA_NAIVE,
        ASYNC_MULTISTAGE,
        PLAYGROUND_NAIVE,
    )
}
