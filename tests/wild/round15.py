"""Round 15 of kernels from the wild, merged into ``tests.wild.CORPUS``: CUDA kernels as
public code writes them. From NVIDIA's cuda-samples: the fast Walsh transform
(``fwtBatch1Kernel``'s radix-4 butterflies in dynamic shared memory after
``fwtBatch2Kernel``'s global passes, launched as the host code launches them),
``scalarProd`` (a block per vector pair, ``ACCUM_N`` accumulators reduced in shared
memory, ``__mul24``) and ``histogram64`` (per-thread sub-histograms of byte counters
behind a bit permutation of ``threadIdx.x``, ``uint4`` loads, ``uint`` scalars, then a
merge kernel). From Darknet: ``im2col_gpu_kernel`` with its pad and stride. From Caffe:
``MaxPoolForward<Dtype>`` with its ``int`` argmax mask (``CUDA_KERNEL_LOOP``). From
llm.c: the attention's ``softmax_forward_kernel5``, an online softmax per warp over the
causal row with ``float4`` loads and ``cg::reduce``. And a PyTorch-style embedding
backward: ``int64_t`` indices, ``C10_LAUNCH_BOUNDS_1``, ``padding_idx`` and float
``gpuAtomicAdd`` into duplicated rows (summed in any order). CUDA only: they run on the
GPU."""

from __future__ import annotations

import math

import numpy as np

from forge import BufferSpec, Dispatch, KernelSpec, Schedule, ceil_div

from . import Wild

# -- cuda-samples fastWalshTransform: fwtBatch2Kernel's global radix-4 passes, then
# fwtBatch1Kernel in shared memory (fastWalshTransform_kernel.cuh) ------------------------

_FWT = r"""
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

///////////////////////////////////////////////////////////////////////////////
// Elementary(for vectors less than elementary size) in-shared memory
// combined radix-2 + radix-4 Fast Walsh Transform
///////////////////////////////////////////////////////////////////////////////
#define ELEMENTARY_LOG2SIZE 11

__global__ void fwtBatch1Kernel(float *d_Output, float *d_Input, int log2N) {
  // Handle to thread block group
  cg::thread_block cta = cg::this_thread_block();
  const int N = 1 << log2N;
  const int base = blockIdx.x << log2N;

  //(2 ** 11) * 4 bytes == 8KB -- maximum s_data[] size for G80
  extern __shared__ float s_data[];
  float *d_Src = d_Input + base;
  float *d_Dst = d_Output + base;

  for (int pos = threadIdx.x; pos < N; pos += blockDim.x) {
    s_data[pos] = d_Src[pos];
  }

  // Main radix-4 stages
  const int pos = threadIdx.x;

  for (int stride = N >> 2; stride > 0; stride >>= 2) {
    int lo = pos & (stride - 1);
    int i0 = ((pos - lo) << 2) + lo;
    int i1 = i0 + stride;
    int i2 = i1 + stride;
    int i3 = i2 + stride;

    cg::sync(cta);
    float D0 = s_data[i0];
    float D1 = s_data[i1];
    float D2 = s_data[i2];
    float D3 = s_data[i3];

    float T;
    T = D0;
    D0 = D0 + D2;
    D2 = T - D2;
    T = D1;
    D1 = D1 + D3;
    D3 = T - D3;
    T = D0;
    s_data[i0] = D0 + D1;
    s_data[i1] = T - D1;
    T = D2;
    s_data[i2] = D2 + D3;
    s_data[i3] = T - D3;
  }

  // Do single radix-2 stage for odd power of two
  if (log2N & 1) {
    cg::sync(cta);

    for (int pos = threadIdx.x; pos < N / 2; pos += blockDim.x) {
      int i0 = pos << 1;
      int i1 = i0 + 1;

      float D0 = s_data[i0];
      float D1 = s_data[i1];
      s_data[i0] = D0 + D1;
      s_data[i1] = D0 - D1;
    }
  }

  cg::sync(cta);

  for (int pos = threadIdx.x; pos < N; pos += blockDim.x) {
    d_Dst[pos] = s_data[pos];
  }
}

////////////////////////////////////////////////////////////////////////////////
// Single in-global memory radix-4 Fast Walsh Transform pass
// (for strides exceeding elementary vector size)
////////////////////////////////////////////////////////////////////////////////
__global__ void fwtBatch2Kernel(float *d_Output, float *d_Input, int stride) {
  const int pos = blockIdx.x * blockDim.x + threadIdx.x;
  const int N = blockDim.x * gridDim.x * 4;

  float *d_Src = d_Input + blockIdx.y * N;
  float *d_Dst = d_Output + blockIdx.y * N;

  int lo = pos & (stride - 1);
  int i0 = ((pos - lo) << 2) + lo;
  int i1 = i0 + stride;
  int i2 = i1 + stride;
  int i3 = i2 + stride;

  float D0 = d_Src[i0];
  float D1 = d_Src[i1];
  float D2 = d_Src[i2];
  float D3 = d_Src[i3];

  float T;
  T = D0;
  D0 = D0 + D2;
  D2 = T - D2;
  T = D1;
  D1 = D1 + D3;
  D3 = T - D3;
  T = D0;
  d_Dst[i0] = D0 + D1;
  d_Dst[i1] = T - D1;
  T = D2;
  d_Dst[i2] = D2 + D3;
  d_Dst[i3] = T - D3;
}
"""

_ELEMENTARY_LOG2SIZE = 11


def _fwt_launches(size):
    """fwtBatchGPU(d_Data, M, log2N) of fastWalshTransform_kernel.cuh, step by step."""
    threads = 256
    M, log2N = size.M, int(size.N).bit_length() - 1
    N = 1 << log2N
    grid = (max(N // (4 * threads), 1), M, 1)  # computed once, before the loop
    passes = []
    while log2N > _ELEMENTARY_LOG2SIZE:
        passes.append(
            Dispatch(
                "fwtBatch2Kernel",
                grid=grid,
                schedule=Schedule(threads),
                arguments=("d_Data", "d_Data", "stride"),
                overrides={"stride": N // 4},
            )
        )
        log2N, N, M = log2N - 2, N >> 2, M << 2
    passes.append(
        Dispatch(
            "fwtBatch1Kernel",
            grid=(M, 1, 1),
            schedule=Schedule(N // 4),
            shared_bytes=N * 4,
            arguments=("d_Data", "d_Data", "log2N"),
            overrides={"log2N": log2N},
        )
    )
    return tuple(passes)


def _fwt_reference(d_Data):
    # fwtCPU: radix-2 butterflies, the stride halving from N / 2, on each of the M rows
    rows = d_Data.reshape(-1, d_Data.shape[-1]).astype(np.float64)
    M, N = rows.shape
    stride = N // 2
    while stride >= 1:
        pairs = rows.reshape(M, N // (2 * stride), 2, stride)
        lo, hi = pairs[:, :, 0, :], pairs[:, :, 1, :]
        rows = np.stack((lo + hi, lo - hi), axis=2).reshape(M, N)
        stride //= 2
    d_Data[...] = rows.reshape(d_Data.shape)


FAST_WALSH = Wild(
    KernelSpec(
        id="wild_r15_cuda_samples_fast_walsh_transform",
        entry_point="fwtBatch1Kernel",
        sources={"cuda": _FWT},
        dims=("M", "N"),  # M vectors of N = 2**log2N elements, transformed in place
        buffers=(
            BufferSpec(
                0,
                "f32",
                "read_write",
                name="d_Data",
                count="M*N",
                shape=("M", "N"),
                inout=True,
                fill=(-1.0, 1.0),
            ),
        ),
        reference=_fwt_reference,
        launches=_fwt_launches,
        schedules=(Schedule(256),),
        nonfinite_inputs=False,
        # sums of up to 2**15 terms of magnitude 1, rounded at each of 15 stages
        tolerance={"f32": {"atol": 2e-4, "rtol": 1e-5}},
        test_sizes=("M=2,N=8192", "M=3,N=4", "M=1,N=32768", "M=4,N=1024", "M=5,N=512"),
    ),
    {
        "radix-2 stage covers half the pairs": (
            "cuda",
            "pos < N / 2; pos += blockDim.x",
            "pos < N / 4; pos += blockDim.x",
        ),
        "last radix-4 stage skipped": (
            "cuda",
            "stride > 0; stride >>= 2",
            "stride > 1; stride >>= 2",
        ),
        "global pass: last output's sign flipped": (
            "cuda",
            "d_Dst[i3] = T - D3;",
            "d_Dst[i3] = D3 - T;",
        ),
    },
)

# -- cuda-samples scalarProd: a block per vector pair, ACCUM_N partial sums in shared
# memory reduced as a tree (scalarProd_kernel.cuh), <<<128, 256>>> ----------------------

_SCALAR_PROD = r"""
#include <cooperative_groups.h>

namespace cg = cooperative_groups;
///////////////////////////////////////////////////////////////////////////////
// On G80-class hardware 24-bit multiplication takes 4 clocks per warp
// (the same as for floating point  multiplication and addition),
// whereas full 32-bit multiplication takes 16 clocks per warp.
// So if integer multiplication operands are  guaranteed to fit into 24 bits
// (always lie within [-8M, 8M - 1] range in signed case),
// explicit 24-bit multiplication is preferred for performance.
///////////////////////////////////////////////////////////////////////////////
#define IMUL(a, b) __mul24(a, b)

///////////////////////////////////////////////////////////////////////////////
// Calculate scalar products of VectorN vectors of ElementN elements on GPU
// Parameters restrictions:
// 1) ElementN is strongly preferred to be a multiple of warp size to
//    meet alignment constraints of memory coalescing.
// 2) ACCUM_N must be a power of two.
///////////////////////////////////////////////////////////////////////////////
#define ACCUM_N 1024
__global__ void scalarProdGPU(float *d_C, float *d_A, float *d_B, int vectorN,
                              int elementN) {
  // Handle to thread block group
  cg::thread_block cta = cg::this_thread_block();
  // Accumulators cache
  __shared__ float accumResult[ACCUM_N];

  ////////////////////////////////////////////////////////////////////////////
  // Cycle through every pair of vectors,
  // taking into account that vector counts can be different
  // from total number of thread blocks
  ////////////////////////////////////////////////////////////////////////////
  for (int vec = blockIdx.x; vec < vectorN; vec += gridDim.x) {
    int vectorBase = IMUL(elementN, vec);
    int vectorEnd = vectorBase + elementN;

    ////////////////////////////////////////////////////////////////////////
    // Each accumulator cycles through vectors with
    // stride equal to number of total number of accumulators ACCUM_N
    // At this stage ACCUM_N is only preferred be a multiple of warp size
    // to meet memory coalescing alignment constraints.
    ////////////////////////////////////////////////////////////////////////
    for (int iAccum = threadIdx.x; iAccum < ACCUM_N; iAccum += blockDim.x) {
      float sum = 0;

      for (int pos = vectorBase + iAccum; pos < vectorEnd; pos += ACCUM_N)
        sum += d_A[pos] * d_B[pos];

      accumResult[iAccum] = sum;
    }

    ////////////////////////////////////////////////////////////////////////
    // Perform tree-like reduction of accumulators' results.
    // ACCUM_N has to be power of two at this stage
    ////////////////////////////////////////////////////////////////////////
    for (int stride = ACCUM_N / 2; stride > 0; stride >>= 1) {
      cg::sync(cta);

      for (int iAccum = threadIdx.x; iAccum < stride; iAccum += blockDim.x)
        accumResult[iAccum] += accumResult[stride + iAccum];
    }

    cg::sync(cta);

    if (threadIdx.x == 0) d_C[vec] = accumResult[0];
  }
}
"""


def _scalar_prod_reference(d_A, d_B):
    return np.einsum("ve,ve->v", d_A.astype(np.float64), d_B.astype(np.float64)).astype(np.float32)


SCALAR_PROD = Wild(
    KernelSpec(
        id="wild_r15_cuda_samples_scalar_prod_accum_n",
        entry_point="scalarProdGPU",
        sources={"cuda": _SCALAR_PROD},
        dims=("vectorN", "elementN"),
        buffers=(
            BufferSpec(0, "f32", "read_write", name="d_C", count="vectorN"),
            BufferSpec(
                1,
                "f32",
                "read",
                name="d_A",
                count="vectorN*elementN",
                shape=("vectorN", "elementN"),
                fill=(-1.0, 1.0),
            ),
            BufferSpec(
                2,
                "f32",
                "read",
                name="d_B",
                count="vectorN*elementN",
                shape=("vectorN", "elementN"),
                fill=(-1.0, 1.0),
            ),
        ),
        reference=_scalar_prod_reference,
        grid=(128, 1, 1),  # scalarProdGPU<<<128, 256>>>
        schedules=(Schedule(256),),
        nonfinite_inputs=False,
        tolerance={"f32": {"atol": 1e-4, "rtol": 1e-5}},
        test_sizes=(
            "vectorN=256,elementN=4096",
            "vectorN=1,elementN=1",
            "vectorN=130,elementN=1000",
            "vectorN=7,elementN=3001",
        ),
    ),
    {
        "accumulators step by the block": (
            "cuda",
            "pos < vectorEnd; pos += ACCUM_N",
            "pos < vectorEnd; pos += blockDim.x",
        ),
        "tree stops before the last pair": (
            "cuda",
            "stride = ACCUM_N / 2; stride > 0;",
            "stride = ACCUM_N / 2; stride > 1;",
        ),
        "vectors step by the block size": (
            "cuda",
            "vec < vectorN; vec += gridDim.x",
            "vec < vectorN; vec += blockDim.x",
        ),
    },
)

# -- cuda-samples histogram64: byte counters per thread in shared memory, bank-permuted,
# then one block per bin merges the partial histograms (histogram64.cu) ------------------

_HISTOGRAM64 = r"""
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

// histogram_common.h
typedef unsigned int uint;
typedef unsigned char uchar;

#define HISTOGRAM64_BIN_COUNT 64
#define UMUL(a, b) ((a) * (b))
#define UMAD(a, b, c) (UMUL((a), (b)) + (c))

////////////////////////////////////////////////////////////////////////////////
// GPU-specific common definitions
////////////////////////////////////////////////////////////////////////////////
// Data type used for input data fetches
typedef uint4 data_t;

// May change on future hardware, so better parametrize the code
#define SHARED_MEMORY_BANKS 16

// Threadblock size: must be a multiple of (4 * SHARED_MEMORY_BANKS)
// because of the bit permutation of threadIdx.x
#define HISTOGRAM64_THREADBLOCK_SIZE (4 * SHARED_MEMORY_BANKS)

////////////////////////////////////////////////////////////////////////////////
// Main computation pass: compute gridDim.x partial histograms
////////////////////////////////////////////////////////////////////////////////
// Count a byte into shared-memory storage
inline __device__ void addByte(uchar *s_ThreadBase, uint data) {
  s_ThreadBase[UMUL(data, HISTOGRAM64_THREADBLOCK_SIZE)]++;
}

// Count four bytes of a word
inline __device__ void addWord(uchar *s_ThreadBase, uint data) {
  // Only higher 6 bits of each byte matter, as this is a 64-bin histogram
  addByte(s_ThreadBase, (data >> 2) & 0x3FU);
  addByte(s_ThreadBase, (data >> 10) & 0x3FU);
  addByte(s_ThreadBase, (data >> 18) & 0x3FU);
  addByte(s_ThreadBase, (data >> 26) & 0x3FU);
}

__global__ void histogram64Kernel(uint *d_PartialHistograms, data_t *d_Data,
                                  uint dataCount) {
  // Handle to thread block group
  cg::thread_block cta = cg::this_thread_block();
  // Encode thread index in order to avoid bank conflicts in s_Hist[] access:
  // each group of SHARED_MEMORY_BANKS threads accesses consecutive shared memory
  // banks
  // and the same bytes [0..3] within the banks
  // Because of this permutation block size should be a multiple of 4 *
  // SHARED_MEMORY_BANKS
  const uint threadPos = ((threadIdx.x & ~(SHARED_MEMORY_BANKS * 4 - 1)) << 0) |
                         ((threadIdx.x & (SHARED_MEMORY_BANKS - 1)) << 2) |
                         ((threadIdx.x & (SHARED_MEMORY_BANKS * 3)) >> 4);

  // Per-thread histogram storage
  __shared__ uchar s_Hist[HISTOGRAM64_THREADBLOCK_SIZE * HISTOGRAM64_BIN_COUNT];
  uchar *s_ThreadBase = s_Hist + threadPos;

// Initialize shared memory (writing 32-bit words)
#pragma unroll

  for (uint i = 0; i < (HISTOGRAM64_BIN_COUNT / 4); i++) {
    ((uint *)s_Hist)[threadIdx.x + i * HISTOGRAM64_THREADBLOCK_SIZE] = 0;
  }

  // Read data from global memory and submit to the shared-memory histogram
  // Since histogram counters are byte-sized, every single thread can't do more
  // than 255 submission
  cg::sync(cta);

  for (uint pos = UMAD(blockIdx.x, blockDim.x, threadIdx.x); pos < dataCount;
       pos += UMUL(blockDim.x, gridDim.x)) {
    data_t data = d_Data[pos];
    addWord(s_ThreadBase, data.x);
    addWord(s_ThreadBase, data.y);
    addWord(s_ThreadBase, data.z);
    addWord(s_ThreadBase, data.w);
  }

  // Accumulate per-thread histograms into per-block and write to global memory
  cg::sync(cta);

  if (threadIdx.x < HISTOGRAM64_BIN_COUNT) {
    uchar *s_HistBase = s_Hist + UMUL(threadIdx.x, HISTOGRAM64_THREADBLOCK_SIZE);

    uint sum = 0;
    uint pos = 4 * (threadIdx.x & (SHARED_MEMORY_BANKS - 1));

#pragma unroll

    for (uint i = 0; i < (HISTOGRAM64_THREADBLOCK_SIZE / 4); i++) {
      sum += s_HistBase[pos + 0] + s_HistBase[pos + 1] + s_HistBase[pos + 2] +
             s_HistBase[pos + 3];
      pos = (pos + 4) & (HISTOGRAM64_THREADBLOCK_SIZE - 1);
    }

    d_PartialHistograms[blockIdx.x * HISTOGRAM64_BIN_COUNT + threadIdx.x] = sum;
  }
}

////////////////////////////////////////////////////////////////////////////////
// Merge histogram64() output
// Run one threadblock per bin; each threadbock adds up the same bin counter
// from every partial histogram. Reads are uncoalesced, but mergeHistogram64
// takes only a fraction of total processing time
////////////////////////////////////////////////////////////////////////////////
#define MERGE_THREADBLOCK_SIZE 256

__global__ void mergeHistogram64Kernel(uint *d_Histogram,
                                       uint *d_PartialHistograms,
                                       uint histogramCount) {
  // Handle to thread block group
  cg::thread_block cta = cg::this_thread_block();
  __shared__ uint data[MERGE_THREADBLOCK_SIZE];

  uint sum = 0;

  for (uint i = threadIdx.x; i < histogramCount; i += MERGE_THREADBLOCK_SIZE) {
    sum += d_PartialHistograms[blockIdx.x + i * HISTOGRAM64_BIN_COUNT];
  }

  data[threadIdx.x] = sum;

  for (uint stride = MERGE_THREADBLOCK_SIZE / 2; stride > 0; stride >>= 1) {
    cg::sync(cta);

    if (threadIdx.x < stride) {
      data[threadIdx.x] += data[threadIdx.x + stride];
    }
  }

  if (threadIdx.x == 0) {
    d_Histogram[blockIdx.x] = data[0];
  }
}
"""


def _histogram_count(byte_count):
    # histogram64(): iDivUp(byteCount, HISTOGRAM64_THREADBLOCK_SIZE * iSnapDown(255,
    # sizeof(data_t))): no thread counts more than 255 bytes into one byte counter
    return ceil_div(byte_count, 64 * (255 - 255 % 16))


def _histogram64_reference(d_Data, d_Histogram):
    # 64 bins: the high 6 bits of each byte
    d_Histogram[...] = np.bincount(d_Data >> 2, minlength=64).astype(np.uint32)


# Its scalars are histogram_common.h's ``uint``: forge must read that typedef to pack
# them (``forge.sources.scalar_dtype`` knows only C's own spellings; until then the
# launch is refused with InvalidArgument, and the NVRTC test fails where it binds).
HISTOGRAM64 = Wild(
    KernelSpec(
        id="wild_r15_cuda_samples_histogram64_byte_counters",
        entry_point="histogram64Kernel",
        sources={"cuda": _HISTOGRAM64},
        buffers=(
            BufferSpec(0, "u8", "read", name="d_Data"),  # byteCount % 16 == 0
            BufferSpec(1, "u32", "read_write", name="d_Histogram", count=64),
            BufferSpec(
                2,
                "u32",
                "read_write",
                name="d_PartialHistograms",
                count=lambda n: _histogram_count(n) * 64,
                scratch=True,
            ),
        ),
        reference=_histogram64_reference,
        params=lambda n: {"dataCount": n // 16, "histogramCount": _histogram_count(n)},
        launches=(
            Dispatch(
                "histogram64Kernel",
                grid=lambda s, n: (_histogram_count(n), 1, 1),
                schedule=Schedule(64),
            ),
            Dispatch(
                "mergeHistogram64Kernel",
                grid=(64, 1, 1),  # HISTOGRAM64_BIN_COUNT blocks
                schedule=Schedule(256),
            ),
        ),
        schedules=(Schedule(64),),
        test_sizes=(1 << 20, 16, 46160, 15360),
    ),
    {
        "top byte's low bits binned": (
            "cuda",
            "addByte(s_ThreadBase, (data >> 26) & 0x3FU);",
            "addByte(s_ThreadBase, (data >> 24) & 0x3FU);",
        ),
        "half the threads' counters merged": (
            "cuda",
            "i < (HISTOGRAM64_THREADBLOCK_SIZE / 4); i++",
            "i < (HISTOGRAM64_THREADBLOCK_SIZE / 8); i++",
        ),
        "merge tree stops before the last pair": (
            "cuda",
            "stride = MERGE_THREADBLOCK_SIZE / 2; stride > 0;",
            "stride = MERGE_THREADBLOCK_SIZE / 2; stride > 1;",
        ),
    },
)

# -- Darknet im2col_gpu_kernel (src/im2col_kernels.cu): a grid-stride loop over
# channels * height_col * width_col, the ksize * ksize taps of each, zero padding ------

_IM2COL = r"""
#define BLOCK 512

// src: https://github.com/BVLC/caffe/blob/master/src/caffe/util/im2col.cu
// You may also want to read: https://github.com/BVLC/caffe/blob/master/LICENSE

__global__ void im2col_gpu_kernel(const int n, const float* data_im,
        const int height, const int width, const int ksize,
        const int pad,
        const int stride,
        const int height_col, const int width_col,
        float *data_col) {
    int index = blockIdx.x*blockDim.x+threadIdx.x;
    for(; index < n; index += blockDim.x*gridDim.x){
        int w_out = index % width_col;
        int h_index = index / width_col;
        int h_out = h_index % height_col;
        int channel_in = h_index / height_col;
        int channel_out = channel_in * ksize * ksize;
        int h_in = h_out * stride - pad;
        int w_in = w_out * stride - pad;
        float* data_col_ptr = data_col;
        data_col_ptr += (channel_out * height_col + h_out) * width_col + w_out;
        const float* data_im_ptr = data_im;
        data_im_ptr += (channel_in * height + h_in) * width + w_in;
        for (int i = 0; i < ksize; ++i) {
            for (int j = 0; j < ksize; ++j) {
                int h = h_in + i;
                int w = w_in + j;

                *data_col_ptr = (h >= 0 && w >= 0 && h < height && w < width) ?
                    data_im_ptr[i * width + j] : 0;

                //*data_col_ptr = data_im_ptr[ii * width + jj];

                data_col_ptr += height_col * width_col;
            }
        }
    }
}
"""

_IM2COL_K, _IM2COL_S, _IM2COL_P = 3, 2, 1


def _col_size(extent):
    return (extent + 2 * _IM2COL_P - _IM2COL_K) // _IM2COL_S + 1


def _im2col_params(size):
    height_col, width_col = _col_size(size.height), _col_size(size.width)
    return {
        "n": size.channels * height_col * width_col,  # num_kernels
        "ksize": _IM2COL_K,
        "pad": _IM2COL_P,
        "stride": _IM2COL_S,
        "height_col": height_col,
        "width_col": width_col,
    }


def _im2col_reference(data_im, data_col):
    k, s, p = _IM2COL_K, _IM2COL_S, _IM2COL_P
    channels, height, width = data_im.shape
    hc, wc = _col_size(height), _col_size(width)
    padded = np.pad(data_im, ((0, 0), (p, p), (p, p)))
    col = np.empty((channels, k, k, hc, wc), np.float32)
    for i in range(k):
        for j in range(k):
            col[:, i, j] = padded[:, i : i + s * (hc - 1) + 1 : s, j : j + s * (wc - 1) + 1 : s]
    data_col[...] = col.reshape(data_col.shape)


IM2COL = Wild(
    KernelSpec(
        id="wild_r15_darknet_im2col_gpu_kernel",
        entry_point="im2col_gpu_kernel",
        sources={"cuda": _IM2COL},
        dims=("channels", "height", "width"),
        buffers=(
            BufferSpec(
                0,
                "f32",
                "read",
                name="data_im",
                count="channels*height*width",
                shape=("channels", "height", "width"),
            ),
            BufferSpec(
                1,
                "f32",
                "read_write",
                name="data_col",
                count=lambda size: (
                    size.channels * _IM2COL_K**2 * _col_size(size.height) * _col_size(size.width)
                ),
            ),
        ),
        reference=_im2col_reference,
        params=_im2col_params,
        # im2col_gpu_kernel<<<(num_kernels+BLOCK-1)/BLOCK, BLOCK>>>
        grid=lambda s, size: (ceil_div(_im2col_params(size)["n"], 512), 1, 1),
        schedules=(Schedule(512),),
        test_sizes=(
            "channels=3,height=32,width=32",
            "channels=1,height=1,width=1",
            "channels=5,height=13,width=9",
            "channels=64,height=20,width=26",
        ),
    ),
    {
        "pad left out of the column start": (
            "cuda",
            "int w_in = w_out * stride - pad;",
            "int w_in = w_out * stride;",
        ),
        "first column taken for padding": (
            "cuda",
            "(h >= 0 && w >= 0 && h < height && w < width)",
            "(h >= 0 && w > 0 && h < height && w < width)",
        ),
        "rows not strided": ("cuda", "int h_in = h_out * stride - pad;", "int h_in = h_out - pad;"),
    },
)

# -- Caffe MaxPoolForward (src/caffe/layers/pooling_layer.cu): CUDA_KERNEL_LOOP, the
# window clipped to the image, the argmax into an int mask --------------------------------

_MAXPOOL = r"""
#include <cfloat>

// CUDA: grid stride looping
#define CUDA_KERNEL_LOOP(i, n) \
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; \
       i < (n); \
       i += blockDim.x * gridDim.x)

template <typename Dtype>
__global__ void MaxPoolForward(const int nthreads,
    const Dtype* const bottom_data, const int num, const int channels,
    const int height, const int width, const int pooled_height,
    const int pooled_width, const int kernel_h, const int kernel_w,
    const int stride_h, const int stride_w, const int pad_h, const int pad_w,
    Dtype* const top_data, int* mask, Dtype* top_mask) {
  CUDA_KERNEL_LOOP(index, nthreads) {
    const int pw = index % pooled_width;
    const int ph = (index / pooled_width) % pooled_height;
    const int c = (index / pooled_width / pooled_height) % channels;
    const int n = index / pooled_width / pooled_height / channels;
    int hstart = ph * stride_h - pad_h;
    int wstart = pw * stride_w - pad_w;
    const int hend = min(hstart + kernel_h, height);
    const int wend = min(wstart + kernel_w, width);
    hstart = max(hstart, 0);
    wstart = max(wstart, 0);
    Dtype maxval = -FLT_MAX;
    int maxidx = -1;
    const Dtype* const bottom_slice =
        bottom_data + (n * channels + c) * height * width;
    for (int h = hstart; h < hend; ++h) {
      for (int w = wstart; w < wend; ++w) {
        if (bottom_slice[h * width + w] > maxval) {
          maxidx = h * width + w;
          maxval = bottom_slice[maxidx];
        }
      }
    }
    top_data[index] = maxval;
    if (mask) {
      mask[index] = maxidx;
    } else {
      top_mask[index] = maxidx;
    }
  }
}
"""

_POOL_K, _POOL_S, _POOL_P = 3, 2, 1


def _pooled(extent):
    # PoolingLayer::Reshape: ceil, then the last window must start inside the image
    pooled = int(math.ceil((extent + 2 * _POOL_P - _POOL_K) / _POOL_S)) + 1
    if (pooled - 1) * _POOL_S >= extent + _POOL_P:
        pooled -= 1
    return pooled


def _maxpool_params(size):
    return {
        "nthreads": size.num * size.channels * _pooled(size.height) * _pooled(size.width),
        "pooled_height": _pooled(size.height),
        "pooled_width": _pooled(size.width),
        "kernel_h": _POOL_K,
        "kernel_w": _POOL_K,
        "stride_h": _POOL_S,
        "stride_w": _POOL_S,
        "pad_h": _POOL_P,
        "pad_w": _POOL_P,
    }


def _maxpool_reference(bottom_data, top_data, mask):
    num, channels, height, width = bottom_data.shape
    ph_n, pw_n = _pooled(height), _pooled(width)
    top = np.empty((num, channels, ph_n, pw_n), np.float32)
    argmax = np.empty((num, channels, ph_n, pw_n), np.int32)
    for ph in range(ph_n):
        h0 = ph * _POOL_S - _POOL_P
        h1, h0 = min(h0 + _POOL_K, height), max(h0, 0)
        for pw in range(pw_n):
            w0 = pw * _POOL_S - _POOL_P
            w1, w0 = min(w0 + _POOL_K, width), max(w0, 0)
            window = bottom_data[:, :, h0:h1, w0:w1].reshape(num, channels, -1)
            first = window.argmax(axis=-1)  # the first of equal maxima, as the scan keeps
            top[:, :, ph, pw] = window.max(axis=-1)
            argmax[:, :, ph, pw] = (h0 + first // (w1 - w0)) * width + w0 + first % (w1 - w0)
    top_data[...] = top.reshape(top_data.shape)
    mask[...] = argmax.reshape(mask.shape)


def _pooled_count(size):
    return size.num * size.channels * _pooled(size.height) * _pooled(size.width)


MAXPOOL_MASK = Wild(
    KernelSpec(
        id="wild_r15_caffe_maxpool_forward_int_mask",
        entry_point="MaxPoolForward<float>",
        sources={"cuda": _MAXPOOL},
        dims=("num", "channels", "height", "width"),
        buffers=(
            BufferSpec(
                0,
                "f32",
                "read",
                name="bottom_data",
                count="num*channels*height*width",
                shape=("num", "channels", "height", "width"),
            ),
            BufferSpec(1, "f32", "read_write", name="top_data", count=_pooled_count),
            BufferSpec(2, "i32", "read_write", name="mask", count=_pooled_count),
            # Caffe passes NULL here when the mask is used; the kernel never writes it
            BufferSpec(3, "f32", "read_write", name="top_mask", count=1, scratch=True),
        ),
        reference=_maxpool_reference,
        params=_maxpool_params,
        # CAFFE_GET_BLOCKS(count), CAFFE_CUDA_NUM_THREADS
        grid=lambda s, size: (ceil_div(_pooled_count(size), 512), 1, 1),
        schedules=(Schedule(512),),
        domain={"bottom_data": (-4.0, 4.0)},
        nonfinite_inputs=False,  # a NaN never compares greater: Caffe skips it
        test_sizes=(
            "num=2,channels=16,height=28,width=28",
            "num=1,channels=1,height=1,width=1",
            "num=3,channels=5,height=13,width=10",
            "num=1,channels=2,height=7,width=64",
        ),
    ),
    {
        "window end from the clamped start": (
            "cuda",
            "    const int hend = min(hstart + kernel_h, height);\n"
            "    const int wend = min(wstart + kernel_w, width);\n"
            "    hstart = max(hstart, 0);\n"
            "    wstart = max(wstart, 0);\n",
            "    hstart = max(hstart, 0);\n"
            "    wstart = max(wstart, 0);\n"
            "    const int hend = min(hstart + kernel_h, height);\n"
            "    const int wend = min(wstart + kernel_w, width);\n",
        ),
        "max starts at zero": ("cuda", "Dtype maxval = -FLT_MAX;", "Dtype maxval = 0;"),
        "mask counts from the batch's start": (
            "cuda",
            "if (mask) {\n      mask[index] = maxidx;",
            "if (mask) {\n      mask[index] = (n * channels + c) * height * width + maxidx;",
        ),
    },
)

# -- llm.c (dev/cuda/attention_forward.cu): softmax_forward_kernel5, the causal softmax
# of a row per warp, online over float4 loads, the scale fused in ----------------------

_LLMC_SOFTMAX5 = r"""
#include <float.h>
#include <assert.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

__device__ float& vec_at(float4& vec, int index) {
    return reinterpret_cast<float*>(&vec)[index];
}

__device__ float vec_at(const float4& vec, int index) {
    return reinterpret_cast<const float*>(&vec)[index];
}

__global__ void softmax_forward_kernel5(float* out, float inv_temperature, const float* inp,
                                        int N, int T) {
    // inp, out shape: (N, T, T), where N = B * NH
    // fuses the multiplication by scale inside attention
    // directly autoregressive, so we only compute the lower triangular part
    // uses the online softmax algorithm
    assert(T % 4  == 0);
    namespace cg = cooperative_groups;
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    // micro-optimization: we iterate backwards so that
    // after the softmax backward operation completes, the cache retains the
    // part of the matrix close to the upper left corner, which benefits the
    // matmul operation that immediately follows.
    // int idx = blockIdx.x * warp.meta_group_size() + warp.meta_group_rank(); // forward order
    // backward order
    int idx = (gridDim.x - blockIdx.x - 1) * warp.meta_group_size() + warp.meta_group_rank();
    if(idx >= N * T) {
        return;
    }
    int own_pos = idx % T;
    int pos_by_4 = own_pos / 4;

    // one row of inp, i.e. inp[idx, :] of shape (T,)
    const float* x = inp + idx * T;

    // not INF, so we don't get NaNs accidentally when subtracting two values.
    float maxval = -FLT_MAX;
    float sumval = 0.0f;

    const float4* x_vec = reinterpret_cast<const float4*>(x);
    for (int i = warp.thread_rank(); i < pos_by_4; i += warp.size()) {
        float4 v = x_vec[i];
        float old_maxval = maxval;
        for(int k = 0; k < 4; ++k) {
            maxval = fmaxf(maxval, vec_at(v, k));
        }
        sumval *= expf(inv_temperature * (old_maxval - maxval));
        for(int k = 0; k < 4; ++k) {
            sumval += expf(inv_temperature * (vec_at(v, k) - maxval));
        }
    }

    if(4*pos_by_4 + warp.thread_rank() <= own_pos) {
        float old_maxval = maxval;
        maxval = fmaxf(maxval, x[4*pos_by_4 + warp.thread_rank()]);
        sumval *= expf(inv_temperature * (old_maxval - maxval));
        sumval += expf(inv_temperature * (x[4*pos_by_4 + warp.thread_rank()] - maxval));
    }

    float global_maxval = cg::reduce(warp, maxval, cg::greater<float>{});
    sumval *= expf(inv_temperature * (maxval - global_maxval));

    float sum = cg::reduce(warp, sumval, cg::plus<float>{});
    float norm = 1.f / sum;

    // divide the whole row by the sum
    for (int i = warp.thread_rank(); i <= own_pos; i += warp.size()) {
        // recalculation is faster than doing the round-trip through memory.
        float ev = expf(inv_temperature * (__ldcs(x + i) - global_maxval));
        __stcs(out + idx * T + i, ev * norm);
    }
}
"""

_HEAD_SIZE = 64


def _causal_softmax_reference(out, inp):
    # att = softmax(preatt / sqrt(HS)) over the causal row; above the diagonal stays 0
    scores = inp.astype(np.float64) / math.sqrt(_HEAD_SIZE)
    T = scores.shape[-1]
    scores = np.where(np.tril(np.ones((T, T), bool)), scores, -np.inf)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    out[...] = e / e.sum(axis=-1, keepdims=True)


LLMC_SOFTMAX5 = Wild(
    KernelSpec(
        id="wild_r15_llmc_attention_softmax_forward_kernel5",
        entry_point="softmax_forward_kernel5",
        sources={"cuda": _LLMC_SOFTMAX5},
        dims=("N", "T"),  # N = B * NH rows of (T, T) scores; T % 4 == 0
        buffers=(
            BufferSpec(
                0,
                "f32",
                "read_write",
                name="out",
                count="N*T*T",
                shape=("N", "T", "T"),
                initial=0,  # only the lower triangle is written
            ),
            BufferSpec(1, "f32", "read", name="inp", count="N*T*T", shape=("N", "T", "T")),
        ),
        reference=_causal_softmax_reference,
        params=lambda size: {"inv_temperature": 1.0 / math.sqrt(_HEAD_SIZE)},
        # softmax_forward_kernel5<<<ceil_div(B * NH * T * 32, softmax_block_size), 256>>>
        grid=lambda s, size: (ceil_div(size.N * size.T * 32, 256), 1, 1),
        schedules=(Schedule(256),),
        domain={"inp": (-10.0, 10.0)},
        nonfinite_inputs=False,
        test_sizes=("N=8,T=64", "N=1,T=4", "N=2,T=260", "N=12,T=36"),
    ),
    {
        "diagonal left out of the sum": (
            "cuda",
            "if(4*pos_by_4 + warp.thread_rank() <= own_pos) {",
            "if(4*pos_by_4 + warp.thread_rank() < own_pos) {",
        ),
        "lanes' sums not rescaled to the row's max": (
            "cuda",
            "sumval *= expf(inv_temperature * (maxval - global_maxval));",
            "",
        ),
        "scale left out of the output": (
            "cuda",
            "float ev = expf(inv_temperature * (__ldcs(x + i) - global_maxval));",
            "float ev = expf(__ldcs(x + i) - global_maxval);",
        ),
    },
)

# -- PyTorch-style embedding backward: int64_t indices, a grid-stride loop in int64_t,
# padding_idx skipped, gpuAtomicAdd of floats into rows that repeat ---------------------

_EMBEDDING_BACKWARD = r"""
#include <cstdint>

// c10/macros/Macros.h
#define CUDA_MAX_THREADS_PER_BLOCK 1024
#define CUDA_THREADS_PER_BLOCK_FALLBACK 256
#define C10_MAX_THREADS_PER_BLOCK(val) \
  (((val) <= CUDA_MAX_THREADS_PER_BLOCK) ? (val) : CUDA_THREADS_PER_BLOCK_FALLBACK)
#define C10_LAUNCH_BOUNDS_1(max_threads_per_block) \
  __launch_bounds__((C10_MAX_THREADS_PER_BLOCK((max_threads_per_block))))

// ATen/cuda/Atomic.cuh
template <typename T>
static inline __device__ void gpuAtomicAdd(T* address, T val) {
  atomicAdd(address, val);
}

constexpr int kThreads = 256;

template <typename scalar_t, typename index_t>
C10_LAUNCH_BOUNDS_1(kThreads)
__global__ void embedding_backward_atomic_kernel(
    const index_t* __restrict__ indices,
    const scalar_t* __restrict__ grad_output,
    scalar_t* __restrict__ grad_weight,
    const int64_t numel,
    const int64_t stride,
    const index_t padding_idx) {
  const int64_t total = numel * stride;
  for (int64_t linear = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; linear < total;
       linear += (int64_t)blockDim.x * gridDim.x) {
    const int64_t row = linear / stride;
    const int64_t col = linear % stride;
    const index_t idx = indices[row];
    if (idx == padding_idx) {
      continue;
    }
    gpuAtomicAdd(&grad_weight[idx * stride + col], grad_output[linear]);
  }
}

template __global__ void embedding_backward_atomic_kernel<float, int64_t>(
    const int64_t* __restrict__, const float* __restrict__, float* __restrict__,
    const int64_t, const int64_t, const int64_t);
"""

_NUM_EMBEDDINGS, _PADDING_IDX = 64, 0


def _embedding_backward_reference(indices, grad_output, grad_weight):
    grad = np.zeros(grad_weight.shape, np.float64)
    np.add.at(grad, indices, grad_output.astype(np.float64))
    grad[_PADDING_IDX] = 0.0  # nn.Embedding(padding_idx=0): that row gets no gradient
    grad_weight[...] += grad


EMBEDDING_BACKWARD = Wild(
    KernelSpec(
        id="wild_r15_torch_embedding_backward_int64_atomic_padding_idx",
        entry_point="embedding_backward_atomic_kernel<float, int64_t>",
        sources={"cuda": _EMBEDDING_BACKWARD},
        dims=("numel", "stride"),  # numel indices, embeddings of stride floats
        buffers=(
            BufferSpec(0, "i64", "read", name="indices", count="numel"),
            BufferSpec(
                1,
                "f32",
                "read",
                name="grad_output",
                count="numel*stride",
                shape=("numel", "stride"),
                fill=(-1.0, 1.0),
            ),
            BufferSpec(
                2,
                "f32",
                "read_write",
                name="grad_weight",
                count=f"{_NUM_EMBEDDINGS}*stride",
                shape=(_NUM_EMBEDDINGS, "stride"),
                initial=0,
            ),
        ),
        reference=_embedding_backward_reference,
        params=lambda size: {"padding_idx": np.int64(_PADDING_IDX)},
        grid=lambda s, size: (min(ceil_div(size.numel * size.stride, 256), 64), 1, 1),
        schedules=(Schedule(256),),
        domain={"indices": (0, _NUM_EMBEDDINGS - 1)},
        nonfinite_inputs=False,
        # float atomics add the repeated rows' gradients in any order
        tolerance={"f32": {"atol": 2e-5, "rtol": 1e-5}},
        test_sizes=("numel=2048,stride=64", "numel=1,stride=1", "numel=300,stride=17"),
    ),
    {
        "padding row accumulated": (
            "cuda",
            "    if (idx == padding_idx) {\n      continue;\n    }\n",
            "",
        ),
        "padding compared with the position": (
            "cuda",
            "if (idx == padding_idx) {",
            "if (row == padding_idx) {",
        ),
        "grid stride of one block": (
            "cuda",
            "linear += (int64_t)blockDim.x * gridDim.x)",
            "linear += (int64_t)blockDim.x)",
        ),
    },
)

ROUND15: dict[str, Wild] = {
    w.kernel.id: w
    for w in (
        FAST_WALSH,
        SCALAR_PROD,
        HISTOGRAM64,
        IM2COL,
        MAXPOOL_MASK,
        LLMC_SOFTMAX5,
        EMBEDDING_BACKWARD,
    )
}
