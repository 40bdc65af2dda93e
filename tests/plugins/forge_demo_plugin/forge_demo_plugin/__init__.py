"""A third-party kernel-forge plugin: the ``demo`` backend (a host context built on
the shared slab machinery) and the ``demo_square`` kernel."""

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
    unsigned long long i = ((unsigned long long)blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x
                           + threadIdx.x;
    if (i < p.n) y[i] = x[i] * x[i];
}
"""


def _square(x, y, p):
    y[:] = x * x


def kernels():
    return [
        KernelSpec(
            id="demo_square",
            entry_point="demo_square",
            description="y = x*x (plugin kernel)",
            buffers=(
                BufferSpec(0, "f32", Access.READ, name="x"),
                BufferSpec(1, "f32", Access.READ_WRITE, name="y"),
                BufferSpec.uniform(2, (("n", "u32"),)),
            ),
            sources={"wgsl": _WGSL, "cuda": _CUDA},
            reference=_square,
            params=lambda size: {"n": size},
            tags=("plugin",),
        )
    ]


class FaultyContext(ReferenceContext):
    """A backend that runs device code the way a real one can fail: a kernel tagged
    ``fault:crash`` kills the process in 'native code' (an abort), ``fault:lose`` loses
    the device, ``fault:hang`` never finishes, ``fault:slow`` takes a quarter of a
    second per launch (time to kill its worker mid-run). Every other kernel runs as on
    the reference. It lets the suite prove, with no GPU, that one faulting kernel costs
    only its own verdict."""

    backend_name = "demo_faulty"

    def _launch(self, compiled, launch, warmups, samples):
        import os
        import time

        from forge import DeviceLost

        tags = set(launch.kernel.tags)
        if "fault:crash" in tags:
            os.abort()
        if "fault:lose" in tags:
            raise DeviceLost("the demo device fell off the bus")
        if "fault:hang" in tags:
            time.sleep(3600)
        if "fault:slow" in tags:
            time.sleep(0.25)
        return super()._launch(compiled, launch, warmups, samples)


faulty_backend = BackendEntry(
    name="demo_faulty",
    open=lambda **options: FaultyContext(**options),
    availability=lambda: (True, "host memory; faults on kernels tagged fault:crash/lose/hang"),
    description="test plugin backend whose kernels can crash, lose the device or hang",
    preference=-20,
)
