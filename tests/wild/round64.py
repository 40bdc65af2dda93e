"""Round 64 of kernels from the wild, merged into ``tests.wild.CORPUS``: point-cloud and
detection operators whose float inputs hold coordinates, and whose outputs hang on
float coordinate arithmetic (a sample point's floor, its clamp at the map's edge) and on
comparisons of float distances (a farthest point, three nearest ones), where a GPU's
FMA contraction and its tie-breaking differ from numpy's. Each CUDA kernel is written
for this corpus after the public file named below: read, not copied (the project's rule
for public code). What is theirs is kept: the ``__global__`` functions' names and
parameters (names, types, order), the template instances the host's dispatch makes for
float, the block sizes and grids the host code launches, the shared memory and its
barriers, the idioms (a block a batch over a stride loop, ``CUDA_1D_KERNEL_LOOP``, a
tree of ``__update`` steps over shared distances and indices) and the numerics (the
squared distances summed x, y, z in float, ``mag <= 1e-3`` against a double, the
running bests held in double and compared with ``<``, ``floor`` against a clamp, the
angle negated for ``clockwise``). What is ours: the comments, the helpers' bodies where
their header is ATen's or the project's own (``opt_n_threads``' launch is computed by
the spec; ``CUDA_1D_KERNEL_LOOP``), the formatting, and the WebGPU ports.

- PointNet++'s furthest point sampling (erikwijmans/Pointnet2_PyTorch at b5ceb6d9, The
  Unlicense, ``pointnet2_ops_lib/pointnet2_ops/_ext-src/src/sampling_gpu.cu``):
  ``furthest_point_sampling_kernel<512>(int b, int n, int m, const float *dataset,
  float *temp, int *idxs)``, a block a cloud of ``opt_n_threads(n)`` threads (512 for
  the sizes here), ``temp`` the running minimum distances the Python side fills with
  1e10, points with ``x^2 + y^2 + z^2 <= 1e-3`` skipped (their ``temp`` left at 1e10),
  a thread's best over its stride taken with ``d2 > best`` and the block's through
  ``__update`` (``v2 > v1 ? i2 : i1``) in a tree of shared memory with a barrier a
  level. The clouds are scans' voxel grids in [0, 1)^3: a tenth of the points are
  copies of earlier ones, whose distances are equal on every device, so the tie rule
  (the first in a thread's stride, the lower thread in the tree) is judged, and the
  reference follows it; the other distances are distinct. Upstream's race is kept:
  every thread reads ``dists_i[0]`` after the tree's last barrier, and thread 0 may
  write it again in the next iteration before a slower warp has read it (the port
  ends each iteration with a barrier instead).
- PointNet++'s three_nn and three_interpolate (same repository and commit,
  ``interpolate_gpu.cu``): ``three_nn_kernel(int b, int n, int m, const float
  *unknown, const float *known, float *dist2, int *idx)``, a block a batch of
  ``opt_n_threads(n)`` threads, the three bests in double from 1e40 and shifted down by
  ``<`` (the first of equal distances stays ahead; a tenth of the known points are
  copies); ``three_interpolate_kernel(int b, int c, int m, int n, const float *points,
  const int *idx, const float *weight, float *out)`` on blocks of
  ``opt_block_config(n, c)`` (256 x 2 here), each output three products summed in order.
- torchvision's deformable convolution im2col (pytorch/vision at 072a51fe, BSD
  3-clause, ``torchvision/csrc/ops/cuda/deform_conv2d_kernel.cu``):
  ``deformable_im2col_kernel<float, int>`` with its twenty-one parameters, blocks of
  512 (``GET_THREADS``) over ``CUDA_1D_KERNEL_LOOP``, ``bilinear_interpolate`` that
  returns 0 at ``h <= -1 || height <= h`` and reads each corner only where it is on the
  map, the modulated mask (``use_mask``, DCNv2), two offset groups. The offsets are a
  head's: continuous, whole and half pixels, so that samples land on the grid, on the
  map's edges and off it.
- mmcv's rotated RoIAlign forward (open-mmlab/mmcv at 1f2f8b05, Apache 2.0,
  ``mmcv/ops/csrc/common/cuda/roi_align_rotated_cuda_kernel.cuh`` with
  ``common_cuda_helper.hpp``'s ``bilinear_interpolate``):
  ``roi_align_rotated_cuda_forward_kernel<float>`` with its thirteen parameters, blocks of
  512 on ``min(ceil(n / 512), 4096)``, rois of (batch, cx, cy, w, h, theta) rotated about
  their centre, ``clockwise`` and ``aligned`` as mmrotate's RoI extractor sets them
  (both true, ``sampling_ratio`` 2, 7 x 7 bins, a quarter-scale map).

What they showed: tests/test_wild_round64.py.
"""

# ruff: noqa: E501  (the CUDA and WGSL keep their sources' long lines)

from __future__ import annotations

import numpy as np

from forge import BufferSpec, KernelSpec, Schedule, ceil_div

from . import Wild

_F = np.float32

# -- 1. PointNet++: furthest point sampling ------------------------------------------------

_FPS_CUDA = r"""// kernel-forge corpus: PointNet++'s furthest point sampling (read, not copied).
#include <cuda_runtime.h>

// one step of the block's argmax: slot idx1 keeps the larger of itself and idx2
__device__ void __update(float *__restrict__ dists, int *__restrict__ dists_i, int idx1, int idx2) {
  const float v1 = dists[idx1], v2 = dists[idx2];
  const int i1 = dists_i[idx1], i2 = dists_i[idx2];
  dists[idx1] = max(v1, v2);
  dists_i[idx1] = v2 > v1 ? i2 : i1;
}

// dataset (b, n, 3), temp (b, n) of running minimum distances, idxs (b, m): a block a cloud
template <unsigned int block_size>
__global__ void furthest_point_sampling_kernel(int b, int n, int m, const float *__restrict__ dataset, float *__restrict__ temp, int *__restrict__ idxs) {
  if (m <= 0) return;
  __shared__ float dists[block_size];
  __shared__ int dists_i[block_size];

  int batch_index = blockIdx.x;
  dataset += batch_index * n * 3;
  temp += batch_index * n;
  idxs += batch_index * m;

  int tid = threadIdx.x;
  const int stride = block_size;

  int old = 0;
  if (threadIdx.x == 0) idxs[0] = old;

  __syncthreads();
  for (int j = 1; j < m; j++) {
    int besti = 0;
    float best = -1;
    float x1 = dataset[old * 3 + 0];
    float y1 = dataset[old * 3 + 1];
    float z1 = dataset[old * 3 + 2];
    for (int k = tid; k < n; k += stride) {
      float x2 = dataset[k * 3 + 0];
      float y2 = dataset[k * 3 + 1];
      float z2 = dataset[k * 3 + 2];
      // points at the origin are padding: never chosen
      float mag = (x2 * x2) + (y2 * y2) + (z2 * z2);
      if (mag <= 1e-3) continue;

      float d = (x2 - x1) * (x2 - x1) + (y2 - y1) * (y2 - y1) + (z2 - z1) * (z2 - z1);

      float d2 = min(d, temp[k]);
      temp[k] = d2;
      besti = d2 > best ? k : besti;
      best = d2 > best ? d2 : best;
    }
    dists[tid] = best;
    dists_i[tid] = besti;
    __syncthreads();

    // the block's farthest, halving the live slots each level
    if (block_size >= 512) {
      if (tid < 256) __update(dists, dists_i, tid, tid + 256);
      __syncthreads();
    }
    if (block_size >= 256) {
      if (tid < 128) __update(dists, dists_i, tid, tid + 128);
      __syncthreads();
    }
    if (block_size >= 128) {
      if (tid < 64) __update(dists, dists_i, tid, tid + 64);
      __syncthreads();
    }
    if (block_size >= 64) {
      if (tid < 32) __update(dists, dists_i, tid, tid + 32);
      __syncthreads();
    }
    if (block_size >= 32) {
      if (tid < 16) __update(dists, dists_i, tid, tid + 16);
      __syncthreads();
    }
    if (block_size >= 16) {
      if (tid < 8) __update(dists, dists_i, tid, tid + 8);
      __syncthreads();
    }
    if (block_size >= 8) {
      if (tid < 4) __update(dists, dists_i, tid, tid + 4);
      __syncthreads();
    }
    if (block_size >= 4) {
      if (tid < 2) __update(dists, dists_i, tid, tid + 2);
      __syncthreads();
    }
    if (block_size >= 2) {
      if (tid < 1) __update(dists, dists_i, tid, tid + 1);
      __syncthreads();
    }

    old = dists_i[0];
    if (tid == 0) idxs[j] = old;
  }
}

template __global__ void furthest_point_sampling_kernel<512>(int, int, int, const float *, float *, int *);
"""

_FPS_WGSL = """// PointNet++'s furthest point sampling as a WebGPU port: a workgroup a cloud, 256
// invocations (WebGPU's default limit), the block's argmax a tree in workgroup memory.
struct Params {
    b: i32,
    n: i32,
    m: i32,
}

@group(0) @binding(0) var<storage, read> dataset: array<f32>;
@group(0) @binding(1) var<storage, read_write> temp: array<f32>;
@group(0) @binding(2) var<storage, read_write> idxs: array<i32>;
@group(0) @binding(3) var<uniform> params: Params;

const BLOCK = 256u;
var<workgroup> dists: array<f32, 256>;
var<workgroup> dists_i: array<i32, 256>;

fn update(idx1: u32, idx2: u32) {
    let v1 = dists[idx1];
    let v2 = dists[idx2];
    let i1 = dists_i[idx1];
    let i2 = dists_i[idx2];
    dists[idx1] = max(v1, v2);
    dists_i[idx1] = select(i1, i2, v2 > v1);
}

@compute @workgroup_size(256)
fn furthest_point_sampling(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let n = params.n;
    let m = params.m;
    let cloud = i32(wg.x) * n * 3;
    let row = i32(wg.x) * n;
    let tid = lid.x;

    var old = 0;
    if (tid == 0u) { idxs[i32(wg.x) * m] = old; }
    workgroupBarrier();
    for (var j = 1; j < m; j++) {
        var besti = 0;
        var best = -1.0;
        let x1 = dataset[cloud + old * 3 + 0];
        let y1 = dataset[cloud + old * 3 + 1];
        let z1 = dataset[cloud + old * 3 + 2];
        for (var k = i32(tid); k < n; k += i32(BLOCK)) {
            let x2 = dataset[cloud + k * 3 + 0];
            let y2 = dataset[cloud + k * 3 + 1];
            let z2 = dataset[cloud + k * 3 + 2];
            let mag = x2 * x2 + y2 * y2 + z2 * z2;
            if (mag <= 1e-3) { continue; }
            let d = (x2 - x1) * (x2 - x1) + (y2 - y1) * (y2 - y1) + (z2 - z1) * (z2 - z1);
            let d2 = min(d, temp[row + k]);
            temp[row + k] = d2;
            if (d2 > best) {
                besti = k;
                best = d2;
            }
        }
        dists[tid] = best;
        dists_i[tid] = besti;
        workgroupBarrier();
        for (var span = BLOCK / 2u; span > 0u; span = span / 2u) {
            if (tid < span) { update(tid, tid + span); }
            workgroupBarrier();
        }
        old = dists_i[0];
        if (tid == 0u) { idxs[i32(wg.x) * m + j] = old; }
        workgroupBarrier();
    }
}
"""


def _fps_clouds(rng, count, size):
    """Clouds in [0, 1)^3 as a voxelised scan gives them: a tenth of the points copies of
    earlier ones (exact ties on every device), a few at the origin (padding the kernel
    skips, where they would be the farthest corner), none near the skip's threshold."""
    b, n = int(size.b), int(size.n)
    pts = rng.random((b, n, 3)).astype(_F)
    near = np.einsum("bni,bni->bn", pts, pts) < 0.01
    pts[near] += _F(0.2)  # keep clear of the skip's threshold
    for cloud in pts:
        pad = rng.choice(np.arange(1, n), max(1, n // 40), replace=False)
        cloud[pad] = rng.uniform(0, 0.015, (len(pad), 3)).astype(_F)
        dst = rng.choice(np.arange(n // 2, n), n // 10, replace=False)
        cloud[dst] = cloud[rng.integers(0, n // 2, len(dst))]
    return pts.reshape(-1)[:count]


def _fps_reference_for(block: int):
    """The sampling as the kernel runs it on ``block`` threads: each thread's best over its
    stride (the first of equal distances), then the tree's (the lower slot on ties)."""

    def reference(dataset, b, n, m):
        b, n, m = int(b), int(n), int(m)
        pts = dataset.reshape(b, n, 3)
        idxs = np.zeros((b, m), np.int32)
        temp = np.full((b, n), _F(1e10), _F)
        rows = ceil_div(n, block)
        for cloud in range(b):
            p = pts[cloud]
            mag = p[:, 0] * p[:, 0] + p[:, 1] * p[:, 1] + p[:, 2] * p[:, 2]
            live = ~(mag.astype(np.float64) <= 1e-3)
            old = 0
            for j in range(1, m):
                dx, dy, dz = p[:, 0] - p[old, 0], p[:, 1] - p[old, 1], p[:, 2] - p[old, 2]
                d = dx * dx + dy * dy + dz * dz
                temp[cloud] = np.where(live, np.minimum(d, temp[cloud]), temp[cloud])
                grid = np.full(rows * block, _F(-1))
                grid[:n] = np.where(live, temp[cloud], _F(-1))
                grid = grid.reshape(rows, block)
                best = grid.max(axis=0)
                besti = grid.argmax(axis=0) * block + np.arange(block)
                besti = np.where(best > -1, besti, 0)
                half = block // 2
                while half:
                    v1, v2 = best[:half], best[half : 2 * half]
                    besti[:half] = np.where(v2 > v1, besti[half : 2 * half], besti[:half])
                    best[:half] = np.maximum(v1, v2)
                    half //= 2
                old = int(besti[0])
                idxs[cloud, j] = old
        return {"temp": temp.reshape(-1), "idxs": idxs.reshape(-1)}

    return reference


def _fps_spec(id: str, sources: dict, block: int, uniform: tuple = (), **extra) -> KernelSpec:
    return KernelSpec(
        id=id,
        sources=sources,
        dims=("b", "n", "m"),
        buffers=(
            BufferSpec(0, "f32", "read", name="dataset", count="b*n*3", fill=_fps_clouds),
            BufferSpec(1, "f32", "read_write", name="temp", count="b*n", initial=1e10),
            BufferSpec(2, "i32", "read_write", name="idxs", count="b*m", initial=0),
            *uniform,
        ),
        reference=_fps_reference_for(block),
        grid=lambda s, size: (int(size.b), 1, 1),
        schedules=(Schedule(block),),
        # two clouds of 700 (512 threads: some two points a thread), 40 samples; one of
        # 513, every thread one point but thread 0 two, 64 samples
        test_sizes=("2x700x40", "1x513x64"),
        **extra,
    )


FPS_CUDA = Wild(
    _fps_spec(
        "wild_r64_pointnet2_furthest_point_sampling",
        {"cuda": _FPS_CUDA},
        512,
        entry_point="furthest_point_sampling_kernel",
        entry_points={"cuda": "furthest_point_sampling_kernel<512>"},
    ),
    {
        "the tree takes the upper slot on ties": (
            "cuda",
            "dists_i[idx1] = v2 > v1 ? i2 : i1;",
            "dists_i[idx1] = v2 >= v1 ? i2 : i1;",
        ),
        "no barrier before the tree reads the threads' bests": (
            "cuda",
            "    dists_i[tid] = besti;\n    __syncthreads();\n",
            "    dists_i[tid] = besti;\n",
        ),
        "the origin's padding not skipped": ("cuda", "if (mag <= 1e-3) continue;", ""),
    },
    races=frozenset({"no barrier before the tree reads the threads' bests"}),
)

FPS_WGSL = Wild(
    _fps_spec(
        "wild_r64_pointnet2_furthest_point_sampling_webgpu_port",
        {"wgsl": _FPS_WGSL},
        256,
        (BufferSpec.uniform(3, (("b", "i32"), ("n", "i32"), ("m", "i32")), name="params"),),
        entry_point="furthest_point_sampling",
    ),
    {
        "the tree takes the upper slot on ties": (
            "wgsl",
            "select(i1, i2, v2 > v1)",
            "select(i1, i2, v2 >= v1)",
        ),
        "the running minimum not kept": (
            "wgsl",
            "temp[row + k] = d2;",
            "temp[row + k] = d;",
        ),
        "the tree stops one level short": (
            "wgsl",
            "span > 0u; span = span / 2u)",
            "span > 1u; span = span / 2u)",
        ),
    },
)


# -- 2. PointNet++: three_nn and three_interpolate -----------------------------------------

_THREE_NN_CUDA = r"""// kernel-forge corpus: PointNet++'s three_nn (read, not copied).
#include <cuda_runtime.h>

// unknown (b, n, 3), known (b, m, 3) -> dist2 (b, n, 3), idx (b, n, 3): a block a batch
__global__ void three_nn_kernel(int b, int n, int m, const float *__restrict__ unknown, const float *__restrict__ known, float *__restrict__ dist2, int *__restrict__ idx) {
  int batch_index = blockIdx.x;
  unknown += batch_index * n * 3;
  known += batch_index * m * 3;
  dist2 += batch_index * n * 3;
  idx += batch_index * n * 3;

  int index = threadIdx.x;
  int stride = blockDim.x;
  for (int j = index; j < n; j += stride) {
    float ux = unknown[j * 3 + 0];
    float uy = unknown[j * 3 + 1];
    float uz = unknown[j * 3 + 2];

    // the three nearest so far, nearest first
    double best1 = 1e40, best2 = 1e40, best3 = 1e40;
    int besti1 = 0, besti2 = 0, besti3 = 0;
    for (int k = 0; k < m; ++k) {
      float x = known[k * 3 + 0];
      float y = known[k * 3 + 1];
      float z = known[k * 3 + 2];
      float d = (ux - x) * (ux - x) + (uy - y) * (uy - y) + (uz - z) * (uz - z);
      if (d < best1) {
        best3 = best2;
        besti3 = besti2;
        best2 = best1;
        besti2 = besti1;
        best1 = d;
        besti1 = k;
      } else if (d < best2) {
        best3 = best2;
        besti3 = besti2;
        best2 = d;
        besti2 = k;
      } else if (d < best3) {
        best3 = d;
        besti3 = k;
      }
    }
    dist2[j * 3 + 0] = best1;
    dist2[j * 3 + 1] = best2;
    dist2[j * 3 + 2] = best3;

    idx[j * 3 + 0] = besti1;
    idx[j * 3 + 1] = besti2;
    idx[j * 3 + 2] = besti3;
  }
}
"""

_THREE_NN_WGSL = """// PointNet++'s three_nn as a WebGPU port: a workgroup a batch over a stride loop; the
// bests in f32 from the largest float (WGSL has no double; a distance's f32 is exact in it).
struct Params {
    b: i32,
    n: i32,
    m: i32,
}

@group(0) @binding(0) var<storage, read> unknown: array<f32>;
@group(0) @binding(1) var<storage, read> known: array<f32>;
@group(0) @binding(2) var<storage, read_write> dist2: array<f32>;
@group(0) @binding(3) var<storage, read_write> idx: array<i32>;
@group(0) @binding(4) var<uniform> params: Params;

@compute @workgroup_size(256)
fn three_nn(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let n = params.n;
    let m = params.m;
    let u0 = i32(wg.x) * n * 3;
    let k0 = i32(wg.x) * m * 3;
    for (var j = i32(lid.x); j < n; j += 256) {
        let ux = unknown[u0 + j * 3 + 0];
        let uy = unknown[u0 + j * 3 + 1];
        let uz = unknown[u0 + j * 3 + 2];
        var best = vec3<f32>(3.4028234663852886e+38);
        var besti = vec3<i32>(0);
        for (var k = 0; k < m; k++) {
            let x = known[k0 + k * 3 + 0];
            let y = known[k0 + k * 3 + 1];
            let z = known[k0 + k * 3 + 2];
            let d = (ux - x) * (ux - x) + (uy - y) * (uy - y) + (uz - z) * (uz - z);
            if (d < best.x) {
                best = vec3<f32>(d, best.x, best.y);
                besti = vec3<i32>(k, besti.x, besti.y);
            } else if (d < best.y) {
                best = vec3<f32>(best.x, d, best.y);
                besti = vec3<i32>(besti.x, k, besti.y);
            } else if (d < best.z) {
                best.z = d;
                besti.z = k;
            }
        }
        dist2[u0 + j * 3 + 0] = best.x;
        dist2[u0 + j * 3 + 1] = best.y;
        dist2[u0 + j * 3 + 2] = best.z;
        idx[u0 + j * 3 + 0] = besti.x;
        idx[u0 + j * 3 + 1] = besti.y;
        idx[u0 + j * 3 + 2] = besti.z;
    }
}
"""


def _known_points(rng, count, size):
    """Known points of a coarser level: a tenth copies of earlier ones (the same distance
    to every query on every device, so the order among equals is judged)."""
    b, m = int(size.b), int(size.m)
    pts = rng.random((b, m, 3)).astype(_F)
    for cloud in pts:
        dst = rng.choice(np.arange(m // 2, m), max(1, m // 10), replace=False)
        cloud[dst] = cloud[rng.integers(0, m // 2, len(dst))]
    return pts.reshape(-1)[:count]


def _query_points(rng, count, size):
    """Queries in the same cube, a few of them on known points (distance 0)."""
    b, n = int(size.b), int(size.n)
    return rng.random(b * n * 3).astype(_F)[:count]


def _three_nn_reference(unknown, known, b, n, m):
    b, n, m = int(b), int(n), int(m)
    u = unknown.reshape(b, n, 1, 3)
    k = known.reshape(b, 1, m, 3)
    dx, dy, dz = u[..., 0] - k[..., 0], u[..., 1] - k[..., 1], u[..., 2] - k[..., 2]
    d = dx * dx + dy * dy + dz * dz
    # ``<`` keeps the first of equal distances ahead: a stable sort's order
    order = np.argsort(d, axis=2, kind="stable")[:, :, :3]
    return {
        "dist2": np.take_along_axis(d, order, axis=2).reshape(-1),
        "idx": order.astype(np.int32).reshape(-1),
    }


def _three_nn_spec(id: str, sources: dict, uniform: tuple = (), **extra) -> KernelSpec:
    return KernelSpec(
        id=id,
        sources=sources,
        dims=("b", "n", "m"),
        buffers=(
            BufferSpec(0, "f32", "read", name="unknown", count="b*n*3", fill=_query_points),
            BufferSpec(1, "f32", "read", name="known", count="b*m*3", fill=_known_points),
            BufferSpec(2, "f32", "read_write", name="dist2", count="b*n*3"),
            BufferSpec(3, "i32", "read_write", name="idx", count="b*n*3"),
            *uniform,
        ),
        reference=_three_nn_reference,
        grid=lambda s, size: (int(size.b), 1, 1),
        # opt_n_threads(n) is 256 for both: 300 queries (some two a thread), 257
        schedules=(Schedule(256),),
        test_sizes=("2x300x64", "3x257x5"),
        **extra,
    )


THREE_NN_CUDA = Wild(
    _three_nn_spec(
        "wild_r64_pointnet2_three_nn", {"cuda": _THREE_NN_CUDA}, entry_point="three_nn_kernel"
    ),
    {
        "an equal distance displaces the nearest": (
            "cuda",
            "if (d < best1) {",
            "if (d <= best1) {",
        ),
        "the second best not shifted down": (
            "cuda",
            "        best3 = best2;\n        besti3 = besti2;\n        best2 = best1;",
            "        best2 = best1;",
        ),
        "y's difference squared as x's": ("cuda", "(uy - y) * (uy - y)", "(uy - y) * (ux - x)"),
    },
)

THREE_NN_WGSL = Wild(
    _three_nn_spec(
        "wild_r64_pointnet2_three_nn_webgpu_port",
        {"wgsl": _THREE_NN_WGSL},
        (BufferSpec.uniform(4, (("b", "i32"), ("n", "i32"), ("m", "i32")), name="params"),),
        entry_point="three_nn",
    ),
    {
        "an equal distance displaces the second": (
            "wgsl",
            "} else if (d < best.y) {",
            "} else if (d <= best.y) {",
        ),
        "the last known point left out": (
            "wgsl",
            "for (var k = 0; k < m; k++)",
            "for (var k = 0; k < m - 1; k++)",
        ),
    },
)

_THREE_INTERPOLATE_CUDA = r"""// kernel-forge corpus: PointNet++'s three_interpolate (read, not copied).
#include <cuda_runtime.h>

// points (b, c, m), idx (b, n, 3), weight (b, n, 3) -> out (b, c, n): a block a batch
__global__ void three_interpolate_kernel(int b, int c, int m, int n, const float *__restrict__ points, const int *__restrict__ idx, const float *__restrict__ weight, float *__restrict__ out) {
  int batch_index = blockIdx.x;
  points += batch_index * m * c;
  idx += batch_index * n * 3;
  weight += batch_index * n * 3;
  out += batch_index * n * c;

  const int index = threadIdx.y * blockDim.x + threadIdx.x;
  const int stride = blockDim.y * blockDim.x;
  for (int i = index; i < c * n; i += stride) {
    const int l = i / n;  // channel
    const int j = i % n;  // point
    float w1 = weight[j * 3 + 0];
    float w2 = weight[j * 3 + 1];
    float w3 = weight[j * 3 + 2];

    int i1 = idx[j * 3 + 0];
    int i2 = idx[j * 3 + 1];
    int i3 = idx[j * 3 + 2];

    out[i] = points[l * m + i1] * w1 + points[l * m + i2] * w2 + points[l * m + i3] * w3;
  }
}
"""

_THREE_INTERPOLATE_WGSL = """// PointNet++'s three_interpolate as a WebGPU port: a workgroup of 128 x 2 a batch.
struct Params {
    b: i32,
    c: i32,
    m: i32,
    n: i32,
}

@group(0) @binding(0) var<storage, read> points: array<f32>;
@group(0) @binding(1) var<storage, read> idx: array<i32>;
@group(0) @binding(2) var<storage, read> weight: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;
@group(0) @binding(4) var<uniform> params: Params;

@compute @workgroup_size(128, 2)
fn three_interpolate(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let c = params.c;
    let m = params.m;
    let n = params.n;
    let bi = i32(wg.x);
    let p0 = bi * m * c;
    let w0 = bi * n * 3;
    let o0 = bi * n * c;
    for (var i = i32(lid.y * 128u + lid.x); i < c * n; i += 256) {
        let l = i / n;
        let j = i % n;
        let w = vec3<f32>(weight[w0 + j * 3 + 0], weight[w0 + j * 3 + 1], weight[w0 + j * 3 + 2]);
        let k = vec3<i32>(idx[w0 + j * 3 + 0], idx[w0 + j * 3 + 1], idx[w0 + j * 3 + 2]);
        out[o0 + i] = points[p0 + l * m + k.x] * w.x + points[p0 + l * m + k.y] * w.y + points[p0 + l * m + k.z] * w.z;
    }
}
"""


def _three_indices(rng, count, size):
    """three_nn's answer: three distinct known points a query."""
    b, m, n = int(size.b), int(size.m), int(size.n)
    keys = rng.random((b * n, m))
    return np.argsort(keys, axis=1)[:, :3].astype(np.int32).reshape(-1)[:count]


def _three_weights(rng, count, size):
    """Inverse-distance weights, normalised as the Python side does."""
    b, n = int(size.b), int(size.n)
    recip = _F(1) / (rng.random((b * n, 3)).astype(_F) + _F(1e-8))
    return (recip / recip.sum(axis=1, keepdims=True)).astype(_F).reshape(-1)[:count]


def _three_interpolate_reference(points, idx, weight, b, c, m, n):
    b, c, m, n = int(b), int(c), int(m), int(n)
    p = points.reshape(b, c, m)
    k = idx.reshape(b, 1, n, 3)
    w = weight.reshape(b, 1, n, 3)
    gathered = np.take_along_axis(p[:, :, None, :], np.broadcast_to(k, (b, c, n, 3)), axis=3)
    out = gathered[..., 0] * w[..., 0] + gathered[..., 1] * w[..., 1] + gathered[..., 2] * w[..., 2]
    return out.reshape(-1)


def _three_interpolate_spec(
    id: str, sources: dict, schedule, uniform: tuple = (), **extra
) -> KernelSpec:
    return KernelSpec(
        id=id,
        sources=sources,
        dims=("b", "c", "m", "n"),
        buffers=(
            BufferSpec(0, "f32", "read", name="points", count="b*c*m"),
            BufferSpec(1, "i32", "read", name="idx", count="b*n*3", fill=_three_indices),
            BufferSpec(2, "f32", "read", name="weight", count="b*n*3", fill=_three_weights),
            BufferSpec(3, "f32", "read_write", name="out", count="b*c*n"),
            *uniform,
        ),
        reference=_three_interpolate_reference,
        grid=lambda s, size: (int(size.b), 1, 1),
        schedules=(schedule,),
        # opt_block_config(n, c) is (256, 2) for both: 32 channels of 300 points, 5 of 260
        test_sizes=("2x32x64x300", "1x5x16x260"),
        **extra,
    )


THREE_INTERPOLATE_CUDA = Wild(
    _three_interpolate_spec(
        "wild_r64_pointnet2_three_interpolate",
        {"cuda": _THREE_INTERPOLATE_CUDA},
        Schedule((256, 2)),
        entry_point="three_interpolate_kernel",
    ),
    {
        "the third weight read as the second": (
            "cuda",
            "float w3 = weight[j * 3 + 2];",
            "float w3 = weight[j * 3 + 1];",
        ),
        "the features read point-major": (
            "cuda",
            "points[l * m + i1] * w1",
            "points[i1 * c + l] * w1",
        ),
    },
)

THREE_INTERPOLATE_WGSL = Wild(
    _three_interpolate_spec(
        "wild_r64_pointnet2_three_interpolate_webgpu_port",
        {"wgsl": _THREE_INTERPOLATE_WGSL},
        Schedule((128, 2)),
        (
            BufferSpec.uniform(
                4, (("b", "i32"), ("c", "i32"), ("m", "i32"), ("n", "i32")), name="params"
            ),
        ),
        entry_point="three_interpolate",
    ),
    {
        "a stride of twice the workgroup": ("wgsl", "i < c * n; i += 256)", "i < c * n; i += 512)"),
        "the channel taken modulo the points": ("wgsl", "let l = i / n;", "let l = i % c;"),
    },
)


# -- 3. torchvision: deformable convolution's im2col ---------------------------------------

_DEFORM_CUDA = r"""// kernel-forge corpus: torchvision's deformable im2col (read, not copied).
#include <cuda_runtime.h>

// cuda_helpers.h's grid-stride loop, with the index's type
#define CUDA_1D_KERNEL_LOOP_T(i, n, index_t) \
  for (index_t i = (blockIdx.x * blockDim.x) + threadIdx.x; i < (n); i += (blockDim.x * gridDim.x))

// a sample of one channel's map at (h, w); corners off the map count as 0
template <typename scalar_t, typename index_t>
__device__ scalar_t bilinear_interpolate(const scalar_t* in, index_t height, index_t width, scalar_t h, scalar_t w) {
  if (h <= -1 || height <= h || w <= -1 || width <= w) {
    return 0;
  }

  index_t h_low = floor(h);
  index_t w_low = floor(w);
  index_t h_high = h_low + 1;
  index_t w_high = w_low + 1;

  scalar_t lh = h - h_low;
  scalar_t lw = w - w_low;
  scalar_t hh = 1 - lh, hw = 1 - lw;

  scalar_t v1 = 0;
  if (h_low >= 0 && w_low >= 0)
    v1 = in[h_low * width + w_low];
  scalar_t v2 = 0;
  if (h_low >= 0 && w_high <= width - 1)
    v2 = in[h_low * width + w_high];
  scalar_t v3 = 0;
  if (h_high <= height - 1 && w_low >= 0)
    v3 = in[h_high * width + w_low];
  scalar_t v4 = 0;
  if (h_high <= height - 1 && w_high <= width - 1)
    v4 = in[h_high * width + w_high];

  scalar_t w1 = hh * hw, w2 = hh * lw, w3 = lh * hw, w4 = lh * lw;

  scalar_t val = (w1 * v1 + w2 * v2 + w3 * v3 + w4 * v4);
  return val;
}

// a thread an (input channel, batch, output pixel): the kernel's weight_h * weight_w taps
template <typename scalar_t, typename index_t>
__global__ void deformable_im2col_kernel(
    index_t n, const scalar_t* input_ptr, const scalar_t* offset_ptr, const scalar_t* mask_ptr,
    index_t height, index_t width, index_t weight_h, index_t weight_w, index_t pad_h, index_t pad_w,
    index_t stride_h, index_t stride_w, index_t dilation_h, index_t dilation_w, index_t batch_sz,
    index_t n_in_channels, index_t n_offset_grps, index_t out_h, index_t out_w, bool use_mask,
    scalar_t* columns_ptr) {
  CUDA_1D_KERNEL_LOOP_T(index, n, index_t) {
    const index_t out_x = index % out_w;
    const index_t out_y = (index / out_w) % out_h;
    const index_t out_b = (index / (out_w * out_h)) % batch_sz;
    const index_t in_c = index / (out_w * out_h * batch_sz);
    const index_t out_c = in_c * weight_h * weight_w;

    index_t c_per_offset_grp = n_in_channels / n_offset_grps;
    const index_t grp_idx = in_c / c_per_offset_grp;

    columns_ptr += (out_c * (batch_sz * out_h * out_w) + out_b * (out_h * out_w) + out_y * out_w + out_x);

    input_ptr += (out_b * (n_in_channels * height * width) + in_c * (height * width));

    offset_ptr += (out_b * n_offset_grps + grp_idx) * 2 * weight_h * weight_w * out_h * out_w;

    if (use_mask) {
      mask_ptr += (out_b * n_offset_grps + grp_idx) * weight_h * weight_w * out_h * out_w;
    }

    for (int i = 0; i < weight_h; ++i) {
      for (int j = 0; j < weight_w; ++j) {
        const index_t mask_idx = i * weight_w + j;
        const index_t offset_idx = 2 * mask_idx;

        scalar_t mask_value = 1;
        if (use_mask) {
          mask_value = mask_ptr[mask_idx * (out_h * out_w) + out_y * out_w + out_x];
        }

        // the tap's offset: (dy, dx) planes, interleaved a tap
        const scalar_t offset_h = offset_ptr[offset_idx * (out_h * out_w) + out_y * out_w + out_x];
        const scalar_t offset_w = offset_ptr[(offset_idx + 1) * (out_h * out_w) + out_y * out_w + out_x];
        const scalar_t y = (out_y * stride_h - pad_h) + i * dilation_h + offset_h;
        const scalar_t x = (out_x * stride_w - pad_w) + j * dilation_w + offset_w;
        *columns_ptr = mask_value * bilinear_interpolate(input_ptr, height, width, y, x);
        columns_ptr += batch_sz * out_h * out_w;
      }
    }
  }
}

template __global__ void deformable_im2col_kernel<float, int>(
    int, const float*, const float*, const float*, int, int, int, int, int, int, int, int, int, int,
    int, int, int, int, int, bool, float*);
"""

_DEFORM_WGSL = """// torchvision's deformable im2col as a WebGPU port: a column element's taps an
// invocation over a grid-stride loop, 256 a workgroup.
struct Params {
    n: i32,
    height: i32,
    width: i32,
    weight_h: i32,
    weight_w: i32,
    pad_h: i32,
    pad_w: i32,
    stride_h: i32,
    stride_w: i32,
    dilation_h: i32,
    dilation_w: i32,
    batch_sz: i32,
    n_in_channels: i32,
    n_offset_grps: i32,
    out_h: i32,
    out_w: i32,
    use_mask: u32,
}

@group(0) @binding(0) var<storage, read> input: array<f32>;
@group(0) @binding(1) var<storage, read> offset: array<f32>;
@group(0) @binding(2) var<storage, read> mask: array<f32>;
@group(0) @binding(3) var<storage, read_write> columns: array<f32>;
@group(0) @binding(4) var<uniform> params: Params;

fn bilinear_interpolate(base: i32, height: i32, width: i32, h: f32, w: f32) -> f32 {
    if (h <= -1.0 || f32(height) <= h || w <= -1.0 || f32(width) <= w) {
        return 0.0;
    }
    let h_low = i32(floor(h));
    let w_low = i32(floor(w));
    let h_high = h_low + 1;
    let w_high = w_low + 1;
    let lh = h - f32(h_low);
    let lw = w - f32(w_low);
    let hh = 1.0 - lh;
    let hw = 1.0 - lw;
    var v1 = 0.0;
    if (h_low >= 0 && w_low >= 0) { v1 = input[base + h_low * width + w_low]; }
    var v2 = 0.0;
    if (h_low >= 0 && w_high <= width - 1) { v2 = input[base + h_low * width + w_high]; }
    var v3 = 0.0;
    if (h_high <= height - 1 && w_low >= 0) { v3 = input[base + h_high * width + w_low]; }
    var v4 = 0.0;
    if (h_high <= height - 1 && w_high <= width - 1) { v4 = input[base + h_high * width + w_high]; }
    return hh * hw * v1 + hh * lw * v2 + lh * hw * v3 + lh * lw * v4;
}

@compute @workgroup_size(256)
fn deformable_im2col(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let p = params;
    let plane = p.out_h * p.out_w;
    for (var index = i32(gid.x); index < p.n; index += i32(nwg.x * 256u)) {
        let out_x = index % p.out_w;
        let out_y = (index / p.out_w) % p.out_h;
        let out_b = (index / plane) % p.batch_sz;
        let in_c = index / (plane * p.batch_sz);
        let grp = in_c / (p.n_in_channels / p.n_offset_grps);
        var col = in_c * p.weight_h * p.weight_w * (p.batch_sz * plane) + out_b * plane + out_y * p.out_w + out_x;
        let base = (out_b * p.n_in_channels + in_c) * p.height * p.width;
        let off0 = (out_b * p.n_offset_grps + grp) * 2 * p.weight_h * p.weight_w * plane;
        let mask0 = (out_b * p.n_offset_grps + grp) * p.weight_h * p.weight_w * plane;
        let pixel = out_y * p.out_w + out_x;
        for (var i = 0; i < p.weight_h; i++) {
            for (var j = 0; j < p.weight_w; j++) {
                let tap = i * p.weight_w + j;
                var mask_value = 1.0;
                if (p.use_mask != 0u) { mask_value = mask[mask0 + tap * plane + pixel]; }
                let offset_h = offset[off0 + 2 * tap * plane + pixel];
                let offset_w = offset[off0 + (2 * tap + 1) * plane + pixel];
                let y = f32(out_y * p.stride_h - p.pad_h + i * p.dilation_h) + offset_h;
                let x = f32(out_x * p.stride_w - p.pad_w + j * p.dilation_w) + offset_w;
                columns[col] = mask_value * bilinear_interpolate(base, p.height, p.width, y, x);
                col += p.batch_sz * plane;
            }
        }
    }
}
"""

_DCN_K = 3  # a 3 x 3 kernel, padding 1, stride 1, dilation 1: the output is the map's size
_DCN_GROUPS = 2


def _dcn_offsets(rng, count, size):
    """A DCN head's offsets in pixels: continuous, whole and half pixels (a sample on the
    grid, on the map's first and last row and column, a pixel outside: where
    ``h <= -1`` and ``height <= h`` decide), up to 2.5 pixels either way."""
    kind = rng.integers(0, 3, count)
    cont = rng.uniform(-2.5, 2.5, count)
    whole = rng.integers(-2, 3, count).astype(np.float64)
    half = rng.integers(-5, 6, count) / 2.0
    return np.select([kind == 0, kind == 1], [cont, whole], half).astype(_F)


def _dcn_mask(rng, count, size):
    """The modulation: a sigmoid's output."""
    return rng.uniform(0, 1, count).astype(_F)


def _dcn_bilinear(plane, h, w):
    """``bilinear_interpolate`` over every sample of (B, H, W) maps at once, in float32."""
    height, width = plane.shape[1:]
    outside = (h <= -1) | (height <= h) | (w <= -1) | (width <= w)
    h_low = np.floor(np.where(outside, 0, h)).astype(np.int64)
    w_low = np.floor(np.where(outside, 0, w)).astype(np.int64)
    h_high, w_high = h_low + 1, w_low + 1
    lh, lw = h - h_low.astype(_F), w - w_low.astype(_F)
    hh, hw = _F(1) - lh, _F(1) - lw
    batch = np.arange(plane.shape[0]).reshape(-1, *([1] * (h.ndim - 1)))

    def corner(y, x, ok):
        return np.where(
            ok, plane[batch, np.clip(y, 0, height - 1), np.clip(x, 0, width - 1)], _F(0)
        )

    v1 = corner(h_low, w_low, (h_low >= 0) & (w_low >= 0))
    v2 = corner(h_low, w_high, (h_low >= 0) & (w_high <= width - 1))
    v3 = corner(h_high, w_low, (h_high <= height - 1) & (w_low >= 0))
    v4 = corner(h_high, w_high, (h_high <= height - 1) & (w_high <= width - 1))
    val = hh * hw * v1 + hh * lw * v2 + lh * hw * v3 + lh * lw * v4
    return np.where(outside, _F(0), val)


def _deform_reference(input, offset, mask, B, C, H, W):
    B, C, H, W = int(B), int(C), int(H), int(W)
    taps = _DCN_K * _DCN_K
    maps = input.reshape(B, C, H, W)
    off = offset.reshape(B, _DCN_GROUPS, taps, 2, H, W)
    msk = mask.reshape(B, _DCN_GROUPS, taps, H, W)
    oy = np.arange(H)[:, None]
    ox = np.arange(W)[None, :]
    cols = np.zeros((C, taps, B, H, W), _F)
    for c in range(C):
        g = c // (C // _DCN_GROUPS)
        for t in range(taps):
            i, j = divmod(t, _DCN_K)
            y = (oy - 1 + i).astype(_F) + off[:, g, t, 0]
            x = (ox - 1 + j).astype(_F) + off[:, g, t, 1]
            cols[c, t] = msk[:, g, t] * _dcn_bilinear(maps[:, c], y, x)
    return cols.reshape(-1)


def _deform_spec(
    id: str, sources: dict, use_mask: object, uniform: tuple = (), **extra
) -> KernelSpec:
    return KernelSpec(
        id=id,
        sources=sources,
        dims=("B", "C", "H", "W"),
        buffers=(
            BufferSpec(0, "f32", "read", name="input", count="B*C*H*W"),
            BufferSpec(
                1,
                "f32",
                "read",
                name="offset",
                count=lambda s: int(s.B) * _DCN_GROUPS * 2 * 9 * int(s.H) * int(s.W),
                fill=_dcn_offsets,
            ),
            BufferSpec(
                2,
                "f32",
                "read",
                name="mask",
                count=lambda s: int(s.B) * _DCN_GROUPS * 9 * int(s.H) * int(s.W),
                fill=_dcn_mask,
            ),
            BufferSpec(3, "f32", "read_write", name="columns", count=lambda s: int(s) * 9),
            *uniform,
        ),
        reference=_deform_reference,
        params=lambda s: {
            "n": int(s),
            "height": int(s.H),
            "width": int(s.W),
            "weight_h": _DCN_K,
            "weight_w": _DCN_K,
            "pad_h": 1,
            "pad_w": 1,
            "stride_h": 1,
            "stride_w": 1,
            "dilation_h": 1,
            "dilation_w": 1,
            "batch_sz": int(s.B),
            "n_in_channels": int(s.C),
            "n_offset_grps": _DCN_GROUPS,
            "out_h": int(s.H),
            "out_w": int(s.W),
        },
        defaults={"use_mask": use_mask},
        # two images of 4 channels, 9 x 11 (792 threads); one of 2 channels, 5 x 4
        test_sizes=("2x4x9x11", "1x2x5x4"),
        **extra,
    )


DEFORM_CUDA = Wild(
    _deform_spec(
        "wild_r64_torchvision_deformable_im2col",
        {"cuda": _DEFORM_CUDA},
        True,  # a C++ bool
        entry_point="deformable_im2col_kernel",
        entry_points={"cuda": "deformable_im2col_kernel<float, int>"},
        grid=lambda s, size: (ceil_div(int(size), 512), 1, 1),
        schedules=(Schedule(512),),
    ),
    {
        "the tap's offsets read x for y": (
            "cuda",
            "const scalar_t offset_h = offset_ptr[offset_idx * (out_h * out_w)",
            "const scalar_t offset_h = offset_ptr[(offset_idx + 1) * (out_h * out_w)",
        ),
        "the modulation never applied": (
            "cuda",
            "*columns_ptr = mask_value * bilinear_interpolate(",
            "*columns_ptr = bilinear_interpolate(",
        ),
        "the last column's right neighbour dropped": (
            "cuda",
            "if (h_low >= 0 && w_high <= width - 1)",
            "if (h_low >= 0 && w_high < width - 1)",
        ),
    },
)

DEFORM_WGSL = Wild(
    _deform_spec(
        "wild_r64_torchvision_deformable_im2col_webgpu_port",
        {"wgsl": _DEFORM_WGSL},
        1,  # the port's u32
        (
            BufferSpec.uniform(
                4,
                tuple(
                    (name, "i32")
                    for name in (
                        "n",
                        "height",
                        "width",
                        "weight_h",
                        "weight_w",
                        "pad_h",
                        "pad_w",
                        "stride_h",
                        "stride_w",
                        "dilation_h",
                        "dilation_w",
                        "batch_sz",
                        "n_in_channels",
                        "n_offset_grps",
                        "out_h",
                        "out_w",
                    )
                )
                + (("use_mask", "u32"),),
                name="params",
            ),
        ),  # fmt: skip
        entry_point="deformable_im2col",
        grid=lambda s, size: (ceil_div(int(size), 256), 1, 1),
        schedules=(Schedule(256),),
    ),
    {
        # a sample exactly on the last row reads the row below the map: the next channel's
        "the bottom edge let in": ("wgsl", "f32(height) <= h", "f32(height) < h"),
        "the floor taken as truncation": (
            "wgsl",
            "let h_low = i32(floor(h));",
            "let h_low = i32(h);",
        ),
        "the offset group of the wrong channel": (
            "wgsl",
            "let grp = in_c / (p.n_in_channels / p.n_offset_grps);",
            "let grp = in_c % p.n_offset_grps;",
        ),
    },
)


# -- 4. mmcv: rotated RoIAlign forward -----------------------------------------------------

_ROI_ROTATED_CUDA = r"""// kernel-forge corpus: mmcv's rotated RoIAlign forward (read, not copied).
#include <cuda_runtime.h>

#define CUDA_1D_KERNEL_LOOP(i, n) \
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)

// common_cuda_helper.hpp's sample: 0 more than a pixel off the map, clamped at its edges
template <typename T>
__device__ T bilinear_interpolate(const T* input, const int height, const int width, T y, T x, const int index /* for debug only */) {
  if (y < -1.0 || y > height || x < -1.0 || x > width) return 0;

  if (y <= 0) y = 0;
  if (x <= 0) x = 0;

  int y_low = (int)y;
  int x_low = (int)x;
  int y_high;
  int x_high;

  if (y_low >= height - 1) {
    y_high = y_low = height - 1;
    y = (T)y_low;
  } else {
    y_high = y_low + 1;
  }

  if (x_low >= width - 1) {
    x_high = x_low = width - 1;
    x = (T)x_low;
  } else {
    x_high = x_low + 1;
  }

  T ly = y - y_low;
  T lx = x - x_low;
  T hy = 1. - ly, hx = 1. - lx;
  T v1 = input[y_low * width + x_low];
  T v2 = input[y_low * width + x_high];
  T v3 = input[y_high * width + x_low];
  T v4 = input[y_high * width + x_high];
  T w1 = hy * hx, w2 = hy * lx, w3 = ly * hx, w4 = ly * lx;

  T val = (w1 * v1 + w2 * v2 + w3 * v3 + w4 * v4);
  return val;
}

// rois (batch, cx, cy, w, h, theta): each output (n, c, ph, pw) the average of its bin's
// samples, the bin's grid rotated by theta about the roi's centre
template <typename scalar_t>
__global__ void roi_align_rotated_cuda_forward_kernel(
    const int nthreads, const scalar_t* bottom_data, const scalar_t* bottom_rois, const scalar_t spatial_scale,
    const int sampling_ratio, const bool aligned, const bool clockwise, const int channels, const int height,
    const int width, const int pooled_height, const int pooled_width, scalar_t* top_data) {
  CUDA_1D_KERNEL_LOOP(index, nthreads) {
    int pw = index % pooled_width;
    int ph = (index / pooled_width) % pooled_height;
    int c = (index / pooled_width / pooled_height) % channels;
    int n = index / pooled_width / pooled_height / channels;

    const scalar_t* offset_bottom_rois = bottom_rois + n * 6;
    int roi_batch_ind = offset_bottom_rois[0];

    // aligned: the map's pixel centres at half-integers
    scalar_t offset = aligned ? (scalar_t)0.5 : (scalar_t)0.0;
    scalar_t roi_center_w = offset_bottom_rois[1] * spatial_scale - offset;
    scalar_t roi_center_h = offset_bottom_rois[2] * spatial_scale - offset;
    scalar_t roi_width = offset_bottom_rois[3] * spatial_scale;
    scalar_t roi_height = offset_bottom_rois[4] * spatial_scale;
    scalar_t theta = offset_bottom_rois[5];
    if (clockwise) {
      theta = -theta;  // the angle given clockwise: turn it the other way
    }
    if (!aligned) {
      // older models: a malformed roi is taken as 1 x 1
      roi_width = max(roi_width, (scalar_t)1.);
      roi_height = max(roi_height, (scalar_t)1.);
    }
    scalar_t bin_size_h = static_cast<scalar_t>(roi_height) / static_cast<scalar_t>(pooled_height);
    scalar_t bin_size_w = static_cast<scalar_t>(roi_width) / static_cast<scalar_t>(pooled_width);

    const scalar_t* offset_bottom_data = bottom_data + (roi_batch_ind * channels + c) * height * width;

    int roi_bin_grid_h = (sampling_ratio > 0) ? sampling_ratio : ceilf(roi_height / pooled_height);
    int roi_bin_grid_w = (sampling_ratio > 0) ? sampling_ratio : ceilf(roi_width / pooled_width);

    // the grid about the centre, rotated, then moved onto it
    scalar_t roi_start_h = -roi_height / 2.0;
    scalar_t roi_start_w = -roi_width / 2.0;
    scalar_t cosscalar_theta = cos(theta);
    scalar_t sinscalar_theta = sin(theta);

    const scalar_t count = max(roi_bin_grid_h * roi_bin_grid_w, 1);

    scalar_t output_val = 0.;
    for (int iy = 0; iy < roi_bin_grid_h; iy++) {
      const scalar_t yy = roi_start_h + ph * bin_size_h + static_cast<scalar_t>(iy + .5f) * bin_size_h / static_cast<scalar_t>(roi_bin_grid_h);
      for (int ix = 0; ix < roi_bin_grid_w; ix++) {
        const scalar_t xx = roi_start_w + pw * bin_size_w + static_cast<scalar_t>(ix + .5f) * bin_size_w / static_cast<scalar_t>(roi_bin_grid_w);

        scalar_t y = yy * cosscalar_theta - xx * sinscalar_theta + roi_center_h;
        scalar_t x = yy * sinscalar_theta + xx * cosscalar_theta + roi_center_w;

        scalar_t val = bilinear_interpolate<scalar_t>(offset_bottom_data, height, width, y, x, index);
        output_val += val;
      }
    }
    output_val /= count;

    top_data[index] = output_val;
  }
}

template __global__ void roi_align_rotated_cuda_forward_kernel<float>(
    const int, const float*, const float*, const float, const int, const bool, const bool, const int, const int,
    const int, const int, const int, float*);
"""

_ROI_ROTATED_WGSL = """// mmcv's rotated RoIAlign forward as a WebGPU port: an output element an invocation over
// a grid-stride loop, 256 a workgroup.
struct Params {
    nthreads: i32,
    spatial_scale: f32,
    sampling_ratio: i32,
    aligned: u32,
    clockwise: u32,
    channels: i32,
    height: i32,
    width: i32,
    pooled_height: i32,
    pooled_width: i32,
}

@group(0) @binding(0) var<storage, read> bottom_data: array<f32>;
@group(0) @binding(1) var<storage, read> bottom_rois: array<f32>;
@group(0) @binding(2) var<storage, read_write> top_data: array<f32>;
@group(0) @binding(3) var<uniform> params: Params;

fn bilinear_interpolate(base: i32, height: i32, width: i32, y_in: f32, x_in: f32) -> f32 {
    var y = y_in;
    var x = x_in;
    if (y < -1.0 || y > f32(height) || x < -1.0 || x > f32(width)) { return 0.0; }
    if (y <= 0.0) { y = 0.0; }
    if (x <= 0.0) { x = 0.0; }
    var y_low = i32(y);
    var x_low = i32(x);
    var y_high: i32;
    var x_high: i32;
    if (y_low >= height - 1) {
        y_low = height - 1;
        y_high = y_low;
        y = f32(y_low);
    } else {
        y_high = y_low + 1;
    }
    if (x_low >= width - 1) {
        x_low = width - 1;
        x_high = x_low;
        x = f32(x_low);
    } else {
        x_high = x_low + 1;
    }
    let ly = y - f32(y_low);
    let lx = x - f32(x_low);
    let hy = 1.0 - ly;
    let hx = 1.0 - lx;
    let v1 = bottom_data[base + y_low * width + x_low];
    let v2 = bottom_data[base + y_low * width + x_high];
    let v3 = bottom_data[base + y_high * width + x_low];
    let v4 = bottom_data[base + y_high * width + x_high];
    return hy * hx * v1 + hy * lx * v2 + ly * hx * v3 + ly * lx * v4;
}

@compute @workgroup_size(256)
fn roi_align_rotated_forward(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let p = params;
    for (var index = i32(gid.x); index < p.nthreads; index += i32(nwg.x * 256u)) {
        let pw = index % p.pooled_width;
        let ph = (index / p.pooled_width) % p.pooled_height;
        let c = (index / p.pooled_width / p.pooled_height) % p.channels;
        let n = index / p.pooled_width / p.pooled_height / p.channels;

        let roi_batch_ind = i32(bottom_rois[n * 6]);
        let offset = select(0.0, 0.5, p.aligned != 0u);
        let roi_center_w = bottom_rois[n * 6 + 1] * p.spatial_scale - offset;
        let roi_center_h = bottom_rois[n * 6 + 2] * p.spatial_scale - offset;
        var roi_width = bottom_rois[n * 6 + 3] * p.spatial_scale;
        var roi_height = bottom_rois[n * 6 + 4] * p.spatial_scale;
        var theta = bottom_rois[n * 6 + 5];
        if (p.clockwise != 0u) { theta = -theta; }
        if (p.aligned == 0u) {
            roi_width = max(roi_width, 1.0);
            roi_height = max(roi_height, 1.0);
        }
        let bin_size_h = roi_height / f32(p.pooled_height);
        let bin_size_w = roi_width / f32(p.pooled_width);
        let base = (roi_batch_ind * p.channels + c) * p.height * p.width;

        var grid_h = p.sampling_ratio;
        var grid_w = p.sampling_ratio;
        if (p.sampling_ratio <= 0) {
            grid_h = i32(ceil(roi_height / f32(p.pooled_height)));
            grid_w = i32(ceil(roi_width / f32(p.pooled_width)));
        }
        let roi_start_h = -roi_height / 2.0;
        let roi_start_w = -roi_width / 2.0;
        let cos_t = cos(theta);
        let sin_t = sin(theta);
        let count = f32(max(grid_h * grid_w, 1));

        var output_val = 0.0;
        for (var iy = 0; iy < grid_h; iy++) {
            let yy = roi_start_h + f32(ph) * bin_size_h + (f32(iy) + 0.5) * bin_size_h / f32(grid_h);
            for (var ix = 0; ix < grid_w; ix++) {
                let xx = roi_start_w + f32(pw) * bin_size_w + (f32(ix) + 0.5) * bin_size_w / f32(grid_w);
                let y = yy * cos_t - xx * sin_t + roi_center_h;
                let x = yy * sin_t + xx * cos_t + roi_center_w;
                output_val += bilinear_interpolate(base, p.height, p.width, y, x);
            }
        }
        top_data[index] = output_val / count;
    }
}
"""

_RR_POOLED = 7
_RR_SCALE = 0.25
_RR_SAMPLING = 2


def _rotated_rois(rng, count, size):
    """Rotated proposals as an oriented detector's head gives them: (batch, cx, cy, w, h,
    theta) in the image's pixels (the map's four times), theta in radians within
    (-pi, pi), from a few map pixels to most of the image, some centred near its border
    so that their samples fall off the map."""
    k = int(size.K)
    img_w, img_h = 4.0 * int(size.W), 4.0 * int(size.H)
    cx = rng.uniform(-0.05, 1.05, k) * img_w
    cy = rng.uniform(-0.05, 1.05, k) * img_h
    w = img_w * rng.uniform(0.05, 0.8, k)
    h = img_h * rng.uniform(0.05, 0.8, k)
    theta = rng.uniform(-np.pi, np.pi, k)
    batch = rng.integers(0, int(size.N), k)
    return np.stack([batch, cx, cy, w, h, theta], axis=1).astype(_F).reshape(-1)[:count]


def _mmcv_bilinear(image, y, x):
    """mmcv's ``bilinear_interpolate`` over every sample at once, in float32; ``image`` is
    (C, H, W), the result (C,) + y's shape."""
    height, width = image.shape[1:]
    outside = (y < -1) | (y > height) | (x < -1) | (x > width)
    y = np.where(y <= 0, _F(0), y)
    x = np.where(x <= 0, _F(0), x)
    y_low = np.clip(y, 0, height).astype(np.int64)
    x_low = np.clip(x, 0, width).astype(np.int64)
    last_y, last_x = y_low >= height - 1, x_low >= width - 1
    y_low = np.where(last_y, height - 1, y_low)
    x_low = np.where(last_x, width - 1, x_low)
    y_high = np.where(last_y, y_low, y_low + 1)
    x_high = np.where(last_x, x_low, x_low + 1)
    y = np.where(last_y, y_low.astype(_F), y)
    x = np.where(last_x, x_low.astype(_F), x)
    ly, lx = y - y_low.astype(_F), x - x_low.astype(_F)
    hy, hx = _F(1) - ly, _F(1) - lx
    val = (
        hy * hx * image[:, y_low, x_low]
        + hy * lx * image[:, y_low, x_high]
        + ly * hx * image[:, y_high, x_low]
        + ly * lx * image[:, y_high, x_high]
    )
    return np.where(outside, _F(0), val)


def _roi_rotated_reference(
    bottom_data, bottom_rois, N, C, H, W, K, spatial_scale, sampling_ratio, aligned, clockwise
):
    maps = bottom_data.reshape(int(N), int(C), int(H), int(W))
    out = np.zeros((int(K), int(C), _RR_POOLED, _RR_POOLED), _F)
    bins = np.arange(_RR_POOLED, dtype=_F)
    for k, roi in enumerate(bottom_rois.reshape(int(K), 6)):
        offset = _F(0.5) if aligned else _F(0)
        centre_w = roi[1] * _F(spatial_scale) - offset
        centre_h = roi[2] * _F(spatial_scale) - offset
        roi_w, roi_h = roi[3] * _F(spatial_scale), roi[4] * _F(spatial_scale)
        theta = -roi[5] if clockwise else roi[5]
        if not aligned:
            roi_w, roi_h = max(roi_w, _F(1)), max(roi_h, _F(1))
        bin_h, bin_w = roi_h / _F(_RR_POOLED), roi_w / _F(_RR_POOLED)
        grid_h = sampling_ratio if sampling_ratio > 0 else int(np.ceil(roi_h / _F(_RR_POOLED)))
        grid_w = sampling_ratio if sampling_ratio > 0 else int(np.ceil(roi_w / _F(_RR_POOLED)))
        start_h, start_w = -roi_h / _F(2), -roi_w / _F(2)
        cos_t, sin_t = np.cos(theta), np.sin(theta)
        count = _F(max(grid_h * grid_w, 1))
        iy = np.arange(grid_h, dtype=_F) + _F(0.5)
        ix = np.arange(grid_w, dtype=_F) + _F(0.5)
        yy = start_h + bins[:, None] * bin_h + iy[None, :] * bin_h / _F(grid_h)  # (PH, gh)
        xx = start_w + bins[:, None] * bin_w + ix[None, :] * bin_w / _F(grid_w)  # (PW, gw)
        yy = np.broadcast_to(yy[:, None, :, None], (_RR_POOLED, _RR_POOLED, grid_h, grid_w))
        xx = np.broadcast_to(xx[None, :, None, :], (_RR_POOLED, _RR_POOLED, grid_h, grid_w))
        y = yy * cos_t - xx * sin_t + centre_h
        x = yy * sin_t + xx * cos_t + centre_w
        samples = _mmcv_bilinear(maps[int(roi[0])], y, x)  # (C, PH, PW, gh, gw)
        total = np.zeros(samples.shape[:3], _F)
        for s in samples.reshape(*samples.shape[:3], -1).transpose(3, 0, 1, 2):
            total += s  # in the kernel's order
        out[k] = total / count
    return out.reshape(-1)


def _roi_rotated_spec(
    id: str, sources: dict, flag: object, uniform: tuple = (), **extra
) -> KernelSpec:
    return KernelSpec(
        id=id,
        sources=sources,
        dims=("N", "C", "H", "W", "K"),
        buffers=(
            BufferSpec(0, "f32", "read", name="bottom_data", count="N*C*H*W"),
            BufferSpec(1, "f32", "read", name="bottom_rois", count="K*6", fill=_rotated_rois),
            BufferSpec(
                2, "f32", "read_write", name="top_data", count=lambda s: int(s.K) * int(s.C) * 49
            ),
            *uniform,
        ),
        reference=_roi_rotated_reference,
        params=lambda size: {
            "nthreads": int(size.K) * int(size.C) * _RR_POOLED * _RR_POOLED,
            "channels": int(size.C),
            "height": int(size.H),
            "width": int(size.W),
            "pooled_height": _RR_POOLED,
            "pooled_width": _RR_POOLED,
        },
        defaults={
            "spatial_scale": _RR_SCALE,
            "sampling_ratio": _RR_SAMPLING,
            "aligned": flag,
            "clockwise": flag,
        },
        # 11 rois over two maps of 3 x 20 x 24 (1617 outputs); 4 over one of 2 x 9 x 7
        test_sizes=("2x3x20x24x11", "1x2x9x7x4"),
        **extra,
    )


ROI_ROTATED_CUDA = Wild(
    _roi_rotated_spec(
        "wild_r64_mmcv_roi_align_rotated_forward",
        {"cuda": _ROI_ROTATED_CUDA},
        True,  # C++ bools
        entry_point="roi_align_rotated_cuda_forward_kernel",
        entry_points={"cuda": "roi_align_rotated_cuda_forward_kernel<float>"},
        grid=lambda s, size: (min(ceil_div(int(size.K) * int(size.C) * 49, 512), 4096), 1, 1),
        schedules=(Schedule(512),),
    ),
    {
        "clockwise never turned": (
            "cuda",
            "      theta = -theta;  // the angle",
            "      // the angle",
        ),
        "the rotation's sine on the wrong side": (
            "cuda",
            "scalar_t y = yy * cosscalar_theta - xx * sinscalar_theta + roi_center_h;",
            "scalar_t y = yy * cosscalar_theta + xx * sinscalar_theta + roi_center_h;",
        ),
        "aligned's half pixel never taken off": (
            "cuda",
            "scalar_t offset = aligned ? (scalar_t)0.5 : (scalar_t)0.0;",
            "scalar_t offset = (scalar_t)0.0;",
        ),
    },
)

ROI_ROTATED_WGSL = Wild(
    _roi_rotated_spec(
        "wild_r64_mmcv_roi_align_rotated_webgpu_port",
        {"wgsl": _ROI_ROTATED_WGSL},
        1,  # the port's u32
        (
            BufferSpec.uniform(
                3,
                (
                    ("nthreads", "i32"),
                    ("spatial_scale", "f32"),
                    ("sampling_ratio", "i32"),
                    ("aligned", "u32"),
                    ("clockwise", "u32"),
                    ("channels", "i32"),
                    ("height", "i32"),
                    ("width", "i32"),
                    ("pooled_height", "i32"),
                    ("pooled_width", "i32"),
                ),
                name="params",
            ),
        ),
        entry_point="roi_align_rotated_forward",
        grid=lambda s, size: (ceil_div(int(size.K) * int(size.C) * 49, 256), 1, 1),
        schedules=(Schedule(256),),
    ),
    {
        "x and y swapped in the sample": (
            "wgsl",
            "output_val += bilinear_interpolate(base, p.height, p.width, y, x);",
            "output_val += bilinear_interpolate(base, p.height, p.width, x, y);",
        ),
        "the last row clamped one late": (
            "wgsl",
            "if (y_low >= height - 1) {",
            "if (y_low > height - 1) {",
        ),
        "the centre's half pixel added": (
            "wgsl",
            "let offset = select(0.0, 0.5, p.aligned != 0u);",
            "let offset = select(0.0, -0.5, p.aligned != 0u);",
        ),
    },
)


ROUND64: dict[str, Wild] = {
    wild.kernel.id: wild
    for wild in (
        FPS_CUDA,
        FPS_WGSL,
        THREE_NN_CUDA,
        THREE_NN_WGSL,
        THREE_INTERPOLATE_CUDA,
        THREE_INTERPOLATE_WGSL,
        DEFORM_CUDA,
        DEFORM_WGSL,
        ROI_ROTATED_CUDA,
        ROI_ROTATED_WGSL,
    )
}
