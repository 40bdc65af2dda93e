"""Round 19 of kernels from the wild, merged into ``tests.wild.CORPUS``: normalisations
whose statistics are not taken along a buffer's rows, where round 18's rows of small
values do not reach. BatchNorm in training over NCHW (a workgroup per channel, the
batch statistics over N and HW, in WGSL as a WebGPU training runtime writes it), the
same in CUDA as PyTorch's ``batch_norm_collect_statistics`` kernel does it (Welford per
thread, merged across the warp by shuffles and across warps in shared memory),
BatchNorm1d in training over an (N, C) batch (a thread per feature, down the column, in
CUDA and in WGSL),
and an InstanceNorm whose buffers are declared (N, C, H, W), so that a row is W and a
statistic spans H of them. Each has a numpy reference written the way the framework
documents the operator, in float64, and "eps outside the root" mutants
(``(x - mean) / (sqrt(var) + eps)`` for ``(x - mean) * rsqrt(var + eps)``) beside the
usual slips.

These kernels were written by the project for this corpus, in the manner of the
frameworks named (no file of theirs followed: the CUDA statistics kernel takes the
name of PyTorch's ``batch_norm_collect_statistics`` and its Welford merge across the
warp and the block, in a form of its own, far from ATen's templated
``Normalization.cuh``; a search of the stored public code for their distinctive lines
found no file they follow), so they are not copies of public code and stay as
written (checked on 2026-12-06, when the rounds that took upstream text verbatim were
rewritten in our own words).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from forge import BufferSpec, KernelSpec, Schedule, ceil_div

from . import Wild


def _batch_stats(x: np.ndarray, axes: tuple[int, ...], eps: float):
    """Biased batch mean and 1 / sqrt(var + eps) over ``axes``, in float64, keepdims."""
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=axes, keepdims=True)
    var = x64.var(axis=axes, keepdims=True)
    return mean, 1.0 / np.sqrt(var + eps)


# -- BatchNorm2d training in WGSL: a workgroup per channel, two passes over N and HW ------

_BN_TRAIN_WGSL = """
struct Params { N: u32, C: u32, HW: u32, eps: f32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> weight: array<f32>;
@group(0) @binding(2) var<storage, read> bias: array<f32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;
@group(0) @binding(4) var<storage, read_write> save_mean: array<f32>;
@group(0) @binding(5) var<storage, read_write> save_invstd: array<f32>;
@group(0) @binding(6) var<uniform> p: Params;

const WG = 128u;
var<workgroup> scratch: array<f32, WG>;

fn reduce(lid: u32, v: f32) -> f32 {
    scratch[lid] = v;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s = s >> 1u) {
        if (lid < s) { scratch[lid] = scratch[lid] + scratch[lid + s]; }
        workgroupBarrier();
    }
    let total = scratch[0];
    workgroupBarrier();
    return total;
}

@compute @workgroup_size(128)
fn bn_train(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid3: vec3<u32>) {
    let c = wid.x;
    let lid = lid3.x;
    let count = p.N * p.HW;
    var sum = 0.0;
    for (var i = lid; i < count; i = i + WG) {
        let n = i / p.HW;
        let s = i % p.HW;
        sum = sum + x[(n * p.C + c) * p.HW + s];
    }
    let mean = reduce(lid, sum) / f32(count);
    var sq = 0.0;
    for (var i = lid; i < count; i = i + WG) {
        let n = i / p.HW;
        let s = i % p.HW;
        let d = x[(n * p.C + c) * p.HW + s] - mean;
        sq = sq + d * d;
    }
    let variance = reduce(lid, sq) / f32(count);
    let invstd = inverseSqrt(variance + p.eps);
    if (lid == 0u) {
        save_mean[c] = mean;
        save_invstd[c] = invstd;
    }
    for (var i = lid; i < count; i = i + WG) {
        let n = i / p.HW;
        let s = i % p.HW;
        let at = (n * p.C + c) * p.HW + s;
        y[at] = (x[at] - mean) * invstd * weight[c] + bias[c];
    }
}
"""


def _bn_train_reference(x, weight, bias, params):
    mean, invstd = _batch_stats(x, (0, 2), float(params["eps"]))
    w, b = (v.astype(np.float64).reshape(1, -1, 1) for v in (weight, bias))
    y = (x - mean) * invstd * w + b
    return {
        "y": y.astype(np.float32),
        "save_mean": mean.reshape(-1).astype(np.float32),
        "save_invstd": invstd.reshape(-1).astype(np.float32),
    }


def _nchw(binding: int, name: str, access: str = "read") -> BufferSpec:
    return BufferSpec(binding, "f32", access, name=name, count="N*C*HW", shape=("N", "C", "HW"))


BN_TRAIN_WGSL = Wild(
    KernelSpec(
        id="wild_r19_batch_norm_train_wgsl",
        entry_point="bn_train",
        sources={"wgsl": _BN_TRAIN_WGSL},
        dims=("N", "C", "HW"),
        buffers=(
            _nchw(0, "x"),
            BufferSpec(1, "f32", "read", name="weight", count="C"),
            BufferSpec(2, "f32", "read", name="bias", count="C"),
            _nchw(3, "y", "read_write"),
            BufferSpec(4, "f32", "read_write", name="save_mean", count="C"),
            BufferSpec(5, "f32", "read_write", name="save_invstd", count="C"),
            BufferSpec.uniform(6, (("N", "u32"), ("C", "u32"), ("HW", "u32"), ("eps", "f32"))),
        ),
        reference=_bn_train_reference,
        params=lambda size: dict(size.dims),
        defaults={"eps": 1e-5},
        grid=lambda s, size: (size.C, 1, 1),
        schedules=(Schedule(128),),
        domain={"x": (-8.0, 8.0), "weight": (-2.0, 2.0), "bias": (-2.0, 2.0)},
        nonfinite_inputs=False,
        test_sizes=("N=4,C=6,HW=49", "N=1,C=1,HW=1", "N=3,C=16,HW=10"),
    ),
    {
        "eps outside the root": (
            "wgsl",
            "let invstd = inverseSqrt(variance + p.eps);",
            "let invstd = 1.0 / (sqrt(variance) + p.eps);",
        ),
        "statistics of the first sample only": (
            "wgsl",
            "let count = p.N * p.HW;",
            "let count = p.HW;",
        ),
        "channel stride of one sample": (
            "wgsl",
            "let at = (n * p.C + c) * p.HW + s;",
            "let at = (n + c) * p.HW + s;",
        ),
    },
)

# -- BatchNorm2d training statistics in CUDA, as PyTorch collects them ----------------------

_BN_TRAIN_CUDA = r"""
#define WARP_SIZE 32
#define MAX_BLOCK 256

struct Welford { float mean; float m2; int n; };

__device__ __forceinline__ Welford welford_merge(Welford a, Welford b) {
    int n = a.n + b.n;
    if (n == 0) return a;
    float delta = b.mean - a.mean;
    float nb_over_n = (float)b.n / (float)n;
    Welford r;
    r.mean = a.mean + delta * nb_over_n;
    r.m2 = a.m2 + b.m2 + delta * delta * (float)a.n * nb_over_n;
    r.n = n;
    return r;
}

__device__ __forceinline__ Welford warp_merge(Welford w) {
    for (int offset = WARP_SIZE / 2; offset > 0; offset >>= 1) {
        Welford o;
        o.mean = __shfl_xor_sync(0xffffffff, w.mean, offset);
        o.m2 = __shfl_xor_sync(0xffffffff, w.m2, offset);
        o.n = __shfl_xor_sync(0xffffffff, w.n, offset);
        w = welford_merge(w, o);
    }
    return w;
}

extern "C" __global__ void batch_norm_collect_statistics(
        const float* __restrict__ input, float* __restrict__ save_mean,
        float* __restrict__ save_invstd, int N, int C, int HW, float epsilon) {
    __shared__ float shared_mean[MAX_BLOCK / WARP_SIZE];
    __shared__ float shared_m2[MAX_BLOCK / WARP_SIZE];
    __shared__ int shared_n[MAX_BLOCK / WARP_SIZE];
    const int plane = blockIdx.x;
    const int tid = threadIdx.x;
    Welford w = {0.0f, 0.0f, 0};
    for (int batch = 0; batch < N; ++batch) {
        for (int s = tid; s < HW; s += blockDim.x) {
            float v = input[((long)batch * C + plane) * HW + s];
            w.n += 1;
            float delta = v - w.mean;
            w.mean += delta / (float)w.n;
            w.m2 += delta * (v - w.mean);
        }
    }
    w = warp_merge(w);
    const int warp = tid / WARP_SIZE, lane = tid % WARP_SIZE;
    if (lane == 0) {
        shared_mean[warp] = w.mean;
        shared_m2[warp] = w.m2;
        shared_n[warp] = w.n;
    }
    __syncthreads();
    if (warp == 0) {
        const int warps = blockDim.x / WARP_SIZE;
        Welford v = {0.0f, 0.0f, 0};
        if (lane < warps) {
            v.mean = shared_mean[lane];
            v.m2 = shared_m2[lane];
            v.n = shared_n[lane];
        }
        v = warp_merge(v);
        if (lane == 0) {
            save_mean[plane] = v.mean;
            save_invstd[plane] = rsqrtf(v.m2 / (float)v.n + epsilon);
        }
    }
}
"""


def _bn_stats_reference(inp, params):
    mean, invstd = _batch_stats(inp, (0, 2), float(params["epsilon"]))
    return {
        "save_mean": mean.reshape(-1).astype(np.float32),
        "save_invstd": invstd.reshape(-1).astype(np.float32),
    }


BN_STATS_CUDA = Wild(
    KernelSpec(
        id="wild_r19_batch_norm_collect_statistics_cuda",
        entry_point="batch_norm_collect_statistics",
        sources={"cuda": _BN_TRAIN_CUDA},
        dims=("N", "C", "HW"),
        buffers=(
            _nchw(0, "input"),
            BufferSpec(1, "f32", "read_write", name="save_mean", count="C"),
            BufferSpec(2, "f32", "read_write", name="save_invstd", count="C"),
            BufferSpec.uniform(3, (("N", "i32"), ("C", "i32"), ("HW", "i32"), ("epsilon", "f32"))),
        ),
        reference=_bn_stats_reference,
        params=lambda size: dict(size.dims),
        defaults={"epsilon": 1e-5},
        grid=lambda s, size: (size.C, 1, 1),
        schedules=(Schedule(256), Schedule(64)),
        domain={"input": (-8.0, 8.0)},
        nonfinite_inputs=False,
        test_sizes=("N=4,C=6,HW=49", "N=1,C=1,HW=1", "N=3,C=16,HW=300"),
    ),
    {
        "eps outside the root": (
            "cuda",
            "save_invstd[plane] = rsqrtf(v.m2 / (float)v.n + epsilon);",
            "save_invstd[plane] = 1.0f / (sqrtf(v.m2 / (float)v.n) + epsilon);",
        ),
        "unbiased variance": (
            "cuda",
            "rsqrtf(v.m2 / (float)v.n + epsilon)",
            "rsqrtf(v.m2 / (float)max(v.n - 1, 1) + epsilon)",
        ),
        "merge weighted by a's count": (
            "cuda",
            "float nb_over_n = (float)b.n / (float)n;",
            "float nb_over_n = (float)a.n / (float)n;",
        ),
    },
)

# -- BatchNorm1d training over an (N, C) batch: a thread per feature, down its column -----

_BN1D_CUDA = r"""
extern "C" __global__ void batchnorm1d_train(const float* x, const float* gamma,
                                             const float* beta, float* y, int N, int C,
                                             float eps) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= C) return;
    float mean = 0.0f;
    for (int n = 0; n < N; ++n) mean += x[n * C + c];
    mean /= N;
    float var = 0.0f;
    for (int n = 0; n < N; ++n) {
        float d = x[n * C + c] - mean;
        var += d * d;
    }
    var /= N;
    float inv = rsqrtf(var + eps);
    for (int n = 0; n < N; ++n) {
        y[n * C + c] = (x[n * C + c] - mean) * inv * gamma[c] + beta[c];
    }
}
"""


def _bn1d_reference(x, gamma, beta, params):
    mean, invstd = _batch_stats(x, (0,), float(params["eps"]))
    y = (x - mean) * invstd * gamma.astype(np.float64) + beta.astype(np.float64)
    return y.astype(np.float32)


BN1D_CUDA = Wild(
    KernelSpec(
        id="wild_r19_batchnorm1d_train_cuda",
        entry_point="batchnorm1d_train",
        sources={"cuda": _BN1D_CUDA},
        dims=("N", "C"),
        buffers=(
            BufferSpec(0, "f32", "read", name="x", count="N*C", shape=("N", "C")),
            BufferSpec(1, "f32", "read", name="gamma", count="C"),
            BufferSpec(2, "f32", "read", name="beta", count="C"),
            BufferSpec(3, "f32", "read_write", name="y", count="N*C", shape=("N", "C")),
            BufferSpec.uniform(4, (("N", "i32"), ("C", "i32"), ("eps", "f32"))),
        ),
        reference=_bn1d_reference,
        params=lambda size: dict(size.dims),
        defaults={"eps": 1e-5},
        grid=lambda s, size: (ceil_div(size.C, s.workgroup_size[0]), 1, 1),
        schedules=(Schedule(64),),
        domain={"x": (-8.0, 8.0), "gamma": (-2.0, 2.0), "beta": (-2.0, 2.0)},
        nonfinite_inputs=False,
        test_sizes=("N=32,C=40", "N=1,C=1", "N=7,C=100"),
    ),
    {
        "eps outside the root": (
            "cuda",
            "float inv = rsqrtf(var + eps);",
            "float inv = 1.0f / (sqrtf(var) + eps);",
        ),
        "row stride of one": ("cuda", "mean += x[n * C + c];", "mean += x[n + c];"),
    },
)

# -- BatchNorm1d training in WGSL: an invocation per feature, down its column ------------

_BN1D_WGSL = """
struct Params { N: u32, C: u32, eps: f32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> gamma: array<f32>;
@group(0) @binding(2) var<storage, read> beta: array<f32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;
@group(0) @binding(4) var<uniform> p: Params;

@compute @workgroup_size(64)
fn batchnorm1d_train(@builtin(global_invocation_id) gid: vec3<u32>) {
    let c = gid.x;
    if (c >= p.C) { return; }
    var mean = 0.0;
    for (var n = 0u; n < p.N; n++) { mean += x[n * p.C + c]; }
    mean /= f32(p.N);
    var var_sum = 0.0;
    for (var n = 0u; n < p.N; n++) {
        let d = x[n * p.C + c] - mean;
        var_sum += d * d;
    }
    let inv = inverseSqrt(var_sum / f32(p.N) + p.eps);
    for (var n = 0u; n < p.N; n++) {
        y[n * p.C + c] = (x[n * p.C + c] - mean) * inv * gamma[c] + beta[c];
    }
}
"""

BN1D_WGSL = Wild(
    dataclasses.replace(
        BN1D_CUDA.kernel,
        id="wild_r19_batchnorm1d_train_wgsl",
        sources={"wgsl": _BN1D_WGSL},
        buffers=BN1D_CUDA.kernel.buffers[:4]
        + (BufferSpec.uniform(4, (("N", "u32"), ("C", "u32"), ("eps", "f32"))),),
    ),
    {
        "eps outside the root": (
            "wgsl",
            "let inv = inverseSqrt(var_sum / f32(p.N) + p.eps);",
            "let inv = 1.0 / (sqrt(var_sum / f32(p.N)) + p.eps);",
        ),
        "unbiased variance": (
            "wgsl",
            "var_sum / f32(p.N) + p.eps",
            "var_sum / f32(max(p.N, 2u) - 1u) + p.eps",
        ),
    },
)

# -- InstanceNorm over (N, C, H, W): a workgroup per (n, c), its H x W plane ----------------

_INSTANCE_NORM_4D = """
struct Params { H: u32, W: u32, C: u32, eps: f32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> gamma: array<f32>;
@group(0) @binding(2) var<storage, read> beta: array<f32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;
@group(0) @binding(4) var<uniform> p: Params;

var<workgroup> sums: array<vec2<f32>, 64>;

@compute @workgroup_size(64)
fn instance_norm(@builtin(workgroup_id) wid: vec3<u32>,
                 @builtin(local_invocation_index) lid: u32) {
    let plane = p.H * p.W;
    let base = wid.x * plane;
    let c = wid.x % p.C;
    var s = vec2<f32>(0.0, 0.0);
    for (var i = lid; i < plane; i += 64u) {
        let v = x[base + i];
        s += vec2<f32>(v, v * v);
    }
    sums[lid] = s;
    workgroupBarrier();
    for (var k = 32u; k > 0u; k >>= 1u) {
        if (lid < k) { sums[lid] += sums[lid + k]; }
        workgroupBarrier();
    }
    let mean = sums[0].x / f32(plane);
    let variance = max(sums[0].y / f32(plane) - mean * mean, 0.0);
    let scale = gamma[c] * inverseSqrt(variance + p.eps);
    for (var i = lid; i < plane; i += 64u) {
        y[base + i] = (x[base + i] - mean) * scale + beta[c];
    }
}
"""


def _instance_norm_4d_reference(x, gamma, beta, params):
    mean, invstd = _batch_stats(x, (2, 3), float(params["eps"]))
    per = lambda a: a.astype(np.float64).reshape(1, -1, 1, 1)  # noqa: E731
    return ((x - mean) * invstd * per(gamma) + per(beta)).astype(np.float32)


def _nchw4(binding: int, name: str, access: str = "read") -> BufferSpec:
    return BufferSpec(
        binding, "f32", access, name=name, count="N*C*H*W", shape=("N", "C", "H", "W")
    )


INSTANCE_NORM_4D = Wild(
    KernelSpec(
        id="wild_r19_instance_norm_nchw",
        entry_point="instance_norm",
        sources={"wgsl": _INSTANCE_NORM_4D},
        dims=("N", "C", "H", "W"),
        buffers=(
            _nchw4(0, "x"),
            BufferSpec(1, "f32", "read", name="gamma", count="C"),
            BufferSpec(2, "f32", "read", name="beta", count="C"),
            _nchw4(3, "y", "read_write"),
            BufferSpec.uniform(4, (("H", "u32"), ("W", "u32"), ("C", "u32"), ("eps", "f32"))),
        ),
        reference=_instance_norm_4d_reference,
        params=lambda size: {"H": size.H, "W": size.W, "C": size.C},
        defaults={"eps": 1e-5},
        grid=lambda s, size: (size.N * size.C, 1, 1),
        schedules=(Schedule(64),),
        domain={"x": (-4.0, 4.0), "gamma": (-2.0, 2.0), "beta": (-2.0, 2.0)},
        nonfinite_inputs=False,
        test_sizes=("N=2,C=3,H=8,W=12", "N=1,C=1,H=1,W=1", "N=2,C=4,H=5,W=7"),
    ),
    {
        "eps outside the root": (
            "wgsl",
            "let scale = gamma[c] * inverseSqrt(variance + p.eps);",
            "let scale = gamma[c] / (sqrt(variance) + p.eps);",
        ),
        "channel of the sample": ("wgsl", "let c = wid.x % p.C;", "let c = wid.x / p.C;"),
    },
)

ROUND19: dict[str, Wild] = {
    w.kernel.id: w for w in (BN_TRAIN_WGSL, BN_STATS_CUDA, BN1D_CUDA, BN1D_WGSL, INSTANCE_NORM_4D)
}
