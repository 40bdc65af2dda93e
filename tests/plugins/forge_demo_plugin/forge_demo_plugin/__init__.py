"""A third-party kernel-forge plugin: the ``demo`` backend (a host context built on
the shared slab machinery) and the ``demo_square`` kernel."""

import numpy as np

from backends.reference import ReferenceContext
from forge import Access, BackendEntry, BufferSpec, KernelSpec


class DemoContext(ReferenceContext):
    """A host backend from outside the project; it reuses the reference machinery."""

    backend_name = "demo"


backend = BackendEntry(
    name="demo",
    open=lambda **options: DemoContext(**options),
    availability=lambda: (True, "host memory, from the forge-demo-plugin distribution"),
    description="test plugin backend",
    device_code=False,  # a host backend: nothing to isolate
)

_WGSL = """\
struct Params { n: u32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

@compute @workgroup_size(${wg_x})
fn ${entry}(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
            @builtin(local_invocation_index) lid: u32) {
    let i = (wg.y * groups.x + wg.x) * ${wg_x}u + lid;
    if (i < p.n) { y[i] = x[i] * x[i]; }
}
"""

_CUDA = """\
struct Params { unsigned int n; };
extern "C" __global__ void ${entry}(const float* x, float* y, const Params p) {
    unsigned long long i = ((unsigned long long)blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < p.n) y[i] = x[i] * x[i];
}
"""


def _square(x, y, p):
    y[:] = x * x


def kernels():
    return [KernelSpec(
        id="demo_square", entry_point="demo_square", description="y = x*x (plugin kernel)",
        buffers=(BufferSpec(0, "f32", Access.READ, name="x"),
                 BufferSpec(1, "f32", Access.READ_WRITE, name="y"),
                 BufferSpec.uniform(2, (("n", "u32"),))),
        sources={"wgsl": _WGSL, "cuda": _CUDA}, reference=_square,
        params=lambda size: {"n": size}, tags=("plugin",))]
