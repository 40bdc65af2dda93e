"""A WGSL port checked against its CUDA original, with no numpy reference at all: the
CUDA run is the expectation and the WGSL run is judged against it, with either side's
tolerance and float semantics. Run: ``python examples/port_check.py`` or
``kforge check examples/port_check.py --reference-backend cuda``.
"""

from forge import BufferSpec, KernelSpec, Schedule, ceil_div

CUDA = r"""
extern "C" __global__ void leaky_relu(const float* x, float* y, float slope, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] > 0.0f ? x[i] : slope * x[i];
}
"""

WGSL = """
struct Params { slope: f32, n: i32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

@compute @workgroup_size(256)
fn leaky_relu(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = i32(gid.x);
    if (i < p.n) {
        let v = x[i];
        y[i] = select(p.slope * v, v, v > 0.0);
    }
}
"""

LEAKY_RELU = KernelSpec(
    id="example_leaky_relu_port",
    entry_point="leaky_relu",
    sources={"cuda": CUDA, "wgsl": WGSL},
    buffers=(
        BufferSpec(0, "f32", "read", name="x"),
        BufferSpec(1, "f32", "read_write", name="y"),
        BufferSpec.uniform(2, (("slope", "f32"), ("n", "i32"))),
    ),
    params=lambda n: {"n": n},
    defaults={"slope": 0.01},
    grid=lambda schedule, n: (ceil_div(n, 256), 1, 1),
    schedules=(Schedule(256),),
    test_sizes=(1000, 4099),
)


if __name__ == "__main__":
    import sys

    import forge
    import oracle
    from backends.cuda import compile_module
    from backends.wgpu import validate_wgsl

    compile_module(LEAKY_RELU.source("cuda", Schedule(256)), ["leaky_relu"], "sm_90")
    print("NVRTC compiled the CUDA original")
    status = forge.available_backends()
    if status["wgpu"][0]:
        validate_wgsl(LEAKY_RELU.source("wgsl", Schedule(256)), "leaky_relu")
        print("naga validated the WGSL port")
    if not (status["cuda"][0] and status["wgpu"][0]):
        print(
            "not run: the port check needs both the CUDA and the wgpu backend "
            f"(cuda: {status['cuda'][1]}; wgpu: {status['wgpu'][1]})"
        )
        sys.exit(0)
    result = oracle.cross_check(LEAKY_RELU, ["wgpu"], reference="cuda", size=4099)
    print(result.report())
    sys.exit(0 if result.passed else 1)
