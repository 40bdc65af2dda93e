"""Round 47 of kernels from the wild, merged into ``tests.wild.CORPUS``: CUDA idioms the
corpus had no kernel for, each written for this corpus after the public source named
below (read, not copied: the project's rule for public code). What is theirs is kept:
each ``__global__`` function's name, template parameters and parameter names, types and
order (the spec binds to them), the block layouts and helper names, the launch geometry
and the numerics (integer accumulation then a float scale, the order of the float
sums, f16 inputs into f32 accumulators). What is ours: the comments, the locals' names
where the source's say nothing, the order of equivalent statements, the formatting,
and the WebGPU ports.

- An int8 dot product with ``__dp4a``: llama.cpp's ``mul_mat_vec_q`` for a q8_0 weight
  matrix times a q8_1 vector (ggml-org/llama.cpp, MIT: ``vec_dot_q8_0_q8_1_impl`` and
  ``get_int_b2``/``get_int_b4`` in ``ggml/src/ggml-cuda/vecdotq.cuh`` at 027ef876; the
  one-warp-a-row ``mul_mat_vec_q`` kernel of ``ggml-cuda/mmvq.cu`` at tag b2899, as
  vLLM's ``csrc/quantization/gguf/mmvq.cuh`` carries it): blocks of 32 int8 quants with
  an f16 scale (``block_q8_0``, 34 bytes, read as ints two bytes at a time) and the
  activations' ``block_q8_1`` (an f16 scale and sum, 32 quants), ``VDR_Q8_0_Q8_1_MMVQ``
  = 2 ints a thread, an int32 sum of ``__dp4a`` scaled by the two scales, a
  ``__shfl_xor_sync`` butterfly. The port: ``dot4I8Packed``.
- A single-pass sum with a retirement counter: cuda-samples' ``reduceSinglePass``
  (NVIDIA/cuda-samples at ceab6e8b, BSD-3-Clause,
  ``Samples/2_Concepts_and_Techniques/threadFenceReduction/threadFenceReduction_kernel.cuh``):
  each block's partial sum, ``__threadfence()``, a ``__device__ unsigned int
  retirementCount`` ticket taken with ``atomicInc``, the last block summing the partials
  and setting the counter back to 0 for the next launch. The counter is module state
  that nothing resets between launches but the kernel: the oracle's rerun (a second
  launch of the same loaded module, ``oracle._plan._rerun``) is what sees a kernel that
  leaves it set. The port keeps the counter in a storage buffer, judged to be 0 after.
- Mark Harris's reduction #6 ("Optimizing Parallel Reduction in CUDA", NVIDIA, 2007, as
  NTNU-HPC-Lab/LS-CAT at 5169c64f holds it, ``data/kernels/977/6/reduce6.cu``; LS-CAT is a
  data set of public kernels) with its warp-synchronous last warp through a ``volatile``
  shared pointer, and the same with ``__syncwarp()`` between each read and write, as
  NVIDIA's "Using CUDA Warp-Level Primitives" (2018) rewrites it for independent thread
  scheduling. The port: a workgroup tree with barriers (WGSL has no warp-synchronous
  idiom: lavapipe's subgroups are 8 wide).
- A warp-aggregated filter with ``__ballot_sync`` and ``__popc``: ``atomicAggInc`` as
  AlanIWBFT/GPULightmass at 6581117f (MIT) writes it in
  ``GPULightmassKernel/rt/rtWarpAggregation.h`` after NVIDIA's "Optimized Filtering with
  Warp-Aggregated Atomics" (2014), and that post's ``filter_k`` (keep the positives). The
  output order depends on the atomics: the output is ``unordered`` with a sentinel
  (round 36's ``filter_arr`` is the cooperative-groups form of the same filter).
- A tensor-core tile with inline PTX: Bruce-Lee-LY/cuda_hgemm at 0d26c2e4 (MIT),
  ``src/mma/mma_naive.cu``'s geometry (one warp a 16 x 8 tile of C, A M x K row-major
  and B N x K, column-major K x N, staged in shared memory, ``ldmatrix.x4``/``.x2`` and
  ``mma.sync.aligned.m16n8k16.row.col``) with ``src/mma/mma_async.cu``'s name,
  signature and loads (``mmaAsyncKernel(A, B, C, size_t M, N, K)``: 16 bytes a lane by
  ``cp.async.cg``, ``commit_group``, ``wait_group 0``, then ``__syncthreads``) and the
  macros of ``src/common/ptx.h``. Ours: the f32 accumulators (the tutorial accumulates
  in f16, ``.f16.f16.f16.f16`` into a half C; here ``.f32.f16.f16.f32`` into a float
  C, each K tile's product added into ``acc_t`` accumulators, the form a mutant can
  narrow to half) and the fragment stored straight from registers; sm_80 and later.
  The port (f16 on lavapipe) keeps the fragment mapping and the per-tile f32 sums.
- A kernel with a debug ``printf`` left in: a SAXPY printing its arguments from thread 0
  of block 0, the way cuda-samples' ``simplePrintf`` prints (NVIDIA/cuda-samples at
  ca37378c, BSD-3-Clause, ``Samples/0_Introduction/simplePrintf/simplePrintf.cu``; the
  SAXPY is ours). NVRTC has ``printf`` built in (``vprintf``); the driver writes what
  a kernel prints to the process's stdout when the launch is synchronised: the oracle
  runs device code in a worker whose stdout is ``/dev/null`` (``oracle._spawn``), so
  the print goes nowhere and cannot reach a report or the worker's pipes.

What they showed is pinned in tests/test_wild_round47.py and summed up there.
"""

# ruff: noqa: E501  (long lines of CUDA and WGSL, and the mutants')

from __future__ import annotations

import numpy as np

from forge import BufferSpec, KernelSpec, Schedule, ceil_div

from . import Wild

# -- 1. llama.cpp: mul_mat_vec_q for q8_0 x q8_1 with __dp4a -----------------------------

_MMVQ_CUDA = r"""// kernel-forge corpus: llama.cpp's q8_0 x q8_1 matrix-vector product (read, not copied).
#include <cuda_fp16.h>
#include <cstdint>

#define WARP_SIZE 32
#define QK8_0 32
#define QI8_0 (QK8_0 / (4 * 1))
#define QK8_1 32
#define QI8_1 (QK8_1 / (4 * 1))
#define VDR_Q8_0_Q8_1_MMVQ 2

// a weight block: one f16 scale, then 32 int8 quants (34 bytes, so its quants are only
// two-byte aligned)
typedef struct {
    half d;
    int8_t qs[QK8_0];
} block_q8_0;

// an activation block: its f16 scale and the scaled sum of its quants, then the quants
typedef struct {
    half2 ds;
    int8_t qs[QK8_1];
} block_q8_1;

// the i32-th group of four quants, from two 16-bit loads
static __device__ __forceinline__ int get_int_b2(const void * x, const int & i32) {
    const uint16_t * halves = (const uint16_t *) x;
    return halves[2 * i32] | (halves[2 * i32 + 1] << 16);
}

// the same, from a four-byte-aligned block
static __device__ __forceinline__ int get_int_b4(const void * x, const int & i32) {
    return ((const int *) x)[i32];
}

template <int vdr> static __device__ __forceinline__ float vec_dot_q8_0_q8_1_impl(
    const int * v, const int * u, const float & d8_0, const float & d8_1) {
    int sumi = 0;
#pragma unroll
    for (int i = 0; i < vdr; ++i) {
        // four int8 products added into the int32 sum at once
        sumi = __dp4a(v[i], u[i], sumi);
    }
    return d8_0 * d8_1 * sumi;
}

static __device__ __forceinline__ float vec_dot_q8_0_q8_1(
    const void * __restrict__ vbq, const block_q8_1 * __restrict__ bq8_1, const int & iqs) {
    const block_q8_0 * bq8_0 = (const block_q8_0 *) vbq;
    int v[VDR_Q8_0_Q8_1_MMVQ];
    int u[VDR_Q8_0_Q8_1_MMVQ];
#pragma unroll
    for (int i = 0; i < VDR_Q8_0_Q8_1_MMVQ; ++i) {
        v[i] = get_int_b2(bq8_0->qs, iqs + i);
        u[i] = get_int_b4(bq8_1->qs, iqs + i);
    }
    return vec_dot_q8_0_q8_1_impl<VDR_Q8_0_Q8_1_MMVQ>(v, u, __half2float(bq8_0->d), __low2float(bq8_1->ds));
}

typedef float (*vec_dot_q_cuda_t)(const void * __restrict__ vbq, const block_q8_1 * __restrict__ bq8_1, const int & iqs);

// one warp a row (blockDim = (WARP_SIZE, 1)); each group of qi / vdr = 4 lanes takes
// a block, each lane vdr ints of it, a warp stepping over 8 blocks at a time
template <int qk, int qi, typename block_q_t, int vdr, vec_dot_q_cuda_t vec_dot_q_cuda>
static __global__ void mul_mat_vec_q(
    const void * __restrict__ vx, const void * __restrict__ vy, float * __restrict__ dst,
    const int ncols_x, const int nrows_x) {
    const int row = blockIdx.x * blockDim.y + threadIdx.y;
    if (row >= nrows_x) {
        return;
    }
    const int blocks_per_row = ncols_x / qk;
    const int blocks_per_warp = vdr * WARP_SIZE / qi;
    const block_q_t * x = (const block_q_t *) vx;
    const block_q8_1 * y = (const block_q8_1 *) vy;

    float tmp = 0.0f;  // this lane's share of the row
    for (int i = threadIdx.x / (qi / vdr); i < blocks_per_row; i += blocks_per_warp) {
        const int ibx = row * blocks_per_row + i;  // the weight block
        const int iby = i * (qk / QK8_1);          // the activation block beside it
        const int iqs = vdr * (threadIdx.x % (qi / vdr));
        tmp += vec_dot_q_cuda(&x[ibx], &y[iby], iqs);
    }

#pragma unroll
    for (int mask = WARP_SIZE / 2; mask > 0; mask >>= 1) {
        tmp += __shfl_xor_sync(0xffffffff, tmp, mask, 32);
    }
    if (threadIdx.x == 0) {
        dst[row] = tmp;
    }
}
"""

# A WebGPU port: one workgroup of 32 a row, the blocks' bytes read as u32 words (a weight
# block's quants two bytes at a time, as get_int_b2 reads them), dot4I8Packed for
# __dp4a, and the butterfly as a tree through workgroup memory.
_MMVQ_WGSL = """
struct Params { ncols_x: i32, nrows_x: i32 }
@group(0) @binding(0) var<storage, read> vx: array<u32>;
@group(0) @binding(1) var<storage, read> vy: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;

const QK8_0 = 32;
const QI8_0 = 8;
const VDR = 2;
const BLOCK_Q8_0_BYTES = 34u;
const BLOCK_Q8_1_WORDS = 9u;

var<workgroup> partial: array<f32, 32>;

// the 16 bits at an even byte offset of the weights
fn half_at(byte: u32) -> u32 {
    return (vx[byte / 4u] >> (8u * (byte % 4u))) & 0xffffu;
}

fn get_int_b2(block: u32, i32_: u32) -> u32 {
    let at = block * BLOCK_Q8_0_BYTES + 2u + 4u * i32_;
    return half_at(at) | (half_at(at + 2u) << 16u);
}

@compute @workgroup_size(32, 1)
fn mul_mat_vec_q(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let row = i32(wg.x);
    let lane = i32(lid.x);
    let blocks_per_row = p.ncols_x / QK8_0;
    let blocks_per_warp = VDR * 32 / QI8_0;
    var tmp = 0.0;
    if (row < p.nrows_x) {
        for (var i = lane / (QI8_0 / VDR); i < blocks_per_row; i += blocks_per_warp) {
            let ibx = u32(row * blocks_per_row + i);
            let iby = u32(i);
            let iqs = u32(VDR * (lane % (QI8_0 / VDR)));
            var sumi = 0;
            for (var k = 0u; k < u32(VDR); k++) {
                sumi += dot4I8Packed(get_int_b2(ibx, iqs + k), vy[iby * BLOCK_Q8_1_WORDS + 1u + iqs + k]);
            }
            let d8_0 = unpack2x16float(half_at(ibx * BLOCK_Q8_0_BYTES)).x;
            let d8_1 = unpack2x16float(vy[iby * BLOCK_Q8_1_WORDS]).x;
            tmp += d8_0 * d8_1 * f32(sumi);
        }
    }
    partial[lid.x] = tmp;
    workgroupBarrier();
    for (var mask = 16u; mask > 0u; mask >>= 1u) {
        if (lid.x < mask) {
            partial[lid.x] += partial[lid.x + mask];
        }
        workgroupBarrier();
    }
    if (lid.x == 0u && row < p.nrows_x) {
        dst[row] = partial[0];
    }
}
"""


def _f16_scales(rng, count):
    """Scales as a quantiser makes them, max|x| / 127 of a block: either sign here, of
    magnitudes 2**-12 to 2**-4, all finite f16."""
    magnitude = np.exp2(rng.uniform(-12.0, -4.0, count))
    return (magnitude * rng.choice([-1.0, 1.0], count)).astype(np.float16)


def _q8_0_blocks(rng, count, size):
    """The weights: nrows x ncols / 32 blocks of an f16 scale and 32 int8 quants."""
    blocks = size.nrows * (size.ncols // 32)
    raw = np.zeros((blocks, 34), np.uint8)
    raw[:, 0:2] = _f16_scales(rng, blocks).view(np.uint8).reshape(blocks, 2)
    raw[:, 2:] = rng.integers(-127, 128, (blocks, 32), dtype=np.int8).view(np.uint8)
    return raw.reshape(-1)


def _q8_1_blocks(rng, count, size):
    """The activations: ncols / 32 blocks of (scale, scale * sum of quants) and 32 quants."""
    blocks = size.ncols // 32
    quants = rng.integers(-127, 128, (blocks, 32), dtype=np.int8)
    d = _f16_scales(rng, blocks)
    s = (d.astype(np.float32) * quants.astype(np.float32).sum(axis=1)).astype(np.float16)
    raw = np.zeros((blocks, 36), np.uint8)
    raw[:, 0:4] = np.stack([d, s], axis=1).view(np.uint8).reshape(blocks, 4)
    raw[:, 4:] = quants.view(np.uint8)
    return raw.reshape(-1)


def _mmvq_reference(vx, vy, dst, nrows, ncols):
    blocks = ncols // 32
    x = vx.reshape(nrows, blocks, 34)
    y = vy.reshape(blocks, 36)
    dx = x[:, :, 0:2].copy().view(np.float16)[:, :, 0].astype(np.float32)
    qx = x[:, :, 2:].copy().view(np.int8).astype(np.int64)
    dy = y[:, 0:2].copy().view(np.float16)[:, 0].astype(np.float32)
    qy = y[:, 4:].copy().view(np.int8).astype(np.int64)
    # each lane's share: 8 quants of a block (4 lanes a block), an exact int32 sum
    sumi = (qx * qy[None]).reshape(nrows, blocks, 4, 8).sum(axis=3)
    shares = (dx * dy[None])[:, :, None] * sumi.astype(np.float32)
    return shares.reshape(nrows, -1).sum(axis=1, dtype=np.float64)


MMVQ = Wild(
    KernelSpec(
        id="wild_r47_llama_cpp_mmvq_q8_0_q8_1_dp4a",
        entry_point="mul_mat_vec_q",
        # the host's mul_mat_vec_q8_0_q8_1_cuda launches this instance
        entry_points={
            "cuda": "mul_mat_vec_q<QK8_0, QI8_0, block_q8_0, VDR_Q8_0_Q8_1_MMVQ, vec_dot_q8_0_q8_1>"
        },
        sources={"cuda": _MMVQ_CUDA, "wgsl": _MMVQ_WGSL},
        dims=("nrows", "ncols"),
        buffers=(
            BufferSpec(
                0,
                "u8",
                "read",
                name="vx",
                count=lambda size: size.nrows * (size.ncols // 32) * 34,
                fill=_q8_0_blocks,
            ),
            BufferSpec(
                1,
                "u8",
                "read",
                name="vy",
                count=lambda size: size.ncols // 32 * 36,
                fill=_q8_1_blocks,
            ),
            BufferSpec(2, "f32", "read_write", name="dst", count="nrows"),
            BufferSpec.uniform(3, (("ncols_x", "i32"), ("nrows_x", "i32")), name="p"),
        ),
        reference=_mmvq_reference,
        params=lambda size: {"ncols_x": size.ncols, "nrows_x": size.nrows},
        # block_nums(nrows, 1, 1), block_dims(WARP_SIZE, 1, 1)
        grid=lambda s, size: (size.nrows, 1, 1),
        schedules=(Schedule((32, 1)),),
        test_sizes=("nrows=13,ncols=800", "nrows=1,ncols=32", "nrows=5,ncols=4096"),
    ),
    {
        "CUDA: a lane's ints one apart, not vdr": (
            "cuda",
            "const int iqs = vdr * (threadIdx.x % (qi / vdr));",
            "const int iqs = threadIdx.x % (qi / vdr);",
        ),
        "CUDA: the activation's sum taken for its scale": (
            "cuda",
            "__low2float(bq8_1->ds)",
            "__high2float(bq8_1->ds)",
        ),
        "CUDA: the butterfly stops at two lanes": (
            "cuda",
            "mask > 0; mask >>= 1",
            "mask > 1; mask >>= 1",
        ),
        "CUDA: the weights read from the block's start, its scale as quants": (
            "cuda",
            "v[i] = get_int_b2(bq8_0->qs, iqs + i);",
            "v[i] = get_int_b2(bq8_0, iqs + i);",
        ),
        "a lane's ints one apart, not vdr": (
            "wgsl",
            "let iqs = u32(VDR * (lane % (QI8_0 / VDR)));",
            "let iqs = u32(lane % (QI8_0 / VDR));",
        ),
        "the activation's sum taken for its scale": (
            "wgsl",
            "unpack2x16float(vy[iby * BLOCK_Q8_1_WORDS]).x",
            "unpack2x16float(vy[iby * BLOCK_Q8_1_WORDS]).y",
        ),
        "the tree stops at two lanes": ("wgsl", "mask > 0u; mask >>= 1u", "mask > 1u; mask >>= 1u"),
    },
)


# -- 2. cuda-samples: threadFenceReduction's reduceSinglePass ----------------------------

_FENCE_CUDA = r"""// kernel-forge corpus: cuda-samples' threadFenceReduction (read, not copied).
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

// Sums one value a thread into sdata[0] for the block: each warp halves its 32 values
// in shared memory (synchronising the warp's tile between steps), then thread 0 adds
// the warps' sums.
template <unsigned int blockSize>
__device__ void reduceBlock(volatile float *sdata, float mySum, const unsigned int tid, cg::thread_block cta) {
    cg::thread_block_tile<32> tile32 = cg::tiled_partition<32>(cta);
    sdata[tid] = mySum;
    cg::sync(tile32);

    const int lane = tid & 31;
    float running = mySum;
    for (int half_width = 16; half_width > 0; half_width >>= 1) {
        if (lane < half_width) {
            running += sdata[tid + half_width];
            sdata[tid] = running;
        }
        cg::sync(tile32);
    }
    cg::sync(cta);

    if (cta.thread_rank() == 0) {
        float total = 0;
        for (int w = 0; w < blockDim.x; w += 32) {
            total += sdata[w];
        }
        sdata[0] = total;
    }
    cg::sync(cta);
}

// A block's partial sum into g_odata[blockIdx.x]: each thread adds pairs blockSize
// apart, striding over the whole grid's span.
template <unsigned int blockSize, bool nIsPow2>
__device__ void reduceBlocks(const float *g_idata, float *g_odata, unsigned int n, cg::thread_block cta) {
    extern __shared__ float sdata[];
    const unsigned int tid = threadIdx.x;
    const unsigned int gridSize = blockSize * 2 * gridDim.x;
    float mySum = 0;
    for (unsigned int i = blockIdx.x * (blockSize * 2) + threadIdx.x; i < n; i += gridSize) {
        mySum += g_idata[i];
        if (nIsPow2 || i + blockSize < n) {
            mySum += g_idata[i + blockSize];
        }
    }
    reduceBlock<blockSize>(sdata, mySum, tid, cta);
    if (tid == 0) {
        g_odata[blockIdx.x] = sdata[0];
    }
}

// How many blocks have finished this launch; the last one puts it back to 0.
__device__ unsigned int retirementCount = 0;

// The whole sum in one launch: every block writes its partial sum, makes it visible
// to the other blocks (__threadfence), then takes a ticket; the block that draws the
// last ticket adds all the partials into g_odata[0].
template <unsigned int blockSize, bool nIsPow2>
__global__ void reduceSinglePass(const float *g_idata, float *g_odata, unsigned int n) {
    cg::thread_block cta = cg::this_thread_block();
    reduceBlocks<blockSize, nIsPow2>(g_idata, g_odata, n, cta);

    if (gridDim.x > 1) {
        const unsigned int tid = threadIdx.x;
        __shared__ bool amLast;
        extern float __shared__ smem[];

        __threadfence();

        if (tid == 0) {
            const unsigned int ticket = atomicInc(&retirementCount, gridDim.x);
            amLast = (ticket == gridDim.x - 1);
        }
        cg::sync(cta);

        if (amLast) {
            float mySum = 0;
            for (int i = tid; i < gridDim.x; i += blockSize) {
                mySum += g_odata[i];
            }
            reduceBlock<blockSize>(smem, mySum, tid, cta);
            if (tid == 0) {
                g_odata[0] = smem[0];
                // so that the next launch starts counting from 0
                retirementCount = 0;
            }
        }
    }
}
"""


def _fence_blocks(n: int) -> int:
    """The sample's getNumBlocksAndThreads at 128 threads (n >= 256) and maxBlocks 64:
    n / 256 blocks, at least 1, at most 64 (a grid-stride loop takes the rest)."""
    return min(64, max(1, int(n) // 256))


def _fence_reference(g_idata, g_odata, n):
    blocks = _fence_blocks(n)
    x = g_idata.astype(np.float64)
    # which block sums element i: the pair of 256 it falls in, taken round the grid
    owner = (np.arange(n) // 256) % blocks
    partials = np.bincount(owner, weights=x, minlength=blocks)
    out = partials.copy()
    out[0] = partials.sum()
    return out


FENCE_REDUCTION = Wild(
    KernelSpec(
        id="wild_r47_cuda_samples_threadfence_reduction",
        entry_point="reduceSinglePass<128, false>",
        sources={"cuda": _FENCE_CUDA},
        buffers=(
            BufferSpec(0, "f32", "read", name="g_idata"),
            BufferSpec(1, "f32", "read_write", name="g_odata", count=_fence_blocks),
        ),
        reference=_fence_reference,
        grid=lambda s, n: (_fence_blocks(n), 1, 1),
        schedules=(Schedule(128),),
        shared_bytes=128 * 4,
        test_sizes=(20011, 1, 1000),
    ),
    {
        "CUDA: the counter left set for the next launch": (
            "cuda",
            "                retirementCount = 0;\n",
            "",
        ),
        "CUDA: the last block is the one whose ticket is gridDim.x": (
            "cuda",
            "amLast = (ticket == gridDim.x - 1);",
            "amLast = (ticket == gridDim.x);",
        ),
        "CUDA: the last block sums only its own warp's partials": (
            "cuda",
            "for (int i = tid; i < gridDim.x; i += blockSize) {",
            "for (int i = tid; i < gridDim.x && i < 32; i += blockSize) {",
        ),
    },
)

# A WebGPU port: the counter is a storage buffer (WebGPU has no module-scope storage),
# taken with atomicAdd; the last workgroup is told to the others through workgroup
# memory read uniformly, and it puts the counter back to 0 as the sample does.
_FENCE_WGSL = """
@group(0) @binding(0) var<storage, read> g_idata: array<f32>;
@group(0) @binding(1) var<storage, read_write> g_odata: array<f32>;
@group(0) @binding(2) var<storage, read_write> retirementCount: array<atomic<u32>>;

const blockSize = 128u;
var<workgroup> sdata: array<f32, 128>;
var<workgroup> amLast: bool;

fn reduceBlock(mySum: f32, tid: u32) {
    sdata[tid] = mySum;
    workgroupBarrier();
    for (var half_width = blockSize / 2u; half_width > 0u; half_width >>= 1u) {
        if (tid < half_width) {
            sdata[tid] += sdata[tid + half_width];
        }
        workgroupBarrier();
    }
}

@compute @workgroup_size(128)
fn reduceSinglePass(@builtin(local_invocation_id) lid: vec3<u32>,
                    @builtin(workgroup_id) wg: vec3<u32>,
                    @builtin(num_workgroups) groups: vec3<u32>) {
    let tid = lid.x;
    let n = arrayLength(&g_idata);
    let gridSize = blockSize * 2u * groups.x;
    var mySum = 0.0;
    for (var i = wg.x * blockSize * 2u + tid; i < n; i += gridSize) {
        mySum += g_idata[i];
        if (i + blockSize < n) {
            mySum += g_idata[i + blockSize];
        }
    }
    reduceBlock(mySum, tid);
    if (tid == 0u) {
        g_odata[wg.x] = sdata[0];
    }
    if (groups.x > 1u) {
        storageBarrier();
        if (tid == 0u) {
            let ticket = atomicAdd(&retirementCount[0], 1u);
            amLast = ticket == groups.x - 1u;
        }
        if (workgroupUniformLoad(&amLast)) {
            var total = 0.0;
            for (var i = tid; i < groups.x; i += blockSize) {
                total += g_odata[i];
            }
            reduceBlock(total, tid);
            if (tid == 0u) {
                g_odata[0] = sdata[0];
                atomicStore(&retirementCount[0], 0u);
            }
        }
    }
}
"""


def _fence_wgsl_reference(g_idata, g_odata, retirementCount, n):
    return _fence_reference(g_idata, g_odata, n), np.zeros(1, np.uint32)


FENCE_REDUCTION_WGSL = Wild(
    KernelSpec(
        id="wild_r47_threadfence_reduction_webgpu_port",
        entry_point="reduceSinglePass",
        sources={"wgsl": _FENCE_WGSL},
        buffers=(
            BufferSpec(0, "f32", "read", name="g_idata"),
            BufferSpec(1, "f32", "read_write", name="g_odata", count=_fence_blocks),
            BufferSpec(2, "u32", "read_write", name="retirementCount", count=1, initial=0),
        ),
        reference=_fence_wgsl_reference,
        grid=lambda s, n: (_fence_blocks(n), 1, 1),
        schedules=(Schedule(128),),
        test_sizes=(20011, 1, 1000),
    ),
    {
        "the counter left set for the next launch": (
            "wgsl",
            "                atomicStore(&retirementCount[0], 0u);\n",
            "",
        ),
        "the last workgroup is the one whose ticket is the count": (
            "wgsl",
            "amLast = ticket == groups.x - 1u;",
            "amLast = ticket == groups.x;",
        ),
    },
)


# -- 3a. Harris's reduction #6: the last warp unrolled, volatile, with and without __syncwarp

_REDUCE6_CUDA = r"""// kernel-forge corpus: Mark Harris's reduction #6 (read, not copied).
// The last warp is summed without __syncthreads(): its 32 threads were taken to run in
// lockstep, and the shared array is volatile so that each step reads what the step
// before stored rather than a value the compiler kept in a register.
template <unsigned int blockSize>
__device__ void warpReduce(volatile int *sdata, unsigned int tid) {
    if (blockSize >= 64) sdata[tid] += sdata[tid + 32];
    if (blockSize >= 32) sdata[tid] += sdata[tid + 16];
    if (blockSize >= 16) sdata[tid] += sdata[tid + 8];
    if (blockSize >= 8) sdata[tid] += sdata[tid + 4];
    if (blockSize >= 4) sdata[tid] += sdata[tid + 2];
    if (blockSize >= 2) sdata[tid] += sdata[tid + 1];
}

// Each block sums pairs blockSize apart over a grid-stride loop, then halves in shared
// memory down to one warp; g_odata gets one sum a block.
template <unsigned int blockSize>
__global__ void reduce6(int *g_idata, int *g_odata, unsigned int n) {
    extern __shared__ int sdata[];
    const unsigned int tid = threadIdx.x;
    const unsigned int gridSize = blockSize * 2 * gridDim.x;
    unsigned int i = blockIdx.x * (blockSize * 2) + tid;
    sdata[tid] = 0;
    while (i < n) {
        sdata[tid] += g_idata[i];
        if (i + blockSize < n) sdata[tid] += g_idata[i + blockSize];
        i += gridSize;
    }
    __syncthreads();

    if (blockSize >= 512) { if (tid < 256) { sdata[tid] += sdata[tid + 256]; } __syncthreads(); }
    if (blockSize >= 256) { if (tid < 128) { sdata[tid] += sdata[tid + 128]; } __syncthreads(); }
    if (blockSize >= 128) { if (tid < 64) { sdata[tid] += sdata[tid + 64]; } __syncthreads(); }

    if (tid < 32) warpReduce<blockSize>(sdata, tid);
    if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}
"""

# The same with the last warp as "Using CUDA Warp-Level Primitives" rewrites it for
# Volta's independent thread scheduling: each step reads into a register, the warp
# meets (__syncwarp), then writes, and meets again.
_REDUCE6_SYNCWARP_CUDA = _REDUCE6_CUDA.replace(
    """template <unsigned int blockSize>
__device__ void warpReduce(volatile int *sdata, unsigned int tid) {
    if (blockSize >= 64) sdata[tid] += sdata[tid + 32];
    if (blockSize >= 32) sdata[tid] += sdata[tid + 16];
    if (blockSize >= 16) sdata[tid] += sdata[tid + 8];
    if (blockSize >= 8) sdata[tid] += sdata[tid + 4];
    if (blockSize >= 4) sdata[tid] += sdata[tid + 2];
    if (blockSize >= 2) sdata[tid] += sdata[tid + 1];
}""",
    """template <unsigned int blockSize>
__device__ void warpReduce(volatile int *sdata, unsigned int tid) {
    int v = sdata[tid];
    if (blockSize >= 64) { v += sdata[tid + 32]; __syncwarp(); sdata[tid] = v; __syncwarp(); }
    if (blockSize >= 32) { v += sdata[tid + 16]; __syncwarp(); sdata[tid] = v; __syncwarp(); }
    if (blockSize >= 16) { v += sdata[tid + 8]; __syncwarp(); sdata[tid] = v; __syncwarp(); }
    if (blockSize >= 8) { v += sdata[tid + 4]; __syncwarp(); sdata[tid] = v; __syncwarp(); }
    if (blockSize >= 4) { v += sdata[tid + 2]; __syncwarp(); sdata[tid] = v; __syncwarp(); }
    if (blockSize >= 2) { v += sdata[tid + 1]; __syncwarp(); sdata[tid] = v; }
}""",
).replace(
    "// The last warp is summed without __syncthreads(): its 32 threads were taken to run in\n"
    "// lockstep, and the shared array is volatile so that each step reads what the step\n"
    "// before stored rather than a value the compiler kept in a register.",
    "// The last warp is summed without __syncthreads() but with __syncwarp() between each\n"
    "// read and write: since Volta a warp's threads need not run in lockstep.",
)
assert "__syncwarp" in _REDUCE6_SYNCWARP_CUDA

# A WebGPU port: WGSL has no warp-synchronous idiom (lavapipe runs subgroups of 8), so
# the last 64 are summed with a barrier after each step, as reduction #3 does.
_REDUCE6_WGSL = """
struct Params { n: u32 }
@group(0) @binding(0) var<storage, read> g_idata: array<i32>;
@group(0) @binding(1) var<storage, read_write> g_odata: array<i32>;
@group(0) @binding(2) var<uniform> p: Params;

const blockSize = 128u;
var<workgroup> sdata: array<i32, 128>;

@compute @workgroup_size(128)
fn reduce6(@builtin(local_invocation_id) lid: vec3<u32>,
           @builtin(workgroup_id) wg: vec3<u32>,
           @builtin(num_workgroups) groups: vec3<u32>) {
    let tid = lid.x;
    let gridSize = blockSize * 2u * groups.x;
    var i = wg.x * (blockSize * 2u) + tid;
    sdata[tid] = 0;
    while (i < p.n) {
        sdata[tid] += g_idata[i];
        if (i + blockSize < p.n) { sdata[tid] += g_idata[i + blockSize]; }
        i += gridSize;
    }
    workgroupBarrier();
    for (var s = blockSize / 2u; s > 0u; s >>= 1u) {
        if (tid < s) { sdata[tid] += sdata[tid + s]; }
        workgroupBarrier();
    }
    if (tid == 0u) { g_odata[wg.x] = sdata[0]; }
}
"""


def _reduce6_reference(g_idata, g_odata, n):
    blocks = _fence_blocks(n)
    owner = (np.arange(n) // 256) % blocks
    return np.bincount(owner, weights=g_idata.astype(np.int64), minlength=blocks).astype(np.int64)


def _reduce6_spec(kernel_id: str, cuda: str, wgsl: str | None) -> KernelSpec:
    return KernelSpec(
        id=kernel_id,
        entry_point="reduce6<128>",
        entry_points={"wgsl": "reduce6"},
        sources={"cuda": cuda, **({"wgsl": wgsl} if wgsl else {})},
        buffers=(
            BufferSpec(0, "i32", "read", name="g_idata", fill=(-1000, 1000)),
            BufferSpec(1, "i32", "read_write", name="g_odata", count=_fence_blocks),
            BufferSpec.uniform(2, (("n", "u32"),), name="p"),
        ),
        reference=_reduce6_reference,
        params=lambda n: {"n": int(n)},
        # the slides' host: 128 threads, min(64, n / 256) blocks, 128 ints of shared memory
        grid=lambda s, n: (_fence_blocks(n), 1, 1),
        schedules=(Schedule(128),),
        shared_bytes=128 * 4,
        test_sizes=(20011, 1, 1000),
    )


REDUCE6 = Wild(
    _reduce6_spec("wild_r47_harris_reduce6_volatile_warp", _REDUCE6_CUDA, _REDUCE6_WGSL),
    {
        "CUDA: the last warp taken as 16 threads": (
            "cuda",
            "if (tid < 32) warpReduce<blockSize>(sdata, tid);",
            "if (tid < 16) warpReduce<blockSize>(sdata, tid);",
        ),
        "CUDA: the second element's bound one past the end": (
            "cuda",
            "if (i + blockSize < n) sdata[tid]",
            "if (i + blockSize <= n) sdata[tid]",
        ),
        "CUDA: the shared array not volatile": (
            "cuda",
            "__device__ void warpReduce(volatile int *sdata, unsigned int tid) {",
            "__device__ void warpReduce(int *sdata, unsigned int tid) {",
        ),
        "the tree starts at a quarter of the block": (
            "wgsl",
            "for (var s = blockSize / 2u; s > 0u; s >>= 1u)",
            "for (var s = blockSize / 4u; s > 0u; s >>= 1u)",
        ),
        "the second element's bound one past the end": (
            "wgsl",
            "if (i + blockSize < p.n)",
            "if (i + blockSize <= p.n)",
        ),
    },
    # a compiler that keeps sdata[tid] in a register shows it only in the GPU's values;
    # racecheck sees the warp's unsynchronised shared accesses where they pass
    races=frozenset({"CUDA: the shared array not volatile"}),
)

REDUCE6_SYNCWARP = Wild(
    _reduce6_spec("wild_r47_harris_reduce6_syncwarp", _REDUCE6_SYNCWARP_CUDA, None),
    {
        "CUDA: the write before the warp has read": (
            "cuda",
            "if (blockSize >= 16) { v += sdata[tid + 8]; __syncwarp(); sdata[tid] = v;",
            "if (blockSize >= 16) { v += sdata[tid + 8]; sdata[tid] = v;",
        ),
        "CUDA: the step from 64 left out": (
            "cuda",
            "    if (blockSize >= 64) { v += sdata[tid + 32]; __syncwarp(); sdata[tid] = v; __syncwarp(); }\n",
            "",
        ),
    },
    # a race within the last warp: on the H100 the warp ran in step and racecheck, which
    # reports hazards between warps, found none (tests/wild/nvidia.py: invisible there)
)


# -- 3b. warp-aggregated filter: __ballot_sync, __ffs, __popc, __shfl_sync ---------------

_FILTER_CUDA = r"""// kernel-forge corpus: a warp-aggregated filter (read, not copied).
#define WARP_SZ 32

__device__ inline int lane_id(void) { return threadIdx.x % WARP_SZ; }

// One atomicAdd a warp: the warp's active lanes vote, the lowest of them adds their
// count to the counter and hands the old value to the others, each lane's slot being
// that base plus the active lanes below it.
__device__ int atomicAggInc(int *ctr) {
    const unsigned int active = __activemask();
    const int mask = __ballot_sync(active, 1);
    const int leader = __ffs(mask) - 1;
    int res;
    if (lane_id() == leader) {
        res = atomicAdd(ctr, __popc(mask));
    }
    res = __shfl_sync(active, res, leader);
    return res + __popc(mask & ((1 << lane_id()) - 1));
}

// Keep the positive elements of src, in whatever order the warps reach the counter.
__global__ void filter_k(int *dst, int *nres, const int *src, int n) {
    const int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i < n && src[i] > 0) {
        dst[atomicAggInc(nres)] = src[i];
    }
}
"""

# The port is round 36's ballot form (tests/wild/round36.py), without its grid-stride
# loop: one element an invocation, the ballot in uniform control flow.
_FILTER_WGSL = """
enable subgroups;

@group(0) @binding(0) var<storage, read_write> dst: array<i32>;
@group(0) @binding(1) var<storage, read_write> nres: array<atomic<i32>>;
@group(0) @binding(2) var<storage, read> src: array<i32>;

@compute @workgroup_size(128)
fn filter_k(@builtin(global_invocation_id) gid: vec3<u32>,
            @builtin(subgroup_invocation_id) lane: u32) {
    let i = gid.x;
    var keep = false;
    if (i < arrayLength(&src)) { keep = src[i] > 0; }
    let mask = subgroupBallot(keep).x;
    let leader = firstTrailingBit(mask);
    var res = 0i;
    if (lane == leader) {
        res = atomicAdd(&nres[0], i32(countOneBits(mask)));
    }
    res = subgroupShuffle(res, leader);
    if (keep) {
        dst[res + i32(countOneBits(mask & ((1u << lane) - 1u)))] = src[i];
    }
}
"""


def _filter_reference(dst, nres, src):
    kept = src[src > 0]
    dst[: kept.size] = kept
    nres[0] = kept.size


def _signed_small(rng, count, size):
    return rng.integers(-3, 4, count).astype(np.int32)


FILTER = Wild(
    KernelSpec(
        id="wild_r47_warp_aggregated_filter_ballot_popc",
        entry_point="filter_k",
        sources={"cuda": _FILTER_CUDA, "wgsl": _FILTER_WGSL},
        buffers=(
            BufferSpec(0, "i32", "read_write", name="dst", initial=-1, unordered=True),
            BufferSpec(1, "i32", "read_write", name="nres", count=1, initial=0),
            BufferSpec(2, "i32", "read", name="src", fill=_signed_small),
        ),
        reference=_filter_reference,
        grid=lambda s, n: (ceil_div(int(n), 128), 1, 1),
        schedules=(Schedule(128),),
        test_sizes=(10007, 1, 300),
    ),
    {
        "CUDA: a lane's slot counts itself": (
            "cuda",
            "mask & ((1 << lane_id()) - 1)",
            "mask & ((2 << lane_id()) - 1)",
        ),
        "CUDA: the leader's base not broadcast": (
            "cuda",
            "res = __shfl_sync(active, res, leader);",
            "res = lane_id() == leader ? res : 0;",
        ),
        "CUDA: the leader adds one, not the warp's count": (
            "cuda",
            "res = atomicAdd(ctr, __popc(mask));",
            "res = atomicAdd(ctr, 1);",
        ),
        "CUDA: keeps zeros": ("cuda", "src[i] > 0) {", "src[i] >= 0) {"),
        "a lane's slot counts itself": (
            "wgsl",
            "mask & ((1u << lane) - 1u)",
            "mask & ((2u << lane) - 1u)",
        ),
        "keeps zeros": ("wgsl", "keep = src[i] > 0;", "keep = src[i] >= 0;"),
    },
)


# -- 4. cuda_hgemm: one warp's 16 x 8 tile with cp.async, ldmatrix and mma.sync ----------

_MMA_CUDA = r"""// kernel-forge corpus: an ldmatrix / mma.sync tile after Bruce-Lee-LY's cuda_hgemm (read, not copied).
#include <cuda_fp16.h>
#include <cstdint>

#define MMA_M 16
#define MMA_N 8
#define MMA_K 16
#define WARP_SIZE 32

#define div_ceil(a, b) (((a) + (b) - 1) / (b))

#define LDMATRIX_X2(R0, R1, addr) \
    asm volatile("ldmatrix.sync.aligned.x2.m8n8.shared.b16 {%0, %1}, [%2];\n" : "=r"(R0), "=r"(R1) : "r"(addr))

#define LDMATRIX_X4(R0, R1, R2, R3, addr)                                             \
    asm volatile("ldmatrix.sync.aligned.x4.m8n8.shared.b16 {%0, %1, %2, %3}, [%4];\n" \
                 : "=r"(R0), "=r"(R1), "=r"(R2), "=r"(R3)                             \
                 : "r"(addr))

// D = A * B + C with f16 A and B, f32 C and D
#define HMMA16816F32(RD0, RD1, RD2, RD3, RA0, RA1, RA2, RA3, RB0, RB1, RC0, RC1, RC2, RC3)                                  \
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};\n" \
                 : "=f"(RD0), "=f"(RD1), "=f"(RD2), "=f"(RD3)                                                                  \
                 : "r"(RA0), "r"(RA1), "r"(RA2), "r"(RA3), "r"(RB0), "r"(RB1), "f"(RC0), "f"(RC1), "f"(RC2), "f"(RC3))

#define CP_ASYNC_CG(dst, src, Bytes) \
    asm volatile("cp.async.cg.shared.global [%0], [%1], %2;\n" ::"r"(dst), "l"(src), "n"(Bytes))
#define CP_ASYNC_COMMIT_GROUP() asm volatile("cp.async.commit_group;\n" ::)
#define CP_ASYNC_WAIT_GROUP(N) asm volatile("cp.async.wait_group %0;\n" ::"n"(N))

// the type the tile's sums are kept in across the K tiles
typedef float acc_t;

// C (M x N, row-major, f32) = A (M x K, row-major) times B given as N x K (its
// columns contiguous), one warp a 16 x 8 tile of C; M, N and K multiples of the tile.
__global__ void mmaAsyncKernel(const half *__restrict__ A, const half *__restrict__ B, float *__restrict__ C, size_t M,
                               size_t N, size_t K) {
    const size_t K_tiles = div_ceil(K, MMA_K);
    const size_t warp_row = blockIdx.y * MMA_M;
    const size_t warp_col = blockIdx.x * MMA_N;
    if (warp_row >= M || warp_col >= N) {
        return;
    }

    __shared__ __align__(16) half A_smem[MMA_M][MMA_K];
    __shared__ __align__(16) half B_smem[MMA_N][MMA_K];

    const size_t lane_id = threadIdx.x % WARP_SIZE;
    acc_t acc[4] = {0, 0, 0, 0};

    for (size_t i = 0; i < K_tiles; ++i) {
        // 16 bytes a lane: A's 16 rows of two halves, B's 8 rows by the first 16 lanes
        const uint32_t a_dst = __cvta_generic_to_shared(&A_smem[lane_id / 2][(lane_id % 2) * 8]);
        CP_ASYNC_CG(a_dst, &A[(warp_row + lane_id / 2) * K + i * MMA_K + (lane_id % 2) * 8], 16);
        if (lane_id < MMA_N * 2) {
            const uint32_t b_dst = __cvta_generic_to_shared(&B_smem[lane_id / 2][(lane_id % 2) * 8]);
            CP_ASYNC_CG(b_dst, &B[(warp_col + lane_id / 2) * K + i * MMA_K + (lane_id % 2) * 8], 16);
        }
        CP_ASYNC_COMMIT_GROUP();
        CP_ASYNC_WAIT_GROUP(0);
        __syncthreads();

        uint32_t RA[4];
        uint32_t RB[2];
        const uint32_t a_lane = __cvta_generic_to_shared(&A_smem[lane_id % 16][(lane_id / 16) * 8]);
        LDMATRIX_X4(RA[0], RA[1], RA[2], RA[3], a_lane);
        const uint32_t b_lane = __cvta_generic_to_shared(&B_smem[lane_id % 8][((lane_id / 8) % 2) * 8]);
        LDMATRIX_X2(RB[0], RB[1], b_lane);

        float d[4];
        HMMA16816F32(d[0], d[1], d[2], d[3], RA[0], RA[1], RA[2], RA[3], RB[0], RB[1], 0.f, 0.f, 0.f, 0.f);
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            acc[j] += d[j];
        }
        __syncthreads();
    }

    // the accumulator fragment: lane l holds rows l / 4 and l / 4 + 8, columns
    // 2 (l % 4) and the one after
    const size_t row = warp_row + lane_id / 4;
    const size_t col = warp_col + (lane_id % 4) * 2;
    C[row * N + col] = acc[0];
    C[row * N + col + 1] = acc[1];
    C[(row + 8) * N + col] = acc[2];
    C[(row + 8) * N + col + 1] = acc[3];
}
"""


# A WebGPU port of the tile's numerics (WGSL has no tensor cores): a workgroup of 32
# for the warp, each invocation the four elements of C its lane's accumulator fragment
# holds, each K tile's 16 products summed in f32 (what an mma gives, up to its order)
# and added into accumulators of the type ``acc_t`` names.
_MMA_WGSL = """
enable f16;
struct Params { M: u32, N: u32, K: u32 }
@group(0) @binding(0) var<storage, read> A: array<f16>;
@group(0) @binding(1) var<storage, read> B: array<f16>;
@group(0) @binding(2) var<storage, read_write> C: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;

const MMA_M = 16u;
const MMA_N = 8u;
const MMA_K = 16u;
alias acc_t = f32;

@compute @workgroup_size(32)
fn mmaAsyncKernel(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let K_tiles = (p.K + MMA_K - 1u) / MMA_K;
    let warp_row = wg.y * MMA_M;
    let warp_col = wg.x * MMA_N;
    let lane_id = lid.x;
    let row = warp_row + lane_id / 4u;
    let col = warp_col + (lane_id % 4u) * 2u;
    var acc = array<acc_t, 4>(acc_t(0), acc_t(0), acc_t(0), acc_t(0));
    for (var i = 0u; i < K_tiles; i++) {
        var d = array<f32, 4>(0.0, 0.0, 0.0, 0.0);
        for (var k = i * MMA_K; k < (i + 1u) * MMA_K; k++) {
            let a0 = f32(A[row * p.K + k]);
            let a1 = f32(A[(row + 8u) * p.K + k]);
            let b0 = f32(B[col * p.K + k]);
            let b1 = f32(B[(col + 1u) * p.K + k]);
            d[0] += a0 * b0;
            d[1] += a0 * b1;
            d[2] += a1 * b0;
            d[3] += a1 * b1;
        }
        for (var j = 0u; j < 4u; j++) {
            acc[j] += acc_t(d[j]);
        }
    }
    C[row * p.N + col] = f32(acc[0]);
    C[row * p.N + col + 1u] = f32(acc[1]);
    C[(row + 8u) * p.N + col] = f32(acc[2]);
    C[(row + 8u) * p.N + col + 1u] = f32(acc[3]);
}
"""


def _mma_reference(A, B, C):
    return A.astype(np.float64) @ B.astype(np.float64).T


MMA_TILE = Wild(
    KernelSpec(
        id="wild_r47_cuda_hgemm_mma_m16n8k16_cp_async_f32_acc",
        entry_point="mmaAsyncKernel",
        sources={"cuda": _MMA_CUDA, "wgsl": _MMA_WGSL},
        dims=("M", "N", "K"),
        buffers=(
            BufferSpec(0, "f16", "read", name="A", count="M*K", shape=("M", "K"), fill=(-1.0, 1.0)),
            BufferSpec(1, "f16", "read", name="B", count="N*K", shape=("N", "K"), fill=(-1.0, 1.0)),
            BufferSpec(2, "f32", "read_write", name="C", count="M*N", shape=("M", "N")),
            BufferSpec.uniform(3, (("M", "u32"), ("N", "u32"), ("K", "u32")), name="p"),
        ),
        reference=_mma_reference,
        params=lambda size: {"M": size.M, "N": size.N, "K": size.K},
        # dim3 block(WARP_SIZE); dim3 grid(div_ceil(N, MMA_N), div_ceil(M, MMA_M))
        grid=lambda s, size: (ceil_div(size.N, 8), ceil_div(size.M, 16), 1),
        schedules=(Schedule(32),),
        test_sizes=("M=32,N=24,K=64", "M=16,N=8,K=16", "M=48,N=40,K=528"),
        nonfinite_inputs=False,
    ),
    {
        "CUDA: the last K tile left out": (
            "cuda",
            "for (size_t i = 0; i < K_tiles; ++i) {",
            "for (size_t i = 0; i + 1 < K_tiles; ++i) {",
        ),
        "CUDA: the sums kept in half": ("cuda", "typedef float acc_t;", "typedef half acc_t;"),
        "CUDA: B's 8 x 8 halves swapped": (
            "cuda",
            "&B_smem[lane_id % 8][((lane_id / 8) % 2) * 8]",
            "&B_smem[lane_id % 8][(1 - (lane_id / 8) % 2) * 8]",
        ),
        "CUDA: the lower rows' fragment stored on the upper rows": (
            "cuda",
            "C[(row + 8) * N + col] = acc[2];",
            "C[row * N + col] = acc[2];",
        ),
        "the last K tile left out": (
            "wgsl",
            "for (var i = 0u; i < K_tiles; i++) {",
            "for (var i = 0u; i + 1u < K_tiles; i++) {",
        ),
        "the sums kept in half": ("wgsl", "alias acc_t = f32;", "alias acc_t = f16;"),
        "B's columns swapped in pairs": (
            "wgsl",
            "let b0 = f32(B[col * p.K + k]);\n            let b1 = f32(B[(col + 1u) * p.K + k]);",
            "let b1 = f32(B[col * p.K + k]);\n            let b0 = f32(B[(col + 1u) * p.K + k]);",
        ),
    },
)


# -- 5. a debug printf left in a kernel -------------------------------------------------

_PRINTF_CUDA = r"""// kernel-forge corpus: a SAXPY with a debug print left in (as simplePrintf prints).
#include <cstdio>

__global__ void saxpy(int n, float a, const float *x, float *y) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        printf("saxpy: n = %d, a = %f, grid %d x %d\n", n, a, gridDim.x, blockDim.x);
    }
    if (i < n) {
        y[i] = a * x[i] + y[i];
    }
}
"""

_PRINTF_WGSL = """
struct Params { n: i32, a: f32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

@compute @workgroup_size(256)
fn saxpy(@builtin(global_invocation_id) gid: vec3<u32>) {
    // (the CUDA kernel's printf: WGSL has none)
    let i = i32(gid.x);
    if (i < p.n) {
        y[i] = p.a * x[i] + y[i];
    }
}
"""


def _saxpy_reference(x, y, a):
    return (np.float32(a) * x + y).astype(np.float32)


PRINTF_SAXPY = Wild(
    KernelSpec(
        id="wild_r47_saxpy_with_a_debug_printf",
        entry_point="saxpy",
        sources={"cuda": _PRINTF_CUDA, "wgsl": _PRINTF_WGSL},
        buffers=(
            BufferSpec(0, "f32", "read", name="x"),
            BufferSpec(1, "f32", "read_write", name="y", inout=True),
            BufferSpec.uniform(2, (("n", "i32"), ("a", "f32")), name="p"),
        ),
        reference=_saxpy_reference,
        params=lambda n: {"n": int(n)},
        defaults={"a": 2.5},
        grid=lambda s, n: (ceil_div(int(n), 256), 1, 1),
        schedules=(Schedule(256),),
        test_sizes=(10007, 1, 256),
    ),
    {
        "CUDA: one element past the end": ("cuda", "if (i < n) {", "if (i <= n) {"),
        "CUDA: y overwritten, not added to": (
            "cuda",
            "y[i] = a * x[i] + y[i];",
            "y[i] = a * x[i];",
        ),
        "one element past the end": ("wgsl", "if (i < p.n) {", "if (i <= p.n) {"),
        "y overwritten, not added to": ("wgsl", "y[i] = p.a * x[i] + y[i];", "y[i] = p.a * x[i];"),
    },
)


ROUND47: dict[str, Wild] = {
    wild.kernel.id: wild
    for wild in (
        MMVQ,
        FENCE_REDUCTION,
        FENCE_REDUCTION_WGSL,
        REDUCE6,
        REDUCE6_SYNCWARP,
        FILTER,
        MMA_TILE,
        PRINTF_SAXPY,
    )
}
