"""Planted bugs in low-precision GEMMs (f16 or bf16 a and b, or f32 ones declared TF32;
f32 accumulation and c), each beside its correct twin, in the style of
``tests/oracle_broken``: one WGSL and one CUDA C template, the defect in a slot. The GEMM
tolerance grows with k (``forge.kernels.linalg.accumulation_tolerance``), and these
prove it stays tight enough to catch:

- ``narrow_accumulator``: the sum is kept in the input dtype instead of f32 (each of k
  additions rounds to 11 or 8 significant bits; TF32's is kept in bf16 on CUDA and in
  f16 on WGSL, which has no bfloat16);
- ``dropped_k_tile``: the k loop runs over whole tiles only, so the last, partial tile of
  k (k % 16 values) is never added: the classic remainder bug;
- TF32 only (the correct twin rounds every input as ``cvt.rna.tf32.f32``, as
  ``forge.ir.to_tf32``, the reference's meaning): ``truncated``, the inputs cut to 10
  mantissa bits instead of rounded (what a tensor core makes of f32 bits no ``cvt``
  rounded), about one TF32 ulp per input and biased toward zero; ``unrounded``, the
  inputs multiplied as the f32 values they are. The latter is closer to the product of
  the f32 inputs than the declared meaning, and still wrong: a matmul that declares TF32
  inputs means the rounded ones, every schedule of it on every target computes those,
  and at k = 130 the unrounded products are some 12 times the accumulation tolerance
  away (a GEMM on f32 values is ``gemm``, with its own tolerance).

The TF32 templates round with bit operations (no ``.tf32`` PTX in their text, which the
oracle reads as a foreign TF32 kernel and judges within its inputs' rounding). WGSL has
f16 (where the adapter offers ``shader-f16``: lavapipe does) and no bfloat16, so the bf16
cases are CUDA only (``unsupported, because ...`` on wgpu).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from forge import Access, BufferSpec, KernelSpec, Schedule
from forge.ir import to_tf32
from forge.kernels.linalg import accumulation_tolerance
from forge.types import SCALAR_TYPES

from . import BrokenCase

__all__ = ["LOW_PRECISION_CASES", "MARGINS"]

_TILE = 16  # the k tile of the templates
_SIZES = (67, 130)  # k % 16 = 3 and 2: each size has a partial last tile
_BOUND = 2.0

_WGSL = """\
@ENABLE@struct Params { alpha: f32, beta: f32, m: u32, n: u32, k: u32 }
@group(0) @binding(0) var<storage, read> a: array<@INW@>;
@group(0) @binding(1) var<storage, read> b: array<@INW@>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;
@FUNCS@
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
            acc += @ACC@(@A@ * @B@);
        }
    }
    var out = p.alpha * f32(acc);
    if (p.beta != 0.0) { out += p.beta * c[i]; }
    c[i] = out;
}
"""

_CUDA = """\
#include <@HEADER@>
@FUNCS@struct Params { float alpha; float beta; unsigned int m; unsigned int n; unsigned int k; };
extern "C" __global__ void ${entry}(const @IN@* a, const @IN@* b, float* c, const Params p) {
    const unsigned long long block = (unsigned long long)blockIdx.y * gridDim.x + blockIdx.x;
    const unsigned long long i = block * blockDim.x + threadIdx.x;
    if (i >= (unsigned long long)p.m * p.n) return;
    const unsigned int row = i / p.n, col = i % p.n;
    @ACC@ acc = @ACC@(0.0f);
    for (unsigned int k0 = 0; @KLOOP@; k0 += 16) {
        for (unsigned int kk = k0; kk < min(k0 + 16, p.k); ++kk) {
            acc += @ACC@(@A@ * @B@);
        }
    }
    float out = p.alpha * (float)acc;
    if (p.beta != 0.0f) out += p.beta * c[i];
    c[i] = out;
}
"""

_WHOLE_TILES = {"wgsl": "k0 < p.k", "cuda": "k0 < p.k"}
_DROPPED = {"wgsl": "k0 + 16u <= p.k", "cuda": "k0 + 16 <= p.k"}
# the elements of a and b as the products take them: converted to f32, and for TF32 inputs
# passed through the rounding (or the broken twin's) of ``_TF32_FUNCTIONS``
_LOADS = {
    "wgsl": ("f32(a[row * p.k + kk])", "f32(b[kk * p.n + col])"),
    "cuda": ("(float)a[row * p.k + kk]", "(float)b[kk * p.n + col]"),
}
# TF32 on the bits: rounded as cvt.rna.tf32.f32 (half an ulp added to the magnitude, the
# low 13 bits cleared, Inf and NaN kept), or truncated (the low 13 bits cleared)
_TF32_FUNCTIONS = {
    "wgsl": """
fn tf32_round(x: f32) -> f32 {
    let bits = bitcast<u32>(x);
    let special = (bits & 0x7f800000u) == 0x7f800000u;
    return bitcast<f32>(select((bits + 0x1000u) & 0xffffe000u, bits, special));
}
fn tf32_truncate(x: f32) -> f32 { return bitcast<f32>(bitcast<u32>(x) & 0xffffe000u); }
""",
    "cuda": """\
__device__ float tf32_round(float x) {
    const unsigned int bits = __float_as_uint(x);
    if ((bits & 0x7f800000u) == 0x7f800000u) return x;
    return __uint_as_float((bits + 0x1000u) & 0xffffe000u);
}
__device__ float tf32_truncate(float x) {
    return __uint_as_float(__float_as_uint(x) & 0xffffe000u);
}
""",
}


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


def _truncated(x: np.ndarray) -> np.ndarray:
    """Float32 values cut to TF32: the low 13 bits cleared."""
    return (np.asarray(x, np.float32).view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32)


def _on_inputs(gemm: Callable, inputs: Callable) -> Callable:
    """``gemm`` of ``a`` and ``b`` passed through ``inputs`` first (TF32's rounding)."""

    def rounded(a, b, c, p) -> None:
        gemm(inputs(a), inputs(b), c, p)

    return rounded


def _dropped_gemm(a, b, c, p) -> None:
    """The dropped-tile bug in numpy: k cut to whole tiles."""
    k = int(p["k"])
    whole = k - k % _TILE
    m, n = int(p["m"]), int(p["n"])
    a2 = a[: m * k].reshape(m, k)[:, :whole].reshape(-1)
    b2 = b[: k * n].reshape(k, n)[:whole].reshape(-1)
    _gemm(a2, b2, c, {**{f: p[f] for f in ("alpha", "beta", "m", "n")}, "k": whole})


def _spec(inputs: str, requires: frozenset[str]) -> dict:
    stored = "f32" if inputs == "tf32" else inputs
    return dict(
        buffers=(
            BufferSpec(0, stored, Access.READ, name="a", count=lambda s: s * s),
            BufferSpec(1, stored, Access.READ, name="b", count=lambda s: s * s),
            BufferSpec(2, "f32", Access.READ_WRITE, name="c", count=lambda s: s * s, inout=True),
            BufferSpec.uniform(
                3, (("alpha", "f32"), ("beta", "f32"), ("m", "u32"), ("n", "u32"), ("k", "u32"))
            ),
        ),
        params=lambda s: {"m": s, "n": s, "k": s},
        defaults={"alpha": 1.5, "beta": 0.5},
        grid=lambda schedule, s: schedule.dispatch_workgroups(s * s),
        schedules=(Schedule(64),),
        requires=requires,
        domain={name: (-_BOUND, _BOUND) for name in ("a", "b", "c")},
        nonfinite_inputs=False,
        tolerance={"f32": accumulation_tolerance(max(_SIZES), _BOUND)},
        test_sizes=_SIZES,
        tags=("oracle-broken", "low-precision"),
    )


def _sources(inputs: str, accumulator: dict, kloop: dict, rounding: str) -> dict:
    """The templates filled in; ``rounding`` is what TF32 inputs go through
    (``tf32_round``, ``tf32_truncate``, or "" for nothing)."""

    def loads(target: str) -> tuple[str, str]:
        a, b = _LOADS[target]
        return (f"{rounding}({a})", f"{rounding}({b})") if rounding else (a, b)

    tf32 = inputs == "tf32"
    stored = SCALAR_TYPES["f32" if tf32 else inputs]
    bf16 = SCALAR_TYPES["bf16"].cuda in (stored.cuda, accumulator["cuda"])
    a, b = loads("cuda")
    cuda = (
        _CUDA.replace("@IN@", stored.cuda)
        .replace("@HEADER@", "cuda_bf16.h" if bf16 else "cuda_fp16.h")
        .replace("@FUNCS@", _TF32_FUNCTIONS["cuda"] if tf32 else "")
        .replace("@ACC@", accumulator["cuda"])
        .replace("@KLOOP@", kloop["cuda"])
        .replace("@A@", a)
        .replace("@B@", b)
    )
    sources = {"cuda": cuda}
    if stored.wgsl is not None:
        a, b = loads("wgsl")
        f16 = not tf32 or accumulator["wgsl"] == "f16"
        sources["wgsl"] = (
            _WGSL.replace("@ENABLE@", "enable f16;\n" if f16 else "")
            .replace("@INW@", "f32" if tf32 else "f16")
            .replace("@FUNCS@", _TF32_FUNCTIONS["wgsl"] if tf32 else "")
            .replace("@ACC@", accumulator["wgsl"])
            .replace("@KLOOP@", kloop["wgsl"])
            .replace("@A@", a)
            .replace("@B@", b)
        )
    return sources


def _kernel(
    name: str,
    inputs: str,
    reference: Callable,
    accumulator: dict,
    kloop: dict,
    rounding: str = "",
    requires: frozenset[str] | None = None,
) -> KernelSpec:
    return KernelSpec(
        id=name,
        entry_point=name,
        reference=reference,
        sources=_sources(inputs, accumulator, kloop, rounding),
        **_spec(inputs, frozenset({inputs}) if requires is None else requires),
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
        **_spec(inputs, frozenset({inputs})),
    )
    return BrokenCase(name, good, broken, "value", numpy_broken, "value")


def _tf32_case(defect: str) -> BrokenCase:
    """A TF32 GEMM (f32 a and b, rounded to TF32 before they multiply) and one defect."""
    wide = {"wgsl": "f32", "cuda": "float"}
    name = f"{defect}_tf32"
    meaning = _on_inputs(_gemm, to_tf32)
    none: frozenset[str] = frozenset()

    def kernel(suffix: str, accumulator: dict, kloop: dict, rounding: str) -> KernelSpec:
        f16 = frozenset({"f16"}) if accumulator["wgsl"] == "f16" else none
        return _kernel(
            f"{name}_{suffix}", "tf32", meaning, accumulator, kloop, rounding, requires=f16
        )

    good = kernel("good", wide, _WHOLE_TILES, "tf32_round")
    if defect == "narrow_accumulator":
        narrow = {"wgsl": "f16", "cuda": "__nv_bfloat16"}
        broken = kernel("broken", narrow, _WHOLE_TILES, "tf32_round")
        wrong = _on_inputs(_narrow_gemm(SCALAR_TYPES["bf16"].numpy), to_tf32)
    elif defect == "dropped_k_tile":
        broken = kernel("broken", wide, _DROPPED, "tf32_round")
        wrong = _on_inputs(_dropped_gemm, to_tf32)
    elif defect == "truncated":
        broken = kernel("broken", wide, _WHOLE_TILES, "tf32_truncate")
        wrong = _on_inputs(_gemm, _truncated)
    else:  # unrounded
        broken = kernel("broken", wide, _WHOLE_TILES, "")
        wrong = _gemm
    numpy_broken = KernelSpec(
        id=f"{name}_numpy_broken",
        entry_point=good.entry_point,
        reference=wrong,
        sources=good.sources,
        **_spec("tf32", none),
    )
    return BrokenCase(name, good, broken, "value", numpy_broken, "value")


LOW_PRECISION_CASES = {
    case.name: case
    for case in (
        _case(defect, inputs)
        for defect in ("narrow_accumulator", "dropped_k_tile")
        for inputs in ("f16", "bf16")
    )
} | {
    case.name: case
    for case in map(_tf32_case, ("narrow_accumulator", "dropped_k_tile", "truncated", "unrounded"))
}

#: How far beyond its tolerance (times atol) a broken case's worst element must be
#: (default 10). An unrounded TF32 GEMM errs by what rounding 2k inputs to 10 bits makes:
#: in the oracle's draws 9 times the tolerance at k = 67 and 12 at k = 130 (half the
#: elements past it), so it is held to 3; truncated inputs miss by 20 to 40 times,
#: a narrow accumulator by 80 and more, a dropped tile by thousands.
MARGINS = {"unrounded_tf32": 3.0}
