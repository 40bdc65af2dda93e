"""Planted bugs in low-precision GEMMs (f16 or bf16 a and b, f32 accumulation and c),
each beside its correct twin, in the style of ``tests/oracle_broken``: one WGSL and one
CUDA C template, the defect in a slot. The GEMM tolerance grows with k
(``forge.kernels.linalg.accumulation_tolerance``), and these prove it stays tight
enough to catch:

- ``narrow_accumulator``: the sum is kept in the input dtype instead of f32 (each of k
  additions rounds to 11 or 8 significant bits);
- ``dropped_k_tile``: the k loop runs over whole tiles only, so the last, partial tile of
  k (k % 16 values) is never added: the classic remainder bug.

WGSL has f16 (where the adapter offers ``shader-f16``: lavapipe does) and no bfloat16,
so the bf16 cases are CUDA only (``unsupported, because ...`` on wgpu).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from forge import Access, BufferSpec, KernelSpec, Schedule
from forge.kernels.linalg import accumulation_tolerance
from forge.types import SCALAR_TYPES

from . import BrokenCase

__all__ = ["LOW_PRECISION_CASES"]

_TILE = 16  # the k tile of the templates
_SIZES = (67, 130)  # k % 16 = 3 and 2: each size has a partial last tile
_BOUND = 2.0

_WGSL = """\
enable f16;
struct Params { alpha: f32, beta: f32, m: u32, n: u32, k: u32 }
@group(0) @binding(0) var<storage, read> a: array<f16>;
@group(0) @binding(1) var<storage, read> b: array<f16>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;

@compute @workgroup_size(${wg_x})
fn ${entry}(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
            @builtin(local_invocation_index) lid: u32) {
    let i = (wg.y * groups.x + wg.x) * ${wg_x}u + lid;
    if (i >= p.m * p.n) { return; }
    let row = i / p.n;
    let col = i % p.n;
    var acc: @ACC@ = @ACC@(0.0);
    for (var k0 = 0u; @KLOOP@; k0 += 16u) {
        for (var kk = k0; kk < min(k0 + 16u, p.k); kk += 1u) {
            acc += @ACC@(f32(a[row * p.k + kk]) * f32(b[kk * p.n + col]));
        }
    }
    var out = p.alpha * f32(acc);
    if (p.beta != 0.0) { out += p.beta * c[i]; }
    c[i] = out;
}
"""

_CUDA = """\
#include <@HEADER@>
struct Params { float alpha; float beta; unsigned int m; unsigned int n; unsigned int k; };
extern "C" __global__ void ${entry}(const @IN@* a, const @IN@* b, float* c, const Params p) {
    const unsigned long long block = (unsigned long long)blockIdx.y * gridDim.x + blockIdx.x;
    const unsigned long long i = block * blockDim.x + threadIdx.x;
    if (i >= (unsigned long long)p.m * p.n) return;
    const unsigned int row = i / p.n, col = i % p.n;
    @ACC@ acc = @ACC@(0.0f);
    for (unsigned int k0 = 0; @KLOOP@; k0 += 16) {
        for (unsigned int kk = k0; kk < min(k0 + 16, p.k); ++kk) {
            acc += @ACC@((float)a[row * p.k + kk] * (float)b[kk * p.n + col]);
        }
    }
    float out = p.alpha * (float)acc;
    if (p.beta != 0.0f) out += p.beta * c[i];
    c[i] = out;
}
"""

_WHOLE_TILES = {"wgsl": "k0 < p.k", "cuda": "k0 < p.k"}
_DROPPED = {"wgsl": "k0 + 16u <= p.k", "cuda": "k0 + 16 <= p.k"}


def _gemm(a, b, c, p) -> None:
    """The correct meaning: float64 products and sum, rounded once to f32."""
    m, n, k = int(p["m"]), int(p["n"]), int(p["k"])
    product = a[: m * k].astype(np.float64).reshape(m, k) @ b[: k * n].astype(np.float64).reshape(
        k, n
    )
    out = np.float32(p["alpha"]) * product.astype(np.float32)
    if p["beta"] != 0:
        out = out + np.float32(p["beta"]) * c[: m * n].reshape(m, n)
    c[: m * n] = out.reshape(-1)


def _narrow_gemm(dtype: np.dtype) -> Callable:
    """The narrow-accumulator bug in numpy: the running sum rounded to ``dtype``."""

    def gemm(a, b, c, p) -> None:
        m, n, k = int(p["m"]), int(p["n"]), int(p["k"])
        a2 = a[: m * k].astype(np.float32).reshape(m, k)
        b2 = b[: k * n].astype(np.float32).reshape(k, n)
        acc = np.zeros((m, n), dtype)
        for kk in range(k):
            acc = (acc.astype(np.float32) + np.outer(a2[:, kk], b2[kk])).astype(dtype)
        out = np.float32(p["alpha"]) * acc.astype(np.float32)
        if p["beta"] != 0:
            out = out + np.float32(p["beta"]) * c[: m * n].reshape(m, n)
        c[: m * n] = out.reshape(-1)

    return gemm


def _dropped_gemm(a, b, c, p) -> None:
    """The dropped-tile bug in numpy: k cut to whole tiles."""
    k = int(p["k"])
    whole = k - k % _TILE
    m, n = int(p["m"]), int(p["n"])
    a2 = a[: m * k].reshape(m, k)[:, :whole].reshape(-1)
    b2 = b[: k * n].reshape(k, n)[:whole].reshape(-1)
    _gemm(a2, b2, c, {**{f: p[f] for f in ("alpha", "beta", "m", "n")}, "k": whole})


def _spec(inputs: str) -> dict:
    return dict(
        buffers=(
            BufferSpec(0, inputs, Access.READ, name="a", count=lambda s: s * s),
            BufferSpec(1, inputs, Access.READ, name="b", count=lambda s: s * s),
            BufferSpec(2, "f32", Access.READ_WRITE, name="c", count=lambda s: s * s, inout=True),
            BufferSpec.uniform(
                3, (("alpha", "f32"), ("beta", "f32"), ("m", "u32"), ("n", "u32"), ("k", "u32"))
            ),
        ),
        params=lambda s: {"m": s, "n": s, "k": s},
        defaults={"alpha": 1.5, "beta": 0.5},
        grid=lambda schedule, s: schedule.dispatch_workgroups(s * s),
        schedules=(Schedule(64),),
        requires=frozenset({inputs}),
        domain={name: (-_BOUND, _BOUND) for name in ("a", "b", "c")},
        nonfinite_inputs=False,
        tolerance={"f32": accumulation_tolerance(max(_SIZES), _BOUND)},
        test_sizes=_SIZES,
        tags=("oracle-broken", "low-precision"),
    )


def _sources(inputs: str, accumulator: dict, kloop: dict) -> dict:
    cuda = (
        _CUDA.replace("@IN@", SCALAR_TYPES[inputs].cuda)
        .replace("@HEADER@", "cuda_bf16.h" if inputs == "bf16" else "cuda_fp16.h")
        .replace("@ACC@", accumulator["cuda"])
        .replace("@KLOOP@", kloop["cuda"])
    )
    sources = {"cuda": cuda}
    if SCALAR_TYPES[inputs].wgsl is not None:
        sources["wgsl"] = _WGSL.replace("@ACC@", accumulator["wgsl"]).replace(
            "@KLOOP@", kloop["wgsl"]
        )
    return sources


def _kernel(
    name: str, inputs: str, reference: Callable, accumulator: dict, kloop: dict
) -> KernelSpec:
    return KernelSpec(
        id=name,
        entry_point=name,
        reference=reference,
        sources=_sources(inputs, accumulator, kloop),
        **_spec(inputs),
    )


def _case(defect: str, inputs: str) -> BrokenCase:
    wide = {"wgsl": "f32", "cuda": "float"}
    narrow = {"wgsl": "f16", "cuda": SCALAR_TYPES[inputs].cuda}
    name = f"{defect}_{inputs}"
    good = _kernel(f"{name}_good", inputs, _gemm, wide, _WHOLE_TILES)
    if defect == "narrow_accumulator":
        broken = _kernel(f"{name}_broken", inputs, _gemm, narrow, _WHOLE_TILES)
        wrong = _narrow_gemm(SCALAR_TYPES[inputs].numpy)
    else:
        broken = _kernel(f"{name}_broken", inputs, _gemm, wide, _DROPPED)
        wrong = _dropped_gemm
    numpy_broken = KernelSpec(
        id=f"{name}_numpy_broken",
        entry_point=good.entry_point,
        reference=wrong,
        sources=good.sources,
        **_spec(inputs),
    )
    return BrokenCase(name, good, broken, "value", numpy_broken, "value")


LOW_PRECISION_CASES = {
    case.name: case
    for case in (
        _case(defect, inputs)
        for defect in ("narrow_accumulator", "dropped_k_tile")
        for inputs in ("f16", "bf16")
    )
}
