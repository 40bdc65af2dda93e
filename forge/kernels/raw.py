"""Hand-written kernels: raw WGSL and CUDA C with a numpy reference, for what the IR
does not express and as the canonical example of the raw-source form."""

from __future__ import annotations

import numpy as np

from ..kernel import Access, BufferSpec, KernelSpec
from ..schedule import Schedule

__all__ = ["KERNELS", "RAW_AFFINE"]

_AFFINE_WGSL = """\
struct Params { a: f32, b: f32, n: u32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

@compute @workgroup_size(${wg_x}, ${wg_y}, ${wg_z})
fn ${entry}(@builtin(workgroup_id) wg: vec3<u32>,
            @builtin(num_workgroups) groups: vec3<u32>,
            @builtin(local_invocation_index) lid: u32) {
    let block = wg.y * groups.x + wg.x;
    let first = block * ${wg_x}u * ${wg_y}u * ${wg_z}u * ${ipt}u + lid;
    for (var k = 0u; k < ${ipt}u; k++) {
        let i = first + k * ${wg_x}u * ${wg_y}u * ${wg_z}u;
        if (i < p.n) {
            y[i] = p.a * x[i] + p.b;
        }
    }
}
"""

_AFFINE_CUDA = """\
struct Params { float a; float b; unsigned int n; };

extern "C" __global__ void ${entry}(const float* __restrict__ x, float* __restrict__ y,
                                     const Params p) {
    const unsigned int threads = blockDim.x * blockDim.y * blockDim.z;
    const unsigned int lid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    const unsigned long long block = (unsigned long long)blockIdx.y * gridDim.x + blockIdx.x;
    const unsigned long long first = block * threads * ${ipt}u + lid;
    for (unsigned int k = 0; k < ${ipt}u; ++k) {
        const unsigned long long i = first + (unsigned long long)k * threads;
        if (i < p.n) {
            y[i] = p.a * x[i] + p.b;
        }
    }
}
"""


def _affine_reference(x: np.ndarray, y: np.ndarray, p: np.void) -> None:
    y[:] = np.float32(p["a"]) * x + np.float32(p["b"])


RAW_AFFINE = KernelSpec(
    id="raw_affine",
    entry_point="raw_affine",
    description="y = a*x + b, hand-written WGSL and CUDA C",
    buffers=(
        BufferSpec(0, "f32", Access.READ, name="x"),
        BufferSpec(1, "f32", Access.READ_WRITE, name="y"),
        BufferSpec.uniform(2, (("a", "f32"), ("b", "f32"), ("n", "u32"))),
    ),
    sources={"wgsl": _AFFINE_WGSL, "cuda": _AFFINE_CUDA},
    reference=_affine_reference,
    params=lambda size: {"n": size},
    defaults={"a": 2.0, "b": 0.5},
    schedules=(Schedule(64), Schedule(256, items_per_invocation=4)),
    tags=("raw", "elementwise"),
    bytes_moved="8*n",
    flops="2*n",
)

KERNELS = (RAW_AFFINE,)
