"""Elementwise IR kernels (``ir.map``): affine, axpy, add, mul, fma, relu, gelu,
sigmoid, tanh, exp; gelu also of f16 and bf16 values (``gelu_f16``, ``gelu_bf16``).

Schedules: two portable baselines, and two marked ``big-gpu`` (float4 chunks,
grid-stride) meant for memory-bound throughput on large devices (docs/PERFORMANCE.md P1/P2).
"""

from __future__ import annotations

import math

from .. import ir
from ..kernel import KernelSpec
from ..schedule import Schedule

__all__ = ["KERNELS", "SCHEDULES", "SCHEDULE_ROLES", "HALF_SCHEDULES", "HALF_SCHEDULE_ROLES"]

SCHEDULES = (
    Schedule(64),
    Schedule(256, items_per_invocation=4),
    Schedule(256, items_per_invocation=4, vector_width=4),
    Schedule(256, items_per_invocation=2, vector_width=4, max_workgroups=4224),
)
SCHEDULE_ROLES = {str(s): "big-gpu" for s in SCHEDULES[2:]}
# Values of 2 bytes (f16, bf16) on CUDA: 8 a chunk are one 16-byte access, as 4 floats
# are (WGSL, which has no 8-wide vectors, refuses these, saying so).
HALF_SCHEDULES = (
    *SCHEDULES,
    Schedule(256, items_per_invocation=4, vector_width=8),
    Schedule(256, items_per_invocation=2, vector_width=8, max_workgroups=4224),
)
HALF_SCHEDULE_ROLES = {str(s): "big-gpu" for s in HALF_SCHEDULES[2:]}
# `kforge check` runs every size; `oracle.evaluate`, `cross_check` and the tuner default
# to the last, the largest. 1001 and 4099 are multiples of no workgroup, vector or tile.
_TEST_SIZES = (1001, 1, 4099)

# Work per run, for the roofline: bytes_moved reads each input and writes each output
# once (f32); flops counts each arithmetic operation, select and transcendental function
# of the expression as one, per element.

# WGSL guarantees exp only to 3 + 2*|x| ulp (WGSL spec, "Floating point accuracy"), so
# kernels built on exp draw inputs from a bounded domain and allow that bound on wgpu.
_EXP_DOMAIN = 20.0
_WGSL_EXP_ULP = 3 + 2 * int(_EXP_DOMAIN)

x, y, z = ir.input("x"), ir.input("y"), ir.input("z")


def _kernel(id: str, body, description: str, **options) -> KernelSpec:
    options.setdefault("test_sizes", _TEST_SIZES)
    options.setdefault("schedules", SCHEDULES)
    options.setdefault("schedule_roles", SCHEDULE_ROLES)
    return ir.kernel(id, body, description=description, tags=("elementwise",), **options)


AFFINE = _kernel(
    "affine",
    ir.map(y=ir.param("a") * x + ir.param("b")),
    "y = a*x + b",
    defaults={"a": 2.0, "b": 0.5},
    bytes_moved="8*n",
    flops="2*n",
)

AXPY = _kernel(
    "axpy",
    ir.map(y=ir.param("a") * x + y),
    "y = a*x + y (y is read and written)",
    inputs=("x",),
    defaults={"a": -1.5},
    bytes_moved="12*n",
    flops="2*n",
)

ADD = _kernel("add", ir.map(z=x + y), "z = x + y", bytes_moved="12*n", flops="n")

MUL = _kernel("mul", ir.map(z=x * y), "z = x * y", bytes_moved="12*n", flops="n")

FMA = _kernel(
    "fma",
    ir.map(w=x * y + z),
    "w = x*y + z (contraction to one rounding allowed)",
    bytes_moved="16*n",
    flops="2*n",
)

RELU = _kernel(
    "relu",
    ir.map(y=ir.select(x < 0.0, 0.0, x)),
    "y = max(x, 0), NaN propagated (select(x < 0, 0, x))",
    bytes_moved="8*n",
    flops="n",
)

GELU = _kernel(
    "gelu",
    ir.map(y=0.5 * x * (1.0 + ir.erf(x * (1.0 / math.sqrt(2.0))))),
    "y = x/2 * (1 + erf(x/sqrt(2))) (exact GELU)",
    # 1 + erf(x/sqrt2) cancels for negative x: the error of erf near -1 (2 ulp of 1 on
    # CUDA, 1.5 on the WGSL approximation) becomes an absolute error of about
    # |x| * 1.2e-7 in y, which atol covers for the |x| <= 8 where it is not exactly 0.
    tolerance={"f32": {"atol": 2e-6, "ulp": 8}},
    nonfinite_inputs=False,
    bytes_moved="8*n",
    flops="5*n",
)


def _gelu_in(dtype: str) -> KernelSpec:
    """GELU of f16 or bf16 values: loaded, computed in f32 as GELU is, rounded once to
    ``dtype`` (the way the low-precision row kernels of ``reductions`` are written)."""
    wide = ir.cast(ir.input("x", dtype), "f32")
    return _kernel(
        f"gelu_{dtype}",
        ir.map(y=ir.cast(0.5 * wide * (1.0 + ir.erf(wide * (1.0 / math.sqrt(2.0)))), dtype)),
        f"GELU of {dtype} values (exact, erf), computed in f32, rounded once to {dtype}",
        # One rounding to the dtype after an f32 computation: a correct kernel is within
        # one ulp of the dtype from the reference (the f32 error, a few f32 ulp, can flip
        # that rounding), so the defaults (2 ulp) hold. GELU's cancelling erf near -1
        # (an absolute |x| * 1.2e-7 in f32, under 1e-6 for the |x| <= 8 where y is not
        # 0) stays far below their atol (1e-3 for f16, 8e-3 for bf16).
        nonfinite_inputs=False,
        bytes_moved="4*n",
        flops="5*n",
        schedules=HALF_SCHEDULES,
        schedule_roles=HALF_SCHEDULE_ROLES,
    )


GELU_BF16, GELU_F16 = _gelu_in("bf16"), _gelu_in("f16")

SIGMOID = _kernel(
    "sigmoid",
    ir.map(y=ir.sigmoid(x)),
    "y = 1 / (1 + exp(-x))",
    domain={"x": (-_EXP_DOMAIN, _EXP_DOMAIN)},
    tolerance={"f32": {"ulp": 6}, "backend:wgpu": {"ulp": _WGSL_EXP_ULP + 3}},
    bytes_moved="8*n",
    flops="4*n",
)

TANH = _kernel(
    "tanh",
    ir.map(y=ir.tanh(x)),
    "y = tanh(x)",
    # CUDA tanhf: 2 ulp. WGSL: the fg_tanh_f32 approximation (1.8 ulp with an exact exp)
    # plus exp's error at 2|x| <= 20, which the 1 - 2/(e + 1) form damps to a few ulp.
    tolerance={"backend:wgpu": {"ulp": 10}},
    bytes_moved="8*n",
    flops="n",
)

EXP = _kernel(
    "exp",
    ir.map(y=ir.exp(x)),
    "y = exp(x)",
    domain={"x": (-_EXP_DOMAIN, _EXP_DOMAIN)},
    tolerance={"backend:wgpu": {"ulp": _WGSL_EXP_ULP}},
    bytes_moved="8*n",
    flops="n",
)

KERNELS = (AFFINE, AXPY, ADD, MUL, FMA, RELU, GELU, SIGMOID, TANH, EXP, GELU_BF16, GELU_F16)
