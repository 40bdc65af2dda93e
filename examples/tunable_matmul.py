"""A kernel with its own tunable parameters, as Kernel Tuner users write them: the
shared-memory matmul of Kernel Tuner's examples, in CUDA (``tile_size_x`` and
``tile_size_y`` reach it as ``-D`` defines, exactly as Kernel Tuner passes them) and
in WGSL (where they are template values, since WGSL has no preprocessor). The thread
block is the schedule's workgroup, tuned as the ``wg`` knob; a restriction ties them
together, others keep the tiles inside the problem and within the adapter's workgroup
memory.

Run: ``python examples/tunable_matmul.py`` (a small random search on wgpu), or ``kforge
tune examples/tunable_matmul.py --backend cuda --size 4096 --strategy tpe --budget 20``.
"""

import numpy as np

from forge import BufferSpec, KernelSpec, Schedule

CUDA = r"""
#define block_size_x {{wg_x}}
#define block_size_y {{wg_y}}
#define WIDTH {{N}}

extern "C" __global__ void matmul_kernel(float* C, const float* A, const float* B) {
    __shared__ float sA[block_size_y * tile_size_y][block_size_x];
    __shared__ float sB[block_size_y * tile_size_y][block_size_x * tile_size_x];
    int tx = threadIdx.x, ty = threadIdx.y;
    int x = blockIdx.x * block_size_x * tile_size_x + tx;
    int y = blockIdx.y * block_size_y * tile_size_y + ty;
    float sum[tile_size_y][tile_size_x];
    #pragma unroll
    for (int i = 0; i < tile_size_y; i++)
        #pragma unroll
        for (int j = 0; j < tile_size_x; j++) sum[i][j] = 0.0f;
    for (int k = 0; k < WIDTH; k += block_size_x) {
        __syncthreads();
        #pragma unroll
        for (int i = 0; i < tile_size_y; i++) {
            sA[ty + block_size_y * i][tx] = A[(y + i * block_size_y) * WIDTH + k + tx];
            #pragma unroll
            for (int j = 0; j < tile_size_x; j++)
                sB[ty + block_size_y * i][tx + j * block_size_x] =
                    B[(k + ty + block_size_y * i) * WIDTH + x + j * block_size_x];
        }
        __syncthreads();
        #pragma unroll
        for (int kb = 0; kb < block_size_x; kb++)
            #pragma unroll
            for (int i = 0; i < tile_size_y; i++)
                #pragma unroll
                for (int j = 0; j < tile_size_x; j++)
                    sum[i][j] += sA[ty + block_size_y * i][kb] * sB[kb][tx + j * block_size_x];
    }
    #pragma unroll
    for (int i = 0; i < tile_size_y; i++)
        #pragma unroll
        for (int j = 0; j < tile_size_x; j++)
            C[y * WIDTH + x + block_size_y * i * WIDTH + j * block_size_x] = sum[i][j];
}
"""

WGSL = """
@group(0) @binding(0) var<storage, read_write> C: array<f32>;
@group(0) @binding(1) var<storage, read> A: array<f32>;
@group(0) @binding(2) var<storage, read> B: array<f32>;

const BX: u32 = {{wg_x}}u;
const BY: u32 = {{wg_y}}u;
const TX: u32 = {{tile_size_x}}u;
const TY: u32 = {{tile_size_y}}u;
const WIDTH: u32 = {{N}}u;
var<workgroup> sA: array<array<f32, BX>, BY * TY>;
var<workgroup> sB: array<array<f32, BX * TX>, BY * TY>;

@compute @workgroup_size(BX, BY)
fn matmul_kernel(@builtin(local_invocation_id) lid: vec3<u32>,
                 @builtin(workgroup_id) wid: vec3<u32>) {
    let tx = lid.x;
    let ty = lid.y;
    let x = wid.x * BX * TX + tx;
    let y = wid.y * BY * TY + ty;
    var sum: array<array<f32, TX>, TY>;
    for (var k = 0u; k < WIDTH; k += BX) {
        workgroupBarrier();
        for (var i = 0u; i < TY; i++) {
            sA[ty + BY * i][tx] = A[(y + i * BY) * WIDTH + k + tx];
            for (var j = 0u; j < TX; j++) {
                sB[ty + BY * i][tx + j * BX] = B[(k + ty + BY * i) * WIDTH + x + j * BX];
            }
        }
        workgroupBarrier();
        for (var kb = 0u; kb < BX; kb++) {
            for (var i = 0u; i < TY; i++) {
                for (var j = 0u; j < TX; j++) {
                    sum[i][j] += sA[ty + BY * i][kb] * sB[kb][tx + j * BX];
                }
            }
        }
    }
    for (var i = 0u; i < TY; i++) {
        for (var j = 0u; j < TX; j++) {
            C[y * WIDTH + x + BY * i * WIDTH + j * BX] = sum[i][j];
        }
    }
}
"""


def matmul(c, a, b):
    c[...] = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)


MATMUL = KernelSpec(
    id="tunable_matmul",
    entry_point="matmul_kernel",
    sources={"cuda": CUDA, "wgsl": WGSL},
    dims=("N",),
    buffers=(
        BufferSpec(0, "f32", "read_write", name="C", count="N*N", shape=("N", "N")),
        BufferSpec(1, "f32", "read", name="A", count="N*N", shape=("N", "N")),
        BufferSpec(2, "f32", "read", name="B", count="N*N", shape=("N", "N")),
    ),
    reference=matmul,
    domain={"A": (-1.0, 1.0), "B": (-1.0, 1.0)},
    nonfinite_inputs=False,
    tolerance={"f32": {"rtol": 1e-4, "atol": 1e-4}},
    grid="(N // (wg_x * tile_size_x), N // (wg_y * tile_size_y))",
    schedules=(Schedule((16, 16)),),
    test_sizes=(128,),
    tunables={
        "wg": [(x, y) for x in (16, 32, 64) for y in (1, 2, 4, 8, 16, 32)],
        "tile_size_x": (1, 2, 4, 8),
        "tile_size_y": (1, 2, 4, 8),
    },
    restrictions=(
        "wg_x == wg_y * tile_size_y",  # Kernel Tuner's own restriction
        "N % (wg_x * tile_size_x) == 0 and N % (wg_y * tile_size_y) == 0",
        # sA and sB in workgroup memory, within the adapter's limit
        "wg_x * wg_y * tile_size_y * (1 + tile_size_x) * 4 <= max_workgroup_storage_bytes",
    ),
    flops="2 * N * N * N",
    bytes_moved="3 * N * N * 4",
)


if __name__ == "__main__":
    import forge
    import oracle

    # wgpu where it runs (lavapipe on a machine without a GPU), else numpy: the example is
    # about the tuner, and the reference backend runs anywhere
    backend = "wgpu" if forge.available_backends()["wgpu"][0] else "reference"
    with oracle.Session() as session:
        result = oracle.tune(
            session.runner(backend),
            MATMUL,
            size=64,
            strategy="random",
            budget=4,
            samples=3,
            cache=False,
        )
    print(result.report())
