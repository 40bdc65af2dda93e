"""A kernel written once in the IR: kernel-forge emits WGSL and CUDA C from it, and its
numpy meaning is the oracle's reference. ``silu(x) = x * sigmoid(x)``, scaled."""

from forge import ir

x = ir.input("x")
SCALED_SILU = ir.kernel(
    "example_scaled_silu",
    ir.map(y=ir.param("scale") * x * ir.sigmoid(x)),
    defaults={"scale": 1.25},
    domain={"x": (-20.0, 20.0)},
    tolerance={"f32": {"ulp": 8}, "backend:wgpu": {"ulp": 48}},
    description="y = scale * x * sigmoid(x)",
)
