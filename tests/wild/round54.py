"""Round 54 of kernels from the wild, merged into ``tests.wild.CORPUS``: LeetGPU challenge
solutions as their authors publish them on GitHub, each written for this corpus after
the public file named below (read, not copied: the project's rule for public code).

LeetGPU's harness differs from ours: a ``.cu`` file holds the ``__global__`` kernels and
a host ``extern "C" void solve(...)`` that works out the grid, launches with
``<<<blocks, threads>>>`` and often calls ``cudaDeviceSynchronize()``; the harness
hands ``solve`` device pointers and the sizes, and its outputs hold zeros when
``solve`` is called (the challenges' tests allocate them with ``torch.zeros``; the dot
product's functional tests with ``torch.empty``, and jiangdongzi's solution adds into
``result`` without clearing it, as if the harness zeroed it). Each CUDA source here is the whole file, host side included
(README, "Bringing your own kernel", CUDA row: NVRTC compiles its device part; the
launches are the spec's, which say what each ``solve`` launches); an output a solution
adds into is declared ``initial=0`` (the zeros it relies on, not the oracle's poison),
an in-place one ``inout=True``.

What is theirs is kept: each ``__global__`` function's name and parameters (names,
types, order: the spec binds to them), the helpers' names, the block sizes and grids
``solve`` computes, the shared memory, the idioms (``int4`` loads, ``__shfl_down_sync``
trees, ``__expf``/``__logf``, ``atomicAdd`` into a one-element output, a template
instance of sixteen elements a thread) and the numerics (no maximum subtracted before
``__expf`` in the cross-entropy, the loss divided by N sample by sample), and every
real bug but one (jiangdongzi's tree that starts past its shared arrays, which fails at
every size: it is that entry's first mutant). What is ours: the comments, the locals'
names where the source's say nothing, the order of equivalent statements, the
formatting, and the WebGPU ports
(LeetGPU takes no WGSL; each port keeps its original's shape in WebGPU's idiom, with
256-invocation workgroups, WebGPU's default limit, and a compare-and-swap loop on the
bits for CUDA's float ``atomicAdd``). None of the repositories states a licence.

- A shared-memory histogram (bluecoffee8/leetgpu_soln at ac0af75a, ``cuda/histogram.cu``):
  ``extern __shared__ int shared_hist[]`` of ``num_bins``, four keys a thread through
  an ``int4`` load with a scalar tail, 512 threads a block, ``cudaMemset`` of the
  histogram in ``solve``. Its bug: a block clears and merges only the bins below
  ``blockDim.x`` (``if (threadIdx.x < num_bins)``), so for ``num_bins`` over 512
  (the challenge allows 1024; its tests stop at 256) the upper bins count in shared
  memory nobody cleared and are never added to the output. The port, at 256 a
  workgroup, has the same bug above 256 bins (WGSL's zeroed workgroup memory leaves
  the upper bins 0 in the output).
- A categorical cross-entropy, one warp a sample (bluecoffee8/leetgpu_soln at
  ac0af75a, ``cuda/categorical_ce_loss.cu``): ``CE<<<N, 32>>>``, ``__expf`` of the raw
  logits summed by ``__shfl_down_sync``, lane 0 adding ``(__logf(s) - z_label) / N``
  into ``loss`` with ``atomicAdd``. No maximum is subtracted: right inside the
  challenge's ``-10 <= logits <= 10`` (declared as the domain), overflowing past 88.
- A dot product (jiangdongzi/leetgpu at ef1f2e5b, ``cuda/0620/dot_product.cu``): the
  kernel ``dot_kernal`` (sic) of 1024 threads over ``min(1024, ceil(N / 1024))``
  blocks, a grid-stride loop, a shared tree from 512, ``atomicAdd(result, sm[0])`` into
  the output the harness zeroed.
- A one-block softmax (Euler0525/leetgpu-challenges at 368c8966,
  ``challenges/medium/5_softmax/solution/cuda/solution.cu``): ``softmax_kernel<16>``
  launched ``<<<1, 256>>>``, sixteen values a thread kept in registers, warp shuffles
  then a shared array of one float a warp for the maximum and again for the sum,
  ``expf``, a multiply by the sum's inverse. Two bugs. One block of 256 threads of 16
  holds 4096 elements, so for N over 4096 (the challenge goes to 500,000) the rest are
  never read or written (``solve`` works out ``elements_per_thread`` and does not use
  it). And the sum's first write to ``shared[0]`` (warp 0's lane 0) is not separated by
  a barrier from the other warps' read of the maximum in ``shared[0]``: a
  write-after-read race that NVIDIA's warp scheduling almost never shows, and that
  racecheck reports. The port keeps the reduced value in workgroup memory too and
  puts a barrier between reading it and the next reduction's writes; its first mutant
  drops it, the original's race, which lavapipe's invocation order shows.
- Colour inversion in place (lzyrapx/LeetGPU at 59377266,
  ``cuda/Color Inversion/Color Inversion.cu``): ``unsigned char`` RGBA pixels, a thread
  a pixel inverting bytes 0 to 2 with ``255 - x`` and keeping alpha, 256 threads a
  block. The port reads a pixel as one ``u32`` word (WGSL has no 8-bit type) and
  inverts its three low bytes.
- Reversing an array in place (lzyrapx/LeetGPU at f6904c40,
  ``cuda/Reverse Array/Reverse Array.cu``): a thread a pair below ``N / 2``, swapping
  ``input[tid]`` with ``input[N - 1 - tid]`` through a temporary, over
  ``ceil(N / 256)`` blocks of 256 (twice the threads needed, half of them returning).
- An online softmax in three launches (jiangdongzi/leetgpu at 6eedcbd2,
  ``cuda/0620/softmax.cu``): ``block_softmax_kernel`` folds each block's grid-stride
  share into a (max, sum) pair by ``merge`` (both sums rescaled to the larger maximum)
  and a shared tree, into ``block_max``/``block_sum`` that ``solve`` allocates with
  ``cudaMalloc`` (scratch here); ``global_softmax_kernal`` (sic) folds those pairs
  into two file-scope ``__device__`` floats, ``g_max_val`` and ``g_sum_val``, launched
  with ``N`` = the number of pairs (the launch's own value of the uniform field); and
  ``final`` divides every ``expf(x - max)`` by the sum. Two bugs. Its tree starts at
  ``offset = 256`` over ``__shared__ float s_max[256], s_sum[256]``, so its first step
  reads ``s_max[tid + 256]`` and ``s_sum[tid + 256]``, past both arrays, at every
  size: that is not kept in the corpus's text (the tree starts at ``256 / 2``), it is
  the first mutant on each target ("as written"). And its second launch has
  ``min(1024, ceil(blocks / 256))`` blocks, each folding its own share of the pairs
  and each writing the two globals, so past 256 pairs (N over 65536; the challenge
  goes to 500,000) the last block to write wins with part of the sum: kept, and
  inside the test sizes it does not show. The port keeps the globals as one-element
  storage buffers of the same names (on CUDA the spec's buffers of those names are
  copied into the ``__device__`` variables and back), and names ``final`` ``final_pass``.

What they showed is pinned in tests/test_wild_round54.py and summed up there.
"""

# ruff: noqa: E501  (long lines of CUDA and WGSL, and the mutants')

from __future__ import annotations

import numpy as np

from forge import BufferSpec, Dispatch, KernelSpec, Schedule, ceil_div

from . import Wild

# -- 1. bluecoffee8: a shared-memory histogram with int4 loads ----------------------------

_HISTOGRAM_CUDA = r"""// kernel-forge corpus: bluecoffee8's LeetGPU histogram (read, not copied).
#include <cuda_runtime.h>

__global__ void histogram_kernel(const int* __restrict__ input, int* __restrict__ output, int N, int num_bins) {
    extern __shared__ int shared_hist[];
    int idx = blockDim.x * blockIdx.x + threadIdx.x;
    const int4* quads = reinterpret_cast<const int4*>(input);
    // each thread clears the bin of its own index (only blockDim.x of them)
    if (threadIdx.x < num_bins) {
        shared_hist[threadIdx.x] = 0;
    }
    __syncthreads();
    if (idx * 4 + 4 <= N) {
        // four whole keys: one 16-byte load
        int4 q = quads[idx];
        atomicAdd(&shared_hist[q.w], 1);
        atomicAdd(&shared_hist[q.x], 1);
        atomicAdd(&shared_hist[q.y], 1);
        atomicAdd(&shared_hist[q.z], 1);
    } else {
        // the last, partial quad one key at a time
        for (int i = idx * 4; i < N; i++) {
            atomicAdd(&shared_hist[input[i]], 1);
        }
    }
    __syncthreads();
    if (threadIdx.x < num_bins) {
        atomicAdd(output + threadIdx.x, shared_hist[threadIdx.x]);
    }
}

// input, histogram are device pointers
extern "C" void solve(const int* input, int* histogram, int N, int num_bins) {
    int block_dim = 512;
    int grid_dim = (N + 4 * block_dim - 1) / (4 * block_dim);
    cudaMemset(histogram, 0, sizeof(int) * num_bins);
    histogram_kernel<<<grid_dim, block_dim, sizeof(int) * num_bins>>>(input, histogram, N, num_bins);
}
"""

# The port: a workgroup of 256, four keys an invocation read one at a time (no view of
# the same binding as vec4 and as scalars in WGSL), the bins in workgroup atomics.
_HISTOGRAM_WGSL = """// kernel-forge corpus: a WebGPU port of bluecoffee8's LeetGPU histogram (ours).
struct Params { N: i32, num_bins: i32 }
@group(0) @binding(0) var<storage, read> input: array<i32>;
@group(0) @binding(1) var<storage, read_write> output: array<atomic<i32>>;
@group(0) @binding(2) var<uniform> p: Params;

const BLOCK = 256u;
var<workgroup> shared_hist: array<atomic<i32>, 1024>;

@compute @workgroup_size(256)
fn histogram_kernel(@builtin(global_invocation_id) gid: vec3<u32>,
                    @builtin(local_invocation_id) lid: vec3<u32>) {
    let idx = i32(gid.x);
    let t = i32(lid.x);
    if (t < p.num_bins) {
        atomicStore(&shared_hist[t], 0);
    }
    workgroupBarrier();
    if (idx * 4 + 4 <= p.N) {
        let at = idx * 4;
        atomicAdd(&shared_hist[input[at + 3]], 1);
        atomicAdd(&shared_hist[input[at]], 1);
        atomicAdd(&shared_hist[input[at + 1]], 1);
        atomicAdd(&shared_hist[input[at + 2]], 1);
    } else {
        for (var i = idx * 4; i < p.N; i++) {
            atomicAdd(&shared_hist[input[i]], 1);
        }
    }
    workgroupBarrier();
    if (t < p.num_bins) {
        atomicAdd(&output[t], atomicLoad(&shared_hist[t]));
    }
}
"""


def _histogram_keys(rng, count, size):
    """Keys in ``[0, num_bins)``, as the challenge promises."""
    return rng.integers(0, size.num_bins, count, dtype=np.int32)


def _histogram_reference(input, output, num_bins):
    output += np.bincount(input, minlength=num_bins).astype(np.int32)


HISTOGRAM = Wild(
    KernelSpec(
        id="wild_r54_bluecoffee8_leetgpu_histogram_int4",
        entry_point="histogram_kernel",
        sources={"cuda": _HISTOGRAM_CUDA, "wgsl": _HISTOGRAM_WGSL},
        dims=("N", "num_bins"),
        buffers=(
            BufferSpec(0, "i32", "read", name="input", count="N", fill=_histogram_keys),
            # solve's cudaMemset (and the harness's zeros) before the launch
            BufferSpec(1, "i32", "read_write", name="output", count="num_bins", initial=0),
            BufferSpec.uniform(2, (("N", "i32"), ("num_bins", "i32")), name="p"),
        ),
        reference=_histogram_reference,
        params=lambda size: {"N": size.N, "num_bins": size.num_bins},
        launches=(
            Dispatch(
                "histogram_kernel",
                # solve: (N + 4 * block_dim - 1) / (4 * block_dim) blocks of 512
                grid=lambda s, size: (ceil_div(size.N, 4 * s.workgroup_size[0]), 1, 1),
                schedule={"cuda": Schedule(512)},
                shared_bytes=lambda s, size: 4 * size.num_bins,
            ),
        ),
        # within the bins a block clears (256 for the port, 512 for the original); an
        # N not a multiple of 4 takes the scalar tail
        test_sizes=("N=5003,num_bins=256", "N=7,num_bins=3"),
    ),
    {
        "the tail's first key skipped": (
            "wgsl",
            "for (var i = idx * 4; i < p.N; i++)",
            "for (var i = idx * 4 + 1; i < p.N; i++)",
        ),
        "the quad's last key counted twice": (
            "wgsl",
            "atomicAdd(&shared_hist[input[at + 3]], 1);",
            "atomicAdd(&shared_hist[input[at + 2]], 1);",
        ),
        "merged before every key is counted": (
            "wgsl",
            "    workgroupBarrier();\n    if (t < p.num_bins) {\n        atomicAdd(&output[t]",
            "    if (t < p.num_bins) {\n        atomicAdd(&output[t]",
        ),
        "CUDA: the tail's first key skipped": (
            "cuda",
            "for (int i = idx * 4; i < N; i++)",
            "for (int i = idx * 4 + 1; i < N; i++)",
        ),
    },
)


# -- 2. bluecoffee8: categorical cross-entropy, one warp a sample --------------------------

_CROSS_ENTROPY_CUDA = r"""// kernel-forge corpus: bluecoffee8's LeetGPU categorical cross-entropy (read, not copied).
#include <cuda_runtime.h>

__device__ __forceinline__ float warp_reduce_max(float v) {
    for (int b = 16; b > 0; b >>= 1) {
        v = fmaxf(v, __shfl_down_sync(0xffffffff, v, b));
    }
    return v;
}

__device__ __forceinline__ float warp_reduce_sum(float v) {
    for (int b = 16; b > 0; b >>= 1) {
        v += __shfl_down_sync(0xffffffff, v, b);
    }
    return v;
}

// one warp a sample: the sum of exp over its C logits (no maximum taken out first),
// then lane 0 adds its share of the mean into *loss
__global__ void CE(const float* __restrict__ logits, const int* __restrict__ true_labels, float* loss, int N, int C) {
    int warpid = blockIdx.x;
    int lane = threadIdx.x;
    int row = warpid * C;
    float s = 0.0f;
    for (int i = lane; i < C; i += 32) {
        s += __expf(logits[row + i]);
    }
    s = warp_reduce_sum(s);
    if (lane == 0) {
        float z = __logf(s) - logits[row + true_labels[warpid]];
        atomicAdd(loss, z / N);
    }
}

// logits, true_labels, loss are device pointers
extern "C" void solve(const float* logits, const int* true_labels, float* loss, int N, int C) {
    CE<<<N, 32>>>(logits, true_labels, loss, N, C);
}
"""

_CROSS_ENTROPY_WGSL = """// kernel-forge corpus: a WebGPU port of bluecoffee8's LeetGPU cross-entropy (ours).
struct Params { N: i32, C: i32 }
@group(0) @binding(0) var<storage, read> logits: array<f32>;
@group(0) @binding(1) var<storage, read> true_labels: array<i32>;
@group(0) @binding(2) var<storage, read_write> loss: array<atomic<u32>>;  // f32 bits
@group(0) @binding(3) var<uniform> p: Params;

var<workgroup> lanes: array<f32, 32>;

// CUDA's atomicAdd on a float: swap in the sum until nobody changed the bits between
fn add_to_loss(x: f32) {
    var seen = atomicLoad(&loss[0]);
    loop {
        let got = atomicCompareExchangeWeak(&loss[0], seen, bitcast<u32>(bitcast<f32>(seen) + x));
        if (got.exchanged) { break; }
        seen = got.old_value;
    }
}

// a workgroup of 32 a sample, as the original's warp
@compute @workgroup_size(32)
fn CE(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let warpid = i32(wg.x);
    let lane = i32(lid.x);
    let row = warpid * p.C;
    var s = 0.0;
    for (var i = lane; i < p.C; i += 32) {
        s += exp(logits[row + i]);
    }
    // warp_reduce_sum as a tree in workgroup memory
    lanes[lid.x] = s;
    workgroupBarrier();
    for (var b = 16u; b > 0u; b >>= 1u) {
        if (lid.x < b) {
            lanes[lid.x] += lanes[lid.x + b];
        }
        workgroupBarrier();
    }
    if (lane == 0) {
        let z = log(lanes[0]) - logits[row + true_labels[warpid]];
        add_to_loss(z / f32(p.N));
    }
}
"""


def _labels(rng, count, size):
    return rng.integers(0, size.C, count, dtype=np.int32)


def _cross_entropy_reference(logits, true_labels, loss, N, C):
    z = logits.astype(np.float64)
    per_sample = np.log(np.exp(z).sum(axis=1)) - z[np.arange(N), true_labels]
    loss += (per_sample / N).sum()


CROSS_ENTROPY = Wild(
    KernelSpec(
        id="wild_r54_bluecoffee8_leetgpu_cross_entropy_warp",
        entry_point="CE",
        sources={"cuda": _CROSS_ENTROPY_CUDA, "wgsl": _CROSS_ENTROPY_WGSL},
        dims=("N", "C"),
        buffers=(
            BufferSpec(0, "f32", "read", name="logits", count="N*C", shape=("N", "C")),
            BufferSpec(1, "i32", "read", name="true_labels", count="N", fill=_labels),
            # the harness's torch.zeros(1): every sample's lane 0 adds into it
            BufferSpec(2, "f32", "read_write", name="loss", count=1, initial=0.0),
            BufferSpec.uniform(3, (("N", "i32"), ("C", "i32")), name="p"),
        ),
        reference=_cross_entropy_reference,
        params=lambda size: {"N": size.N, "C": size.C},
        # the challenge's -10 <= logits <= 10: exp without the maximum taken out stays finite
        domain={"logits": (-10.0, 10.0)},
        grid=lambda s, size: (size.N, 1, 1),  # CE<<<N, 32>>>
        schedules=(Schedule(32),),
        test_sizes=("N=67,C=45", "N=1,C=2"),
    ),
    {
        "the label's logit read from sample 0": (
            "wgsl",
            "logits[row + true_labels[warpid]]",
            "logits[true_labels[warpid]]",
        ),
        "the mean taken over the classes": ("wgsl", "z / f32(p.N)", "z / f32(p.C)"),
        "the tree starts at 8": ("wgsl", "var b = 16u; b > 0u", "var b = 8u; b > 0u"),
        "CUDA: the label's logit read from sample 0": (
            "cuda",
            "logits[row + true_labels[warpid]]",
            "logits[true_labels[warpid]]",
        ),
    },
)


# -- 3. jiangdongzi: a dot product of 1024-thread blocks into an atomic result -----------

_DOT_CUDA = r"""// kernel-forge corpus: jiangdongzi's LeetGPU dot product (read, not copied).
#include <algorithm>
#include <cuda_runtime.h>

__global__ void dot_kernal(const float* A, const float* B, const int N, float* result) {
    const int gtid = blockIdx.x * blockDim.x + threadIdx.x;
    const int stride = blockDim.x * gridDim.x;
    float partial = 0.f;
    for (int i = gtid; i < N; i += stride) {
        partial += A[i] * B[i];
    }
    __shared__ float sm[1024];
    const int tid = threadIdx.x;
    sm[tid] = partial;
    __syncthreads();
    for (int offset = 1024 / 2; offset > 0; offset /= 2) {
        if (tid < offset) {
            sm[tid] += sm[tid + offset];
        }
        __syncthreads();
    }
    // added into the zeros the harness left in result: solve clears nothing
    if (tid == 0) {
        atomicAdd(result, sm[0]);
    }
}

// A, B, result are device pointers
extern "C" void solve(const float* A, const float* B, float* result, int N) {
    const int blocks = std::min(1024, (N + 1023) / 1024);
    dot_kernal<<<blocks, 1024>>>(A, B, N, result);
}
"""

_DOT_WGSL = """// kernel-forge corpus: a WebGPU port of jiangdongzi's LeetGPU dot product (ours).
struct Params { N: i32 }
@group(0) @binding(0) var<storage, read> A: array<f32>;
@group(0) @binding(1) var<storage, read> B: array<f32>;
@group(0) @binding(2) var<storage, read_write> result: array<atomic<u32>>;  // f32 bits
@group(0) @binding(3) var<uniform> p: Params;

const THREADS = 256u;
var<workgroup> sm: array<f32, THREADS>;

@compute @workgroup_size(256)
fn dot_kernal(@builtin(global_invocation_id) gid: vec3<u32>,
              @builtin(local_invocation_id) lid: vec3<u32>,
              @builtin(num_workgroups) groups: vec3<u32>) {
    let stride = THREADS * groups.x;
    var partial = 0.0;
    for (var i = gid.x; i < u32(p.N); i += stride) {
        partial += A[i] * B[i];
    }
    sm[lid.x] = partial;
    workgroupBarrier();
    for (var offset = THREADS / 2u; offset > 0u; offset /= 2u) {
        if (lid.x < offset) {
            sm[lid.x] += sm[lid.x + offset];
        }
        workgroupBarrier();
    }
    if (lid.x == 0u) {
        // atomicAdd(result, sm[0]) with no float atomics: swap in the sum until it sticks
        var seen = atomicLoad(&result[0]);
        loop {
            let got = atomicCompareExchangeWeak(&result[0], seen, bitcast<u32>(bitcast<f32>(seen) + sm[0]));
            if (got.exchanged) { break; }
            seen = got.old_value;
        }
    }
}
"""


def _dot_reference(A, B, result):
    result += (A.astype(np.float64) * B.astype(np.float64)).sum()


DOT_PRODUCT = Wild(
    KernelSpec(
        id="wild_r54_jiangdongzi_leetgpu_dot_product_atomic",
        entry_point="dot_kernal",
        sources={"cuda": _DOT_CUDA, "wgsl": _DOT_WGSL},
        buffers=(
            BufferSpec(0, "f32", "read", name="A"),
            BufferSpec(1, "f32", "read", name="B"),
            # what the harness allocates for result holds 0 when solve is called
            BufferSpec(2, "f32", "read_write", name="result", count=1, initial=0.0),
            BufferSpec.uniform(3, (("N", "i32"),), name="p"),
        ),
        reference=_dot_reference,
        params=lambda n: {"N": n},
        launches=(
            Dispatch(
                "dot_kernal",
                # std::min(1024, (N + 1023) / 1024) blocks, on both targets
                grid=lambda s, n: (min(1024, ceil_div(n, 1024)), 1, 1),
                schedule={"cuda": Schedule(1024)},
            ),
        ),
        # three blocks (the port's workgroups stride over 768), and one
        test_sizes=(2500, 1),
    ),
    {
        "the tree starts at a quarter": (
            "wgsl",
            "var offset = THREADS / 2u;",
            "var offset = THREADS / 4u;",
        ),
        "a workgroup's stride": (
            "wgsl",
            "let stride = THREADS * groups.x;",
            "let stride = THREADS;",
        ),
        "the first element left out": (
            "wgsl",
            "for (var i = gid.x; i < u32(p.N); i += stride)",
            "for (var i = gid.x + 1u; i < u32(p.N); i += stride)",
        ),
        "CUDA: the tree starts at a quarter": (
            "cuda",
            "for (int offset = 1024 / 2; offset > 0; offset /= 2)",
            "for (int offset = 1024 / 4; offset > 0; offset /= 2)",
        ),
    },
)


# -- 4. Euler0525: a one-block softmax, sixteen values a thread --------------------------

_SOFTMAX_CUDA = r"""// kernel-forge corpus: Euler0525's LeetGPU softmax (read, not copied).
#include <cuda_runtime.h>
#include <float.h>
#include <math.h>

#define BLOCK_SIZE 256
#define WARPS_NUM (BLOCK_SIZE / 32)

__device__ __forceinline__ float warp_reduce_sum(float value) {
    value += __shfl_down_sync(0xffffffffu, value, 16);
    value += __shfl_down_sync(0xffffffffu, value, 8);
    value += __shfl_down_sync(0xffffffffu, value, 4);
    value += __shfl_down_sync(0xffffffffu, value, 2);
    value += __shfl_down_sync(0xffffffffu, value, 1);
    return value;
}

__device__ __forceinline__ float warp_reduce_max(float value) {
    value = fmaxf(value, __shfl_down_sync(0xffffffffu, value, 16));
    value = fmaxf(value, __shfl_down_sync(0xffffffffu, value, 8));
    value = fmaxf(value, __shfl_down_sync(0xffffffffu, value, 4));
    value = fmaxf(value, __shfl_down_sync(0xffffffffu, value, 2));
    value = fmaxf(value, __shfl_down_sync(0xffffffffu, value, 1));
    return value;
}

// the block's maximum: each warp's into shared[warp], warp 0 folds those into shared[0]
__device__ __forceinline__ float softmax_max_kernel(float local_max_value, float *shared) {
    int tid = threadIdx.x;
    int lane_id = tid & 31;
    int warp_id = tid >> 5;
    local_max_value = warp_reduce_max(local_max_value);
    if (lane_id == 0) {
        shared[warp_id] = local_max_value;
    }
    __syncthreads();
    if (warp_id == 0) {
        local_max_value = lane_id < WARPS_NUM ? shared[lane_id] : -FLT_MAX;
        local_max_value = warp_reduce_max(local_max_value);
        if (lane_id == 0) {
            shared[0] = local_max_value;
        }
    }
    __syncthreads();
    return shared[0];
}

// the block's sum, through the same shared array (its first write to shared[0] comes
// with no barrier after the other warps' read of the maximum there)
__device__ __forceinline__ float softmax_sum_kernel(float local_sum_value, float *shared) {
    int tid = threadIdx.x;
    int lane_id = tid & 31;
    int warp_id = tid >> 5;
    local_sum_value = warp_reduce_sum(local_sum_value);
    if (lane_id == 0) {
        shared[warp_id] = local_sum_value;
    }
    __syncthreads();
    if (warp_id == 0) {
        local_sum_value = lane_id < WARPS_NUM ? shared[lane_id] : 0.0f;
        local_sum_value = warp_reduce_sum(local_sum_value);
        if (lane_id == 0) {
            shared[0] = local_sum_value;
        }
    }
    __syncthreads();
    return shared[0];
}

template <int ELEMENTS_PER_THREAD>
__global__ void softmax_kernel(const float *input, float *output, int N) {
    int tid = threadIdx.x;
    __shared__ float shared[WARPS_NUM];
    float values[ELEMENTS_PER_THREAD];

    float local_max_value = -FLT_MAX;
#pragma unroll
    for (int i = 0; i < ELEMENTS_PER_THREAD; i += 1) {
        int idx = tid + i * BLOCK_SIZE;
        values[i] = idx < N ? input[idx] : -FLT_MAX;
        local_max_value = fmaxf(local_max_value, values[i]);
    }
    float max_value = softmax_max_kernel(local_max_value, shared);

    float local_sum_value = 0.0f;
#pragma unroll
    for (int i = 0; i < ELEMENTS_PER_THREAD; i += 1) {
        int idx = tid + i * BLOCK_SIZE;
        if (idx < N) {
            values[i] = expf(values[i] - max_value);
            local_sum_value += values[i];
        }
    }
    float inv_sum_value = 1.0f / softmax_sum_kernel(local_sum_value, shared);

#pragma unroll
    for (int i = 0; i < ELEMENTS_PER_THREAD; i += 1) {
        int idx = tid + i * BLOCK_SIZE;
        if (idx < N) {
            output[idx] = values[i] * inv_sum_value;
        }
    }
}

// input, output are device pointers (i.e. pointers to memory on the GPU)
extern "C" void solve(const float *input, float *output, int N) {
    if (input == nullptr || output == nullptr || N <= 0) {
        return;
    }
    int elements_per_thread = (N + BLOCK_SIZE - 1) / BLOCK_SIZE;  // worked out, not used
    softmax_kernel<16><<<1, BLOCK_SIZE>>>(input, output, N);
    cudaDeviceSynchronize();
}
"""

# The port: one workgroup of 256, sixteen values an invocation in a private array, each
# reduction a tree in workgroup memory whose result every invocation reads, with a
# barrier after that read (the original has none before the next reduction's writes).
_SOFTMAX_WGSL = """// kernel-forge corpus: a WebGPU port of Euler0525's LeetGPU softmax (ours).
struct Params { N: i32 }
@group(0) @binding(0) var<storage, read> input: array<f32>;
@group(0) @binding(1) var<storage, read_write> output: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

const BLOCK_SIZE = 256u;
const ELEMENTS_PER_THREAD = 16u;
const LOWEST = -3.4028234663852886e+38;  // -FLT_MAX

var<workgroup> shared_red: array<f32, BLOCK_SIZE>;

fn softmax_max(v: f32, tid: u32) -> f32 {
    shared_red[tid] = v;
    workgroupBarrier();
    for (var s = BLOCK_SIZE / 2u; s > 0u; s >>= 1u) {
        if (tid < s) {
            shared_red[tid] = max(shared_red[tid], shared_red[tid + s]);
        }
        workgroupBarrier();
    }
    let m = shared_red[0];
    workgroupBarrier();  // all have read it before the slot is written again
    return m;
}

fn softmax_sum(v: f32, tid: u32) -> f32 {
    shared_red[tid] = v;
    workgroupBarrier();
    for (var s = BLOCK_SIZE / 2u; s > 0u; s >>= 1u) {
        if (tid < s) {
            shared_red[tid] = shared_red[tid] + shared_red[tid + s];
        }
        workgroupBarrier();
    }
    let total = shared_red[0];
    workgroupBarrier();
    return total;
}

@compute @workgroup_size(256)
fn softmax_kernel(@builtin(local_invocation_id) lid: vec3<u32>) {
    let tid = lid.x;
    let n = u32(p.N);
    var values: array<f32, ELEMENTS_PER_THREAD>;

    var local_max_value = LOWEST;
    for (var i = 0u; i < ELEMENTS_PER_THREAD; i++) {
        let idx = tid + i * BLOCK_SIZE;
        if (idx < n) {
            values[i] = input[idx];
        } else {
            values[i] = LOWEST;
        }
        local_max_value = max(local_max_value, values[i]);
    }
    let max_value = softmax_max(local_max_value, tid);

    var local_sum_value = 0.0;
    for (var i = 0u; i < ELEMENTS_PER_THREAD; i++) {
        let idx = tid + i * BLOCK_SIZE;
        if (idx < n) {
            values[i] = exp(values[i] - max_value);
            local_sum_value += values[i];
        }
    }
    let inv_sum_value = 1.0 / softmax_sum(local_sum_value, tid);

    for (var i = 0u; i < ELEMENTS_PER_THREAD; i++) {
        let idx = tid + i * BLOCK_SIZE;
        if (idx < n) {
            output[idx] = values[i] * inv_sum_value;
        }
    }
}
"""


def _softmax_reference(input, output):
    x = input.astype(np.float64)
    e = np.exp(x - x.max())
    return e / e.sum()


SOFTMAX = Wild(
    KernelSpec(
        id="wild_r54_euler0525_leetgpu_softmax_one_block",
        entry_point="softmax_kernel",
        entry_points={"cuda": "softmax_kernel<16>"},
        sources={"cuda": _SOFTMAX_CUDA, "wgsl": _SOFTMAX_WGSL},
        buffers=(
            BufferSpec(0, "f32", "read", name="input"),
            BufferSpec(1, "f32", "read_write", name="output"),
            BufferSpec.uniform(2, (("N", "i32"),), name="p"),
        ),
        reference=_softmax_reference,
        params=lambda n: {"N": n},
        grid=lambda s, n: (1, 1, 1),  # softmax_kernel<16><<<1, BLOCK_SIZE>>>
        schedules=(Schedule(256),),
        # all that one block of 16 a thread holds, and fewer; past 4096 it is wrong
        # (tests/test_wild_round54.py)
        test_sizes=(4096, 1001),
    ),
    {
        # the CUDA original's race: warp 0 writes its sum where the others read the max
        "the maximum's slot rewritten before all have read it": (
            "wgsl",
            "    let m = shared_red[0];\n    workgroupBarrier();  // all have read it before the slot is written again\n",
            "    let m = shared_red[0];\n",
        ),
        "the maximum started at zero": (
            "wgsl",
            "var local_max_value = LOWEST;",
            "var local_max_value = 0.0;",
        ),
        "eight values a thread": (
            "wgsl",
            "const ELEMENTS_PER_THREAD = 16u;",
            "const ELEMENTS_PER_THREAD = 8u;",
        ),
        "CUDA: the sum's last shuffle dropped": (
            "cuda",
            "    value += __shfl_down_sync(0xffffffffu, value, 1);\n",
            "",
        ),
    },
)


# -- 5. lzyrapx: colour inversion of RGBA bytes in place -----------------------------------

_INVERT_CUDA = r"""// kernel-forge corpus: lzyrapx's LeetGPU colour inversion (read, not copied).
#include <cuda_runtime.h>

__global__ void invert_kernel(unsigned char* image, int width, int height) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= width * height) return;

    unsigned char* px = image + (idx * 4);
    px[0] = 255 - px[0];  // red
    px[1] = 255 - px[1];  // green
    px[2] = 255 - px[2];  // blue
    // px[3], alpha, stays
}

// image is a device pointer, inverted in place
extern "C" void solve(unsigned char* image, int width, int height) {
    int threadsPerBlock = 256;
    int blocksPerGrid = (width * height + threadsPerBlock - 1) / threadsPerBlock;
    invert_kernel<<<blocksPerGrid, threadsPerBlock>>>(image, width, height);
    cudaDeviceSynchronize();
}
"""

_INVERT_WGSL = """// kernel-forge corpus: a WebGPU port of lzyrapx's LeetGPU colour inversion (ours).
struct Params { width: i32, height: i32 }
@group(0) @binding(0) var<storage, read_write> image: array<u32>;  // a pixel a word, R lowest
@group(0) @binding(1) var<uniform> p: Params;

@compute @workgroup_size(256)
fn invert_kernel(@builtin(global_invocation_id) gid: vec3<u32>) {
    let idx = i32(gid.x);
    if (idx >= p.width * p.height) { return; }
    let px = image[idx];
    let r = 255u - (px & 0xffu);
    let g = 255u - ((px >> 8u) & 0xffu);
    let b = 255u - ((px >> 16u) & 0xffu);
    let a = px >> 24u;  // alpha stays
    image[idx] = r | (g << 8u) | (b << 16u) | (a << 24u);
}
"""


def _invert_reference(image):
    out = image.copy().reshape(-1, 4)
    out[:, :3] = 255 - out[:, :3]
    return out.reshape(-1)


COLOR_INVERSION = Wild(
    KernelSpec(
        id="wild_r54_lzyrapx_leetgpu_color_inversion",
        entry_point="invert_kernel",
        sources={"cuda": _INVERT_CUDA, "wgsl": _INVERT_WGSL},
        dims=("width", "height"),
        buffers=(
            BufferSpec(0, "u8", "read_write", name="image", count="width*height*4", inout=True),
            BufferSpec.uniform(1, (("width", "i32"), ("height", "i32")), name="p"),
        ),
        reference=_invert_reference,
        params=lambda size: {"width": size.width, "height": size.height},
        grid=lambda s, size: (ceil_div(size.width * size.height, 256), 1, 1),
        schedules=(Schedule(256),),
        test_sizes=("width=37,height=29", "width=1,height=1"),
    ),
    {
        "alpha inverted too": ("wgsl", "let a = px >> 24u;", "let a = 255u - (px >> 24u);"),
        "blue left as it was": (
            "wgsl",
            "let b = 255u - ((px >> 16u) & 0xffu);",
            "let b = (px >> 16u) & 0xffu;",
        ),
        "the last pixel left out": (
            "wgsl",
            "if (idx >= p.width * p.height) { return; }",
            "if (idx + 1 >= p.width * p.height) { return; }",
        ),
        "CUDA: one pixel past the end": (
            "cuda",
            "if (idx >= width * height) return;",
            "if (idx > width * height) return;",
        ),
    },
)


# -- 6. lzyrapx: reversing an array in place, a thread a pair ------------------------------

_REVERSE_CUDA = r"""// kernel-forge corpus: lzyrapx's LeetGPU array reversal (read, not copied).
#include <cuda_runtime.h>

__global__ void reverse_array(float* input, int N) {
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid >= N / 2) return;  // a thread a pair; the middle of an odd N stays

    int mirror = N - 1 - tid;
    float held = input[tid];
    input[tid] = input[mirror];
    input[mirror] = held;
}

// input is a device pointer
extern "C" void solve(float* input, int N) {
    int threadsPerBlock = 256;
    int blocksPerGrid = (N + threadsPerBlock - 1) / threadsPerBlock;
    reverse_array<<<blocksPerGrid, threadsPerBlock>>>(input, N);
    cudaDeviceSynchronize();
}
"""

_REVERSE_WGSL = """// kernel-forge corpus: a WebGPU port of lzyrapx's LeetGPU array reversal (ours).
struct Params { N: i32 }
@group(0) @binding(0) var<storage, read_write> input: array<f32>;
@group(0) @binding(1) var<uniform> p: Params;

@compute @workgroup_size(256)
fn reverse_array(@builtin(global_invocation_id) gid: vec3<u32>) {
    let tid = i32(gid.x);
    if (tid >= p.N / 2) { return; }
    let mirror = p.N - 1 - tid;
    let held = input[tid];
    input[tid] = input[mirror];
    input[mirror] = held;
}
"""

REVERSE_ARRAY = Wild(
    KernelSpec(
        id="wild_r54_lzyrapx_leetgpu_reverse_array_in_place",
        entry_point="reverse_array",
        sources={"cuda": _REVERSE_CUDA, "wgsl": _REVERSE_WGSL},
        buffers=(
            BufferSpec(0, "f32", "read_write", name="input", inout=True),
            BufferSpec.uniform(1, (("N", "i32"),), name="p"),
        ),
        reference=lambda input: input[::-1].copy(),
        params=lambda n: {"N": n},
        grid=lambda s, n: (ceil_div(n, 256), 1, 1),  # twice the threads the pairs need
        schedules=(Schedule(256),),
        test_sizes=(1001, 1000, 1),
    ),
    {
        "the mirror one further": (
            "wgsl",
            "let mirror = p.N - 1 - tid;",
            "let mirror = p.N - tid;",
        ),
        "the middle pair left": (
            "wgsl",
            "if (tid >= p.N / 2) { return; }",
            "if (tid + 1 >= p.N / 2) { return; }",
        ),
        "CUDA: the mirror one further": (
            "cuda",
            "int mirror = N - 1 - tid;",
            "int mirror = N - tid;",
        ),
    },
)


# -- 7. jiangdongzi: an online softmax in three launches ---------------------------------

_ONLINE_SOFTMAX_CUDA = r"""// kernel-forge corpus: jiangdongzi's LeetGPU three-launch online softmax (read, not copied).
#include <cfloat>
#include <cmath>
#include <cuda_device_runtime_api.h>
#include <cuda_runtime.h>

// what the second launch leaves for the third: the whole array's maximum and sum
__device__ float g_max_val;
__device__ float g_sum_val;

// (a_max, a_sum) absorbs (b_max, b_sum): both sums rescaled to the larger maximum
__device__ void merge(float& a_max, float& a_sum, const float b_max, const float b_sum) {
    const float top = fmaxf(a_max, b_max);
    a_sum = expf(a_max - top) * a_sum + expf(b_max - top) * b_sum;
    a_max = top;
}

// the block's (max, sum) pairs folded into thread 0's
__device__ void block_reduce(float& max_val, float& sum_val) {
    __shared__ float s_max[256];
    __shared__ float s_sum[256];
    const int tid = threadIdx.x;
    s_max[tid] = max_val;
    s_sum[tid] = sum_val;
    __syncthreads();
    for (int offset = 256 / 2; offset > 0; offset /= 2) {
        if (tid < offset) {
            float m = s_max[tid];
            float z = s_sum[tid];
            merge(m, z, s_max[tid + offset], s_sum[tid + offset]);
            s_max[tid] = m;
            s_sum[tid] = z;
        }
        __syncthreads();
    }
    if (tid == 0) {
        max_val = s_max[0];
        sum_val = s_sum[0];
    }
}

// launch 1: each block's (max, sum of exp) over a grid-stride share of the input
__global__ void block_softmax_kernel(const float* input, const int N, float* block_max, float* block_sum) {
    const int gtid = blockIdx.x * blockDim.x + threadIdx.x;
    const int stride = blockDim.x * gridDim.x;
    float run_max = -FLT_MAX;
    float run_sum = 0.f;
    for (int i = gtid; i < N; i += stride) {
        merge(run_max, run_sum, input[i], 1);
    }
    block_reduce(run_max, run_sum);
    if (threadIdx.x == 0) {
        block_max[blockIdx.x] = run_max;
        block_sum[blockIdx.x] = run_sum;
    }
}

// launch 2: the blocks' pairs folded into g_max_val and g_sum_val; every block of this
// launch writes them, each from its own share of the pairs
__global__ void global_softmax_kernal(const float* block_max, const float* block_sum, const int N) {
    const int gtid = threadIdx.x + blockIdx.x * blockDim.x;
    const int stride = blockDim.x * gridDim.x;
    float run_max = -FLT_MAX;
    float run_sum = 0.f;
    for (int b = gtid; b < N; b += stride) {
        merge(run_max, run_sum, block_max[b], block_sum[b]);
    }
    block_reduce(run_max, run_sum);
    if (threadIdx.x == 0) {
        g_max_val = run_max;
        g_sum_val = run_sum;
    }
}

// launch 3: every element over the whole sum
__global__ void final(const float* input, float* output, const int N) {
    const float top = g_max_val;
    const float total = g_sum_val;
    const int gtid = threadIdx.x + blockIdx.x * blockDim.x;
    const int stride = blockDim.x * gridDim.x;
    for (int k = gtid; k < N; k += stride) {
        output[k] = expf(input[k] - top) / total;
    }
}

// input, output are device pointers (i.e. pointers to memory on the GPU)
extern "C" void solve(const float* input, float* output, int N) {
    int threadsPerBlock = 256;
    int blocksPerGrid = (N + threadsPerBlock - 1) / threadsPerBlock;
    if (blocksPerGrid > 1024) blocksPerGrid = 1024;

    float *block_max, *block_sum;
    cudaMalloc(&block_max, sizeof(float) * blocksPerGrid);
    cudaMalloc(&block_sum, sizeof(float) * blocksPerGrid);

    block_softmax_kernel<<<blocksPerGrid, threadsPerBlock>>>(input, N, block_max, block_sum);
    global_softmax_kernal<<<std::min(1024, (blocksPerGrid + 255) / 256), threadsPerBlock>>>(block_max, block_sum, blocksPerGrid);
    final<<<blocksPerGrid, threadsPerBlock>>>(input, output, N);
    cudaFree(block_max);
    cudaFree(block_sum);
    cudaDeviceSynchronize();
}
"""

# The port: the same three launches; the two __device__ floats are one-element storage
# buffers of the same names, the (max, sum) pair a vec2.
_ONLINE_SOFTMAX_WGSL = """// kernel-forge corpus: a WebGPU port of jiangdongzi's LeetGPU online softmax (ours).
struct Params { N: i32 }
@group(0) @binding(0) var<storage, read> input: array<f32>;
@group(0) @binding(1) var<storage, read_write> output: array<f32>;
@group(0) @binding(2) var<storage, read_write> block_max: array<f32>;
@group(0) @binding(3) var<storage, read_write> block_sum: array<f32>;
@group(0) @binding(4) var<storage, read_write> g_max_val: array<f32>;
@group(0) @binding(5) var<storage, read_write> g_sum_val: array<f32>;
@group(0) @binding(6) var<uniform> p: Params;

const LOWEST = -3.4028234663852886e+38;  // -FLT_MAX
var<workgroup> s_max: array<f32, 256>;
var<workgroup> s_sum: array<f32, 256>;

// (max, sum) absorbing another (max, sum)
fn merge(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
    let top = max(a.x, b.x);
    return vec2<f32>(top, exp(a.x - top) * a.y + exp(b.x - top) * b.y);
}

fn block_reduce(v: vec2<f32>, tid: u32) -> vec2<f32> {
    s_max[tid] = v.x;
    s_sum[tid] = v.y;
    workgroupBarrier();
    for (var offset = 256u / 2u; offset > 0u; offset /= 2u) {
        if (tid < offset) {
            let r = merge(vec2<f32>(s_max[tid], s_sum[tid]), vec2<f32>(s_max[tid + offset], s_sum[tid + offset]));
            s_max[tid] = r.x;
            s_sum[tid] = r.y;
        }
        workgroupBarrier();
    }
    return vec2<f32>(s_max[0], s_sum[0]);
}

@compute @workgroup_size(256)
fn block_softmax_kernel(@builtin(global_invocation_id) gid: vec3<u32>,
                        @builtin(local_invocation_id) lid: vec3<u32>,
                        @builtin(workgroup_id) wg: vec3<u32>,
                        @builtin(num_workgroups) groups: vec3<u32>) {
    let stride = 256u * groups.x;
    var acc = vec2<f32>(LOWEST, 0.0);
    for (var i = gid.x; i < u32(p.N); i += stride) {
        acc = merge(acc, vec2<f32>(input[i], 1.0));
    }
    let r = block_reduce(acc, lid.x);
    if (lid.x == 0u) {
        block_max[wg.x] = r.x;
        block_sum[wg.x] = r.y;
    }
}

// p.N is the number of block pairs here (the launch's own copy of the uniform)
@compute @workgroup_size(256)
fn global_softmax_kernal(@builtin(global_invocation_id) gid: vec3<u32>,
                         @builtin(local_invocation_id) lid: vec3<u32>,
                         @builtin(num_workgroups) groups: vec3<u32>) {
    let stride = 256u * groups.x;
    var acc = vec2<f32>(LOWEST, 0.0);
    for (var b = gid.x; b < u32(p.N); b += stride) {
        acc = merge(acc, vec2<f32>(block_max[b], block_sum[b]));
    }
    let r = block_reduce(acc, lid.x);
    if (lid.x == 0u) {
        g_max_val[0] = r.x;
        g_sum_val[0] = r.y;
    }
}

@compute @workgroup_size(256)
fn final_pass(@builtin(global_invocation_id) gid: vec3<u32>,
              @builtin(num_workgroups) groups: vec3<u32>) {
    let top = g_max_val[0];
    let total = g_sum_val[0];
    let stride = 256u * groups.x;
    for (var k = gid.x; k < u32(p.N); k += stride) {
        output[k] = exp(input[k] - top) / total;
    }
}
"""


def _online_blocks(n) -> int:
    """solve's blocksPerGrid: ceil(N / 256), at most 1024."""
    return min(1024, ceil_div(int(n), 256))


ONLINE_SOFTMAX = Wild(
    KernelSpec(
        id="wild_r54_jiangdongzi_leetgpu_online_softmax_three_launches",
        entry_point="block_softmax_kernel",
        sources={"cuda": _ONLINE_SOFTMAX_CUDA, "wgsl": _ONLINE_SOFTMAX_WGSL},
        buffers=(
            BufferSpec(0, "f32", "read", name="input"),
            BufferSpec(1, "f32", "read_write", name="output"),
            # solve's cudaMalloc'd partials, a pair a block of the first launch
            BufferSpec(
                2, "f32", "read_write", name="block_max", count=_online_blocks, scratch=True
            ),
            BufferSpec(
                3, "f32", "read_write", name="block_sum", count=_online_blocks, scratch=True
            ),
            # the __device__ floats (on CUDA copied in and out of them by name)
            BufferSpec(4, "f32", "read_write", name="g_max_val", count=1, scratch=True),
            BufferSpec(5, "f32", "read_write", name="g_sum_val", count=1, scratch=True),
            BufferSpec.uniform(6, (("N", "i32"),), name="p"),
        ),
        reference=_softmax_reference,
        params=lambda n: {"N": n},
        launches=(
            Dispatch("block_softmax_kernel", grid=lambda s, n: (_online_blocks(n), 1, 1)),
            Dispatch(
                "global_softmax_kernal",
                # std::min(1024, (blocksPerGrid + 255) / 256) blocks over the pairs
                grid=lambda s, n: (min(1024, ceil_div(_online_blocks(n), 256)), 1, 1),
                overrides={"N": lambda s, n: _online_blocks(n)},
            ),
            Dispatch(
                {"cuda": "final", "wgsl": "final_pass"},
                grid=lambda s, n: (_online_blocks(n), 1, 1),
            ),
        ),
        schedules=(Schedule(256),),
        # one block of the second launch takes up to 256 pairs (N up to 65536); past
        # that its blocks race for g_max_val (tests/test_wild_round54.py)
        test_sizes=(5000, 1),
    ),
    {
        # the original's own tree: offset 256 reads s_max[tid + 256], past both arrays
        # (on CUDA what lies beyond; WGSL clamps the index to the last slot)
        "as written: the tree from 256": (
            "wgsl",
            "for (var offset = 256u / 2u; offset > 0u; offset /= 2u)",
            "for (var offset = 256u; offset > 0u; offset /= 2u)",
        ),
        "the running maximum started at zero": (
            "wgsl",
            "    var acc = vec2<f32>(LOWEST, 0.0);\n    for (var i",
            "    var acc = vec2<f32>(0.0, 0.0);\n    for (var i",
        ),
        "the pairs' pass stops one block short": (
            "wgsl",
            "for (var b = gid.x; b < u32(p.N); b += stride)",
            "for (var b = gid.x; b + 1u < u32(p.N); b += stride)",
        ),
        "CUDA as written: the tree from 256": (
            "cuda",
            "for (int offset = 256 / 2; offset > 0; offset /= 2)",
            "for (int offset = 256; offset > 0; offset /= 2)",
        ),
    },
)


ROUND54: dict[str, Wild] = {
    w.kernel.id: w
    for w in (
        HISTOGRAM,
        CROSS_ENTROPY,
        DOT_PRODUCT,
        SOFTMAX,
        COLOR_INVERSION,
        REVERSE_ARRAY,
        ONLINE_SOFTMAX,
    )
}
