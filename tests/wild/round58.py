"""Round 58 of kernels from the wild, merged into ``tests.wild.CORPUS``: CUDA kernels as
LLM-written benchmark solutions publish them, each written for this corpus after the
public file named below (read, not copied: the project's rule for public code), with a
WebGPU port of our own in the same spec where WGSL has the idiom (ParEval's doubles
have none: those two are CUDA only).

KernelBench (ScalingIntelligence/KernelBench) asks for a ``ModelNew`` whose CUDA comes
from ``torch.utils.cpp_extension.load_inline``: a whole ``.cu`` text with
``<torch/extension.h>``, a ``torch::Tensor`` launcher that works the grid out from the
tensor's sizes and launches with ``<<<blocks, threads>>>``, and the ``__global__``
kernel. Each CUDA source here is such a text, launcher included (README, "Bringing your
own kernel", CUDA row: NVRTC compiles its device part; the launches are the spec's,
which say what each launcher launches). ParEval (parallelcodefoundry/ParEval) gives a
prompt per problem, a ``__global__`` signature with ``size_t N`` that the model
completes, and a driver (``drivers/cpp/benchmarks/<problem>/gpu.cu``) that launches it
with blocks of 1024 over at least N threads after setting the output to a sentinel.

What is theirs is kept: each ``__global__`` function's name and parameters (names,
types, order), the block sizes and grids the launchers compute, the shared memory, the
idioms (one thread an output walking the reduced dimension by a stride, a block an
output with a strided partial sum, the ``int64_t`` sizes of a template instance,
``atomicMin`` into a sentinel the host set, a ``size_t`` index cast to
``unsigned long long`` for ``atomicMin``) and the numerics (``float sum = 0.0``, the
mean's division by the reduced size at the end, nn.GELU's erf form). What is ours: the
comments, the locals' names, the order of equivalent statements, the formatting, and
the WebGPU ports.

- A sum over the middle dimension of a (batch, dim1, dim2) tensor, one thread an output
  (anneouyang/KernelBenchLeaderboard at 45b9e5a4, no licence stated,
  ``docs/assets/solutions/6bf9975824fa7fdc5b78d6066cfb3ea5.py``, a level 1 problem 47
  solution): ``sum_reduction_kernel(x, out, dim_size, stride, num_elements)`` with
  ``stride`` the product of the sizes after the reduced one, blocks of 256, the launcher
  reading ``sizes[dim]``. The port is one invocation an output too.
- A mean over the middle dimension, a block of 256 an output (uiuc-kang-lab/
  agentic-benchmarks at 8b1468d4, no licence stated, ``benchmarks/kernel-bench/kernels/
  6548.cu``, one of the Sakana AI CUDA Engineer archive's level 1 problem 48 kernels
  that repository collects): ``hybrid_reduce_mean_kernel<scalar_t>`` with ``int64_t``
  outer, reduced and inner sizes, a strided partial sum a thread over the reduced
  dimension, a ``__shared__`` array of 256, a barrier, the first warp summing the array
  by 32s then ``__shfl_down_sync``, lane 0 dividing by the reduced size. The port, with
  no shuffles, sums the array by a tree in workgroup memory that halves 256: the
  power-of-two tree LLM kernels write, whose mutant starts it at half the threads that
  loaded something.
- A fused GEMM, scaling, Hardtanh and GELU (KernelBench level 2 problem 53,
  ScalingIntelligence/KernelBench at 423217d9, MIT,
  ``KernelBench/level2/53_Gemm_Scaling_Hardtanh_GELU.py``: ``nn.Linear``, ``* 0.5``,
  ``Hardtanh(-2, 2)``, ``nn.GELU()``), one thread an output of ``x @ W.T + b`` in blocks
  of 16 x 16 with the epilogue in registers, in the form the archive's level 2 kernels
  take (a ``__device__`` GELU helper, ``fminf(fmaxf(...))`` for the clamp); the kernel
  is ours after that problem and those kernels, no single file.
- ParEval's smallest odd number (parallelcodefoundry/ParEval at 4c9877fc, MIT (the
  University of Maryland's copyright), ``prompts/raw/reduce/28_reduce_smallest_odd_number/cuda``
  and ``drivers/cpp/benchmarks/reduce/28_reduce_smallest_odd_number/gpu.cu``):
  ``smallestOdd(const int *x, size_t N, int *smallest)``, blocks of 1024, the driver
  setting ``smallest`` to ``INT_MAX`` first; the body, a grid-stride loop into
  ``atomicMin``, is ours as a model completes it. ParEval's inputs are 0 to 100; ours
  hold negatives, where C's ``x % 2`` of an odd number is -1.
- ParEval's first even number (same repository, ``search/38_search_find_the_first_even_number``):
  ``findFirstEven(const int *x, size_t N, size_t *firstEvenIndex)``, the driver setting
  the index to N + 1 first; ``atomicMin`` over the index cast to ``unsigned long long``.
  Its inputs are drawn by the entry: odd numbers with the first even one anywhere, or
  none (drawn 1 to 100 as ParEval draws them, the first even is almost always among the
  first few, where a kernel that searches one block passes).
- ParEval's 1-D Jacobi stencil (same repository, ``stencil/52_stencil_1d_jacobi_3-point_stencil``):
  ``jacobi1D(const double *input, double *output, size_t N)``, zeros past either end,
  blocks of 1024. In doubles, which WGSL has not: CUDA only, its mutants for the GPU run.
  Its first mutant is the ``size_t`` bug ParEval's prompts invite, ``i - 1 >= 0``, always
  true, so that thread 0 reads ``input[SIZE_MAX]``, the element before the buffer.
- ParEval's average (same repository, ``reduce/27_reduce_average``): ``average(const double *x,
  size_t N, double *average)``, each value's ``x[i] / N`` added by the double
  ``atomicAdd`` into the driver's 0.0. CUDA only (doubles); its mutants for the GPU run,
  the first the completion that adds the values and lets thread 0 divide, racing the
  other blocks.
- An argmax over the middle dimension into ``int64`` indices (uiuc-kang-lab/agentic-benchmarks
  at 8b1468d4, ``benchmarks/kernel-bench/kernels/6800.cu``, an archive kernel for level 1
  problem 51): ``argmax_kernel(x, indices, outerSize, dimSize, innerSize)``, blocks of
  256, a ``__device__`` helper walking the slice by ``innerSize`` from its first value
  with ``>`` (the first of equal values, as ``torch.argmax``). The port writes each index
  as a ``vec2<i32>``, low word first.

What they showed (tests/test_wild_round58.py): every original passes on the reference,
lavapipe and SwiftShader, and every WGSL mutant fails on both. ParEval's smallest odd
number with -1 for "none" passed the default input set, where some line always held an
odd negative below -1: ``atomicMin`` now counts as a running minimum, so the one-sign
sets run it (``oracle._builtins.running_extremum``). The first even number's search
confined to one workgroup passes the default draws (an even number among the first few
elements): the entry draws its own, and the README says a search must. And the
three-dimensional entries' default sizes, had they given no test_sizes, were 513^3:
``KernelSpec.checked_sizes`` now keeps the square sizes to 2^24 elements.
"""

# ruff: noqa: E501  (long lines of CUDA and WGSL, and the mutants')

from __future__ import annotations

import numpy as np

from forge import BufferSpec, Dispatch, KernelSpec, Schedule, ceil_div

from . import Wild

# -- 1. KernelBench: a sum over dim 1, one thread an output ------------------------------

_SUM_DIM1_CUDA = r"""// kernel-forge corpus: a KernelBench load_inline sum over a dimension (read, not copied).
#include <torch/extension.h>
#include <cuda_runtime.h>

// out[o, j] = sum over r of x[o, r, j]: stride is the product of the sizes after dim
__global__ void sum_reduction_kernel(const float* x, float* out, int dim_size, int stride, int num_elements) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < num_elements) {
        int outer = idx / stride;
        int inner = idx % stride;
        float sum = 0.0;
        for (int r = 0; r < dim_size; ++r) {
            sum += x[outer * dim_size * stride + r * stride + inner];
        }
        out[idx] = sum;
    }
}

torch::Tensor sum_reduction_cuda(torch::Tensor x, int dim) {
    auto sizes = x.sizes();
    int dim_size = sizes[dim];
    int stride = 1;
    for (int d = dim + 1; d < sizes.size(); ++d) {
        stride *= sizes[d];
    }
    int num_elements = x.numel() / dim_size;
    auto out_sizes = sizes.vec();
    out_sizes[dim] = 1;
    auto out = torch::zeros(out_sizes, x.options());

    const int block_size = 256;
    const int num_blocks = (num_elements + block_size - 1) / block_size;
    sum_reduction_kernel<<<num_blocks, block_size>>>(
        x.data_ptr<float>(), out.data_ptr<float>(), dim_size, stride, num_elements);
    return out;
}
"""

_SUM_DIM1_WGSL = """// kernel-forge corpus: a WebGPU port of a KernelBench sum over a dimension (ours).
struct Params { dim_size: i32, stride: i32, num_elements: i32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

@compute @workgroup_size(256)
fn sum_reduction_kernel(@builtin(global_invocation_id) gid: vec3<u32>) {
    let idx = i32(gid.x);
    if (idx < p.num_elements) {
        let outer = idx / p.stride;
        let inner = idx % p.stride;
        let base = outer * p.dim_size * p.stride + inner;
        var sum = 0.0;
        for (var r = 0; r < p.dim_size; r++) {
            sum += x[base + r * p.stride];
        }
        out[idx] = sum;
    }
}
"""


def _sum_dim1_reference(x):
    return x.astype(np.float64).sum(axis=1)


SUM_DIM1 = Wild(
    KernelSpec(
        id="wild_r58_kernelbench_sum_dim1_thread_per_output",
        entry_point="sum_reduction_kernel",
        sources={"cuda": _SUM_DIM1_CUDA, "wgsl": _SUM_DIM1_WGSL},
        dims=("batch", "dim1", "dim2"),
        buffers=(
            BufferSpec(
                0, "f32", "read", name="x", count="batch*dim1*dim2", shape=("batch", "dim1", "dim2")
            ),
            # keepdim: (batch, 1, dim2)
            BufferSpec(
                1, "f32", "read_write", name="out", count="batch*dim2", shape=("batch", "dim2")
            ),
            BufferSpec.uniform(
                2, (("dim_size", "i32"), ("stride", "i32"), ("num_elements", "i32")), name="p"
            ),
        ),
        reference=_sum_dim1_reference,
        params=lambda size: {
            "dim_size": size.dim1,
            "stride": size.dim2,
            "num_elements": size.batch * size.dim2,
        },
        grid=lambda s, size: (ceil_div(size.batch * size.dim2, 256), 1, 1),
        schedules=(Schedule(256),),
        # the three dimensions unequal (one size: CI's time)
        test_sizes=("batch=5,dim1=67,dim2=41",),
    ),
    {
        "CUDA: reduced as if over the last dimension": (
            "cuda",
            "x[outer * dim_size * stride + r * stride + inner]",
            "x[outer * dim_size * stride + inner * dim_size + r]",
        ),
        "CUDA: the batch index divides by the reduced size": (
            "cuda",
            "int outer = idx / stride;",
            "int outer = idx / dim_size;",
        ),
        "reduced as if over the last dimension": (
            "wgsl",
            "sum += x[base + r * p.stride];",
            "sum += x[outer * p.dim_size * p.stride + inner * p.dim_size + r];",
        ),
        "the batch's base counts the kept size once": (
            "wgsl",
            "let base = outer * p.dim_size * p.stride + inner;",
            "let base = outer * p.stride + inner;",
        ),
        "the last output unwritten": (
            "wgsl",
            "if (idx < p.num_elements)",
            "if (idx + 1 < p.num_elements)",
        ),
    },
)


# -- 2. Sakana / agentic-benchmarks: a mean over dim 1, a block an output -----------------

_MEAN_DIM1_CUDA = r"""// kernel-forge corpus: an AI CUDA Engineer mean over a dimension (read, not copied).
#include <torch/extension.h>
#include <cuda.h>
#include <cuda_runtime.h>

template <typename scalar_t>
__device__ __forceinline__ scalar_t warp_reduce(scalar_t v) {
#pragma unroll
    for (int delta = 16; delta > 0; delta /= 2) {
        v += __shfl_down_sync(0xffffffff, v, delta);
    }
    return v;
}

// one block of 256 an output element (outer, inner); the reduced dimension strided
template <typename scalar_t>
__global__ void hybrid_reduce_mean_kernel(
    const scalar_t* __restrict__ input,
    scalar_t* __restrict__ output,
    int64_t outer_size,
    int64_t dim_size,
    int64_t inner_size) {
    constexpr int BLOCK_SIZE = 256;
    constexpr int WARP_SIZE = 32;
    __shared__ scalar_t partials[BLOCK_SIZE];

    const int tid = threadIdx.x;
    const int lane = tid % WARP_SIZE;
    const int output_idx = blockIdx.x;
    if (output_idx >= outer_size * inner_size) return;

    const int outer_idx = output_idx / inner_size;
    const int inner_idx = output_idx % inner_size;
    const int input_offset = outer_idx * dim_size * inner_size + inner_idx;

    scalar_t mine = 0;
#pragma unroll 4
    for (int r = tid; r < dim_size; r += BLOCK_SIZE) {
        mine += input[input_offset + r * inner_size];
    }
    partials[tid] = mine;
    __syncthreads();

    // the first warp folds the 256 partials by 32s, then shuffles
    if (tid < WARP_SIZE) {
        scalar_t folded = 0;
#pragma unroll
        for (int k = tid; k < BLOCK_SIZE; k += WARP_SIZE) {
            folded += partials[k];
        }
        folded = warp_reduce(folded);
        if (lane == 0) {
            output[output_idx] = folded / static_cast<scalar_t>(dim_size);
        }
    }
}

torch::Tensor mean_reduce_cuda(torch::Tensor input, int64_t dim) {
    if (dim < 0) dim += input.dim();
    auto sizes = input.sizes().vec();
    int64_t dim_size = sizes[dim];
    int64_t outer_size = 1;
    for (int d = 0; d < dim; d++) outer_size *= sizes[d];
    int64_t inner_size = 1;
    for (int d = dim + 1; d < sizes.size(); d++) inner_size *= sizes[d];
    sizes.erase(sizes.begin() + dim);
    auto output = torch::empty(sizes, input.options());

    const int BLOCK_SIZE = 256;
    const int num_blocks = outer_size * inner_size;
    AT_DISPATCH_FLOATING_TYPES(input.scalar_type(), "hybrid_reduce_mean_cuda", ([&] {
        hybrid_reduce_mean_kernel<scalar_t><<<num_blocks, BLOCK_SIZE>>>(
            input.data_ptr<scalar_t>(), output.data_ptr<scalar_t>(),
            outer_size, dim_size, inner_size);
    }));
    return output;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &mean_reduce_cuda, "mean over a dimension (CUDA)");
}
"""

# The port: the int64_t sizes read as vec2<u32> (low word first), the partials folded by a
# tree over 256 in workgroup memory.
_MEAN_DIM1_WGSL = """// kernel-forge corpus: a WebGPU port of an AI CUDA Engineer mean over a dimension (ours).
struct Params { outer_size: vec2<u32>, dim_size: vec2<u32>, inner_size: vec2<u32> }
@group(0) @binding(0) var<storage, read> input: array<f32>;
@group(0) @binding(1) var<storage, read_write> output: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

const BLOCK_SIZE = 256u;
var<workgroup> partials: array<f32, BLOCK_SIZE>;

@compute @workgroup_size(256)
fn hybrid_reduce_mean_kernel(@builtin(workgroup_id) wg: vec3<u32>,
                             @builtin(local_invocation_id) lid: vec3<u32>) {
    let dim = p.dim_size.x;
    let inner = p.inner_size.x;
    let output_idx = wg.x;
    let outer_idx = output_idx / inner;
    let inner_idx = output_idx % inner;
    let input_offset = outer_idx * dim * inner + inner_idx;

    var mine = 0.0;
    for (var r = lid.x; r < dim; r += BLOCK_SIZE) {
        mine += input[input_offset + r * inner];
    }
    partials[lid.x] = mine;
    workgroupBarrier();
    for (var s = BLOCK_SIZE / 2u; s > 0u; s >>= 1u) {
        if (lid.x < s) {
            partials[lid.x] += partials[lid.x + s];
        }
        workgroupBarrier();
    }
    if (lid.x == 0u) {
        output[output_idx] = partials[0] / f32(dim);
    }
}
"""


def _mean_dim1_reference(input, batch, dim1, dim2):
    return input.astype(np.float64).reshape(batch, dim1, dim2).mean(axis=1)


MEAN_DIM1 = Wild(
    KernelSpec(
        id="wild_r58_sakana_mean_dim1_block_per_output",
        entry_point="hybrid_reduce_mean_kernel<float>",
        entry_points={"wgsl": "hybrid_reduce_mean_kernel"},
        sources={"cuda": _MEAN_DIM1_CUDA, "wgsl": _MEAN_DIM1_WGSL},
        dims=("batch", "dim1", "dim2"),
        buffers=(
            BufferSpec(
                0,
                "f32",
                "read",
                name="input",
                count="batch*dim1*dim2",
                shape=("batch", "dim1", "dim2"),
            ),
            BufferSpec(
                1, "f32", "read_write", name="output", count="batch*dim2", shape=("batch", "dim2")
            ),
            BufferSpec.uniform(
                2, (("outer_size", "i64"), ("dim_size", "i64"), ("inner_size", "i64")), name="p"
            ),
        ),
        reference=_mean_dim1_reference,
        params=lambda size: {
            "outer_size": size.batch,
            "dim_size": size.dim1,
            "inner_size": size.dim2,
        },
        grid=lambda s, size: (size.batch * size.dim2, 1, 1),
        schedules=(Schedule(256),),
        # a reduced dimension past the block (300: threads load twice) and one below it
        # (67: most threads load nothing), the kept ones unequal to it
        test_sizes=("batch=2,dim1=300,dim2=7", "batch=3,dim1=67,dim2=41"),
    ),
    {
        "CUDA: the inner index modulo the reduced size": (
            "cuda",
            "const int inner_idx = output_idx % inner_size;",
            "const int inner_idx = output_idx % dim_size;",
        ),
        "CUDA: the mean over the inner size": (
            "cuda",
            "folded / static_cast<scalar_t>(dim_size)",
            "folded / static_cast<scalar_t>(inner_size)",
        ),
        "CUDA: no barrier before the first warp folds": (
            "cuda",
            "partials[tid] = mine;\n    __syncthreads();",
            "partials[tid] = mine;",
        ),
        "CUDA: the fold stops at one warp's partials": (
            "cuda",
            "for (int k = tid; k < BLOCK_SIZE; k += WARP_SIZE)",
            "for (int k = tid; k < WARP_SIZE; k += WARP_SIZE)",
        ),
        "the tree starts at half the threads that loaded": (
            "wgsl",
            "for (var s = BLOCK_SIZE / 2u; s > 0u; s >>= 1u)",
            "for (var s = min(dim, BLOCK_SIZE) / 2u; s > 0u; s >>= 1u)",
        ),
        "the tree's barrier after its loop": (
            "wgsl",
            "            partials[lid.x] += partials[lid.x + s];\n        }\n        workgroupBarrier();\n    }",
            "            partials[lid.x] += partials[lid.x + s];\n        }\n    }\n    workgroupBarrier();",
        ),
        "no barrier before the tree": (
            "wgsl",
            "partials[lid.x] = mine;\n    workgroupBarrier();",
            "partials[lid.x] = mine;",
        ),
        "strided over the last dimension": (
            "wgsl",
            "mine += input[input_offset + r * inner];",
            "mine += input[input_offset + r];",
        ),
    },
    # warps 1 to 7 store their partials while warp 0 may already read them: where the
    # GPU's order hides it, compute-sanitizer must find it
    races=frozenset({"CUDA: no barrier before the first warp folds"}),
)


# -- 3. KernelBench level 2 problem 53: GEMM, scaling, Hardtanh, GELU in one kernel -------

_GEMM_GELU_CUDA = r"""// kernel-forge corpus: a fused KernelBench level 2 GEMM epilogue (ours, after KernelBench 53).
#include <torch/extension.h>
#include <cuda_runtime.h>
#include <math.h>

// nn.GELU(): the erf form
__device__ __forceinline__ float gelu_exact(float v) {
    return 0.5f * v * (1.0f + erff(v * 0.7071067811865475f));
}

// out = gelu(hardtanh((x @ weight.T + bias) * scaling_factor)), a thread an output
__global__ void fused_gemm_scale_hardtanh_gelu_kernel(
    const float* __restrict__ x, const float* __restrict__ weight,
    const float* __restrict__ bias, float* __restrict__ out,
    int batch_size, int in_features, int out_features,
    float scaling_factor, float hardtanh_min, float hardtanh_max) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < batch_size && col < out_features) {
        float acc = 0.0f;
        for (int k = 0; k < in_features; ++k) {
            acc += x[row * in_features + k] * weight[col * in_features + k];
        }
        acc += bias[col];
        acc *= scaling_factor;
        acc = fminf(fmaxf(acc, hardtanh_min), hardtanh_max);
        out[row * out_features + col] = gelu_exact(acc);
    }
}

torch::Tensor forward(torch::Tensor x, torch::Tensor weight, torch::Tensor bias,
                      double scaling_factor, double hardtanh_min, double hardtanh_max) {
    const int batch_size = x.size(0);
    const int in_features = x.size(1);
    const int out_features = weight.size(0);
    auto out = torch::empty({batch_size, out_features}, x.options());
    dim3 threads(16, 16);
    dim3 blocks((out_features + 15) / 16, (batch_size + 15) / 16);
    fused_gemm_scale_hardtanh_gelu_kernel<<<blocks, threads>>>(
        x.data_ptr<float>(), weight.data_ptr<float>(), bias.data_ptr<float>(),
        out.data_ptr<float>(), batch_size, in_features, out_features,
        (float)scaling_factor, (float)hardtanh_min, (float)hardtanh_max);
    return out;
}
"""

# The port: WGSL has no erf; the GELU's erf is Abramowitz and Stegun 7.1.26 (|error| <
# 1.5e-7), as WGSL ports of nn.GELU write it.
_GEMM_GELU_WGSL = """// kernel-forge corpus: a WebGPU port of the fused GEMM epilogue (ours).
struct Params {
    batch_size: i32, in_features: i32, out_features: i32,
    scaling_factor: f32, hardtanh_min: f32, hardtanh_max: f32,
}
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> weight: array<f32>;
@group(0) @binding(2) var<storage, read> bias: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;
@group(0) @binding(4) var<uniform> p: Params;

fn erf_as(z: f32) -> f32 {
    let a = abs(z);
    let t = 1.0 / (1.0 + 0.3275911 * a);
    let poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
    return sign(z) * (1.0 - poly * exp(-a * a));
}

fn gelu_exact(v: f32) -> f32 {
    return 0.5 * v * (1.0 + erf_as(v * 0.7071067811865475));
}

@compute @workgroup_size(16, 16)
fn fused_gemm_scale_hardtanh_gelu_kernel(@builtin(global_invocation_id) gid: vec3<u32>) {
    let row = i32(gid.y);
    let col = i32(gid.x);
    if (row < p.batch_size && col < p.out_features) {
        var acc = 0.0;
        for (var k = 0; k < p.in_features; k++) {
            acc += x[row * p.in_features + k] * weight[col * p.in_features + k];
        }
        acc += bias[col];
        acc *= p.scaling_factor;
        acc = min(max(acc, p.hardtanh_min), p.hardtanh_max);
        out[row * p.out_features + col] = gelu_exact(acc);
    }
}
"""


def _gemm_gelu_reference(x, weight, bias, M, N, K, scaling_factor, hardtanh_min, hardtanh_max):
    from math import erf

    y = x.astype(np.float64).reshape(M, K) @ weight.astype(np.float64).reshape(N, K).T
    y = (y + bias.astype(np.float64)) * scaling_factor
    y = np.clip(y, hardtanh_min, hardtanh_max)
    erf_of = np.vectorize(erf)
    return 0.5 * y * (1.0 + erf_of(y / np.sqrt(2.0)))


GEMM_GELU = Wild(
    KernelSpec(
        id="wild_r58_kernelbench_gemm_scale_hardtanh_gelu_fused",
        entry_point="fused_gemm_scale_hardtanh_gelu_kernel",
        sources={"cuda": _GEMM_GELU_CUDA, "wgsl": _GEMM_GELU_WGSL},
        dims=("M", "N", "K"),
        buffers=(
            BufferSpec(0, "f32", "read", name="x", count="M*K", shape=("M", "K")),
            BufferSpec(1, "f32", "read", name="weight", count="N*K", shape=("N", "K")),
            BufferSpec(2, "f32", "read", name="bias", count="N"),
            BufferSpec(3, "f32", "read_write", name="out", count="M*N", shape=("M", "N")),
            BufferSpec.uniform(
                4,
                (
                    ("batch_size", "i32"),
                    ("in_features", "i32"),
                    ("out_features", "i32"),
                    ("scaling_factor", "f32"),
                    ("hardtanh_min", "f32"),
                    ("hardtanh_max", "f32"),
                ),
                name="p",
            ),
        ),
        reference=_gemm_gelu_reference,
        params=lambda size: {"batch_size": size.M, "in_features": size.K, "out_features": size.N},
        # KernelBench 53's values
        defaults={"scaling_factor": 0.5, "hardtanh_min": -2.0, "hardtanh_max": 2.0},
        grid=lambda s, size: (ceil_div(size.N, 16), ceil_div(size.M, 16), 1),
        schedules=(Schedule((16, 16)),),
        nonfinite_inputs=False,  # activations and weights
        # batch < out_features, so that a bias read by row stays inside the bias; the
        # three unequal, none a multiple of 16 (one size: CI's time)
        test_sizes=("M=37,N=67,K=53",),
    ),
    {
        "CUDA: one half as an integer division": (
            "cuda",
            "return 0.5f * v * (1.0f + erff(v * 0.7071067811865475f));",
            "return (1 / 2) * v * (1.0f + erff(v * 0.7071067811865475f));",
        ),
        "CUDA: the weight read as (in, out)": (
            "cuda",
            "weight[col * in_features + k]",
            "weight[k * out_features + col]",
        ),
        "CUDA: the bias by row": ("cuda", "acc += bias[col];", "acc += bias[row];"),
        "the weight read as (in, out)": (
            "wgsl",
            "weight[col * p.in_features + k]",
            "weight[k * p.out_features + col]",
        ),
        "scaled before the bias": (
            "wgsl",
            "acc += bias[col];\n        acc *= p.scaling_factor;",
            "acc *= p.scaling_factor;\n        acc += bias[col];",
        ),
        # nn.GELU() is the erf form: the tanh approximation, which KernelBench's atol
        # of 1e-2 passes, is up to 3e-4 off near |x| = 2
        "the tanh form where nn.GELU is erf's": (
            "wgsl",
            "return 0.5 * v * (1.0 + erf_as(v * 0.7071067811865475));",
            "return 0.5 * v * (1.0 + tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));",
        ),
        "the clamp's bounds swapped": (
            "wgsl",
            "min(max(acc, p.hardtanh_min), p.hardtanh_max)",
            "max(min(acc, p.hardtanh_min), p.hardtanh_max)",
        ),
    },
)


# -- 4. ParEval 28: the smallest odd number, atomicMin ------------------------------------

_SMALLEST_ODD_CUDA = r"""// kernel-forge corpus: a ParEval smallest-odd completion (ours, after ParEval's prompt 28).
#include <climits>

/* Find the value of the smallest odd number in the vector x. Store it in smallest.
   The kernel is launched with the same number of threads as elements in x. */
__global__ void smallestOdd(const int *x, size_t N, int *smallest) {
    size_t first = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    size_t step = (size_t)blockDim.x * gridDim.x;
    for (size_t i = first; i < N; i += step) {
        int v = x[i];
        // C's % keeps the dividend's sign: an odd negative leaves -1
        if (v % 2 != 0) {
            atomicMin(smallest, v);
        }
    }
}
"""

_SMALLEST_ODD_WGSL = """// kernel-forge corpus: a WebGPU port of the ParEval smallest odd number (ours).
struct Params { N: vec2<u32> }  // size_t: low word first
@group(0) @binding(0) var<storage, read> x: array<i32>;
@group(0) @binding(1) var<uniform> p: Params;
@group(0) @binding(2) var<storage, read_write> smallest: array<atomic<i32>>;

@compute @workgroup_size(256)
fn smallestOdd(@builtin(global_invocation_id) gid: vec3<u32>,
               @builtin(num_workgroups) groups: vec3<u32>) {
    let step = 256u * groups.x;
    for (var i = gid.x; i < p.N.x; i += step) {
        let v = x[i];
        if (v % 2 != 0) {
            atomicMin(&smallest[0], v);
        }
    }
}
"""


def _smallest_odd_reference(x, smallest):
    odd = x[x % 2 != 0]
    smallest[:] = odd.min() if odd.size else np.iinfo(np.int32).max


SMALLEST_ODD = Wild(
    KernelSpec(
        id="wild_r58_pareval_smallest_odd_atomic_min",
        entry_point="smallestOdd",
        sources={"cuda": _SMALLEST_ODD_CUDA, "wgsl": _SMALLEST_ODD_WGSL},
        buffers=(
            BufferSpec(0, "i32", "read", name="x"),
            BufferSpec.uniform(1, (("N", "u64"),), name="p"),
            # the driver's std::numeric_limits<int>::max() before the launch
            BufferSpec(2, "i32", "read_write", name="smallest", count=1, initial=2**31 - 1),
        ),
        reference=_smallest_odd_reference,
        params=lambda n: {"N": n},
        launches=(
            Dispatch(
                "smallestOdd",
                # blocks of 1024 over N (the port: workgroups of 256 over N)
                grid=lambda s, n: (
                    ceil_div(n, 1024) if s.workgroup_size[0] == 1024 else ceil_div(n, 256),
                    1,
                    1,
                ),
                schedule={"cuda": Schedule(1024)},
            ),
        ),
        test_sizes=(5003, 1),
    ),
    {
        "CUDA: odd as a remainder of 1": ("cuda", "if (v % 2 != 0)", "if (v % 2 == 1)"),
        # (a stride of one block instead would still see every element: a minimum
        # taken twice is the same, so that is no mutant)
        "CUDA: the loop starts at the block's thread": (
            "cuda",
            "size_t first = blockIdx.x * (size_t)blockDim.x + threadIdx.x;",
            "size_t first = threadIdx.x;",
        ),
        "odd as a remainder of 1": ("wgsl", "if (v % 2 != 0)", "if (v % 2 == 1)"),
        "no odd number marked -1": (
            "wgsl",
            "if (v % 2 != 0) {\n            atomicMin(&smallest[0], v);\n        }",
            "atomicMin(&smallest[0], select(-1, v, v % 2 != 0));",
        ),
        "the loop starts at the workgroup's invocation": (
            "wgsl",
            "for (var i = gid.x; i < p.N.x; i += step)",
            "for (var i = gid.x % 256u; i < p.N.x; i += step)",
        ),
    },
)


# -- 5. ParEval 38: the first even number's index, atomicMin on size_t --------------------

_FIRST_EVEN_CUDA = r"""// kernel-forge corpus: a ParEval first-even completion (ours, after ParEval's prompt 38).
/* Find the index of the first even number in the vector x. Store it in firstEvenIndex.
   The kernel is launched with at least as many threads as values in x. */
__global__ void findFirstEven(const int *x, size_t N, size_t *firstEvenIndex) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < N && x[i] % 2 == 0) {
        // no atomicMin for size_t: its 64 bits as unsigned long long
        atomicMin((unsigned long long *)firstEvenIndex, (unsigned long long)i);
    }
}
"""

# The port: the size_t index is two u32 words, low first; an index below 2^32 leaves the
# high word the driver's 0.
_FIRST_EVEN_WGSL = """// kernel-forge corpus: a WebGPU port of the ParEval first even number (ours).
struct Params { N: vec2<u32> }
@group(0) @binding(0) var<storage, read> x: array<i32>;
@group(0) @binding(1) var<uniform> p: Params;
@group(0) @binding(2) var<storage, read_write> firstEvenIndex: array<atomic<u32>>;

@compute @workgroup_size(256)
fn findFirstEven(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i < p.N.x && x[i] % 2 == 0) {
        atomicMin(&firstEvenIndex[0], i);
    }
}
"""


def _odd_until(rng, count, size):
    """Odd numbers of both signs with the first even one at a drawn place past the first
    half, at 0, at N - 1 or nowhere, by the size (``test_sizes`` take each)."""
    x = rng.integers(-(2**20), 2**20, count) * 2 + 1
    where = ("far", "none", "first", "last", "far")[count % 5]
    if where != "none" and count:
        at = {"far": int(rng.integers(count // 2, count)), "first": 0, "last": count - 1}[where]
        tail = rng.integers(-(2**20), 2**20, count - at) * 2  # evens and odds after it
        tail[1:] += rng.integers(0, 2, count - at - 1)
        x[at:] = tail
    return x.astype(np.int32)


def _first_even_reference(x, firstEvenIndex):
    even = np.flatnonzero(x % 2 == 0)
    firstEvenIndex[:] = even[0] if even.size else x.size + 1


FIRST_EVEN = Wild(
    KernelSpec(
        id="wild_r58_pareval_first_even_atomic_min_size_t",
        entry_point="findFirstEven",
        sources={"cuda": _FIRST_EVEN_CUDA, "wgsl": _FIRST_EVEN_WGSL},
        buffers=(
            BufferSpec(0, "i32", "read", name="x", fill=_odd_until),
            BufferSpec.uniform(1, (("N", "u64"),), name="p"),
            # the driver's N + 1 before the launch
            BufferSpec(
                2, "u64", "read_write", name="firstEvenIndex", count=1, initial=lambda n: n + 1
            ),
        ),
        reference=_first_even_reference,
        params=lambda n: {"N": n},
        launches=(
            Dispatch(
                "findFirstEven",
                grid=lambda s, n: (ceil_div(n, s.workgroup_size[0]), 1, 1),
                schedule={"cuda": Schedule(1024)},
            ),
        ),
        # the first even last (2003), past the first blocks (5000), nowhere (3001)
        test_sizes=(2003, 5000, 3001),
    ),
    {
        "CUDA: the even test's precedence": (
            "cuda",
            "x[i] % 2 == 0",
            "x[i] & 1 == 0",
        ),
        "CUDA: a plain store": (
            "cuda",
            "atomicMin((unsigned long long *)firstEvenIndex, (unsigned long long)i);",
            "*firstEvenIndex = i;",
        ),
        "the first block only": (
            "wgsl",
            "if (i < p.N.x && x[i] % 2 == 0)",
            "if (i < 256u && x[i] % 2 == 0)",
        ),
        "the last element left out": (
            "wgsl",
            "if (i < p.N.x && x[i] % 2 == 0)",
            "if (i + 1u < p.N.x && x[i] % 2 == 0)",
        ),
        "the largest index kept": (
            "wgsl",
            "atomicMin(&firstEvenIndex[0], i);",
            "atomicMax(&firstEvenIndex[0], i);",
        ),
    },
)


# -- 6. ParEval 52: a 1-D Jacobi stencil in doubles with size_t bounds (CUDA only) --------

_JACOBI_1D_CUDA = r"""// kernel-forge corpus: a ParEval 1-D Jacobi completion (ours, after ParEval's prompt 52).
/* output[i] = (input[i-1] + input[i] + input[i+1]) / 3, reading 0 past either end.
   The kernel is launched with at least N threads. */
__global__ void jacobi1D(const double *input, double *output, size_t N) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < N) {
        // size_t cannot go below 0: the left neighbour is tested before it is formed
        double left = (i > 0) ? input[i - 1] : 0.0;
        double right = (i + 1 < N) ? input[i + 1] : 0.0;
        output[i] = (left + input[i] + right) / 3.0;
    }
}
"""


def _jacobi_1d_reference(input):
    x = input.astype(np.float64)
    padded = np.concatenate(([0.0], x, [0.0]))
    return (padded[:-2] + padded[1:-1] + padded[2:]) / 3.0


JACOBI_1D = Wild(
    KernelSpec(
        id="wild_r58_pareval_jacobi_1d_double_size_t",
        entry_point="jacobi1D",
        sources={"cuda": _JACOBI_1D_CUDA},
        buffers=(
            BufferSpec(0, "f64", "read", name="input"),
            BufferSpec(1, "f64", "read_write", name="output"),
            BufferSpec.uniform(2, (("N", "u64"),), name="p"),
        ),
        reference=_jacobi_1d_reference,
        params=lambda n: {"N": n},
        # blocks of 1024 over at least N threads, as ParEval's driver launches it
        grid=lambda s, n: (ceil_div(n, 1024), 1, 1),
        schedules=(Schedule(1024),),
        test_sizes=(5003, 1, 1024),
    ),
    {
        # the unsigned test is always true: i = 0 reads input[SIZE_MAX], before the buffer
        "CUDA: the left bound tested as signed": (
            "cuda",
            "double left = (i > 0) ? input[i - 1] : 0.0;",
            "double left = (i - 1 >= 0) ? input[i - 1] : 0.0;",
        ),
        "CUDA: the right neighbour read at the last element": (
            "cuda",
            "double right = (i + 1 < N) ? input[i + 1] : 0.0;",
            "double right = (i < N) ? input[i + 1] : 0.0;",
        ),
        "CUDA: a third as an integer division": (
            "cuda",
            "output[i] = (left + input[i] + right) / 3.0;",
            "output[i] = 1 / 3 * (left + input[i] + right);",
        ),
    },
)


# -- 7. AI CUDA Engineer: an argmax over dim 1 into int64 indices -------------------------

_ARGMAX_DIM1_CUDA = r"""// kernel-forge corpus: an AI CUDA Engineer argmax over a dimension (read, not copied).
#include <torch/extension.h>
#include <vector>

// the index along the reduced dimension of one slice's largest value, the first on a tie
__device__ int64_t slice_argmax(const float* __restrict__ data, const int start_offset,
                                const int dimSize, const int innerSize) {
    float best = data[start_offset];
    int at = 0;
    for (int d = 1; d < dimSize; d++) {
        float v = data[start_offset + d * innerSize];
        if (v > best) {
            best = v;
            at = d;
        }
    }
    return at;
}

__global__ void argmax_kernel(const float* __restrict__ x, int64_t* __restrict__ indices,
                              const int outerSize, const int dimSize, const int innerSize) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int total = outerSize * innerSize;
    if (idx < total) {
        int outer_idx = idx / innerSize;
        int inner_idx = idx % innerSize;
        int start_offset = outer_idx * dimSize * innerSize + inner_idx;
        indices[outer_idx * innerSize + inner_idx] = slice_argmax(x, start_offset, dimSize, innerSize);
    }
}

torch::Tensor argmax_forward_cuda(const torch::Tensor& x, const int64_t dim) {
    auto xc = x.contiguous();
    auto sizes = xc.sizes();
    int outerSize = 1;
    for (int d = 0; d < dim; d++) outerSize *= sizes[d];
    int dimSize = sizes[dim];
    int innerSize = 1;
    for (int d = dim + 1; d < xc.dim(); d++) innerSize *= sizes[d];
    std::vector<int64_t> out_sizes;
    for (int d = 0; d < xc.dim(); d++) {
        if (d != dim) out_sizes.push_back(sizes[d]);
    }
    auto indices = torch::empty(out_sizes, torch::TensorOptions().device(x.device()).dtype(torch::kLong));
    const int threads = 256;
    const int total = outerSize * innerSize;
    const int blocks = (total + threads - 1) / threads;
    argmax_kernel<<<blocks, threads>>>(xc.data_ptr<float>(), indices.data_ptr<int64_t>(),
                                       outerSize, dimSize, innerSize);
    return indices;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &argmax_forward_cuda, "argmax over a dimension (CUDA)");
}
"""

# The port: an int64 index is two i32 words, low first (indices are below 2^31).
_ARGMAX_DIM1_WGSL = """// kernel-forge corpus: a WebGPU port of an AI CUDA Engineer argmax (ours).
struct Params { outerSize: i32, dimSize: i32, innerSize: i32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> indices: array<vec2<i32>>;
@group(0) @binding(2) var<uniform> p: Params;

@compute @workgroup_size(256)
fn argmax_kernel(@builtin(global_invocation_id) gid: vec3<u32>) {
    let idx = i32(gid.x);
    if (idx < p.outerSize * p.innerSize) {
        let outer_idx = idx / p.innerSize;
        let inner_idx = idx % p.innerSize;
        let start = outer_idx * p.dimSize * p.innerSize + inner_idx;
        var best = x[start];
        var at = 0;
        for (var d = 1; d < p.dimSize; d++) {
            let v = x[start + d * p.innerSize];
            if (v > best) {
                best = v;
                at = d;
            }
        }
        indices[idx] = vec2<i32>(at, 0);
    }
}
"""


def _argmax_dim1_reference(x):
    return np.argmax(x, axis=1).astype(np.int64)


ARGMAX_DIM1 = Wild(
    KernelSpec(
        id="wild_r58_sakana_argmax_dim1_int64",
        entry_point="argmax_kernel",
        sources={"cuda": _ARGMAX_DIM1_CUDA, "wgsl": _ARGMAX_DIM1_WGSL},
        dims=("batch", "dim1", "dim2"),
        buffers=(
            BufferSpec(
                0, "f32", "read", name="x", count="batch*dim1*dim2", shape=("batch", "dim1", "dim2")
            ),
            BufferSpec(
                1, "i64", "read_write", name="indices", count="batch*dim2", shape=("batch", "dim2")
            ),
            BufferSpec.uniform(
                2, (("outerSize", "i32"), ("dimSize", "i32"), ("innerSize", "i32")), name="p"
            ),
        ),
        reference=_argmax_dim1_reference,
        params=lambda size: {"outerSize": size.batch, "dimSize": size.dim1, "innerSize": size.dim2},
        grid=lambda s, size: (ceil_div(size.batch * size.dim2, 256), 1, 1),
        schedules=(Schedule(256),),
        # one size (the one-sign sets run it three times): the dimensions all differ
        test_sizes=("batch=5,dim1=67,dim2=41",),
    ),
    {
        "CUDA: the slice walked along the last dimension": (
            "cuda",
            "float v = data[start_offset + d * innerSize];",
            "float v = data[start_offset + d];",
        ),
        "CUDA: the last of equal values": ("cuda", "if (v > best) {", "if (v >= best) {"),
        "the slice walked along the last dimension": (
            "wgsl",
            "let v = x[start + d * p.innerSize];",
            "let v = x[start + d];",
        ),
        "the last of equal values": ("wgsl", "if (v > best) {", "if (v >= best) {"),
        "the best started at zero": ("wgsl", "var best = x[start];", "var best = 0.0;"),
    },
)


# -- 8. ParEval 27: the average by atomicAdd on doubles (CUDA only) -----------------------

_AVERAGE_CUDA = r"""// kernel-forge corpus: a ParEval average completion (ours, after ParEval's prompt 27).
/* Compute the average of the vector x. Store the result in average.
   The kernel is launched with at least as many threads as values in x. */
__global__ void average(const double *x, size_t N, double *average) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < N) {
        // each value's share of the mean: no pass after the sum is needed
        atomicAdd(average, x[i] / N);
    }
}
"""


def _average_reference(x, average):
    average[:] = x.astype(np.float64).mean()


AVERAGE = Wild(
    KernelSpec(
        id="wild_r58_pareval_average_double_atomic_add",
        entry_point="average",
        sources={"cuda": _AVERAGE_CUDA},
        buffers=(
            BufferSpec(0, "f64", "read", name="x"),
            BufferSpec.uniform(1, (("N", "u64"),), name="p"),
            # the driver's 0.0 before the launch
            BufferSpec(2, "f64", "read_write", name="average", count=1, initial=0.0),
        ),
        reference=_average_reference,
        params=lambda n: {"N": n},
        grid=lambda s, n: (ceil_div(n, 1024), 1, 1),
        schedules=(Schedule(1024),),
        nonfinite_inputs=False,  # ParEval draws 0 to 100
        test_sizes=(5003, 1),
    ),
    {
        # the sum divided once by thread 0, while other blocks still add: a wrong mean
        # wherever a block adds after it (sm_60's double atomicAdd, no order between blocks)
        "CUDA: thread 0 divides the sum": (
            "cuda",
            "atomicAdd(average, x[i] / N);",
            "atomicAdd(average, x[i]);\n        if (i == 0) { *average /= N; }",
        ),
        "CUDA: the block's thread as the index": (
            "cuda",
            "size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;",
            "size_t i = threadIdx.x;",
        ),
        "CUDA: divided by N - 1": ("cuda", "x[i] / N", "x[i] / (N - 1)"),
    },
)


ROUND58: dict[str, Wild] = {
    wild.kernel.id: wild
    for wild in (
        SUM_DIM1,
        MEAN_DIM1,
        GEMM_GELU,
        SMALLEST_ODD,
        FIRST_EVEN,
        JACOBI_1D,
        ARGMAX_DIM1,
        AVERAGE,
    )
}
