"""Round 12 of kernels from the wild, merged into ``tests.wild.CORPUS``: CUDA kernels
that read ``__constant__`` memory the host fills with ``cudaMemcpyToSymbol``, as
cuda-samples' separable convolution keeps its filter taps (``c_Kernel``) and as
polynomial approximations keep their coefficients. A buffer named like the variable is
copied into it before the launch (``forge.arguments.symbol_buffers``); until then such
a kernel could not be declared at all (the variable stayed zero). And three of llm.c's
kernels (train_gpt2.cu) as written there: the layernorm's warp per row through
cooperative groups with ``__ldcs``/``__stcs``, the GELU over ``Packed128`` 16-byte
loads (its ``M_PI``, which nvcc's implicit <math.h> defines, was undefined under NVRTC),
and the token and position embedding sum. CUDA only: they run on the GPU."""

from __future__ import annotations

import numpy as np

from forge import BufferSpec, KernelSpec, Schedule, ceil_div

from . import Wild

# -- cuda-samples convolutionSeparable, the row pass: taps in __constant__ memory ----------

_ROWS = r"""
#define KERNEL_RADIUS 8
#define KERNEL_LENGTH (2 * KERNEL_RADIUS + 1)
#define ROWS_BLOCKDIM_X 32
#define ROWS_BLOCKDIM_Y 4

__constant__ float c_Kernel[KERNEL_LENGTH];

__global__ void convolutionRowsKernel(float *d_Dst, const float *d_Src, int imageW, int imageH) {
    __shared__ float s_Data[ROWS_BLOCKDIM_Y][ROWS_BLOCKDIM_X + 2 * KERNEL_RADIUS];
    const int x = blockIdx.x * ROWS_BLOCKDIM_X + threadIdx.x;
    const int y = blockIdx.y * ROWS_BLOCKDIM_Y + threadIdx.y;
    const int row = min(y, imageH - 1);

    // the block's pixels and the two aprons; zero outside the image
    for (int i = threadIdx.x; i < ROWS_BLOCKDIM_X + 2 * KERNEL_RADIUS; i += ROWS_BLOCKDIM_X) {
        const int gx = blockIdx.x * ROWS_BLOCKDIM_X + i - KERNEL_RADIUS;
        s_Data[threadIdx.y][i] = (gx >= 0 && gx < imageW) ? d_Src[row * imageW + gx] : 0.0f;
    }
    __syncthreads();
    if (x >= imageW || y >= imageH) return;

    float sum = 0;
#pragma unroll
    for (int j = -KERNEL_RADIUS; j <= KERNEL_RADIUS; j++) {
        sum += c_Kernel[KERNEL_RADIUS - j] * s_Data[threadIdx.y][threadIdx.x + KERNEL_RADIUS + j];
    }
    d_Dst[y * imageW + x] = sum;
}
"""

_RADIUS = 8


def _rows_reference(d_Dst, d_Src, c_Kernel):
    src = d_Src.astype(np.float64)
    taps = c_Kernel.astype(np.float64)
    padded = np.pad(src, ((0, 0), (_RADIUS, _RADIUS)))
    width = src.shape[1]
    out = np.zeros_like(src)
    for j in range(-_RADIUS, _RADIUS + 1):
        out += taps[_RADIUS - j] * padded[:, _RADIUS + j : _RADIUS + j + width]
    d_Dst[...] = out


CONVOLUTION_ROWS = Wild(
    KernelSpec(
        id="wild_r12_cuda_samples_convolution_rows_constant_taps",
        entry_point="convolutionRowsKernel",
        sources={"cuda": _ROWS},
        dims=("imageH", "imageW"),
        buffers=(
            BufferSpec(
                0,
                "f32",
                "read_write",
                name="d_Dst",
                count="imageH*imageW",
                shape=("imageH", "imageW"),
            ),
            BufferSpec(
                1, "f32", "read", name="d_Src", count="imageH*imageW", shape=("imageH", "imageW")
            ),
            BufferSpec(2, "f32", "read", name="c_Kernel", count=2 * _RADIUS + 1, fill=(-1.0, 1.0)),
        ),
        reference=_rows_reference,
        grid=lambda s, size: (ceil_div(size.imageW, 32), ceil_div(size.imageH, 4), 1),
        schedules=(Schedule((32, 4)),),
        domain={"d_Src": (-4.0, 4.0)},
        test_sizes=("imageH=37,imageW=100", "imageH=1,imageW=1", "imageH=8,imageW=33"),
    ),
    {
        "taps not mirrored": ("cuda", "c_Kernel[KERNEL_RADIUS - j]", "c_Kernel[KERNEL_RADIUS + j]"),
        "edges clamped, not zero": (
            "cuda",
            "? d_Src[row * imageW + gx] : 0.0f;",
            "? d_Src[row * imageW + gx] : d_Src[row * imageW + min(max(gx, 0), imageW - 1)];",
        ),
        "last tap left out": ("cuda", "j <= KERNEL_RADIUS; j++", "j < KERNEL_RADIUS; j++"),
    },
)

# -- a polynomial approximation with its coefficients in __constant__ memory (Horner) ------

_HORNER = r"""
#include <cuda_runtime.h>

#define DEGREE 7
__constant__ float coeffs[DEGREE + 1];  // c0 + c1 x + ... + c7 x^7

__device__ __forceinline__ float horner(float x) {
    float acc = coeffs[DEGREE];
#pragma unroll
    for (int k = DEGREE - 1; k >= 0; --k) acc = fmaf(acc, x, coeffs[k]);
    return acc;
}

__global__ void poly_eval(const float* __restrict__ x, float* __restrict__ y, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        y[i] = horner(x[i]);
    }
}
"""


def _horner_reference(x, y, coeffs):
    # numpy's polyval wants the highest power first
    return np.polyval(coeffs.astype(np.float64)[::-1], x.astype(np.float64)).astype(np.float32)


HORNER = Wild(
    KernelSpec(
        id="wild_r12_constant_coefficients_horner",
        entry_point="poly_eval",
        sources={"cuda": _HORNER},
        buffers=(
            BufferSpec(0, "f32", "read", name="x"),
            BufferSpec(1, "f32", "read_write", name="y"),
            BufferSpec(2, "f32", "read", name="coeffs", count=8, fill=(-1.0, 1.0)),
        ),
        reference=_horner_reference,
        grid=lambda s, n: (min(ceil_div(n, 256), 64), 1, 1),
        schedules=(Schedule(256),),
        domain={"x": (-1.0, 1.0)},
        test_sizes=(100_000, 1, 257),
    ),
    {
        "highest coefficient left out": (
            "cuda",
            "float acc = coeffs[DEGREE];",
            "float acc = 0.0f;",
        ),
        "coefficients in the wrong order": (
            "cuda",
            "acc = fmaf(acc, x, coeffs[k]);",
            "acc = fmaf(acc, x, coeffs[DEGREE - 1 - k]);",
        ),
        # (a grid stride of one block, i += blockDim.x, only computes elements again:
        # slower, not wrong)
        "lowest coefficient dropped": ("cuda", "k >= 0; --k", "k > 0; --k"),
    },
)

ROUND12 = {w.kernel.id: w for w in (CONVOLUTION_ROWS, HORNER)}

# -- llm.c (train_gpt2.cu): layernorm_forward_kernel3, a warp per row through
# cooperative groups, streaming stores (__stcs) and loads (__ldcs) ----------------------

_LLMC_LAYERNORM = r"""
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

__global__ void layernorm_forward_kernel3(float* __restrict__ out, float* __restrict__ mean,
                                          float* __restrict__ rstd,
                                          const float*  __restrict__ inp,
                                          const float*  __restrict__ weight,
                                          const float* __restrict__ bias, int N, int C) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int idx = blockIdx.x * warp.meta_group_size() + warp.meta_group_rank();
    if(idx >= N) {
        return;
    }

    // the row of input this warp is responsible for
    const float* x = inp + idx * C;

    // mean
    float sum = 0.0f;
    for (int i = warp.thread_rank(); i < C; i += warp.size()) {
        sum += x[i];
    }
    sum = cg::reduce(warp, sum, cg::plus<float>{});
    float m = sum / C;
    if(warp.thread_rank() == 0 && mean != nullptr) {
        __stcs(mean + idx, m);
    }

    // rstd
    sum = 0.0f;
    for (int i = warp.thread_rank(); i < C; i += warp.size()) {
        float diff = x[i] - m;
        sum += diff * diff;
    }
    sum = cg::reduce(warp, sum, cg::plus<float>{});
    float s = rsqrtf(sum / C + 1e-5f);
    if(warp.thread_rank() == 0 && rstd != nullptr) {
        __stcs(rstd + idx, s);
    }

    // final normalization and scaling by weight/bias
    float* o = out + idx * C;
    for (int c = warp.thread_rank(); c < C; c += warp.size()) {
        // load and store using the .cs "streaming" hint to the compiler, indicating that
        // this data will not be reused soon, and can be streamed through the caches; this
        // allows the threads to get more cache-hits for the (shared) weight and bias
        float n = s * (__ldcs(x+c) - m);
        __stcs(o + c, n * weight[c] + bias[c]);
    }
}
"""


def _llmc_layernorm_reference(out, mean, rstd, inp, weight, bias):
    x = inp.astype(np.float64)
    m = x.mean(axis=1)
    s = 1.0 / np.sqrt(((x - m[:, None]) ** 2).mean(axis=1) + 1e-5)
    y = (x - m[:, None]) * s[:, None] * weight.astype(np.float64) + bias.astype(np.float64)
    return y.astype(np.float32), m.astype(np.float32), s.astype(np.float32)


LLMC_LAYERNORM = Wild(
    KernelSpec(
        id="wild_r12_llmc_layernorm_forward_kernel3",
        entry_point="layernorm_forward_kernel3",
        sources={"cuda": _LLMC_LAYERNORM},
        dims=("N", "C"),
        buffers=(
            BufferSpec(0, "f32", "read_write", name="out", count="N*C", shape=("N", "C")),
            BufferSpec(1, "f32", "read_write", name="mean", count="N"),
            BufferSpec(2, "f32", "read_write", name="rstd", count="N"),
            BufferSpec(3, "f32", "read", name="inp", count="N*C", shape=("N", "C")),
            BufferSpec(4, "f32", "read", name="weight", count="C"),
            BufferSpec(5, "f32", "read", name="bias", count="C"),
        ),
        reference=_llmc_layernorm_reference,
        # llm.c: block_size 512, grid_size = CEIL_DIV(N * 32, block_size)
        grid=lambda s, size: (ceil_div(size.N * 32, 512), 1, 1),
        schedules=(Schedule(512),),
        domain={"inp": (-8.0, 8.0), "weight": (-2.0, 2.0), "bias": (-2.0, 2.0)},
        nonfinite_inputs=False,
        test_sizes=("N=64,C=768", "N=1,C=1", "N=17,C=33"),
    ),
    {
        "mean over the warp": ("cuda", "float m = sum / C;", "float m = sum / warp.size();"),
        "epsilon left out": ("cuda", "rsqrtf(sum / C + 1e-5f)", "rsqrtf(sum / C)"),
        "weight and bias swapped": (
            "cuda",
            "__stcs(o + c, n * weight[c] + bias[c]);",
            "__stcs(o + c, n * bias[c] + weight[c]);",
        ),
        "one warp per block": (
            "cuda",
            "int idx = blockIdx.x * warp.meta_group_size() + warp.meta_group_rank();",
            "int idx = blockIdx.x + warp.meta_group_rank();",
        ),
    },
)

# -- llm.c: gelu_forward_kernel2 over Packed128 (16-byte loads and stores) ---------------

_LLMC_GELU = r"""
template<class ElementType>
struct alignas(16) Packed128 {
    Packed128() = default;
    __device__ explicit Packed128(int4 bits) {
        static_assert(sizeof(bits) == sizeof(payload), "Size mismatch.");
        memcpy(&payload, &bits, sizeof(bits));
    }
    __device__ ElementType& operator[](int index) {
        return payload[index];
    }
    __device__ const ElementType& operator[](int index) const {
        return payload[index];
    }
    __device__ int4 get_bits() const {
        int4 bits;
        static_assert(sizeof(bits) == sizeof(payload), "Size mismatch.");
        memcpy(&bits, &payload, sizeof(bits));
        return bits;
    }
    static constexpr const size_t size = sizeof(int4) / sizeof(ElementType);
    ElementType payload[size];
};

// load a Packed128 from an aligned memory address with streaming cache hint
template<class ElementType>
__device__ Packed128<ElementType> load128cs(const ElementType* address) {
    return Packed128<ElementType>{__ldcs(reinterpret_cast<const int4*>(address))};
}
// store a Packed128 to an aligned memory address
template<class ElementType>
__device__ void store128(ElementType* target, Packed128<ElementType> value) {
    *reinterpret_cast<int4*>(target) = value.get_bits();
}

typedef Packed128<float> x128;

#define GELU_SCALING_FACTOR sqrtf(2.0f / M_PI)
__global__ void gelu_forward_kernel2(float* out, const float* inp, int N) {
    int idx = (blockIdx.x * blockDim.x + threadIdx.x) * x128::size;
    if (idx < N) {
        x128 packed_out;
        x128 packed_inp = load128cs(inp + idx); // load and do not keep in cache
        for(int k = 0; k < packed_inp.size; ++k) {
            float xi = (float)packed_inp[k];
            float cube = 0.044715f * xi * xi * xi;
            packed_out[k] = (float)(0.5f * xi * (1.0f + tanhf(GELU_SCALING_FACTOR * (xi + cube))));
        }
        // store instead of storecs (without cache streaming) in case it is useful for the
        // data to be in the cache for the next operation after this GeLU
        store128(out + idx, packed_out);
    }
}
"""


def _gelu_tanh_reference(out, inp):
    x = inp.astype(np.float64)
    return (0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)))).astype(
        np.float32
    )


LLMC_GELU = Wild(
    KernelSpec(
        id="wild_r12_llmc_gelu_forward_packed128",
        entry_point="gelu_forward_kernel2",
        sources={"cuda": _LLMC_GELU},
        buffers=(
            BufferSpec(0, "f32", "read_write", name="out"),
            BufferSpec(1, "f32", "read", name="inp"),
        ),
        reference=_gelu_tanh_reference,
        # llm.c: block_size 128, grid_size = CEIL_DIV(N, block_size * x128::size); N % 4 == 0
        grid=lambda s, n: (ceil_div(n, 128 * 4), 1, 1),
        schedules=(Schedule(128),),
        domain={"inp": (-10.0, 10.0)},
        test_sizes=(8192, 4, 4 * 1001),
    ),
    {
        "cube left out of tanh": (
            "cuda",
            "tanhf(GELU_SCALING_FACTOR * (xi + cube))",
            "tanhf(GELU_SCALING_FACTOR * xi)",
        ),
        "one lane of four": ("cuda", "k < packed_inp.size; ++k", "k < 1; ++k"),
        "scaling sqrt(pi / 2)": ("cuda", "sqrtf(2.0f / M_PI)", "sqrtf(M_PI / 2.0f)"),
    },
)

# -- llm.c: encoder_forward_kernel2, token and position embeddings summed ----------------

_LLMC_ENCODER = r"""
__global__ void encoder_forward_kernel2(float* out,
                               const int* inp, const float* wte, const float* wpe,
                               int B, int T, int C) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int N = B * T * C;

    if (idx < N) {
        int bt = idx / C;
        int b = bt / T;
        int t = bt % T;
        int c = idx % C;

        int ix = inp[b * T + t];

        float* out_btc = out + b * T * C + t * C + c;
        const float* wte_ix = wte + ix * C + c;
        const float* wpe_tc = wpe + t * C + c;
        *out_btc = *wte_ix + *wpe_tc;
    }
}
"""

_VOCAB = 50


def _llmc_encoder_reference(out, inp, wte, wpe):
    return (wte[inp] + wpe[None, :, :]).astype(np.float32)


LLMC_ENCODER = Wild(
    KernelSpec(
        id="wild_r12_llmc_encoder_forward_kernel2",
        entry_point="encoder_forward_kernel2",
        sources={"cuda": _LLMC_ENCODER},
        dims=("B", "T", "C"),
        buffers=(
            BufferSpec(0, "f32", "read_write", name="out", count="B*T*C", shape=("B", "T", "C")),
            BufferSpec(1, "i32", "read", name="inp", count="B*T", shape=("B", "T")),
            BufferSpec(2, "f32", "read", name="wte", count=f"{_VOCAB}*C", shape=(_VOCAB, "C")),
            BufferSpec(3, "f32", "read", name="wpe", count="T*C", shape=("T", "C")),
        ),
        reference=_llmc_encoder_reference,
        grid=lambda s, size: (ceil_div(size.B * size.T * size.C, 512), 1, 1),
        schedules=(Schedule(512),),
        domain={"inp": (0, _VOCAB - 1)},
        test_sizes=("B=4,T=64,C=48", "B=1,T=1,C=1", "B=3,T=7,C=5"),
    ),
    {
        "position of the batch": ("cuda", "wpe + t * C + c", "wpe + b * C + c"),
        "token rows of T": ("cuda", "wte + ix * C + c", "wte + ix * T + c"),
        "batch stride forgotten": ("cuda", "out + b * T * C + t * C + c", "out + t * C + c"),
    },
)

ROUND12.update({w.kernel.id: w for w in (LLMC_LAYERNORM, LLMC_GELU, LLMC_ENCODER)})

# -- cuda-samples particles' integrateSystem: the simulation's parameters in a
# __constant__ struct (cudaMemcpyToSymbol(params, &hostParams, sizeof(SimParams))) ------

_PARTICLES = r"""
struct SimParams {
    float3 gravity;
    float globalDamping;
    float particleRadius;
    float boundaryDamping;
};

__constant__ SimParams params;

__global__ void integrateSystem(float4 *pos, float4 *vel, float deltaTime,
                                unsigned int numParticles) {
    unsigned int index = blockIdx.x * blockDim.x + threadIdx.x;
    if (index >= numParticles) return;

    float4 posData = pos[index];
    float4 velData = vel[index];
    float3 p = make_float3(posData.x, posData.y, posData.z);
    float3 v = make_float3(velData.x, velData.y, velData.z);

    v.x += params.gravity.x * deltaTime;
    v.y += params.gravity.y * deltaTime;
    v.z += params.gravity.z * deltaTime;
    v.x *= params.globalDamping;
    v.y *= params.globalDamping;
    v.z *= params.globalDamping;

    // new position = old position + velocity * deltaTime
    p.x += v.x * deltaTime;
    p.y += v.y * deltaTime;
    p.z += v.z * deltaTime;

    // set this to zero to disable collisions with cube sides
    if (p.x > 1.0f - params.particleRadius) {
        p.x = 1.0f - params.particleRadius;
        v.x *= params.boundaryDamping;
    }
    if (p.x < -1.0f + params.particleRadius) {
        p.x = -1.0f + params.particleRadius;
        v.x *= params.boundaryDamping;
    }
    if (p.y > 1.0f - params.particleRadius) {
        p.y = 1.0f - params.particleRadius;
        v.y *= params.boundaryDamping;
    }
    if (p.z > 1.0f - params.particleRadius) {
        p.z = 1.0f - params.particleRadius;
        v.z *= params.boundaryDamping;
    }
    if (p.z < -1.0f + params.particleRadius) {
        p.z = -1.0f + params.particleRadius;
        v.z *= params.boundaryDamping;
    }
    if (p.y < -1.0f + params.particleRadius) {
        p.y = -1.0f + params.particleRadius;
        v.y *= params.boundaryDamping;
    }

    // store new position and velocity
    pos[index] = make_float4(p.x, p.y, p.z, posData.w);
    vel[index] = make_float4(v.x, v.y, v.z, velData.w);
}
"""


def _particles_reference(pos, vel, params, deltaTime=0.5):
    f = np.float32
    dt, r = f(deltaTime), f(params["particleRadius"])
    p, v = pos[:, :3].astype(f), vel[:, :3].astype(f)
    v = (v + np.asarray(params["gravity"], f) * dt) * f(params["globalDamping"])
    p = p + v * dt
    high, low = p > f(1) - r, p < f(-1) + r
    p = np.where(high, f(1) - r, np.where(low, f(-1) + r, p))
    v = np.where(high | low, v * f(params["boundaryDamping"]), v)
    pos[:, :3], vel[:, :3] = p, v


PARTICLES = Wild(
    KernelSpec(
        id="wild_r12_cuda_samples_particles_constant_simparams",
        entry_point="integrateSystem",
        sources={"cuda": _PARTICLES},
        buffers=(
            BufferSpec(0, "vec4<f32>", "read_write", name="pos", inout=True, fill=(-1.0, 1.0)),
            BufferSpec(1, "vec4<f32>", "read_write", name="vel", inout=True, fill=(-0.5, 0.5)),
            BufferSpec.uniform(
                2,
                (
                    ("gravity", "vec3<f32>"),
                    ("globalDamping", "f32"),
                    ("particleRadius", "f32"),
                    ("boundaryDamping", "f32"),
                ),
                name="params",
            ),
        ),
        reference=_particles_reference,
        defaults={
            "gravity": (0.0, -0.0003, 0.0),
            "globalDamping": 1.0,
            "particleRadius": 1.0 / 64.0,
            "boundaryDamping": -0.5,
        },
        overrides={"deltaTime": 0.5},  # a by-value parameter beside the __constant__ block
        grid=lambda s, n: (ceil_div(n, 256), 1, 1),
        schedules=(Schedule(256),),
        nonfinite_inputs=False,
        test_sizes=(16384, 1, 257),
    ),
    {
        "gravity applied twice": (
            "cuda",
            "v.y += params.gravity.y * deltaTime;",
            "v.y += 2.0f * params.gravity.y * deltaTime;",
        ),
        "bounce keeps its speed": (
            "cuda",
            "p.x = 1.0f - params.particleRadius;\n        v.x *= params.boundaryDamping;",
            "p.x = 1.0f - params.particleRadius;\n        v.x = -v.x;",
        ),
        "radius ignored at the floor": (
            "cuda",
            "if (p.y < -1.0f + params.particleRadius)",
            "if (p.y < -1.0f)",
        ),
    },
)

ROUND12[PARTICLES.kernel.id] = PARTICLES
