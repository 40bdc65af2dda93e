"""Round 12 of kernels from the wild, merged into ``tests.wild.CORPUS``: CUDA kernels
that read ``__constant__`` memory the host fills with ``cudaMemcpyToSymbol``, as
cuda-samples' separable convolution keeps its filter taps (``c_Kernel``) and as
polynomial approximations keep their coefficients. A buffer named like the variable is
copied into it before the launch (``forge.arguments.symbol_buffers``); until then such
a kernel could not be declared at all (the variable stayed zero)."""

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
        "grid-stride step of one block": (
            "cuda",
            "i += blockDim.x * gridDim.x",
            "i += blockDim.x",
        ),
    },
)

ROUND12 = {w.kernel.id: w for w in (CONVOLUTION_ROWS, HORNER)}
