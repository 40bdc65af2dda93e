"""A kernel with a planted bug, for the report's error picture: its WGSL adds 1 to every
97th element, so wgpu fails with a handful of mismatches while the reference passes."""

from __future__ import annotations

import numpy as np

from forge import Access, BufferSpec, KernelSpec

_WGSL = """\
struct Params { n: u32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

@compute @workgroup_size(${wg_x})
fn ${entry}(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i < p.n) {
        var v = 2.0 * x[i];
        if (i % 97u == 5u) { v = v + 1.0; }
        y[i] = v;
    }
}
"""


def _double(x: np.ndarray, y: np.ndarray, p: np.void) -> None:
    y[:] = np.float32(2) * x


DOUBLE_WRONG = KernelSpec(
    id="double_wrong",
    entry_point="double_wrong",
    buffers=(
        BufferSpec(0, "f32", Access.READ, name="x"),
        BufferSpec(1, "f32", Access.READ_WRITE, name="y"),
        BufferSpec.uniform(2, (("n", "u32"),)),
    ),
    sources={"wgsl": _WGSL},
    reference=_double,
    params=lambda size: {"n": size},
    domain={"x": (-1.0, 1.0)},
    nonfinite_inputs=False,
    test_sizes=(1000,),
    bytes_moved="8*n",
    flops="n",
)
