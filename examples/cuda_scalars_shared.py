"""A CUDA kernel as training code writes it: pointers first, then scalars by value
(``int rows, int cols, float eps``) in the order the kernel declares them, one block per
row, dynamic shared memory sized per launch from the block size, and a problem size
with two dimensions. Run: ``python examples/cuda_scalars_shared.py`` (compiles with
NVRTC anywhere; runs where there is a GPU) or ``kforge check
examples/cuda_scalars_shared.py --size 64x4096``.
"""

import numpy as np

from forge import BufferSpec, KernelSpec, Schedule

CUDA = r"""
__global__ void rmsnorm_kernel(float* __restrict__ out, const float* __restrict__ inp,
                               const float* __restrict__ weight, int rows, int cols, float eps) {
    extern __shared__ float partial[];
    int row = blockIdx.x;
    if (row >= rows) return;
    const float* x = inp + (size_t)row * cols;
    float sum = 0.0f;
    for (int i = threadIdx.x; i < cols; i += blockDim.x) sum += x[i] * x[i];
    partial[threadIdx.x] = sum;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
        __syncthreads();
    }
    float scale = rsqrtf(partial[0] / cols + eps);
    for (int i = threadIdx.x; i < cols; i += blockDim.x)
        out[(size_t)row * cols + i] = x[i] * scale * weight[i];
}
"""


def rmsnorm(out, inp, weight, params):
    x = inp.astype(np.float64)
    scale = 1.0 / np.sqrt((x * x).mean(axis=1, keepdims=True) + params["eps"])
    out[...] = x * scale * weight


RMSNORM = KernelSpec(
    id="example_rmsnorm",
    entry_point="rmsnorm_kernel",
    sources={"cuda": CUDA},
    dims=("rows", "cols"),
    buffers=(
        BufferSpec(0, "f32", "read_write", name="out", count="rows*cols", shape=("rows", "cols")),
        BufferSpec(1, "f32", "read", name="inp", count="rows*cols", shape=("rows", "cols")),
        BufferSpec(2, "f32", "read", name="weight", count="cols"),
        BufferSpec.uniform(3, (("rows", "i32"), ("cols", "i32"), ("eps", "f32"))),
    ),
    reference=rmsnorm,
    params=lambda size: {"rows": size.rows, "cols": size.cols},
    defaults={"eps": 1e-5},
    grid=lambda schedule, size: (size.rows, 1, 1),
    shared_bytes="wg_x * 4",  # one float per thread, sized per launch
    schedules=(Schedule(128), Schedule(256)),
    domain={"inp": (-4.0, 4.0), "weight": (-2.0, 2.0)},
    nonfinite_inputs=False,
    tolerance={"f32": {"rtol": 2e-5, "atol": 1e-6}},
    test_sizes=("4x1000", "1x1", "7x257"),
)


if __name__ == "__main__":
    import sys

    import forge
    import oracle
    from backends.cuda import compile_module

    size = RMSNORM.size("4x1000")
    source = RMSNORM.source("cuda", RMSNORM.schedules[0], size)
    image, names = compile_module(source, [RMSNORM.entry_point], "sm_90")
    print(
        f"NVRTC compiled {RMSNORM.entry_point} (symbol {names[RMSNORM.entry_point]}, "
        f"{len(image)} bytes)"
    )
    ok, why = forge.available_backends()["cuda"]
    if not ok:
        print(f"not run: the CUDA backend is unavailable here ({why})")
        sys.exit(0)
    result = oracle.cross_check(RMSNORM, ["reference", "cuda"], size=size)
    print(result.report())
    sys.exit(0 if result.passed else 1)
