"""A WGSL kernel as a web app writes it, judged against numpy.

The shader bounds itself with ``arrayLength`` and declares its input ``read_write``
(common in real code); both are fine: bindings are exact, and the oracle still checks
that the input came back unchanged. The numpy reference returns its result, as numpy
code does. Run: ``python examples/wgsl_with_numpy.py`` or ``kforge check
examples/wgsl_with_numpy.py``.
"""

import numpy as np

from forge import BufferSpec, KernelSpec, ceil_div

WGSL = """
struct Params { scale: f32, shift: f32 }

@group(0) @binding(0) var<storage, read_write> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;

@compute @workgroup_size(64)
fn scale_shift(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i < arrayLength(&y)) {
        y[i] = fma(x[i], params.scale, params.shift);
    }
}
"""


def scale_shift(x, y, params):
    return (x.astype(np.float64) * params["scale"] + params["shift"]).astype(np.float32)


SCALE_SHIFT = KernelSpec(
    id="example_scale_shift",
    entry_point="scale_shift",
    sources={"wgsl": WGSL},
    buffers=(
        BufferSpec(0, "f32", "read", name="x"),
        BufferSpec(1, "f32", "read_write", name="y"),
        BufferSpec.uniform(2, (("scale", "f32"), ("shift", "f32"))),
    ),
    reference=scale_shift,
    defaults={"scale": 1.5, "shift": -0.25},
    grid=lambda schedule, n: (ceil_div(n, 64), 1, 1),
)


if __name__ == "__main__":
    import sys

    import oracle

    result = oracle.cross_check(SCALE_SHIFT, ["reference", "wgpu"], size=10007)
    print(result.report())
    sys.exit(0 if result.passed else 1)
