"""Round 5 of kernels from the wild, CUDA, merged into ``tests.wild.CORPUS``: kernels in
the styles of NVIDIA's cuda-samples (reduce6 templated on the block size with a
``SharedMemory<T>`` struct and ``__launch_bounds__``, the padded-tile transpose, the
bitonic sort step), CUB (``BlockReduce``, ``BlockLoad``/``BlockScan``/``BlockStore``),
PyTorch extensions (``scalar_t`` templates with an explicit instantiation, ``int64_t``
grid-stride loops, ``__device__ __forceinline__`` helpers), GPU Gems' Blelloch scan with
bank-conflict offsets, CUDA by Example's dot product with ``atomicAdd(double*)`` into a
zeroed result, a shared-memory histogram over bytes, a warp-per-row gemv with
``__shfl_down_sync``, ``float4`` loads through ``__ldg`` with a scalar tail, ``half2``
arithmetic, a ``struct Params`` by value with ``--use_fast_math`` intrinsics, a
``blockIdx.z``-batched kernel with ``size_t`` indices, and a tiled SGEMM templated on
its tile with ``#pragma unroll`` and ``constexpr``. Where a WGSL twin is short it is
given too, so the kernel's logic is also checked where no GPU is.
"""

from __future__ import annotations

import numpy as np

from forge import BufferSpec, Dispatch, KernelSpec, Schedule, ceil_div

from . import Wild

# -- cuda-samples reduce6: SharedMemory<T>, template <T, blockSize, nIsPow2>, two launches ----

_REDUCE6 = r"""
// Utility class used to avoid linker errors with extern unsized shared memory arrays
// with templated type (cuda-samples, reduction_kernel.cu)
template <class T>
struct SharedMemory {
    __device__ inline operator T *() {
        extern __shared__ int __smem[];
        return (T *)__smem;
    }
    __device__ inline operator const T *() const {
        extern __shared__ int __smem[];
        return (T *)__smem;
    }
};

template <class T, unsigned int blockSize, bool nIsPow2>
__global__ void __launch_bounds__(blockSize)
reduce6(const T *__restrict__ g_idata, T *__restrict__ g_odata, unsigned int n) {
    T *sdata = SharedMemory<T>();
    unsigned int tid = threadIdx.x;
    unsigned int gridSize = blockSize * 2 * gridDim.x;
    T mySum = 0;
    unsigned int i = blockIdx.x * blockSize * 2 + threadIdx.x;
    while (i < n) {
        mySum += g_idata[i];
        // ensure we don't read out of bounds -- this is optimized away for powerOf2 sized arrays
        if (nIsPow2 || i + blockSize < n) mySum += g_idata[i + blockSize];
        i += gridSize;
    }
    sdata[tid] = mySum;
    __syncthreads();
    if ((blockSize >= 512) && (tid < 256)) sdata[tid] = mySum = mySum + sdata[tid + 256];
    __syncthreads();
    if ((blockSize >= 256) && (tid < 128)) sdata[tid] = mySum = mySum + sdata[tid + 128];
    __syncthreads();
    if ((blockSize >= 128) && (tid < 64)) sdata[tid] = mySum = mySum + sdata[tid + 64];
    __syncthreads();
    if (tid < 32) {
        // Fetch final intermediate sum from 2nd warp
        if (blockSize >= 64) mySum += sdata[tid + 32];
        // Reduce final warp using shuffle
        for (int offset = warpSize / 2; offset > 0; offset /= 2) {
            mySum += __shfl_down_sync(0xffffffff, mySum, offset);
        }
    }
    // write result for this block to global mem
    if (tid == 0) g_odata[blockIdx.x] = mySum;
}
"""

_REDUCE6_BLOCKS = 64


def _total_reference(g_idata, partial, total):
    return np.array([g_idata.astype(np.float64).sum()], np.float32)


REDUCE6 = Wild(
    KernelSpec(
        id="wild_r5_reduce6_shared_memory_struct",
        entry_point="reduce6<float, {{wg_x}}, false>",
        sources={"cuda": _REDUCE6},
        buffers=(
            # the sample fills its input with rand(): the drawn families put near-zero
            # values at the end, where a dropped last element would not show
            # (FINDINGS_R5C.md)
            BufferSpec(
                0,
                "f32",
                "read",
                name="g_idata",
                fill=lambda rng, n, size: rng.uniform(-1.0, 1.0, n).astype(np.float32),
            ),
            BufferSpec(1, "f32", "read_write", name="partial", count=_REDUCE6_BLOCKS, scratch=True),
            BufferSpec(2, "f32", "read_write", name="total", count=1),
        ),
        reference=_total_reference,
        # the second launch passes the partials' count as the same kernel's n
        params=lambda n: {"blocks": _REDUCE6_BLOCKS},
        launches=(
            # the host code: reduce<T>(size, threads, blocks, ...) then the partials again
            Dispatch(
                "reduce6<float, {{wg_x}}, false>",
                grid=(_REDUCE6_BLOCKS, 1, 1),
                shared_bytes="wg_x * 4",
                arguments=("g_idata", "partial", "n"),
            ),
            Dispatch(
                "reduce6<float, 32, true>",
                grid=(1, 1, 1),
                schedule=Schedule(32),
                shared_bytes=32 * 4,
                arguments=("partial", "total", "blocks"),
            ),
        ),
        schedules=(Schedule(256), Schedule(128), Schedule(512)),
        tolerance={"f32": {"atol": 1e-3, "rtol": 1e-4}},
        test_sizes=(1000, 1, 100000, 4099),
    ),
    {
        "grid stride counts each block once": (
            "cuda",
            "unsigned int gridSize = blockSize * 2 * gridDim.x;",
            "unsigned int gridSize = blockSize * gridDim.x;",
        ),
        "second load misses the last element": (
            "cuda",
            "if (nIsPow2 || i + blockSize < n)",
            "if (nIsPow2 || i + blockSize + 1 < n)",
        ),
        "warp stage stops a step early": (
            "cuda",
            "offset > 0; offset /= 2",
            "offset > 1; offset /= 2",
        ),
    },
)

# -- CUB: BlockReduce per row ---------------------------------------------------------------

_CUB_ROWNORM = r"""
#include <cub/block/block_reduce.cuh>

template <int BLOCK_THREADS>
__global__ void row_l2_norm(const float* __restrict__ x, float* __restrict__ norms, int rows,
                            int cols) {
    using BlockReduce = cub::BlockReduce<float, BLOCK_THREADS>;
    __shared__ typename BlockReduce::TempStorage temp_storage;
    const int row = blockIdx.x;
    const float* xr = x + (size_t)row * cols;
    float partial = 0.0f;
    for (int c = threadIdx.x; c < cols; c += BLOCK_THREADS) {
        partial += xr[c] * xr[c];
    }
    float total = BlockReduce(temp_storage).Sum(partial);
    if (threadIdx.x == 0) norms[row] = sqrtf(total);
}
"""


def _rownorm_reference(x, norms):
    return np.sqrt((x.astype(np.float64) ** 2).sum(axis=1)).astype(np.float32)


CUB_ROWNORM = Wild(
    KernelSpec(
        id="wild_r5_cub_block_reduce_row_norm",
        entry_point="row_l2_norm<{{wg_x}}>",
        sources={"cuda": _CUB_ROWNORM},
        dims=("rows", "cols"),
        buffers=(
            BufferSpec(0, "f32", "read", name="x", count="rows*cols", shape=("rows", "cols")),
            BufferSpec(1, "f32", "read_write", name="norms", count="rows"),
        ),
        reference=_rownorm_reference,
        grid=lambda s, size: (size.rows, 1, 1),
        schedules=(Schedule(128), Schedule(256)),
        domain={"x": (-2.0, 2.0)},
        tolerance={"f32": {"rtol": 1e-5, "atol": 1e-6}},
        test_sizes=("16x1000", "1x1", "7x129"),
    ),
    {
        "thread 1 writes the sum": ("cuda", "if (threadIdx.x == 0)", "if (threadIdx.x == 1)"),
        "column stride of one warp": ("cuda", "c += BLOCK_THREADS", "c += 32"),
    },
)

# -- CUB: BlockLoad / BlockScan / BlockStore, the CUB example's tile scan ------------------------

_CUB_SCAN = r"""
#include <cub/block/block_load.cuh>
#include <cub/block/block_store.cuh>
#include <cub/block/block_scan.cuh>

template <int BLOCK_THREADS, int ITEMS_PER_THREAD>
__global__ void tile_exclusive_sum(const int* d_in, int* d_out, int num_items) {
    typedef cub::BlockLoad<int, BLOCK_THREADS, ITEMS_PER_THREAD, cub::BLOCK_LOAD_WARP_TRANSPOSE>
        BlockLoadT;
    typedef cub::BlockStore<int, BLOCK_THREADS, ITEMS_PER_THREAD, cub::BLOCK_STORE_WARP_TRANSPOSE>
        BlockStoreT;
    typedef cub::BlockScan<int, BLOCK_THREADS, cub::BLOCK_SCAN_WARP_SCANS> BlockScanT;
    __shared__ union {
        typename BlockLoadT::TempStorage load;
        typename BlockStoreT::TempStorage store;
        typename BlockScanT::TempStorage scan;
    } temp_storage;

    int block_offset = blockIdx.x * (BLOCK_THREADS * ITEMS_PER_THREAD);
    int valid = min(num_items - block_offset, BLOCK_THREADS * ITEMS_PER_THREAD);
    int data[ITEMS_PER_THREAD];
    BlockLoadT(temp_storage.load).Load(d_in + block_offset, data, valid, 0);
    __syncthreads();
    BlockScanT(temp_storage.scan).ExclusiveSum(data, data);
    __syncthreads();
    BlockStoreT(temp_storage.store).Store(d_out + block_offset, data, valid);
}
"""


def _tile_scan_reference(d_in, d_out):
    tile = 128 * 4
    out = np.empty_like(d_in)
    for start in range(0, d_in.size, tile):
        part = d_in[start : start + tile].astype(np.int64)
        out[start : start + tile] = (np.cumsum(part) - part).astype(np.int32)
    return out


CUB_SCAN = Wild(
    KernelSpec(
        id="wild_r5_cub_block_scan_tiles",
        entry_point="tile_exclusive_sum<{{wg_x}}, {{ipt}}>",
        sources={"cuda": _CUB_SCAN},
        buffers=(
            BufferSpec(0, "i32", "read", name="d_in"),
            BufferSpec(1, "i32", "read_write", name="d_out"),
        ),
        reference=_tile_scan_reference,
        # int num_items, the kernel's one integer, is the size
        grid=lambda s, n: (ceil_div(n, 128 * 4), 1, 1),
        schedules=(Schedule(128, items_per_invocation=4),),
        test_sizes=(10007, 1, 512, 4099),
    ),
    {
        "inclusive sum": ("cuda", "ExclusiveSum(data, data)", "InclusiveSum(data, data)"),
        "tile offset ignores the items per thread": (
            "cuda",
            "blockIdx.x * (BLOCK_THREADS * ITEMS_PER_THREAD)",
            "blockIdx.x * BLOCK_THREADS",
        ),
    },
)

# -- PyTorch extension: scalar_t template, int64_t grid-stride loop, explicit instantiation -----

_TORCH_BIAS_GELU = r"""
template <typename scalar_t>
__device__ __forceinline__ scalar_t gelu_tanh(scalar_t x) {
    const scalar_t kBeta = static_cast<scalar_t>(0.7978845608028654);
    const scalar_t kKappa = static_cast<scalar_t>(0.044715);
    const scalar_t inner = kBeta * (x + kKappa * x * x * x);
    return static_cast<scalar_t>(0.5) * x * (static_cast<scalar_t>(1) + tanh(inner));
}

template <typename scalar_t>
__global__ void bias_gelu_kernel(const scalar_t* __restrict__ input,
                                 const scalar_t* __restrict__ bias,
                                 scalar_t* __restrict__ output,
                                 const int64_t numel,
                                 const int64_t hidden) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < numel;
         i += (int64_t)blockDim.x * gridDim.x) {
        output[i] = gelu_tanh<scalar_t>(input[i] + bias[i % hidden]);
    }
}

template __global__ void bias_gelu_kernel<float>(const float* __restrict__,
                                                 const float* __restrict__,
                                                 float* __restrict__, const int64_t,
                                                 const int64_t);
"""


def _bias_gelu_reference(input, bias, output):
    x = (input + bias).astype(np.float64)
    output[...] = 0.5 * x * (1 + np.tanh(0.7978845608028654 * (x + 0.044715 * x**3)))


TORCH_BIAS_GELU = Wild(
    KernelSpec(
        id="wild_r5_torch_scalar_t_bias_gelu",
        entry_point="bias_gelu_kernel<float>",
        sources={"cuda": _TORCH_BIAS_GELU},
        dims=("rows", "hidden"),
        buffers=(
            BufferSpec(
                0, "f32", "read", name="input", count="rows*hidden", shape=("rows", "hidden")
            ),
            BufferSpec(1, "f32", "read", name="bias", count="hidden"),
            BufferSpec(
                2, "f32", "read_write", name="output", count="rows*hidden", shape=("rows", "hidden")
            ),
        ),
        reference=_bias_gelu_reference,
        params=lambda size: {"numel": size.rows * size.hidden},
        # const int64_t blocks = std::min((numel + threads - 1) / threads, (int64_t)32);
        grid=lambda s, size: (
            min(ceil_div(size.rows * size.hidden, s.workgroup_size[0]), 32),
            1,
            1,
        ),
        schedules=(Schedule(256),),
        domain={"input": (-6.0, 6.0), "bias": (-1.0, 1.0)},
        tolerance={"f32": {"atol": 1e-6, "rtol": 1e-5, "ulp": 8}},
        test_sizes=("64x768", "1x1", "3x1025"),
    ),
    {
        "grid stride skips every other chunk": (
            "cuda",
            "i += (int64_t)blockDim.x * gridDim.x",
            "i += 2 * (int64_t)blockDim.x * gridDim.x",
        ),
        "bias added after the activation": (
            "cuda",
            "gelu_tanh<scalar_t>(input[i] + bias[i % hidden])",
            "gelu_tanh<scalar_t>(input[i]) + bias[i % hidden]",
        ),
        "cube term squared": ("cuda", "kKappa * x * x * x", "kKappa * x * x"),
    },
)

# -- float4 loads through __ldg with a scalar tail ----------------------------------------------

_VEC4_TAIL = r"""
__global__ void scale_shift_vec4(const float* __restrict__ x, float* __restrict__ y, float scale,
                                 float shift, int n) {
    const int idx = blockIdx.x * blockDim.x + threadIdx.x;
    const int n4 = n / 4;
    if (idx < n4) {
        float4 v = __ldg(reinterpret_cast<const float4*>(x) + idx);
        float4 r;
        r.x = fmaf(v.x, scale, shift);
        r.y = fmaf(v.y, scale, shift);
        r.z = fmaf(v.z, scale, shift);
        r.w = fmaf(v.w, scale, shift);
        reinterpret_cast<float4*>(y)[idx] = r;
    }
    // the n % 4 elements past the last full vector, one per thread
    const int tail = n4 * 4 + idx;
    if (idx < n - n4 * 4) {
        y[tail] = fmaf(__ldg(x + tail), scale, shift);
    }
}
"""


def _vec4_reference(x, y, params):
    y[:] = (x.astype(np.float64) * params["scale"] + params["shift"]).astype(np.float32)


VEC4_TAIL = Wild(
    KernelSpec(
        id="wild_r5_float4_ldg_scalar_tail",
        entry_point="scale_shift_vec4",
        sources={"cuda": _VEC4_TAIL},
        buffers=(
            BufferSpec(0, "f32", "read", name="x"),
            BufferSpec(1, "f32", "read_write", name="y"),
            BufferSpec.uniform(2, (("scale", "f32"), ("shift", "f32"))),
        ),
        reference=_vec4_reference,
        defaults={"scale": 1.5, "shift": -0.25},
        grid=lambda s, n: (max(ceil_div(n // 4, s.workgroup_size[0]), 1), 1, 1),
        schedules=(Schedule(256),),
        test_sizes=(10007, 1, 3, 4096, 4099),
    ),
    {
        "tail misses its last element": (
            "cuda",
            "if (idx < n - n4 * 4)",
            "if (idx < n - n4 * 4 - 1)",
        ),
        "w lane computed from z": ("cuda", "r.w = fmaf(v.w,", "r.w = fmaf(v.z,"),
        "tail starts one vector late": ("cuda", "n4 * 4 + idx;", "(n4 + 1) * 4 + idx;"),
    },
)

# -- half2: __hadd2 then __hmul2, an odd tail in __half --------------------------------------

_HALF2_CUDA = r"""
#include <cuda_fp16.h>

__global__ void add_mul_half2(const __half* __restrict__ a, const __half* __restrict__ b,
                              const __half* __restrict__ c, __half* __restrict__ out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const __half2* a2 = reinterpret_cast<const __half2*>(a);
    const __half2* b2 = reinterpret_cast<const __half2*>(b);
    const __half2* c2 = reinterpret_cast<const __half2*>(c);
    __half2* out2 = reinterpret_cast<__half2*>(out);
    if (2 * i + 1 < n) {
        __half2 s = __hadd2(a2[i], b2[i]);
        out2[i] = __hmul2(s, c2[i]);
    } else if (2 * i < n) {
        out[2 * i] = __hmul(__hadd(a[2 * i], b[2 * i]), c[2 * i]);
    }
}
"""

_HALF2_WGSL = """
enable f16;
@group(0) @binding(0) var<storage, read> a: array<f16>;
@group(0) @binding(1) var<storage, read> b: array<f16>;
@group(0) @binding(2) var<storage, read> c: array<f16>;
@group(0) @binding(3) var<storage, read_write> out: array<f16>;

@compute @workgroup_size(64)
fn add_mul_half2(@builtin(global_invocation_id) gid: vec3<u32>) {
    let n = arrayLength(&out);
    let i = 2u * gid.x;
    if (i < n) {
        out[i] = (a[i] + b[i]) * c[i];
    }
    if (i + 1u < n) {
        out[i + 1u] = (a[i + 1u] + b[i + 1u]) * c[i + 1u];
    }
}
"""


def _half2_reference(a, b, c):
    return (a + b) * c  # numpy rounds float16 after each operation, as __hadd2/__hmul2 do


HALF2 = Wild(
    KernelSpec(
        id="wild_r5_half2_hadd2_hmul2",
        entry_point="add_mul_half2",
        sources={"cuda": _HALF2_CUDA, "wgsl": _HALF2_WGSL},
        buffers=(
            BufferSpec(0, "f16", "read", name="a", fill=(-8.0, 8.0)),
            BufferSpec(1, "f16", "read", name="b", fill=(-8.0, 8.0)),
            BufferSpec(2, "f16", "read", name="c", fill=(-8.0, 8.0)),
            BufferSpec(3, "f16", "read_write", name="out"),
        ),
        reference=_half2_reference,
        grid=lambda s, n: (ceil_div(ceil_div(n, 2), 64), 1, 1),  # a thread per pair
        schedules=(Schedule(64),),
        test_sizes=(10007, 1, 2, 4096),
    ),
    {
        "subtracts": ("cuda", "__hadd2(a2[i], b2[i])", "__hsub2(a2[i], b2[i])"),
        "last full pair half written": ("cuda", "if (2 * i + 1 < n)", "if (2 * i + 2 < n)"),
        "odd tail skipped": ("cuda", "} else if (2 * i < n) {", "} else if (false) {"),
        "wgsl: multiplies before adding": ("wgsl", "(a[i] + b[i]) * c[i]", "a[i] + b[i] * c[i]"),
        "wgsl: odd element skipped": ("wgsl", "if (i + 1u < n)", "if (i + 2u < n)"),
    },
)

# -- CUDA by Example's dot product: atomicAdd(double*) into a result cudaMemset to zero -------

_DDOT = r"""
#define THREADS_PER_BLOCK 256

__global__ void ddot_atomic(const double* __restrict__ a, const double* __restrict__ b,
                            double* c, int n) {
    __shared__ double cache[THREADS_PER_BLOCK];
    int tid = threadIdx.x + blockIdx.x * blockDim.x;
    int cacheIndex = threadIdx.x;
    double temp = 0;
    while (tid < n) {
        temp += a[tid] * b[tid];
        tid += blockDim.x * gridDim.x;
    }
    cache[cacheIndex] = temp;
    __syncthreads();
    // blockDim.x must be a power of 2
    int i = blockDim.x / 2;
    while (i != 0) {
        if (cacheIndex < i) cache[cacheIndex] += cache[cacheIndex + i];
        __syncthreads();
        i /= 2;
    }
    if (cacheIndex == 0) atomicAdd(c, cache[0]);  // c was cudaMemset to 0 by the host
}
"""


def _ddot_reference(a, b, c):
    c[0] += np.dot(a, b)


DDOT = Wild(
    KernelSpec(
        id="wild_r5_ddot_atomicadd_double",
        entry_point="ddot_atomic",
        sources={"cuda": _DDOT},
        buffers=(
            BufferSpec(0, "f64", "read", name="a", fill=(-1.0, 1.0)),
            BufferSpec(1, "f64", "read", name="b", fill=(-1.0, 1.0)),
            BufferSpec(2, "f64", "read_write", name="c", count=1, initial=0),
        ),
        reference=_ddot_reference,
        grid=lambda s, n: (min(32, ceil_div(n, 256)), 1, 1),
        schedules=(Schedule(256), Schedule(128)),
        tolerance={"f64": {"atol": 1e-11, "rtol": 1e-12}},
        test_sizes=(100000, 1, 4099),
    ),
    {
        "tree drops the second partial": ("cuda", "while (i != 0) {", "while (i != 1) {"),
        "stride of one block": ("cuda", "tid += blockDim.x * gridDim.x;", "tid += blockDim.x;"),
    },
)

# -- a 256-bin byte histogram: shared atomics, then one global atomicAdd per bin --------------

_HIST256 = r"""
__global__ void histogram_smem_atomics(const unsigned char* __restrict__ in,
                                       unsigned int* __restrict__ out, int n) {
    __shared__ unsigned int smem[256];
    for (int b = threadIdx.x; b < 256; b += blockDim.x) smem[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        atomicAdd(&smem[in[i]], 1u);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += blockDim.x) {
        atomicAdd(&out[b], smem[b]);
    }
}
"""


def _hist256_reference(data, bins):
    bins += np.bincount(data, minlength=256).astype(np.uint32)


HIST256 = Wild(
    KernelSpec(
        id="wild_r5_byte_histogram_shared_atomics",
        entry_point="histogram_smem_atomics",
        sources={"cuda": _HIST256},
        buffers=(
            BufferSpec(0, "u8", "read", name="data"),
            BufferSpec(1, "u32", "read_write", name="bins", count=256, initial=0),
        ),
        reference=_hist256_reference,
        grid=lambda s, n: (min(ceil_div(n, s.workgroup_size[0]), 64), 1, 1),
        schedules=(Schedule(128), Schedule(256)),
        test_sizes=(100000, 1, 4099),
    ),
    {
        "merges only one bin per thread": (
            "cuda",
            "for (int b = threadIdx.x; b < 256; b += blockDim.x) {\n        atomicAdd",
            "for (int b = threadIdx.x; b < blockDim.x; b += blockDim.x) {\n        atomicAdd",
        ),
        "misses the last byte": ("cuda", "i < n; i += blockDim.x", "i < n - 1; i += blockDim.x"),
    },
)

# -- cuda-samples transposeNoBankConflicts, with bounds for any size ---------------------------

_TRANSPOSE = r"""
#define TILE_DIM 32
#define BLOCK_ROWS 8

__global__ void transposeNoBankConflicts(float *odata, const float *idata, int width, int height) {
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];
    int xIndex = blockIdx.x * TILE_DIM + threadIdx.x;
    int yIndex = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS) {
        if (xIndex < width && yIndex + i < height) {
            tile[threadIdx.y + i][threadIdx.x] = idata[(yIndex + i) * width + xIndex];
        }
    }
    __syncthreads();
    xIndex = blockIdx.y * TILE_DIM + threadIdx.x;
    yIndex = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS) {
        if (xIndex < height && yIndex + i < width) {
            odata[(yIndex + i) * height + xIndex] = tile[threadIdx.x][threadIdx.y + i];
        }
    }
}
"""

TRANSPOSE = Wild(
    KernelSpec(
        id="wild_r5_transpose_padded_tile_dim3",
        entry_point="transposeNoBankConflicts",
        sources={"cuda": _TRANSPOSE},
        dims=("height", "width"),
        buffers=(
            BufferSpec(
                0, "f32", "read", name="idata", count="height*width", shape=("height", "width")
            ),
            BufferSpec(
                1,
                "f32",
                "read_write",
                name="odata",
                count="height*width",
                shape=("width", "height"),
            ),
        ),
        reference=lambda idata: idata.T,
        # dim3 grid(width / TILE_DIM, height / TILE_DIM), threads(TILE_DIM, BLOCK_ROWS);
        grid=lambda s, size: (ceil_div(size.width, 32), ceil_div(size.height, 32), 1),
        schedules=(Schedule((32, 8)),),
        test_sizes=("33x70", "1x1", "256x128", "100x37"),
    ),
    {
        "tile read untransposed": (
            "cuda",
            "= tile[threadIdx.x][threadIdx.y + i];",
            "= tile[threadIdx.y + i][threadIdx.x];",
        ),
        "output bound on the wrong dimension": (
            "cuda",
            "if (xIndex < height && yIndex + i < width)",
            "if (xIndex < width && yIndex + i < width)",
        ),
        "one row of the tile per thread": (
            "cuda",
            "for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS) {\n        if (xIndex < width",
            "for (int i = 0; i < BLOCK_ROWS; i += BLOCK_ROWS) {\n        if (xIndex < width",
        ),
    },
)

# -- gemv, one warp per row, __shfl_down_sync -----------------------------------------------

_GEMV = r"""
__global__ void gemv_warp_per_row(const float* __restrict__ A, const float* __restrict__ x,
                                  float* __restrict__ y, int M, int K) {
    const int warp_id = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;
    const int lane = threadIdx.x % warpSize;
    if (warp_id >= M) return;
    float sum = 0.0f;
    for (int k = lane; k < K; k += warpSize) {
        sum += A[(size_t)warp_id * K + k] * __ldg(&x[k]);
    }
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
        sum += __shfl_down_sync(0xffffffff, sum, offset);
    }
    if (lane == 0) y[warp_id] = sum;
}
"""


def _gemv_reference(A, x, y):
    return (A.astype(np.float64) @ x.astype(np.float64)).astype(np.float32)


GEMV = Wild(
    KernelSpec(
        id="wild_r5_gemv_warp_per_row_shfl",
        entry_point="gemv_warp_per_row",
        sources={"cuda": _GEMV},
        dims=("M", "K"),
        buffers=(
            BufferSpec(0, "f32", "read", name="A", count="M*K", shape=("M", "K")),
            BufferSpec(1, "f32", "read", name="x", count="K"),
            BufferSpec(2, "f32", "read_write", name="y", count="M"),
        ),
        reference=_gemv_reference,
        grid=lambda s, size: (ceil_div(size.M * 32, s.workgroup_size[0]), 1, 1),
        schedules=(Schedule(128), Schedule(256)),
        domain={"A": (-1.0, 1.0), "x": (-1.0, 1.0)},
        tolerance={"f32": {"atol": 1e-5, "rtol": 1e-5}},
        test_sizes=("100x1000", "1x1", "33x45", "5x4099"),
    ),
    {
        "lane 31 writes": ("cuda", "if (lane == 0) y[warp_id]", "if (lane == 31) y[warp_id]"),
        "shuffle starts at 8": ("cuda", "int offset = 16;", "int offset = 8;"),
        "column stride of half a warp": ("cuda", "k += warpSize", "k += warpSize / 2"),
    },
)

# -- GPU Gems 3, 39.2: Blelloch scan with bank-conflict offsets, the whole-array version ------
# (scan each 512-element block, scan the block sums with the same kernel, add them back)

_BLELLOCH = r"""
#define NUM_BANKS 32
#define LOG_NUM_BANKS 5
#define CONFLICT_FREE_OFFSET(n) ((n) >> LOG_NUM_BANKS)

__global__ void prescan(float *g_odata, const float *g_idata, float *g_sums, int n) {
    extern __shared__ float temp[];
    int thid = threadIdx.x;
    int blockN = 2 * blockDim.x;
    int base = blockIdx.x * blockN;
    int offset = 1;
    int ai = thid;
    int bi = thid + blockDim.x;
    int bankOffsetA = CONFLICT_FREE_OFFSET(ai);
    int bankOffsetB = CONFLICT_FREE_OFFSET(bi);
    temp[ai + bankOffsetA] = (base + ai < n) ? g_idata[base + ai] : 0.0f;
    temp[bi + bankOffsetB] = (base + bi < n) ? g_idata[base + bi] : 0.0f;
    for (int d = blockN >> 1; d > 0; d >>= 1) {  // build sum in place up the tree
        __syncthreads();
        if (thid < d) {
            int ai = offset * (2 * thid + 1) - 1;
            int bi = offset * (2 * thid + 2) - 1;
            ai += CONFLICT_FREE_OFFSET(ai);
            bi += CONFLICT_FREE_OFFSET(bi);
            temp[bi] += temp[ai];
        }
        offset *= 2;
    }
    if (thid == 0) {
        int last = blockN - 1 + CONFLICT_FREE_OFFSET(blockN - 1);
        g_sums[blockIdx.x] = temp[last];
        temp[last] = 0;  // clear the last element
    }
    for (int d = 1; d < blockN; d *= 2) {  // traverse down tree & build scan
        offset >>= 1;
        __syncthreads();
        if (thid < d) {
            int ai = offset * (2 * thid + 1) - 1;
            int bi = offset * (2 * thid + 2) - 1;
            ai += CONFLICT_FREE_OFFSET(ai);
            bi += CONFLICT_FREE_OFFSET(bi);
            float t = temp[ai];
            temp[ai] = temp[bi];
            temp[bi] += t;
        }
    }
    __syncthreads();
    if (base + ai < n) g_odata[base + ai] = temp[ai + bankOffsetA];
    if (base + bi < n) g_odata[base + bi] = temp[bi + bankOffsetB];
}

__global__ void uniform_add(float *g_data, const float *incr, int n) {
    int base = blockIdx.x * 2 * blockDim.x;
    float add = incr[blockIdx.x];
    if (base + threadIdx.x < n) g_data[base + threadIdx.x] += add;
    if (base + threadIdx.x + blockDim.x < n) g_data[base + threadIdx.x + blockDim.x] += add;
}
"""

_SCAN_TILE = 512


def _blelloch_reference(g_idata, g_odata):
    x = g_idata.astype(np.float64)
    return (np.cumsum(x) - x).astype(np.float32)


BLELLOCH = Wild(
    KernelSpec(
        id="wild_r5_blelloch_scan_bank_offsets",
        entry_point="prescan",
        sources={"cuda": _BLELLOCH},
        buffers=(
            BufferSpec(0, "f32", "read", name="g_idata", fill=(-1.0, 1.0)),
            BufferSpec(1, "f32", "read_write", name="g_odata"),
            BufferSpec(
                2,
                "f32",
                "read_write",
                name="sums",
                count=lambda n: ceil_div(n, _SCAN_TILE),
                scratch=True,
            ),
            BufferSpec(
                3,
                "f32",
                "read_write",
                name="sums_scanned",
                count=lambda n: ceil_div(n, _SCAN_TILE),
                scratch=True,
            ),
            BufferSpec(4, "f32", "read_write", name="grand_total", count=1, scratch=True),
            BufferSpec.uniform(5, (("n", "i32"), ("nblocks", "i32"))),
        ),
        reference=_blelloch_reference,
        params=lambda n: {"n": n, "nblocks": ceil_div(n, _SCAN_TILE)},
        launches=(
            Dispatch(
                "prescan",
                grid=lambda s, n: (ceil_div(n, _SCAN_TILE), 1, 1),
                shared_bytes=(_SCAN_TILE + _SCAN_TILE // 32) * 4,
                arguments=("g_odata", "g_idata", "sums", "n"),
            ),
            Dispatch(
                "prescan",
                grid=(1, 1, 1),
                shared_bytes=(_SCAN_TILE + _SCAN_TILE // 32) * 4,
                arguments=("sums_scanned", "sums", "grand_total", "nblocks"),
            ),
            Dispatch(
                "uniform_add",
                grid=lambda s, n: (ceil_div(n, _SCAN_TILE), 1, 1),
                arguments=("g_odata", "sums_scanned", "n"),
            ),
        ),
        schedules=(Schedule(_SCAN_TILE // 2),),
        nonfinite_inputs=False,
        tolerance={"f32": {"atol": 2e-4, "rtol": 1e-5}},
        test_sizes=(10007, 1, 512, 100000),
    ),
    {
        "root left uncleared": ("cuda", "temp[last] = 0;  // clear the last element", ""),
        "down-sweep swaps without adding": ("cuda", "temp[bi] += t;", "temp[bi] = t;"),
        "block sums added one block late": (
            "cuda",
            "float add = incr[blockIdx.x];",
            "float add = blockIdx.x > 0 ? incr[blockIdx.x - 1] : 0.0f;",
        ),
    },
)

# -- the bitonic sort step kernel (j, k by value, one launch per step) ------------------------
# As written: ``int j, int k`` by value, each launch giving its own through
# ``Dispatch.overrides``.

_BITONIC = r"""
__global__ void bitonic_sort_step(float *dev_values, int j, int k) {
    unsigned int i, ixj; /* Sorting partners: i and ixj */
    i = threadIdx.x + blockDim.x * blockIdx.x;
    ixj = i ^ j;
    /* The threads with the lowest ids sort the array. */
    if ((ixj) > i) {
        if ((i & k) == 0) {
            /* Sort ascending */
            if (dev_values[i] > dev_values[ixj]) {
                float temp = dev_values[i];
                dev_values[i] = dev_values[ixj];
                dev_values[ixj] = temp;
            }
        }
        if ((i & k) != 0) {
            /* Sort descending */
            if (dev_values[i] < dev_values[ixj]) {
                float temp = dev_values[i];
                dev_values[i] = dev_values[ixj];
                dev_values[ixj] = temp;
            }
        }
    }
}
"""


def _bitonic_launches(n):
    passes = []
    k = 2
    while k <= n:  # Major step
        j = k >> 1
        while j > 0:  # Minor step
            passes.append(
                Dispatch(
                    "bitonic_sort_step",
                    grid=lambda s, n: (n // s.workgroup_size[0], 1, 1),
                    overrides={"j": j, "k": k},
                )
            )
            j >>= 1
        k <<= 1
    return tuple(passes)


BITONIC = Wild(
    KernelSpec(
        id="wild_r5_bitonic_sort_step_launches",
        entry_point="bitonic_sort_step",
        sources={"cuda": _BITONIC},
        buffers=(
            BufferSpec(
                0,
                "f32",
                "read_write",
                name="dev_values",
                inout=True,
                fill=lambda rng, n, size: rng.standard_normal(n).astype(np.float32),
            ),
        ),
        reference=lambda dev_values: np.sort(dev_values),
        launches=_bitonic_launches,
        schedules=(Schedule(256),),
        nonfinite_inputs=False,
        test_sizes=(1024, 256, 4096),
    ),
    {
        "both halves ascending": (
            "cuda",
            "if (dev_values[i] < dev_values[ixj]) {",
            "if (dev_values[i] > dev_values[ixj]) {",
        ),
        "partner by addition": (
            "cuda",
            "ixj = i ^ j;",
            "ixj = (i + j) % (blockDim.x * gridDim.x);",
        ),
    },
)

# -- struct Params by value, __expf / __fdividef, --use_fast_math -------------------------------

_SIGMOID_CUDA = r"""
struct Params {
    int n;
    float alpha;
    float beta;
};

__device__ __forceinline__ float fast_sigmoid(float x) {
    return __fdividef(1.0f, 1.0f + __expf(-x));
}

extern "C" __global__ void scaled_sigmoid(const float* __restrict__ x, float* __restrict__ y,
                                          Params p) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p.n) y[i] = p.alpha * fast_sigmoid(x[i]) + p.beta;
}
"""

_SIGMOID_WGSL = """
struct Params { n: i32, alpha: f32, beta: f32 };
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

@compute @workgroup_size(128)
fn scaled_sigmoid(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = i32(gid.x);
    if (i < p.n) {
        y[i] = p.alpha / (1.0 + exp(-x[i])) + p.beta;
    }
}
"""


def _sigmoid_reference(x, y, p):
    y[:] = p["alpha"] / (1.0 + np.exp(-x.astype(np.float64))) + p["beta"]


SIGMOID = Wild(
    KernelSpec(
        id="wild_r5_struct_params_fast_math_sigmoid",
        entry_point="scaled_sigmoid",
        sources={"cuda": _SIGMOID_CUDA, "wgsl": _SIGMOID_WGSL},
        buffers=(
            BufferSpec(0, "f32", "read", name="x"),
            BufferSpec(1, "f32", "read_write", name="y"),
            BufferSpec.uniform(2, (("n", "i32"), ("alpha", "f32"), ("beta", "f32")), name="p"),
        ),
        reference=_sigmoid_reference,
        params=lambda n: {"n": n},
        defaults={"alpha": 2.0, "beta": -1.0},
        options={"cuda": ("--use_fast_math",)},
        grid=lambda s, n: (ceil_div(n, 128), 1, 1),
        schedules=(Schedule(128),),
        domain={"x": (-20.0, 20.0)},
        tolerance={"f32": {"atol": 1e-6, "rtol": 1e-5}},
        test_sizes=(10007, 1, 4099),
    ),
    {
        "struct fields declared in another order": (
            "cuda",
            "    float alpha;\n    float beta;",
            "    float beta;\n    float alpha;",
        ),
        "sign of the exponent lost": ("cuda", "__expf(-x)", "__expf(x)"),
        "wgsl: beta dropped": ("wgsl", "exp(-x[i])) + p.beta;", "exp(-x[i]));"),
    },
    refused={
        ("struct fields declared in another order", "cuda"): (
            'fields=(("n", "i32"), ("beta", "f32"), ("alpha", "f32"))'
        )
    },
)

# -- blockIdx.z batching, dim3 blocks, size_t index math ------------------------------------

_BATCHED_CUDA = r"""
__global__ void batched_scale_bias(const float* __restrict__ in, const float* __restrict__ scale,
                                   const float* __restrict__ bias, float* __restrict__ out,
                                   int B, int R, int C) {
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int b = blockIdx.z;
    if (b >= B || row >= R || col >= C) return;
    const size_t idx = ((size_t)b * R + row) * C + col;
    out[idx] = in[idx] * scale[b] + bias[col];
}
"""

_BATCHED_WGSL = """
struct Dims { B: u32, R: u32, C: u32 };
@group(0) @binding(0) var<storage, read> in_: array<f32>;
@group(0) @binding(1) var<storage, read> scale: array<f32>;
@group(0) @binding(2) var<storage, read> bias: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;
@group(0) @binding(4) var<uniform> dims: Dims;

@compute @workgroup_size(32, 8, 1)
fn batched_scale_bias(@builtin(global_invocation_id) gid: vec3<u32>) {
    let col = gid.x;
    let row = gid.y;
    let b = gid.z;
    if (b >= dims.B || row >= dims.R || col >= dims.C) { return; }
    let idx = (b * dims.R + row) * dims.C + col;
    out[idx] = in_[idx] * scale[b] + bias[col];
}
"""


def _batched_reference(inp, scale, bias, out, dims):
    out[...] = inp * scale[:, None, None] + bias[None, None, :]


BATCHED = Wild(
    KernelSpec(
        id="wild_r5_batched_blockidx_z_size_t",
        entry_point="batched_scale_bias",
        sources={"cuda": _BATCHED_CUDA, "wgsl": _BATCHED_WGSL},
        dims=("B", "R", "C"),
        buffers=(
            BufferSpec(0, "f32", "read", name="in", count="B*R*C", shape=("B", "R", "C")),
            BufferSpec(1, "f32", "read", name="scale", count="B"),
            BufferSpec(2, "f32", "read", name="bias", count="C"),
            BufferSpec(3, "f32", "read_write", name="out", count="B*R*C", shape=("B", "R", "C")),
            BufferSpec.uniform(4, (("B", "u32"), ("R", "u32"), ("C", "u32")), name="dims"),
        ),
        reference=_batched_reference,
        params=lambda size: dict(size.dims),
        # dim3 block(32, 8); dim3 grid((C + 31) / 32, (R + 7) / 8, B);
        grid=lambda s, size: (ceil_div(size.C, 32), ceil_div(size.R, 8), size.B),
        schedules=(Schedule((32, 8)),),
        test_sizes=("4x33x70", "1x1x1", "3x8x32", "7x17x5"),
    ),
    {
        "batch stride ignores rows": (
            "cuda",
            "((size_t)b * R + row) * C + col",
            "((size_t)b + row) * C + col",
        ),
        "every batch scaled by the first": (
            "cuda",
            "const int b = blockIdx.z;",
            "const int b = 0;",
        ),
        "wgsl: bias by row": ("wgsl", "+ bias[col];", "+ bias[row % dims.C];"),
    },
)

# -- tiled SGEMM templated on its tile: #pragma unroll, constexpr, a __device__ helper ----------

_SGEMM_TILED = r"""
template <int TILE>
__device__ __forceinline__ float load_or_zero(const float* __restrict__ p, int r, int c, int rows,
                                              int cols) {
    return (r < rows && c < cols) ? p[(size_t)r * cols + c] : 0.0f;
}

template <int TILE>
__global__ void sgemm_tiled(const float* __restrict__ A, const float* __restrict__ B,
                            float* __restrict__ C, int M, int N, int K) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    constexpr int kStep = TILE;
    const int row = blockIdx.y * TILE + threadIdx.y;
    const int col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < (K + kStep - 1) / kStep; ++t) {
        As[threadIdx.y][threadIdx.x] = load_or_zero<TILE>(A, row, t * kStep + threadIdx.x, M, K);
        Bs[threadIdx.y][threadIdx.x] = load_or_zero<TILE>(B, t * kStep + threadIdx.y, col, K, N);
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) {
            acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        }
        __syncthreads();
    }
    if (row < M && col < N) C[(size_t)row * N + col] = acc;
}
"""


def _sgemm_reference(A, B, C):
    return (A.astype(np.float64) @ B.astype(np.float64)).astype(np.float32)


SGEMM_TILED = Wild(
    KernelSpec(
        id="wild_r5_sgemm_template_tile_unroll",
        entry_point="sgemm_tiled<{{wg_x}}>",
        sources={"cuda": _SGEMM_TILED},
        dims=("M", "N", "K"),
        buffers=(
            BufferSpec(0, "f32", "read", name="A", count="M*K", shape=("M", "K")),
            BufferSpec(1, "f32", "read", name="B", count="K*N", shape=("K", "N")),
            BufferSpec(2, "f32", "read_write", name="C", count="M*N", shape=("M", "N")),
        ),
        reference=_sgemm_reference,
        grid=lambda s, size: (
            ceil_div(size.N, s.workgroup_size[0]),
            ceil_div(size.M, s.workgroup_size[1]),
            1,
        ),
        schedules=(Schedule((16, 16)), Schedule((32, 32))),
        domain={"A": (-1.0, 1.0), "B": (-1.0, 1.0)},
        tolerance={"f32": {"atol": 1e-4, "rtol": 1e-4}},
        test_sizes=("33x20x45", "1x1x1", "64x64x64", "17x70x100"),
    ),
    {
        "k tiles rounded down": ("cuda", "t < (K + kStep - 1) / kStep", "t < K / kStep"),
        "B tile read transposed": ("cuda", "* Bs[k][threadIdx.x]", "* Bs[threadIdx.x][k]"),
        "A's row bound by N": (
            "cuda",
            "load_or_zero<TILE>(A, row, t * kStep + threadIdx.x, M, K)",
            "load_or_zero<TILE>(A, row, t * kStep + threadIdx.x, N, K)",
        ),
    },
)

ROUND5_CUDA = {
    w.kernel.id: w
    for w in (
        REDUCE6,
        CUB_ROWNORM,
        CUB_SCAN,
        TORCH_BIAS_GELU,
        VEC4_TAIL,
        HALF2,
        DDOT,
        HIST256,
        TRANSPOSE,
        GEMV,
        BLELLOCH,
        BITONIC,
        SIGMOID,
        BATCHED,
        SGEMM_TILED,
    )
}
