"""Round 20 of kernels from the wild, merged into ``tests.wild.CORPUS``: an index chosen
by comparing floats a kernel computes, and an append through an atomic counter. The
k-means assignment step in WGSL, one invocation a point, distances expanded as
``|x|^2 - 2 x.c + |c|^2`` the way GPU k-means and nearest-neighbour code writes them;
VQ-VAE's codebook lookup in CUDA, the codebook staged in shared memory, the same
expansion with ``fmaf``; and NVIDIA's warp-aggregated atomic filter ("CUDA Pro Tip:
Optimized Filtering with Warp-Aggregated Atomics": ``__activemask``, the leader's
``atomicAdd`` of ``__popc`` of the warp, its base broadcast by ``__shfl_sync``).

The references are written as users write them: the distances directly, in float64, and
``np.argmin``. On the oracle's drawn inputs (centroid rows of zeros, of tiny values) a
float64 reference tells apart distances float32 rounds to one or nearly; every float32
kernel ties there and may take either, and the oracle accepts what the reference gives
computed as float32 computes (``Expected.single``). The filter's reference fills a prefix
and leaves the declared ``-1`` after it, so an append one slot past the counter (the
classic ``+ 1`` on the returned base) fails wherever it lands.

The filter is written for this corpus after the source named below: read, not copied
(the project's rule for public code: round 20 first took the blog's kernel with its
names, and it was rewritten on 2026-12-06). The k-means and VQ kernels are the
project's own, written in the manner of such code, and stay. What is theirs is kept:
the idiom (``__activemask`` for the lanes that reach the call, the lowest active lane
found by ``__ffs`` reserving ``__popc`` of the mask with one ``atomicAdd``, the base
broadcast by ``__shfl_sync`` over the active mask, each lane's rank the ``__popc`` of
the active lanes below it), the kernel's parameters and its test of ``src[i] > 0``.
What is ours: the comments, the helper's and locals' names, the order of equivalent
statements, the guard as an early return, and the formatting.

- NVIDIA's "CUDA Pro Tip: Optimized Filtering with Warp-Aggregated Atomics" (the
  NVIDIA Technical Blog, 2014;
  https://developer.nvidia.com/blog/cuda-pro-tip-optimized-filtering-warp-aggregated-atomics/):
  ``atomicAggInc`` and ``filter_k``.
"""

from __future__ import annotations

import numpy as np

from forge import BufferSpec, KernelSpec, Schedule, ceil_div

from . import Wild


def _nearest(points: np.ndarray, centroids: np.ndarray, d: int) -> np.ndarray:
    x = points.reshape(-1, d).astype(np.float64)
    c = centroids.reshape(-1, d).astype(np.float64)
    distances = ((x[:, None, :] - c[None, :, :]) ** 2).sum(axis=-1)
    return np.argmin(distances, axis=1).astype(np.uint32)


# -- k-means assignment in WGSL: one invocation a point, expanded distances ---------------

_KMEANS_WGSL = """
struct Params { n: u32, d: u32, k: u32 }
@group(0) @binding(0) var<storage, read> points: array<f32>;
@group(0) @binding(1) var<storage, read> centroids: array<f32>;
@group(0) @binding(2) var<storage, read_write> labels: array<u32>;
@group(0) @binding(3) var<uniform> p: Params;

@compute @workgroup_size(64)
fn assign(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= p.n) { return; }
    var xx = 0.0;
    for (var j = 0u; j < p.d; j++) {
        let v = points[i * p.d + j];
        xx += v * v;
    }
    var best = 0u;
    var best_dist = 3.402823e38;
    for (var c = 0u; c < p.k; c++) {
        var xc = 0.0;
        var cc = 0.0;
        for (var j = 0u; j < p.d; j++) {
            let w = centroids[c * p.d + j];
            xc += points[i * p.d + j] * w;
            cc += w * w;
        }
        let dist = xx - 2.0 * xc + cc;
        if (dist < best_dist) {
            best_dist = dist;
            best = c;
        }
    }
    labels[i] = best;
}
"""


def _kmeans_reference(points, centroids, labels, p):
    return _nearest(points, centroids, int(p["d"]))


KMEANS_WGSL = Wild(
    KernelSpec(
        id="wild_r20_kmeans_assign_expanded_wgsl",
        entry_point="assign",
        sources={"wgsl": _KMEANS_WGSL},
        dims=("n", "d", "k"),
        buffers=(
            BufferSpec(0, "f32", "read", name="points", count="n*d", shape=("n", "d")),
            BufferSpec(1, "f32", "read", name="centroids", count="k*d", shape=("k", "d")),
            BufferSpec(2, "u32", "read_write", name="labels", count="n"),
            BufferSpec.uniform(3, (("n", "u32"), ("d", "u32"), ("k", "u32"))),
        ),
        reference=_kmeans_reference,
        params=lambda size: dict(size.dims),
        grid=lambda s, size: (ceil_div(size.n, 64), 1, 1),
        schedules=(Schedule(64),),
        # squares of values past 1e19 overflow float32 in any kernel: a user's data
        domain={"points": (-1e4, 1e4), "centroids": (-1e4, 1e4)},
        nonfinite_inputs=False,
        test_sizes=("n=1000,d=16,k=8", "n=1,d=1,k=1", "n=3000,d=2,k=200"),
    ),
    {
        "cross term added": ("wgsl", "xx - 2.0 * xc + cc", "xx + 2.0 * xc + cc"),
        "norm of the centroid dropped": (
            "wgsl",
            "let dist = xx - 2.0 * xc + cc;",
            "let dist = xx - 2.0 * xc;",
        ),
        "last dimension skipped": (
            "wgsl",
            "for (var j = 0u; j < p.d; j++) {\n            let w",
            "for (var j = 0u; j + 1u < p.d; j++) {\n            let w",
        ),
    },
)

# -- VQ-VAE codebook lookup in CUDA: the codebook in shared memory, fmaf -----------------

_VQ_CUDA = r"""
#define MAX_CODES 64
#define MAX_DIM 32
extern "C" __global__ void vq_nearest(const float* __restrict__ z,
                                      const float* __restrict__ codebook,
                                      int* __restrict__ indices, int n, int d, int k) {
    __shared__ float book[MAX_CODES * MAX_DIM];
    __shared__ float book_norm[MAX_CODES];
    for (int t = threadIdx.x; t < k * d; t += blockDim.x) book[t] = codebook[t];
    __syncthreads();
    for (int c = threadIdx.x; c < k; c += blockDim.x) {
        float s = 0.0f;
        for (int j = 0; j < d; ++j) s = fmaf(book[c * d + j], book[c * d + j], s);
        book_norm[c] = s;
    }
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float* zi = z + (size_t)i * d;
    float best = INFINITY;
    int arg = 0;
    for (int c = 0; c < k; ++c) {
        float dot = 0.0f;
        for (int j = 0; j < d; ++j) dot = fmaf(zi[j], book[c * d + j], dot);
        float dist = book_norm[c] - 2.0f * dot;  // |z|^2 is the same for every code
        if (dist < best) {
            best = dist;
            arg = c;
        }
    }
    indices[i] = arg;
}
"""


def _vq_reference(z, codebook, indices, p):
    return _nearest(z, codebook, int(p["d"])).astype(np.int32)


VQ_CUDA = Wild(
    KernelSpec(
        id="wild_r20_vq_codebook_lookup_cuda",
        entry_point="vq_nearest",
        sources={"cuda": _VQ_CUDA},
        dims=("n", "d", "k"),
        buffers=(
            BufferSpec(0, "f32", "read", name="z", count="n*d", shape=("n", "d")),
            BufferSpec(1, "f32", "read", name="codebook", count="k*d", shape=("k", "d")),
            BufferSpec(2, "i32", "read_write", name="indices", count="n"),
            BufferSpec.uniform(3, (("n", "i32"), ("d", "i32"), ("k", "i32"))),
        ),
        reference=_vq_reference,
        params=lambda size: dict(size.dims),
        grid=lambda s, size: (ceil_div(size.n, s.workgroup_size[0]), 1, 1),
        schedules=(Schedule(128), Schedule(256)),
        domain={"z": (-1e4, 1e4), "codebook": (-1e4, 1e4)},
        nonfinite_inputs=False,
        test_sizes=("n=1000,d=16,k=8", "n=1,d=1,k=1", "n=2000,d=16,k=32"),
    ),
    {
        "code norm not staged": (
            "cuda",
            "float dist = book_norm[c] - 2.0f * dot;",
            "float dist = -2.0f * dot;",
        ),
        # (a dropped barrier before the norms was tried: on the H200 warp 0 writes them
        # before the other warps read them, in every run, 2026-12-03)
        "norm read transposed": (
            "cuda",
            "s = fmaf(book[c * d + j], book[c * d + j], s);",
            "s = fmaf(book[j * k + c], book[j * k + c], s);",
        ),
        "first code skipped": (
            "cuda",
            "for (int c = 0; c < k; ++c) {\n        float dot",
            "for (int c = 1; c < k; ++c) {\n        float dot",
        ),
    },
)

# -- NVIDIA's warp-aggregated atomic filter: one atomicAdd per warp -----------------------

_FILTER_CUDA = r"""
// A slot in an append buffer for each calling lane, one atomicAdd a warp: the lanes
// that reach the call (those with an element to keep) are the active mask; the lowest
// of them reserves as many slots as there are active lanes and broadcasts where they
// start, and each lane takes the one after those of the active lanes below it.
__device__ __forceinline__ int warp_append_slot(int* counter) {
    const unsigned int lanes = __activemask();
    const unsigned int me = threadIdx.x & 31;
    const unsigned int below = __popc(lanes & ((1u << me) - 1u));
    const int lowest = __ffs(lanes) - 1;
    int start = 0;
    if (below == 0) start = atomicAdd(counter, __popc(lanes));
    start = __shfl_sync(lanes, start, lowest);
    return start + below;
}

// stream compaction: the positive elements of src, in no particular order
extern "C" __global__ void filter_positive(int* dst, int* nres, const int* src, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n || src[i] <= 0) return;
    dst[warp_append_slot(nres)] = src[i];
}
"""


def _filter_reference(dst, nres, src, p):
    kept = src[src > 0]
    dst[: kept.size] = kept
    nres[0] = kept.size


FILTER_CUDA = Wild(
    KernelSpec(
        id="wild_r20_warp_aggregated_filter_cuda",
        entry_point="filter_positive",
        sources={"cuda": _FILTER_CUDA},
        buffers=(
            BufferSpec(0, "i32", "read_write", name="dst", initial=-1, unordered=True),
            BufferSpec(1, "i32", "read_write", name="nres", count=1, initial=0),
            BufferSpec(2, "i32", "read", name="src", fill=(-1000, 1000)),
            BufferSpec.uniform(3, (("n", "i32"),)),
        ),
        reference=_filter_reference,
        params=lambda n: {"n": n},
        grid=lambda s, n: (ceil_div(n, s.workgroup_size[0]), 1, 1),
        schedules=(Schedule(256), Schedule(96)),
        test_sizes=(10000, 1, 33),
    ),
    {
        "slot one past the warp's base": (
            "cuda",
            "return start + below;",
            "return start + below + 1;",
        ),
        "rank counts the lane itself": (
            "cuda",
            "(1u << me) - 1u",
            "(2u << me) - 1u",
        ),
        "keeps zeros": ("cuda", "src[i] <= 0", "src[i] < 0"),
    },
)

ROUND20 = {w.kernel.id: w for w in (KMEANS_WGSL, VQ_CUDA, FILTER_CUDA)}
